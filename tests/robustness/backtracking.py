"""A small backtracking matcher that counts its steps, to measure a pattern's work exactly.

It walks Python's parse of a pattern (``re._parser``) the way a backtracking engine does:
greedy repeats try one more iteration before stopping, lazy ones the other way round,
alternatives left to right, look-arounds as sub-matches; ``scan_steps`` runs a whole
``finditer`` scan. Each character test, alternative tried and repeat decision is one
step, so the count is a deterministic measure of backtracking work (no clock). It covers
the subset ``tests/robustness/test_regex_linear_proof.py`` generates: literals, classes,
``.``, categories, groups, alternatives, greedy and lazy repeats, anchors and
look-arounds of fixed width.
"""

from __future__ import annotations

import re
import sys

from wordpieces.pipeline.regex_cost import C, sre_parse


class TooManySteps(Exception):
    """The matcher went over its step budget: far from linear on this text."""


_CLASS_TESTS = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
                "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w",
                "CATEGORY_NOT_WORD": r"\W"}


def _category(name) -> re.Pattern:
    return re.compile(_CLASS_TESTS[str(name)])


class Matcher:
    """One pattern, matched with step counting; ``budget`` caps the steps of a scan."""

    def __init__(self, pattern: str, budget: int, flags: int = 0):
        parsed = sre_parse.parse(pattern, flags)
        self.items = list(parsed)
        self.multiline = bool(parsed.state.flags & re.MULTILINE)
        self.dotall = bool(parsed.state.flags & re.DOTALL)
        self.budget = budget
        self.steps = 0
        self.text = ""

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise TooManySteps

    def scan_steps(self, text: str) -> list[tuple[int, int]]:
        """Run a ``finditer`` scan over ``text``; ``self.steps`` holds the work done."""
        self.text = text
        spans: list[tuple[int, int]] = []
        pos, must_advance = 0, False
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            while pos <= len(text):
                end = self.match_at(pos, must_advance)
                if end is None:
                    pos, must_advance = pos + 1, False
                    continue
                spans.append((pos, end))
                # after an empty match, the next one may start there but not be empty
                pos, must_advance = end, end == pos
        finally:
            sys.setrecursionlimit(limit)
        return spans

    def match_at(self, pos: int, must_advance: bool = False) -> int | None:
        found: list[int] = []

        def done(end: int) -> bool:
            if must_advance and end == pos:
                return False
            found.append(end)
            return True

        return found[0] if self.seq(self.items, 0, pos, done) else None

    # ------------------------------------------------------------ the walk

    def seq(self, items, i: int, pos: int, then) -> bool:
        if i == len(items):
            return then(pos)
        op, arg = items[i]
        return self.node(op, arg, pos, lambda p: self.seq(items, i + 1, p, then))

    def node(self, op, arg, pos: int, then) -> bool:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN, C.CATEGORY):
            self.tick()
            return pos < len(self.text) and self.char_ok(op, arg, self.text[pos]) and then(
                pos + 1)
        if op is C.SUBPATTERN:
            return self.seq(list(arg[-1]), 0, pos, then)
        if op is C.BRANCH:
            for alt in arg[1]:
                self.tick()
                if self.seq(list(alt), 0, pos, then):
                    return True
            return False
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, body = arg
            return self.repeat(list(body), low, high, op is C.MIN_REPEAT, 0, pos, then)
        if op is C.AT:
            self.tick()
            return self.anchor(str(arg), pos) and then(pos)
        if op in (C.ASSERT, C.ASSERT_NOT):
            self.tick()
            return self.lookaround(op, arg, pos) and then(pos)
        raise NotImplementedError(op)

    def repeat(self, body, low, high, lazy: bool, count: int, pos: int, then) -> bool:
        self.tick()

        def again(p: int) -> bool:
            if p == pos and count + 1 > low:  # an empty iteration ends the loop
                return then(p)
            return self.repeat(body, low, high, lazy, count + 1, p, then)

        can_stop, can_go = count >= low, count < high
        if lazy:
            return (can_stop and then(pos)) or (can_go and self.seq(body, 0, pos, again))
        return (can_go and self.seq(body, 0, pos, again)) or (can_stop and then(pos))

    def char_ok(self, op, arg, ch: str) -> bool:
        code = ord(ch)
        if op is C.LITERAL:
            return code == arg
        if op is C.NOT_LITERAL:
            return code != arg
        if op is C.ANY:
            return self.dotall or ch != "\n"
        if op is C.CATEGORY:
            return _category(arg).match(ch) is not None
        return self.in_class(arg, ch)

    def in_class(self, items, ch: str) -> bool:
        negate = bool(items) and items[0][0] is C.NEGATE
        hit = False
        for op, arg in items[1:] if negate else items:
            if op is C.RANGE:
                hit = arg[0] <= ord(ch) <= arg[1]
            else:
                hit = self.char_ok(op, arg, ch)
            if hit:
                break
        return hit != negate

    def anchor(self, name: str, pos: int) -> bool:
        text, n = self.text, len(self.text)
        if name == "AT_BEGINNING":
            return pos == 0 or (self.multiline and text[pos - 1] == "\n")
        if name == "AT_END":
            if self.multiline:
                return pos == n or text[pos] == "\n"
            return pos == n or (pos == n - 1 and text[pos] == "\n")
        if name == "AT_BEGINNING_STRING":
            return pos == 0
        if name == "AT_END_STRING":
            return pos == n
        word = re.compile(r"\w")
        before = pos > 0 and word.match(text[pos - 1]) is not None
        after = pos < n and word.match(text[pos]) is not None
        return (before != after) == (name == "AT_BOUNDARY")

    def lookaround(self, op, arg, pos: int) -> bool:
        direction, body = arg[0], list(arg[1])
        if direction == 1:
            held = self.seq(body, 0, pos, lambda p: True)
        else:
            width = sre_parse.SubPattern(sre_parse.State(), body).getwidth()[0]
            held = pos >= width and self.seq(body, 0, pos - width, lambda p: p == pos)
        return held == (op is C.ASSERT)


def scan_steps(pattern: str, text: str, budget: int, flags: int = 0) -> int:
    """Steps a backtracking ``finditer`` scan of ``text`` takes (``TooManySteps`` past budget)."""
    matcher = Matcher(pattern, budget, flags)
    matcher.scan_steps(text)
    return matcher.steps
