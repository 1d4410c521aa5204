"""Write files, sets of files and directories so that a reader sees the old or the new, whole.

One writer for every output of the package (saves, the command line's outputs, ``.npy``
arrays, TensorFlow SavedModels), so that all of them behave alike:

- data goes to a temporary name beside its target (same file system, so the final
  rename is atomic), never to the target itself; the temporary's name carries its
  writer (``.NAME.wp-HOST-PID-START-RANDOM.tmp``: a hash of the host name, the process id
  and the process's start time), so the next run on the same folder removes what a
  killed run left, and never a live writer's file (another machine's is always kept);
- a new file gets the permissions a plain ``open(path, "w")`` would give it, or keeps
  those of the file it replaces; data is fsynced before the rename and the directory
  after it (best effort);
- on any failure, Ctrl-C included, the temporaries are removed and the target is left
  as it was; an ``OSError`` (disk full, permission denied) names the target, never a
  temporary;
- ``AtomicFile`` writes one file; ``FileSet`` several files that belong together (a
  tokenizer directory, a bundle directory, an ``.npy`` pair): all are written to
  temporaries, then, under an exclusive lock on the folder, the files it replaces are
  kept aside whole (``formats.journal``), the files only the previous save had are
  removed, a manifest of the new files' sizes and SHA-256 (``formats.manifest``) is
  renamed in, then each file, and the kept set is dropped. Readers (``read_file_set``)
  first put back a set a killed commit kept aside, then take a shared lock and check the
  files against the manifest, so they see the old set whole or the new one, never a mix.
  A set never removes a file it cannot show it wrote: the only files it deletes are
  those its own previous manifest (same name, same kind) listed, plain files inside the
  folder, still unchanged, that the new set no longer has; a file at the manifest's name
  that is not a manifest of this package is never replaced (the save is refused, naming
  it). Every name is reached without following a link (``formats.inside``): a folder of
  the set that is a link is refused, a link at a file's name is replaced, never written
  through.
- ``atomic_directory`` builds a whole directory (the TensorFlow export) beside the target
  and swaps it in; it refuses to replace anything but an empty directory or an earlier
  output of the same kind that holds only the files its manifest lists.

Test hook: when ``WORDPIECES_TEST_PAUSE_AFTER_RENAME`` is set to a number of seconds,
every rename of a multi-file commit prints ``wordpieces-test: renamed NAME`` on stderr
and sleeps that long, so that tests can kill a writer exactly between two renames
(``formats.journal.test_pause``).

Not handled here: keeping the replaced file's owner, group, ACLs or extended attributes;
writing through a symlink (the link itself is replaced by a regular file); a lock on
file systems without ``flock`` (NFS without lock support, Windows): there two writers
committing at the same instant can leave a mix, which readers then report; telling
whether another machine's writer is alive (its temporaries are kept).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import sys
from collections.abc import Iterator
from typing import IO

from ..errors import FormatError
from .folder_lock import LOCK_WAIT_SECONDS, directory_lock
from .inside import check_not_special, check_plain, plain_kind, refusal, unlink_plain
from .journal import (
    PAUSE_ENV,
    finish,
    keep_previous,
    previous_path,
    recover,
    roll_back,
    test_pause,
)
from .manifest import (
    MANIFEST,
    Manifest,
    file_entry,
    manifest_text,
    own_manifest,
    plain_entry,
    read_manifest,
    verify_files,
)
from .temporaries import (
    checked_target,
    create_temporary,
    current_umask,
    directory_mode,
    file_mode,
    fsync_directory,
    naming,
    open_stream,
    remove_file,
    remove_stale_temporaries,
    temporary_name,
)

__all__ = ["PAUSE_ENV", "AtomicFile", "FileSet", "atomic_directory", "atomic_write_bytes",
           "atomic_write_text", "check_replaceable", "checked_target", "current_umask",
           "fsync_directory", "naming", "own_manifest", "read_file_set", "recover"]



# ---------------------------------------------------------------- one file


class AtomicFile:
    """A file written under a temporary name beside ``path``; ``commit`` renames it over.

    ``binary=False`` gives a UTF-8 text file without newline translation. Used as a
    context manager, it yields the open file and commits when the block ends without an
    error, or discards it otherwise.

    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> with AtomicFile(target, binary=False) as f:
    ...     _ = f.write("[PAD]\\n")
    >>> open(target).read()
    '[PAD]\\n'
    """

    def __init__(self, path: str | os.PathLike, *, binary: bool = True):
        self.path = checked_target(path)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        remove_stale_temporaries(self.directory)
        try:
            fd, self.temporary = create_temporary(self.directory,
                                                   os.path.basename(self.path),
                                                   file_mode(self.path))
        except OSError as e:
            raise naming(e, self.path) from None
        self.file: IO = open_stream(fd, self.path, binary)

    def commit(self) -> None:
        """Flush and fsync the data, rename it over ``path``, fsync the directory."""
        try:
            _seal(self.file)
            os.replace(self.temporary, self.path)
        except BaseException as e:
            self.discard()
            if isinstance(e, OSError):
                raise naming(e, self.path) from None
            raise
        fsync_directory(self.directory)

    def discard(self) -> None:
        """Close and remove the temporary file; ``path`` is left as it was."""
        with contextlib.suppress(OSError):
            self.file.close()
        remove_file(self.temporary)

    def __enter__(self):
        return self.file

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def _seal(file: IO) -> None:
    """Flush, fsync and close ``file``."""
    file.flush()
    os.fsync(file.fileno())
    file.close()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically.

    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> atomic_write_bytes(target, b"[PAD]\\n")
    >>> oct(os.stat(target).st_mode & 0o777) == oct(0o666 & ~current_umask())
    True
    """
    with AtomicFile(path) as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` atomically (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"))


# ---------------------------------------------------------------- a set of files


class FileSet:
    """Files that belong together, written into ``directory`` as one unit.

    ``open(name)`` gives a file to write (``name`` may hold ``/`` for a subfolder);
    ``commit`` puts them all in place behind a manifest (``kind`` says what the set is:
    ``tokenizer``, ``bundle``, ``npy-pair``), ``discard`` drops them. As a context
    manager it commits when the block ends without an error. ``shared_folder``: the
    files go into a folder that holds much else (an ``.npy`` pair's), so dead writers'
    leftovers are looked for there only, not in its subfolders too.

    >>> import os, tempfile
    >>> folder = os.path.join(tempfile.mkdtemp(), "tok")
    >>> with FileSet(folder, kind="example") as files:
    ...     files.write("a.txt", "one\\n"); files.write("b.txt", "two\\n")
    >>> sorted(os.listdir(folder))
    ['a.txt', 'b.txt', 'wordpieces-manifest.json']
    >>> read_file_set(folder, keep=["b.txt"])
    {'b.txt': b'two\\n'}
    """

    def __init__(self, directory: str | os.PathLike, *, kind: str, manifest: str = MANIFEST,
                 shared_folder: bool = False):
        self.target = os.fspath(directory)
        if not self.target:
            raise ValueError("the output path is empty: name a directory")
        self.directory = os.path.abspath(self.target)
        self.kind, self.manifest = kind, manifest
        self._temporaries: dict[str, tuple[str, IO]] = {}
        self._cleaned: set[str] = set()
        self._created = not os.path.isdir(self.directory)  # removed again if left empty
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as e:
            raise naming(e, self.target) from None
        self._folder("")
        own_manifest(self.directory, self.manifest)  # a foreign one: refused before any work
        if not shared_folder:  # a folder of its own (not the one an .npy pair goes to)
            self._clean_subfolders()

    def _clean_subfolders(self) -> None:
        """Clear dead writers' leftovers one level down too (a bundle's member folders).

        A folder left empty by that (made by a killed run) is removed as well.
        """
        with contextlib.suppress(OSError), os.scandir(self.directory) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and \
                        remove_stale_temporaries(entry.path):
                    with contextlib.suppress(OSError):
                        os.rmdir(entry.path)  # only if now empty

    def _folder(self, subfolder: str) -> str:
        """Make ``subfolder`` of the set's directory and clear dead writers' leftovers.

        A folder on the way that is a link (``bundle/en -> elsewhere``) is refused: the
        set's files are written inside its directory only.
        """
        folder = os.path.join(self.directory, *subfolder.split("/")) if subfolder \
            else self.directory
        if folder not in self._cleaned:
            if subfolder:
                path, what = plain_kind(self.directory, subfolder)
                if what not in (None, "a directory"):
                    raise refusal(path, what)
            os.makedirs(folder, exist_ok=True)
            remove_stale_temporaries(folder)
            self._cleaned.add(folder)
        return folder

    def _final(self, name: str) -> str:
        return os.path.join(self.directory, *name.split("/"))

    def open(self, name: str, *, binary: bool = True) -> IO:
        """A new file of the set, to be written; it appears at ``name`` on commit."""
        if name in self._temporaries or name == self.manifest:
            raise ValueError(f"{self.target}: {name} is already part of this save")
        return self._open(name, binary)

    def _open(self, name: str, binary: bool) -> IO:
        final = self._final(name)
        try:
            folder = self._folder(os.path.dirname(name))
            path, what = plain_kind(self.directory, name)
            if what == "a directory":
                raise IsADirectoryError(errno.EISDIR, "is a directory", final)
            fd, temporary = create_temporary(folder, os.path.basename(name),
                                              file_mode(final) if what is None
                                              else 0o666 & ~current_umask())
        except OSError as e:
            raise naming(e, final) from None
        stream = open_stream(fd, final, binary)
        self._temporaries[name] = (temporary, stream)
        return stream

    def write(self, name: str, data: str | bytes) -> None:
        """Add file ``name`` holding ``data`` (text is written as UTF-8)."""
        self.open(name).write(data.encode("utf-8") if isinstance(data, str) else data)

    def commit(self) -> None:
        """Put every file in place: the manifest first, then each file; then fsync."""
        try:
            entries = {}
            for name, (temporary, stream) in self._temporaries.items():
                _seal(stream)
                entries[name] = file_entry(temporary)
            replaced = {name: _version(self.directory, name) for name in entries}
            with directory_lock(self.directory, exclusive=True) as held:
                if not held:
                    raise BlockingIOError(errno.EAGAIN, f"another process has held this "
                                          f"folder's lock for {LOCK_WAIT_SECONDS:.0f} s (a "
                                          f"save stopped inside its commit?): nothing was "
                                          f"changed; try again", self.target)
                self._commit_locked(entries, replaced)
        except BaseException as e:
            self.discard()
            if isinstance(e, OSError):
                raise naming(e, self.target) from None
            raise
        for folder in self._cleaned:
            fsync_directory(folder)

    def _commit_locked(self, entries: dict[str, dict], replaced: dict) -> None:
        """Under the folder's lock: keep the old set aside, write the manifest, rename it
        in, then every file; then drop the kept set (``formats.journal``)."""
        roll_back(self.directory, self.manifest)  # a killed earlier commit: undo it first
        for name in entries:  # another writer may have committed since they were hashed
            now = _stat_key(self.directory, name)
            if (replaced[name] or (None,))[0] != now:
                replaced[name] = _version(self.directory, name)
        for name, entry in entries.items():
            if replaced[name] is not None and replaced[name][1] != entry:
                entry["replaces"] = replaced[name][1]
        listing = self._open(self.manifest, binary=False)  # a full disk fails here, early
        listing.write(manifest_text(self.kind, entries, self.manifest))
        _seal(listing)
        dropped = self._dropped(own_manifest(self.directory, self.manifest), entries)
        keep_previous(self.directory, self.manifest,
                      sorted(entries) + dropped + [self.manifest],
                      {**entries, self.manifest: file_entry(
                          self._temporaries[self.manifest][0])})
        try:
            self._switch(dropped)
        except BaseException:  # disk error, Ctrl-C: the old set goes back now
            with contextlib.suppress(OSError, FormatError):
                roll_back(self.directory, self.manifest)
            raise
        finish(self.directory, self.manifest)

    def _switch(self, dropped: list[str]) -> None:
        """Remove the dropped files, rename the manifest in, then every file."""
        for name in dropped:
            unlink_plain(self.directory, name)
            _remove_empty_folders(os.path.dirname(self._final(name)), self.directory)
        _rename(self._temporaries[self.manifest][0], self._final(self.manifest),
                self.manifest)
        del self._temporaries[self.manifest]
        for name in sorted(self._temporaries):
            _rename(self._temporaries[name][0], self._final(name), name)
        self._temporaries.clear()

    def _dropped(self, previous: Manifest | None, entries: dict[str, dict]) -> list[str]:
        """The files this set's previous save wrote, still unchanged, that it has not.

        Only a manifest this set wrote counts (its own name and kind recorded): a copy
        of another set's manifest (``cp train.manifest.json val.manifest.json``) or an
        older save's removes nothing. Only plain files inside the folder count.
        """
        if previous is None or previous.name != self.manifest or previous.kind != self.kind:
            return []
        dropped = []
        for name, entry in previous.files.items():
            if name in entries or name == self.manifest:
                continue
            with contextlib.suppress(OSError, FormatError):
                if plain_entry(self.directory, name) == {"size": entry["size"],
                                                         "sha256": entry["sha256"]}:
                    dropped.append(name)
        return dropped

    def discard(self) -> None:
        """Close and remove every temporary; the targets are left as they were."""
        for temporary, stream in self._temporaries.values():
            with contextlib.suppress(OSError):
                stream.close()
            remove_file(temporary)
        self._temporaries.clear()
        if self._created:
            with contextlib.suppress(OSError):
                os.rmdir(self.directory)  # only if nothing else came into it

    def __enter__(self) -> FileSet:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
            return
        self.discard()
        if isinstance(exc, OSError):
            raise naming(exc, self.target) from None


def _stat_key(directory: str, name: str) -> tuple | None:
    """Identity of the regular file at ``name`` (no link followed), None if none."""
    path, what = plain_kind(directory, name)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return None if what is not None else (st.st_ino, st.st_size, st.st_mtime_ns)


def _version(directory: str, name: str) -> tuple[tuple, dict] | None:
    """The stat key and the size and SHA-256 of regular file ``name``, None if none."""
    key = _stat_key(directory, name)
    if key is None:
        return None
    try:
        entry = plain_entry(directory, name)
    except (OSError, FormatError):
        return None
    return None if entry is None else (key, entry)


def _remove_empty_folders(folder: str, root: str) -> None:
    while os.path.abspath(folder) != os.path.abspath(root):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = os.path.dirname(folder)


def _rename(source: str, destination: str, label: str) -> None:
    os.replace(source, destination)
    test_pause(label)


def read_file_set(directory: str | os.PathLike, *, manifest: str = MANIFEST,
                  keep=(), reads=()) -> dict[str, bytes] | None:
    """Check a saved set against its manifest; return the bytes of the files in ``keep``.

    A set a killed save kept aside is put back first (``recover``). None when
    ``directory`` has no manifest (a folder another tool wrote, a hub checkout of links,
    or an older save): the caller reads the files as they are, but one of ``keep`` or
    ``reads`` that is a FIFO or device is refused. With a manifest, the manifest, every
    file it lists and ``reads`` (names the caller opens itself) must be plain files
    inside the folder, never links. A file that is missing or differs from the manifest
    is a ``FormatError`` naming the folder and the file.
    """
    directory = os.fspath(directory)
    recover(directory, manifest)
    with directory_lock(directory, exclusive=False):
        listed = read_manifest(os.path.join(directory, manifest))
        if listed is None:
            check_not_special(directory, [*keep, *reads])
            return None
        check_plain(directory, [*keep, *reads])
        try:
            return verify_files(directory, listed.files, manifest, keep=set(keep))
        except FormatError as e:
            if os.path.lexists(previous_path(directory, manifest)):
                raise FormatError(f"{e} (the previous save is kept whole in "
                                  f"{previous_path(directory, manifest)}: a load or save "
                                  f"that may write the folder puts it back)") from None
            raise


# ---------------------------------------------------------------- a whole directory


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike, *, kind: str) -> Iterator[str]:
    """Yield an empty staging directory beside ``path`` that replaces ``path`` at the end.

    ``path`` may be missing, an empty directory, or an earlier output of this ``kind``
    holding only the files its manifest lists, unchanged; anything else (a file, a
    folder with other files) is refused before any work, naming what is in the way.
    The staging directory gets a manifest of every file in it, is fsynced, and is
    swapped in (in one step where Linux allows, else in two renames); the replaced
    directory is deleted. On an error the staging directory is deleted and ``path`` is
    left as it was. The parent directory must exist.
    """
    path = os.fspath(path)
    if not path:
        raise ValueError("the output path is empty: name a directory")
    parent = os.path.dirname(os.path.abspath(path))
    check_replaceable(path, kind)
    remove_stale_temporaries(parent)
    mode = directory_mode(path)
    staging = os.path.join(parent, temporary_name(os.path.basename(os.path.abspath(path))))
    try:
        os.mkdir(staging, 0o700)
    except OSError as e:
        raise naming(e, path) from None
    try:
        yield staging
        _write_tree_manifest(staging, kind)
        os.chmod(staging, mode)  # private while building
        _fsync_tree(staging)
        with directory_lock(parent, exclusive=True):
            check_replaceable(path, kind)  # again: it may have changed meanwhile
            _swap_in(staging, path, parent)
    except BaseException as e:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(e, OSError):
            raise naming(e, path) from None
        raise
    fsync_directory(parent)


def check_replaceable(path: str, kind: str) -> None:
    """Refuse, naming what is in the way, unless ``path`` may be replaced by a ``kind``."""
    if not os.path.lexists(path):
        return
    if os.path.islink(path) or not os.path.isdir(path):
        raise FileExistsError(errno.EEXIST, f"exists and is not a directory: the {kind} "
                              f"is a directory and replaces only an earlier {kind}", path)
    files = sorted(_tree_files(path))
    if not files and not os.listdir(path):
        return
    try:
        listed: Manifest | None = read_manifest(os.path.join(path, MANIFEST))
    except FormatError:  # a link, a FIFO or another tool's file at the manifest's name
        listed = None
    if listed is None or listed.kind != kind:
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3
                                        else "")
        raise FileExistsError(errno.EEXIST, f"not an earlier {kind} (it holds "
                              f"{shown or 'folders'}): refusing to replace it; choose a "
                              f"new or empty directory", path)
    unlisted = [f for f in files if f != MANIFEST and f not in listed.files]
    if unlisted:
        raise FileExistsError(errno.EEXIST, f"holds {unlisted[0]}, which the earlier {kind} "
                              f"did not write: refusing to delete it", path)
    try:
        verify_files(path, listed.files, MANIFEST, strict=True)
    except FormatError as e:  # a changed file is no longer what we wrote: keep it
        raise FileExistsError(errno.EEXIST, f"{e}: refusing to delete it", path) from None


def _tree_files(root: str) -> Iterator[str]:
    """Every non-directory under ``root``, as a '/'-separated relative path."""
    for directory, folders, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        for name in files + [f for f in folders if os.path.islink(os.path.join(directory, f))]:
            yield name if relative == "." else f"{relative.replace(os.sep, '/')}/{name}"


def _write_tree_manifest(root: str, kind: str) -> None:
    entries = {name: file_entry(os.path.join(root, *name.split("/")))
               for name in _tree_files(root) if name != MANIFEST}
    with open(os.path.join(root, MANIFEST), "w", encoding="utf-8", newline="\n") as f:
        f.write(manifest_text(kind, entries, MANIFEST))


def _swap_in(staging: str, path: str, parent: str) -> None:
    """Put ``staging`` at ``path``; delete what was there (already checked to be ours)."""
    if not os.path.lexists(path):
        _rename(staging, path, os.path.basename(path))
        return
    if exchange(staging, path):  # staging now holds the old directory
        test_pause(os.path.basename(path))
        shutil.rmtree(staging, ignore_errors=True)
        return
    old = os.path.join(parent, temporary_name(os.path.basename(path), "old"))
    _rename(path, old, "old " + os.path.basename(path))
    try:
        _rename(staging, path, os.path.basename(path))
    except BaseException:
        os.replace(old, path)  # put the previous one back
        raise
    shutil.rmtree(old, ignore_errors=True)


def exchange(first: str, second: str) -> bool:
    """Swap two existing paths in one step (Linux ``renameat2``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(first), at_cwd, os.fsencode(second),
                 rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), second)


def _fsync_tree(root: str) -> None:
    """Fsync every file and directory under ``root``, so that the rename exposes data.

    Skipped on Windows, where a file must be open for writing to be flushed.
    """
    if os.name == "nt":
        return
    for directory, _, files in os.walk(root):
        for name in files:
            file_path = os.path.join(directory, name)
            if os.path.islink(file_path) or not os.path.isfile(file_path):
                continue  # a link's target is not ours; a FIFO would block
            fd = os.open(file_path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_directory(directory)

