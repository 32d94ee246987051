"""MemPO's memory reward: how well a turn's `<mem>` alone predicts the gold
answer, compared with the whole history. Port of mempo-lab
`lib/advantage/memory_reward.ts`, on torch tensors.

    P_mem(t)  = exp(mean_{k in K_mem}  log pi(a_k | system + question + <mem>_t + answer prefix))
    P_full(t) = exp(mean_{k in K_full} log pi(a_k | full history before t + answer prefix))
    R^M(t)    = P_mem(t) - P_full(t)
    K = {k : answer_mask_k = 1}  (and log pi_k > log threshold with a threshold; an empty K gives P = 0)
    coverage: P <- P * |K| / |{k : answer_mask_k = 1}|   (not MemPO's)

Both log-prob tensors come from teacher-forced scoring forwards of the rollout
weights (verl: `compute_log_prob` on 2N sequences, no gradient).
"""
import math

import torch


def _geometric_mean_prob(log_probs, mask, threshold, coverage):
    lp = log_probs.to(torch.float64)
    answers = mask.to(torch.float64)
    cut = -math.inf if threshold is None or threshold == 0 else math.log(threshold)
    kept = answers * (lp > cut).to(torch.float64)
    n = kept.sum(-1)
    s = torch.where(kept > 0, lp, torch.zeros_like(lp)).sum(-1)
    p = torch.where(n > 0, torch.exp(s / n.clamp(min=1)), torch.zeros_like(s))
    if coverage:
        p = p * torch.where(answers.sum(-1) > 0, n / answers.sum(-1).clamp(min=1), torch.zeros_like(n))
    return p


def memory_reward(mem_log_probs, full_log_probs, answer_mask, threshold=None, coverage=False):
    """The memory reward of a batch of turns.

    Args:
        mem_log_probs: `[N, A]` log pi of each answer token under the memory context.
        full_log_probs: `[N, A]` the same under the full history.
        answer_mask: `[N, A]`, 1 = a gold-answer token (not the `<think>`/`<answer>`
            scaffolding or padding).
        threshold: keep only tokens with probability above it, per context (MemPO's code: 0.5); None = off.
        coverage: multiply P by the share of answer tokens kept (not MemPO's).

    Returns:
        `{"p_mem", "p_full", "reward"}`, float64 tensors `[N]`.
    """
    if not isinstance(coverage, bool):
        raise TypeError(f"Cannot compute memory_reward: coverage must be True or False, current value is {coverage!r}")
    if threshold is not None and not (0 <= threshold < 1):
        raise ValueError(f"Cannot compute memory_reward: threshold must be in [0, 1), current value is {threshold}")
    for name, t in (("mem_log_probs", mem_log_probs), ("full_log_probs", full_log_probs)):
        if tuple(t.shape) != tuple(answer_mask.shape) or t.dim() != 2:
            raise ValueError(
                f"Cannot compute memory_reward: {name} must have the shape of answer_mask {tuple(answer_mask.shape)} "
                f"([N, A]), current shape is {tuple(t.shape)}"
            )
    if not bool(((answer_mask == 0) | (answer_mask == 1)).all()):
        raise ValueError("Cannot compute memory_reward: answer_mask must hold only 0 and 1")
    p_mem = _geometric_mean_prob(mem_log_probs, answer_mask, threshold, coverage)
    p_full = _geometric_mean_prob(full_log_probs, answer_mask, threshold, coverage)
    return {"p_mem": p_mem, "p_full": p_full, "reward": p_mem - p_full}
