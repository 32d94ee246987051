"""MemPO's advantage estimator on verl's tensors: the outcome advantage of GRPO
per trajectory plus the memory advantage on each turn's `<mem>` span.

    A^T_i      = group_advantages(score_i, question_i)        one score per trajectory (not per row)
    A^M(i, t)  = VARIANTS[options.variant](R^M, questions, scores, options)
    adv[b, t]  = response_mask[b, t] * (A^T_traj(b) + mem_coef * A^M(traj(b), k) * scale)   for t in row b's span of turn k
    returns    = adv  (as verl's GRPO)

verl's conventions: `token_level_rewards` and `response_mask` are `[B, T]` over
the response tokens, `index` holds each row's prompt uid (`uid`), the outcome
score of a row is `token_level_rewards.sum(-1)`. Two layouts are accepted:

- one row per trajectory (verl's agent loop: the response holds every turn and
  tool message, tool tokens masked): `traj_index=None`;
- one row per turn (what the memory context policy needs: each turn was sampled
  under its own context): `traj_index[b]` names the trajectory of row b; the
  trajectory's score is the sum over its rows (the reward sits on one of them).

MemPO's own inputs, written by the extended agent loop (the export's README.md):
`memory_rewards [B, K]` float, R^M of turn k of the row's trajectory (NaN where
none), and `memory_span_ids [B, T]` long, k on the tokens of turn k's `<mem>`
span (its content and `</mem>`, not the forced `<mem>`), -1 elsewhere.

A variant of MemPO is one function of `VARIANTS` (same arguments, returns A^M
per trajectory and turn).
"""
import math

import torch

from .grpo import group_advantages
from .memory_advantage import memory_advantages, span_length_scales
from .options import MempoOptions


def mempo_memory_advantages(memory_rewards, questions, scores, options):
    """MemPO: R^M pooled over every turn of every trajectory of the question
    (or of the same turn index, `pool="turn"`), GRPO-normalised.

    Args:
        memory_rewards: `[N][turns]` R^M per trajectory and turn, None where none.
        questions: the question of each trajectory.
        scores: the outcome score of each trajectory (unused by MemPO; a variant may gate on it).
        options: `MempoOptions`.
    """
    del scores
    return memory_advantages(
        memory_rewards, questions, pool=options.pool, epsilon=options.epsilon, norm_by_std=options.norm_by_std, std=options.std
    )


def infomem_memory_advantages(memory_rewards, questions, scores, options):
    """InfoMem's gate (arXiv:2606.03329, as mempo-lab reads its abstract): only
    trajectories whose outcome score is 1 enter the pools and get A^M; a wrong
    trajectory's memory turns get A^M = 0. Port of mempo-lab `infomemAdvantages`.

    Args:
        memory_rewards: `[N][turns]` R^M per trajectory and turn, None where none.
        questions: the question of each trajectory.
        scores: the outcome score of each trajectory (1 = right).
        options: `MempoOptions`.
    """
    right = [s == 1 for s in scores]
    gated = memory_advantages(
        [row if ok else [None] * len(row) for row, ok in zip(memory_rewards, right)], questions,
        pool=options.pool, epsilon=options.epsilon, norm_by_std=options.norm_by_std, std=options.std,
    )
    return [a if ok else [None if r is None else 0.0 for r in row] for a, row, ok in zip(gated, memory_rewards, right)]


#: Memory-advantage variants by name (`MempoOptions.variant`, from mempo-lab's `rl.memCredit`).
VARIANTS = {"mempo": mempo_memory_advantages, "infomem": infomem_memory_advantages}


def _ids(x, name, B):
    ids = x.tolist() if hasattr(x, "tolist") else list(x)
    if len(ids) != B:
        raise ValueError(f"Cannot compute the MemPO advantage: {name} must have one entry per row ({B}), current length is {len(ids)}")
    return ids


