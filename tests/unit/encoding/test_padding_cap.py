"""Padding is bounded per batch (rows x padded length), and truncation fits its multiple."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.robustness.helpers import BACKENDS, VOCAB, use_backend
from wordpieces.encode.finishing import window_count
from wordpieces.encoding.encoding import Encoding
from wordpieces.encoding.padding import (
    MAX_PADDED_BATCH,
    PaddingParams,
    TruncationParams,
    check_multiple_fits,
    check_padded_batch,
)
from wordpieces.errors import TokenizeError
from wordpieces.tokenizer import Tokenizer


def test_a_batch_at_the_cap_passes_and_one_token_more_is_refused():
    """16 rows of 1,048,576 is the cap; a row more is refused, in words."""
    assert MAX_PADDED_BATCH == 16 * (1 << 20)
    check_padded_batch(16, 1 << 20)
    with pytest.raises(TokenizeError, match=r"^padding 17 rows to 1,048,576 tokens makes "
                                            r"17,825,792 tokens, over the cap of 16,777,216 "
                                            r"for one batch \(rows x padded length\): encode "
                                            r"in smaller batches, or pad to a shorter length$"):
        check_padded_batch(17, 1 << 20)


def test_one_row_is_bounded_by_the_per_sequence_cap_only():
    """A single row is never refused here (its own length is the text's)."""
    check_padded_batch(1, MAX_PADDED_BATCH * 4)


@pytest.mark.parametrize("params, least", [
    (PaddingParams(), 1), (PaddingParams(length=100), 100),
    (PaddingParams(length=100, pad_to_multiple_of=64), 128),
    (PaddingParams(pad_to_multiple_of=1 << 20), 1 << 20)])
def test_check_rows_knows_the_least_every_row_is_padded_to(params, least):
    """Before encoding: each row is padded to at least the fixed length or the multiple."""
    params.check_rows(MAX_PADDED_BATCH // least)
    with pytest.raises(TokenizeError, match="over the cap"):
        params.check_rows(MAX_PADDED_BATCH // least + 1)


def test_padded_bound_rounds_the_longest_up():
    """The padded length of rows of at most n tokens: the fixed length or n, to the multiple."""
    assert PaddingParams().padded_bound(10) == 10
    assert PaddingParams(length=30).padded_bound(10) == 30
    assert PaddingParams(length=30, pad_to_multiple_of=8).padded_bound(40) == 40
    assert PaddingParams(pad_to_multiple_of=8).padded_bound(41) == 48


def test_batch_length_refuses_the_longest_times_rows_over_the_cap():
    """Padding to the longest: one long row among many short ones is what counts."""
    params = PaddingParams()
    assert params.batch_length([3, 5, 1]) == 5
    with pytest.raises(TokenizeError, match="padding 1,001 rows to 20,000 tokens"):
        params.batch_length([20_000] + [1] * 1000)


def test_truncation_must_be_a_multiple_of_pad_to_multiple_of():
    """transformers' rule: max_length 12 with a multiple of 8 would give 16 ids."""
    with pytest.raises(ValueError, match=r"^Truncation and padding are both activated but "
                                         r"truncation length \(12\) is not a multiple of "
                                         r"pad_to_multiple_of \(8\)\.$"):
        check_multiple_fits(PaddingParams(pad_to_multiple_of=8), TruncationParams(12))
    check_multiple_fits(PaddingParams(pad_to_multiple_of=8), TruncationParams(16))
    check_multiple_fits(PaddingParams(pad_to_multiple_of=8), None)
    check_multiple_fits(None, TruncationParams(12))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tensors", [None, "np"])
def test_the_call_refuses_a_truncation_its_padding_would_pass(backend, tensors, monkeypatch):
    """tok(..., truncation, max_length=12, pad_to_multiple_of=8): ValueError, not 16 ids."""
    use_backend(backend, monkeypatch)
    tok = Tokenizer.from_vocab(VOCAB)
    with pytest.raises(ValueError, match=r"truncation length \(12\) is not a multiple"):
        tok(["hello " * 30], padding=True, truncation=True, max_length=12,
            pad_to_multiple_of=8, return_tensors=tensors)
    out = tok(["hello " * 30], padding=True, truncation=True, max_length=16,
              pad_to_multiple_of=8, return_tensors=tensors)
    assert len(out["input_ids"][0]) == 16


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 40), max_length=st.integers(0, 12), stride=st.integers(0, 11),
       direction=st.sampled_from(["right", "left"]))
def test_window_count_is_the_rows_truncation_makes(n, max_length, stride, direction):
    """The kept part plus its overflowing windows, counted without making them."""
    assume(stride < max_length or max_length >= n)
    enc = Encoding.build(list(range(n)), ["x"] * n, [(0, 1)] * n, list(range(n)), 0)
    enc.truncate(max_length, stride, direction)
    assert window_count(n, max_length, stride) == 1 + len(enc.overflowing)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_padded_windows_of_one_input_count_as_rows(backend, monkeypatch):
    """A 100-word text cut into windows of 4, each padded to 1,048,576: refused at once."""
    use_backend(backend, monkeypatch)
    tok = Tokenizer.from_vocab(VOCAB)
    tok.enable_truncation(4, stride=1)
    tok.enable_padding(length=1 << 20)
    with pytest.raises(TokenizeError, match=r"^padding 99 rows to 1,048,576 tokens"):
        tok.encode("hello " * 100)
    with pytest.raises(TokenizeError, match=r"^padding 99 rows to 1,048,576 tokens"):
        tok.encode_batch(["hello " * 100])
    tok.enable_truncation(7)  # a pair: 2 tokens of each side (3 special tokens)
    tok.enable_padding(length=16)
    pair = tok.encode("hello " * 10, "world " * 10)  # each side's windows with the other's
    assert 1 + len(pair.overflowing) == window_count(10, 2, 0) ** 2 == 25
    assert {len(o) for o in pair.overflowing} == {16}


@pytest.mark.parametrize("direction", ["right", "left"])
def test_native_lists_padded_after_the_c_code_equal_the_reference(direction, monkeypatch):
    """Texts too long to bound the batch in advance: the native lists come back unpadded
    from C and are padded once their longest is known, as the pure-Python path pads them."""
    texts = ["hello " * 80_000, "hello world", ""]  # 480k characters: no bound under the cap
    results = []
    for backend in BACKENDS:
        use_backend(backend, monkeypatch)
        tok = Tokenizer.from_vocab(VOCAB)
        tok.enable_padding(direction=direction, pad_id=4, pad_to_multiple_of=7)
        results.append(tok.encode_batch_ids(texts))
    assert results[0] == results[1]
    assert {len(row) for row in results[0]} == {80_003}
