"""Where the shared corpora, vocabularies and goldens live, and how a test asks for them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("WORDPIECES_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPORA = SHARED / "corpora"
VOCABS = SHARED / "vocab"
GOLDEN = SHARED / "golden"


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
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
