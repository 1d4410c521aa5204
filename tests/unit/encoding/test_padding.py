"""Truncation lengths and padding targets, against HF on sequences of known length."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.encoding.padding import PaddingParams, TruncationParams, truncation_lengths
from wordpieces.errors import TokenizeError

hf = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def word_level():
    from tokenizers import models, pre_tokenizers, processors
    tok = hf.Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1, "b": 2, "[CLS]": 3, "[SEP]": 4},
                                        unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 3), ("[SEP]", 4)])
    return tok


@settings(max_examples=400, deadline=None)
@given(n1=st.integers(0, 30), n2=st.one_of(st.none(), st.integers(0, 30)),
       max_length=st.integers(3, 40),
       strategy=st.sampled_from(["longest_first", "only_first", "only_second"]))
def test_truncation_lengths_match_hf(word_level, n1, n2, max_length, strategy):
    """How many tokens of each sequence survive equals HF's, errors included."""
    word_level.enable_truncation(max_length, strategy=strategy)
    args = ["a " * n1] + ([] if n2 is None else ["b " * n2])
    try:
        enc = word_level.encode(*args)
        expected = (enc.ids.count(1), None if n2 is None else enc.ids.count(2))
    except Exception:
        expected = "error"
    added = 2 if n2 is None else 3
    try:
        got = truncation_lengths(n1, n2, TruncationParams(max_length, 0, strategy), added)
    except TokenizeError:
        got = "error"
    assert got == expected


def test_room_for_special_tokens_is_required():
    """max_length below the special-token count is an error (HF silently overflows)."""
    with pytest.raises(TokenizeError, match="no room"):
        truncation_lengths(5, None, TruncationParams(1), 2)


@pytest.mark.parametrize("params, lengths, target", [
    (PaddingParams(), [3, 7, 5], 7),
    (PaddingParams(pad_to_multiple_of=4), [3, 7, 5], 8),
    (PaddingParams(length=10), [3, 12], 10),
    (PaddingParams(length=10, pad_to_multiple_of=8), [3], 16),
    (PaddingParams(pad_to_multiple_of=0), [5], 5),
])
def test_padding_target_length(params, lengths, target):
    """Batch-longest or fixed length, rounded up to a multiple (HF's rule)."""
    assert params.target_length(lengths) == target


def test_hf_json_blocks():
    """The tokenizer.json blocks use HF's spellings."""
    assert TruncationParams(8, 2, "only_second", "left").to_json() == {
        "direction": "Left", "max_length": 8, "strategy": "OnlySecond", "stride": 2}
    assert PaddingParams(length=4).to_json()["strategy"] == {"Fixed": 4}
    assert PaddingParams().to_json()["strategy"] == "BatchLongest"
