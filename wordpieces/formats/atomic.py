"""Write files atomically: a reader sees the old file or the new one, never half of one.

The new file gets the permissions a plain ``open(path, "w")`` would give it (``0o666``
less the umask), or keeps those of the file it replaces; the data is fsynced before the
rename and the directory after it (best effort), so the rename survives a crash.

Not handled: atomic replacement of whole directories (a bundle directory is written
file by file, each file atomically; a ``.zip`` bundle is one atomic file); keeping the
replaced file's owner, group, ACLs or extended attributes; writing through a symlink
(the link itself is replaced by a regular file).
"""

from __future__ import annotations

import os
import stat
import tempfile


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it over.

    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> atomic_write_bytes(target, b"[PAD]\\n")
    >>> oct(os.stat(target).st_mode & 0o777) == oct(0o666 & ~current_umask())
    True
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            _chmod(f.fileno(), tmp, mode)  # mkstemp makes the file 0600
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_directory(directory)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` atomically (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _mode_for(path: str) -> int:
    """The permission bits of the file being replaced, else those a new file gets."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0o666 & ~current_umask()
    return stat.S_IMODE(st.st_mode)


def _chmod(fd: int, path: str, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows before Python 3.13: only the read-only bit exists anyway
        os.chmod(path, mode)


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
