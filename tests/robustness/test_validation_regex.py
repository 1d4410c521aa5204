"""Patterns from files cannot make encoding superlinear (issue 14, "What to build" 2; issue 25).

Without the ``re2`` extra a pattern not proved linear on ``re`` is refused at compile
time naming the field, the part at fault and the extra; with it, the pattern runs in
linear time with Python's Unicode classes; a pattern proved linear is compiled by ``re``
as before.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.errors import UnsafePatternError
from wordpieces.pipeline.safe_regex import (
    backtracking_risk,
    compile_pattern,
    risky_examples,
    unicode_classes_for_re2,
)

SAFE = [r"\s+", r"\w+|[^\w\s]+", r"(\d{1,3}\.)+", r"(ab+)+", r"(?:a|b)+", r"(a|ab)+",
        r"'s|'t|'re| ?[^\s\d]+|\s+(?!\S)|\s+", r"[\w\-]+", r"(\s|,)+"]
RISKY = [*risky_examples(), r"(a|aa)+$", r"(a+|b)+c", r"(?:[^\W]|\d)+x",
         r"(()+a)+a+$", r"(a*)+b", r"((\x06)()?)+$", r"((a)()?)+$", r"(a(b?)?)+$"]
# (()+a)+a+$ and ((\x06)()?)+$ were found by the regex fuzzer


@pytest.fixture
def without_re2(monkeypatch):
    """As on an install without the extra: importing re2 fails."""
    monkeypatch.setitem(sys.modules, "re2", None)


@pytest.mark.parametrize("pattern", SAFE)
def test_a_safe_pattern_is_compiled_by_re_unchanged(pattern):
    """Nothing changes for patterns that cannot blow up: the same re.Pattern as before."""
    assert backtracking_risk(pattern) is None
    assert compile_pattern(pattern, field="pattern") == re.compile(pattern)


@pytest.mark.parametrize("pattern", RISKY)
def test_a_risky_pattern_without_the_extra_is_refused_naming_field_and_extra(pattern,
                                                                               without_re2):
    """(a+)+$ took ~50 s on 31 characters, doubling per character: refused at load."""
    with pytest.raises(UnsafePatternError, match=(
            rf"^pre_tokenizer\.pattern\.Regex: the pattern {re.escape(repr(pattern))} can "
            r"take more than linear time on some texts \(.*\); install the linear-time "
            r"engine to use it: pip install 'wordpieces\[re2\]'$")):
        compile_pattern(pattern, field="pre_tokenizer.pattern.Regex")


def test_an_invalid_pattern_is_a_value_error_naming_the_field():
    """A pattern that does not compile says so with the field."""
    with pytest.raises(ValueError, match=r"^normalizer\.pattern: invalid regular expression"):
        compile_pattern("(a", field="normalizer.pattern")


def test_a_risky_pattern_with_the_extra_runs_in_linear_time():
    """With RE2, '(a+)+$' on 'a'*100000 + '!' returns at once (subprocess time limit)."""
    pytest.importorskip("re2")
    code = ("from wordpieces.pipeline.safe_regex import compile_pattern as c;"
            "import re; p = c(r'(a+)+$', field='f', flags=re.MULTILINE);"
            "print(p.search('a' * 100000 + '!'),"
            " p.search('aaa').span())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.split() == ["None", "(0,", "3)"], out.stderr


EVERY_CHARACTER = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@pytest.mark.parametrize("pattern", [r"\w", r"\W", r"\d", r"\D", r"\s", r"\S", r"[\W\d]",
                                     r"[^\w]", r"[^\W\d]", r"[\s.]"])
def test_classes_are_rewritten_to_exactly_pythons_code_points(pattern):
    """RE2's \\w is ASCII and its \\p{L} newer than Python's (5,010 code points apart):
    the rewritten class holds exactly re's code points, tested over all of Unicode."""
    re2 = pytest.importorskip("re2")
    ours = re2.compile(unicode_classes_for_re2(pattern) + "+")
    assert [m.span() for m in ours.finditer(EVERY_CHARACTER)] == \
        [m.span() for m in re.finditer(pattern + "+", EVERY_CHARACTER)]


@pytest.mark.parametrize("pattern, flags, construct", [
    (r"(a+)+\b", re.MULTILINE, r"uses \\b, which the linear-time engine reads with ASCII"),
    (r"(a+)+$", 0, r"uses \$ without re\.MULTILINE")])
