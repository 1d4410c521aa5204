"""HF patterns in Python: the regex subset matches as HF's Oniguruma does, the rest is
refused by name; the probed character tables are HF's."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.pipeline import char_tables
from wordpieces.pipeline.patterns import Matcher, translate
from wordpieces.pipeline.pre_tokenizers import Split

tokenizers = pytest.importorskip("tokenizers")

DATA = Path(char_tables.__file__).parent / "data"

ACCEPTED = [
    r"\w+|[^\w\s]+", r"\s+", r"\d{1,3}", r"\p{L}+|\p{N}+", r"[^\s\p{L}\p{N}]+", r"\P{L}",
    r"\p{^P}+", r"[a-z\-]+", r"\.", r"'s|'t|'re|'ve|'m|'ll|'d", r" ?\p{L}+", r"(?:ab)+?c",
    r"a(?=b)", r"x(?!y)", r"^\w", r"\w$", r"\Aa", r"a\z", r"[\x41-\x{5A}]", r"\u00e9",
    r".", r"\p{M}+", r"\p{S}|\p{Z}", r"[\t\n]", r"a{2,}", r"(a|b)c",
    r"[\w]+", r"[^\W\d]+", r"\W+|[\d\s]", r"(?i)[a-z]+", r"(?i)k|e\u0301", r"a(?i)b|c",
    r"(?i:ab)c", r"(?i)[^a-z]+", r"(?i)\w+", r"(?i)a(?-i)b", r"(?i)[^\w\s]+", r"(?i)σ+",
    r"(?i)(?-i:a)b", r"(?i)[^ß]", r"(?i)s{2}",
]

REFUSED = {
    r"(?<=a)b": "a look-behind",
    r"(?<!a)b": "a look-behind",
    r"(?>ab)": "an atomic group",
    r"a++": "a possessive quantifier",
    r"a?+b": "a possessive quantifier",
    r"(a)\1": r"the escape \\1",
    r"(?<name>a)": "the group syntax",
    r"(?m)a": "the inline option 'm'",
    r"(?ix:a)": "the inline option 'x'",
    r"(?i)ß": r"the character 'ß' under \(\?i\), which Oniguruma also matches as the string 'ss'",
    r"(?i)[a-zß]": r"the character 'ß' under \(\?i\)",
    r"(?i)[\w]": r"the character 'ß' under \(\?i\)",
    r"(?i)\x{fb01}": r"the character 'ﬁ' under \(\?i\)",
    r"(?i)ss": r"the characters 'ss' under \(\?i\), which Oniguruma also matches as the "
               r"one character 'ß'",
    r"(?i)s(?:s)": r"the characters 'ss'",
    r"(?i)S{1}s": r"the characters 'ss'",
    r"(?i)FI": r"the characters 'fi'",
    r"x(?i:\x{3b9}\x{308}\x{301})": "the characters '\u03b9\u0308\u0301'",
    r"\bword": r"the escape \\b",
    r"a\Z": r"the escape \\Z",
    r"\h+": r"the escape \\h",
    r"\p{Greek}": "a property other than",
    r"[[:alpha:]]": "a nested class, POSIX class",
    r"[a-z&&[^aeiou]]": "a nested class, POSIX class or '&&'",
    r"a*": "can match the empty string",
    r"(?=a)": "can match the empty string",
    r"a|": "can match the empty string",
    r"(": "an unexpected end of pattern",
    r"a)": r"an unbalanced '\)'",
}

# Text mixing what the classes tell apart: letters (with marks, composed or not), digits
# of several scripts, punctuation, symbols, every kind of space, ZWJ, CJK.
ALPHABET = ("aAzé e\u0301_-.,'!?$+€²٣५ \t\n\u00a0\u3000\u200d\u0915\u094d\u093e中ß\u2581()"
            "³¹¼kKs\u212aſẞİıΣσς")


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_accepted_patterns_compile(pattern):
    """Each pattern of the subset translates to a Python regex."""
    Matcher(pattern, regex=True)


@pytest.mark.parametrize("pattern, construct", REFUSED.items())
def test_refused_patterns_name_the_construct(pattern, construct):
    """A construct Python's re cannot match as Oniguruma does is refused, named."""
    with pytest.raises(ValueError, match=construct):
        translate(pattern)


