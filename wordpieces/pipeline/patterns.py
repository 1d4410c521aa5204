"""HF's split patterns in Python: a literal string, or an Oniguruma regex translated to ``re``.

HF ``tokenizers`` matches ``Split``/``Replace`` patterns with Oniguruma (Ruby syntax).
``re`` agrees with it on a subset only, so a regex is parsed here and translated, or
refused with a ``ValueError`` naming the construct. The accepted subset (documented in
``docs/formats.md`` terms as "the safe subset"):

- literals and escaped punctuation; ``\\t \\n \\r \\f \\v \\a \\e``, ``\\xHH``,
  ``\\x{H...}``, ``\\uHHHH``; ``.`` (any character but ``\\n``);
- ``\\w \\W \\s \\S \\d \\D`` and ``\\p{L} \\p{N} \\p{P} \\p{S} \\p{M} \\p{Z}`` (also
  ``\\P{..}``, ``\\p{^..}``), as explicit sets of the code points Oniguruma matches,
  probed from HF (``char_tables``: its ``\\w`` holds the combining marks, Python's does
  not; inside brackets its ``\\w`` leaves out ``²³¹¼½¾``, which the bare ``\\w`` takes);
- bracket classes of the above, ranges and negation (not nested, no ``&&``, no POSIX
  ``[:alpha:]``);
- groups ``(..)``, ``(?:..)``, look-ahead ``(?=..)``/``(?!..)``, ``|``, the greedy and
  lazy quantifiers ``* + ? {n} {n,} {,m} {n,m}``;
- anchors ``^ $`` (line anchors in Ruby syntax, so ``re.MULTILINE``) and ``\\A \\z``;
- case-insensitive matching: ``(?i)`` (to the end of the enclosing group, alternatives
  after it included, as in Ruby), ``(?i:..)``, ``(?-i)``, ``(?-i:..)``. A literal becomes
  the set of its probed equals (``k``: ``kK`` and the Kelvin sign), a bracket class the
  closure of its set (negated after); bare ``\\w``, ``\\p{M}`` ... are not folded, as in
  Oniguruma. Folds spanning several characters (``ß`` and ``ss``, ``ﬁ`` and ``fi``) have
  no character set: a case-insensitive pattern holding such a character (a literal or in
  a bracket class) or such a string of literals is refused, naming it.

Refused: look-behind, atomic groups, possessive quantifiers, back-references, named
groups, the other inline options (``m``, ``x``), ``\\b \\B \\G \\K \\R \\X \\Z \\h``,
other properties, and any pattern that can match the empty string (HF and ``re`` step
over empty matches differently).

``Matcher.pieces(text)`` cuts a text into ``(start, end, is_match)`` pieces as HF's
``Pattern::find_matches``; ``CharMatcher`` does it for a character predicate (each
matching character is a match of its own, as HF's ``impl Pattern for Fn(char)``).

Not handled here: what to do with the pieces (``pre_tokenizers``, ``normalizers``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import cache
from typing import Any, NoReturn

from .char_tables import (
    MAX_CODE_POINT,
    REGEX_CLASSES,
    bracketed_set,
    case_equals,
    cased_code_points,
    char_set,
    multi_char_folds,
)
from .safe_regex import compile_pattern

Ranges = list[tuple[int, int]]
_SIMPLE_ESCAPES = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
_CLASS_ESCAPES = {"w": "w", "s": "s", "d": "d"}
_PROPERTIES = {name: name for name in REGEX_CLASSES if name.isupper()}
_OPTIONS = re.compile(r"\?([A-Za-z]*)(?:-([A-Za-z]*))?([:)])")
_EXACTLY_ONCE = ("{1}", "{1,1}", "{1}?", "{1,1}?")


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
    return _ranges_text(tuple(ranges))


@cache
def _ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    if not ranges:
        return "(?!)"
    body = "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)
    return f"[{body}]"


def _named_set(letter: str, negated: bool, bracketed: bool) -> Ranges:
    ranges = list((bracketed_set(letter) if bracketed else char_set(f"regex_{letter}")).ranges())
    return _complement(ranges) if negated else ranges


def _caseless(ranges: Ranges) -> Ranges:
    """``ranges`` and every code point ``(?i)`` takes as equal to one of them."""
    ranges = _merge(ranges)
    starts = [a for a, _ in ranges]
    inside = [cp for cp in cased_code_points()
              if (i := bisect_right(starts, cp) - 1) >= 0 and cp <= ranges[i][1]]
    return _merge([*ranges, *((cp, cp) for m in inside for cp in case_equals(m))])


@cache
def _multi_fold_keys() -> dict[tuple[int, ...], tuple[str, str]]:
    """The folding keys of each several-character fold: ``(string, its one character)``."""
    out: dict[tuple[int, ...], tuple[str, str]] = {}
    for cp, string in sorted(multi_char_folds().items()):
        out.setdefault(tuple(case_equals(ord(c))[0] for c in string), (string, chr(cp)))
    return out


class _Parser:
    """Recursive descent over one Oniguruma pattern, writing the ``re`` equivalent.

    Each ``_alternation``/``_sequence``/``_atom`` returns ``(re_text, min_length)``:
    the minimum length finds patterns that can match the empty string. Under ``(?i)``,
    ``run`` holds the folding keys of the literals Oniguruma may join into one string
    (it joins them across ``(?:..)``, ``{1}``, and it is kept across anchors, look-aheads
    and captures to be safe): a run spelling a several-character fold is refused.
    """

    def __init__(self, pattern: str):
        self.pattern, self.pos = pattern, 0
        self.ignore_case = False
        self.run: list[int] = []
        self.pending: int | None = None  # the literal just parsed, joined once unrepeated

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
            self.run = []
            branches.append(self._sequence())
        return "|".join(t for t, _ in branches), min(n for _, n in branches)

    def _sequence(self) -> tuple[str, int]:
        parts: list[tuple[str, int]] = []
        while self.pos < len(self.pattern) and self.peek() not in "|)":
            if self.peek() == "(" and (m := _options(self.pattern, self.pos + 1)) \
                    and m.group(3) == ")":
                self.pos = m.end()
                parts.append(self._with_options(m, "(?:"))  # the rest of the group
                break
            parts.append(self._quantified(self._atom()))
        return "".join(t for t, _ in parts), sum(n for _, n in parts)

    def _with_options(self, options: re.Match, opener: str) -> tuple[str, int]:
        """Parse up to the end of the group with ``(?i)`` / ``(?-i)`` in force."""
        on, off = options.group(1), options.group(2) or ""
        for letter in on + off:
            if letter != "i":
                self.refuse(f"the inline option {letter!r} (only 'i' is accepted)")
        saved = self.ignore_case
        self.ignore_case = "i" in on and "i" not in off
        self.run = []
        text, min_len = self._alternation()
        self.ignore_case, self.run = saved, []
        return f"{opener}{text})", min_len

    def _quantified(self, atom: tuple[str, int]) -> tuple[str, int]:
        text, min_len = atom
        literal, self.pending = self.pending, None
        repeated = False
        while True:
            ch = self.peek()
            if ch in ("*", "+", "?"):
                self.pos += 1
                low = 1 if ch == "+" else 0
                quant = ch
            elif ch == "{" and (m := re.compile(r"\{(\d*)(,?)(\d*)\}").match(self.pattern,
                                                                          self.pos)):
                if not (m.group(1) or m.group(3)):
                    break  # "{,}" is a literal in both engines: taken next
                self.pos = m.end()
                low = int(m.group(1) or 0)
                quant = m.group(0)
            else:
                break
            if self.peek() == "+":
                self.refuse("a possessive quantifier")
            if self.peek() == "?":
                self.pos += 1
                quant += "?"
            repeated = repeated or quant not in _EXACTLY_ONCE
            text, min_len = f"(?:{text}){quant}", min_len * low
        if repeated:
            self.run = []  # Oniguruma keeps a repeated atom a string of its own
        elif literal is not None:
            self._join_literal(literal)
        return text, min_len

    def _join_literal(self, key: int) -> None:
        self.run.append(key)
        for length in (2, 3):
            if len(self.run) >= length and (found := _multi_fold_keys().get(
                    tuple(self.run[-length:]))):
                self.refuse(f"the characters {found[0]!r} under (?i), which Oniguruma also "
                            f"matches as the one character {found[1]!r},")

    def _atom(self) -> tuple[str, int]:
        ch = self.take()
        if ch == "(":
            return self._group()
        if ch == "[":
            ranges = self._bracket()
            self.run = []
            return _class_text(ranges), 1
        if ch == "\\":
            return self._escape()
        if ch == ".":
            self.run = []
            return "[^\\n]", 1
        if ch in "^$":
            return ch, 0
        if ch in "*+?":
            self.refuse(f"a quantifier {ch!r} with nothing to repeat")
        return self._literal(ord(ch))

    def _literal(self, cp: int) -> tuple[str, int]:
        """One literal character; under ``(?i)`` the set of its equals."""
        if not self.ignore_case:
            self.run = []
            return re.escape(chr(cp)), 1
        self._refuse_multi_fold([(cp, cp)])
        self.pending = case_equals(cp)[0]
        equals = case_equals(cp)
        if len(equals) == 1:
            return re.escape(chr(cp)), 1
        return _class_text(_merge([(e, e) for e in equals])), 1

    def _refuse_multi_fold(self, ranges: Ranges) -> None:
        for cp, string in multi_char_folds().items():
            if _holds(ranges, cp):
                self.refuse(f"the character {chr(cp)!r} under (?i), which Oniguruma also "
                            f"matches as the string {string!r},")

    def _group(self) -> tuple[str, int]:
        if self.peek() == "?":
            head = self.peek(3)
            if (options := _options(self.pattern, self.pos)) and options.group(3) == ":":
                self.pos = options.end()
                text, min_len = self._with_options(options, "(?:")
                if self.take() != ")":
                    self.refuse("an unclosed group")
                return text, min_len
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
        if ch.lower() in _CLASS_ESCAPES or ch in "pP":  # bare classes: never case-folded
            self.run = []
            return _class_text(self._escape_ranges(ch, bracketed=False)), 1
        return self._literal(self._escaped_code_point(ch))

    def _escape_ranges(self, ch: str, bracketed: bool) -> Ranges:
        """The code points one escape matches (inside brackets or bare)."""
        if ch.lower() in _CLASS_ESCAPES:
            return _named_set(_CLASS_ESCAPES[ch.lower()], ch.isupper(), bracketed)
        if ch in "pP":
            return self._property(negated=ch == "P", bracketed=bracketed)
        cp = self._escaped_code_point(ch)
        return [(cp, cp)]

    def _property(self, negated: bool, bracketed: bool) -> Ranges:
        m = re.compile(r"\{(\^?)([A-Za-z_]+)\}").match(self.pattern, self.pos)
        if not m or m.group(2) not in _PROPERTIES:
            self.refuse("a property other than \\p{L}, \\p{N}, \\p{P}, \\p{S}, \\p{M}, \\p{Z}")
        self.pos = m.end()
        return _named_set(_PROPERTIES[m.group(2)], negated != bool(m.group(1)), bracketed)

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
            item = self._escape_ranges(self.take(), True) if ch == "\\" else [(ord(ch), ord(ch))]
            if self.peek() == "-" and self.peek(2) != "-]" and len(item) == 1 \
                    and item[0][0] == item[0][1] and self.peek(2)[1:] not in ("]", ""):
                self.pos += 1
                end_ch = self.take()
                end = self._escape_ranges(self.take(), True) if end_ch == "\\" \
                    else [(ord(end_ch),) * 2]
                if len(end) != 1 or end[0][0] != end[0][1] or end[0][0] < item[0][0]:
                    self.refuse("a bad range in a bracket class")
                item = [(item[0][0], end[0][0])]
            ranges.extend(item)
        if self.ignore_case:  # Oniguruma folds the set, then negates it
            if not negated:  # a negated class never matches several characters
                self._refuse_multi_fold(ranges)
            ranges = _caseless(ranges)
        return _complement(ranges) if negated else _merge(ranges)


def _options(pattern: str, pos: int) -> re.Match | None:
    """The inline options ``?i)``, ``?-i:`` ... at ``pos`` (at least one letter)."""
    m = _OPTIONS.match(pattern, pos)
    return m if m and (m.group(1) or m.group(2)) else None


def _holds(ranges: Ranges, cp: int) -> bool:
    return any(a <= cp <= b for a, b in ranges)


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
