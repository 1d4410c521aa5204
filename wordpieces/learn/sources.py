"""Turn a counting source into units of work, and read a unit back as lines of text.

A source is a path, a glob, a directory (every file under it), ``"-"`` (stdin), an
fsspec URL (``s3://…``, ``gs://…``, needs ``fsspec``), a list or tuple of those, or any
other iterable of texts. Files may be ``.gz``, ``.bz2`` or ``.xz``. A plain file is cut
into byte ranges (``Block``) that any process can read on its own: a line belongs to the
block in which it starts, so blocks never split or repeat a line. Compressed files and
stdin are read from the start, one block each.

Not handled here: what is done with the lines (``count_tasks``); how a file is read as
lines (BOM, line ends, compression, bad UTF-8: ``formats.lines``).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import require
from ..formats.lines import STDIN, TextLines, compression_of


@dataclass(frozen=True)
class Block:
    """Bytes ``[start, end)`` of one file; ``end=None`` reads the whole (streamed) file."""

    path: str
    start: int = 0
    end: int | None = None
    compression: str | None = None
    size: int = 0  # bytes of the file this block covers, for progress

    @property
    def is_url(self) -> bool:
        return "://" in self.path


class TextStream:
    """An iterable of texts (or stdin) read by the caller's process, not by workers."""

    def __init__(self, texts: Iterable, *, name: str = "texts"):
        self.texts = texts
        self.name = name

    def __iter__(self) -> Iterator[str]:
        for index, text in enumerate(self.texts):
            if isinstance(text, bytes):
                text = text.decode("utf-8")
            elif not isinstance(text, str):
                raise TypeError(f"{self.name} item {index} is a {type(text).__name__}, "
                                "not a str")
            yield text


def plan(source, *, blocksize: int) -> list[Block | TextStream]:
    """Resolve ``source`` into blocks of files and streams of texts, in order."""
    if isinstance(source, (str, os.PathLike)):
        paths = resolve_path(source)
    elif isinstance(source, (list, tuple)):
        paths = [p for item in source for p in resolve_path(_path_item(item))]
    elif isinstance(source, bytes):
        raise TypeError("source is bytes: pass a path as str, or texts as an iterable of str")
    elif isinstance(source, Mapping):
        raise TypeError("source is a mapping (word counts?), not a corpus: counts need no "
                        "counting; wrap them as WordCounts(...) to train or merge")
    elif isinstance(source, Iterable):
        return [TextStream(source)]
    else:
        raise TypeError(f"cannot count words from a {type(source).__name__}: expected a "
                        "path, a glob, '-', a list of paths or an iterable of texts")
    units: list[Block | TextStream] = []
    for path in paths:
        if path == STDIN:
            units.append(TextStream(stdin_lines(), name="stdin"))
        else:
            units.extend(file_blocks(path, blocksize))
    return units


def _path_item(item):
    if not isinstance(item, (str, os.PathLike)):
        raise TypeError(f"a list source must hold paths, not {type(item).__name__}: "
                        "to count texts, pass an iterator (e.g. iter(texts))")
    return item


def resolve_path(path) -> list[str]:
    """Expand one path, glob, directory, URL or ``"-"`` into file paths, sorted."""
    path = os.fspath(path)
    if path == STDIN:
        return [STDIN]
    if "://" in path:
        return _resolve_url(path)
    if glob.has_magic(path):
        found = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
        if not found:
            raise FileNotFoundError(f"no file matches {path!r} (source item, "
                                    "to count a list of texts pass iter(texts))")
        return found
    if os.path.isdir(path):
        return _files_under(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path!r} (to count a list of texts, "
                                "pass iter(texts))")
    return [path]


def _files_under(directory: str) -> list[str]:
    """Every regular, non-hidden file below ``directory``, sorted by path."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(os.path.join(root, f) for f in files if not f.startswith("."))
    if not found:
        raise FileNotFoundError(f"directory {directory!r} holds no file")
    return sorted(found)


def _resolve_url(url: str) -> list[str]:
    fsspec = require("fsspec", "dask")
    fs, _, paths = fsspec.get_fs_token_paths(url)
    if not paths:
        raise FileNotFoundError(f"no file matches {url!r}")
    protocol = fs.protocol[0] if isinstance(fs.protocol, (tuple, list)) else fs.protocol
    return sorted(p if "://" in p else f"{protocol}://{p}" for p in paths)


def file_blocks(path: str, blocksize: int) -> list[Block]:
    """Cut a file into byte ranges of about ``blocksize``; compressed files stay whole."""
    compression = compression_of(path)
    size = _size(path)
    if compression or size <= blocksize:
        return [Block(path, 0, None, compression, size)]
    starts = range(0, size, blocksize)
    return [Block(path, s, min(s + blocksize, size), None, min(blocksize, size - s))
            for s in starts]


def _size(path: str) -> int:
    if "://" in path:
        fsspec = require("fsspec", "dask")
        fs, fs_path = fsspec.core.url_to_fs(path)
        return fs.size(fs_path)
    return os.path.getsize(path)


# ---------------------------------------------------------------- reading


def block_lines(block: Block) -> Iterator[str]:
    """Yield the lines of ``block``, decoded, without line terminators."""
    return iter(TextLines(block.path, block.start, block.end))


def stdin_lines() -> Iterator[str]:
    """Yield the lines of standard input (read as UTF-8 bytes), without terminators."""
    return iter(TextLines(STDIN))
