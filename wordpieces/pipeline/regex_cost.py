"""Prove that scanning a text with a pattern on Python's backtracking ``re`` takes linear time.

``linear_time_risk(pattern)`` returns None when it can prove that ``finditer``, ``search``,
``sub`` and ``split`` with ``pattern`` do work linear in the text's length, else the part
of the pattern at fault and why. The proof works on the pattern's position automaton
(each character-matching item is a position; an edge says which position can match the
next character, counted once per way the pattern allows it). Backtracking walks the tree
of the automaton's paths over the text, so two facts bound its work:

1. **Few ways.** However the text goes, at most ``MAX_WAYS`` paths read it. This refuses
   adjacent overlapping quantifiers (``a*a*b``, ``\\s*\\s*x``), unrolled optionals
   (``a?a?…aa…``, ``(?:a|)…``, ``a{0,1}…``), bounded repeats of optionals, nested
   quantifiers (``(a+)+``) and overlapping alternatives under a quantifier (``(a|ab?)+``):
   each lets the engine read one text in a number of ways that grows with its length or
   with the pattern's. A few ways (``'s|'t``, `` ?\\p{L}+|\\s+``) cost a constant factor.
2. **Nothing re-read.** A path that has read a long run must be able to end the match
   (a match ends its attempt, and the search goes on after it). Positions that cannot end
   the match must not form a loop: in ``a+b`` or ``\\s+$`` on ``"a" * n`` every start
   position reads the run to its end and fails, which is quadratic. A position whose end
   depends on a look-ahead counts as an end when the look-ahead holds wherever the loop
   could go on (``\\s+(?!\\S)``: a space is never ``\\S``).

With both, each start position does work bounded by a constant times the characters it
reads past its match, which the search never reads again. The constant is capped too
(``MAX_TRIES`` ways on from one place, ``MAX_WORK`` steps per character, ``MAX_CHAIN``
characters read before a match can end), so a file cannot buy a linear but huge one.
Constructs the proof does not cover are refused: back-references, conditional and
atomic groups, possessive quantifiers, case-insensitive and locale matching, look-arounds
that read an unbounded text, and patterns too large to check (``MAX_POSITIONS``).

``tests/robustness/test_regex_linear_proof.py`` checks the claim on generated patterns
with a step-counting backtracking matcher. Not handled here: what to do with a refused
pattern (``safe_regex``).
"""

from __future__ import annotations

import array
import bisect
import functools
import re
import sys
from dataclasses import dataclass, field

from .regex_spelling import C, describe, sre_parse

MAX_WAYS = 64  # paths that may read one text; real patterns need fewer than 10
MAX_TRIES = 1024  # ways to go on from one place (a list of words: one per word)
MAX_WORK = 8192  # steps the paths reading one text may take on its next character
MAX_CHAIN = 1000  # characters a start position may read before its match can end
MAX_POSITIONS = 2000  # positions after repeats are unrolled
MAX_CONFIGURATIONS = 20000  # sets of path counts explored by the proof
MAX_LOOKAROUND = 64  # characters a look-around may read
TOP = 0x110000
Ranges = tuple[tuple[int, int], ...]
_REFUSED_FLAGS = {re.IGNORECASE: "case-insensitive matching", re.LOCALE: "locale matching",
                  re.ASCII: "ASCII-only classes"}


class Unproven(Exception):
    """The proof cannot go on: the message names the part of the pattern and why."""


def linear_time_risk(pattern: str, flags: int = 0) -> str | None:
    """Why scanning with ``pattern`` may take more than linear time on ``re``, or None."""
    try:
        parsed = sre_parse.parse(pattern, flags)
        _check_flags(parsed.state.flags)
        graph = Builder(dotall=bool(parsed.state.flags & re.DOTALL),
                        multiline=bool(parsed.state.flags & re.MULTILINE)).whole(list(parsed))
        graph.check()
    except Unproven as e:
        return str(e)
    except RecursionError:
        return "the pattern nests too deeply to check"
    return None


