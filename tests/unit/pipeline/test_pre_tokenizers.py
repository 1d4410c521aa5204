"""Pre-tokenizers split normalized text into words with original offsets."""

import pytest
import tokenizers
from hypothesis import given
from hypothesis import strategies as st

from wordpieces.pipeline.normalizers import NormalizedString
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer, Split, Whitespace, WhitespaceSplit


def test_hf_bert_pre_tokenizer_example():
    """HF's inline test: 'Hey friend!     How are you?!?' and its offsets."""
    words = BertPreTokenizer(flavor="huggingface").pre_tokenize_str(
        "Hey friend!     How are you?!?"
    )
    assert words == [
        ("Hey", (0, 3)),
        ("friend", (4, 10)),
        ("!", (10, 11)),
        ("How", (16, 19)),
        ("are", (20, 23)),
        ("you", (24, 27)),
        ("?", (27, 28)),
        ("!", (28, 29)),
        ("?", (29, 30)),
    ]


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (Whitespace(), tokenizers.pre_tokenizers.Whitespace()),
        (WhitespaceSplit(), tokenizers.pre_tokenizers.WhitespaceSplit()),
    ],
)
@pytest.mark.parametrize(
    "text", ["Hello,  world!! it's 3.5 km", "a\u00a0b\tc\u3000d", "naïve café's"]
)
def test_simple_pre_tokenizers_match_hf(ours, theirs, text):
    """Whitespace and WhitespaceSplit give HF's words and offsets."""
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


@pytest.mark.parametrize(
    "behavior", ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
)
@pytest.mark.parametrize("text", ["the cat--sat.", "--a--b----c--", "no delimiters"])
def test_split_behaviors_match_hf(behavior, text):
    """Split gives HF's pieces for every behavior."""
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex("-+|\\s|\\."), behavior)
    ours = Split("-+|\\s|\\.", behavior)
    assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text)


def test_split_invert_matches_hf():
    """invert=True splits on what does not match."""
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex("[a-z]+"), "isolated", invert=True)
    text = "ab12cd 3"
    assert Split("[a-z]+", "isolated", invert=True).pre_tokenize_str(
        text
    ) == theirs.pre_tokenize_str(text)


def test_bad_split_pattern_is_named():
    """A pattern that does not compile is reported with the pattern."""
    with pytest.raises(ValueError, match=r"bad split pattern '\('"):
        Split("(")


@given(st.text())
def test_bert_words_slice_original(text):
    """On unnormalized text, every word is exactly the slice its offsets point to."""
    ns = NormalizedString.identity(text)
    for word, (s, e) in BertPreTokenizer().pre_tokenize(ns):
        assert text[s:e] == word
