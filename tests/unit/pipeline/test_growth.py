"""The cap on how much normalization may grow a text (``pipeline.growth``)."""

from __future__ import annotations

import pytest

from wordpieces.errors import TokenizeError
from wordpieces.pipeline.edit_normalizers import Prepend, Replace
from wordpieces.pipeline.growth import (
    MAX_GROWTH_CHARS,
    MAX_GROWTH_FACTOR,
    check_growth,
    growth_limit,
)
from wordpieces.pipeline.normalizers import (
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    Sequence,
)


def test_the_cap_is_a_multiple_of_the_length_plus_a_constant():
    """64 x n + 65,536 characters: at the cap passes, one more is refused naming the stage."""
    assert growth_limit(10) == MAX_GROWTH_FACTOR * 10 + MAX_GROWTH_CHARS == 66_176
    check_growth(66_176, 10, "stage")
    with pytest.raises(TokenizeError, match=r"^the normalizer 'stage' would grow a text of 10 "
                                            r"characters to 66,177 characters, over the cap "
                                            r"of 66,176 \(normalization may make a text at "
                                            r"most 64 times as long plus 65,536 characters\)$"):
        check_growth(66_177, 10, "stage")


def test_replace_is_refused_before_it_builds_a_text_over_the_cap():
    """A one-character text may become 65,600 characters, not one more."""
    assert len(Replace("a", "b" * 65_600).normalize_str("a")) == 65_600
    with pytest.raises(TokenizeError, match=r"^the normalizer Replace\(String\('a'\), "
                                            r"content='bbbb.*\.\.\. would grow a text of 1 "
                                            r"character to 65,601 characters"):
        Replace("a", "b" * 65_601).normalize("a")


def test_a_hundredfold_replace_twice_still_works_on_a_short_text():
    """Modest growth: 'a' -> 100 -> 10,000 characters, under the constant."""
    twice = Sequence([Replace("a", "a" * 100), Replace("a", "a" * 100)])
    assert twice.normalize_str("a") == "a" * 10_000
    with pytest.raises(TokenizeError, match="to 1,000,000 characters"):
        Sequence([Replace("a", "a" * 100)] * 3).normalize("a")


def test_prepend_longer_than_the_constant_is_refused():
    """Prepend adds its text once: up to 65,536 characters on a one-character text."""
    assert len(Prepend("_" * 65_000).normalize_str("a")) == 65_001
    with pytest.raises(TokenizeError, match=r"^the normalizer Prepend\('___"):
        Prepend("_" * 70_000).normalize("a")


def test_a_sequence_checks_after_each_stage():
    """A stage growing by a small factor, repeated: the Sequence stops it by name."""
    spacer = BertNormalizer(flavor="huggingface")  # each pass puts 2 spaces around a CJK char
    text = "\u4f60" * 2000
    assert len(Sequence([spacer] * 10).normalize_str(text)) == 2000 * 21
    with pytest.raises(TokenizeError, match=r"^the normalizer BertNormalizer\("):
        Sequence([spacer] * 100).normalize(text)


@pytest.mark.parametrize("normalizer, text", [
    (NFKD(), "\ufdfa" * 1000),  # the longest NFKD expansion: 18 characters
    (NFKC(), "\u3316\ufdfa" * 500),
    (Lowercase(), "\u0130" * 1000),
    (BertNormalizer(flavor="huggingface"), "\u4f60" * 1000),
    (Sequence([NFKD(), BertNormalizer(), Prepend("\u2581")]), "\ufb03\u4f60" * 500),
], ids=["nfkd", "nfkc", "lowercase", "bert-cjk", "sequence"])
def test_real_normalizers_stay_far_under_the_cap(normalizer, text):
    """The largest real expansions are a few times the text: never near 64 x."""
    out = normalizer.normalize(text)
    assert len(out.normalized) < 20 * len(text)