def _check_flags(flags: int) -> None:
    for flag, what in _REFUSED_FLAGS.items():
        if flags & flag:
            raise Unproven(f"{what} is not checked")


# ---------------------------------------------------------------- character sets


def _merge(ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start < TOP:
        out.append((start, TOP - 1))
    return tuple(out)


def _contains(ranges: Ranges, code: int) -> bool:
    i = bisect.bisect_right(ranges, (code, TOP)) - 1
    return i >= 0 and ranges[i][0] <= code <= ranges[i][1]


_CATEGORY_LETTERS = {"CATEGORY_DIGIT": "d", "CATEGORY_NOT_DIGIT": "D", "CATEGORY_SPACE": "s",
                     "CATEGORY_NOT_SPACE": "S", "CATEGORY_WORD": "w", "CATEGORY_NOT_WORD": "W"}


def _category(name: str) -> Ranges:
    if name not in _CATEGORY_LETTERS:
        raise Unproven(f"the class {name} is not checked")
    return class_ranges(_CATEGORY_LETTERS[name])


def class_ranges(letter: str) -> Ranges:
    """The code points ``re`` itself puts in ``\\d``, ``\\s``, ``\\w`` (``D S W``: the rest)."""
    ranges = _unicode_classes()[letter.lower()]
    return _complement(ranges) if letter.isupper() else ranges


@functools.cache
def _unicode_classes() -> dict[str, Ranges]:
    found: dict[str, list] = {letter: [] for letter in "dsw"}
    for start, stop in ((0, 0xD800), (0xE000, TOP)):  # no surrogate is in these classes
        text = _characters(start, stop)
        for letter, runs in found.items():
            runs += [(start + m.start(), start + m.end() - 1)
                     for m in re.finditer("\\" + letter + "+", text)]
    return {letter: _merge(runs) for letter, runs in found.items()}


def _characters(start: int, stop: int) -> str:
    """The code points start..stop-1 as one string (fast: one decode, not a million chr)."""
    codes = array.array("I", range(start, stop))
    if codes.itemsize != 4:  # pragma: no cover - no 32-bit C int
        return "".join(map(chr, range(start, stop)))
    return codes.tobytes().decode("utf-32-be" if sys.byteorder == "big" else "utf-32-le")


def _class_ranges(items) -> Ranges:
    negate = bool(items) and items[0][0] is C.NEGATE
    parts: list[tuple[int, int]] = []
    for op, arg in items[1:] if negate else items:
        if op is C.RANGE:
            parts.append(arg)
        elif op is C.LITERAL:
            parts.append((arg, arg))
        elif op is C.CATEGORY:
            parts += _category(str(arg))
        elif op is C.NOT_LITERAL:  # only from [^x] optimizations
            parts += _complement(((arg, arg),))
        else:
            raise Unproven(f"the class item {op} is not checked")
    merged = _merge(parts)
    return _complement(merged) if negate else merged


# ---------------------------------------------------------------- route bookkeeping


@dataclass(frozen=True)
class NextChar:
    """A look-ahead that holds when the next character is in ``ranges`` (or, if
    ``at_end``, at the end of the text); ``known=False`` for one that depends on more."""

    ranges: Ranges
    at_end: bool
    known: bool = True


UNKNOWN = NextChar((), False, known=False)
Conds = frozenset  # of NextChar
Routes = dict  # (position, Conds) or Conds -> number of ways


def _add(into: dict, key, ways: int) -> None:
    into[key] = into.get(key, 0) + ways


@dataclass
class Part:
    """A piece of pattern: its routes in (to a position), out (from one) and across."""

    first: Routes = field(default_factory=dict)  # (pos, conds) -> ways to enter at pos
    last: Routes = field(default_factory=dict)  # (pos, conds) -> ways to leave after pos
    empty: Routes = field(default_factory=dict)  # conds -> ways to cross matching nothing


def _join(a: Routes, conds: Conds, ways: int, into: Routes) -> None:
    for (pos, c), w in a.items():
        _add(into, (pos, c | conds), w * ways)


# ---------------------------------------------------------------- the automaton


@dataclass
class Builder:
    """Build the position automaton of a parsed pattern, one ``Part`` per item."""

    dotall: bool
    multiline: bool
    atoms: list[Ranges] = field(default_factory=list)  # each position's characters
    labels: list[str] = field(default_factory=list)
    sets: dict[tuple, Ranges] = field(default_factory=dict)  # parsed item -> its characters
    follow: dict[int, dict[int, int]] = field(default_factory=dict)
    lookaround: list[Ranges] = field(default_factory=list)

    def whole(self, items: list) -> Graph:
        part = self.sequence(items, label="")
        return Graph(self, part)

    def position(self, ranges: Ranges, label: str) -> Part:
        pos = len(self.atoms) + 1  # 0 is the start
        if pos > MAX_POSITIONS:
            raise Unproven(f"the pattern is too large to check (more than {MAX_POSITIONS} "
                           "character positions once its repeats are written out)")
        self.atoms.append(ranges)
        self.labels.append(label)
        return Part(first={(pos, Conds()): 1}, last={(pos, Conds()): 1})

    def link(self, last: Routes, first: Routes) -> None:
        for (p, _), wp in last.items():
            row = self.follow.setdefault(p, {})
            for (q, _), wq in first.items():
                row[q] = row.get(q, 0) + wp * wq

    def sequence(self, items: list, label: str) -> Part:
        out = Part(empty={Conds(): 1})
        for op, arg in items:
            out = self.concat(out, self.item(op, arg, label))
        return out

    def concat(self, a: Part, b: Part) -> Part:
        self.link(a.last, b.first)
        out = Part(first=dict(a.first), last=dict(b.last))
        for conds, ways in a.empty.items():
            _join(b.first, conds, ways, out.first)
        for conds, ways in b.empty.items():
            _join(a.last, conds, ways, out.last)
        for ca, wa in a.empty.items():
            for cb, wb in b.empty.items():
                _add(out.empty, ca | cb, wa * wb)
        return out

    def item(self, op, arg, label: str) -> Part:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY):
            return self.position(self.atom(op, arg), label or describe([(op, arg)]))
        if op is C.SUBPATTERN:
            return self.group(arg, label)
        if op is C.BRANCH:
            return self.branch([list(alt) for alt in arg[1]], label)
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            return self.repeat(arg, describe([(op, arg)]))
        if op is C.AT:
            return Part(empty={Conds((self.anchor(arg),)): 1})
        if op in (C.ASSERT, C.ASSERT_NOT):
            return Part(empty={Conds((self.assertion(op, arg),)): 1})
        raise Unproven(f"{_CONSTRUCTS.get(str(op), str(op))} is not checked")

    def atom(self, op, arg) -> Ranges:
        key = (op, tuple(arg) if op is C.IN else arg, self.dotall)
        if key not in self.sets:  # a class of HF's is hundreds of ranges, often repeated
            self.sets[key] = self.characters(op, arg)
        return self.sets[key]

    def characters(self, op, arg) -> Ranges:
        if op is C.LITERAL:
            return ((arg, arg),)
        if op is C.NOT_LITERAL:
            return _complement(((arg, arg),))
        if op is C.ANY:
            return ((0, TOP - 1),) if self.dotall else _complement(((10, 10),))
        if op is C.CATEGORY:
            return _category(str(arg))
        return _class_ranges(arg)

    def group(self, arg, label: str) -> Part:
        _group, add_flags, del_flags, body = arg
        _check_flags(add_flags)
        saved = self.dotall, self.multiline
        self.dotall = bool(add_flags & re.DOTALL) or (self.dotall and not del_flags & re.DOTALL)
        self.multiline = bool(add_flags & re.MULTILINE) or (
            self.multiline and not del_flags & re.MULTILINE)
        try:
            return self.sequence(list(body), label)
        finally:
            self.dotall, self.multiline = saved

    def branch(self, alts: list, label: str) -> Part:
        out = Part()
        for alt in alts:
            part = self.sequence(alt, label)
            for name in ("first", "last", "empty"):
                for key, ways in getattr(part, name).items():
                    _add(getattr(out, name), key, ways)
        return out

    def repeat(self, arg, label: str) -> Part:
        low, high, body = arg[0], arg[1], list(arg[2])
        unbounded = high == C.MAXREPEAT
        copies = low + (1 if unbounded else high - low)
        if copies > MAX_POSITIONS:
            raise Unproven(f"{label} repeats too many times to check")
        if copies == 0:
            return Part(empty={Conds(): 1})
        out = Part(empty={Conds(): 1})
        for _ in range(max(low - 1, 0) if unbounded else low):
            out = self.concat(out, self.body(body, label, high))
        if unbounded:
            out = self.concat(out, self.loop(self.body(body, label, high), optional=low == 0))
        else:
            out = self.concat(out, self.optionals(body, label, high - low, high))
        return out

    def body(self, body: list, label: str, high) -> Part:
        part = self.sequence(body, label)
        if part.empty and high > 1:
            # the engine may repeat an empty match in many ways before giving up
            # (fuzzing found (()+a)+a+$ taking seconds on 28 characters)
            raise Unproven(f"{label} repeats a part that can match the empty string, as in "
                           "(a*)+ or (()+a)+")
        return part

    def loop(self, part: Part, optional: bool) -> Part:
        self.link(part.last, part.first)
        if optional:
            part.empty = {Conds(): 1}
        return part

    def optionals(self, body: list, label: str, count: int, high) -> Part:
        """``X{0,count}`` as nested optionals, ``(?:X(?:X)?)?``, fresh positions for each."""
        out = Part(empty={Conds(): 1})
        for _ in range(count):
            inner = self.concat(self.body(body, label, high), out)
            _add(inner.empty, Conds(), 1)
            out = inner
        return out

    def anchor(self, code) -> NextChar:
        name = str(code)
        if name == "AT_END" and self.multiline or name == "AT_END_LINE":
            return NextChar(((10, 10),), True)
        if name in ("AT_END", "AT_END_STRING"):  # "$" also before a last "\n": not counted
            return NextChar((), True)
        return UNKNOWN  # ^, \A, \b, \B: depend on the character before

    def assertion(self, op, arg) -> NextChar:
        direction, body = arg[0], list(arg[1])
        width = sre_parse.SubPattern(sre_parse.State(), body).getwidth()[1]
        if width > MAX_LOOKAROUND:
            raise Unproven(f"the look-around {describe([(op, arg)])} can read an unbounded "
                           "text at every position")
        inner = Builder(self.dotall, self.multiline).whole(body)
        inner.check_ways()
        if direction != 1 or len(body) != 1 or body[0][0] not in _ATOM_OPS:
            return UNKNOWN
        ranges = self.atom(*body[0])
        self.lookaround.append(ranges)
        if op is C.ASSERT:
            return NextChar(ranges, False)
        return NextChar(_complement(ranges), True)


