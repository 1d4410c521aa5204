"""Turn a counting source into units of work, and read a unit back as lines of text.

A source is a path, a glob, a directory (every file under it), ``"-"`` (stdin), an
fsspec URL (``s3://…``, ``gs://…``, needs ``fsspec``), a list or tuple of those, or any
other iterable of texts. Files may be ``.gz``, ``.bz2`` or ``.xz``. A plain file is cut
into byte ranges (``Block``) that any process can read on its own: a line belongs to the
block in which it starts, so blocks never split or repeat a line. Compressed files and
stdin are read from the start, one block each. Files are UTF-8 (a BOM is skipped);
lines lose their ``\\n`` or ``\\r\\n``.

Not handled here: what is done with the lines (``counting``); encodings other than UTF-8.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import FormatError, require

COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
READ_SIZE = 1 << 20
STDIN = "-"
_BOM = b"\xef\xbb\xbf"


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
    found = []
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
    compression = COMPRESSIONS.get(os.path.splitext(path)[1].lower())
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
    with _open(block) as f:
        yield from _lines(block, f, _seek_first_line(f, block.start))


def stdin_lines() -> Iterator[str]:
    """Yield the lines of standard input (read as UTF-8 bytes), without terminators."""
    yield from _lines(Block("<stdin>"), sys.stdin.buffer, 0)


def _lines(block: Block, f, pos: int) -> Iterator[str]:
    lines_before = 0 if pos == 0 else None  # known when reading from the file's start
    for data, offset in _chunks(f, pos, block.end):
        text = _decode(block, data, offset, lines_before)
        if lines_before is not None:
            lines_before += data.count(b"\n")
        yield from split_lines(text)


def split_lines(text: str) -> list[str]:
    r"""Split ``text`` at ``\n`` only, dropping a ``\r`` before it; a final ``\n`` ends a line.

    Only ``\n`` ends a line (as in the CLI's reader), so a form feed, U+2028 or a lone
    ``\r`` stays inside its line. A chunk ends with ``\n`` unless it is the end of the
    file, so the piece after the last ``\n`` is either empty (no line) or a last line
    without a newline, whose trailing ``\r`` is text, not a line ending.

    >>> split_lines("a\r\nb\n\nc\r")
    ['a', 'b', '', 'c\r']
    """
    lines = text.split("\n")
    last = lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if last:
        lines.append(last)
    return lines


def _open(block: Block):
    if block.is_url:
        fsspec = require("fsspec", "dask")
        return fsspec.open(block.path, "rb", compression=block.compression).open()
    if block.compression == "gzip":
        import gzip
        return gzip.open(block.path, "rb")
    if block.compression == "bz2":
        import bz2
        return bz2.open(block.path, "rb")
    if block.compression == "xz":
        import lzma
        return lzma.open(block.path, "rb")
    return open(block.path, "rb")


def _seek_first_line(f, start: int) -> int:
    """Position ``f`` at the first line starting at or after byte ``start``."""
    if start <= 0:
        return 0
    f.seek(start - 1)
    return start - 1 + len(f.readline())


def _chunks(f, pos: int, end: int | None) -> Iterator[tuple[bytes, int]]:
    """Yield (bytes, file offset) pieces ending on a line boundary, up to ``end``."""
    while end is None or pos < end:
        want = READ_SIZE if end is None else min(READ_SIZE, end - pos)
        data = f.read(want)
        if not data:
            return
        if not data.endswith(b"\n"):
            data += f.readline()  # the last line started inside the range: finish it
        if pos == 0 and data.startswith(_BOM):
            data, pos = data[3:], 3
        yield data, pos
        pos += len(data)


def _decode(block: Block, data: bytes, offset: int, lines_before: int | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        if lines_before is None:
            lines_before = _count_newlines(block, offset)
        line = lines_before + data[:e.start].count(b"\n") + 1
        raise FormatError(f"{block.path}:{line}: not valid UTF-8 "
                          f"(byte {offset + e.start}: {e.reason})") from None


def _count_newlines(block: Block, offset: int) -> int:
    """Lines before byte ``offset`` of a plain file (read again, only to report an error)."""
    with _open(block) as f:
        return f.read(offset).count(b"\n")
