"""Write files and directories atomically: a reader sees the old one or the new one, never half.

One writer for every output of the package (saves, the command line's outputs, ``.npy``
arrays, TensorFlow SavedModels), so that all of them behave alike:

- the data goes to a temporary name beside the target (same file system, so the final
  rename is atomic), never to the target itself;
- the new file gets the permissions a plain ``open(path, "w")`` would give it (``0o666``
  less the umask; ``0o777`` less the umask for a directory), or keeps those of the file
  or directory it replaces;
- the data is fsynced before the rename and the directory after it (best effort), so the
  rename survives a crash;
- on any failure, Ctrl-C included, the temporary is removed and the target is untouched.

``AtomicFile`` streams (write as much as you like, then ``commit``);
``atomic_write_bytes``/``atomic_write_text`` write one value; ``atomic_directory`` yields
a staging directory that replaces the target directory when the block ends.

Not handled here: keeping the replaced file's owner, group, ACLs or extended attributes;
writing through a symlink (the link itself is replaced by a regular file); replacing a
directory in one step (it takes two renames: the old directory is moved aside, then the
new one moved in, so for an instant the path is missing).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from typing import IO


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
        self.path = os.fspath(path)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        mode = _file_mode(self.path)
        fd, self.temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp",
                                              prefix="." + os.path.basename(self.path) + ".")
        try:
            _chmod(fd, self.temporary, mode)  # mkstemp makes the file 0600
            self.file: IO = (os.fdopen(fd, "wb") if binary
                             else os.fdopen(fd, "w", encoding="utf-8", newline="\n"))
        except BaseException:
            os.close(fd)
            _remove(self.temporary)
            raise

    def commit(self) -> None:
        """Flush and fsync the data, rename it over ``path``, fsync the directory."""
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self.temporary, self.path)
        except BaseException:
            self.discard()
            raise
        fsync_directory(self.directory)

    def discard(self) -> None:
        """Close and remove the temporary file; ``path`` is left as it was."""
        with contextlib.suppress(OSError):
            self.file.close()
        _remove(self.temporary)

    def __enter__(self):
        return self.file

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


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


@contextlib.contextmanager
def atomic_directory(path: str | os.PathLike) -> Iterator[str]:
    """Yield an empty staging directory beside ``path`` that replaces ``path`` at the end.

    A directory at ``path`` when the block ends well is moved aside and deleted, whatever
    it held (a file there is moved to a hidden ``.NAME.old.*`` name), and the staging
    directory, its files fsynced, takes its place; on an error the staging directory is
    deleted and ``path`` is left as it was. The parent directory must exist.
    """
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    prefix = "." + os.path.basename(path) + "."
    mode = _directory_mode(path)
    staging = tempfile.mkdtemp(dir=parent, prefix=prefix)
    try:
        yield staging
        os.chmod(staging, mode)  # mkdtemp makes it private
        _fsync_tree(staging)
        _swap_in(staging, path, parent, prefix)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    fsync_directory(parent)


def _swap_in(staging: str, path: str, parent: str, prefix: str) -> None:
    """Rename ``staging`` to ``path``, moving an existing ``path`` aside and deleting it."""
    old = None
    if os.path.lexists(path):
        old = tempfile.mkdtemp(dir=parent, prefix=prefix + "old.")
        os.rmdir(old)  # only its unique name is wanted
        os.replace(path, old)
    try:
        os.replace(staging, path)
    except BaseException:
        if old is not None:
            os.replace(old, path)  # put the previous one back
        raise
    if old is not None:
        # A directory is deleted; a file or link that stood at ``path`` is only hidden
        # under the ``.old.`` name (rmtree refuses it), as the export always did.
        shutil.rmtree(old, ignore_errors=True)


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


def _file_mode(path: str) -> int:
    """The permission bits of the file being replaced, else those a new file gets."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def _directory_mode(path: str) -> int:
    """The permission bits of the directory being replaced, else those a new one gets."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0o777 & ~current_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISDIR(st.st_mode) else 0o777 & ~current_umask()


def _chmod(fd: int, path: str, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows before Python 3.13: only the read-only bit exists anyway
        os.chmod(path, mode)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def current_umask() -> int:
    """The process's umask, read without changing it when the system allows.

    ``os.umask`` can only be read by setting it, which for an instant gives files that
    other threads create the wrong mode; Linux shows it in ``/proc/self/status``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_directory(directory: str) -> None:
    """Flush a directory's entries to disk, so that a rename in it survives a crash.

    Best effort: Windows cannot open a directory and some file systems refuse to fsync
    one; the data itself is already safe, only the name might be lost.
    """
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
