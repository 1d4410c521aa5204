"""Record the finished blocks of a count in a folder, so that a killed count resumes.

``count_words(..., checkpoint=DIR)`` keeps, in ``DIR``:

- ``checkpoint.json``, the index: the files counted (real path, size, modification time
  in nanoseconds), the pipeline's settings and fingerprint, and the block size. A later
  run with other files, a changed file, another pipeline or another block size is
  refused with ``CheckpointMismatchError`` naming what differs, never silently mixed;
- ``block-NNNNNN.tsv`` for each finished block: a JSON header naming the block (file,
  byte range), its number of words and the SHA-256 of the lines after it, then
  ``word<TAB>count`` lines. Each is written whole by the package's one atomic writer
  (``formats.atomic``), so a kill leaves a block either recorded or not, never half
  written.

The folder is untrusted when read back: a block or index that is a symbolic link, a
FIFO or a device is refused by name, without an open that blocks (``formats.inside``:
``O_NOFOLLOW | O_NONBLOCK``, then ``fstat``); the index is parsed by
``formats.strict_json`` (nesting depth bounded); a block whose lines do not match its
checksum, or holding a line that a counts file could not hold (``count_lines``: at most
19 digits, no empty word), a word twice or bytes that are not UTF-8, is refused naming
the file and line. Format version 1 (before checksums) is refused as any other version
is: such a folder cannot be verified, so it is counted again from the start in a new
folder.

A re-run reads the recorded blocks instead of counting them again; partial counts are
summed, so the result equals an uninterrupted run's. The folder is kept after a
successful run (a re-run then only reads it); delete it when the counts are saved.

Not handled here: streams of texts and stdin (they cannot be read again the same way:
refused), URLs (their modification times are not portable: refused), two runs writing
the same checkpoint at once (each block is written whole, so the last writer wins, with
the same counts).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass

from ..errors import FormatError
from ..formats.atomic import atomic_write_text
from ..formats.inside import read_plain
from ..formats.strict_json import parse_json
from ..formats.temporaries import remove_stale_temporaries
from .count_lines import parse_count_line, shown
from .sources import Block

INDEX = "checkpoint.json"
FORMAT = "wordpieces-count-checkpoint"
VERSION = 2  # 2: each block's lines carry a SHA-256 in its header
DELETE_HINT = "delete it to count the block again"


class CheckpointMismatchError(FormatError):
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
        data = read_recorded(path)
        return None if data is None else _parse_block(path, data, block)

    def record(self, number: int, block: Block, counts: Counter) -> None:
        """Write the counts of block ``number`` atomically, with a checksum of its lines."""
        body = "".join(f"{word}\t{count}\n" for word, count in counts.items())
        header = {"block": _block_key(block), "words": len(counts),
                  "sha256": _checksum(body.encode("utf-8"))}
        text = json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n" + body
        atomic_write_text(self.block_path(number), text)


def read_recorded(path: str) -> bytes | None:
    """The bytes of a checkpoint file, None if missing; a link or special file is refused.

    Read by ``formats.inside`` (the one reader of files in a folder that may have been
    tampered with): never through a link, never blocking on a FIFO (a FIFO would wait for
    a writer forever; a link to ``/dev/zero`` would never end).
    """
    directory, name = os.path.split(path)
    try:
        return read_plain(directory or os.curdir, name)
    except FormatError as e:
        raise CheckpointMismatchError(f"{e}; a checkpoint folder holds only the files a "
                                      "count wrote there: delete this one (or the folder) "
                                      "to count again") from None


def _checksum(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


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
    saved = read_recorded(path)
    if saved is None:
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


def _check_index(path: str, saved: bytes, index: dict) -> None:
    """Refuse a checkpoint whose index differs from this run's, naming the difference."""
    try:
        old = parse_json(saved, path)
    except FormatError as e:
        raise CheckpointMismatchError(f"not a checkpoint index: {e}") from None
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


def _parse_block(path: str, data: bytes, block: Block) -> Counter:
    """Read a recorded block, checking it names ``block`` and holds all its words, intact."""
    header_line, _, body = data.partition(b"\n")
    header = _block_header(path, header_line)
    if header.get("block") != _block_key(block):
        raise CheckpointMismatchError(f"{path}:1: this block file does not record block "
                                      f"{_block_key(block)}; {DELETE_HINT}")
    ended = body.count(b"\n")
    if not body.endswith(b"\n") and body or ended != header.get("words"):
        raise CheckpointMismatchError(f"{path}: holds {ended} lines for "
                                      f"{header.get('words')} words; {DELETE_HINT}")
    if header.get("sha256") != _checksum(body):
        raise CheckpointMismatchError(f"{path}: its lines do not match the checksum in its "
                                      f"header (changed or damaged); {DELETE_HINT}")
    lines = _decoded(path, body).split("\n")
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for number, line in enumerate(lines[:-1], 2):
        where = f"{path}:{number}"
        try:
            word, count = parse_count_line(where, line)
        except FormatError as e:
            raise CheckpointMismatchError(f"{e}; {DELETE_HINT}") from None
        if word in first_seen:
            raise CheckpointMismatchError(f"{where}: word {word!r} repeats line "
                                          f"{first_seen[word]}; {DELETE_HINT}")
        counts[word], first_seen[word] = count, number
    return counts


def _block_header(path: str, line: bytes) -> dict:
    """The JSON header of a block file (its first line), or a named error."""
    try:
        header = parse_json(line, f"{path}:1")
    except FormatError:
        header = None
    if not isinstance(header, dict):
        text = shown(line[:80].decode("utf-8", "replace"))
        raise CheckpointMismatchError(f"{path}:1: not a block header ({text}); {DELETE_HINT}")
    return header


def _decoded(path: str, body: bytes) -> str:
    """The lines of a block as text; bytes that are not UTF-8 are named by line."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        line = body[:e.start].count(b"\n") + 2  # the header is line 1
        raise CheckpointMismatchError(f"{path}:{line}: not valid UTF-8 ({e.reason}); "
                                      f"{DELETE_HINT}") from None