def test_what_re2_reads_otherwise_is_refused_not_changed(pattern, flags, construct):
    """\\b is ASCII in RE2, and $ without MULTILINE has no RE2 spelling: refused by name."""
    pytest.importorskip("re2")
    with pytest.raises(UnsafePatternError, match=construct):
        compile_pattern(pattern, field="pattern", flags=flags)


TEXT = st.text(alphabet="ab1 _-é日١²\x0b\u0301\u00a0\u3000\u2028\t\n\x1c.,!Σ", max_size=30)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, pattern=st.sampled_from([r"(\w+\s?)+", r"(\d+)+", r"(\s+|\W)+",
                                           r"([\w-]+,?)+", r"(\S+\s*)+"]))
def test_re2_finds_what_re_finds_on_unicode_text(text, pattern):
    """Where both engines can run a pattern, they find the same matches (spans)."""
    re2 = pytest.importorskip("re2")
    ours = re2.compile(unicode_classes_for_re2(pattern))
    assert [m.span() for m in ours.finditer(text)] == \
        [m.span() for m in re.finditer(pattern, text)]


HF_PATTERNS = [r"(\w+\s?)+$", r"(\p{L}+\p{N}?)+", r"(?: ?\p{L}+)+|\s+"]


@settings(max_examples=200, deadline=None)
@given(text=TEXT, pattern=st.sampled_from(HF_PATTERNS))
def test_translated_hf_patterns_run_through_re2_with_res_matches(text, pattern):
    """HF patterns (translated by pipeline.patterns, \\U escapes and all) agree on both engines."""
    pytest.importorskip("re2")
    from wordpieces.pipeline.patterns import translate

    translated = translate(pattern)
    compiled = compile_pattern(translated, field="pattern", flags=re.MULTILINE)
    assert type(compiled) is not re.Pattern  # risky: it went to RE2
    assert [m.span() for m in compiled.finditer(text)] == \
        [m.span() for m in re.finditer(translated, text, re.MULTILINE)]


def test_a_risky_pattern_re2_cannot_run_is_refused_quietly(capfd):
    """A risky pattern RE2 does not support: refused in words, nothing logged on stderr."""
    pytest.importorskip("re2")
    with pytest.raises(UnsafePatternError, match=r"^f: the pattern '\(x\+\+x\+\)\+' can take "
                                                 r"more than linear .* cannot run it \(bad "
                                                 r"repetition operator: \+\+\)$"):
        compile_pattern("(x++x+)+", field="f")
    assert capfd.readouterr().err == ""


def test_re2_spelling_of_escapes():
    """\\uXXXX, \\UXXXXXXXX, an escaped space and \\Z have RE2 spellings."""
    assert unicode_classes_for_re2(r"\u00e9\U0001F600\ x\Z") == r"\x{00e9}\x{0001F600}\x{20}x\z"


def _split_tokenizer_json(tmp_path, pattern: str) -> str:
    import json

    import wordpieces as wp

    data = json.loads(wp.Tokenizer.from_vocab(["[UNK]", "a", "!"], flavor="huggingface")
                      .to_str())
    data["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": pattern},
                             "behavior": "Isolated", "invert": False}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_risky_split_in_tokenizer_json_is_refused_at_load_without_the_extra(tmp_path,
                                                                                 without_re2):
    """The issue's case: a Split (a+)+$ in a file, refused at load naming file and field."""
    import wordpieces as wp
    from wordpieces.errors import FormatError

    path = _split_tokenizer_json(tmp_path, "(a+)+$")
    with pytest.raises(FormatError, match=r"tokenizer\.json: pre_tokenizer\.pattern: .*can take "
                                          r"more than linear time.*pip install "
                                          r"'wordpieces\[re2\]'"):
        wp.load(path)


def test_a_risky_split_in_tokenizer_json_encodes_in_linear_time_with_the_extra(tmp_path):
    """(a+)+$ took ~50 s on 31 characters; with RE2, 200,001 take well under the limit."""
    pytest.importorskip("re2")
    path = _split_tokenizer_json(tmp_path, "(a+)+$")
    code = ("import sys, wordpieces as wp; tok = wp.load(sys.argv[1]);"
            "print(len(tok.encode('a' * 200000 + '!').ids), tok.encode('aaa').tokens)")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split("\n")[0] == "1 ['[UNK]']", out.stderr
