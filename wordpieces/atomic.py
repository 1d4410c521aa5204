"""Write files atomically: a reader sees the old file or the new one, never half of one.

Not handled: atomic replacement of whole directories (a bundle directory is written
file by file, each file atomically; a ``.zip`` bundle is one atomic file).
"""

from __future__ import annotations

import os
import tempfile


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename it over."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
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


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` atomically (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"))
