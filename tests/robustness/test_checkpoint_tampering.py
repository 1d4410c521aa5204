"""A checkpoint folder someone tampered with is refused by name, never hangs or blows up.

Each case runs ``wordpieces count --checkpoint`` in a child with a timeout and a 1 GB
address-space limit: before, a FIFO as a block or as ``checkpoint.json`` hung forever, a
block linked to ``/dev/zero`` read until memory ran out, ``"[" * 100000`` as the index
was an internal ``RecursionError``, and a block's bad lines (30 or 5,000 digits, bad
UTF-8, an empty word) were errors without the file, or (a repeated word) silently merged.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys

import pytest

TIMEOUT = 120


def _one_gigabyte():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _count(tmp_path, folder):
    """Count the corpus with checkpoint ``folder``: (exit status, stderr)."""
    out = subprocess.run(
        [sys.executable, "-m", "wordpieces", "count", "-q", "--num-proc", "1",
         "--checkpoint", str(folder), str(tmp_path / "c.txt"), "-o", str(tmp_path / "o.tsv")],
        capture_output=True, timeout=TIMEOUT, preexec_fn=_one_gigabyte)
    return out.returncode, out.stderr.decode()


@pytest.fixture
def folder(tmp_path):
    """A finished checkpoint of a two-line corpus (one block)."""
    (tmp_path / "c.txt").write_text("hello world\nhello there\n", encoding="utf-8")
    folder = tmp_path / "ck"
    status, err = _count(tmp_path, folder)
    assert status == 0, err
    os.remove(tmp_path / "o.tsv")  # each test's own run writes it, or not
    return folder


def _block(folder):
    return folder / "block-000000.tsv"


def _rewrite_block(folder, body: bytes, *, checksum: bool = True) -> None:
    """Replace the block's lines with ``body``, as someone who recomputes the header would."""
    path = _block(folder)
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    header["words"] = body.count(b"\n")
    if checksum:
        header["sha256"] = hashlib.sha256(body).hexdigest()
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)


@pytest.mark.parametrize("name", ["block-000000.tsv", "checkpoint.json"])
def test_a_fifo_is_refused_without_blocking(tmp_path, folder, name):
    os.remove(folder / name)
    os.mkfifo(folder / name)
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert f"{folder / name}: is a FIFO" in err


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_a_linked_block_is_refused_unread(tmp_path, folder, target):
    """A block linked to /dev/zero, or to a copy of itself out of the folder: refused."""
    if target == "outside":
        target = str(tmp_path / "elsewhere.tsv")
        os.replace(_block(folder), target)
    else:
        os.remove(_block(folder))
    os.symlink(target, _block(folder))
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert f"{_block(folder)}: is a symbolic link" in err


def test_a_deeply_nested_index_is_a_named_error(tmp_path, folder):
    (folder / "checkpoint.json").write_text("[" * 100000, encoding="utf-8")
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert "internal error" not in err
    assert f"{folder / 'checkpoint.json'}: invalid JSON: nested more than 64 deep" in err


@pytest.mark.parametrize("body, problem", [
    (b"hello\t" + b"9" * 30 + b"\nworld\t1\nthere\t1\n", ":2: the count has 30 digits"),
    (b"hello\t" + b"9" * 5000 + b"\nworld\t1\nthere\t1\n", ":2: the count has 5000 digits"),
    (b"hello\t2\nwor\xffld\t1\nthere\t1\n", ":3: not valid UTF-8"),
    (b"hello\t2\n\t1\nthere\t1\n", ":3: word '' is empty"),
    (b"hello\t2\nhello\t5\nthere\t1\n", ":3: word 'hello' repeats line 2"),
], ids=["30-digits", "5000-digits", "bad-utf8", "empty-word", "duplicate"])
def test_a_bad_block_line_names_the_file_and_line(tmp_path, folder, body, problem):
    """Lines a counts file could not hold are refused, even with a matching checksum."""
    _rewrite_block(folder, body)
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert f"{_block(folder)}{problem}" in err
    assert not (tmp_path / "o.tsv").exists()  # nothing train would refuse is written


def test_a_changed_block_fails_its_checksum(tmp_path, folder):
    _rewrite_block(folder, b"hello\t2000\nworld\t1\nthere\t1\n", checksum=False)
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert f"{_block(folder)}: its lines do not match the checksum" in err


def test_a_version_1_checkpoint_is_refused(tmp_path, folder):
    """Blocks written before checksums cannot be verified: the folder is refused by name."""
    index = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8"))
    index["version"] = 1
    (folder / "checkpoint.json").write_text(json.dumps(index), encoding="utf-8")
    status, err = _count(tmp_path, folder)
    assert status == 2, err
    assert "format version 1, this run has 2" in err
