"""Atomic saves give plain-open permissions, keep a replaced file's mode, and clean up.

The same for the streaming writer (``AtomicFile``) and for whole directories
(``atomic_directory``).
"""

import errno
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wordpieces.errors import FormatError
from wordpieces.formats import atomic, folder_lock, journal, temporaries
from wordpieces.formats.atomic import (
    AtomicFile,
    FileSet,
    atomic_directory,
    atomic_write_bytes,
    atomic_write_text,
    current_umask,
    read_file_set,
)
from wordpieces.formats.manifest import MANIFEST

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
    with atomic_directory(target, kind="export") as staging:
        assert os.path.dirname(staging) == str(tmp_path) and not target.exists()
        (Path(staging) / "saved_model.pb").write_bytes(b"graph")
        os.mkdir(Path(staging) / "variables")
    assert (target / "saved_model.pb").read_bytes() == b"graph"
    assert sorted(os.listdir(target)) == ["saved_model.pb", "variables", MANIFEST]
    assert sorted(os.listdir(tmp_path)) == ["model"]


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_new_directory_gets_the_mode_of_a_plain_mkdir(tmp_path, umask, mask):
    """A new directory has 0777 & ~umask, what os.mkdir gives (not mkdtemp's 0700)."""
    umask(mask)
    with atomic_directory(tmp_path / "model", kind="export"):
        pass
    assert mode(tmp_path / "model") == 0o777 & ~mask


@posix_only
def test_earlier_output_is_replaced_and_keeps_its_mode(tmp_path, umask):
    """Over an earlier output of the same kind: its mode is kept, only the new files left."""
    umask(0o022)
    target = tmp_path / "model"
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "old.pb").write_bytes(b"old")
    os.chmod(target, 0o750)
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "new.pb").write_bytes(b"new")
    assert sorted(os.listdir(target)) == ["new.pb", MANIFEST] and mode(target) == 0o750
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_empty_directory_is_replaced(tmp_path):
    """An empty directory (made by mkdir beforehand) may be written into."""
    (tmp_path / "model").mkdir()
    with atomic_directory(tmp_path / "model", kind="export") as staging:
        (Path(staging) / "a.pb").write_bytes(b"a")
    assert (tmp_path / "model" / "a.pb").read_bytes() == b"a"


