"""Spell parts of a parsed pattern back as short regex text, for the messages that name them.

``describe(items)`` turns items of Python's parse of a pattern (``re._parser``) into a
quoted, shortened spelling (a class of hundreds of ranges is cut, its quantifier kept),
so that a refusal can say which part is at fault. Also the one place that reaches the
stdlib parser and its constants (``sre_parse``, ``C``), named ``re._parser`` and
``re._constants`` since Python 3.11.

Not handled here: deciding anything about the pattern (``regex_cost``).
"""

from __future__ import annotations

import importlib
import re


def _stdlib(name: str, before_311: str):
    """The re module's parser and constants: stdlib, named re._parser since Python 3.11."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - Python 3.10
        return importlib.import_module(before_311)


sre_parse = _stdlib("re._parser", "sre_parse")
C = _stdlib("re._constants", "sre_constants")


def describe(items: list, limit: int = 40) -> str:
    """A short spelling of parsed items for messages (long classes cut, quantifiers kept)."""
    text = _spell(items)
    if len(text) > limit and len(items) == 1 and items[0][0] in (C.MAX_REPEAT, C.MIN_REPEAT):
        op, (low, high, body) = items[0]
        after = _quantifier(low, high) + ("?" if op is C.MIN_REPEAT else "")
        return "`" + _cut(_spell(body), limit - len(after)) + after + "`"
    return "`" + _cut(text, limit) + "`"


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit - 2] + "…" + ("]" if text.startswith("[") else "")


def _spell(items) -> str:
    return "".join(_spell_one(op, arg) for op, arg in items)


def _char(code: int) -> str:
    ch = chr(code)
    if ch.isprintable() and not ch.isspace() or ch == " ":
        return re.escape(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _spell_one(op, arg) -> str:
    if op is C.LITERAL:
        return _char(arg)
    if op is C.NOT_LITERAL:
        return "[^" + _char(arg) + "]"
    if op is C.ANY:
        return "."
    if op is C.CATEGORY:
        return _CATEGORY_SPELLING.get(str(arg), "\\?")
    if op is C.IN:
        if len(arg) == 1 and arg[0][0] is C.CATEGORY:
            return _spell_class_item(*arg[0])
        return "[" + "".join(_spell_class_item(o, a) for o, a in arg) + "]"
    if op is C.SUBPATTERN:
        return "(?:" + _spell(arg[-1]) + ")"
    if op is C.BRANCH:
        return "(?:" + "|".join(_spell(alt) for alt in arg[1]) + ")"
    if op in (C.MAX_REPEAT, C.MIN_REPEAT):
        low, high, body = arg
        inner = _spell(body)
        if len(body) != 1 or body[0][0] in (C.MAX_REPEAT, C.MIN_REPEAT):
            inner = f"(?:{inner})" if not inner.startswith("(?:") else inner
        lazy = "?" if op is C.MIN_REPEAT else ""
        return inner + _quantifier(low, high) + lazy
    if op in (C.ASSERT, C.ASSERT_NOT):
        kind = ("=" if op is C.ASSERT else "!") if arg[0] == 1 else (
            "<=" if op is C.ASSERT else "<!")
        return f"(?{kind}{_spell(arg[1])})"
    if op is C.AT:
        return _ANCHOR_SPELLING.get(str(arg), "")
    return "…"


def _quantifier(low: int, high) -> str:
    if high == C.MAXREPEAT:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    if (low, high) == (0, 1):
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def _spell_class_item(op, arg) -> str:
    if op is C.NEGATE:
        return "^"
    if op is C.RANGE:
        return _char(arg[0]) + "-" + _char(arg[1])
    if op is C.CATEGORY:
        return _CATEGORY_SPELLING.get(str(arg), "\\?")
    return _char(arg)


_CATEGORY_SPELLING = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D",
                      "CATEGORY_SPACE": r"\s", "CATEGORY_NOT_SPACE": r"\S",
                      "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}
_ANCHOR_SPELLING = {"AT_BEGINNING": "^", "AT_END": "$", "AT_BEGINNING_STRING": r"\A",
                    "AT_END_STRING": r"\Z", "AT_BOUNDARY": r"\b", "AT_NON_BOUNDARY": r"\B"}
