"""Where the shared corpora, vocabularies and goldens live, and how a test asks for them.

``shared_path`` is the one door to ``../shared`` (``corpus_lines`` and the corpus samplers
go through it): it counts every lookup, so that ``tests/conftest.py`` can fail a test that
reads the shared data without the ``shared_data`` marker, and it skips the test with
``SKIP_REASON`` when the file is absent.

Not handled here: a test that builds paths from ``CORPORA``/``VOCABS``/``GOLDEN`` without
calling ``shared_path`` first is not counted (every current one calls it first).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("WORDPIECES_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPORA = SHARED / "corpora"
VOCABS = SHARED / "vocab"
GOLDEN = SHARED / "golden"

SKIP_REASON = "needs the shared data"
WHERE = '../shared or $WORDPIECES_SHARED; see README "Development"'

_lookups = 0


def available() -> bool:
    """Tell whether the shared data folder is there (a fresh clone has none beside it)."""
    return SHARED.is_dir()


def lookups() -> int:
    """Return how many times this process asked ``shared_path`` for a file so far."""
    return _lookups


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the test when it is absent."""
    global _lookups
    _lookups += 1
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{SKIP_REASON}: {path} not found")
    return path


def corpus_lines(*parts: str, limit: int = 3000) -> list[str]:
    """Read non-blank lines of a shared corpus file as the golden scripts did."""
    lines = []
    with open(shared_path("corpora", *parts), encoding="utf-8-sig") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.strip():
                lines.append(line)
                if len(lines) >= limit:
                    break
    return lines
