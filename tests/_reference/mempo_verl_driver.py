#!/usr/bin/python3
"""Runs calls of the exported Python package `mempo_verl` for the equality tests.

usage: mempo_verl_driver.py PACKAGE_ROOT CALLS_JSON
  PACKAGE_ROOT: the folder holding mempo_verl/ (an export, or the repository's python/)
  CALLS_JSON:   [{"fn": name, "args": {...}}, ...]
Prints one JSON list: per call {"value": ...} or {"error": "ExceptionType: message"}.
Tensors travel as nested lists (float64); null in memory_rewards stands for NaN.
"""
import dataclasses
import json
import math
import sys

sys.path.insert(0, sys.argv[1])

import torch  # noqa: E402

import mempo_verl as m  # noqa: E402


def plain(x):
    if dataclasses.is_dataclass(x):
        return {k: plain(v) for k, v in dataclasses.asdict(x).items()}
    if isinstance(x, torch.Tensor):
        return x.tolist()
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def f64(x):
    return torch.tensor(x, dtype=torch.float64)


def nan_matrix(x):
    return torch.tensor([[math.nan if v is None else v for v in row] for row in x], dtype=torch.float64)


def mempo_advantage(a):
    dtype = torch.float32 if a.get("float32") else torch.float64
    adv, ret = m.compute_mempo_advantage(
        torch.tensor(a["token_level_rewards"], dtype=dtype),
        torch.tensor(a["response_mask"], dtype=dtype),
        a["index"],
        memory_rewards=None if a.get("memory_rewards") is None else nan_matrix(a["memory_rewards"]),
        memory_span_ids=None if a.get("memory_span_ids") is None else torch.tensor(a["memory_span_ids"], dtype=torch.long),
        traj_index=a.get("traj_index"),
        options=m.MempoOptions(**a.get("options", {})),
    )
    assert adv.dtype == dtype and torch.equal(adv, ret)
    return adv.to(torch.float64)


HANDLERS = {
    "normalize_answer": lambda a: m.normalize_answer(a["s"]),
    "em_check": lambda a: m.em_check(a["prediction"], a["aliases"]),
    "f1_score": lambda a: m.f1_score(a["prediction"], a["aliases"]),
    "normalize_targets": lambda a: m.normalize_targets(a["targets"]),
    "score_answer": lambda a: m.score_answer(a["answer"], a["targets"]),
    "outcome_reward": lambda a: m.outcome_reward(a["format_valid"], m.score_answer(a["answer"], a["targets"])),
    "parse_turn": lambda a: m.parse_turn(a["text"]),
    "validate_format": lambda a: m.validate_format(a["turns"]),
    "extract_solution": lambda a: m.extract_solution(a["text"]),
    "compute_score": lambda a: m.compute_score(a.get("data_source"), a["solution_str"], a["ground_truth"], a.get("extra_info")),
    "score_response": lambda a: m.score_turns(m.split_turns(a["solution_str"]), a["ground_truth"]),
    "group_advantages": lambda a: m.group_advantages(a["scores"], a["group_ids"], **a.get("options", {})),
    "memory_reward": lambda a: m.memory_reward(
        f64(a["mem"]), f64(a["full"]), f64(a["mask"]), threshold=a.get("threshold"), coverage=a.get("coverage", False)
    ),
    "memory_advantages": lambda a: m.memory_advantages(a["rewards"], a["group_ids"], **a.get("options", {})),
    "span_length_scales": lambda a: m.span_length_scales(a["lengths"]),
    "combine_advantages": lambda a: m.combine_advantages(
        a["outcome"], [[tuple(s) for s in row] for row in a["spans"]], a["mask"], mem_coef=a.get("mem_coef", 1.0)
    ),
    "compute_mempo_advantage": mempo_advantage,
    "load_options": lambda a: m.load_options(a["path"]),
    "format_information": lambda a: m.format_information(a["texts"]),
    "search_information": lambda a: [m.search_information(a["url"], q, topk=a.get("topk", 3)) for q in a["queries"]],
    "search_query": lambda a: m.search_query(a["text"]),
}


def main():
    calls = json.load(open(sys.argv[2]))
    out = []
    for c in calls:
        try:
            out.append({"value": plain(HANDLERS[c["fn"]](c["args"]))})
        except Exception as e:  # the equality tests compare errors too
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
