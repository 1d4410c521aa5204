"""Temporary files beside their targets: names that say who writes them, and their cleanup.

Every temporary the package writes is named ``.NAME.wp-HOST-PID-START-RANDOM.tmp`` (or
``.old`` for a directory moved aside): a hash of the host name, the writer's process id
and start time. The next writer in the same folder removes the temporaries whose writer
is gone (``remove_stale_temporaries``) and never those of a live one: a process id that
was reused by another program has another start time; a writer on another machine is
always presumed alive. Also here: the permission bits a new file gets, and ``OSError``s
that name the file the user asked for rather than its temporary.

Not handled here: the atomic writing itself (``formats.atomic``); telling whether a writer
on another machine is alive; liveness on Windows (temporaries there are never removed by
others, since ``os.kill(pid, 0)`` would end the process).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
import secrets
import shutil
import socket
import stat
from typing import IO

_HOST = hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]
TEMPORARY_NAME = re.compile(r"\.(?P<base>.+)\.wp-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-"
                            r"(?P<start>\d+)-[0-9a-f]{8}\.(?P<kind>tmp|old)\Z", re.S)
_MAX_BASE = 160  # keeps a temporary's name under the usual 255-byte limit
_owners: dict[int, str] = {}


# ---------------------------------------------------------------- temporaries and owners


def process_start(pid: int) -> int:
    """When process ``pid`` started (clock ticks since boot, Linux), else 0 (unknown)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        # the command name (field 2) may hold spaces or ')': count fields after the last ')'
        return int(data[data.rfind(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


def owner() -> str:
    """This process as a temporary's name records it: HOST-PID-START (cached per pid)."""
    pid = os.getpid()  # changes in a forked child, so the cache is per pid
    if pid not in _owners:
        _owners[pid] = f"{_HOST}-{pid}-{process_start(pid)}"
    return _owners[pid]


def temporary_name(base: str, kind: str = "tmp") -> str:
    """A fresh temporary name for target file name ``base`` written by this process."""
    return f".{base[:_MAX_BASE]}.wp-{owner()}-{secrets.token_hex(4)}.{kind}"


def owner_alive(host: str, pid: int, start: int) -> bool:
    """Whether the writer a temporary names may still be running (unsure: yes)."""
    if host != _HOST or os.name == "nt":  # os.kill(pid, 0) would terminate it on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    except OSError:
        return True
    now = process_start(pid)
    return start == 0 or now in (0, start)  # another start time: the pid was reused


def remove_stale_temporaries(directory: str) -> list[str]:
    """Remove what killed writers left in ``directory``; return the paths removed.

    A temporary whose writer is alive (or on another machine) is kept. A moved-aside
    ``.old`` directory whose target is missing (a run killed between the two renames
    of a directory swap) is put back instead of removed.
    """
    removed: list[str] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        match = TEMPORARY_NAME.match(name)
        if match is None or owner_alive(match["host"], int(match["pid"]),
                                         int(match["start"])):
            continue
        path = os.path.join(directory, name)
        target = os.path.join(directory, match["base"])
        with contextlib.suppress(OSError):
            if match["kind"] == "old" and not os.path.lexists(target):
                os.rename(path, target)
                continue
            remove_any(path)
            removed.append(path)
    return removed


def remove_any(path: str) -> None:
    """Remove a file, a link, or a directory tree."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def create_temporary(directory: str, base: str, mode: int) -> tuple[int, str]:
    """Create and open a new temporary file for ``base`` in ``directory``."""
    while True:
        path = os.path.join(directory, temporary_name(base))
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            continue
        try:
            set_mode(fd, path, mode)  # created private; the final mode once complete
        except BaseException:
            os.close(fd)
            remove_file(path)
            raise
        return fd, path


def naming(error: OSError, target: str) -> OSError:
    """``error`` told about ``target`` (the file the user asked for), not a temporary.

    An error about another file (an input read inside the block) keeps its own name.
    """
    if error.errno is None or error.filename == target:
        return error
    if error.filename is not None and not TEMPORARY_NAME.match(
            os.path.basename(os.fsdecode(error.filename))):
        return error
    return OSError(error.errno, error.strerror or os.strerror(error.errno), target)


class _TargetFileIO(io.FileIO):
    """A raw file whose write errors (disk full, file too large) name the target."""

    def __init__(self, fd: int, target: str):
        super().__init__(fd, "wb", closefd=True)
        self.target = target

    def write(self, data, /):
        try:
            return super().write(data)
        except OSError as e:
            raise naming(e, self.target) from None


def open_stream(fd: int, target: str, binary: bool) -> IO:
    """A buffered binary (or UTF-8 text, no newline translation) stream over ``fd``."""
    raw = _TargetFileIO(fd, target)
    buffered = io.BufferedWriter(raw)
    if binary:
        return buffered
    return io.TextIOWrapper(buffered, encoding="utf-8", newline="\n")


def checked_target(path: str | os.PathLike) -> str:
    """``path`` as a string, refusing an empty path or a directory (where a file goes)."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path:
        raise ValueError("the output path is empty: name a file")
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a directory (expected a file name)", path)
    return path


# ---------------------------------------------------------------- modes and syncing


def file_mode(path: str) -> int:
    """The permission bits of the file being replaced, else those a new file gets."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def directory_mode(path: str) -> int:
    """The permission bits of the directory being replaced, else those a new one gets."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0o777 & ~current_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISDIR(st.st_mode) else 0o777 & ~current_umask()


def set_mode(fd: int, path: str, mode: int) -> None:
    """Give the open file ``fd`` (at ``path``) the permission bits ``mode``."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows before Python 3.13: only the read-only bit exists anyway
        os.chmod(path, mode)


def remove_file(path: str) -> None:
    """Remove ``path`` if it is there."""
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
