"""Vocab and vocab.txt parsing."""

import re

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


# ---------------------------------------------------------------- as the references read it


def _hf_ids(path) -> dict[str, int]:
    """What Hugging Face's WordPiece.read_file makes of a vocab.txt."""
    hf_models = pytest.importorskip("tokenizers.models")
    return hf_models.WordPiece.read_file(str(path))


@pytest.mark.parametrize("content", [
    b"[UNK]\nhello \nworld\t\n", b"[UNK]\nab\r\ncd\r\n", b"\xef\xbb\xbf[UNK]\nx\n",
    b"[UNK]\n  lead\nx\n", b"[UNK]\nx\xc2\xa0\ny\xe3\x80\x80\n", b"[UNK]\nx\n\n",
    b"[UNK]\na\x1cb\x1c\n"],
    ids=["trailing-space-tab", "crlf", "bom", "leading-space", "nbsp-ideographic",
         "trailing-blank-line", "info-separator"])
def test_tokens_and_ids_are_hugging_faces(tmp_path, content):
    """Trailing whitespace trimmed, a BOM kept, a blank last line the empty token: as HF."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(content)
    assert Vocab.from_file(path).as_dict() == _hf_ids(path)


def test_trailing_blank_line_is_the_empty_last_token(tmp_path):
    """BERT, HF and transformers all read it as '' at the last id: the ids stay theirs."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\nx\n\n")
    assert Vocab.from_file(path).tokens == ["[UNK]", "x", ""]


def test_two_trailing_blank_lines_are_an_empty_line_inside(tmp_path):
    """Only the very last line may be blank: HF would give two ids to one token."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\nx\n\n\n")
    with pytest.raises(VocabError, match=r":3: empty line inside"):
        Vocab.from_file(path)


def test_tokens_equal_after_trimming_are_duplicates(tmp_path):
    """'hello' and 'hello ' are one token once trimmed: refused, both lines named."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"[UNK]\nhello\nhello \n")
    with pytest.raises(VocabError, match=r":3: duplicate token 'hello' \(first seen on line 2\)"):
        Vocab.from_file(path)


@pytest.mark.parametrize("token, problem", [
    ("a\nb", "it holds a line break"), ("ab\r", "it holds a line break"),
    ("a\rb", "it holds a line break"), ("hello ", "strip whitespace"),
    (" hello", "strip whitespace"), ("x\u3000", "strip whitespace"),
    ("\x1c ", "strip whitespace"),  # Python's isspace, not HF's, says "whitespace only"
    ("", "an empty token would be an empty line inside")], ids=repr)
def test_save_refuses_a_token_vocab_txt_cannot_hold(tmp_path, token, problem):
    """Refused before writing, naming the token and its id: no file with shifted ids."""
    vocab = Vocab(["[UNK]", token, "z"])
    with pytest.raises(VocabError, match=rf"cannot write token {re.escape(repr(token))} "
                                         rf"\(id 1\) to vocab.txt: .*{problem}"):
        vocab.save(tmp_path / "v.txt")
    assert not (tmp_path / "v.txt").exists()


@pytest.mark.parametrize("tokens", [["\ufeff[UNK]", "a"], ["[UNK]", "a", ""],
                                    ["[UNK]", "a b", "a\x1cb", "é\u200b"]], ids=repr)
def test_odd_tokens_that_can_be_written_round_trip(tmp_path, tokens):
    """A BOM, an empty last token, inner spaces and separators reload as saved."""
    Vocab(tokens).save(tmp_path / "v.txt")
    assert Vocab.from_file(tmp_path / "v.txt").tokens == tokens


@pytest.mark.parametrize("token", ["\u2028", " ", "\u3000\u3000", "\x1c"], ids=repr)
def test_a_whitespace_only_token_is_kept_and_round_trips(tmp_path, token):
    """bert-base-chinese holds U+2028 at id 343: read as that token (as transformers)."""
    path = tmp_path / "vocab.txt"
    Vocab(["[UNK]", token, "x"]).save(path)
    assert Vocab.from_file(path).tokens == ["[UNK]", token, "x"]


def test_whitespace_only_line_is_read_as_transformers_reads_it(tmp_path):
    """The slow BertTokenizer's load_vocab keeps a line of whitespace only whole."""
    load_vocab = pytest.importorskip("transformers.models.bert.tokenization_bert").load_vocab
    path = tmp_path / "vocab.txt"
    path.write_bytes("[UNK]\n\u2028\n \nx\n".encode())
    assert Vocab.from_file(path).as_dict() == dict(load_vocab(str(path)))


def test_a_token_with_a_lone_surrogate_is_refused_where_the_vocab_is_made():
    """It would load, then fail save with UnicodeEncodeError."""
    with pytest.raises(VocabError, match=r"token '\\ud800b' \(id 2\) holds a lone surrogate"):
        Vocab(["[UNK]", "a", "\ud800b"])
    assert Vocab(["[UNK]", "\U0001f600"]).token(1) == "\U0001f600"
