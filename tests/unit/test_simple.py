"""SimpleTokenizer and RegexTokenizer: the issue's examples and the book's published outputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.shared_data import shared_path
from wordpieces.errors import TokenizeError, VocabError
from wordpieces.simple import RegexTokenizer, SimpleTokenizer, split_pieces

CORPUS = ["The cat sat on the mat", "The dog sat on the log"]


def test_simple_tokenizer_issue_example():
    """vocab_size 11; 'The bird sat on the log' -> [10, 1, 9, 8, 10, 6] -> back with <UNK>."""
    tok = SimpleTokenizer().build_vocab(CORPUS)
    assert tok.vocab_size == 11
    assert tok.encode("The bird sat on the log") == [10, 1, 9, 8, 10, 6]
    assert tok.decode([10, 1, 9, 8, 10, 6]) == "the <UNK> sat on the log"


def test_simple_tokenizer_special_ids():
    """<PAD>=0 <UNK>=1 <BOS>=2 <EOS>=3, words sorted from 4."""
    tok = SimpleTokenizer().build_vocab(CORPUS)
    assert [tok.word_to_id[t] for t in (tok.pad_token, tok.unk_token, tok.bos_token,
                                        tok.eos_token)] == [0, 1, 2, 3]
    assert [tok.id_to_word[i] for i in range(4, 11)] == sorted(
        {"cat", "dog", "log", "mat", "on", "sat", "the"})
    assert tok.encode("the cat", add_bos=True, add_eos=True) == [2, 10, 4, 3]


def test_special_strings_in_the_corpus_are_not_added_twice():
    """<EOS> met in the text is the special token, not a new word."""
    tok = SimpleTokenizer().build_vocab(["a b <EOS>", "<PAD> c <UNK>"])
    assert tok.vocab_size == 4 + 3
    assert tok.encode("a <EOS>") == [4, 3]


def test_simple_decode_unknown_id_is_reported():
    """An id outside the vocabulary names the id and its position."""
    with pytest.raises(TokenizeError, match="id 99 at position 1"):
        SimpleTokenizer().build_vocab(CORPUS).decode([4, 99])


@given(st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "dog", "log"]), max_size=10))
def test_simple_round_trip(words):
    """Known lowercase words decode back to the same text."""
    tok = SimpleTokenizer().build_vocab(CORPUS)
    text = " ".join(words)
    assert tok.decode(tok.encode(text)) == text


def test_regex_tokenizer_issue_example():
    """vocab the=0 cat=1 sat=2 .=3: 'the cat sat.' <-> [0, 1, 2, 3]."""
    tok = RegexTokenizer({"the": 0, "cat": 1, "sat": 2, ".": 3})
    assert tok.encode("the cat sat.") == [0, 1, 2, 3]
    assert tok.decode([0, 1, 2, 3]) == "the cat sat."
    assert tok.int_to_str[3] == "." and tok.str_to_int["sat"] == 2


def test_regex_tokenizer_unknown_piece_error_and_unk():
    """'The' is unknown: an error naming it and where, unless unk_token is given."""
    with pytest.raises(TokenizeError, match=r"'The' \(piece 0, at character 0\)"):
        RegexTokenizer({"the": 0, "cat": 1, "sat": 2, ".": 3}).encode("The cat sat.")
    tok = RegexTokenizer({"the": 0, "cat": 1, "sat": 2, ".": 3, "<unk>": 4}, unk_token="<unk>")
    assert tok.encode("The cat sat.") == [4, 1, 2, 3]
    with pytest.raises(VocabError):
        RegexTokenizer({"a": 0}, unk_token="<unk>")


def test_split_keeps_delimiters_and_positions():
    """The book's split keeps punctuation and '--', drops blanks, and knows positions."""
    assert split_pieces("Hello, world. Is this-- a test?") == [
        ("Hello", 0), (",", 5), ("world", 7), (".", 12), ("Is", 14), ("this", 17),
        ("--", 21), ("a", 24), ("test", 26), ("?", 30)]


@pytest.mark.shared_data
def test_book_vocabulary_and_published_ids():
    """On 'The Verdict' the book reports 1130 tokens and these ids (ch. 2, SimpleTokenizerV1)."""
    text = shared_path("corpora", "english", "the-verdict.txt").read_text(encoding="utf-8")
    tok = RegexTokenizer.from_texts(text)
    assert tok.vocab_size == 1130
    sample = '"It\'s the last he painted, you know," Mrs. Gisburn said with pardonable pride.'
    ids = tok.encode(sample)
    assert ids == [1, 56, 2, 850, 988, 602, 533, 746, 5, 1126, 596, 5, 1, 67, 7, 38, 851,
                   1108, 754, 793, 7]
    assert tok.decode(ids) == ('" It\' s the last he painted, you know," Mrs. Gisburn said '
                               'with pardonable pride.')


@pytest.mark.shared_data
def test_book_version_two_with_special_tokens():
    """With <|endoftext|> and <|unk|> appended: 1132 tokens and the book's ids (V2)."""
    text = shared_path("corpora", "english", "the-verdict.txt").read_text(encoding="utf-8")
    tok = RegexTokenizer.from_texts(text, special_tokens=["<|endoftext|>", "<|unk|>"],
                                    unk_token="<|unk|>")
    assert tok.vocab_size == 1132
    sample = "Hello, do you like tea? <|endoftext|> In the sunlit terraces of the palace."
    ids = tok.encode(sample)
    assert ids == [1131, 5, 355, 1126, 628, 975, 10, 1130, 55, 988, 956, 984, 722, 988,
                   1131, 7]
    assert tok.decode(ids) == ("<|unk|>, do you like tea? <|endoftext|> In the sunlit "
                               "terraces of the <|unk|>.")
