"""Atomic saves give plain-open permissions, keep a replaced file's mode, and clean up.

The same for the streaming writer (``AtomicFile``) and for whole directories
(``atomic_directory``).
"""

import os
import stat
import sys
from pathlib import Path

import pytest

from wordpieces.formats import atomic
from wordpieces.formats.atomic import (
    AtomicFile,
    atomic_directory,
    atomic_write_bytes,
    atomic_write_text,
    current_umask,
)

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


# ---------------------------------------------------------------- streaming


def test_stream_replaces_the_old_file_only_at_commit(tmp_path):
    """While a stream is being written the old content stays readable; commit swaps it."""
    path = tmp_path / "out.ids"
    path.write_text("old\n")
    with AtomicFile(path, binary=False) as f:
        f.write("new 1\n")
        f.flush()
        assert path.read_text() == "old\n"
        f.write("new 2\n")
    assert path.read_text() == "new 1\nnew 2\n"


def test_error_mid_stream_keeps_the_old_file_and_no_temporary(tmp_path):
    """An exception inside the block discards everything written so far."""
    path = tmp_path / "out.ids"
    path.write_text("old\n")
    with pytest.raises(RuntimeError, match="input broke"), AtomicFile(path) as f:
        f.write(b"half of the ")
        raise RuntimeError("input broke")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.ids"]


def test_discard_leaves_no_file(tmp_path):
    """discard() removes the temporary; a new target is never created."""
    out = AtomicFile(tmp_path / "never.npy")
    out.file.write(b"data")
    out.discard()
    assert os.listdir(tmp_path) == []


def test_text_stream_keeps_newlines_and_writes_utf8(tmp_path):
    """Text mode writes UTF-8 and never translates \\n (same bytes on every platform)."""
    with AtomicFile(tmp_path / "t.txt", binary=False) as f:
        f.write("é\n\r\n")
    assert (tmp_path / "t.txt").read_bytes() == "é\n\r\n".encode()


@posix_only
def test_stream_keeps_the_existing_mode(tmp_path, umask):
    """A streamed output over an existing file keeps that file's permission bits."""
    umask(0o022)
    path = tmp_path / "out.npy"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with AtomicFile(path) as f:
        f.write(b"new")
    assert mode(path) == 0o640


# ---------------------------------------------------------------- directories


def test_directory_appears_whole(tmp_path):
    """The staging directory is beside the target; the target appears only at the end."""
    target = tmp_path / "model"
    with atomic_directory(target) as staging:
        assert os.path.dirname(staging) == str(tmp_path) and not target.exists()
        (Path(staging) / "saved_model.pb").write_bytes(b"graph")
        os.mkdir(Path(staging) / "variables")
    assert (target / "saved_model.pb").read_bytes() == b"graph"
    assert sorted(os.listdir(tmp_path)) == ["model"]


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_new_directory_gets_the_mode_of_a_plain_mkdir(tmp_path, umask, mask):
    """A new directory has 0777 & ~umask, what os.mkdir gives (not mkdtemp's 0700)."""
    umask(mask)
    with atomic_directory(tmp_path / "model"):
        pass
    assert mode(tmp_path / "model") == 0o777 & ~mask


@posix_only
def test_replaced_directory_keeps_its_mode_and_loses_its_content(tmp_path, umask):
    """Over an existing directory: its mode is kept and only the new content is left."""
    umask(0o022)
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.pb").write_bytes(b"old")
    os.chmod(target, 0o750)
    with atomic_directory(target) as staging:
        (Path(staging) / "new.pb").write_bytes(b"new")
    assert os.listdir(target) == ["new.pb"] and mode(target) == 0o750
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_failure_keeps_the_old_directory_and_no_staging(tmp_path):
    """An error while building leaves the old directory as it was and nothing beside it."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.pb").write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"), atomic_directory(target) as staging:
        (Path(staging) / "half.pb").write_bytes(b"half")
        raise OSError("disk full")
    assert os.listdir(target) == ["old.pb"]
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_failed_swap_puts_the_old_directory_back(tmp_path, monkeypatch):
    """If the new directory cannot be renamed in, the old one returns to its name."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.pb").write_bytes(b"old")
    real_replace = os.replace

    def refuse_staging(src, dst):
        if os.path.basename(str(src)).startswith(".model.") and ".old." not in str(src) \
                and str(dst) == str(target):
            raise OSError(5, "Input/output error")
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", refuse_staging)
    with pytest.raises(OSError, match="Input/output"), atomic_directory(target) as staging:
        (Path(staging) / "new.pb").write_bytes(b"new")
    assert os.listdir(target) == ["old.pb"]
    assert sorted(os.listdir(tmp_path)) == ["model"]


@posix_only
def test_directory_files_are_fsynced_before_the_rename(tmp_path, monkeypatch):
    """Every file in the staging directory is fsynced while the target does not exist yet."""
    target = tmp_path / "model"
    synced = []
    real_fsync = os.fsync

    def record(fd):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            synced.append(target.exists())
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", record)
    with atomic_directory(target) as staging:
        (Path(staging) / "a.pb").write_bytes(b"a")
        os.mkdir(Path(staging) / "variables")
        (Path(staging) / "variables" / "b.data").write_bytes(b"b")
    assert synced == [False, False]
