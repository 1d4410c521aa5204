"""Decoders: HF's WordPiece decoder (per-token cleanup), TF's detokenize, the book's join."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hf_reference import minilm_pair, sample_lines
from wordpieces.pipeline.decoders import WordPieceDecoder, detokenize, join_words

hf_decoders = pytest.importorskip("tokenizers.decoders")

_tokens = st.lists(st.one_of(
    st.sampled_from([".", "?", "!", ",", "'", "n't", "'m", "do not", "'s", "'ve", "'re", "##s",
                     "##", "do", "not", " ' ", "a . b", "[UNK]", "##ing", "x"]),
    st.text(max_size=4)), max_size=12)


def test_hf_documented_example():
    """HF's own test: I 'm Jo ##hn -> "I'm John"."""
    assert WordPieceDecoder().decode(["I", "'m", "Jo", "##hn"]) == "I'm John"


@settings(max_examples=300, deadline=None)
@given(tokens=_tokens, cleanup=st.booleans(), prefix=st.sampled_from(["##", "@@", "##x"]))
def test_wordpiece_decoder_matches_hf(tokens, cleanup, prefix):
    """Any token list decodes exactly as HF's decoders.WordPiece."""
    theirs = hf_decoders.WordPiece(prefix=prefix, cleanup=cleanup).decode(tokens)
    assert WordPieceDecoder(prefix, cleanup).decode(tokens) == theirs


@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", ["english", "portuguese"])
def test_corpus_round_trip_matches_hf(corpus):
    """Tokens of real lines decode to HF's text."""
    _, theirs = minilm_pair()
    theirs.no_padding()
    for line in sample_lines(corpus, 80, seed=4):
        tokens = theirs.encode(line, add_special_tokens=False).tokens
        assert WordPieceDecoder().decode(tokens) == hf_decoders.WordPiece().decode(tokens)


def test_detokenize_tutorial():
    """The TF tutorial: reserved tokens dropped but [UNK], pieces glued, words spaced."""
    reserved = ["[PAD]", "[UNK]", "[START]", "[END]"]
    tokens = "[START] hello tens ##or ##f ##low ! [UNK] [PAD] [END]".split()
    assert detokenize(tokens, reserved_tokens=reserved) == "hello tensorflow ! [UNK]"


def test_detokenize_keeps_a_leading_piece():
    """A sequence starting with a ## piece keeps it (nothing to glue it to)."""
    assert detokenize(["##or", "##f", "x"]) == "##orf x"


def test_join_words_removes_space_before_punctuation():
    """The book's decoder: no space before , . ? ! " ( ) '."""
    assert join_words(["Hello", ",", "world", "!", '"', "Yes", '"', "(", "ok", ")", "."]) == \
        'Hello, world!" Yes"( ok).'
