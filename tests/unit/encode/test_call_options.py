"""The transformers-style call on a tiny vocabulary: word lists, tok.pad and the result's
helpers, and the errors that name what is wrong (no shared data needed; the comparisons
with transformers itself are in tests/differential/test_transformers.py)."""

from __future__ import annotations

import pytest

_TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "!"]


@pytest.fixture
def tiny():
    from wordpieces.tokenizer import Tokenizer
    return Tokenizer.from_vocab(_TINY, flavor="huggingface")


@pytest.mark.parametrize("text,message", [
    ("hello world", r"text must be a list of words \(str\)"),
    (["hello", 3], r"text\[1\] must be a str with is_split_into_words=True, got int"),
    ([["hello"], ["world", None]], r"text\[1\]\[1\] must be a str"),
])
def test_bad_word_lists_are_named(tiny, text, message):
    """is_split_into_words with something other than words names the bad item."""
    with pytest.raises(TypeError, match=message):
        tiny(text, is_split_into_words=True)


def test_words_keep_their_index_and_offsets(tiny):
    """Each word's tokens carry its index; offsets point into the word itself."""
    out = tiny(["Hello", "world!"], is_split_into_words=True, return_offsets_mapping=True)
    assert out.tokens() == ["[CLS]", "hello", "world", "!", "[SEP]"]
    assert out.word_ids() == [None, 0, 1, 1, None]
    assert out["offset_mapping"] == [(0, 0), (0, 5), (0, 5), (5, 6), (0, 0)]


def test_pad_needs_input_ids(tiny):
    with pytest.raises(ValueError, match=r"tok.pad needs 'input_ids' among the inputs, got "
                                         r"keys \['attention_mask'\]"):
        tiny.pad({"attention_mask": [[1]]})


def test_pad_refuses_other_types(tiny):
    with pytest.raises(TypeError, match="tok.pad takes a dict of model inputs"):
        tiny.pad("hello")


def test_pad_result_has_no_tokens(tiny):
    """tok.pad works on ids only: asking its result for tokens says why there are none."""
    out = tiny.pad({"input_ids": [[4], [4, 5]]})
    assert out["input_ids"] == [[4, 0], [4, 5]]
    with pytest.raises(ValueError, match="not made by encoding text"):
        out.tokens(0)


def test_ragged_rows_cannot_become_one_array(tiny):
    pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="cannot make one tensor of 'input_ids'.*padding=True"):
        tiny(["hello", "hello world"], return_tensors="np")


def test_truncation_without_any_length_warns_and_cuts_nothing(tiny):
    """No max_length, no model_max_length: a warning, and nothing cut (transformers goes
    on the same way; enable_truncation's length is not the call's, as there)."""
    tiny.enable_truncation(2)
    with pytest.warns(UserWarning, match="asked to truncate but no max_length"):
        assert tiny("hello world !", truncation=True)["input_ids"] == [2, 4, 5, 6, 3]
    with pytest.warns(UserWarning, match="nothing is padded"):
        assert tiny(["hello", "hello world"], padding="max_length")["input_ids"][0] == [2, 4, 3]
    with pytest.warns(UserWarning, match="nothing is padded"):
        assert tiny.pad({"input_ids": [[4], [4, 5]]}, padding="max_length")["input_ids"] == [
            [4], [4, 5]]
    tiny.model_max_length = 3
    assert tiny("hello world !", truncation=True)["input_ids"] == [2, 4, 3]
