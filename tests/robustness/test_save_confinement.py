"""Saves and loads never leave their target: links, FIFOs and copied or foreign manifests.

The cases of issue 25 (1, 2, 3, 9, 10 for saved folders, 12), each as it was reproduced
by hand: a symlinked folder with a manifest entry through it (a save deleted the file
outside), a bundle member folder that is a link (a save wrote through it), a copied
``.npy`` output set (the next encode deleted the original), a ``data.manifest.json``
another tool wrote (replaced), FIFOs in a saved folder or bundle (a load hung), links
out of a saved folder (read, and ``get_vocab_path()`` pointed out), and a bundle zip's
``vocab.txt`` that is not UTF-8 (accepted). Loads that could hang run in a subprocess
with a timeout. The save and load paths do not depend on the backend; the tests run on
both anyway, as the rest of the robustness suite does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.robustness.helpers import BACKENDS, VOCAB, use_backend
from wordpieces.errors import FormatError, VocabError
from wordpieces.formats import bundle as bundle_module
from wordpieces.formats.bundle import Bundle
from wordpieces.formats.load import load
from wordpieces.formats.manifest import MANIFEST, file_entry
from wordpieces.tokenizer import Tokenizer

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs")
TIMEOUT = 60


@pytest.fixture(params=BACKENDS)
def tok(request, monkeypatch) -> Tokenizer:
    use_backend(request.param, monkeypatch)
    return Tokenizer.from_vocab(VOCAB, flavor="huggingface")


def _load_elsewhere(path: Path) -> subprocess.CompletedProcess:
    """``wp.load(path)`` in a subprocess: a hang fails the test instead of stopping it."""
    script = "import sys, wordpieces as wp; wp.load(sys.argv[1]); print('loaded')"
    try:
        return subprocess.run([sys.executable, "-c", script, str(path)],
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading {path} hung for {TIMEOUT} s")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wordpieces", *args], capture_output=True,
                          text=True, timeout=TIMEOUT)


# ---------------------------------------------------------------- 1: removal through a link


@posix_only
def test_a_manifest_entry_through_a_linked_folder_deletes_nothing_outside(tmp_path, tok):
    """Case 1: model/lnk -> ../outside and a manifest entry "lnk/victim.txt" matching the
    file: the load refuses the link by name, and the next save leaves the file alone."""
    tok.save(tmp_path / "model")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("precious\n")
    (tmp_path / "model" / "lnk").symlink_to("../outside")
    manifest_path = tmp_path / "model" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["lnk/victim.txt"] = file_entry(str(outside / "victim.txt"))
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(FormatError, match=r"model/lnk: is a symbolic link"):
        load(tmp_path / "model")
    tok.save(tmp_path / "model")
    assert (outside / "victim.txt").read_text() == "precious\n"
    assert load(tmp_path / "model") == tok


@posix_only
def test_a_manifest_entry_that_is_a_file_link_removes_only_the_link(tmp_path, tok):
    """A link at a listed name, matching what it points to: a save never deletes (or
    writes) the link's target."""
    tok.save(tmp_path / "model")
    (tmp_path / "victim.txt").write_text("precious\n")
    (tmp_path / "model" / "gone.txt").symlink_to(tmp_path / "victim.txt")
    manifest_path = tmp_path / "model" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["gone.txt"] = file_entry(str(tmp_path / "victim.txt"))
    manifest_path.write_text(json.dumps(manifest))
    tok.save(tmp_path / "model")
    assert (tmp_path / "victim.txt").read_text() == "precious\n"


# ---------------------------------------------------------------- 2: writing through a link


@posix_only
def test_a_bundle_member_folder_that_is_a_link_is_refused(tmp_path, tok):
    """Case 2: bundle_dir/en -> elsewhere: refused naming the link, nothing written there."""
    (tmp_path / "bundle_dir").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "bundle_dir" / "en").symlink_to("../elsewhere")
    with pytest.raises(FileExistsError, match="is a symbolic link") as caught:
        Bundle(en=tok).save(tmp_path / "bundle_dir")
    assert caught.value.filename == str(tmp_path / "bundle_dir" / "en")
    assert list((tmp_path / "elsewhere").iterdir()) == []


@posix_only
def test_a_link_at_a_file_name_is_replaced_not_written_through(tmp_path, tok):
    """A saved folder's vocab.txt -> a file outside: the save replaces the link by its own
    file; the file outside is unchanged."""
    tok.save(tmp_path / "model")
    (tmp_path / "outside.txt").write_text("precious\n")
    (tmp_path / "model" / "vocab.txt").unlink()
    (tmp_path / "model" / "vocab.txt").symlink_to(tmp_path / "outside.txt")
    tok.save(tmp_path / "model")
    assert (tmp_path / "outside.txt").read_text() == "precious\n"
    assert not (tmp_path / "model" / "vocab.txt").is_symlink()
    assert load(tmp_path / "model") == tok


