"""Compile regular expressions that come from files so that they cannot take exponential time.

A ``Split`` or ``Replace`` pattern in a ``tokenizer.json`` is untrusted: with Python's
backtracking ``re``, ``(a+)+$`` takes about 50 s on ``"a" * 30 + "!"`` and doubles with
each character. ``compile_pattern(pattern, field=...)`` is the one way such a pattern is
compiled (the contract for ``pre_tokenizers.Split`` and ``normalizers.Replace``):

- a pattern in which backtracking cannot blow up is compiled with ``re`` (behaviour
  unchanged, so the two backends and every install agree);
- a pattern that can backtrack catastrophically (a quantifier inside a repeated group
  that can stop or go on with the same character, as in ``(a+)+`` or ``(\\w+\\s?)+``;
  alternatives that can start with the same character under a quantifier, as in
  ``(a|a?)+``) runs through RE2, a linear-time engine, when the optional extra is
  installed (``pip install 'wordpieces[re2]'``, the ``google-re2`` package), its
  ``\\w``, ``\\d`` and ``\\s`` rewritten to the Unicode classes Python's ``re`` uses;
- without the extra, such a pattern is refused with ``UnsafePatternError`` naming the
  field, the pattern, why, and the extra to install.

The returned object has the ``re.Pattern`` methods the pipeline uses: ``finditer``,
``search``, ``match``, ``sub`` and ``split``; match objects have ``start``, ``end``,
``span`` and ``group``.

Not handled here: polynomial backtracking outside a repeated group (``\\s*\\s*x`` is
quadratic on a long run of spaces with ``re``); patterns RE2 cannot express
(lookarounds, backreferences) that are also unsafe are refused even with the extra;
negated classes inside brackets (``[\\W]``) keep RE2's ASCII meaning, so such a pattern
is refused rather than run with another meaning.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable

from ..errors import UnsafePatternError


def _stdlib(name: str, before_311: str):
    """The re module's parser and constants: stdlib, named re._parser since Python 3.11."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - Python 3.10
        return importlib.import_module(before_311)


sre_parse = _stdlib("re._parser", "sre_parse")
sre_constants = _stdlib("re._constants", "sre_constants")

EXTRA = "re2"
C = sre_constants
Pred = Callable[[str], bool]
# Characters tried when asking whether two character sets can share a character, on top
# of every literal and range bound of the two sets.
PROBES = "aZz09_ \t\n\r\x00\x0b!-.'\"éßΣ日١٣\u00a0\u2028\u3000😀\x1c"
_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w",
               "CATEGORY_NOT_WORD": r"\W", "CATEGORY_LINEBREAK": r"\n",
               "CATEGORY_NOT_LINEBREAK": r"[^\n]"}


