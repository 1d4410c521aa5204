"""Encoding: truncate / pad / merge and the alignment queries, against HF's Encoding."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hf_reference import fields, minilm_pair, sample_lines
from wordpieces.encoding.encoding import Encoding


@pytest.fixture(scope="module")
def pair():
    ours, theirs = minilm_pair()
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
    return ours, theirs


@pytest.fixture(scope="module")
def lines():
    return sample_lines("english", 40, seed=21)


def _both(pair, text, pair_text=None, special=True):
    ours, theirs = pair
    return (ours.encode(text, pair_text, add_special_tokens=special),
            theirs.encode(text, pair_text, add_special_tokens=special))


_ops = st.lists(st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 30), st.integers(0, 5),
              st.sampled_from(["right", "left"])),
    st.tuples(st.just("pad"), st.integers(0, 60), st.sampled_from(["right", "left"]),
              st.integers(0, 3))), max_size=3)


@pytest.mark.shared_data
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 39), ops=_ops, special=st.booleans(), with_pair=st.booleans())
def test_truncate_and_pad_match_hf(pair, lines, index, ops, special, with_pair):
    """Any sequence of truncate/pad calls leaves the same encoding as in HF."""
    ours, theirs = _both(pair, lines[index], lines[index - 1] if with_pair else None, special)
    for op in ops:
        if op[0] == "truncate":
            _, length, stride, direction = op
            if 0 < length <= stride:
                continue  # HF panics there; ours raises ValueError (tested below)
            ours.truncate(length, stride, direction)
            theirs.truncate(length, stride=stride, direction=direction)
        else:
            _, length, direction, pad_id = op
            ours.pad(length, direction=direction, pad_id=pad_id, pad_token="<p>")
            theirs.pad(length, direction=direction, pad_id=pad_id, pad_token="<p>")
    assert fields(ours) == fields(theirs)


@pytest.mark.shared_data
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=st.lists(st.integers(0, 39), min_size=1, max_size=3),
       cut=st.integers(4, 12), growing=st.booleans())
def test_merge_matches_hf(pair, lines, indices, cut, growing):
    """Encoding.merge (with overflowing windows) equals HF's Encoding.merge."""
    from tokenizers import Encoding as HFEncoding
    ours, theirs = [], []
    for i in indices:
        # Windows of every input combine with every other's: keep the inputs short.
        a, b = _both(pair, " ".join(lines[i].split()[:20]), special=False)
        a.truncate(cut, 0)
        b.truncate(cut)
        ours.append(a)
        theirs.append(b)
    assert (fields(Encoding.merge(ours, growing_offsets=growing))
            == fields(HFEncoding.merge(theirs, growing_offsets=growing)))


@pytest.mark.shared_data
def test_alignment_queries_match_hf(pair, lines):
    """char_to_token, token_to_chars, word_to_tokens … answer as HF on pairs."""
    for i in range(1, 20):
        ours, theirs = _both(pair, lines[i], lines[i - 1])
        for seq in (0, 1):
            for pos in range(0, 60, 3):
                assert ours.char_to_token(pos, seq) == theirs.char_to_token(pos, seq)
                assert ours.char_to_word(pos, seq) == theirs.char_to_word(pos, seq)
            for word in range(8):
                assert ours.word_to_tokens(word, seq) == theirs.word_to_tokens(word, seq)
                assert ours.word_to_chars(word, seq) == theirs.word_to_chars(word, seq)
        for token in range(len(ours) + 1):
            assert ours.token_to_chars(token) == theirs.token_to_chars(token)
            assert ours.token_to_word(token) == theirs.token_to_word(token)
            assert ours.token_to_sequence(token) == theirs.token_to_sequence(token)


def test_stride_not_below_length_is_an_error():
    """truncate with stride >= max_length raises ValueError (HF panics)."""
    enc = Encoding(ids=[1, 2, 3], tokens=["a", "b", "c"], offsets=[(0, 1)] * 3,
                   word_ids=[0, 1, 2])
    with pytest.raises(ValueError, match="stride"):
        enc.truncate(2, stride=2)


def test_copy_is_deep():
    """copy() shares no list with the original."""
    enc = Encoding(ids=[1], tokens=["a"], offsets=[(0, 1)], word_ids=[0],
                   overflowing=[Encoding(ids=[2], tokens=["b"], offsets=[(1, 2)], word_ids=[1])])
    clone = enc.copy()
    clone.pad(3)
    assert len(enc) == 1 and len(enc.overflowing[0]) == 1 and clone == clone.copy()
