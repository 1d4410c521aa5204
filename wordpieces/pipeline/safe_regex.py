"""Compile regular expressions that come from files so that matching takes linear time.

A ``Split`` or ``Replace`` pattern in a ``tokenizer.json`` is untrusted: with Python's
backtracking ``re``, ``(a+)+$`` takes about 50 s on ``"a" * 30 + "!"`` and doubles with
each character, ``a*a*a*a*a*a*b`` 11 s on 80 characters, and ``\\s+$`` grows with the
square of a run of spaces. ``compile_pattern(pattern, field=...)`` is the one way such a
pattern is compiled (the contract for ``pre_tokenizers.Split`` and ``normalizers.Replace``):

- a pattern that ``regex_cost.linear_time_risk`` proves linear (``\\w+|[^\\w\\s]+``, GPT-2's
  split, ``\\s+``, ``\\d{1,3}``) is compiled with ``re`` (behaviour unchanged, so the two
  backends and every install agree);
- any other pattern (overlapping quantifiers next to each other or nested, unrolled or
  repeated optionals, overlapping alternatives under a quantifier, a run that the rest of
  the pattern can fail after, constructs the proof does not cover) runs through RE2, a
  linear-time engine, when the optional extra is installed (``pip install
  'wordpieces[re2]'``, the ``google-re2`` package), its ``\\w``, ``\\d`` and ``\\s``
  rewritten to the Unicode classes Python's ``re`` uses;
- without the extra, such a pattern is refused with ``UnsafePatternError`` naming the
  field, the pattern, the part at fault and why, and the extra to install.

The returned object has the ``re.Pattern`` methods the pipeline uses: ``finditer``,
``search``, ``match``, ``sub`` and ``split``; match objects have ``start``, ``end``,
``span`` and ``group``.

Not handled here: patterns RE2 cannot express (lookarounds, backreferences) that are
not proved linear are refused even with the extra; negated classes inside brackets
(``[\\W]``) have no RE2 spelling with Python's meaning, so such a pattern is refused
rather than run with another meaning.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable

from ..errors import UnsafePatternError
from .regex_cost import class_ranges, linear_time_risk, surrogate_stand_in

EXTRA = "re2"


def compile_pattern(pattern: str, *, field: str, flags: int = 0):
    """Compile ``pattern`` from a file so that scanning a text with it takes linear time.

    ``field`` names where the pattern came from (``"pre_tokenizer.pattern.Regex"``) for
    the error; ``pattern`` is Python ``re`` syntax (``pipeline.patterns.translate``'s
    output for an HF pattern) and ``flags`` may hold ``re.IGNORECASE``, ``re.MULTILINE``
    and ``re.DOTALL``. Raises ``UnsafePatternError`` (a ``ValueError``) for a pattern not
    proved linear on ``re`` when the ``re2`` extra is missing, and ``ValueError`` for one
    that does not compile.
    """
    try:
        compiled = re.compile(pattern, flags)
    except re.error as e:
        raise ValueError(f"{field}: invalid regular expression {pattern!r}: {e}") from None
    reason = backtracking_risk(pattern, flags)
    if reason is None:
        return compiled
    return _linear_time(pattern, flags, field, reason)


def backtracking_risk(pattern: str, flags: int = 0) -> str | None:
    """Why scanning with ``pattern`` may take more than linear time on ``re``, or None."""
    return linear_time_risk(pattern, flags)


def _linear_time(pattern: str, flags: int, field: str, reason: str):
    try:
        re2 = importlib.import_module("re2")
    except ImportError:
        raise UnsafePatternError(
            f"{field}: the pattern {pattern!r} can take more than linear time on some texts "
            f"({reason}); install the linear-time engine to use it: "
            f"pip install 'wordpieces[{EXTRA}]'") from None
    translated = unicode_classes_for_re2(pattern, field, multiline=bool(flags & re.MULTILINE))
    inline = "".join(letter for flag, letter in ((re.IGNORECASE, "i"), (re.MULTILINE, "m"),
                                                  (re.DOTALL, "s")) if flags & flag)
    translated = f"(?{inline}){translated}" if inline else translated
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, not RE2's log on stderr
    try:
        return SurrogateSafe(re2.compile(translated, options), surrogate_stand_in(pattern, flags))
    except Exception as e:  # re2.error: lookarounds, backreferences, possessives
        detail = e.args[0].decode("utf-8", "replace") if e.args and isinstance(
            e.args[0], bytes) else str(e)
        raise UnsafePatternError(
            f"{field}: the pattern {pattern!r} can take more than linear time on some texts "
            f"({reason}), and the linear-time engine cannot run it ({detail})") from None


# ---------------------------------------------------------------- lone surrogates

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class SurrogateSafe:
    """An RE2 pattern that also scans texts holding lone surrogates, which UTF-8 cannot.

    Each surrogate is read as ``stand_in``, a character every class of the pattern treats
    alike (``regex_cost.surrogate_stand_in``): the spans are the ones ``re`` finds, and a
    match's ``group`` is cut from the caller's text. ``finditer``, ``search``, ``match``
    and ``fullmatch`` do this (all the pipeline calls); anything else goes to RE2 as is.
    """

    def __init__(self, compiled, stand_in: str | None):
        self.compiled, self.stand_in = compiled, stand_in

    def __getattr__(self, name: str):
        return getattr(self.compiled, name)

    def readable(self, text: str) -> str:
        if not isinstance(text, str) or _LONE_SURROGATE.search(text) is None:
            return text
        if self.stand_in is None:
            raise UnsafePatternError(f"the pattern {self.compiled.pattern!r} tells lone "
                                     "surrogates apart, which the linear-time engine cannot "
                                     "read: the text holds one")
        return _LONE_SURROGATE.sub(self.stand_in, text)

    def finditer(self, text, *args):
        readable = self.readable(text)
        found = self.compiled.finditer(readable, *args)
        return found if readable is text else (SpanMatch(m, text) for m in found)

    def search(self, text, *args):
        return self.one("search", text, args)

    def match(self, text, *args):
        return self.one("match", text, args)

    def fullmatch(self, text, *args):
        return self.one("fullmatch", text, args)

    def one(self, method: str, text, args):
        readable = self.readable(text)
        found = getattr(self.compiled, method)(readable, *args)
        return found if readable is text or found is None else SpanMatch(found, text)


class SpanMatch:
    """A match found in the stand-in text, its groups cut from the caller's text."""

    def __init__(self, found, text: str):
        self.found, self.string = found, text

    def __getattr__(self, name: str):
        return getattr(self.found, name)

    def span(self, group=0):
        return self.found.span(group)

    def start(self, group=0):
        return self.found.start(group)

    def end(self, group=0):
        return self.found.end(group)

    def group(self, *groups):
        texts = [self.cut(g) for g in groups or (0,)]
        return texts[0] if len(texts) == 1 else tuple(texts)

    def groups(self, default=None):
        count = len(self.found.groups())
        return tuple(default if self.found.start(g) < 0 else self.cut(g)
                     for g in range(1, count + 1))

    def cut(self, group) -> str | None:
        start, end = self.found.span(group)
        return None if start < 0 else self.string[start:end]


