"""Files inside a saved folder: reached by plain names, never through a link or a FIFO.

A saved folder (a tokenizer directory, a bundle, the folder of an ``.npy`` pair) is
untrusted: someone may have put a symbolic link (``lnk -> ../outside``,
``vocab.txt -> /etc/passwd``) or a FIFO in it. Every file a save replaces or removes,
and every file a load reads from a folder it checks, is reached here: the name is a
plain relative path (``formats.manifest.is_safe_name``), each folder on the way is
opened without following a link (``O_NOFOLLOW`` relative to the one before, where the
system has ``dir_fd``), and the file itself is opened ``O_NOFOLLOW | O_NONBLOCK`` and
must be a regular file (``fstat``), so a link is refused by name instead of followed,
and a FIFO or device is refused without an open that blocks or a read that never ends.

``plain_kind`` says what is at a name without opening it (``lstat``); ``open_plain``
opens a regular file for reading; ``unlink_plain`` removes one. Problems are
``FormatError``s for a load and ``FileExistsError``s naming the path for a save
(``refusal``).

Not handled here: what the files mean, the manifest (``formats.manifest``), writing
(``formats.atomic``). The folder given as the root itself may be a link: it is the
target the caller named.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

from ..errors import FormatError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_WITH_DIR_FD = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd \
    and os.unlink in os.supports_dir_fd


def describe_kind(mode: int) -> str:
    """What a non-regular file is, in words (for messages)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def not_plain_error(path: str, what: str) -> FormatError:
    """The load error for a file of a saved folder that is a link or a special file."""
    if what == "a symbolic link":
        advice = ("a saved folder's files are read only as plain files inside it, never "
                  "through a link; copy the file there instead (cp -L)")
    else:
        advice = "it could block or never end; a saved folder holds regular files only"
    return FormatError(f"{path}: is {what}, not a regular file: refusing to read it "
                       f"({advice})")


def refusal(path: str, what: str) -> FileExistsError:
    """The save error for a name of the set that is held by a link or a special file."""
    return FileExistsError(errno.EEXIST, f"is {what}: refusing to write through it or "
                           f"replace it; remove it, or save elsewhere", path)


@contextlib.contextmanager
def _folder_fd(root: str, parts: list[str]) -> Iterator[int | None]:
    """An fd of folder ``root/parts...``, each part opened without following a link.

    None where the system has no ``dir_fd`` (the caller then goes by path, after
    ``_check_folders``). ``FileNotFoundError`` if a part is missing; an ``OSError``
    with ``ELOOP``/``ENOTDIR`` when a part is a link or not a folder.
    """
    if not _WITH_DIR_FD:
        _check_folders(root, parts)
        yield None
        return
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts:
            inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _check_folders(root: str, parts: list[str]) -> None:
    """Without ``dir_fd``: each folder on the way must be a real folder (``lstat``)."""
    path = root
    for part in parts:
        path = os.path.join(path, part)
        mode = os.lstat(path).st_mode
        if not stat.S_ISDIR(mode):
            raise OSError(errno.ELOOP if stat.S_ISLNK(mode) else errno.ENOTDIR,
                          describe_kind(mode), path)


def _split(name: str) -> tuple[list[str], str]:
    parts = name.split("/")
    return parts[:-1], parts[-1]


def _lstat(root: str, name: str) -> os.stat_result | None:
    """``lstat`` of ``root/name`` reached without links; None if missing.

    A folder on the way that is a link or a file raises ``_OnTheWay``.
    """
    folders, base = _split(name)
    try:
        with _folder_fd(root, folders) as fd:
            if fd is None:
                return os.lstat(os.path.join(root, *name.split("/")))
            return os.stat(base, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise _OnTheWay(_first_not_folder(root, folders)) from None
        raise


class _OnTheWay(Exception):
    """A folder on the way to a name is a link (or not a folder): its path and kind."""

    def __init__(self, found: tuple[str, str]):
        super().__init__(found)
        self.path, self.what = found


def _first_not_folder(root: str, folders: list[str]) -> tuple[str, str]:
    path = root
    for part in folders:
        path = os.path.join(path, part)
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if not stat.S_ISDIR(mode):
                return path, "not a directory" if stat.S_ISREG(mode) else describe_kind(mode)
    return path, "not a directory"


def plain_kind(root: str, name: str) -> tuple[str, str | None]:
    """What is at ``root/name`` without following links: (path, None) for a regular
    file or nothing; (path, what) otherwise ("a symbolic link", "a FIFO" ...).

    A folder on the way that is a link is reported as that folder.
    """
    path = os.path.join(root, *name.split("/"))
    try:
        st = _lstat(root, name)
    except _OnTheWay as e:
        return e.path, e.what
    if st is None or stat.S_ISREG(st.st_mode):
        return path, None
    return path, describe_kind(st.st_mode)


def check_plain(root: str, names) -> None:
    """Refuse (``FormatError``) the first of ``names`` that is a link or a special file."""
    for name in names:
        path, what = plain_kind(root, name)
        if what is not None:
            raise not_plain_error(path, what)


def check_not_special(directory: str, names) -> None:
    """Refuse (``FormatError``) the first of ``names`` that is a FIFO, socket or device.

    Links are followed here (a folder without manifest: a hub checkout is links).
    """
    for name in names:
        path = os.path.join(directory, *name.split("/"))
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue  # missing, or a dangling link: the caller's read says so
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise not_plain_error(path, describe_kind(mode))


def open_plain(root: str, name: str) -> int | None:
    """A read-only fd of regular file ``root/name``, None if missing; else ``FormatError``.

    Never follows a link, never blocks on a FIFO (opened non-blocking, then checked
    with ``fstat`` and set back to blocking).
    """
    path = os.path.join(root, *name.split("/"))
    folders, base = _split(name)
    flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        with _folder_fd(root, folders) as dir_fd:
            fd = (_open_by_path(path, flags) if dir_fd is None
                  else os.open(base, flags, dir_fd=dir_fd))
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            found = plain_kind(root, name)
            raise not_plain_error(found[0], found[1] or "a symbolic link") from None
        raise FormatError(f"{path}: cannot read: {e.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_plain_error(path, describe_kind(mode))
    if _NONBLOCK and hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def _open_by_path(path: str, flags: int) -> int:
    """Without ``dir_fd``: refuse a link by ``lstat`` (no ``O_NOFOLLOW`` on Windows)."""
    if os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symbolic link", path)
    return os.open(path, flags)


def read_plain(root: str, name: str, limit: int | None = None) -> bytes | None:
    """The bytes of regular file ``root/name`` (None if missing); see ``open_plain``.

    ``limit``: at most that many bytes plus one are read (the caller tells "too big").
    """
    fd = open_plain(root, name)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read() if limit is None else f.read(limit + 1)
        except OSError as e:
            raise FormatError(f"{os.path.join(root, name)}: cannot read: {e.strerror}") \
                from None


def unlink_plain(root: str, name: str) -> None:
    """Remove regular file ``root/name`` reached without links (never a link's target).

    Missing: nothing to do. A link on the way or a non-regular file: left alone.
    """
    folders, base = _split(name)
    try:
        with _folder_fd(root, folders) as fd:
            if fd is None:
                path = os.path.join(root, *name.split("/"))
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.unlink(path)
                return
            if stat.S_ISREG(os.stat(base, dir_fd=fd, follow_symlinks=False).st_mode):
                os.unlink(base, dir_fd=fd)
    except FileNotFoundError:
        return
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise
