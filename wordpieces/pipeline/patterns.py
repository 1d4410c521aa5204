"""HF's split patterns in Python: a literal string, or an Oniguruma regex translated to ``re``.

HF ``tokenizers`` matches ``Split``/``Replace`` patterns with Oniguruma (Ruby syntax).
``re`` agrees with it on a subset only, so a regex is parsed here and translated, or
refused with a ``ValueError`` naming the construct. The accepted subset (documented in
``docs/formats.md`` terms as "the safe subset"):

- literals and escaped punctuation; ``\\t \\n \\r \\f \\v \\a \\e``, ``\\xHH``,
  ``\\x{H...}``, ``\\uHHHH``; ``.`` (any character but ``\\n``);
- ``\\w \\W \\s \\S \\d \\D`` and ``\\p{L} \\p{N} \\p{P} \\p{S} \\p{M} \\p{Z}`` (also
  ``\\P{..}``, ``\\p{^..}``), with HF's own character sets (``char_tables``: Oniguruma's
  ``\\w`` holds the combining marks, Python's does not);
- bracket classes of the above, ranges and negation (not nested, no ``&&``, no POSIX
  ``[:alpha:]``);
- groups ``(..)``, ``(?:..)``, look-ahead ``(?=..)``/``(?!..)``, ``|``, the greedy and
  lazy quantifiers ``* + ? {n} {n,} {,m} {n,m}``;
- anchors ``^ $`` (line anchors in Ruby syntax, so ``re.MULTILINE``) and ``\\A \\z``.

Refused: look-behind, atomic groups, possessive quantifiers, back-references, named
groups, inline options such as ``(?i)``, ``\\b \\B \\G \\K \\R \\X \\Z \\h``, other
properties, and any pattern that can match the empty string (HF and ``re`` step over
empty matches differently).

``Matcher.pieces(text)`` cuts a text into ``(start, end, is_match)`` pieces as HF's
``Pattern::find_matches``; ``CharMatcher`` does it for a character predicate (each
matching character is a match of its own, as HF's ``impl Pattern for Fn(char)``).

Not handled here: what to do with the pieces (``pre_tokenizers``, ``normalizers``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NoReturn

from .char_tables import MAX_CODE_POINT, REGEX_CLASSES, char_set
from .safe_regex import compile_pattern

Ranges = list[tuple[int, int]]
_SIMPLE_ESCAPES = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
_CLASS_ESCAPES = {"w": "w", "s": "s", "d": "d"}
_PROPERTIES = {name: name for name in REGEX_CLASSES if name.isupper()}


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for a, b in sorted(ranges):
        if a > start:
            out.append((start, a - 1))
        start = max(start, b + 1)
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return out


def _class_text(ranges: Ranges) -> str:
    """A Python character class matching exactly ``ranges`` of code points."""
    if not ranges:
        return "(?!)"
    body = "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)
    return f"[{body}]"


def _named_set(letter: str, negated: bool) -> Ranges:
    ranges = list(char_set(f"regex_{letter}").ranges())
    return _complement(ranges) if negated else ranges


class _Parser:
    """Recursive descent over one Oniguruma pattern, writing the ``re`` equivalent.

    Each ``_alternation``/``_sequence``/``_atom`` returns ``(re_text, min_length)``:
    the minimum length finds patterns that can match the empty string.
    """

    def __init__(self, pattern: str):
        self.pattern, self.pos = pattern, 0

    def refuse(self, what: str) -> NoReturn:
        raise ValueError(f"regex {self.pattern!r}: {what} (at position {self.pos}) is not in "
                         "the subset Python's re matches exactly as HF's Oniguruma")

    def peek(self, n: int = 1) -> str:
        return self.pattern[self.pos:self.pos + n]

    def take(self) -> str:
        if self.pos >= len(self.pattern):
            self.refuse("an unexpected end of pattern")
        ch = self.pattern[self.pos]
        self.pos += 1
        return ch

    def parse(self) -> tuple[str, int]:
        text, min_len = self._alternation()
        if self.pos != len(self.pattern):
            self.refuse(f"an unbalanced {self.peek()!r}")
        return text, min_len

    def _alternation(self) -> tuple[str, int]:
        branches = [self._sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self._sequence())
        return "|".join(t for t, _ in branches), min(n for _, n in branches)

    def _sequence(self) -> tuple[str, int]:
        parts: list[tuple[str, int]] = []
        while self.pos < len(self.pattern) and self.peek() not in "|)":
            parts.append(self._quantified(self._atom()))
        return "".join(t for t, _ in parts), sum(n for _, n in parts)

    def _quantified(self, atom: tuple[str, int]) -> tuple[str, int]:
        text, min_len = atom
        while True:
            ch = self.peek()
            if ch in ("*", "+", "?"):
                self.pos += 1
                low = 1 if ch == "+" else 0
                quant = ch
            elif ch == "{" and (m := re.compile(r"\{(\d*)(,?)(\d*)\}").match(self.pattern,
                                                                          self.pos)):
                if not (m.group(1) or m.group(3)):
                    return text, min_len  # "{,}" is a literal in both engines: taken next
                self.pos = m.end()
                low = int(m.group(1) or 0)
                quant = m.group(0)
            else:
                return text, min_len
            if self.peek() == "+":
                self.refuse("a possessive quantifier")
            if self.peek() == "?":
                self.pos += 1
                quant += "?"
            text, min_len = f"(?:{text}){quant}", min_len * low

    def _atom(self) -> tuple[str, int]:
        ch = self.take()
        if ch == "(":
            return self._group()
        if ch == "[":
            return _class_text(self._bracket()), 1
        if ch == "\\":
            return self._escape()
        if ch == ".":
            return "[^\\n]", 1
        if ch in "^$":
            return ch, 0
        if ch in "*+?":
            self.refuse(f"a quantifier {ch!r} with nothing to repeat")
        return re.escape(ch), 1

    def _group(self) -> tuple[str, int]:
        if self.peek() == "?":
            head = self.peek(3)
            if head.startswith("?:"):
                self.pos += 2
                opener, lookahead = "(?:", False
            elif head.startswith("?=") or head.startswith("?!"):
                self.pos += 2
                opener, lookahead = "(" + head[:2], True
            elif head.startswith("?<=") or head.startswith("?<!"):
                self.refuse("a look-behind")
            elif head.startswith("?>"):
                self.refuse("an atomic group")
            else:
                self.refuse(f"the group syntax '({head}'")
        else:
            opener, lookahead = "(", False
        text, min_len = self._alternation()
        if self.take() != ")":
            self.refuse("an unclosed group")
        return f"{opener}{text})", 0 if lookahead else min_len

    def _escape(self) -> tuple[str, int]:
        ch = self.take()
        if ch == "A":
            return "\\A", 0
        if ch == "z":
            return "\\Z", 0
        ranges = self._escape_ranges(ch)
        if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:  # one character
            return re.escape(chr(ranges[0][0])), 1
        return _class_text(ranges), 1

    def _escape_ranges(self, ch: str) -> Ranges:
        """The code points one escape matches (inside or outside brackets)."""
        if ch.lower() in _CLASS_ESCAPES:
            return _named_set(_CLASS_ESCAPES[ch.lower()], ch.isupper())
        if ch in "pP":
            return self._property(negated=ch == "P")
        cp = self._escaped_code_point(ch)
        return [(cp, cp)]

    def _property(self, negated: bool) -> Ranges:
        m = re.compile(r"\{(\^?)([A-Za-z_]+)\}").match(self.pattern, self.pos)
        if not m or m.group(2) not in _PROPERTIES:
            self.refuse("a property other than \\p{L}, \\p{N}, \\p{P}, \\p{S}, \\p{M}, \\p{Z}")
        self.pos = m.end()
        return _named_set(_PROPERTIES[m.group(2)], negated != bool(m.group(1)))

    def _escaped_code_point(self, ch: str) -> int:
        if ch in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[ch]
        if ch in "xu":
            braced = ch == "x" and self.peek() == "{"
            pattern = r"\{([0-9A-Fa-f]{1,6})\}" if braced else (
                r"[0-9A-Fa-f]{1,2}" if ch == "x" else r"[0-9A-Fa-f]{4}")
            m = re.compile(pattern).match(self.pattern, self.pos)
            if not m:
                self.refuse(f"a malformed \\{ch} escape")
            self.pos = m.end()
            return int(m.group(1) if braced else m.group(0), 16)
        if ch.isalnum() or ch == "_":
            self.refuse(f"the escape \\{ch}")
        return ord(ch)

    def _bracket(self) -> Ranges:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        if self.peek() == "]":
            self.refuse("a ']' first in a bracket class")
        ranges: Ranges = []
        while True:
            ch = self.take()
            if ch == "]":
                break
            if ch == "[" or (ch == "&" and self.peek() == "&"):
                self.refuse("a nested class, POSIX class or '&&' in a bracket class")
            item = self._escape_ranges(self.take()) if ch == "\\" else [(ord(ch), ord(ch))]
            if self.peek() == "-" and self.peek(2) != "-]" and len(item) == 1 \
                    and item[0][0] == item[0][1] and self.peek(2)[1:] not in ("]", ""):
                self.pos += 1
                end_ch = self.take()
                end = self._escape_ranges(self.take()) if end_ch == "\\" else [(ord(end_ch),) * 2]
                if len(end) != 1 or end[0][0] != end[0][1] or end[0][0] < item[0][0]:
                    self.refuse("a bad range in a bracket class")
                item = [(item[0][0], end[0][0])]
            ranges.extend(item)
        return _complement(ranges) if negated else _merge(ranges)


def _merge(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def translate(pattern: str) -> str:
    """The ``re`` pattern (for ``re.MULTILINE``) matching as Oniguruma matches ``pattern``.

    A construct outside the safe subset raises a ``ValueError`` naming it.

    >>> translate(r"a+|\\.")
    '(?:a)+|\\\\.'
    """
    text, min_len = _Parser(pattern).parse()
    if min_len == 0:
        raise ValueError(f"regex {pattern!r} can match the empty string, which HF and "
                         "Python's re step over differently")
    return text


Pieces = list[tuple[int, int, bool]]


class Matcher:
    """A compiled HF pattern: a literal string (``regex=False``) or a translated regex.

    A regex is compiled by ``safe_regex.compile_pattern`` (patterns come from files:
    one that could backtrack exponentially runs in linear time or is refused, the error
    naming ``field``).
    """

    def __init__(self, pattern: str, *, regex: bool, field: str = "pattern"):
        self.pattern, self.is_regex = pattern, regex
        self.compiled: Any = None
        if regex:
            self.compiled = compile_pattern(translate(pattern), field=field, flags=re.MULTILINE)
        else:
            self.compiled = re.compile(re.escape(pattern)) if pattern else None  # linear

    def pieces(self, text: str) -> Pieces:
        """Cut ``text`` into consecutive ``(start, end, is_match)`` pieces (HF's find_matches)."""
        if self.compiled is None:
            return [(0, len(text), False)] if text else []
        out: Pieces = []
        pos = 0
        for m in self.compiled.finditer(text):  # no empty match: translate refuses them
            if m.start() > pos:
                out.append((pos, m.start(), False))
            out.append((m.start(), m.end(), True))
            pos = m.end()
        if pos < len(text):
            out.append((pos, len(text), False))
        return out

    def to_config(self) -> dict:
        return {"Regex" if self.is_regex else "String": self.pattern}

    def __repr__(self) -> str:
        return f"{'Regex' if self.is_regex else 'String'}({self.pattern!r})"


def char_pieces(text: str, predicate: Callable[[str], bool]) -> Pieces:
    """Pieces where each character meeting ``predicate`` is a match of its own."""
    out: Pieces = []
    gap = 0
    for i, ch in enumerate(text):
        if predicate(ch):
            if gap < i:
                out.append((gap, i, False))
            out.append((i, i + 1, True))
            gap = i + 1
    if gap < len(text):
        out.append((gap, len(text), False))
    return out
