#!/usr/bin/python3
"""Loads a mempo-lab checkpoint's safetensors into an independent PyTorch
implementation of the same architecture and prints its logits as JSON.

usage: torch_model.py CHECKPOINT_DIR TOKENS_JSON      (TOKENS_JSON: [[ids...], ...])

The architecture is the one of shared/bench/torch_ref.py (pre-norm RMSNorm,
interleaved-pair RoPE, causal attention, SwiGLU, tied embeddings, no biases)
with separate q/k/v projections named as in MiniMind / Hugging Face.
"""
import json
import math
import struct
import sys

import torch
import torch.nn.functional as F


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", info
        b, e = info["data_offsets"]
        t = torch.frombuffer(bytearray(raw[8 + n + b:8 + n + e]), dtype=torch.float32)
        out[name] = t.reshape(info["shape"])
    return out


def rms(x, w, eps):
    return w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def main():
    ckpt, tokens_path = sys.argv[1], sys.argv[2]
    record = json.load(open(f"{ckpt}/config.json"))
    info = record["models"]["policy"]
    cfg = info["architecture"]
    W = load_safetensors(f"{ckpt}/{info['file']}")
    ids = torch.tensor(json.load(open(tokens_path)), dtype=torch.long)
    B, T = ids.shape
    D, H, eps = cfg["dModel"], cfg["nHeads"], cfg["normEps"]
    hd = D // H
    inv = 1.0 / (cfg["ropeTheta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv)
    cos, sin = torch.cos(freqs).float(), torch.sin(freqs).float()

    def rope(x):
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)

    x = W["model.embed_tokens.weight"][ids]
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    for l in range(cfg["nLayers"]):
        p = f"model.layers.{l}"
        n = rms(x, W[f"{p}.input_layernorm.weight"], eps)
        q = (n @ W[f"{p}.self_attn.q_proj.weight"].t()).view(B, T, H, hd).transpose(1, 2)
        k = (n @ W[f"{p}.self_attn.k_proj.weight"].t()).view(B, T, H, hd).transpose(1, 2)
        v = (n @ W[f"{p}.self_attn.v_proj.weight"].t()).view(B, T, H, hd).transpose(1, 2)
        q, k = rope(q), rope(k)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, D)
        x = x + y @ W[f"{p}.self_attn.o_proj.weight"].t()
        m = rms(x, W[f"{p}.post_attention_layernorm.weight"], eps)
        g = m @ W[f"{p}.mlp.gate_proj.weight"].t()
        u = m @ W[f"{p}.mlp.up_proj.weight"].t()
        x = x + (F.silu(g) * u) @ W[f"{p}.mlp.down_proj.weight"].t()
    logits = rms(x, W["model.norm.weight"], eps) @ W["model.embed_tokens.weight"].t()
    print(json.dumps(logits.tolist()))


if __name__ == "__main__":
    main()
