"""Issue 25, item 5: the patterns the old regex check let through, and the ones it must keep.

Each pattern below took seconds to minutes on ``re`` (``a*a*a*a*a*a*b``: 11 s on 80
characters; ``a?``×28 ``a``×28: 9 s; ``\\s+$``: quadratic in a run of spaces). Now,
without the ``re2`` extra, each is refused at load naming the part at fault and the
extra; with it, each runs on RE2 in linear time (subprocess time limit) and splits as
Hugging Face does. The patterns real ``tokenizer.json`` files use stay on ``re``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.errors import UnsafePatternError
from wordpieces.pipeline.patterns import translate
from wordpieces.pipeline.safe_regex import backtracking_risk, compile_pattern

# HF syntax, the part the refusal names (as a regex: HF's classes become code points), a
# text that blows up re
CLASS = r"\[[^`]*\]"
ISSUE = [
    ("a?" * 28 + "a" * 28, r"`a\?`", "a" * 28),
    ("a*a*a*a*a*a*b", r"`a\*`", "a" * 80),
    (r"\s*\s*\s*\s*\s*x", rf"`{CLASS}\*`", " " * 80),
    (r".*.*.*.*=.*x", r"`\[\^\\x0a\]\*`", "=" * 80),
    (r"\d+\d+\d+\d+\d+x", rf"`{CLASS}\+`", "1" * 80),
    ("(?:a|b)*(?:a|b)*(?:a|b)*(?:a|b)*c", r"`\[ab\]\*`", "ab" * 40),
    ("a{0,1}" * 24 + "a" * 24, r"`a\?`", "a" * 24),
    ("(?:a|)" * 24 + "a" * 24, r"`a`", "a" * 24),
    (r"\s+$", rf"`{CLASS}\+`", " " * 20000 + "x"),
    ("a+b", r"`a\+`", "a" * 20000),
    ("(?:ab)+?c", r"`\(\?:ab\)\+\?`", "ab" * 10000),
]
IDS = [p if len(p) < 30 else p[:12] + f"…({len(p)})" for p, _, _ in ISSUE]


@pytest.fixture
def without_re2(monkeypatch):
    """As on an install without the extra: importing re2 fails."""
    monkeypatch.setitem(sys.modules, "re2", None)


@pytest.mark.parametrize("pattern, part, text", ISSUE, ids=IDS)
def test_the_issues_patterns_are_refused_without_the_extra_naming_the_part(
        pattern, part, text, without_re2):
    """Each pattern the old check passed: refused, naming field, the part and the extra."""
    with pytest.raises(UnsafePatternError, match=(
            r"^pre_tokenizer\.pattern: the pattern .* can take more than linear time on some "
            rf"texts \(.*{part}.*\); install the linear-time engine to use "
            r"it: pip install 'wordpieces\[re2\]'$")):
        compile_pattern(translate(pattern), field="pre_tokenizer.pattern", flags=re.MULTILINE)


@pytest.mark.parametrize("pattern, part, text", ISSUE, ids=IDS)
def test_the_issues_patterns_run_in_linear_time_with_the_extra(pattern, part, text):
    """With RE2 each one scans 200,000 characters of its worst text within the time limit."""
    pytest.importorskip("re2")
    code = ("import sys; from wordpieces.pipeline.patterns import Matcher;"
            "m = Matcher(sys.argv[1], regex=True);"
            "print(len(m.pieces(sys.argv[2] * int(sys.argv[3]))))")
    out = subprocess.run([sys.executable, "-c", code, pattern, text, str(200_000 // len(text))],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and int(out.stdout) >= 1, out.stderr


ALPHABET = "ab= 1x\n\t\u00a0é日"


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=40),
       pattern=st.sampled_from([p for p, _, _ in ISSUE if len(p) < 40]))
def test_the_issues_patterns_on_re2_split_as_hf(text, pattern):
    """RE2 (the classes spelled as code points) gives HF's words and offsets, both behaviours."""
    pytest.importorskip("re2")
    tokenizers = pytest.importorskip("tokenizers")
    from wordpieces.pipeline.pre_tokenizers import Split

    for behavior in ("isolated", "removed"):
        theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior)
        assert Split(pattern, behavior).pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
