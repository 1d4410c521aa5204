"""Vocab and vocab.txt parsing."""

import pytest

from tests.shared_data import shared_path
from wordpieces.errors import VocabError
from wordpieces.vocab import Vocab


def test_ids_are_line_numbers(tmp_path):
    """The id of a token is its line number, from 0."""
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\nthe\n##s\n", encoding="utf-8")
    vocab = Vocab.from_file(path)
    assert vocab.tokens == ["[UNK]", "the", "##s"]
    assert vocab["##s"] == 2 and vocab.token(1) == "the"


@pytest.mark.shared_data
def test_real_bert_vocab_matches_line_count():
    """The uncased BERT vocabulary loads with [UNK]=100 and 30522 tokens, as in BERT."""
    vocab = Vocab.from_file(shared_path("vocab", "bert-base-uncased.vocab.txt"))
    assert len(vocab) == 30522
    assert vocab["[UNK]"] == 100 and vocab["[CLS]"] == 101


def test_duplicate_token_names_both_lines(tmp_path):
    """A duplicated token is reported with the file and both line numbers."""
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\na\nb\na\n", encoding="utf-8")
    with pytest.raises(
        VocabError, match=r"vocab\.txt:4: duplicate token 'a' \(first seen on line 2\)"
    ):
        Vocab.from_file(path)


def test_empty_inner_line_is_rejected(tmp_path):
    """An empty line inside the file is an error naming its line."""
    path = tmp_path / "vocab.txt"
    path.write_text("[UNK]\n\nb\n", encoding="utf-8")
    with pytest.raises(VocabError, match=r":2: empty line"):
        Vocab.from_file(path)


def test_undecodable_bytes_are_rejected(tmp_path):
    """Bytes that are not UTF-8 are reported with their line."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\nok\n\xff\xfe\n")
    with pytest.raises(VocabError, match=r":3: not valid UTF-8"):
        Vocab.from_file(path)


def test_crlf_and_missing_final_newline_are_tolerated(tmp_path):
    """Windows line ends and a missing final newline do not change the tokens."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\r\nab\r\n##c")
    assert Vocab.from_file(path).tokens == ["[UNK]", "ab", "##c"]


def test_save_round_trips(tmp_path):
    """Saving then loading gives the same tokens in the same order."""
    vocab = Vocab(["[UNK]", "a", "##b", "日本"])
    vocab.save(tmp_path / "v.txt")
    assert Vocab.from_file(tmp_path / "v.txt") == vocab


def test_mapping_with_gaps_is_rejected():
    """A {token: id} mapping whose ids are not 0..n-1 is refused."""
    with pytest.raises(VocabError, match="bad id 5"):
        Vocab.from_mapping({"a": 0, "b": 5})