# ---------------------------------------------------------------- 3, 9: other sets' manifests


def _encode(folder: Path, out: str) -> subprocess.CompletedProcess:
    return _cli("encode", "-t", str(folder / "vocab.txt"), str(folder / "corpus.txt"),
                "--format", "npy", "--quiet", "-o", str(folder / out))


@pytest.fixture
def encode_inputs(tmp_path) -> Path:
    (tmp_path / "vocab.txt").write_text("".join(t + "\n" for t in VOCAB))
    (tmp_path / "corpus.txt").write_text("hello world\nworlds a\n" * 50)
    return tmp_path


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_copied_output_set_keeps_the_original(encode_inputs, backend, monkeypatch):
    """Case 3: cp train.{npy,idx.npy,manifest.json} val.*, then encode -o val.npy: the
    copied manifest names train's files, and they are kept."""
    use_backend(backend, monkeypatch)
    folder = encode_inputs
    assert _encode(folder, "train.npy").returncode == 0
    before = {s: (folder / f"train.{s}").read_bytes() for s in ("npy", "idx.npy")}
    for suffix in ("npy", "idx.npy", "manifest.json"):
        shutil.copy(folder / f"train.{suffix}", folder / f"val.{suffix}")
    done = _encode(folder, "val.npy")
    assert done.returncode == 0, done.stderr
    assert {s: (folder / f"train.{s}").read_bytes() for s in ("npy", "idx.npy")} == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_manifest_another_tool_wrote_is_never_replaced(encode_inputs, backend,
                                                         monkeypatch):
    """Case 9: data.manifest.json that wordpieces did not write: encode -o data.npy is
    refused naming it, before any output; the file is unchanged."""
    use_backend(backend, monkeypatch)
    folder = encode_inputs
    (folder / "data.manifest.json").write_text('{"mine": true}\n')
    done = _encode(folder, "data.npy")
    assert done.returncode != 0
    assert "data.manifest.json is there and is not a manifest wordpieces wrote" in done.stderr
    assert "Traceback" not in done.stderr
    assert (folder / "data.manifest.json").read_text() == '{"mine": true}\n'
    assert not (folder / "data.npy").exists()


