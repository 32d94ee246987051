"""Outcome reward: exact match and token F1 per objective, multi-objective
answers (split on ";") and the episode reward.

Port of mempo-lab `lib/env/reward.ts`; equal to it case by case (tests/export).
"""
import re
import unicodedata
from dataclasses import dataclass, field

from ._js import js_collapse_whitespace, js_trim

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.ASCII)


def _plain(x):
    """numpy arrays (what verl hands over from Parquet) to lists, recursively."""
    if hasattr(x, "tolist") and not isinstance(x, str):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def normalize_targets(targets):
    """Gold answers as aliases per objective: `[objective][alias]`.

    Accepts a string (one objective, one alias), a list of aliases (one
    objective: verl / Search-R1's `ground_truth.target`), a list of alias lists
    (MEM1's multi-objective targets), or verl's `{"target": ...}` record.
    """
    if isinstance(targets, dict):
        if "target" not in targets:
            raise TypeError(f"Invalid targets: a ground_truth record needs a 'target' field, got keys {sorted(targets)}")
        targets = targets["target"]
    targets = _plain(targets)
    if isinstance(targets, str):
        return [[targets]]
    if not isinstance(targets, list) or len(targets) == 0:
        raise TypeError(
            f"Invalid targets: expected a string, a list of aliases or a list of alias lists, got {targets!r}"
        )
    if all(isinstance(t, str) for t in targets):
        return [list(targets)]
    out = []
    for i, aliases in enumerate(targets):
        if not isinstance(aliases, list) or any(not isinstance(a, str) for a in aliases):
            raise TypeError(f"Invalid targets: objective {i} must be a list of strings, got {aliases!r}")
        out.append(list(aliases))
    return out


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, punctuation and symbols removed, articles
    a/an/the removed, whitespace collapsed (JavaScript's whitespace set)."""
    s = s.lower()
    s = "".join(c for c in s if unicodedata.category(c)[0] not in "PS")
    s = _ARTICLES.sub(" ", s)
    return js_trim(js_collapse_whitespace(s))


def em_check(prediction: str, aliases) -> int:
    """1 when the normalised prediction equals a normalised alias, else 0."""
    p = normalize_answer(prediction)
    return 1 if any(normalize_answer(a) == p for a in aliases) else 0


def f1_score(prediction: str, aliases) -> float:
    """Token-level F1 against the best alias (bag of normalised tokens)."""
    pred = [w for w in normalize_answer(prediction).split(" ") if w]
    best = 0.0
    for a in aliases:
        gold = [w for w in normalize_answer(a).split(" ") if w]
        counts = {}
        for g in gold:
            counts[g] = counts.get(g, 0) + 1
        common = 0
        for p in pred:
            c = counts.get(p, 0)
            if c > 0:
                common += 1
                counts[p] = c - 1
        if common == 0:
            continue
        precision = common / len(pred)
        recall = common / len(gold)
        best = max(best, (2 * precision * recall) / (precision + recall))
    return best


@dataclass
class AnswerScore:
    """Per-objective EM and F1 (all 0 when the count of parts is wrong)."""

    em: list = field(default_factory=list)
    f1: list = field(default_factory=list)
    count_matches: bool = False
    all_correct: bool = False


def score_answer(answer, targets) -> AnswerScore:
    """Scores a (multi-objective) answer: one part per objective, split on ";"."""
    gold = normalize_targets(targets)
    zero = [0] * len(gold)
    if answer is None:
        return AnswerScore(list(zero), list(zero), False, False)
    parts = [js_trim(p) for p in answer.split(";")]
    if len(parts) != len(gold):
        return AnswerScore(list(zero), list(zero), False, False)
    em = [em_check(p, gold[i]) for i, p in enumerate(parts)]
    f1 = [f1_score(p, gold[i]) for i, p in enumerate(parts)]
    return AnswerScore(em, f1, True, all(e == 1 for e in em))


def outcome_reward(format_valid: bool, score: AnswerScore) -> int:
    """1 only when the format is valid and every objective matches exactly."""
    return 1 if format_valid and score.all_correct else 0