REAL = [r"\w+|[^\w\s]+", GPT2, r"\s+", r" +", r"\p{P}+|\s", r"\p{P}", r"[\s\S]", r"\w+",
        r"[^\s\p{L}\p{N}]+|\d{1,3}", r"-+|\s|\.", r"[a-z]+", r"\s+|\p{P}", r"\d{1,3}",
        r"\p{L}+|\p{N}+", r"[^\s\p{L}\p{N}]+", r"\P{L}", r"\p{^P}+", r"[a-z\-]+", r"\.",
        r"'s|'t|'re|'ve|'m|'ll|'d", r" ?\p{L}+", r"a(?=b)", r"x(?!y)", r"^\w", r"\w$",
        r"\Aa", r"a\z", r"[\x41-\x{5A}]", r"\u00e9", r".", r"\p{M}+", r"\p{S}|\p{Z}",
        r"[\t\n]", r"a{2,}", r"(a|b)c", r"\p{N}{1,3}", r"[\p{P}\p{S}]"]


@pytest.mark.parametrize("pattern", REAL)
def test_the_patterns_real_files_use_stay_on_re_without_the_extra(pattern, without_re2):
    """HF's Whitespace, GPT-2's split, BERT-ish and the unit tests' patterns: proved linear."""
    translated = translate(pattern)
    assert backtracking_risk(translated, re.MULTILINE) is None
    compiled = compile_pattern(translated, field="pattern", flags=re.MULTILINE)
    assert compiled == re.compile(translated, re.MULTILINE)


def test_a_lazy_run_before_a_literal_is_quadratic_on_re_and_refused():
    """(?:ab)+?c (a unit test's pattern) re-reads 'abab…' from each start: not kept on re."""
    assert "`(?:ab)+?`" in (backtracking_risk(translate("(?:ab)+?c"), re.MULTILINE) or "")


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=ALPHABET + "\ud800\udbff\udc00\udfff", max_size=30),
       pattern=st.sampled_from([p for p, _, _ in ISSUE if len(p) < 40] + [r"[^a]+$", r".+x"]))
def test_a_lone_surrogate_in_the_text_scans_on_re2_as_on_re(text, pattern):
    """UTF-8 cannot hold a lone surrogate (RE2 raised UnicodeEncodeError): it is read as a
    character every class treats alike, so the spans and groups are re's."""
    pytest.importorskip("re2")
    translated = translate(pattern)
    compiled = compile_pattern(translated, field="pattern", flags=re.MULTILINE)
    assert type(compiled) is not re.Pattern
    expected = list(re.finditer(translated, text, re.MULTILINE))
    found = list(compiled.finditer(text))
    assert [m.span() for m in found] == [m.span() for m in expected]
    assert [m.group() for m in found] == [m.group() for m in expected]


@pytest.mark.parametrize("pattern, text", [
    (r"(?:[\x{100}-\x{17f}]+(?:[Kk]|-)*)+", "ſ\u212a"),  # Kelvin sign after a long s
    (r"(?:\p{L}+(?:[Ss]|-)*)+", "é\u017f-s"),
    (r"(?:a+(?:[Kk]|-)*)+", "a\u212ak-K"),
])
def test_a_case_pair_class_on_re2_takes_no_other_fold(pattern, text):
    """RE2 read [Kk] in an alternation as case-folded k (Kelvin sign U+212A too); HF does not."""
    pytest.importorskip("re2")
    tokenizers = pytest.importorskip("tokenizers")
    from wordpieces.pipeline.pre_tokenizers import Split

    assert backtracking_risk(translate(pattern)) is not None  # it runs on RE2
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), "isolated")
    assert Split(pattern, "isolated").pre_tokenize_str(text) == theirs.pre_tokenize_str(text)