_ATOM_OPS = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY)
_CONSTRUCTS = {"GROUPREF": "a back-reference", "GROUPREF_EXISTS": "a conditional group",
               "ATOMIC_GROUP": "an atomic group", "POSSESSIVE_REPEAT": "a possessive "
               "quantifier", "GROUPREF_IGNORE": "a back-reference"}


# ---------------------------------------------------------------- the two facts


class Graph:
    """The finished automaton: position 0 is the start, ``ends[p]`` the routes to a match."""

    def __init__(self, builder: Builder, part: Part):
        self.b = builder
        self.follow = builder.follow
        self.follow[0] = {}
        for (q, _), ways in part.first.items():
            self.follow[0][q] = self.follow[0].get(q, 0) + ways
        self.ends: dict[int, dict] = {0: dict(part.empty)}
        for (p, conds), ways in part.last.items():
            _add(self.ends.setdefault(p, {}), conds, ways)
        distinct = list(dict.fromkeys(builder.atoms + builder.lookaround))
        self.classes = _char_classes(distinct)
        ids = {ranges: i for i, ranges in enumerate(distinct)}
        self.atom_id = [-1] + [ids[ranges] for ranges in builder.atoms]
        self.members = {sample: {i for i, ranges in enumerate(distinct)
                                 if _contains(ranges, sample)} for sample in self.classes}

    def check(self) -> None:
        self.check_ways()
        self.check_rereading()

    def label(self, pos: int) -> str:
        return self.b.labels[pos - 1] if pos else "the start"

    def accepts(self, pos: int, sample: int) -> bool:
        return self.atom_id[pos] in self.members[sample]

    # 1. few ways -----------------------------------------------------------

    def check_ways(self) -> None:
        for p in range(len(self.b.atoms) + 1):
            row = [*self.follow.get(p, {}).values(), *self.ends.get(p, {}).values()]
            if max(row, default=0) > MAX_WAYS or sum(row) > MAX_TRIES:
                raise Unproven(f"after {self.label(p)} the pattern can go on in {sum(row)} "
                               f"ways (more than {MAX_TRIES}, or {MAX_WAYS} to one place), "
                               "each tried in turn")
        start = ((0, 1),)
        seen = {start: ""}
        todo = [start]
        while todo:
            config = todo.pop()
            for sample in self.classes:
                nxt = self.step(config, sample)
                if not nxt:
                    continue
                text = seen[config] + chr(sample)
                if sum(w for _, w in nxt) > MAX_WAYS:
                    raise Unproven(self.too_many_ways(nxt, text))
                if self.work(nxt) > MAX_WORK:
                    raise Unproven(f"the paths reading {_short(text)!r} may take "
                                   f"{self.work(nxt)} steps on the next character (more than "
                                   f"{MAX_WORK})")
                if nxt not in seen:
                    if len(seen) >= MAX_CONFIGURATIONS:
                        raise Unproven("the pattern is too complex to check")
                    seen[nxt] = text
                    todo.append(nxt)

    def work(self, config) -> int:
        return sum(ways * (sum(self.follow.get(p, {}).values()) + len(self.ends.get(p, {})))
                   for p, ways in config)

    def step(self, config, sample: int) -> tuple:
        counts: dict[int, int] = {}
        for p, ways in config:
            for q, w in self.follow.get(p, {}).items():
                if self.accepts(q, sample):
                    counts[q] = counts.get(q, 0) + ways * w
        return tuple(sorted(counts.items()))

    def too_many_ways(self, config, text: str) -> str:
        parts = list(dict.fromkeys(self.label(p) for p, _ in config))
        shown = ", ".join(parts[:4]) + (", …" if len(parts) > 4 else "")
        total = sum(w for _, w in config)
        return (f"{shown} can match the same text ({_short(text)!r}) in {total} ways (more "
                f"than {MAX_WAYS}), and backtracking tries each: overlapping quantifiers "
                "next to each other, optionals or alternatives, as in a*a*b, a?a?aa or (a+)+")

    # 2. nothing re-read --------------------------------------------------------

    def ends_here(self, pos: int) -> bool:
        """Whether the match can end after ``pos`` whenever the path goes on from it."""
        routes = self.ends.get(pos, {})
        if any(not conds for conds in routes):
            return True
        nexts = [q for q, w in self.follow.get(pos, {}).items() if w]
        for sample in self.classes:
            if any(self.accepts(q, sample) for q in nexts) and not any(
                    all(c.known and _contains(c.ranges, sample) for c in conds)
                    for conds in routes):
                return False
        return True

    def check_rereading(self) -> None:
        stuck = {p for p in self.follow if not self.ends_here(p)}
        state: dict[int, int] = {}  # 1 on the DFS path, 2 done
        for root in sorted(stuck):
            cycle = self.find_cycle(root, stuck, state)
            if cycle is not None:
                raise Unproven(f"{self.label(cycle)} can read a run of any length after which "
                               "the rest of the pattern can still fail, so the search reads "
                               "the run again from each start position (quadratic, as a+b "
                               "or \\s+$ on a long run)")
        longest = self.longest_chain(stuck)
        if longest > MAX_CHAIN:
            raise Unproven(f"a start position may read {longest} characters before the match "
                           f"can end (more than {MAX_CHAIN}), at every start position")

    def longest_chain(self, stuck: set) -> int:
        """The most positions in a row that cannot end the match (the stuck ones: no loop)."""
        length: dict[int, int] = {}
        for root in sorted(stuck, reverse=True):
            stack = [root]
            while stack:
                node = stack[-1]
                todo = [q for q in self.follow.get(node, {}) if q in stuck and q not in length]
                if todo:
                    stack += todo
                    continue
                stack.pop()
                length[node] = 1 + max((length[q] for q in self.follow.get(node, {})
                                        if q in stuck), default=0)
        return max(length.values(), default=0)

    def find_cycle(self, root: int, stuck: set, state: dict) -> int | None:
        stack = [(root, iter(self.follow.get(root, {})))]
        if state.get(root):
            return None
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif child in stuck and state.get(child) == 1:
                return child
            elif child in stuck and not state.get(child):
                state[child] = 1
                stack.append((child, iter(self.follow.get(child, {}))))
        return None


