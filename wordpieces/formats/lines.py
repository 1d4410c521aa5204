r"""Read UTF-8 text files as lines: the one reader of every path that reads lines.

Counting (``learn.sources``), the command line's ``encode``/``decode``/``inspect`` and the
distributed ``encode`` all read their input here, so a file reads the same everywhere:

- ``"-"`` is standard input (read as bytes, named ``<stdin>`` in errors);
- ``.gz``, ``.bz2`` and ``.xz`` files are decompressed; ``scheme://`` URLs are opened
  with ``fsspec`` (an optional dependency: ``fsspec_module`` explains how to get it);
- decompression is bounded (``inflate_limit``): a local file read line by line may
  inflate to ``INFLATE_RATIO`` (100) times its stored size, or ``INFLATE_FLOOR``
  (256 MiB) if that is more; a file read whole (``read_bytes``: a ``vocab.txt``) to
  ``WHOLE_FILE_LIMIT`` (256 MiB, 25 times the largest known vocabulary). Past the limit
  the read stops with a ``FormatError`` naming the file and the limit, so a small
  compression bomb costs neither hours nor all the memory. The environment variable
  ``WORDPIECES_MAX_INFLATE`` (bytes; ``0``: no limit) replaces both limits for a corpus
  that really is that repetitive. A truncated or corrupt compressed file (a URL's too)
  is a ``FormatError`` naming the file, never a bare ``EOFError``;
- a UTF-8 byte-order mark at the start of the file is dropped;
- only ``\n`` ends a line, and a ``\r`` just before it goes with it; a lone ``\r``, a
  form feed or U+2028 stays inside its line, and so does the ``\r`` of a last line
  that has no ``\n``;
- bytes that are not UTF-8 raise ``FormatError`` naming the file and the line;
- a plain file can be read as byte ranges (``TextLines(path, start, end)``): a line
  belongs to the range in which its first byte lies, so ranges that tile a file give
  each of its lines exactly once, whatever the ranges and the read size.

The file is read in chunks of about ``READ_SIZE`` bytes that end on a line boundary and
are decoded at once (fast), but a chunk never waits for more input than one line, so a
pipe is answered line by line as it arrives.

Not handled here: encodings other than UTF-8; finding files (globs, directories, URL
patterns: ``learn.sources.resolve_paths``, which every reader calls first); byte ranges
of compressed files or of standard input (read whole); an inflate limit for URLs (their
stored size is not asked for: only corrupt data is named).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from ..errors import FormatError, MissingDependencyError, describe_error

STDIN = "-"
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
READ_SIZE = 1 << 20
BOM = b"\xef\xbb\xbf"
INFLATE_RATIO = 100
"""A compressed file read line by line inflates to at most this many times its size."""
INFLATE_FLOOR = 256 << 20
"""... or to this many bytes, if that is more (small files of repeated lines)."""
WHOLE_FILE_LIMIT = 256 << 20
"""A compressed file read whole (``read_bytes``) inflates to at most this many bytes."""
MAX_INFLATE_ENV = "WORDPIECES_MAX_INFLATE"


def inflate_limit(stored_size: int, *, whole: bool) -> int | None:
    """The most bytes a compressed file of ``stored_size`` bytes may inflate to (None: any).

    ``whole``: the file is read into memory at once (``read_bytes``), not line by line.
    ``WORDPIECES_MAX_INFLATE`` (bytes, 0 for no limit) replaces the rule.
    """
    configured = os.environ.get(MAX_INFLATE_ENV, "").strip()
    if configured:
        if not configured.isdigit():
            raise ValueError(f"{MAX_INFLATE_ENV} must be a number of bytes (0: no limit), "
                             f"got {configured!r}")
        return int(configured) or None
    if whole:
        return WHOLE_FILE_LIMIT
    return max(INFLATE_FLOOR, INFLATE_RATIO * stored_size)


def compression_of(path: str) -> str | None:
    """The compression a file name says (``"gzip"``, ``"bz2"``, ``"xz"``), else None."""
    return COMPRESSIONS.get(os.path.splitext(path)[1].lower())


def fsspec_module(url: str):
    """Import ``fsspec`` to read ``url``, or say which package to install.

    Each storage needs its own package besides (``s3fs`` for ``s3://``, ``gcsfs`` for
    ``gs://``); fsspec names it itself when one is missing.
    """
    try:
        import fsspec
    except ImportError:
        raise MissingDependencyError(
            f"{url}: reading URLs needs the optional dependency 'fsspec': "
            "pip install 'wordpieces[fsspec]' (plus the storage's own package, e.g. s3fs "
            "for s3://)") from None
    return fsspec


def display_name(path: str) -> str:
    """How errors name ``path``: ``<stdin>`` for ``"-"``."""
    return "<stdin>" if path == STDIN else path


class TextLines:
    """The decoded lines of one file, or of the byte range ``[start, end)`` of a plain file.

    Iterating reads the file again from the start of the range. ``bytes_read`` tells how
    many bytes of the file as stored (compressed bytes for a compressed file) have been
    read so far, for progress.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "wb").write(b"\\xef\\xbb\\xbfone\\r\\ntwo\\n\\nthree")
    >>> list(TextLines(path))
    ['one', 'two', '', 'three']
    """

    def __init__(self, path: str | os.PathLike, start: int = 0, end: int | None = None):
        self.path = os.fspath(path)
        self.name = display_name(self.path)
        self.compression = None if self.path == STDIN else compression_of(self.path)
        if (start > 0 or end is not None) and (self.path == STDIN or self.compression):
            raise ValueError(f"{self.name}: standard input and compressed files are read "
                             "whole, not by byte range")
        self.start, self.end = start, end
        self.bytes_read = 0

    def __iter__(self) -> Iterator[str]:
        self.bytes_read = 0
        with _open(self.path, self.compression, whole=False) as (stream, raw):
            pos = _seek_first_line(stream, self.start)
            lines_before = 0 if pos == 0 else None  # known when reading from the start
            for data, offset in _chunks(stream, pos, self.end):
                text = self._decode(data, offset, lines_before)
                if lines_before is not None:
                    lines_before += data.count(b"\n")
                self.bytes_read = _stored_position(raw, offset + len(data)) - self.start
                yield from split_lines(text)

    def _decode(self, data: bytes, offset: int, lines_before: int | None) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            if lines_before is None:
                lines_before = self._newlines_before(offset)
            line = lines_before + data[:e.start].count(b"\n") + 1
            raise FormatError(f"{self.name}:{line}: not valid UTF-8 "
                              f"(byte {offset + e.start}: {e.reason})") from None

    def _newlines_before(self, offset: int) -> int:
        """Line ends before byte ``offset`` (read again, only to report an error)."""
        with _open(self.path, self.compression, whole=False) as (stream, _):
            return stream.read(offset).count(b"\n")


class LineReader:
    """Iterate ``(name, line number, text)`` over files one after another ('-' is stdin).

    ``bytes_read`` grows as lines are read, over all the files (for progress and ETA).
    """

    def __init__(self, paths: list[str]):
        self.paths = list(paths) or [STDIN]
        self._done = 0  # bytes of the files already finished
        self._current: TextLines | None = None

    @property
    def bytes_read(self) -> int:
        return self._done + (self._current.bytes_read if self._current is not None else 0)

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        for path in self.paths:
            self._current = lines = TextLines(path)
            for number, text in enumerate(lines, start=1):
                yield lines.name, number, text
            self._done += lines.bytes_read
            self._current = None


def read_bytes(path: str | os.PathLike) -> bytes:
    """Return the whole stored content of ``path``, decompressed (a URL or ``"-"`` too).

    For files parsed whole rather than line by line (a ``vocab.txt``), so that they are
    found and decompressed as every text input is; decompressed, at most
    ``WHOLE_FILE_LIMIT`` bytes (``inflate_limit``).
    """
    path = os.fspath(path)
    compression = None if path == STDIN else compression_of(path)
    with _open(path, compression, whole=True) as (stream, _):
        return stream.read()


def split_lines(text: str) -> list[str]:
    r"""Split ``text`` at ``\n`` only, dropping a ``\r`` before it; a final ``\n`` ends a line.

    A chunk ends with ``\n`` unless it is the end of the file, so the piece after the
    last ``\n`` is either empty (no line) or a last line without a newline, whose
    trailing ``\r`` is text, not a line ending.

    >>> split_lines("a\r\nb\n\nc\r")
    ['a', 'b', '', 'c\r']
    """
    lines = text.split("\n")
    last = lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if last:
        lines.append(last)
    return lines


@contextlib.contextmanager
def _open(path: str, compression: str | None, *, whole: bool):
    """Yield (stream of the file's bytes, the stored file under it or None).

    A decompressed stream is an ``Inflated``: bounded by ``inflate_limit`` (``whole``:
    read at once), its corrupt data named.
    """
    if path == STDIN:
        yield sys.stdin.buffer, None
        return
    if "://" in path:
        fsspec = fsspec_module(path)
        with fsspec.open(path, "rb", compression=compression) as stream:
            yield (stream if compression is None
                   else Inflated(stream, path, compression, None)), None
        return
    with open(path, "rb") as raw:
        if compression is None:
            yield raw, raw
            return
        limit = inflate_limit(os.fstat(raw.fileno()).st_size, whole=whole)
        with _decompressor(compression, raw) as stream:
            yield Inflated(stream, path, compression, limit), raw


def _decompressor(compression: str, raw):
    if compression == "gzip":
        import gzip
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "bz2":
        import bz2
        return bz2.BZ2File(raw, "rb")
    import lzma
    return lzma.LZMAFile(raw, "rb")


def _corrupt_data_errors() -> tuple[type[BaseException], ...]:
    """What the stdlib decompressors raise on truncated or corrupt input."""
    import lzma
    import zlib
    # EOFError: cut short; OSError: gzip.BadGzipFile, bz2's "Invalid data stream"
    return (EOFError, OSError, zlib.error, lzma.LZMAError)


class Inflated:
    """A decompressed stream that stops at ``limit`` bytes and names its file when the
    compressed data is truncated or corrupt (``FormatError``)."""

    def __init__(self, stream, path: str, compression: str, limit: int | None):
        self.stream, self.path, self.compression, self.limit = stream, path, compression, limit
        self.inflated = 0
        self._errors = _corrupt_data_errors()

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:  # everything: in pieces, so the limit holds
            return b"".join(iter(lambda: self.read(READ_SIZE), b""))
        return self._counted(self.stream.read, self._bounded(size))

    def read1(self, size: int = -1) -> bytes:
        return self._counted(self.stream.read1, self._bounded(READ_SIZE if size < 0 else size))

    def readline(self, size: int = -1) -> bytes:
        return self._counted(self.stream.readline, self._bounded(size))

    def _bounded(self, size: int) -> int:
        """``size``, cut to one byte past the limit (the byte that proves it exceeded)."""
        if self.limit is None:
            return size
        room = self.limit - self.inflated + 1
        return room if size < 0 else min(size, room)

    def _counted(self, read, size: int) -> bytes:
        try:
            data = read(size)
        except self._errors as e:
            raise FormatError(f"{self.path}: truncated or corrupt {self.compression} data "
                              f"({describe_error(e)})") from None
        self.inflated += len(data)
        if self.limit is not None and self.inflated > self.limit:
            raise FormatError(
                f"{self.path}: decompresses to more than {self.limit:,} bytes, the limit "
                f"for this file (a compression bomb?); set {MAX_INFLATE_ENV} to a larger "
                "number of bytes (0: no limit) if the file is meant to")
        return data


def _stored_position(raw, position: int) -> int:
    """Bytes of the stored file read: ``raw``'s own position when it is decompressed."""
    if raw is None:
        return position
    try:
        return raw.tell()
    except OSError:
        return position


def _seek_first_line(f, start: int) -> int:
    """Position ``f`` at the first line starting at or after byte ``start``."""
    if start <= 0:
        return 0
    f.seek(start - 1)
    return start - 1 + len(f.readline())


def _chunks(f, pos: int, end: int | None) -> Iterator[tuple[bytes, int]]:
    """Yield (bytes, file offset) pieces ending on a line boundary, up to ``end``.

    ``read1`` returns what is there (at most ``READ_SIZE``) instead of waiting for a full
    chunk, so a pipe's lines come through as they arrive.
    """
    read = getattr(f, "read1", f.read)
    while end is None or pos < end:
        want = READ_SIZE if end is None else min(READ_SIZE, end - pos)
        data = read(want)
        if not data:
            return
        if not data.endswith(b"\n"):
            data += f.readline()  # the last line started inside the range: finish it
        if pos == 0 and data.startswith(BOM):
            data, pos = data[3:], 3
        yield data, pos
        pos += len(data)
