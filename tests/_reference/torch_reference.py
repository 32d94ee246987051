#!/usr/bin/python3
"""Golden cases for the lesson math, computed with PyTorch autograd.

Each function below restates, in float64 torch, the formula of the reference
implementation named in its docstring (verl `core_algos.py` /
`torch_functional.py`, MiniMind `train_ppo.py` / `train_grpo.py`), on seeded
random inputs with the edge cases that decide disagreements (masked holes,
empty rows, singleton and all-equal groups). The TypeScript tests compare the
package against the JSON this writes:

    /usr/bin/python3 tests/_reference/torch_reference.py > tests/_fixtures/torch_reference.json
"""
import json
import math
import torch

torch.manual_seed(1234)
DT = torch.float64


def rnd(*shape, scale=1.0):
    return (torch.randn(*shape, dtype=DT) * scale)


def mask_with_holes(B, T):
    # rows: full, prefix, a tool hole in the middle, empty, single token
    m = torch.ones(B, T, dtype=DT)
    m[1, T - 2:] = 0
    m[2, 2:4] = 0
    if B > 3:
        m[3, :] = 0
    if B > 4:
        m[4, :] = 0
        m[4, 1] = 1
    return m


def lst(t):
    return t.detach().tolist()


# ---------------------------------------------------------------- verl_F helpers
def v_masked_sum(x, m, axis=None):
    x = torch.where(m.bool(), x, torch.zeros_like(x))
    return (x * m).sum() if axis is None else (x * m).sum(dim=axis)


def v_masked_mean(x, m, axis=None):
    return v_masked_sum(x, m, axis) / ((m.sum() if axis is None else m.sum(dim=axis)) + 1e-8)


def v_masked_whiten(x, m, unbiased=True, shift_mean=True):
    mean = v_masked_mean(x, m)
    var = v_masked_mean((x - mean) ** 2, m)
    if unbiased:
        n = m.sum()
        var = var * n / (n - 1)
    out = (x - mean) * torch.rsqrt(var + 1e-8)
    return out + mean if not shift_mean else out


def v_agg(L, m, mode, dp=1, bnt=None, gbs=None, lsf=None):
    if mode == "token-mean":
        d = m.sum() if bnt is None else bnt
        return v_masked_sum(L, m) / d * dp
    if mode == "token-sum":
        return v_masked_sum(L, m) * dp
    if mode in ("seq-mean-token-sum", "seq-mean-token-sum-norm"):
        seq = (L * m).sum(-1)
        sm = (m.sum(-1) > 0).to(DT)
        g = sm.sum() if gbs is None else gbs
        loss = v_masked_sum(seq, sm) / g * dp
        if mode == "seq-mean-token-sum-norm":
            loss = loss / (m.shape[-1] if lsf is None else lsf)
        return loss
    if mode == "seq-mean-token-mean":
        cnt = m.sum(-1)
        seq = (L * m).sum(-1) / (cnt + 1e-8)
        sm = (cnt > 0).to(DT)
        g = sm.sum() if gbs is None else gbs
        return v_masked_sum(seq, sm) / g * dp
    raise ValueError(mode)


cases = {}

# ---------------------------------------------------------------- masked_whiten
B, T = 5, 7
x = rnd(B, T, scale=2.0) + 0.5
m = mask_with_holes(B, T)
cases["maskedWhiten"] = [
    {"x": lst(x), "mask": lst(m), "options": {}, "expected": lst(v_masked_whiten(x, m))},
    {"x": lst(x), "mask": lst(m), "options": {"shiftMean": False},
     "expected": lst(v_masked_whiten(x, m, shift_mean=False))},
    # MiniMind: biased variance, denominators clamp(min=1); then * mask
    {"x": lst(x), "mask": lst(m), "options": {"unbiased": False}, "expected": lst(v_masked_whiten(x, m, unbiased=False)),
     "minimind": lst(((x - (x * m).sum() / m.sum().clamp(min=1))
                      * torch.rsqrt(((x - (x * m).sum() / m.sum().clamp(min=1)) ** 2 * m).sum() / m.sum().clamp(min=1) + 1e-8)) * m)},
]

