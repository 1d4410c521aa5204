"""Atomic saves give plain-open permissions, keep a replaced file's mode, and clean up."""

import os
import stat
import sys

import pytest

from wordpieces.formats import atomic
from wordpieces.formats.atomic import atomic_write_bytes, atomic_write_text, current_umask

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


@pytest.fixture
def umask():
    """Set a known umask for one test and restore the previous one after it."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077, 0o002], ids=oct)
def test_new_file_gets_the_mode_of_a_plain_open(tmp_path, umask, mask):
    """A new file has 0666 & ~umask, exactly what open(path, 'w') gives."""
    umask(mask)
    with open(tmp_path / "plain.txt", "w") as f:
        f.write("x")
    atomic_write_text(tmp_path / "atomic.txt", "x")
    assert mode(tmp_path / "atomic.txt") == mode(tmp_path / "plain.txt") == 0o666 & ~mask


@posix_only
def test_current_umask_reads_the_umask_in_force(umask):
    """current_umask returns the mask the process has, and leaves it unchanged."""
    umask(0o037)
    assert current_umask() == 0o037
    assert os.umask(0o037) == 0o037


@posix_only
@pytest.mark.parametrize("kept", [0o600, 0o755, 0o640], ids=oct)
def test_replacing_keeps_the_existing_mode(tmp_path, umask, kept):
    """Saving over a file keeps its permission bits, whatever the umask says."""
    umask(0o022)
    path = tmp_path / "vocab.txt"
    path.write_text("old\n")
    os.chmod(path, kept)
    atomic_write_text(path, "new\n")
    assert path.read_text() == "new\n" and mode(path) == kept


def test_failed_write_keeps_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    """A failure while writing (disk full at fsync) leaves the old file and nothing else."""
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b"old")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(path, b"new and longer")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["tokenizer.json"]


def test_interrupt_during_the_write_removes_the_temporary(tmp_path, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) mid-write also leaves the old file and no temporary."""
    path = tmp_path / "vocab.txt"
    path.write_bytes(b"old")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["vocab.txt"]


@posix_only
def test_directory_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    """After the file's own fsync, its directory is fsynced once the new name is in place."""
    path = tmp_path / "vocab.txt"
    synced = []
    real_fsync = os.fsync

    def record(fd):
        st = os.fstat(fd)
        synced.append(("dir" if stat.S_ISDIR(st.st_mode) else "file", path.exists()))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", record)
    atomic_write_bytes(path, b"data")
    assert synced == [("file", False), ("dir", True)]


def test_directory_fsync_is_best_effort(tmp_path):
    """A directory that cannot be opened is skipped without an error."""
    atomic.fsync_directory(str(tmp_path / "missing"))
