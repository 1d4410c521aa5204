"""Connect the command line's ``--progress``/``--quiet`` to the package's progress reporter.

Progress goes to stderr: a bar when stderr is a terminal (``auto``), JSON lines for
machines (``--progress jsonl``), nothing with ``--quiet``, ``--progress none`` or when
stderr is not a terminal under ``auto``.

Not handled here: drawing and rates (``wordpieces.learn.progress``).
"""

from __future__ import annotations

import sys


def progress_mode(args) -> str:
    """``bar``, ``jsonl`` or ``none`` for this run."""
    if getattr(args, "quiet", False):
        return "none"
    mode = getattr(args, "progress", "auto")
    if mode == "auto":
        return "bar" if sys.stderr.isatty() else "none"
    return mode


def make_progress(args, stage: str, *, total: int | None = None, unit: str = "bytes"):
    """A ``wordpieces.learn.progress.Progress`` for ``stage`` of the running command.

    It is called with ``update(done=..., **counts)`` and closed with ``summary(text)``;
    ``callback`` is the ``(event, **fields)`` form the library functions accept.
    """
    from ..learn.progress import make_reporter

    return make_reporter(progress_mode(args), stage=stage, total=total, unit=unit)
