"""wp.load takes what the CLI's -t takes (vocab.txt, saved directory, tokenizer.json,
bundle directory or zip, a directory transformers' save_pretrained wrote), and tokenizers
read from the same files compare (and hash) equal."""

from __future__ import annotations

import shutil
import warnings

import pytest

from tests.shared_data import shared_path
from wordpieces.errors import FormatError
from wordpieces.formats.bundle import Bundle
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer

TOY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "play", "##ing", "##er", "the", "a"]


@pytest.fixture
def toy() -> Tokenizer:
    return Tokenizer.from_vocab(TOY, flavor="huggingface")


@pytest.fixture
def vocab_txt(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("".join(t + "\n" for t in TOY), encoding="utf-8")
    return path


def test_vocab_txt_loads_as_from_vocab(vocab_txt):
    """A vocab.txt loads as Tokenizer.from_vocab(path) does, with the same defaults."""
    assert load(vocab_txt) == Tokenizer.from_vocab(vocab_txt)
    assert load(vocab_txt).flavor == "bert"


@pytest.mark.parametrize("suffix,opener", [(".gz", "gzip"), (".bz2", "bz2"), (".xz", "lzma")])
def test_compressed_vocab_txt(tmp_path, vocab_txt, suffix, opener):
    """A compressed vocab.txt loads as the plain one (as the CLI's -t reads it)."""
    import importlib

    path = tmp_path / f"vocab.txt{suffix}"
    with importlib.import_module(opener).open(path, "wb") as f:
        f.write(vocab_txt.read_bytes())
    assert load(path, flavor="huggingface") == Tokenizer.from_vocab(vocab_txt,
                                                                    flavor="huggingface")


def test_vocab_txt_through_a_pipe(vocab_txt):
    """A pipe (-t <(cat vocab.txt)) is told apart by its content and read once."""
    import os
    import threading

    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write_end, vocab_txt.read_bytes()),
                                              os.close(write_end)))
    writer.start()
    try:
        loaded = load(f"/dev/fd/{read_end}")
    finally:
        writer.join()
        os.close(read_end)
    assert loaded == Tokenizer.from_vocab(vocab_txt)


def test_vocab_txt_takes_the_from_vocab_options(vocab_txt):
    """Options (lowercase, flavor …) go to from_vocab, as the CLI's --lowercase, --flavor."""
    loaded = load(vocab_txt, flavor="huggingface", lowercase=False)
    assert loaded == Tokenizer.from_vocab(vocab_txt, flavor="huggingface", lowercase=False)
    assert loaded != load(vocab_txt)


def test_options_for_a_saved_tokenizer_are_refused(tmp_path, toy):
    """A saved tokenizer keeps its settings: vocab options name the path and the options."""
    toy.save(tmp_path / "tok")
    with pytest.raises(TypeError, match=r"tok: options lowercase apply to a vocab.txt only"):
        load(tmp_path / "tok", lowercase=False)


def test_saved_directory_and_its_tokenizer_json(tmp_path, toy):
    """A saved directory and the tokenizer.json in it load equal to what was saved."""
    toy.save(tmp_path / "tok")
    assert load(tmp_path / "tok") == toy
    assert load(tmp_path / "tok" / "tokenizer.json") == toy


def test_bundle_directory_and_zip(tmp_path, toy):
    """Bundles load as bundles whose members equal the saved ones."""
    Bundle(en=toy).save(tmp_path / "b")
    Bundle(en=toy).save(tmp_path / "b.zip")
    for path in (tmp_path / "b", tmp_path / "b.zip"):
        loaded = load(path)
        assert isinstance(loaded, Bundle) and loaded.en == toy


def test_directory_without_a_tokenizer_is_named(tmp_path):
    """An empty directory is a FormatError naming it and what was looked for."""
    with pytest.raises(FormatError, match=r"no tokenizer.json, bundle.json, or vocab.txt with "
                                          r"tokenizer_config.json"):
        load(tmp_path)


def test_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothere"):
        load(tmp_path / "nothere")


def test_vocab_txt_without_config_is_not_a_saved_directory(tmp_path, vocab_txt):
    """A directory holding only vocab.txt is refused (which options would apply is unknown)."""
    with pytest.raises(FormatError, match="no tokenizer.json"):
        load(vocab_txt.parent)


# ---------------------------------------------------------------- equality


@pytest.mark.shared_data
def test_two_tokenizers_from_the_same_file_are_equal():
    """The issue's case: built twice from one file, equal, with equal hashes."""
    path = shared_path("vocab", "bert-base-uncased.vocab.txt")
    a, b = Tokenizer.from_vocab(path), Tokenizer.from_vocab(path)
    assert a == b and hash(a) == hash(b)
    json_path = shared_path("vocab", "all-MiniLM-L6-v2.tokenizer.json")
    assert Tokenizer.from_file(json_path) == Tokenizer.from_file(json_path)


def test_where_it_was_read_from_does_not_matter(tmp_path, toy):
    """The same files in two directories load equal (the path is not configuration)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        toy.save(tmp_path / "one")
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    assert load(tmp_path / "one") == load(tmp_path / "two")
    assert len({load(tmp_path / "one"), load(tmp_path / "two")}) == 1


@pytest.mark.parametrize("change", [
    lambda t: t.enable_padding(length=8),
    lambda t: t.enable_truncation(16),
    lambda t: t.add_tokens(["<new>"]),
    lambda t: setattr(t, "model_max_length", 32),
    lambda t: setattr(t, "padding_side", "left"),
    lambda t: setattr(t, "pad_token", "[SEP]"),
], ids=["padding", "truncation", "added-token", "model_max_length", "padding_side",
        "pad_token"])
def test_a_configuration_change_makes_them_unequal(toy, change):
    """Any setting that changes the output changes equality and the hash."""
    other = Tokenizer.from_vocab(TOY, flavor="huggingface")
    assert other == toy
    change(other)
    assert other != toy and hash(other) != hash(toy)


def test_other_vocabulary_or_flavor_is_unequal(toy):
    assert Tokenizer.from_vocab(TOY[:-1], flavor="huggingface") != toy
    assert Tokenizer.from_vocab(TOY, flavor="bert") != toy
    assert toy != "not a tokenizer"