def test_refusal_names_the_pattern():
    """The message quotes the whole pattern and the position of the construct."""
    with pytest.raises(ValueError, match=r"regex 'x\(\?<=a\)b': a look-behind \(at position 2\)"):
        translate("x(?<=a)b")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40), st.sampled_from(ACCEPTED),
       st.sampled_from(["isolated", "removed", "contiguous"]))
def test_translated_patterns_split_as_hf(text, pattern, behavior):
    """Split with a translated regex gives HF's words and offsets on mixed text."""
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior)
    assert Split(pattern, behavior).pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40), st.text(alphabet="a- .", min_size=1,
                                                         max_size=3))
def test_string_patterns_split_as_hf(text, needle):
    """A String pattern is matched literally, leftmost, without overlaps, as HF."""
    text = text.replace("\u0301", "") + needle
    theirs = tokenizers.pre_tokenizers.Split(needle, "isolated")
    assert Split(needle, "isolated", regex=False).pre_tokenize_str(text) == \
        theirs.pre_tokenize_str(text)


def test_bracketed_word_class_leaves_out_latin1_digits():
    """Oniguruma's [^\\w\\s] takes '²' (its bare \\w does too): '?²' is one word, as in HF."""
    expected = [("?²", (0, 2))]
    assert Split(r"\w+|[^\w\s]+", "isolated").pre_tokenize_str("?²") == expected
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex(r"\w+|[^\w\s]+"), "isolated")
    assert theirs.pre_tokenize_str("?²") == expected
    assert Split(r"\w", "isolated").pre_tokenize_str("?²") == [("?", (0, 1)), ("²", (1, 2))]


def test_case_insensitive_literals_take_their_probed_equals():
    """(?i)k takes the Kelvin sign, (?i)s the long s, as Oniguruma; bare \\p{Lu} is not folded."""
    assert Split(r"(?i)k", "removed").pre_tokenize_str("xkK\u212ay") == [("x", (0, 1)),
                                                                        ("y", (4, 5))]
    assert Split(r"(?i)[a-z]+", "removed").pre_tokenize_str("ſ-ß") == [("-ß", (1, 3))]
    assert Split(r"(?i)\p{M}", "removed").pre_tokenize_str("\u0345\u03b9") == [("\u03b9", (1, 2))]
    assert Split(r"(?i)[\p{M}]", "removed").pre_tokenize_str("\u0345\u03b9") == []
    assert Split(r"a(?i)b|c", "removed").pre_tokenize_str("c aC") == [("c ", (0, 2))]


def test_case_folds_are_hf_s():
    """The probed equals hold the Kelvin sign with k; ß's several-character fold is 'ss'."""
    assert char_tables.case_equals(ord("k")) == (ord("K"), ord("k"), 0x212A)
    assert char_tables.case_equals(ord("-")) == (ord("-"),)
    assert char_tables.multi_char_folds()[ord("ß")] == "ss"
    assert ord("²") not in char_tables.bracketed_set("w") and ord("²") in char_tables.char_set(
        "regex_w")


def test_char_sets_are_oniguruma_s():
    """\\w holds the combining marks (Python's \\w does not), \\s not U+001C."""
    word = char_tables.char_set("regex_w")
    assert 0x0301 in word and 0x093E in word and 0x200D not in word
    assert 0x1C not in char_tables.char_set("regex_s")


def test_pattern_script_reproduces_shipped_table(tmp_path):
    """make_pattern_tables.py, run against the installed tokenizers, writes hf_patterns.txt."""
    installed = importlib.metadata.version("tokenizers")
    if f"from tokenizers {installed};" not in (DATA / "hf_patterns.txt").read_text("ascii"):
        pytest.skip(f"hf_patterns.txt was probed from another tokenizers than {installed}")
    done = subprocess.run([sys.executable, "-m",
                           "wordpieces.pipeline.probes.make_pattern_tables", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "hf_patterns.txt").read_bytes() == (DATA / "hf_patterns.txt").read_bytes()


def test_shipped_pattern_table_is_small():
    """The probed sets stay well under 100 kB."""
    assert (DATA / "hf_patterns.txt").stat().st_size < 100_000
