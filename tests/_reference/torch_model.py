#!/usr/bin/python3
"""Loads a mempo-lab checkpoint's safetensors into the PyTorch model of bench/torch_ref.py (the same architecture,
written independently of lib/model/) and prints its logits as JSON.

usage: torch_model.py CHECKPOINT_DIR TOKENS_JSON      (TOKENS_JSON: [[ids...], ...])
"""
import json
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from torch_ref import Decoder  # noqa: E402


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


def main():
    ckpt, tokens_path = sys.argv[1], sys.argv[2]
    record = json.load(open(f"{ckpt}/config.json"))
    info = record["models"]["policy"]
    cfg = info["architecture"]
    weights = load_safetensors(f"{ckpt}/{info['file']}")
    model = Decoder(cfg["vocabSize"], cfg["dModel"], cfg["nLayers"], cfg["nHeads"], cfg["ffnHidden"],
                    positions=cfg["maxPositions"], theta=cfg["ropeTheta"], eps=cfg["normEps"])
    # every weight of the checkpoint, and nothing else, has its place in the model (strict)
    model.load_state_dict({k.removeprefix("model."): v for k, v in weights.items()}, strict=True)
    ids = torch.tensor(json.load(open(tokens_path)), dtype=torch.long)
    with torch.no_grad():
        logits, _ = model(ids)
    print(json.dumps(logits.tolist()))


if __name__ == "__main__":
    main()
