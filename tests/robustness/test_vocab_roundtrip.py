"""Any tokenizer saved then loaded is equal and encodes identically, on both backends.

Vocabularies are drawn with every odd token hypothesis can make from a hostile alphabet
(line breaks, carriage returns, byte-order marks, spaces at either end, NUL, lone
surrogate-free astral characters, the empty token): each save either reloads as saved
or is refused at save time with a ``VocabError`` naming the token, before any file is
written (issue 14, "What to build" 3).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wordpieces as wp
from tests.robustness.helpers import BACKENDS, use_backend
from wordpieces import Tokenizer
from wordpieces.errors import VocabError

ODD = "ab#\n\r \t\ufeff\u3000\x00\x1c\u2028é日😀[]"
tokens = st.text(alphabet=ODD, max_size=5)
vocabularies = st.lists(tokens, min_size=1, max_size=12, unique=True).map(
    lambda ts: ["[UNK]", *[t for t in ts if t != "[UNK]"]])
texts = st.lists(st.text(alphabet=ODD, max_size=12), max_size=4)


def _encodings(tok: Tokenizer, batch: list[str]) -> list:
    return [(e.ids, e.offsets, e.tokens) for e in tok.encode_batch(batch)]


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vocab=vocabularies, batch=texts)
def test_saved_directory_reloads_equal_or_save_refuses(kind, monkeypatch, vocab, batch):
    """save(dir) then load(dir): the same tokenizer.json and the same encodings, or a refusal."""
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_vocab(vocab, lowercase=False, flavor="huggingface")
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "tok"
        try:
            tok.save(target)
        except VocabError as e:
            assert re.search(r"cannot write token .* \(id \d+\) to vocab\.txt", str(e))
            assert not target.exists() or not any(target.iterdir())
            return
        loaded = wp.load(target)
        assert loaded == tok
        assert loaded.to_str() == tok.to_str()
        assert Tokenizer.from_vocab(str(target / "vocab.txt"), lowercase=False,
                                    flavor="huggingface").get_vocab() \
            == tok.get_vocab()
        assert _encodings(loaded, batch) == _encodings(tok, batch)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vocab=vocabularies, batch=texts)
def test_tokenizer_json_alone_holds_every_token(kind, monkeypatch, vocab, batch):
    """tokenizer.json (JSON strings) holds any token: it always reloads as saved."""
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_vocab(vocab, lowercase=False, flavor="huggingface")
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "tokenizer.json"
        tok.save(target)
        loaded = wp.load(target)
    assert loaded == tok
    assert loaded.get_vocab() == tok.get_vocab()
    assert _encodings(loaded, batch) == _encodings(tok, batch)


@pytest.mark.parametrize("token", ["a\nb", "ab\r", "hello "], ids=repr)
def test_save_of_an_unwritable_token_writes_nothing(tmp_path, token):
    """The refusal comes before the first file: no tokenizer.json beside no vocab.txt."""
    tok = Tokenizer.from_vocab(["[UNK]", token, "z"], flavor="huggingface")
    with pytest.raises(VocabError, match=rf"cannot write token {re.escape(repr(token))} "
                                         r"\(id 1\)"):
        tok.save(tmp_path / "tok")
    assert not (tmp_path / "tok").exists() or list((tmp_path / "tok").iterdir()) == []


def test_a_byte_order_mark_token_reloads_as_saved(tmp_path):
    """A leading U+FEFF was stripped on reload (BERT, HF and transformers keep it)."""
    tok = Tokenizer.from_vocab(["\ufeffz", "[UNK]", "a"], flavor="huggingface")
    tok.save(tmp_path / "tok")
    assert Tokenizer.from_vocab(str(tmp_path / "tok" / "vocab.txt")).id_to_token(0) == "\ufeffz"