def _char_classes(sets: list[Ranges]) -> list[int]:
    """One sample code point for each class of characters no set tells apart."""
    cuts = sorted({0, TOP} | {lo for s in sets for lo, _ in s} | {hi + 1 for s in sets
                                                                   for _, hi in s})
    samples: dict[tuple, int] = {}
    for lo in cuts[:-1]:
        signature = tuple(_contains(s, lo) for s in sets)
        samples.setdefault(signature, lo)
    return list(samples.values())


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "…"


_SURROGATES = (0xD800, 0xDFFF)


def surrogate_stand_in(pattern: str, flags: int = 0) -> str | None:
    """A character every class of ``pattern`` treats as it treats a lone surrogate.

    RE2 reads UTF-8, which cannot hold a lone surrogate; putting this character in each
    one's place gives the same spans. None when the pattern tells surrogates apart
    (or its classes cannot be read).
    """
    try:
        sets = _pattern_sets(list(sre_parse.parse(pattern, flags)), Builder(True, False))
    except (Unproven, re.error, RecursionError):
        return None
    low, high = _SURROGATES
    cuts = {lo for s in sets for lo, _ in s} | {hi + 1 for s in sets for _, hi in s}
    if any(low < cut <= high for cut in cuts):
        return None  # a class starts or ends among the surrogates
    wanted = tuple(_contains(s, low) for s in sets)
    for sample in _char_classes(sets):
        if not low <= sample <= high and tuple(_contains(s, sample) for s in sets) == wanted:
            return chr(sample)
    return None


def _pattern_sets(items: list, builder: Builder) -> list[Ranges]:
    """The character sets of every item of a parsed pattern, wherever they are nested."""
    out: list[Ranges] = []
    for op, arg in items:
        if op in _ATOM_OPS:
            out.append(builder.characters(op, arg))
            if op is C.ANY:
                out.append(_complement(((10, 10),)))  # with or without DOTALL
            continue
        for part in arg if isinstance(arg, (tuple, list)) else ():
            if isinstance(part, sre_parse.SubPattern):
                out += _pattern_sets(list(part), builder)
            elif isinstance(part, list) and all(isinstance(p, sre_parse.SubPattern)
                                                for p in part):
                for alt in part:
                    out += _pattern_sets(list(alt), builder)
    return out