def compile_pattern(pattern: str, *, field: str, flags: int = 0):
    """Compile ``pattern`` from a file so that matching cannot take exponential time.

    ``field`` names where the pattern came from (``"pre_tokenizer.pattern.Regex"``) for
    the error; ``pattern`` is Python ``re`` syntax (``pipeline.patterns.translate``'s
    output for an HF pattern) and ``flags`` may hold ``re.IGNORECASE``, ``re.MULTILINE``
    and ``re.DOTALL``. Raises ``UnsafePatternError`` (a ``ValueError``) for a pattern that could
    backtrack catastrophically when the ``re2`` extra is missing, and ``ValueError`` for
    one that does not compile.
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
    """Why ``pattern`` can backtrack exponentially with ``re``, or None if it cannot."""
    parsed = sre_parse.parse(pattern, flags)
    ignore_case = bool(parsed.state.flags & re.IGNORECASE)
    return _Scanner(ignore_case).scan(list(parsed), follow=[], in_repeat=False)


def _linear_time(pattern: str, flags: int, field: str, reason: str):
    try:
        re2 = importlib.import_module("re2")
    except ImportError:
        raise UnsafePatternError(
            f"{field}: the pattern {pattern!r} can take exponential time on some texts "
            f"({reason}); install the linear-time engine to use it: "
            f"pip install 'wordpieces[{EXTRA}]'") from None
    translated = unicode_classes_for_re2(pattern, field)
    inline = "".join(letter for flag, letter in ((re.IGNORECASE, "i"), (re.MULTILINE, "m"),
                                                  (re.DOTALL, "s")) if flags & flag)
    translated = f"(?{inline}){translated}" if inline else translated
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, not RE2's log on stderr
    try:
        return re2.compile(translated, options)
    except Exception as e:  # re2.error: lookarounds, backreferences, possessives
        detail = e.args[0].decode("utf-8", "replace") if e.args and isinstance(
            e.args[0], bytes) else str(e)
        raise UnsafePatternError(
            f"{field}: the pattern {pattern!r} can take exponential time on some texts "
            f"({reason}), and the linear-time engine cannot run it ({detail})") from None


# ---------------------------------------------------------------- the analysis


class _Scanner:
    """Walk a parsed pattern looking for a choice that backtracking can take two ways.

    Inside a repeated group, a quantifier whose "go on" and "stop" paths can start with
    the same character, or alternatives that can, let the engine split one text into
    iterations in exponentially many ways before it gives up.
    """

    def __init__(self, ignore_case: bool):
        self.ignore_case = ignore_case

    def scan(self, items: list, follow: list, in_repeat: bool) -> str | None:
        for i, (op, arg) in enumerate(items):
            rest = self.first_of(items[i + 1:], follow)
            found = self.scan_node(op, arg, rest, in_repeat)
            if found:
                return found
        return None

    def scan_node(self, op, arg, follow: list, in_repeat: bool) -> str | None:
        if op is C.SUBPATTERN:
            return self.scan(list(arg[-1]), follow, in_repeat)
        if op in (C.ASSERT, C.ASSERT_NOT):
            return self.scan(list(arg[1]), [], False)
        if op is C.BRANCH:
            return self.scan_branch([list(a) for a in arg[1]], follow, in_repeat)
        if op is C.GROUPREF_EXISTS:
            alts = [list(arg[1]), list(arg[2]) if arg[2] is not None else []]
            return self.scan_branch(alts, follow, in_repeat)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            return self.scan_repeat(arg, follow, in_repeat)
        if op in _ATOMIC:  # no backtracking into it from outside: look inside alone
            return self.scan(_atomic_body(op, arg), [], False)
        return None

    def scan_branch(self, alts: list, follow: list, in_repeat: bool) -> str | None:
        if in_repeat:
            starts = [self.first_of(alt, follow) for alt in alts]
            for i, a in enumerate(starts):
                for b in starts[i + 1:]:
                    shared = self.shared_char(a, b)
                    if shared is not None:
                        return (f"alternatives under a quantifier can both start with "
                                f"{shared!r}")
        for alt in alts:
            found = self.scan(alt, follow, in_repeat)
            if found:
                return found
        return None

    def scan_repeat(self, arg, follow: list, in_repeat: bool) -> str | None:
        low, high, body = arg[0], arg[1], list(arg[2])
        if in_repeat and low != high:
            shared = self.shared_char(self.first_of(body, []), follow)
            if shared is not None:
                return (f"a quantifier inside a repeated group can go on or stop on the same "
                        f"character {shared!r}, as in (a+)+")
        if high > 1 and self.first_seq(body)[1]:
            # the engine may repeat an empty match in many ways before giving up
            # (fuzzing found (()+a)+a+$ taking seconds on 28 characters)
            return "a repeated part can match the empty string, as in (a*)+ or (()+a)+"
        if in_repeat and low != high and self.first_seq(body)[1]:
            # taken or skipped, an optional empty match gives each iteration two ways
            # (fuzzing found ((a)()?)+$ taking seconds on 28 characters)
            return ("an optional part that can match the empty string is repeated, "
                    "as in ((a)()?)+")
        if high > 1:
            return self.scan(body, self.first_of(body, []) + follow, True)
        return self.scan(body, follow, in_repeat)

    # ------------------------------------------------------------ first characters

    def first_of(self, items: list, follow: list) -> list:
        """Predicates for the characters a match of ``items`` (then ``follow``) starts with."""
        out: list = []
        for op, arg in items:
            firsts, nullable = self.first_node(op, arg)
            out += firsts
            if not nullable:
                return out
        return out + follow

    def first_node(self, op, arg) -> tuple[list, bool]:
        if op in (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY, C.CATEGORY):
            return [self.atom(op, arg)], False
        if op is C.SUBPATTERN:
            return self.first_seq(list(arg[-1]))
        if op in _ATOMIC:
            firsts, nullable = self.first_seq(_atomic_body(op, arg))
            return firsts, nullable or (op is not _ATOMIC_GROUP and arg[0] == 0)
        if op is C.BRANCH:
            return self.first_alts([list(a) for a in arg[1]])
        if op is C.GROUPREF_EXISTS:
            return self.first_alts([list(arg[1]), list(arg[2]) if arg[2] is not None else []])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            firsts, nullable = self.first_seq(list(arg[2]))
            return firsts, nullable or arg[0] == 0
        if op is C.GROUPREF:
            return [_ANYTHING], True  # a backreference: any text, maybe empty
        return [], True  # anchors and lookarounds match no character

    def first_seq(self, items: list) -> tuple[list, bool]:
        out: list = []
        for op, arg in items:
            firsts, nullable = self.first_node(op, arg)
            out += firsts
            if not nullable:
                return out, False
        return out, True

    def first_alts(self, alts: list) -> tuple[list, bool]:
        out: list = []
        any_nullable = False
        for alt in alts:
            firsts, nullable = self.first_seq(alt)
            out += firsts
            any_nullable = any_nullable or nullable
        return out, any_nullable

    def atom(self, op, arg) -> tuple[Pred, str]:
        """A predicate on one character, and the characters worth probing it with."""
        fold = str.lower if self.ignore_case else (lambda c: c)
        if op is C.LITERAL:
            ch = chr(arg)
            return (lambda c: fold(c) == fold(ch)), ch
        if op is C.NOT_LITERAL:
            ch = chr(arg)
            return (lambda c: fold(c) != fold(ch)), ch
        if op is C.ANY:
            return _ANYTHING
        if op is C.CATEGORY:
            return _category(arg), ""
        return self.char_class(arg)

    def char_class(self, items) -> tuple[Pred, str]:
        negate = bool(items) and items[0][0] is C.NEGATE
        preds: list[Pred] = []
        probes = ""
        for op, arg in items[1:] if negate else items:
            if op is C.RANGE:
                lo, hi = arg
                preds.append(_in_range(lo, hi))
                probes += chr(lo) + chr(hi) + chr((lo + hi) // 2)
            else:
                pred, more = self.atom(op, arg)
                preds.append(pred)
                probes += more
        return (lambda c: any(p(c) for p in preds) != negate), probes

    @staticmethod
    def shared_char(a: list, b: list) -> str | None:
        """A character both sets of predicates accept, if the probes find one."""
        if not a or not b:
            return None
        probes = PROBES + "".join(probe for _, probe in a) + "".join(probe for _, probe in b)
        for c in probes:
            if any(p(c) for p, _ in a) and any(p(c) for p, _ in b):
                return c
        return None


_ANYTHING: tuple[Pred, str] = (lambda c: True, "")
# Atomic groups and possessive repeats never backtrack into themselves (Python 3.11+).
_ATOMIC_GROUP = getattr(C, "ATOMIC_GROUP", None)
_ATOMIC = tuple(getattr(C, name) for name in ("ATOMIC_GROUP", "POSSESSIVE_REPEAT")
                if hasattr(C, name))


def _atomic_body(op, arg) -> list:
    return list(arg) if op is _ATOMIC_GROUP else list(arg[2])


def _in_range(lo: int, hi: int) -> Pred:
    return lambda c: lo <= ord(c) <= hi


def _category(code) -> Pred:
    compiled = re.compile(_CATEGORIES.get(str(code), r"[\s\S]"))
    return lambda c: compiled.match(c) is not None


# ---------------------------------------------------------------- RE2's classes

# Python's str patterns are Unicode-aware; RE2's \w, \d and \s are ASCII only.
_SPACE = r"\s\p{Z}\x{0b}\x{85}\x{1c}-\x{1f}"  # str.isspace(): RE2's \s lacks \v and these
_INSIDE = {"w": r"\p{L}\p{N}_", "d": r"\p{Nd}", "s": _SPACE}
_OUTSIDE = {"w": r"[\p{L}\p{N}_]", "W": r"[^\p{L}\p{N}_]", "d": r"\p{Nd}", "D": r"\P{Nd}",
            "s": f"[{_SPACE}]", "S": f"[^{_SPACE}]"}


def unicode_classes_for_re2(pattern: str, field: str = "pattern") -> str:
    """Rewrite ``\\w \\d \\s`` (and negations) to the Unicode classes Python's ``re`` uses.

    RE2 reads them as ASCII; without this the two engines would split text differently.
    A negated class inside brackets (``[\\W]``) has no RE2 spelling: ``UnsafePatternError``.
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
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            i += 1
            if pattern[i:i + 1] == "^":
                out.append("^")
                i += 1
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


def _escape(letter: str, in_class: bool, pattern: str, field: str) -> str:
    table = _INSIDE if in_class else _OUTSIDE
    if letter in table:
        return table[letter]
    if letter == "Z":  # Python's end of text is RE2's \z
        return "\\z"
    if not letter.isalnum():  # an escaped character: any of them, as RE2 accepts it
        return f"\\x{{{ord(letter):x}}}"
    if in_class and letter in "WDS":
        raise UnsafePatternError(f"{field}: the pattern {pattern!r} uses \\{letter} inside "
                                 "brackets, which the linear-time engine cannot express "
                                 "with Python's Unicode meaning")
    return "\\" + letter


def risky_examples() -> Iterable[str]:
    """Patterns known to backtrack exponentially with ``re`` (for tests and fuzzing seeds)."""
    return (r"(a+)+$", r"(\w+\s?)+$", r"(a|a?)+$", r"(x+x+)+y", r"^(\d+)*$", r"(.*a){12}")