# ---------------------------------------------------------------- GAE (verl)
def v_gae(r, v, m, gamma, lam):
    nextv = torch.zeros(r.shape[0], dtype=DT)
    last = torch.zeros(r.shape[0], dtype=DT)
    rev = []
    for t in reversed(range(r.shape[1])):
        delta = r[:, t] + gamma * nextv - v[:, t]
        new = delta + gamma * lam * last
        nextv = v[:, t] * m[:, t] + (1 - m[:, t]) * nextv
        last = new * m[:, t] + (1 - m[:, t]) * last
        rev.append(last)
    adv = torch.stack(rev[::-1], dim=1)
    return adv, adv + v


cases["computeGae"] = []
for gamma, lam in [(1.0, 1.0), (0.9, 0.95), (0.99, 0.0), (0.5, 0.5)]:
    r = rnd(B, T)
    v = rnd(B, T)
    a, ret = v_gae(r, v, m, gamma, lam)
    cases["computeGae"].append({"rewards": lst(r), "values": lst(v), "mask": lst(m), "gamma": gamma,
                                "lambda": lam, "advantages": lst(a), "returns": lst(ret)})

# ---------------------------------------------------------------- GRPO
def v_grpo(scores, ids, eps=1e-6, norm=True):
    groups = {}
    for i, g in enumerate(ids):
        groups.setdefault(g, []).append(i)
    out = scores.clone()
    for g, idx in groups.items():
        s = scores[idx]
        if len(idx) == 1:
            mean, std = torch.tensor(0.0, dtype=DT), torch.tensor(1.0, dtype=DT)
        else:
            mean, std = s.mean(), s.std()
        for i in idx:
            out[i] = (scores[i] - mean) / (std + eps) if norm else scores[i] - mean
    return out


def mm_grpo(scores, G, eps=1e-4):
    g = scores.view(-1, G)
    mean = g.mean(dim=1).repeat_interleave(G)
    std = g.std(dim=1, unbiased=False).repeat_interleave(G)
    return (scores - mean) / (std + eps)


