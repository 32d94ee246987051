"""MemPO's memory advantage (pooled per question), the span-length scales and
the combination with the outcome advantage on `<mem>` spans. Port of mempo-lab
`lib/advantage/memory_advantage.ts` on plain lists (the estimator in
`estimator.py` applies them to verl's tensors).

    A^M(i, t) = (R^M(i, t) - mean_q) / (std_q + epsilon)   pooled over every turn of every trajectory of question q
    pool "turn": pooled over the same turn index of question q's trajectories (not MemPO's)
    span scale_s = mean(L) / L_s over the non-empty spans (an empty span: 1)  (span weighting, not MemPO's)
    final[b][t] = mask[b][t] * (A^T_b + mem_coef * sum of A^M_s over the spans s of b that hold t)
"""
import json
import math

from .grpo import group_advantages


def memory_advantages(rewards, group_ids, pool="question", epsilon=1e-6, norm_by_std=True, std="bessel"):
    """Normalises memory rewards within each question with the GRPO normaliser.

    Args:
        rewards: flat `[M]` floats, or per trajectory `[N][turns]` with None where a
            turn has no memory reward (turn 1, or no `<mem>` span).
        group_ids: the question of each entry (flat) or of each trajectory (nested).
        pool: "question" (MemPO) or "turn" (same turn index only; nested rewards only).
        epsilon, norm_by_std, std: the normaliser's (see `group_advantages`).

    Returns:
        Advantages in the shape of `rewards` (None kept).
    """
    if pool not in ("question", "turn"):
        raise ValueError(f'Cannot compute memory_advantages: pool must be "question" or "turn", current value is {pool!r}')
    normaliser = {"epsilon": epsilon, "norm_by_std": norm_by_std, "std": std}
    rewards = list(rewards)
    if all(isinstance(r, (int, float)) and r is not None for r in rewards):
        if pool == "turn":
            raise TypeError(
                'Cannot compute memory_advantages: pool "turn" needs rewards per trajectory and turn ([N][turns]), '
                "current rewards are flat"
            )
        return group_advantages(rewards, group_ids, **normaliser)
    group_ids = list(group_ids)
    if len(group_ids) != len(rewards):
        raise TypeError(
            f"Cannot compute memory_advantages: group_ids must have one id per trajectory ({len(rewards)}), "
            f"current length is {len(group_ids)}"
        )
    flat, ids, pools = [], [], {}
    for i, row in enumerate(rewards):
        if not isinstance(row, (list, tuple)):
            raise TypeError(f"Cannot compute memory_advantages: rewards[{i}] must be a list of turns, current value is {row!r}")
        for t, r in enumerate(row):
            if r is None:
                continue
            flat.append(float(r))
            if pool == "turn":
                key = json.dumps([type(group_ids[i]).__name__, group_ids[i], t])
                ids.append(pools.setdefault(key, len(pools)))
            else:
                ids.append(group_ids[i])
    adv = iter(group_advantages(flat, ids, **normaliser))
    return [[None if r is None else next(adv) for r in row] for row in rewards]


def span_length_scales(lengths):
    """Scales L̄ / L_s that give every span the same total weight in a token-mean loss."""
    lengths = list(lengths)
    for s, L in enumerate(lengths):
        if not isinstance(L, int) or isinstance(L, bool) or L < 0:
            raise ValueError(f"Cannot compute span_length_scales: lengths[{s}] must be a non-negative integer, current value is {L!r}")
    non_empty = [L for L in lengths if L > 0]
    total = 0
    for L in non_empty:
        total += L
    mean = total / len(non_empty) if non_empty else math.nan
    return [mean / L if L > 0 else 1.0 for L in lengths]


def combine_advantages(outcome_advantages, memory_spans, mask, mem_coef=1.0):
    """The per-token advantage MemPO trains with, on plain lists.

    Args:
        outcome_advantages: A^T per row, `[B]`.
        memory_spans: per row a list of `(start, end, advantage)` token spans `[start, end)`.
        mask: `[B][T]`, 1 = policy-sampled token.
        mem_coef: weight of the memory advantage.

    Returns:
        `[B][T]` floats, 0 where the mask is 0.
    """
    if not math.isfinite(mem_coef):
        raise ValueError(f"Cannot compute combine_advantages: mem_coef must be a finite number, current value is {mem_coef}")
    if len(mask) != len(outcome_advantages) or len(memory_spans) != len(outcome_advantages):
        raise TypeError(
            f"Cannot compute combine_advantages: mask and memory_spans must have {len(outcome_advantages)} rows "
            f"like outcome_advantages, current values have {len(mask)} and {len(memory_spans)}"
        )
    out = []
    for b, row in enumerate(mask):
        T = len(row)
        values = [float(outcome_advantages[b])] * T
        for k, (start, end, advantage) in enumerate(memory_spans[b]):
            if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= T):
                raise ValueError(
                    f"Cannot compute combine_advantages: memory_spans[{b}][{k}] must satisfy 0 <= start <= end <= {T}, "
                    f"current value is [{start}, {end})"
                )
            if not math.isfinite(advantage):
                raise ValueError(
                    f"Cannot compute combine_advantages: memory_spans[{b}][{k}].advantage must be finite, "
                    f"current value is {advantage}"
                )
            for t in range(start, end):
                values[t] += mem_coef * advantage
        out.append([a if row[t] == 1 else 0.0 for t, a in enumerate(values)])
    return out