def test_folder_with_other_files_is_refused_untouched(tmp_path):
    """A non-empty folder that is no earlier output is refused before any work."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"not an earlier export \(it holds notes\.txt\)"):
        with atomic_directory(target, kind="export"):
            raise AssertionError("the block must not run")
    assert os.listdir(target) == ["notes.txt"] and os.listdir(tmp_path) == ["model"]


def test_file_added_to_an_earlier_output_is_never_deleted(tmp_path):
    """A file put into an earlier output afterwards makes the replacement refused."""
    target = tmp_path / "model"
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "a.pb").write_bytes(b"a")
    (target / "README").write_text("mine")
    with pytest.raises(FileExistsError, match="holds README, which the earlier export did not"):
        with atomic_directory(target, kind="export"):
            pass
    assert (target / "README").read_text() == "mine"


def test_file_changed_in_an_earlier_output_is_never_deleted(tmp_path):
    """A file of the earlier output changed since is no longer ours: refused."""
    target = tmp_path / "model"
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "a.pb").write_bytes(b"a")
    (target / "a.pb").write_bytes(b"edited")
    with pytest.raises(FileExistsError, match="a.pb was changed after"):
        with atomic_directory(target, kind="export"):
            pass
    assert (target / "a.pb").read_bytes() == b"edited"


def test_regular_file_at_the_path_is_refused(tmp_path):
    """A file where the directory would go is refused, not replaced by a directory."""
    (tmp_path / "model").write_text("a file")
    with pytest.raises(FileExistsError, match="exists and is not a directory"):
        with atomic_directory(tmp_path / "model", kind="export"):
            pass
    assert (tmp_path / "model").read_text() == "a file"


def test_failure_keeps_the_old_directory_and_no_staging(tmp_path):
    """An error while building leaves the old directory as it was and nothing beside it."""
    target = tmp_path / "model"
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "old.pb").write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"), \
            atomic_directory(target, kind="export") as staging:
        (Path(staging) / "half.pb").write_bytes(b"half")
        raise OSError("disk full")
    assert sorted(os.listdir(target)) == ["old.pb", MANIFEST]
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_two_rename_swap_puts_the_old_directory_back_on_failure(tmp_path, monkeypatch):
    """Without an exchange rename, a failed second rename returns the old directory."""
    target = tmp_path / "model"
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "old.pb").write_bytes(b"old")
    monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    real_replace = os.replace

    def refuse_staging(src, dst):
        if str(src).endswith(".tmp") and str(dst) == str(target):
            raise OSError(5, "Input/output error")
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", refuse_staging)
    with pytest.raises(OSError, match="Input/output") as caught, \
            atomic_directory(target, kind="export") as staging:
        (Path(staging) / "new.pb").write_bytes(b"new")
    assert caught.value.filename == str(target)
    assert sorted(os.listdir(target)) == ["old.pb", MANIFEST]
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
    with atomic_directory(target, kind="export") as staging:
        (Path(staging) / "a.pb").write_bytes(b"a")
        os.mkdir(Path(staging) / "variables")
        (Path(staging) / "variables" / "b.data").write_bytes(b"b")
    assert synced == [False, False, False]  # a.pb, variables/b.data and the manifest


# ---------------------------------------------------------------- sets of files


def test_set_writes_its_files_and_a_manifest(tmp_path):
    """A committed set holds its files plus a manifest of their sizes and SHA-256."""
    with FileSet(tmp_path / "tok", kind="tokenizer") as files:
        files.write("a.txt", "one\n")
        files.write("sub/b.txt", b"two\n")
    listed = json.loads((tmp_path / "tok" / MANIFEST).read_text())
    assert listed["kind"] == "tokenizer"
    assert listed["files"]["sub/b.txt"] == {
        "size": 4, "sha256": hashlib.sha256(b"two\n").hexdigest()}
    assert read_file_set(tmp_path / "tok", keep=["a.txt"]) == {"a.txt": b"one\n"}


def test_set_never_removes_files_it_did_not_write(tmp_path):
    """Files another tool put in the folder (model weights) survive every save."""
    folder = tmp_path / "tok"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    for text in ("v1", "v2"):
        with FileSet(folder, kind="tokenizer") as files:
            files.write("a.txt", text)
    assert (folder / "model.safetensors").read_bytes() == b"weights"
    assert sorted(os.listdir(folder)) == ["a.txt", "model.safetensors", MANIFEST]


def test_set_removes_its_own_files_the_new_save_has_not(tmp_path):
    """A file the previous save wrote, unchanged, that the new one has not, is removed."""
    folder = tmp_path / "bundle"
    with FileSet(folder, kind="bundle") as files:
        files.write("en/a.txt", "en")
        files.write("pt/a.txt", "pt")
    with FileSet(folder, kind="bundle") as files:
        files.write("en/a.txt", "en2")
    assert sorted(os.listdir(folder)) == ["en", MANIFEST]


def test_set_keeps_a_dropped_file_that_was_changed_since(tmp_path):
    """A file of the previous save that someone edited is no longer ours: kept."""
    folder = tmp_path / "tok"
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "a")
        files.write("b.txt", "b")
    (folder / "b.txt").write_text("edited")
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "a2")
    assert (folder / "b.txt").read_text() == "edited"


def test_a_file_left_from_the_replaced_save_is_a_clear_error(tmp_path):
    """A file still holding the version the last save replaced is reported as a mix."""
    folder = tmp_path / "tok"
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "old a")
        files.write("b.txt", "old b")
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "new a")
        files.write("b.txt", "new b")
    (folder / "b.txt").write_text("old b")  # what a run killed before b's rename leaves
    with pytest.raises(FormatError, match=r"tok: b\.txt does not match wordpieces-manifest"
                                          r"\.json \(it is still the version that save"):
        read_file_set(folder)


def test_a_missing_file_of_the_set_is_a_clear_error(tmp_path):
    """A listed file that is gone is reported, naming it."""
    folder = tmp_path / "tok"
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "a")
    os.unlink(folder / "a.txt")
    with pytest.raises(FormatError, match=r"a\.txt does not match .* \(it is missing\)"):
        read_file_set(folder)


def test_a_file_edited_after_the_save_is_read_as_it_is(tmp_path):
    """Editing a saved file by hand (as transformers users do) is not an error."""
    folder = tmp_path / "tok"
    with FileSet(folder, kind="tokenizer") as files:
        files.write("config.json", '{"model_max_length": 512}')
    (folder / "config.json").write_text('{"model_max_length": 128}')
    assert read_file_set(folder, keep=["config.json"]) == {
        "config.json": b'{"model_max_length": 128}'}


def test_a_folder_without_manifest_reads_as_none(tmp_path):
    """A folder another tool wrote (no manifest) is left to the caller to read."""
    assert read_file_set(tmp_path) is None


def test_failed_set_keeps_the_old_files_and_no_temporary(tmp_path, monkeypatch):
    """A failure at the commit (disk full at fsync) leaves the old set and nothing else."""
    folder = tmp_path / "tok"
    with FileSet(folder, kind="tokenizer") as files:
        files.write("a.txt", "old")
    before = sorted(os.listdir(folder))

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left") as caught:
        with FileSet(folder, kind="tokenizer") as files:
            files.write("a.txt", "new")
    assert caught.value.filename == str(folder)
    assert sorted(os.listdir(folder)) == before and (folder / "a.txt").read_text() == "old"


def test_set_manifest_naming_a_parent_path_is_refused(tmp_path):
    """A manifest is untrusted: '../x' as a file name is a FormatError; a save over it is
    refused naming it (it is not a manifest wordpieces wrote), nothing deleted."""
    folder = tmp_path / "tok"
    folder.mkdir()
    (tmp_path / "victim").write_text("keep")
    (folder / MANIFEST).write_text(json.dumps({
        "format": "wordpieces-manifest/1", "kind": "tokenizer",
        "files": {"../victim": {"size": 4, "sha256": hashlib.sha256(b"keep").hexdigest()}}}))
    with pytest.raises(FormatError, match=r"unsafe file name '\.\./victim'"):
        read_file_set(folder)
    with pytest.raises(FileExistsError, match="is not a manifest wordpieces wrote") as caught:
        FileSet(folder, kind="tokenizer")
    assert caught.value.filename == str(folder / MANIFEST)
    assert (tmp_path / "victim").read_text() == "keep"


# ---------------------------------------------------------------- temporaries of dead writers


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _leftover(folder: Path, base: str, pid: int, start: int = 0, host: str | None = None):
    host = host or temporaries.owner().split("-")[0]
    path = folder / f".{base}.wp-{host}-{pid}-{start}-0123abcd.tmp"
    path.write_bytes(b"half")
    return path


def test_next_run_removes_a_dead_writers_temporary(tmp_path):
    """A temporary whose writer is gone is removed by the next write in that folder."""
    left = _leftover(tmp_path, "out.ids", _dead_pid())
    atomic_write_bytes(tmp_path / "out.ids", b"new")
    assert not left.exists() and os.listdir(tmp_path) == ["out.ids"]


def test_a_live_writers_temporary_is_kept(tmp_path):
    """A temporary of a running process (this one) is never removed by another writer."""
    pid = os.getpid()
    left = _leftover(tmp_path, "out.ids", pid, temporaries.process_start(pid))
    atomic_write_bytes(tmp_path / "out.ids", b"new")
    assert left.exists()


def test_a_reused_pid_does_not_keep_a_dead_writers_temporary(tmp_path):
    """Same pid, another start time: another process now has the pid; the file goes."""
    pid = os.getpid()
    if temporaries.process_start(pid) == 0:
        pytest.skip("process start times are read from /proc (Linux)")
    left = _leftover(tmp_path, "out.ids", pid, temporaries.process_start(pid) + 1)
    atomic_write_bytes(tmp_path / "out.ids", b"new")
    assert not left.exists()


def test_another_machines_temporary_is_kept(tmp_path):
    """A temporary written from another host (shared storage) cannot be judged: kept."""
    left = _leftover(tmp_path, "out.ids", _dead_pid(), host="ffffffff")
    atomic_write_bytes(tmp_path / "out.ids", b"new")
    assert left.exists()


# ---------------------------------------------------------------- errors name the target


def test_a_directory_as_target_is_refused_naming_it(tmp_path):
    """'-o existing_dir': refused before writing, naming the directory."""
    with pytest.raises(IsADirectoryError) as caught:
        AtomicFile(tmp_path)
    assert caught.value.filename == str(tmp_path) and os.listdir(tmp_path) == []


def test_an_empty_target_is_refused(tmp_path, monkeypatch):
    """'-o ""' is refused: no temporary lands in the current or parent folder."""
    monkeypatch.chdir(tmp_path / ".")
    with pytest.raises(ValueError, match="output path is empty"):
        AtomicFile("")
    assert os.listdir(tmp_path) == [] and not any(
        n.endswith(".tmp") for n in os.listdir(tmp_path.parent))


def test_failed_first_save_leaves_no_empty_folder(tmp_path, monkeypatch):
    """A first save into a new folder that fails removes the folder it made."""
    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"), \
            FileSet(tmp_path / "tok", kind="tokenizer") as files:
        files.write("a.txt", "a")
    assert os.listdir(tmp_path) == []


@posix_only
def test_a_lock_held_forever_is_given_up_on(tmp_path, monkeypatch):
    """A writer stopped inside its commit (Ctrl-Z) holds the lock: readers go on after
    LOCK_WAIT_SECONDS instead of hanging, and still check the manifest."""
    import fcntl

    with FileSet(tmp_path / "tok", kind="tokenizer") as files:
        files.write("a.txt", "a")
    monkeypatch.setattr(folder_lock, "LOCK_WAIT_SECONDS", 0.05)
    stuck = os.open(tmp_path / "tok", os.O_RDONLY)
    try:
        fcntl.flock(stuck, fcntl.LOCK_EX)
        assert read_file_set(tmp_path / "tok", keep=["a.txt"]) == {"a.txt": b"a"}
    finally:
        os.close(stuck)


def test_an_input_error_inside_a_save_keeps_its_own_name(tmp_path):
    """An OSError about another file (an input) raised while saving is not renamed."""
    with pytest.raises(FileNotFoundError) as caught, \
            FileSet(tmp_path / "tok", kind="tokenizer") as files:
        files.write("a.txt", "a")
        open(tmp_path / "missing-input.txt")
    assert caught.value.filename == str(tmp_path / "missing-input.txt")


def _commit_and_die(folder, new: dict[str, bytes], cut: int) -> None:
    """In a forked child: commit ``new`` into ``folder`` and die (``os._exit``, like a
    SIGKILL: nothing is cleaned up) right after rename ``cut`` of the commit."""
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        renames = []

        def die_here(seconds):
            renames.append(seconds)
            if len(renames) == cut:
                os._exit(0)

        os.environ[atomic.PAUSE_ENV] = "1"
        journal.time.sleep = die_here
        sys.stderr = io.StringIO()
        with FileSet(folder, kind="tokenizer") as files:
            for name, data in new.items():
                files.write(name, data)
    finally:
        os._exit(0)


_contents = st.binary(max_size=40)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=st.dictionaries(st.sampled_from(["a", "b", "c", "d/e"]), _contents, min_size=1),
       new=st.dictionaries(st.sampled_from(["a", "b", "c", "d/e"]), _contents, min_size=1),
       cut=st.integers(min_value=1, max_value=8))
def test_a_commit_cut_after_any_rename_reads_old_or_new_whole(tmp_path_factory, old, new,
                                                              cut):
    """Whatever the two versions and wherever the commit dies, a reader gets exactly the
    old files or exactly the new ones (the kept previous set is put back), and the folder
    holds exactly those files afterwards."""
    folder = tmp_path_factory.mktemp("set")
    with FileSet(folder, kind="tokenizer") as files:
        for name, data in old.items():
            files.write(name, data)
    _commit_and_die(folder, new, cut)
    seen = read_file_set(folder, keep=set(old) | set(new))
    assert seen in (old, new)
    on_disk = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
               if p.is_file() and p.name != MANIFEST and ".wp-" not in p.name}
    assert on_disk == seen
