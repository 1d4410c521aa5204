"""Hostile bundle zips and careless bundle names: refused with errors naming what is wrong.

A name stored twice in a zip (``zipfile`` silently keeps the last), members that inflate
past ``MAX_BUNDLE_BYTES`` in total (stopped while reading, not after), member names that
are ``Bundle``'s own attributes, and the vocabulary path of a member read from a zip
(a real file, as TensorFlow's SavedModel assets are).
"""

from __future__ import annotations

import json
import os
import tracemalloc
import warnings
import zipfile

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats import bundle as bundle_module
from wordpieces.formats.bundle import Bundle
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer

VOCAB = ["[PAD]", "[UNK]", "[START]", "[END]", "ola", "mundo", "!"]


@pytest.fixture
def saved_zip(tmp_path, monkeypatch):
    """A valid two-member bundle zip; the vocabulary cache goes to tmp_path."""
    monkeypatch.setenv(bundle_module.CACHE_ENV, str(tmp_path / "cache"))
    tok = Tokenizer.from_vocab(VOCAB, flavor="tensorflow")
    Bundle(en=tok, pt=tok).save(tmp_path / "ok.zip")
    return tmp_path / "ok.zip"


def _members(path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def _write_zip(path, members: list[tuple[str, bytes]]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in members:
                zf.writestr(name, data)


def test_a_member_stored_twice_is_refused_naming_it(saved_zip, tmp_path):
    """Two entries named pt/vocab.txt: which one is meant is ambiguous, so refuse."""
    members = _members(saved_zip) + [("pt/vocab.txt", b"[UNK]\nevil\n")]
    _write_zip(tmp_path / "dup.zip", members)
    with pytest.raises(FormatError, match=r"dup\.zip: pt/vocab\.txt: stored twice"):
        load(tmp_path / "dup.zip")


def test_members_inflating_past_the_cap_in_total_are_refused(saved_zip, tmp_path,
                                                                monkeypatch):
    """Each member under the cap, together over it: refused at the member that crosses."""
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_BYTES", 3 << 20)
    members = dict(_members(saved_zip))
    members["en/vocab.txt"] = "\n".join(VOCAB).encode().ljust(2 << 20, b" ") + b"\n"
    members["pt/vocab.txt"] = members["en/vocab.txt"]
    _write_zip(tmp_path / "big.zip", list(members.items()))
    with pytest.raises(FormatError, match=r"big\.zip: pt/vocab\.txt: .*over the bundle cap "
                                          r"of 3,145,728 inflated bytes"):
        load(tmp_path / "big.zip")


def test_a_member_over_the_cap_is_never_inflated_whole(saved_zip, tmp_path, monkeypatch):
    """A 64 MiB member under a 1 MiB cap: refused with far less than 64 MiB allocated."""
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_BYTES", 1 << 20)
    members = dict(_members(saved_zip))
    members["en/vocab.txt"] = b"a\n" * (32 << 20)
    _write_zip(tmp_path / "bomb.zip", list(members.items()))
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=r"en/vocab\.txt: says it holds 67,108,864 "
                                              r"bytes: over the bundle cap"):
            load(tmp_path / "bomb.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


def test_a_member_lying_about_its_size_stops_at_the_cap(saved_zip, tmp_path, monkeypatch):
    """A header claiming 10 bytes for 64 MiB of data: never more than the cap is read."""
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_BYTES", 1 << 20)
    members = dict(_members(saved_zip))
    members["en/vocab.txt"] = b"a\n" * (32 << 20)
    _write_zip(tmp_path / "liar.zip", list(members.items()))
    data = bytearray((tmp_path / "liar.zip").read_bytes())
    with zipfile.ZipFile(tmp_path / "liar.zip") as zf:
        info = zf.getinfo("en/vocab.txt")
    # patch the uncompressed size in the local header and in the central directory
    local = info.header_offset + 22
    data[local:local + 4] = (10).to_bytes(4, "little")
    central = data.find(b"en/vocab.txt", data.find(b"PK\x01\x02")) - 46 + 24
    data[central:central + 4] = (10).to_bytes(4, "little")
    (tmp_path / "liar.zip").write_bytes(bytes(data))
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match=r"liar\.zip"):
            load(tmp_path / "liar.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


@pytest.mark.parametrize("name", ["items", "names", "save"])
def test_a_reserved_member_name_in_a_file_names_the_file_and_field(saved_zip, tmp_path,
                                                                    name):
    """bundle.json listing 'items' is a FormatError naming the file and members[i]."""
    members = dict(_members(saved_zip))
    members["bundle.json"] = json.dumps({"format": "wordpieces-bundle/1",
                                         "members": ["en", name]}).encode()
    members[f"{name}/tokenizer.json"] = members["pt/tokenizer.json"]
    _write_zip(tmp_path / "r.zip", list(members.items()))
    with pytest.raises(FormatError, match=rf"r\.zip/bundle\.json: members\[1\]: member name "
                                          rf"'{name}' is reserved"):
        load(tmp_path / "r.zip")


def test_a_reserved_member_name_in_code_says_which_names_are_reserved():
    """Bundle(items=tok): a clear error listing the reserved names, not a bare ValueError."""
    with pytest.raises(FormatError, match=r"member name 'items' is reserved: it is an "
                                          r"attribute of Bundle \(reserved: items, names, "
                                          r"save\)"):
        Bundle(items=Tokenizer.from_vocab(VOCAB))


def test_a_zip_members_vocab_path_is_a_real_file(saved_zip):
    """get_vocab_path() of a zip member exists and holds the member's vocab.txt."""
    back = load(saved_zip)
    path = back.pt.get_vocab_path()
    assert path is not None and os.path.isfile(path)
    assert open(path, "rb").read() == dict(_members(saved_zip))["pt/vocab.txt"]
    assert back.en.get_vocab_path() == path  # same content: one cached file


def test_a_zip_members_vocab_path_is_none_without_a_writable_cache(saved_zip, tmp_path,
                                                                   monkeypatch):
    """Where the cache cannot be written, the path is None rather than a path that lies."""
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv(bundle_module.CACHE_ENV, str(tmp_path / "not-a-folder"))
    assert load(saved_zip).pt.get_vocab_path() is None
