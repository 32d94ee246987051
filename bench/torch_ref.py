#!/usr/bin/python3
"""The bench model and workloads in PyTorch on the CPU: what `deno task bench` compares against.

The architecture is lib/model/transformer.ts's (a MiniMind-style decoder: pre-norm RMSNorm, RoPE on interleaved
pairs, causal attention, SwiGLU, the output projection tied to the embedding, no biases), with the weight names of
a checkpoint's safetensors (Hugging Face Llama's), so tests/_reference/torch_model.py loads a checkpoint into it.
The workloads are bench/bench.ts's, at the sizes it passes (default: the benchmark's). Prints one JSON object.

usage: torch_ref.py [--vocab 512 --d 128 --layers 4 --heads 4 --ffn 384] [--threads 2] [--reps 5]
                    [--train B T] [--score B T] [--generate B PROMPT NEW] [--params-only]
"""
import argparse
import json
import math
import time

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    """x / rms(x) · w (Zhang & Sennrich 2019, arXiv:1910.07467)."""

    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def rotate(x, cos, sin):
    """RoPE on interleaved pairs (x[2i], x[2i+1]) (Su et al. 2021, arXiv:2104.09864), the package's convention."""
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, cos, sin, cache):
        b, t, d = x.shape
        hd = d // self.heads
        split = lambda y: y.view(b, t, self.heads, hd).transpose(1, 2)  # [B, H, T, hd]
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        if cache is not None:  # generation: the keys and values of the earlier positions
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        s = k.shape[2]
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        causal = torch.ones(t, s, dtype=torch.bool).tril(s - t)  # query i sees keys up to its own position
        y = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(b, t, d)), (k, v)


class Mlp(nn.Module):
    """SwiGLU: down(silu(gate x) ⊙ up x) (Shazeer 2020, arXiv:2002.05202)."""

    def __init__(self, d, ffn):
        super().__init__()
        self.gate_proj = nn.Linear(d, ffn, bias=False)
        self.up_proj = nn.Linear(d, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, d, heads, ffn, eps):
        super().__init__()
        self.input_layernorm = RMSNorm(d, eps)
        self.self_attn = Attention(d, heads)
        self.post_attention_layernorm = RMSNorm(d, eps)
        self.mlp = Mlp(d, ffn)

    def forward(self, x, cos, sin, cache):
        a, cache = self.self_attn(self.input_layernorm(x), cos, sin, cache)
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), cache


class Decoder(nn.Module):
    """The policy model: embedding, L blocks, final RMSNorm, logits against the embedding (tied)."""

    def __init__(self, vocab, d, layers, heads, ffn, positions=1024, theta=10000.0, eps=1e-6):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([Block(d, heads, ffn, eps) for _ in range(layers)])
        self.norm = RMSNorm(d, eps)
        hd = d // heads
        # the tables in float64, then float32, as the package builds them; buffers, not weights
        inv = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
        angles = torch.outer(torch.arange(positions, dtype=torch.float64), inv)
        self.register_buffer("cos", torch.cos(angles).float(), persistent=False)
        self.register_buffer("sin", torch.sin(angles).float(), persistent=False)

    def forward(self, ids, start=0, caches=None):
        """Logits [B, T, V] of ids [B, T] at positions start…start+T−1, and each block's extended cache."""
        t = ids.shape[1]
        cos, sin = self.cos[start:start + t], self.sin[start:start + t]
        x = self.embed_tokens(ids)
        out = []
        for i, block in enumerate(self.layers):
            x, cache = block(x, cos, sin, None if caches is None else caches[i])
            out.append(cache)
        return self.norm(x) @ self.embed_tokens.weight.t(), out


def median_seconds(fn, reps):
    """Median wall time of `reps` calls after one warm-up call, as bench/bench.ts reports."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--d", type=int, default=128)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ffn", type=int, default=384)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--train", type=int, nargs=2, default=[8, 256], metavar=("B", "T"))
    p.add_argument("--score", type=int, nargs=2, default=[32, 256], metavar=("B", "T"))
    p.add_argument("--generate", type=int, nargs=3, default=[16, 64, 64], metavar=("B", "PROMPT", "NEW"))
    p.add_argument("--params-only", action="store_true", help="print the parameter count and stop")
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    model = Decoder(a.vocab, a.d, a.layers, a.heads, a.ffn)
    params = sum(x.numel() for x in model.parameters())
    if a.params_only:
        print(json.dumps({"params": params}))
        return

    # 1. train: forward, next-token cross-entropy, backward, AdamW
    b, t = a.train
    rows = torch.randint(0, a.vocab, (b, t + 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)

    def train():
        logits, _ = model(rows[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, a.vocab), rows[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    t_train = median_seconds(train, a.reps)

    # 2. score: per-token log-probs of given tokens, no gradient
    sb, st = a.score
    score_rows = torch.randint(0, a.vocab, (sb, st + 1))

    def score():
        with torch.no_grad():
            logits, _ = model(score_rows[:, :-1])
            torch.log_softmax(logits, -1).gather(-1, score_rows[:, 1:, None])

    t_score = median_seconds(score, a.reps)

    # 3. generate: the prompt in one pass, then one sampled token at a time against the KV cache
    gb, prompt_len, new = a.generate
    prompt = torch.randint(0, a.vocab, (gb, prompt_len))

    def generate():
        with torch.no_grad():
            logits, caches = model(prompt)
            token = torch.multinomial(logits[:, -1].softmax(-1), 1)
            for i in range(1, new):
                logits, caches = model(token, start=prompt_len + i - 1, caches=caches)
                token = torch.multinomial(logits[:, -1].softmax(-1), 1)

    t_gen = median_seconds(generate, max(1, a.reps // 2 + 1))
    print(json.dumps({
        "engine": f"pytorch {torch.__version__} cpu threads={a.threads}",
        "params": params,
        "train_tokens_per_s": b * t / t_train,
        "score_tokens_per_s": sb * st / t_score,
        "generate_tokens_per_s": gb * new / t_gen,
    }))


if __name__ == "__main__":
    main()
