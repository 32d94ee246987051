"""The agent's turn format and its validation: every assistant turn is
`<mem>…</mem><think>…</think>` then exactly one `<search>…</search>` or
`<answer>…</answer>`.

Port of mempo-lab `lib/env/format.ts` (same rules, same order, same reasons).
"""
import re
from dataclasses import dataclass

from ._js import js_trim

_TAG = re.compile(r"<(/?)(mem|think|search|answer|information)>")
_ROLE = re.compile(r"<\|(system|user|assistant|end)\|>|<pad>|<eos>|<unk>")
_INFORMATION = re.compile(r"</?information>")
_ANSWER = re.compile(r"<answer>([\s\S]*?)</answer>")


@dataclass
class ParsedTurn:
    """A well-formed turn."""

    mem: str
    think: str
    action: str  # "search" | "answer"
    content: str


@dataclass
class FormatCheck:
    """`ok` with the parsed value, or the broken rule."""

    ok: bool
    value: object = None
    reason: str = ""


def parse_turn(text: str) -> FormatCheck:
    """Parses one assistant turn (with its forced `<mem>` prefix), or says which
    rule it breaks: 1. no tool tags or role/padding markers written by the model;
    2. balanced, not nested; 3. `<mem>` first; 4. `<think>` after `</mem>`;
    5. exactly one action after `</think>`; 6. nothing outside the tags."""
    if _INFORMATION.search(text):
        return FormatCheck(False, reason="the model wrote a tool tag (<information>)")
    if _ROLE.search(text):
        return FormatCheck(False, reason="the model wrote a chat-role or padding marker")
    blocks = []  # [tag, content, before]
    open_tag = None  # (tag, start)
    last = 0
    for m in _TAG.finditer(text):
        slash, tag = m.group(1), m.group(2)
        if slash == "":
            if open_tag is not None:
                return FormatCheck(False, reason=f"<{tag}> opened inside <{open_tag[0]}> (nested or unclosed tag)")
            blocks.append([tag, "", text[last:m.start()]])
            open_tag = (tag, m.end())
        else:
            if open_tag is None or open_tag[0] != tag:
                return FormatCheck(False, reason=f"</{tag}> without a matching <{tag}>")
            blocks[-1][1] = js_trim(text[open_tag[1]:m.start()])
            open_tag = None
            last = m.end()
    if open_tag is not None:
        return FormatCheck(False, reason=f"<{open_tag[0]}> is never closed")
    if any(js_trim(b[2]) != "" for b in blocks):
        return FormatCheck(False, reason="text outside the tags")
    if js_trim(text[last:]) != "":
        return FormatCheck(False, reason="text after the action's closing tag")
    tags = [b[0] for b in blocks]
    if len(tags) < 1 or tags[0] != "mem":
        return FormatCheck(False, reason="the turn must start with <mem>")
    if len(tags) < 2 or tags[1] != "think":
        return FormatCheck(False, reason="<think> must follow </mem>")
    actions = tags[2:]
    if len(actions) != 1 or actions[0] not in ("search", "answer"):
        found = "none" if len(actions) == 0 else ", ".join(actions)
        return FormatCheck(False, reason=f"exactly one <search> or <answer> must follow </think>, found {found}")
    return FormatCheck(True, ParsedTurn(blocks[0][1], blocks[1][1], actions[0], blocks[2][1]))


def validate_format(turns) -> FormatCheck:
    """A whole trajectory: every turn well formed, only the last one answers,
    at least one search before the answer."""
    if len(turns) == 0:
        return FormatCheck(False, reason="no turns")
    parsed = []
    for i, t in enumerate(turns):
        p = parse_turn(t)
        if not p.ok:
            return FormatCheck(False, reason=f"turn {i + 1}: {p.reason}")
        if p.value.action == "answer" and i != len(turns) - 1:
            return FormatCheck(False, reason=f"turn {i + 1}: an answer must end the episode")
        if p.value.action == "answer" and not any(q.action == "search" for q in parsed):
            return FormatCheck(False, reason=f"turn {i + 1}: answered without any search")
        parsed.append(p.value)
    if parsed[-1].action != "answer":
        return FormatCheck(False, reason=f"turn {len(turns)}: the episode ended without an answer")
    return FormatCheck(True, parsed)


def extract_solution(text: str):
    """The content of the last complete `<answer>…</answer>`, trimmed, or None."""
    found = _ANSWER.findall(text)
    return None if len(found) == 0 else js_trim(found[-1])
