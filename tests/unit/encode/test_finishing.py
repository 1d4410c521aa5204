"""Truncate, add special tokens and pad: the Finisher against HF on inputs of known length."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.encode.finishing import Finisher, check_stride, pad_batch, pad_batch_ids
from wordpieces.encoding.encoding import Encoding
from wordpieces.encoding.padding import PaddingParams, TruncationParams
from wordpieces.errors import TokenizeError
from wordpieces.pipeline.processors import TemplateProcessing

hf = pytest.importorskip("tokenizers")

SPECIALS = {"[CLS]": 3, "[SEP]": 4}
SINGLE, PAIR = "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"
FIELDS = ("ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask")


@pytest.fixture(scope="module")
def word_level():
    from tokenizers import models, pre_tokenizers, processors
    tok = hf.Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1, "b": 2, "[CLS]": 3, "[SEP]": 4,
                                         "[PAD]": 5}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single=SINGLE, pair=PAIR, special_tokens=list(SPECIALS.items()))
    return tok


def words(letter: str, n: int, type_id: int) -> Encoding:
    """The encoding of ``n`` one-letter words, as the word encoder gives it."""
    return Encoding.build([1 if letter == "a" else 2] * n, [letter] * n,
                          [(2 * i, 2 * i + 1) for i in range(n)], list(range(n)), type_id)


def fields(enc) -> dict:
    return {f: list(getattr(enc, f)) for f in FIELDS}


@settings(max_examples=300, deadline=None)
@given(n1=st.integers(0, 12), n2=st.one_of(st.none(), st.integers(0, 12)),
       max_length=st.integers(6, 20), stride=st.integers(0, 2),
       strategy=st.sampled_from(["longest_first", "only_first", "only_second"]),
       direction=st.sampled_from(["right", "left"]), pad_to=st.one_of(st.none(), st.just(24)))
def test_encoding_matches_hf(word_level, n1, n2, max_length, stride, strategy, direction,
                             pad_to):
    """Windows, special tokens, type ids, masks and padding equal HF's, errors included.

    Strides stay below what HF's ``enable_truncation`` accepts for a pair (it refuses a
    longer one when set; the Finisher refuses it per sequence, tested below).
    """
    word_level.enable_truncation(max_length, stride=stride, strategy=strategy,
                                 direction=direction)
    if pad_to is None:
        word_level.no_padding()
    else:
        word_level.enable_padding(pad_id=5, length=pad_to)
    texts = ["a " * n1] + ([] if n2 is None else ["b " * n2])
    try:
        expected = word_level.encode(*texts)
    except BaseException as error:  # HF raises, or panics (a BaseException), on a bad stride
        if isinstance(error, KeyboardInterrupt):
            raise
        expected = None
    finisher = Finisher(TemplateProcessing(SINGLE, PAIR, special_tokens=SPECIALS), True,
                        TruncationParams(max_length, stride, strategy, direction),
                        None if pad_to is None else PaddingParams(pad_id=5, length=pad_to))
    pair = None if n2 is None else words("b", n2, 1)
    if expected is None:
        with pytest.raises((TokenizeError, ValueError)):
            finisher.encoding(words("a", n1, 0), pair)
        return
    got = finisher.encoding(words("a", n1, 0), pair)
    assert fields(got) == fields(expected)
    assert [fields(o) for o in got.overflowing] == [fields(o) for o in expected.overflowing]


@settings(max_examples=200, deadline=None)
@given(n1=st.integers(0, 12), n2=st.one_of(st.none(), st.integers(0, 12)),
       max_length=st.integers(4, 20), add_special_tokens=st.booleans(),
       strategy=st.sampled_from(["longest_first", "only_first", "only_second"]))
def test_ids_cut_where_the_encoding_is_cut(n1, n2, max_length, add_special_tokens, strategy):
    """The ids-only path gives the first window of the full path, special tokens included."""
    finisher = Finisher(TemplateProcessing(SINGLE, PAIR, special_tokens=SPECIALS),
                        add_special_tokens, TruncationParams(max_length, strategy=strategy),
                        None)
    pair = None if n2 is None else words("b", n2, 1)
    try:
        full = finisher.encoding(words("a", n1, 0), pair).ids
    except (TokenizeError, ValueError) as error:
        with pytest.raises(type(error)):
            finisher.ids([1] * n1, None if n2 is None else [2] * n2)
        return
    assert finisher.ids([1] * n1, None if n2 is None else [2] * n2) == full


def test_without_post_processor_a_pair_is_joined_as_it_is():
    """No post-processor: the pair follows the first sequence, its type ids kept."""
    out = Finisher(None, True, None, None).encoding(words("a", 2, 0), words("b", 1, 1))
    assert out.ids == [1, 1, 2]
    assert out.type_ids == [0, 0, 1]
    assert out.sequence_ranges == {0: (0, 2), 1: (2, 3)}


def test_stride_that_cannot_advance_is_refused():
    """A stride as long as the kept tokens would repeat the same window forever."""
    with pytest.raises(TokenizeError, match="stride 3 must be smaller than the 3 tokens"):
        check_stride(10, 3, 3)
    check_stride(3, 3, 3)  # nothing is cut: no window to move


def test_pad_batch_pads_to_the_longest():
    """Batch padding brings every encoding to the longest one's length."""
    batch = [words("a", 1, 0), words("a", 3, 0)]
    pad_batch(batch, PaddingParams(pad_id=5))
    assert [e.ids for e in batch] == [[1, 5, 5], [1, 1, 1]]
    assert [e.attention_mask for e in batch] == [[1, 0, 0], [1, 1, 1]]


def test_pad_batch_ids_pads_left_to_a_multiple():
    """Ids-only padding follows direction and pad_to_multiple_of."""
    out = pad_batch_ids([[1], [1, 1, 1]], PaddingParams(direction="left", pad_id=5,
                                                          pad_to_multiple_of=4))
    assert out == [[5, 5, 5, 1], [5, 1, 1, 1]]
