"""One lock per saved folder: a commit holds it exclusively, readers share it.

``formats.atomic.FileSet`` commits under the exclusive lock, and readers
(``read_file_set``) check a set under the shared one, so a reader never looks at a
folder in the middle of a commit; putting back a set a killed commit kept aside
(``formats.journal.roll_back``) needs the exclusive lock too, so a live writer's commit
is never undone.

Not handled here: what is done under the lock; a lock on file systems without ``flock``
(NFS without lock support, Windows), where no lock is taken.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

LOCK_WAIT_SECONDS = 60.0  # longest wait for another writer's commit (or a reader)


@contextlib.contextmanager
def directory_lock(directory: str, *, exclusive: bool) -> Iterator[bool]:
    """Hold ``flock`` on ``directory`` (shared for readers, exclusive for a commit).

    Yields False when the lock is still held by another after ``LOCK_WAIT_SECONDS`` (a
    writer stopped with Ctrl-Z inside its commit): it is given up on, so nothing waits
    forever, and the manifest check still reports a mix. Best effort: where the system
    or the file system has no ``flock``, no lock is taken (yields True).
    """
    try:
        import fcntl
    except ImportError:  # Windows
        yield True
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield True
        return
    try:
        yield _wait_for_lock(fcntl, fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    finally:
        os.close(fd)  # closing releases the lock


def _wait_for_lock(fcntl, fd: int, kind: int) -> bool:
    """Take lock ``kind`` on ``fd``, polling, for at most ``LOCK_WAIT_SECONDS``.

    False when another still holds it then; True when taken or not supported here.
    """
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        except OSError:  # no flock on this file system
            return True


