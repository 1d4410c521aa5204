"""Differential tests: translated Split patterns cut text as HF's Oniguruma does, on every
code point and on generated text drawn from all of Unicode, with the character classes
(bare, bracketed, negated) and case-insensitive matching."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.pipeline import char_tables
from wordpieces.pipeline.pre_tokenizers import Split

tokenizers = pytest.importorskip("tokenizers")

EVERY_CODE_POINT = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)

ONE_CHARACTER = [
    r"\w", r"[\w]", r"[^\w]", r"[^\w\s]", r"[^\W\d]", r"\d", r"[\D]", r"\s", r"[^\s]",
    r"[\p{N}\p{M}]", r"(?i)[a-z]", r"(?i)k", r"(?i)[^a-z]", r"(?i)[\p{M}]", r"(?i)\p{M}",
    r"(?i)[^\p{S}]", r"(?i)[^\w\s]", r"(?i)[^ß]", r"(?i)[\x{400}-\x{4ff}]",
]

GENERATED = [r"\w+", r"\d+", r"\s+", r"[^\w\s]+", r"(?i)[a-z]+", r"\w+|[^\w\s]+"]
BEHAVIORS = ["isolated", "removed", "contiguous", "merged_with_previous"]

# Where the engines were seen to differ: the Latin-1 digits \w takes bare but not in
# brackets, letters with equals far away (Kelvin sign, long s), several-character folds.
TRICKY = "²³¹¼½¾?!aksKSſ\u212a\u212bßẞİıΣσς\u0301\u00a0\u3000 \n\t١٢३"


def _hf(pattern: str, behavior: str):
    return tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ONE_CHARACTER)
def test_classes_take_hf_s_code_points(pattern):
    """Over every code point, each one-character class takes exactly what Oniguruma takes."""
    ours = Split(pattern, "removed").pre_tokenize_str(EVERY_CODE_POINT)
    assert ours == _hf(pattern, "removed").pre_tokenize_str(EVERY_CODE_POINT)


unicode_text = st.text(st.one_of(st.characters(exclude_categories=("Cs",)),
                                 st.sampled_from(TRICKY),
                                 st.sampled_from(char_tables.cased_code_points()).map(chr)),
                       max_size=30)


@settings(max_examples=300, deadline=None)
@given(unicode_text, st.sampled_from(GENERATED), st.sampled_from(BEHAVIORS))
def test_generated_text_splits_as_hf(text, pattern, behavior):
    """Text from all of Unicode (mixed with the characters that told the engines apart)."""
    assert Split(pattern, behavior).pre_tokenize_str(text) == \
        _hf(pattern, behavior).pre_tokenize_str(text)
