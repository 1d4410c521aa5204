"""``wordpieces bundle`` and ``decode --keep-special``, driven in a subprocess.

A bundle made on the command line must load as the Python ``Bundle`` of the same
tokenizers (same ids per member); decode's dropping of ``[UNK]`` must be undoable and said.
"""

from __future__ import annotations

import pytest

import wordpieces as wp
from tests.cli.test_cli import fails, ok, run

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "play", "##ing", "!"]
PT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "ola", "mundo", "jog", "##ar"]


@pytest.fixture
def saved(tmp_path):
    """Two saved tokenizers and a vocab.txt, as a user would have them."""
    wp.Tokenizer.from_vocab(VOCAB, flavor="huggingface").save(tmp_path / "en")
    (tmp_path / "pt.txt").write_text("\n".join(PT_VOCAB) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("output", ["converter.zip", "converter"])
def test_bundle_loads_with_the_members_ids(saved, output):
    """Each member of the written bundle gives the ids its source tokenizer gives."""
    target = saved / output
    out = ok("bundle", f"en={saved / 'en'}", f"pt={saved / 'pt.txt'}", "-o", target).out
    assert "en, pt" in out
    bundle = wp.load(target)
    assert bundle.names == ["en", "pt"]
    assert bundle.en.encode("hello playing!").ids == \
        wp.load(saved / "en").encode("hello playing!").ids == [2, 5, 7, 8, 9, 3]
    assert bundle.pt.encode("Olá jogar").ids == [2, 5, 7, 8, 3]
    encoded = ok("encode", "-t", target, "--member", "pt", stdin="olá mundo\n").out
    assert encoded.split() == ["2", "5", "6", "3"]  # special tokens by default, as in Python


def test_bundle_refuses_bad_members_naming_them(saved):
    """A name twice, a missing '=', a bundle as a member, a bad name: one clear line each."""
    en = f"en={saved / 'en'}"
    assert "member 'en' given twice" in fails("bundle", en, en, "-o", saved / "b.zip")
    assert "is not NAME=TOKENIZER" in fails("bundle", str(saved / "en"), "-o", saved / "b.zip")
    ok("bundle", en, "-o", saved / "b.zip")
    assert "is itself a bundle" in fails("bundle", f"x={saved / 'b.zip'}", "-o", saved / "c.zip")
    assert "bad member name 'e n'" in fails("bundle", f"e n={saved / 'en'}", "-o",
                                              saved / "c.zip")
    assert not (saved / "c.zip").exists()


def test_decode_keep_special_round_trips_unknown_words(saved):
    """--keep-special keeps [UNK] (and [CLS]/[SEP]); the default drops them and says how many.

    In the huggingface flavor literal special tokens are matched whole, so what
    --keep-special decodes encodes back to the same ids.
    """
    ids = "2 5 1 6 3\n"  # [CLS] hello [UNK] world [SEP]
    tok = str(saved / "en")
    assert ok("decode", "-t", tok, stdin=ids).out == "hello world\n"
    kept = ok("decode", "-t", tok, "--keep-special", stdin=ids).out
    assert kept == "[CLS] hello [UNK] world [SEP]\n"
    again = ok("encode", "-t", tok, "--no-add-special-tokens", stdin=kept).out
    assert again.split() == ids.split()
    said = run("decode", "-t", tok, "--progress", "bar", stdin=ids).err
    assert "1 unknown tokens left out (--keep-special keeps them)" in said
    quiet = run("decode", "-t", tok, "--keep-special", "--progress", "bar", stdin=ids).err
    assert "unknown tokens left out" not in quiet
