"""The group normaliser of GRPO, the one of the package (MemPO's memory
advantage calls it too). Port of mempo-lab `lib/advantage/grpo.ts`.

    A_i = (s_i - mean_g) / (std_g + epsilon)     g = the group of i (same id)
    bessel:     std² = Σ (s - mean)² / (G - 1); a singleton group uses mean 0, std 1 (verl)
    population: std² = Σ (s - mean)² / G;       a singleton group has std 0, so A = 0 (MiniMind)
    all-equal group -> 0;   norm_by_std = False -> A_i = s_i - mean_g (Dr.GRPO)

Computed in float64 on Python floats, summing in input order, so the numbers
are those of the TypeScript function (verl's `compute_grpo_outcome_advantage`
computes the same in float32).
"""
import math


def _key(group_id):
    if hasattr(group_id, "item"):  # numpy / torch scalars from verl's `index`
        group_id = group_id.item()
    if not isinstance(group_id, (str, int, float)) or isinstance(group_id, bool):
        raise TypeError(f"Cannot compute group advantages: a group id must be a string or number, got {group_id!r}")
    return group_id


def group_advantages(scores, group_ids, epsilon=1e-6, norm_by_std=True, std="bessel"):
    """Advantage of each score relative to the other scores of its group.

    Args:
        scores: one float per completion (any order).
        group_ids: the group (prompt) of each completion.
        epsilon: added to the std; verl 1e-6, MiniMind 1e-4.
        norm_by_std: divide by std + epsilon (False: Dr.GRPO).
        std: "bessel" (verl) or "population" (MiniMind).

    Returns:
        A list of floats, one per score.
    """
    scores = [float(s) for s in scores]
    group_ids = list(group_ids)
    if len(group_ids) != len(scores):
        raise TypeError(
            f"Cannot compute group advantages: group_ids must have one id per score ({len(scores)}), "
            f"current length is {len(group_ids)}"
        )
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"Cannot compute group advantages: epsilon must be a finite number >= 0, current value is {epsilon}")
    if std not in ("bessel", "population"):
        raise ValueError(f'Cannot compute group advantages: std must be "bessel" or "population", current value is {std!r}')
    for i, s in enumerate(scores):
        if not math.isfinite(s):
            raise ValueError(f"Cannot compute group advantages: scores[{i}] must be finite, current value is {s}")
    members = {}
    for i, g in enumerate(group_ids):
        members.setdefault(_key(g), []).append(i)
    out = [0.0] * len(scores)
    for idx in members.values():
        G = len(idx)
        values = [scores[i] for i in idx]
        if G == 1 and std == "bessel":
            mean, sigma = 0.0, 1.0
        else:
            total = 0.0
            for v in values:
                total += v
            mean = total / G
            ss = 0.0
            for v in values:
                ss += (v - mean) ** 2
            sigma = math.sqrt(ss / (G - 1 if std == "bessel" else G))
        all_equal = G > 1 and all(v == values[0] for v in values)
        for i in idx:
            if all_equal or (G == 1 and std == "population"):
                out[i] = 0.0
            else:
                out[i] = (scores[i] - mean) / (sigma + epsilon) if norm_by_std else scores[i] - mean
    return out