# ---------------------------------------------------------------- RE2's classes

# Python's str patterns are Unicode-aware; RE2's \w, \d and \s are ASCII only, and its
# \p{L}, \p{N} follow a newer Unicode than Python's unicodedata (5,010 code points of \w
# and 20 of \d differ with Python 3.11): each class is spelled as the code points re uses.
_SURROGATES = (0xD800, 0xDFFF)  # never in UTF-8 text, and RE2 cannot name them


@functools.cache
def _re2_class_body(letter: str) -> str:
    """The body of an RE2 class holding exactly the code points of Python's ``\\<letter>``."""
    parts = []
    for lo, hi in class_ranges(letter):
        for a, b in _without_surrogates(lo, hi):
            parts.append(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}")
    return "".join(parts)


def _without_surrogates(lo: int, hi: int) -> list[tuple[int, int]]:
    low, high = _SURROGATES
    if hi < low or lo > high:
        return [(lo, hi)]
    return [(a, b) for a, b in ((lo, low - 1), (high + 1, hi)) if a <= b]


def unicode_classes_for_re2(pattern: str, field: str = "pattern", *,
                            multiline: bool = True) -> str:
    """Rewrite ``\\w \\d \\s`` (and negations) to exactly the code points Python's ``re`` uses.

    RE2 reads them as ASCII; without this the two engines would split text differently.
    What has no RE2 spelling with Python's meaning is refused (``UnsafePatternError``):
    ``\\b``/``\\B`` (ASCII in RE2) and, unless ``multiline``, ``$`` (Python's also matches
    before a last newline).
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            width = _CODE_WIDTHS.get(pattern[i + 1], 0)
            if width:  # \uXXXX and \UXXXXXXXX: RE2 spells them \x{...}
                out.append("\\x{" + pattern[i + 2:i + 2 + width] + "}")
                i += 2 + width
                continue
            out.append(_escape(pattern[i + 1], in_class, pattern, field))
            i += 2
            continue
        if ch == "$" and not in_class and not multiline:
            raise UnsafePatternError(f"{field}: the pattern {pattern!r} uses $ without "
                                     "re.MULTILINE, which the linear-time engine cannot "
                                     "express with Python's meaning")
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            i += 1
            if pattern[i:i + 1] == "^":
                out.append("^")
                i += 1
            out.append(NO_FOLD)
            if pattern[i:i + 1] == "]":  # a literal ] first in a class
                out.append("\\]")
                i += 1
            continue
        if ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


_CODE_WIDTHS = {"u": 4, "U": 8}
# A surrogate in every class RE2 is given: no UTF-8 text holds one, so it matches nothing,
# but it stops RE2 from reading a class such as [Kk] inside an alternation as the
# case-folded letter, which also takes the Kelvin sign U+212A (re and HF do not).
NO_FOLD = "\\x{d800}"


def _escape(letter: str, in_class: bool, pattern: str, field: str) -> str:
    if letter in "wWdDsS":
        body = _re2_class_body(letter)
        return body if in_class else f"[{body}]"
    if letter == "Z":  # Python's end of text is RE2's \z
        return "\\z"
    if not letter.isalnum():  # an escaped character: any of them, as RE2 accepts it
        return f"\\x{{{ord(letter):x}}}"
    if letter in "bB":
        raise UnsafePatternError(f"{field}: the pattern {pattern!r} uses \\{letter}, which the "
                                 "linear-time engine reads with ASCII letters only")
    return "\\" + letter


def risky_examples() -> Iterable[str]:
    """Patterns known to backtrack superlinearly with ``re`` (for tests and fuzzing seeds)."""
    return (r"(a+)+$", r"(\w+\s?)+$", r"(a|a?)+$", r"(x+x+)+y", r"^(\d+)*$", r"(.*a){12}",
            # issue 25: polynomial and unrolled ones the first check let through
            "a?" * 28 + "a" * 28, r"a*a*a*a*a*a*b", r"\s*\s*\s*\s*\s*x", r".*.*.*.*=.*x",
            r"\d+\d+\d+\d+\d+x", r"(?:a|b)*(?:a|b)*(?:a|b)*(?:a|b)*c",
            "a{0,1}" * 24 + "a" * 24, "(?:a|)" * 24 + "a" * 24, r"\s+$", r"a+b",
            r"(?:ab)+?c")
