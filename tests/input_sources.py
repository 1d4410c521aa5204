"""One small corpus laid out as every kind of text source, for the entry-point x source tests.

``write_source(kind, folder)`` writes ``LINES`` as one kind of source (a path, a glob over
two files, a directory holding them plus a hidden file that must be skipped, stdin, a
``.gz``/``.bz2``/``.xz`` file, a ``file://`` URL) and returns how to name it; the Python
kinds (iterables of texts and of batches) are built by ``python_source``. The expected
results were worked out by hand from ``LINES`` (BERT's lowercase pipeline strips accents,
splits punctuation off).

Not handled here: remote URLs (``file://`` goes through the same fsspec calls).
"""

from __future__ import annotations

import bz2
import gzip
import lzma
from dataclasses import dataclass
from pathlib import Path

LINES = ["The cat sat on the mat.", "The dog sat.", "", "Ünïcode café", "the end"]
TEXT = "\n".join(LINES) + "\n"

# count_words(LINES) with the default (lowercase BERT) pipeline, counted by hand.
EXPECTED_COUNTS = {"the": 4, "cat": 1, "sat": 2, "on": 1, "mat": 1, ".": 2, "dog": 1,
                   "unicode": 1, "cafe": 1, "end": 1}

# A vocabulary for encode/inspect, and the ids of each line worked out by hand
# ("unicode" -> un ##icode: greedy longest match; no special tokens).
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", ".",
         "dog", "un", "##icode", "cafe", "end"]
EXPECTED_IDS = [[5, 6, 7, 8, 5, 9, 10], [5, 11, 7, 10], [], [12, 13, 14], [5, 15]]

FILE_KINDS = ("path", "glob", "directory", "stdin", "gz", "bz2", "xz", "url")
ITERABLE_KINDS = ("texts", "batches", "list_of_batches", "numpy_batches")
COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@dataclass
class Source:
    """How to name one written source: the argument to pass, and stdin's bytes if any."""

    argument: str
    stdin: bytes | None = None


def write_source(kind: str, folder: Path) -> Source:
    """Write ``TEXT`` under ``folder`` as source ``kind``; return how to name it."""
    if kind == "stdin":
        return Source("-", TEXT.encode())
    if kind in ("glob", "directory"):
        parts = folder / "parts"
        parts.mkdir()
        (parts / "part-1.txt").write_text("\n".join(LINES[:2]) + "\n", encoding="utf-8")
        (parts / "part-2.txt").write_text("\n".join(LINES[2:]) + "\n", encoding="utf-8")
        (parts / ".hidden-notes.txt").write_text("never read\n", encoding="utf-8")
        return Source(str(parts / "part-*.txt") if kind == "glob" else str(parts))
    if kind in COMPRESS:
        path = folder / f"corpus.txt.{kind}"
        path.write_bytes(COMPRESS[kind](TEXT.encode()))
        return Source(str(path))
    path = folder / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    return Source(path.as_uri() if kind == "url" else str(path))


def python_source(kind: str):
    """``LINES`` as an iterable source of ``kind`` (texts, or batches of texts)."""
    if kind == "texts":
        return iter(LINES)
    if kind == "batches":
        return (batch for batch in (LINES[:2], LINES[2:]))
    if kind == "list_of_batches":
        return [LINES[:2], tuple(LINES[2:])]
    if kind == "numpy_batches":
        import numpy as np
        return [np.array(LINES[:2]), np.array([s.encode() for s in LINES[2:]], dtype=object)]
    raise ValueError(kind)
