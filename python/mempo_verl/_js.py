"""JavaScript string semantics the TypeScript package relies on, in Python.

The reward is checked equal to mempo-lab's TypeScript case by case, so the
places where Python and JavaScript disagree are spelled out once, here:

- JavaScript's `\\s` and `String.prototype.trim` use one whitespace set (the
  Unicode Zs characters, TAB, LF, VT, FF, CR, U+2028, U+2029 and U+FEFF);
  Python's `str.strip()`/`\\s` add U+001C-U+001F and U+0085 and drop U+FEFF.
- JavaScript's `\\b` (without the `u` and `i` flags) is an ASCII word boundary;
  Python's is Unicode unless `re.ASCII`.
"""
import re

#: The characters of JavaScript's `\s` (ECMA-262 WhiteSpace and LineTerminator).
WHITESPACE_CLASS = "[\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"

_TRIM = re.compile(rf"\A{WHITESPACE_CLASS}+|{WHITESPACE_CLASS}+\Z")
_RUNS = re.compile(f"{WHITESPACE_CLASS}+")


def js_trim(s: str) -> str:
    """`s.trim()` of JavaScript."""
    return _TRIM.sub("", s)


def js_collapse_whitespace(s: str) -> str:
    """`s.replace(/\\s+/g, " ")` of JavaScript."""
    return _RUNS.sub(" ", s)
