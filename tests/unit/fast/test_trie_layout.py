"""The C LinMaxMatch trie (4-byte double-array units) matches every token whole.

The native trie checks a transition by the child's label alone (each node owns its
base), keeps the token flag in the unit and the ids in a side array
(``_native/core/wp_trie.h``). These tests drive the C encoder through a character table
where every character but " " is a word character that normalizes to itself, so what is
checked is the trie walk alone: every token of the real BERT vocabularies comes back as
itself, and random vocabularies over multi-byte alphabets split as the Python
reference's greedy longest-match-first (``pipeline.models.WordPiece``).
Not handled here: normalization and word splitting (``test_word_encoder.py``,
``tests/differential/test_native.py``).
"""

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import shared_path
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.pre_tokenizers import SPACE, WORD
from wordpieces.vocab import Vocab

# the module (wordpieces/__init__.py exports a function of the same name)
backend = importlib.import_module("wordpieces.fast.backend")
needs_native = pytest.mark.skipif(backend._core is None, reason="native extension not built")

VOCAB_FILES = ["bert-base-uncased.vocab.txt", "bert-base-cased.vocab.txt",
               "bert-base-multilingual-cased.vocab.txt", "bert-base-chinese.vocab.txt"]


def identity_lookup(cp: int) -> tuple[str, bytes]:
    """Every character a word character that stays itself; " " separates words."""
    if cp == 0x20:
        return SPACE, b""
    return WORD, chr(cp).encode("utf-8", "surrogatepass")


def never_called(text: str, offsets: bool):
    raise AssertionError(f"the identity table sent {text!r} to the Python path")


def raw_encoder(tokens: list[str], prefix: str = "##"):
    """The C encoder of these tokens (ids by position), on the identity table."""
    return backend._core.Encoder([t.encode("utf-8", "surrogatepass") for t in tokens],
                                 prefix.encode(), 0, 10_000, -1, identity_lookup, never_called)


def first_ids(tokens: list[str]) -> dict[str, int]:
    """Each token's id: its first position (the trie keeps the first of duplicates)."""
    ids: dict[str, int] = {}
    for i, token in enumerate(tokens):
        ids.setdefault(token, i)
    return ids


def leaf_token(tokens: list[str]) -> str:
    """A token that starts no longer token: a word made of it and more splits after it."""
    ordered = sorted(set(tokens))
    for here, after in zip(ordered, ordered[1:], strict=False):
        if not after.startswith(here) and " " not in here and not here.startswith("##"):
            return here
    raise AssertionError("no leaf token")


@pytest.fixture(scope="module", params=VOCAB_FILES)
def vocab_tokens(request) -> list[str]:
    return list(Vocab.from_file(shared_path("vocab", request.param)).tokens)


@needs_native
@pytest.mark.shared_data
def test_every_token_matches_whole(vocab_tokens):
    """Each token of a real vocabulary, as a word, is that one token (first piece)."""
    words = [t for t in vocab_tokens if t and " " not in t]
    ids = first_ids(vocab_tokens)
    encoder = raw_encoder(vocab_tokens)
    assert encoder.encode_ids(" ".join(words)) == [ids[w] for w in words]


@needs_native
@pytest.mark.shared_data
def test_every_continuation_matches_whole(vocab_tokens):
    """Each "##" token follows a leaf token whole: word = leaf + rest gives both."""
    ids = first_ids(vocab_tokens)
    leaf = leaf_token(vocab_tokens)
    rests = [t[2:] for t in vocab_tokens if t.startswith("##") and len(t) > 2 and " " not in t]
    encoder = raw_encoder(vocab_tokens)
    expected = [i for rest in rests for i in (ids[leaf], ids["##" + rest])]
    assert encoder.encode_ids(" ".join(leaf + rest for rest in rests)) == expected


# bytes of every UTF-8 length, labels near 0x00/0x7f/0x80/0xff, shared lead bytes
ALPHABET = "ab~\x00\x01\x7fé\u00ff\u0100\u07ff\u0800中丰\uffff\U0001f600\U0010ffff"
PIECE = st.text(ALPHABET, min_size=1, max_size=5)


@needs_native
@settings(max_examples=300, deadline=None)
@given(first=st.lists(PIECE, max_size=20), rest=st.lists(PIECE, max_size=20),
       words=st.lists(st.text(ALPHABET, min_size=1, max_size=24), min_size=1, max_size=6),
       prefix=st.sampled_from(["##", "", "\u00ff"]))
def test_random_vocabularies_split_as_the_reference(first, rest, words, prefix):
    """On random multi-byte vocabularies the C split equals models.WordPiece's."""
    tokens = list(dict.fromkeys(["[UNK]", *first, *(prefix + r for r in rest)]))
    model = WordPiece(tokens, continuing_subword_prefix=prefix, max_input_chars_per_word=10_000)
    expected = [id_ for word in words for id_, _, _ in model.pieces(word)]
    assert raw_encoder(tokens, prefix).encode_ids(" ".join(words)) == expected


@needs_native
def test_byte_zero_and_empty_slots_are_not_transitions():
    """A missing child is no transition even on byte 0 (an empty unit's label is 0)."""
    tokens = ["[UNK]", "a", "ab", "##\x00", "\x00", "b\x00c"]
    model = WordPiece(tokens, max_input_chars_per_word=100)
    words = ["a\x00", "ab\x00", "\x00a", "b\x00", "b\x00c", "a\x00\x00"]
    expected = [id_ for word in words for id_, _, _ in model.pieces(word)]
    assert expected == [1, 3, 2, 3, 0, 0, 5, 1, 3, 3]
    assert raw_encoder(tokens).encode_ids(" ".join(words)) == expected
