"""Record the finished blocks of a count in a folder, so that a killed count resumes.

``count_words(..., checkpoint=DIR)`` keeps, in ``DIR``:

- ``checkpoint.json``, the index: the files counted (real path, size, modification time
  in nanoseconds), the pipeline's settings and fingerprint, and the block size. A later
  run with other files, a changed file, another pipeline or another block size is
  refused with ``CheckpointMismatchError`` naming what differs, never silently mixed;
- ``block-NNNNNN.tsv`` for each finished block: a JSON header naming the block (file,
  byte range) and its number of words, then ``word<TAB>count`` lines. Each is written
  whole by the package's one atomic writer (``formats.atomic``), so a kill leaves a block
  either recorded or not, never half written.

A re-run reads the recorded blocks instead of counting them again; partial counts are
summed, so the result equals an uninterrupted run's. The folder is kept after a
successful run (a re-run then only reads it); delete it when the counts are saved.

Not handled here: streams of texts and stdin (they cannot be read again the same way:
refused), URLs (their modification times are not portable: refused), two runs writing
the same checkpoint at once (each block is written whole, so the last writer wins, with
the same counts).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass

from ..formats.atomic import atomic_write_text
from ..formats.temporaries import remove_stale_temporaries
from .sources import Block

INDEX = "checkpoint.json"
FORMAT = "wordpieces-count-checkpoint"
VERSION = 1


class CheckpointMismatchError(ValueError):
    """A checkpoint folder was made for other files, settings, or holds a damaged block."""


@dataclass(frozen=True)
class Checkpoint:
    """An opened checkpoint folder: which blocks are done, and where to record the rest."""

    directory: str

    def block_path(self, number: int) -> str:
        return os.path.join(self.directory, f"block-{number:06d}.tsv")

    def recorded(self, number: int, block: Block) -> Counter | None:
        """Return the counts recorded for block ``number``, or None if it is not done."""
        path = self.block_path(number)
        try:
            with open(path, encoding="utf-8", newline="\n") as f:
                text = f.read()
        except FileNotFoundError:
            return None
        return _parse_block(path, text, block)

    def record(self, number: int, block: Block, counts: Counter) -> None:
        """Write the counts of block ``number`` atomically."""
        header = {"block": _block_key(block), "words": len(counts)}
        lines = [json.dumps(header, ensure_ascii=False, sort_keys=True)]
        lines.extend(f"{word}\t{count}" for word, count in counts.items())
        atomic_write_text(self.block_path(number), "\n".join(lines) + "\n")


def open_checkpoint(directory: str | os.PathLike, units, *, pipeline: dict,
                    fingerprint: str, blocksize: int) -> Checkpoint:
    """Open (or start) the checkpoint in ``directory`` for counting ``units``.

    Raises ``CheckpointMismatchError`` when the folder's index names other inputs or
    settings, and ``ValueError`` when the units cannot be checkpointed (streams, URLs).
    """
    directory = os.fspath(directory)
    index = {"format": FORMAT, "version": VERSION, "fingerprint": fingerprint,
             "pipeline": pipeline, "blocksize": blocksize, "sources": _sources(units)}
    path = os.path.join(directory, INDEX)
    os.makedirs(directory, exist_ok=True)
    remove_stale_temporaries(directory)  # block files a killed run was writing
    try:
        with open(path, encoding="utf-8") as f:
            saved = f.read()
    except FileNotFoundError:
        atomic_write_text(path, json.dumps(index, ensure_ascii=False, indent=1) + "\n")
        return Checkpoint(directory)
    _check_index(path, saved, index)
    return Checkpoint(directory)


def _sources(units) -> list[dict]:
    """Name each file counted, in order, by its real path, size and modification time."""
    sources: list[dict] = []
    for unit in units:
        if not isinstance(unit, Block):
            raise ValueError("a checkpoint needs files: a stream of texts or stdin cannot be "
                             "read again the same way after a kill (save it to a file)")
        if unit.is_url:
            raise ValueError(f"a checkpoint needs local files, not a URL ({unit.path}): "
                             "copy the files here, or count without a checkpoint")
        if unit.start == 0:  # a file's first block (a file given twice is listed twice)
            stat = os.stat(unit.path)
            sources.append({"path": os.path.realpath(unit.path), "size": stat.st_size,
                            "mtime_ns": stat.st_mtime_ns})
    return sources


def _check_index(path: str, saved: str, index: dict) -> None:
    """Refuse a checkpoint whose index differs from this run's, naming the difference."""
    try:
        old = json.loads(saved)
    except ValueError as e:
        raise CheckpointMismatchError(f"{path}: not a checkpoint index ({e})") from None
    if not isinstance(old, dict) or old.get("format") != FORMAT:
        raise CheckpointMismatchError(f"{path}: not a wordpieces count checkpoint")
    for field, label in (("version", "format version"), ("blocksize", "blocksize"),
                         ("fingerprint", "pipeline (normalizer and pre-tokenizer settings)")):
        if old.get(field) != index[field]:
            raise CheckpointMismatchError(
                f"{path}: this checkpoint was made with {label} {old.get(field)!r}, this "
                f"run has {index[field]!r}; use another folder, or delete this one to "
                "start over")
    if old.get("sources") != index["sources"]:
        raise CheckpointMismatchError(
            f"{path}: this checkpoint was made for other files: "
            f"{_source_difference(old.get('sources'), index['sources'])}; use another "
            "folder, or delete this one to start over")


def _source_difference(old, new: list[dict]) -> str:
    if not isinstance(old, list):
        return "its list of files is unreadable"
    by_path = {s.get("path"): s for s in old if isinstance(s, dict)}
    for source in new:
        before = by_path.get(source["path"])
        if before is None:
            return f"{source['path']} was not among them"
        if before != source:
            return (f"{source['path']} changed (size {before.get('size')} -> "
                    f"{source['size']}, mtime_ns {before.get('mtime_ns')} -> "
                    f"{source['mtime_ns']})")
    listed = [s.get("path") for s in old if isinstance(s, dict)]
    more = " …" if len(listed) > 5 else ""
    return f"it counted {listed[:5]}{more} ({len(listed)} in all, in this order)"


def _block_key(block: Block) -> list:
    return [os.path.realpath(block.path), block.start, block.end]


def _parse_block(path: str, text: str, block: Block) -> Counter:
    """Read a recorded block, checking it names ``block`` and holds all its words."""
    header_line, _, body = text.partition("\n")
    try:
        header = json.loads(header_line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("block") != _block_key(block):
        raise CheckpointMismatchError(f"{path}:1: this block file does not record block "
                                      f"{_block_key(block)}; delete it to count it again")
    counts: Counter[str] = Counter()
    lines = body.split("\n")
    if lines[-1] != "" or len(lines) - 1 != header.get("words"):
        raise CheckpointMismatchError(f"{path}: holds {len(lines) - 1} lines for "
                                      f"{header.get('words')} words; delete it to count "
                                      "the block again")
    for number, line in enumerate(lines[:-1], 2):
        word, tab, count = line.rpartition("\t")
        if not tab or not count.isascii() or not count.isdigit():
            raise CheckpointMismatchError(f"{path}:{number}: expected word<TAB>count, got "
                                          f"{line[:80]!r}; delete it to count it again")
        counts[word] = int(count)
    return counts
