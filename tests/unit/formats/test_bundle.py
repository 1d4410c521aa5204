"""Bundle: several tokenizers saved together (dir or .zip), loaded safely."""

from __future__ import annotations

import io
import json
import os
import zipfile

import pytest

from tests.hf_reference import sample_lines
from tests.shared_data import shared_path
from wordpieces.errors import FormatError
from wordpieces.formats.bundle import Bundle
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer

PT = ["[PAD]", "[UNK]", "[START]", "[END]", "ola", "mundo", "!"]


@pytest.fixture(scope="module")
def bundle():
    en = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                              flavor="huggingface")
    return Bundle(pt=Tokenizer.from_vocab(PT, flavor="tensorflow"), en=en)


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["converter", "converter.zip"])
def test_save_and_load_round_trip(tmp_path, bundle, name):
    """A bundle saved as a directory or a zip loads back with the same members."""
    bundle.save(tmp_path / name)
    back = load(tmp_path / name)
    assert isinstance(back, Bundle) and back.names == ["en", "pt"]
    assert back.pt.flavor == "tensorflow" and back.en.flavor == "huggingface"
    assert back.pt.encode("Olá mundo!").tokens == ["[START]", "ola", "mundo", "!", "[END]"]
    for line in sample_lines("english", 30):
        assert back.en.encode(line) == bundle.en.encode(line)


@pytest.mark.shared_data
def test_members_expose_the_tutorial_names(tmp_path, bundle):
    """Members answer get_vocab_size / get_vocab_path / get_reserved_tokens."""
    bundle.save(tmp_path / "b")
    back = load(tmp_path / "b")
    assert back.pt.get_vocab_size() == len(PT)
    assert back.pt.get_reserved_tokens() == ["[PAD]", "[UNK]", "[START]", "[END]"]
    assert back.pt.get_vocab_path() == str(tmp_path / "b" / "pt" / "vocab.txt")
    assert (tmp_path / "b" / "pt" / "vocab.txt").read_text(encoding="utf-8").split() == PT


@pytest.mark.shared_data
def test_attribute_errors_name_the_members(bundle):
    """A missing member is an AttributeError listing the real ones."""
    with pytest.raises(AttributeError, match="members: en, pt"):
        bundle.de  # noqa: B018


@pytest.mark.parametrize("name", ["../x", "a/b", "", "1st", "save", "x" * 65])
def test_bad_member_names_are_refused(name):
    """Member names are plain identifiers that do not shadow Bundle's own attributes."""
    with pytest.raises((FormatError, ValueError)):
        Bundle(**{name: Tokenizer.from_vocab(PT)})


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.shared_data
def test_zip_path_traversal_is_refused(tmp_path, bundle):
    """A manifest naming '../evil' is rejected and nothing is written outside."""
    bundle.save(tmp_path / "ok.zip")
    with zipfile.ZipFile(tmp_path / "ok.zip") as zf:
        files = {n: zf.read(n).decode() for n in zf.namelist()}
    files["bundle.json"] = json.dumps({"format": "wordpieces-bundle/1", "members": ["../evil"]})
    files["../evil/tokenizer.json"] = files["pt/tokenizer.json"]
    (tmp_path / "evil.zip").write_bytes(_zip(files))
    before = set(os.listdir(tmp_path))
    with pytest.raises(FormatError, match="bad member name '../evil'"):
        load(tmp_path / "evil.zip")
    assert set(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("files, message", [
    ({"x.txt": "hi"}, "no bundle.json"),
    ({"bundle.json": "{"}, r"bundle\.json: invalid JSON"),
    ({"bundle.json": '{"format": "other/9", "members": ["a"]}'}, "unsupported format"),
    ({"bundle.json": '{"format": "wordpieces-bundle/1", "members": ["a"]}'},
     "member 'a' has no tokenizer.json"),
    ({"bundle.json": '{"format": "wordpieces-bundle/1", "members": []}'}, "non-empty"),
])
def test_broken_zip_bundles_are_format_errors(tmp_path, files, message):
    """Broken bundles are FormatErrors naming the problem."""
    (tmp_path / "b.zip").write_bytes(_zip(files))
    with pytest.raises(FormatError, match=message):
        load(tmp_path / "b.zip")


def test_not_a_zip_is_a_format_error(tmp_path):
    """A .zip that is not a zip is reported as such."""
    (tmp_path / "b.zip").write_bytes(b"PK but not really")
    with pytest.raises(FormatError, match="not a readable zip"):
        load(tmp_path / "b.zip")


@pytest.mark.shared_data
def test_zip_save_leaves_no_temporary_files(tmp_path, bundle):
    """Saving a zip twice replaces it atomically, with no leftovers."""
    bundle.save(tmp_path / "b.zip")
    bundle.save(tmp_path / "b.zip")
    assert os.listdir(tmp_path) == ["b.zip"]


def test_directory_save_drops_a_removed_members_files_only(tmp_path):
    """Saving a bundle without 'pt' over one with it removes pt/, keeps the user's files."""
    tok = Tokenizer.from_vocab(PT, flavor="tensorflow")
    Bundle(en=tok, pt=tok).save(tmp_path / "b")
    (tmp_path / "b" / "README.md").write_text("mine")
    Bundle(en=tok).save(tmp_path / "b")
    assert sorted(os.listdir(tmp_path / "b")) == ["README.md", "bundle.json", "en",
                                                  "wordpieces-manifest.json"]
    assert load(tmp_path / "b").names == ["en"]


def test_directory_bundle_left_half_saved_is_a_clear_error(tmp_path):
    """A member file still from the save before (a cut-off save) is reported, not mixed."""
    old = Tokenizer.from_vocab(PT, flavor="tensorflow")
    Bundle(en=old).save(tmp_path / "b")
    stale = (tmp_path / "b" / "en" / "tokenizer.json").read_bytes()
    Bundle(en=Tokenizer.from_vocab(PT[:-1], flavor="tensorflow")).save(tmp_path / "b")
    (tmp_path / "b" / "en" / "tokenizer.json").write_bytes(stale)
    with pytest.raises(FormatError, match=r"en/tokenizer\.json does not match "
                                          r"wordpieces-manifest\.json"):
        load(tmp_path / "b")