scores = torch.tensor([1, 0, 1, 1, 0.5, 0.5, 0.5, 0.7, 0.2, 0.9, 0.3, 1, 0], dtype=DT)
ids = ["q2", "q1", "q2", "q1", "q3", "q3", "q3", "single", "q1", "q2", "q1", "q4", "q4"]
cases["grpoAdvantages"] = [
    {"scores": lst(scores), "groupIds": ids, "options": {}, "expected": lst(v_grpo(scores, ids))},
    {"scores": lst(scores), "groupIds": ids, "options": {"normByStd": False},
     "expected": lst(v_grpo(scores, ids, norm=False))},
    {"scores": lst(scores), "groupIds": ids, "options": {"epsilon": 0.01}, "expected": lst(v_grpo(scores, ids, eps=0.01))},
]
s8 = torch.tensor([1, 0, 0, 1, 1, 1, 0, 0.5, 0.2, 0.2, 0.2, 0.2, 0.9, 0.1, 0.4, 0.3], dtype=DT)
cases["grpoAdvantagesMiniMind"] = {"scores": lst(s8), "groupIds": [i // 4 for i in range(16)],
                                   "options": {"std": "population", "epsilon": 1e-4}, "expected": lst(mm_grpo(s8, 4))}

# ---------------------------------------------------------------- agg_loss
L = rnd(B, T)
agg = []
for mode in ["token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"]:
    agg.append({"mode": mode, "options": {}, "expected": v_agg(L, m, mode).item()})
agg.append({"mode": "token-mean", "options": {"batchNumTokens": 40, "dpSize": 2},
            "expected": v_agg(L, m, "token-mean", dp=2, bnt=40).item()})
agg.append({"mode": "seq-mean-token-mean", "options": {"globalBatchSize": 8, "dpSize": 2},
            "expected": v_agg(L, m, "seq-mean-token-mean", dp=2, gbs=8).item()})
agg.append({"mode": "seq-mean-token-sum-norm", "options": {"lossScaleFactor": 100},
            "expected": v_agg(L, m, "seq-mean-token-sum-norm", lsf=100).item()})
cases["aggregateLoss"] = {"lossMatrix": lst(L), "mask": lst(m), "cases": agg}

# ---------------------------------------------------------------- PPO clip (verl vanilla)
def v_ppo(lp, old, adv, m, cl, ch, c, mode, weights=None):
    nkl = torch.clamp(lp - old, -20.0, 20.0)
    ratio = torch.exp(nkl)
    ppo_kl = v_masked_mean(-nkl, m)
    l1 = -adv * ratio
    l2 = -adv * torch.clamp(ratio, 1 - cl, 1 + ch)
    c1 = torch.maximum(l1, l2)
    frac = v_masked_mean(torch.gt(l2, l1).to(DT), m)
    if math.isinf(c):
        losses, low = c1, torch.tensor(0.0, dtype=DT)
    else:
        l3 = -adv * c
        c2 = torch.min(l3, c1)
        low = v_masked_mean(torch.gt(c1, l3).to(DT) * (adv < 0).to(DT), m)
        losses = torch.where(adv < 0, c2, c1)
    if weights is not None:
        losses = losses * weights
    return v_agg(losses, m, mode), frac, ppo_kl, low, losses


cases["ppoClipLoss"] = []
for (cl, ch, c, mode, w) in [(0.2, 0.2, 3.0, "token-mean", False), (0.2, 0.28, 3.0, "seq-mean-token-mean", False),
                             (0.1, 0.3, math.inf, "token-mean", False), (0.2, 0.2, 2.0, "seq-mean-token-sum-norm", True),
                             (0.2, 0.2, 3.0, "seq-mean-token-sum", False)]:
    old = -torch.rand(B, T, dtype=DT) * 3
    lp = (old + rnd(B, T, scale=0.4)).requires_grad_(True)
    adv = rnd(B, T, scale=1.5)
    adv[0, 0] = 0.0
    weights = torch.rand(B, T, dtype=DT) + 0.5 if w else None
    loss, frac, kl, low, mat = v_ppo(lp, old, adv, m, cl, ch, c, mode, weights)
    (g,) = torch.autograd.grad(loss, lp)
    cases["ppoClipLoss"].append({
        "logProbs": lst(lp), "oldLogProbs": lst(old), "advantages": lst(adv), "mask": lst(m),
        "weights": lst(weights) if w else None,
        "options": {"clipLow": cl, "clipHigh": ch, "dualClip": "Infinity" if math.isinf(c) else c, "aggMode": mode},
        "loss": loss.item(), "clipFraction": frac.item(), "approxKl": kl.item(), "clipFractionLower": low.item(),
        "lossMatrix": lst(mat), "gradLogProbs": lst(g)})

# ---------------------------------------------------------------- value loss
cases["clippedValueLoss"] = []
for (cr, mode) in [(0.5, "token-mean"), (0.2, "seq-mean-token-mean")]:
    old = rnd(B, T)
    vp = (old + rnd(B, T, scale=0.6)).requires_grad_(True)
    ret = rnd(B, T)
    vclip = torch.max(torch.min(vp, old + cr), old - cr)
    e1 = (vp - ret) ** 2
    e2 = (vclip - ret) ** 2
    loss = 0.5 * v_agg(torch.max(e1, e2), m, mode)
    frac = v_masked_mean(torch.gt(e2, e1).to(DT), m)
    (g,) = torch.autograd.grad(loss, vp)
    cases["clippedValueLoss"].append({"values": lst(vp), "oldValues": lst(old), "returns": lst(ret), "mask": lst(m),
                                      "options": {"clipRange": cr, "aggMode": mode}, "loss": loss.item(),
                                      "clipFraction": frac.item(), "gradValues": lst(g)})

# ---------------------------------------------------------------- KL estimators
def kl_forward(lp, ref, est):
    if est == "k1":
        return lp - ref
    if est == "abs":
        return (lp - ref).abs()
    if est == "k2":
        return 0.5 * (lp - ref).square()
    if est == "k3":  # MiniMind / TRL, unclamped
        d = ref - lp
        return torch.exp(d) - d - 1
    if est == "low_var_kl":  # verl
        d = torch.clamp(ref - lp, -20, 20)
        return torch.clamp(torch.exp(d) - d - 1, -10, 10)
    raise ValueError(est)


cases["klPenalty"] = []
lp0 = -torch.rand(B, T, dtype=DT) * 3
ref = lp0 + rnd(B, T, scale=0.7)
ref[0, 0] = lp0[0, 0] - 25.0  # low_var_kl clamps here
ref[0, 1] = lp0[0, 1] + 4.0  # result above 10 → clamped
ref[1, 0] = lp0[1, 0]  # Δ = 0: abs gradient must be 0
wts = rnd(B, T)
for est in ["k1", "abs", "k2", "k3", "low_var_kl"]:
    for st in [False, True]:
        lp = lp0.clone().requires_grad_(True)
        out = kl_forward(lp, ref, est)
        if st and est != "k2":
            back = 0.5 * (lp - ref).square()
            out = back - back.detach() + out.detach()
        (g,) = torch.autograd.grad((out * wts).sum(), lp)
        cases["klPenalty"].append({"estimator": est, "straightThrough": st, "logProbs": lst(lp0), "refLogProbs": lst(ref),
                                   "weights": lst(wts), "expected": lst(out), "gradLogProbs": lst(g)})

# ---------------------------------------------------------------- CISPO (MiniMind: cap only; verl: floor and cap)
cases["cispoLoss"] = []
for (floor, cap, mode) in [(0.0, 5.0, "token-mean"), (0.8, 1.28, "token-mean"), (0.0, 2.0, "seq-mean-token-mean")]:
    old = -torch.rand(B, T, dtype=DT) * 3
    lp = (old + rnd(B, T, scale=1.0)).requires_grad_(True)
    adv = rnd(B, T)
    ratio = torch.exp(torch.clamp(lp - old, -20, 20))
    w = torch.clamp(ratio, min=floor, max=cap).detach()
    mat = -w * adv * lp
    loss = v_agg(mat, m, mode)
    (g,) = torch.autograd.grad(loss, lp)
    cases["cispoLoss"].append({"logProbs": lst(lp), "oldLogProbs": lst(old), "advantages": lst(adv), "mask": lst(m),
                               "options": {"ratioFloor": floor, "ratioCap": cap, "aggMode": mode}, "loss": loss.item(),
                               "gradLogProbs": lst(g)})

# ---------------------------------------------------------------- token log-probs and entropy
V = 11
logits = rnd(3, 4, V, scale=3.0).requires_grad_(True)
targets = torch.randint(0, V, (3, 4))
lpt = torch.log_softmax(logits, -1).gather(-1, targets[..., None]).squeeze(-1)
w = rnd(3, 4)
(glp,) = torch.autograd.grad((lpt * w).sum(), logits)
p = torch.softmax(logits, -1)
ent = torch.logsumexp(logits, -1) - (p * logits).sum(-1)
(gent,) = torch.autograd.grad((ent * w).sum(), logits)
cases["tokenLogProbs"] = {"logits": lst(logits), "targets": targets.tolist(), "weights": lst(w), "expected": lst(lpt),
                          "gradLogits": lst(glp)}
cases["tokenEntropy"] = {"logits": lst(logits), "weights": lst(w), "expected": lst(ent), "gradLogits": lst(gent)}

# ---------------------------------------------------------------- AdamW (torch.optim.AdamW)
w0 = rnd(3, 2)
b0 = rnd(2)
pw = w0.clone().requires_grad_(True)
pb = b0.clone().requires_grad_(True)
opt = torch.optim.AdamW([{"params": [pw], "weight_decay": 0.1}, {"params": [pb], "weight_decay": 0.0}],
                        lr=0.05, betas=(0.9, 0.95), eps=1e-8)
grads = []
for step in range(4):
    gw, gb = rnd(3, 2), rnd(2)
    grads.append({"w": lst(gw), "b": lst(gb)})
    pw.grad, pb.grad = gw, gb
    opt.step()
cases["adamw"] = {"w": lst(w0), "b": lst(b0), "lr": 0.05, "beta1": 0.9, "beta2": 0.95, "weightDecay": 0.1,
                  "grads": grads, "w_after": lst(pw), "b_after": lst(pb)}

print(json.dumps({"generator": f"tests/_reference/torch_reference.py (torch {torch.__version__}, float64)",
                  "cases": cases}, allow_nan=False))
