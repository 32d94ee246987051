"""verl's custom reward function for the exported task: the outcome reward of
mempo-lab (format gate, multi-objective exact match), with F1 and EM per
objective as extra fields.

`solution_str` is what verl's reward manager decodes from a rollout's response
tokens (`tokenizer.decode(response_ids, skip_special_tokens=True)`; only
`<pad>` and `<eos>` are special in the exported tokenizer, so the role markers
and tags survive). With the exported chat template a response reads

    m1 </mem> <think> … </think> <search> q </search> <|end|> <|user|> <information> … </information> <|end|>
    <|assistant|> <mem> m2 </mem> … <answer> a1 ; a2 </answer>

The first turn's forced `<mem>` is the end of the prompt; every later one ends
the tool message. The turns are recovered by splitting at the tool messages and
scored exactly as mempo-lab's agent loop scores them (`runEpisodes`): a turn
that does not end with `</search>` or `</answer>`, or breaks a format rule,
ends the episode with reward 0; an answer is scored against every objective.
"""
import re

from ._js import WHITESPACE_CLASS as _S
from .turn_format import parse_turn, validate_format
from .answer_score import normalize_targets, outcome_reward, score_answer

#: A tool message as the exported chat template renders it after a generated turn.
TOOL_MESSAGE = re.compile(
    rf"<\|end\|>{_S}*<\|user\|>{_S}*<information>[\s\S]*?</information>{_S}*<\|end\|>{_S}*<\|assistant\|>"
)
_CLOSING = re.compile(rf"</(search|answer)>{_S}*\Z")


def split_turns(solution_str: str):
    """The assistant turns of a decoded response, each with its forced `<mem>`
    (the prompt's for the first turn, the tool message's for the others)."""
    pieces = TOOL_MESSAGE.split(solution_str)
    return [f"<mem> {pieces[0]}"] + pieces[1:]


def score_turns(turns, ground_truth):
    """The episode's verdict from its turn texts, as mempo-lab's agent loop gives it.

    Returns a dict: `reward` (0/1), `format_valid`, `answered` (the last turn
    parsed as an answer), `answer`, `em` and `f1` per objective (0 unless
    answered), and `reason` (the first broken rule, "" when none).
    """
    gold = normalize_targets(ground_truth)
    zero = [0] * len(gold)
    out = {"reward": 0, "format_valid": False, "answered": False, "answer": None, "em": zero, "f1": list(zero)}
    for i, text in enumerate(turns):
        if not _CLOSING.search(text):
            return {**out, "reason": f"turn {i + 1}: the turn did not end with </search> or </answer>"}
        parsed = parse_turn(text)
        if not parsed.ok:
            return {**out, "reason": f"turn {i + 1}: {parsed.reason}"}
        if parsed.value.action == "search":
            if i == len(turns) - 1:
                return {**out, "reason": f"turn {i + 1}: the episode ended without an answer"}
            continue
        check = validate_format(turns)
        score = score_answer(parsed.value.content, gold)
        return {
            "reward": outcome_reward(check.ok, score),
            "format_valid": check.ok,
            "answered": True,
            "answer": parsed.value.content,
            "em": score.em,
            "f1": score.f1,
            "reason": "" if check.ok else check.reason,
        }
    return {**out, "reason": "no turns"}


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """verl's custom reward signature (`custom_reward_function.name=compute_score`).

    Returns `{"score", "em", "f1", "format_valid", "answered", "objectives"}`:
    `score` is the outcome reward (1 only for a valid format with every
    objective right); `em` and `f1` are means over the objectives (0 when the
    episode ended before a parsable answer or the count of answers is wrong).
    Every value is a number, as verl's `reward_extra_info` metrics need.
    """
    del data_source, extra_info  # one task: the reward depends on the answer and the targets only
    r = score_turns(split_turns(solution_str), ground_truth)
    k = len(r["em"])
    return {
        "score": float(r["reward"]),
        "em": sum(r["em"]) / k,
        "f1": sum(r["f1"]) / k,
        "format_valid": 1.0 if r["format_valid"] else 0.0,
        "answered": 1.0 if r["answered"] else 0.0,
        "objectives": float(k),
    }
