"""The regex check is sound: every generated pattern it lets ``re`` run scans in linear work.

Issue 25, item 5: patterns such as ``a*a*a*a*a*a*b`` (11 s on 80 characters) and
``a?…a?a…a`` (9 s for 28 of each) passed the old check. Here a seeded generator writes
patterns from a small grammar (classes that overlap, quantifiers greedy, lazy and
bounded, groups, alternatives, look-aheads, anchors); for each one
``regex_cost.linear_time_risk`` accepts, a step-counting backtracking matcher
(``tests/robustness/backtracking.py``) scans adversarial texts (a prefix, a pumped run,
a suffix that can spoil the match) of two lengths, n and 8n: linear work per character
stays the same (up to how matches align with the run), quadratic work grows eightfold.
The measure is deterministic: steps, not seconds.
"""

from __future__ import annotations

import random
import re

import pytest

from tests.robustness.backtracking import Matcher, TooManySteps, scan_steps
from wordpieces.pipeline.regex_cost import linear_time_risk

ATOMS = ["a", "b", " ", "1", "[ab]", "[^a]", r"\s", r"\S", ".", r"\d", "[a1]"]
QUANTIFIERS = ["*", "+", "?", "{0,2}", "{1,3}", "{2,}", "{2}", "*?", "+?", "??", "{0,1}"]
PUMPS = [*"ab 1", *(x + y for x in "ab 1" for y in "ab 1" if x != y)]
PREFIXES = ["", "a", "1 "]
SUFFIXES = ["", "a", "b", " ", "1", "x", "\n"]
REPEATS = (16, 128)  # the pump's repetitions: n and 8n
BUDGET = 400_000  # steps of one scan: linear patterns stay far below
GROWTH = 3  # work per character at 8n over that at n: about 1 if linear, 8 if quadratic
SLACK = 1  # steps per character a match's alignment with the pumped run can add
FLAGS = re.MULTILINE  # as pipeline.patterns compiles translated HF patterns


def _item(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(ATOMS)
    if roll < 0.7:
        return rng.choice(ATOMS) + rng.choice(QUANTIFIERS)
    if roll < 0.88 and depth < 2:
        group = "(?:" + _alternatives(rng, depth + 1) + ")"
        return group + (rng.choice(QUANTIFIERS) if rng.random() < 0.7 else "")
    if roll < 0.94:
        return "(?" + rng.choice("=!") + rng.choice(ATOMS) + ")"
    return rng.choice(["^", "$"])


def _alternatives(rng: random.Random, depth: int) -> str:
    return "|".join("".join(_item(rng, depth) for _ in range(rng.randint(1, 4)))
                    for _ in range(rng.choice([1, 1, 1, 2, 3])))


def generated_patterns(seed: int, count: int):
    """``count`` valid patterns of the grammar, the same ones for the same seed."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        pattern = _alternatives(rng, 0)
        try:
            re.compile(pattern, FLAGS)
        except re.error:
            continue
        made += 1
        yield pattern


def superlinear(steps: list[int], lengths: list[int]) -> bool:
    """Whether the work per character at 8n is well above that at n."""
    small, large = (s / max(n, 1) for s, n in zip(steps, lengths, strict=True))
    return large > GROWTH * small + SLACK


def superlinear_text(pattern: str, texts) -> str | None:
    """The first family of texts (a function of n) on which scanning grows superlinearly."""
    for make, name in texts:
        texts = [make(k) for k in REPEATS]
        try:
            steps = [scan_steps(pattern, text, BUDGET, FLAGS) for text in texts]
        except TooManySteps:
            return f"{name}: over {BUDGET} steps"
        if superlinear(steps, [len(text) for text in texts]):
            return f"{name}: {steps} steps for n = {REPEATS}"
    return None


def adversarial_texts():
    """Texts of a prefix, a pumped run and a suffix, as (function of n, name)."""
    for prefix in PREFIXES:
        for pump in PUMPS:
            for suffix in SUFFIXES:
                yield ((lambda k, p=prefix, u=pump, s=suffix: p + u * k + s),
                       f"{prefix!r} + {pump!r} * n + {suffix!r}")


def accepted_patterns(seed: int, count: int) -> list[str]:
    out = []
    for pattern in generated_patterns(seed, 100 * count):
        if linear_time_risk(pattern, FLAGS) is None:
            out.append(pattern)
            if len(out) == count:
                break
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_generated_pattern_the_check_accepts_scans_in_linear_steps(seed):
    """The old check let a*a*b-like patterns through; the new one accepts none that grow."""
    failures = []
    for pattern in accepted_patterns(seed, 20):
        witness = superlinear_text(pattern, adversarial_texts())
        if witness:
            failures.append(f"{pattern!r} on {witness}")
    assert not failures, "\n".join(failures)


ISSUE_PATTERNS = [r"a*a*a*a*a*a*b", r"\s*\s*\s*\s*\s*x", r".*.*.*.*=.*x", r"\d+\d+\d+\d+\d+x",
                  r"(?:a|b)*(?:a|b)*(?:a|b)*(?:a|b)*c", r"a+b", r"\s+$", r"(?:ab)+?c",
                  r"(a+)+$", r"(\w+\s?)+$"]


@pytest.mark.parametrize("pattern", ISSUE_PATTERNS)
def test_the_step_measure_sees_the_issues_patterns_grow(pattern):
    """The measure can fail: each superlinear pattern of the issue grows past the bound."""
    texts = [((lambda k, t=t, s=s: t * k + s), f"{t!r} * n + {s!r}")
             for t in ("a", "ab", " ", "=", "1") for s in ("", "x", "!")]
    assert superlinear_text(pattern, texts) is not None
    assert linear_time_risk(pattern) is not None


@pytest.mark.parametrize("optional", ["a?", "a{0,1}", "(?:a|)"])
def test_the_step_measure_sees_unrolled_optionals_grow_with_the_pattern(optional):
    """a?…a?a…a: work on "a" * k roughly doubles with each optional added, and is refused."""
    steps = [scan_steps(optional * k + "a" * k, "a" * k, BUDGET) for k in (4, 8)]
    assert steps[1] > 10 * steps[0]
    assert linear_time_risk(optional * 8 + "a" * 8) is not None


TEXT_ALPHABET = "ab 1x\n"


@pytest.mark.parametrize("seed", [4, 5])
def test_the_step_counter_finds_what_re_finds(seed):
    """The simulator is a faithful backtracking engine: its matches are re's, span for span."""
    rng = random.Random(seed)
    checked = 0
    for pattern in generated_patterns(seed, 150):
        for _ in range(4):
            text = "".join(rng.choice(TEXT_ALPHABET) for _ in range(rng.randint(0, 12)))
            matcher = Matcher(pattern, 50_000, FLAGS)
            try:
                spans = matcher.scan_steps(text)
            except TooManySteps:
                continue
            assert spans == [m.span() for m in re.finditer(pattern, text, FLAGS)], (
                pattern, text)
            checked += 1
    assert checked > 400
