"""``encode`` adds the special tokens by default, as ``Tokenizer.encode`` does."""

from __future__ import annotations

import pytest

from wordpieces.cli import main
from wordpieces.tokenizer import Tokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "##s", "!"]
LINES = ["hello worlds!", "world hello"]


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    src = tmp_path / "in.txt"
    src.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path, src


def cli_ids(capsys, *args) -> list[list[int]]:
    assert main(["encode", "-q", *map(str, args)]) == 0
    return [[int(i) for i in line.split()] for line in capsys.readouterr().out.splitlines()]


def test_default_and_flags_match_python(saved, capsys):
    """No flag: Python's default (special tokens on); each flag: Python's keyword."""
    vocab, src = saved
    tok = Tokenizer.from_vocab(str(vocab))
    with_specials = [tok.encode(line).ids for line in LINES]
    bare = [tok.encode(line, add_special_tokens=False).ids for line in LINES]
    assert with_specials[0] == [2, 4, 5, 6, 7, 3] and bare[0] == [4, 5, 6, 7]
    assert cli_ids(capsys, "-t", vocab, src) == with_specials
    assert cli_ids(capsys, "-t", vocab, src, "--add-special-tokens") == with_specials
    assert cli_ids(capsys, "-t", vocab, src, "--no-add-special-tokens") == bare
