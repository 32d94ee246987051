#!/usr/bin/python3
"""An independent PyTorch forward of Hugging Face's Llama (`modeling_llama.py`
semantics), configured only from an exported folder's `config.json`; prints
the logits of the given token rows as JSON.

usage: hf_llama.py MODEL_DIR TOKENS_JSON      (TOKENS_JSON: [[ids...], ...])

What it follows of transformers' LlamaForCausalLM: LlamaRMSNorm (float32
variance, weight * normed), rotary embeddings with inv_freq = 1 / theta^(2i/d)
duplicated as cat(freqs, freqs) and `rotate_half` (halves, not interleaved
pairs), q/k/v/o projections `x @ W.T` with `num_key_value_heads` (repeated for
grouped-query attention), causal softmax attention scaled by head_dim^-0.5,
LlamaMLP down(silu(gate(x)) * up(x)), final norm, lm_head tied to
embed_tokens when `tie_word_embeddings`.
"""
import json
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
        out[name] = torch.frombuffer(bytearray(raw[8 + n + b:8 + n + e]), dtype=torch.float32).reshape(info["shape"])
    return out


def rms_norm(x, weight, eps):
    variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
    return weight * (x * torch.rsqrt(variance + eps))


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def main():
    folder, tokens_path = sys.argv[1], sys.argv[2]
    cfg = json.load(open(f"{folder}/config.json"))
    assert cfg["architectures"] == ["LlamaForCausalLM"] and cfg["model_type"] == "llama", cfg
    assert cfg.get("rope_scaling") is None and not cfg.get("attention_bias") and not cfg.get("mlp_bias")
    assert cfg["hidden_act"] == "silu"
    W = load_safetensors(f"{folder}/model.safetensors")
    ids = torch.tensor(json.load(open(tokens_path)), dtype=torch.long)
    B, T = ids.shape
    D, H = cfg["hidden_size"], cfg["num_attention_heads"]
    KV = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or D // H
    eps = cfg["rms_norm_eps"]
    inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    freqs = torch.outer(torch.arange(T).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    x = W["model.embed_tokens.weight"][ids]
    causal = torch.full((T, T), float("-inf")).triu(1)
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}"
        h = rms_norm(x, W[f"{p}.input_layernorm.weight"], eps)
        q = (h @ W[f"{p}.self_attn.q_proj.weight"].T).view(B, T, H, hd).transpose(1, 2)
        k = (h @ W[f"{p}.self_attn.k_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
        v = (h @ W[f"{p}.self_attn.v_proj.weight"].T).view(B, T, KV, hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=1)
        v = v.repeat_interleave(H // KV, dim=1)
        att = (q @ k.transpose(2, 3)) * hd ** -0.5 + causal
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, H * hd)
        x = x + y @ W[f"{p}.self_attn.o_proj.weight"].T
        h = rms_norm(x, W[f"{p}.post_attention_layernorm.weight"], eps)
        mlp = F.silu(h @ W[f"{p}.mlp.gate_proj.weight"].T) * (h @ W[f"{p}.mlp.up_proj.weight"].T)
        x = x + mlp @ W[f"{p}.mlp.down_proj.weight"].T
    x = rms_norm(x, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else W["lm_head.weight"]
    assert head.shape[0] == cfg["vocab_size"]
    print(json.dumps((x @ head.T).tolist()))


if __name__ == "__main__":
    main()