def compute_mempo_advantage(
    token_level_rewards,
    response_mask,
    index,
    memory_rewards=None,
    memory_span_ids=None,
    traj_index=None,
    options=None,
):
    """The MemPO advantage of a verl batch (see the module doc for the layouts).

    Args:
        token_level_rewards: `[B, T]` outcome reward per token (verl places it on the last response token).
        response_mask: `[B, T]`, 1 = policy-sampled token.
        index: `[B]` the question (prompt uid) of each row.
        memory_rewards: `[B, K]` R^M per turn, NaN where none; None = no memory credit (plain GRPO).
        memory_span_ids: `[B, T]` turn index k on turn k's `<mem>` span, -1 elsewhere.
        traj_index: `[B]` trajectory id of each row; None = one row per trajectory.
        options: `MempoOptions` (default: mempo-lab's defaults).

    Returns:
        `(advantages, returns)`, `[B, T]` tensors in the dtype of `token_level_rewards`.
    """
    options = options or MempoOptions()
    if options.variant not in VARIANTS:
        raise ValueError(f"Cannot compute the MemPO advantage: variant must be one of {sorted(VARIANTS)}, current value is {options.variant!r}")
    if token_level_rewards.dim() != 2 or tuple(token_level_rewards.shape) != tuple(response_mask.shape):
        raise ValueError(
            "Cannot compute the MemPO advantage: token_level_rewards and response_mask must both be [B, T], "
            f"current shapes are {tuple(token_level_rewards.shape)} and {tuple(response_mask.shape)}"
        )
    B, T = response_mask.shape
    questions_of_rows = _ids(index, "index", B)
    trajs_of_rows = list(range(B)) if traj_index is None else _ids(traj_index, "traj_index", B)
    mask = response_mask.to(torch.float64)
    if not bool(((mask == 0) | (mask == 1)).all()):
        raise ValueError("Cannot compute the MemPO advantage: response_mask must hold only 0 and 1")
    row_scores = token_level_rewards.to(torch.float64).sum(-1).tolist()

    # trajectories in order of first appearance; their question and outcome score
    order, rows_of, question_of, score_of = [], {}, {}, {}
    for b, (traj, q) in enumerate(zip(trajs_of_rows, questions_of_rows)):
        if traj not in rows_of:
            order.append(traj)
            rows_of[traj] = []
            question_of[traj] = q
            score_of[traj] = 0.0
        elif question_of[traj] != q:
            raise ValueError(
                f"Cannot compute the MemPO advantage: row {b} of trajectory {traj!r} has question {q!r}, "
                f"an earlier row of it has {question_of[traj]!r}"
            )
        rows_of[traj].append(b)
        score_of[traj] += row_scores[b]
    outcome = dict(zip(order, group_advantages(
        [score_of[t] for t in order], [question_of[t] for t in order],
        epsilon=options.epsilon, norm_by_std=options.norm_by_std, std=options.std,
    )))
    adv = torch.zeros((B, T), dtype=torch.float64)
    for b, traj in enumerate(trajs_of_rows):
        adv[b, :] = outcome[traj]

    if memory_rewards is not None:
        if memory_span_ids is None or tuple(memory_span_ids.shape) != (B, T):
            raise ValueError(
                f"Cannot compute the MemPO advantage: memory_span_ids must be [B, T] = [{B}, {T}] with memory_rewards, "
                f"current value is {None if memory_span_ids is None else tuple(memory_span_ids.shape)}"
            )
        if memory_rewards.dim() != 2 or memory_rewards.shape[0] != B:
            raise ValueError(
                f"Cannot compute the MemPO advantage: memory_rewards must be [B, K] with B = {B}, current shape is {tuple(memory_rewards.shape)}"
            )
        K = memory_rewards.shape[1]
        rm = memory_rewards.to(torch.float64).tolist()
        nested = {t: [] for t in order}
        for b, traj in enumerate(trajs_of_rows):
            row = nested[traj]
            for k in range(K):
                r = rm[b][k]
                if math.isnan(r):
                    continue
                while len(row) <= k:
                    row.append(None)
                if row[k] is not None and row[k] != r:
                    raise ValueError(
                        f"Cannot compute the MemPO advantage: turn {k} of trajectory {traj!r} has two memory rewards, {row[k]} and {r}"
                    )
                row[k] = r
        am = VARIANTS[options.variant]([nested[t] for t in order], [question_of[t] for t in order],
                                       [score_of[t] for t in order], options)
        am_of = dict(zip(order, am))
        span_ids = memory_span_ids.tolist()
        spans = []  # (row, positions, A^M) in batch order
        for b, traj in enumerate(trajs_of_rows):
            for k, a in enumerate(am_of[traj]):
                if a is None:
                    continue
                positions = [t for t in range(T) if span_ids[b][t] == k]
                if not positions:
                    continue
                if not options.close_tag:
                    positions = positions[:-1]
                spans.append((b, positions, a))
        if options.span_weight == "span":
            scales = span_length_scales([len(p) for _, p, _ in spans])
            spans = [(b, p, a * s) for (b, p, a), s in zip(spans, scales)]
        for b, positions, a in spans:
            for t in positions:
                adv[b, t] += options.mem_coef * a
    adv = (adv * mask).to(token_level_rewards.dtype)
    return adv, adv