def test_a_foreign_manifest_in_a_tokenizer_folder_is_never_replaced(tmp_path, tok):
    """The same for a tokenizer directory: refused naming wordpieces-manifest.json."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / MANIFEST).write_text("my notes\n")
    with pytest.raises(FileExistsError, match="is not a manifest wordpieces wrote") as caught:
        tok.save(tmp_path / "model")
    assert caught.value.filename == str(tmp_path / "model" / MANIFEST)
    assert (tmp_path / "model" / MANIFEST).read_text() == "my notes\n"


# ---------------------------------------------------------------- 10: FIFOs in saved folders


@posix_only
@pytest.mark.parametrize("name", ["wordpieces.json", "tokenizer_config.json", "vocab.txt",
                                  "tokenizer.json", MANIFEST])
def test_a_fifo_in_a_saved_folder_is_refused_by_name(tmp_path, tok, name):
    """Case 10 (saved folders): a FIFO as any file of a save hung the load forever; now a
    FormatError naming it, without opening it."""
    tok.save(tmp_path / "model")
    (tmp_path / "model" / name).unlink()
    os.mkfifo(tmp_path / "model" / name)
    done = _load_elsewhere(tmp_path / "model")
    assert done.returncode != 0
    assert f"model/{name}: is a FIFO, not a regular file" in done.stderr


@posix_only
def test_a_fifo_in_a_folder_without_manifest_is_refused_by_name(tmp_path, tok):
    """A save_pretrained-style folder (no manifest): a FIFO tokenizer_config.json was
    skipped silently; now refused naming it."""
    tok.save(tmp_path / "model")
    (tmp_path / "model" / MANIFEST).unlink()
    (tmp_path / "model" / "tokenizer_config.json").unlink()
    os.mkfifo(tmp_path / "model" / "tokenizer_config.json")
    done = _load_elsewhere(tmp_path / "model")
    assert done.returncode != 0
    assert "tokenizer_config.json: is a FIFO" in done.stderr


@posix_only
@pytest.mark.parametrize("name", ["en/wordpieces.json", "en/vocab.txt", "bundle.json"])
def test_a_fifo_in_a_bundle_is_refused_by_name(tmp_path, tok, name):
    """The same in a bundle directory, with and without its manifest."""
    for manifest in (True, False):
        folder = tmp_path / f"bundle-{manifest}"
        Bundle(en=tok).save(folder)
        if not manifest:
            (folder / MANIFEST).unlink()
        (folder / name).unlink()
        os.mkfifo(folder / name)
        done = _load_elsewhere(folder)
        assert done.returncode != 0
        assert f"{name}: is a FIFO, not a regular file" in done.stderr


# ---------------------------------------------------------------- 12: reads through links


@posix_only
def test_a_saved_folder_link_out_is_refused_not_read(tmp_path, tok):
    """Case 12: vocab.txt -> /etc/passwd in a saved folder was read and returned by
    get_vocab_path(); now refused naming the link."""
    tok.save(tmp_path / "model")
    (tmp_path / "model" / "vocab.txt").unlink()
    (tmp_path / "model" / "vocab.txt").symlink_to("/etc/passwd")
    with pytest.raises(FormatError, match=r"model/vocab\.txt: is a symbolic link"):
        load(tmp_path / "model")
    with pytest.raises(FormatError, match=r"model/vocab\.txt: is a symbolic link"):
        Tokenizer.from_file(tmp_path / "model" / "tokenizer.json")


@posix_only
def test_an_unlisted_link_in_a_saved_folder_is_refused(tmp_path, tok):
    """A link the manifest does not list (its entry removed) is refused all the same."""
    tok.save(tmp_path / "model")
    manifest_path = tmp_path / "model" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    del manifest["files"]["vocab.txt"]
    manifest_path.write_text(json.dumps(manifest))
    (tmp_path / "model" / "vocab.txt").unlink()
    (tmp_path / "model" / "vocab.txt").symlink_to("/etc/passwd")
    with pytest.raises(FormatError, match=r"model/vocab\.txt: is a symbolic link"):
        load(tmp_path / "model")
    with pytest.raises(FormatError, match=r"model/vocab\.txt: is a symbolic link"):
        Tokenizer.from_pretrained(tmp_path / "model")


@posix_only
def test_links_in_a_bundle_are_refused(tmp_path, tok):
    """A bundle member folder linked out, or a member's file linked out: refused."""
    Bundle(en=tok).save(tmp_path / "b")
    shutil.move(tmp_path / "b" / "en", tmp_path / "en-outside")
    (tmp_path / "b" / "en").symlink_to(tmp_path / "en-outside")
    with pytest.raises(FormatError, match=r"b/en: is a symbolic link"):
        load(tmp_path / "b")
    (tmp_path / "b" / "en").unlink()
    shutil.move(tmp_path / "en-outside", tmp_path / "b" / "en")
    (tmp_path / "b" / "en" / "vocab.txt").unlink()
    (tmp_path / "b" / "en" / "vocab.txt").symlink_to("/etc/passwd")
    with pytest.raises(FormatError, match=r"en/vocab\.txt: is a symbolic link"):
        load(tmp_path / "b")


@posix_only
def test_a_hub_checkout_without_manifest_still_loads_through_links(tmp_path, tok):
    """A folder another tool wrote (no manifest), laid out as links like a hub checkout,
    loads as before."""
    tok.save(tmp_path / "files")
    (tmp_path / "hub").mkdir()
    for name in os.listdir(tmp_path / "files"):
        if name != MANIFEST:
            (tmp_path / "hub" / name).symlink_to(tmp_path / "files" / name)
    assert load(tmp_path / "hub") == tok


def test_a_bundle_zip_vocab_that_is_not_utf8_is_refused(tmp_path, tok, monkeypatch):
    """Case 12: a bundle zip's vocab.txt with invalid UTF-8 was cached and served by
    get_vocab_path(); now refused naming the member and line."""
    monkeypatch.setenv(bundle_module.CACHE_ENV, str(tmp_path / "cache"))
    Bundle(en=tok).save(tmp_path / "ok.zip")
    with zipfile.ZipFile(tmp_path / "ok.zip") as zf:
        files = {name: zf.read(name) for name in zf.namelist()}
    files["en/vocab.txt"] = b"[PAD]\n\xff\xfe\n[UNK]\n"
    with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    with pytest.raises(VocabError, match=r"bad\.zip/en/vocab\.txt:2: not valid UTF-8"):
        load(tmp_path / "bad.zip")
    assert not (tmp_path / "cache").exists()
