"""The one line reader: BOM, line ends, compression, stdin, bad UTF-8, byte ranges."""

import bz2
import gzip
import io
import lzma
import os
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import LINE_TEXT, reference_lines
from wordpieces.errors import FormatError
from wordpieces.formats import lines as lines_module
from wordpieces.formats.lines import LineReader, TextLines, split_lines

OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


@pytest.fixture
def read_size(monkeypatch):
    """Set the reader's chunk size for one test."""
    return lambda size: monkeypatch.setattr(lines_module, "READ_SIZE", size)


def write(path, data: bytes):
    path.write_bytes(data)
    return path


def test_bom_at_the_start_is_dropped(tmp_path):
    """A UTF-8 byte-order mark at the start of the file is not part of the first line."""
    path = write(tmp_path / "bom.txt", b"\xef\xbb\xbfone\ntwo\n")
    assert list(TextLines(path)) == ["one", "two"]


def test_bom_later_in_the_file_is_text(tmp_path):
    """U+FEFF anywhere but the first bytes is kept as a character."""
    path = write(tmp_path / "bom.txt", b"one\n\xef\xbb\xbftwo\n")
    assert list(TextLines(path)) == ["one", "\ufefftwo"]


def test_crlf_and_lf_end_lines_a_lone_cr_does_not(tmp_path):
    """\\r\\n and \\n end a line; a lone \\r, and the \\r of an unterminated last line, are text."""
    path = write(tmp_path / "ends.txt", b"a\r\nb\nc\rd\n\ne\r")
    assert list(TextLines(path)) == ["a", "b", "c\rd", "", "e\r"]


def test_last_line_without_newline(tmp_path):
    """A final line with no newline is kept, and a trailing newline adds no empty line."""
    assert list(TextLines(write(tmp_path / "a.txt", b"x\ny"))) == ["x", "y"]
    assert list(TextLines(write(tmp_path / "b.txt", b"x\ny\n"))) == ["x", "y"]


def test_no_empty_line_at_chunk_boundaries(tmp_path, read_size):
    """Lines that fill several chunks come back without extra empty lines between them."""
    read_size(4)
    path = write(tmp_path / "f.txt", b"one\ntwo\r\nthree\n")
    assert list(TextLines(path)) == ["one", "two", "three"]


def test_line_longer_than_a_chunk(tmp_path, read_size):
    """A line many times the chunk size comes back whole."""
    read_size(7)
    long = "é" * 500 + "\r" + "z" * 300
    path = write(tmp_path / "long.txt", f"a\n{long}\r\nb".encode())
    assert list(TextLines(path)) == ["a", long, "b"]


@settings(max_examples=150, deadline=None)
@given(text=LINE_TEXT, size=st.integers(1, 16), bom=st.booleans())
def test_any_chunk_size_gives_the_file_lines(tmp_path_factory, text, size, bom):
    """For any text and chunk size, the lines equal Python's '\\n'-only line reading."""
    path = tmp_path_factory.mktemp("chunks") / "f.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lines_module, "READ_SIZE", size)
        assert list(TextLines(path)) == reference_lines(text)


@settings(max_examples=150, deadline=None)
@given(text=LINE_TEXT, size=st.integers(1, 16), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_byte_ranges_that_tile_a_file_give_each_line_once(tmp_path_factory, text, size, cuts):
    """Any cut of a file into ranges gives each line once, in order (a BOM included)."""
    data = b"\xef\xbb\xbf" + text.encode("utf-8")
    path = tmp_path_factory.mktemp("ranges") / "f.txt"
    path.write_bytes(data)
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lines_module, "READ_SIZE", size)
        got = [line for start, end in zip(bounds, bounds[1:], strict=False)
               for line in TextLines(path, start, end)]
    assert got == reference_lines(text)


@pytest.mark.parametrize("suffix", sorted(OPENERS))
def test_compressed_files_read_as_their_text(tmp_path, read_size, suffix):
    """.gz, .bz2 and .xz files give the lines of their text, BOM and CRLF handled."""
    read_size(3)
    path = tmp_path / f"f.txt{suffix}"
    with OPENERS[suffix](path, "wb") as f:
        f.write(b"\xef\xbb\xbfalpha\r\nbeta\n\ngamma")
    assert list(TextLines(path)) == ["alpha", "beta", "", "gamma"]


def test_compressed_progress_counts_stored_bytes(tmp_path):
    """bytes_read of a compressed file ends at its size on disk, not its text's size."""
    path = tmp_path / "f.txt.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"the same line again\n" * 20_000)
    lines = TextLines(path)
    assert sum(1 for _ in lines) == 20_000
    assert lines.bytes_read == os.path.getsize(path)


def test_compressed_files_cannot_be_read_by_range(tmp_path):
    """A byte range of a compressed file means nothing: it is refused, naming the file."""
    with pytest.raises(ValueError, match=r"f\.txt\.gz: .*read whole"):
        TextLines(str(tmp_path / "f.txt.gz"), 10, 20)


def test_stdin_is_read_as_utf8_bytes(monkeypatch, read_size):
    """'-' reads standard input's bytes into exactly its lines."""
    read_size(2)
    stdin = io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbfun\r\ndeux\n\ntrois\r"), encoding="latin-1")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert list(TextLines("-")) == ["un", "deux", "", "trois\r"]


def test_a_pipe_is_answered_line_by_line(monkeypatch):
    """Lines that arrived come out before the writer closes the pipe (no full-chunk wait)."""
    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(os.fdopen(read_end, "rb")))
    writer = os.fdopen(write_end, "wb", buffering=0)
    writer.write(b"first\nsecond\n")
    lines = iter(TextLines("-"))
    closer = threading.Timer(30, writer.close)  # unblocks a reader that waits for EOF
    closer.start()
    try:
        assert next(lines) == "first" and next(lines) == "second"
        assert not writer.closed  # answered while the pipe was still open
    finally:
        closer.cancel()
        writer.close()
    assert list(lines) == []


def test_invalid_utf8_names_file_and_line(tmp_path):
    """A byte that is not UTF-8 raises FormatError with file:line and the byte offset."""
    path = write(tmp_path / "bad.txt", b"good\n" * 50 + b"bad \xff here\n")
    with pytest.raises(FormatError, match=r"bad\.txt:51: not valid UTF-8 \(byte 254: "):
        list(TextLines(path))


def test_invalid_utf8_in_a_later_range_names_the_file_line(tmp_path, read_size):
    """Reading a range from the middle still reports the line number within the file."""
    read_size(8)
    path = write(tmp_path / "bad.txt", b"good\n" * 50 + b"bad \xff here\n")
    with pytest.raises(FormatError, match=r"bad\.txt:51: not valid UTF-8"):
        list(TextLines(path, 100, None))


def test_invalid_utf8_on_stdin_names_stdin(monkeypatch):
    """Bad bytes on standard input are reported as <stdin>:line."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"ok\n\xc3\n")))
    with pytest.raises(FormatError, match=r"<stdin>:2: not valid UTF-8"):
        list(TextLines("-"))


def test_line_reader_numbers_lines_per_file(tmp_path):
    """LineReader gives (name, line number, text) over files, numbering each from 1."""
    a = write(tmp_path / "a.txt", b"one\ntwo\n")
    b = write(tmp_path / "b.txt", b"\xef\xbb\xbfthree\r\n")
    assert list(LineReader([str(a), str(b)])) == [(str(a), 1, "one"), (str(a), 2, "two"),
                                                   (str(b), 1, "three")]


def test_line_reader_counts_bytes_over_files(tmp_path):
    """bytes_read ends at the total size of the files read."""
    a = write(tmp_path / "a.txt", b"one\ntwo\n")
    b = write(tmp_path / "b.txt", b"\xef\xbb\xbfthree\r\nfour")
    reader = LineReader([str(a), str(b)])
    seen = [reader.bytes_read for _ in reader]
    assert seen == sorted(seen) and reader.bytes_read == 8 + 14


def test_line_reader_defaults_to_stdin(monkeypatch):
    """No paths means standard input, named <stdin>."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x\n")))
    assert list(LineReader([])) == [("<stdin>", 1, "x")]


def test_missing_file_is_an_os_error_naming_it(tmp_path):
    """A missing file raises FileNotFoundError with its path (one line in the CLI)."""
    with pytest.raises(FileNotFoundError) as info:
        list(TextLines(tmp_path / "nope.txt"))
    assert info.value.filename == str(tmp_path / "nope.txt")


def test_split_lines_keeps_other_line_breaks():
    """Only \\n splits; \\r before it goes with it; U+2028 and form feed stay text."""
    assert split_lines("a\u2028b\x0cc\r\nd\n") == ["a\u2028b\x0cc", "d"]


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ""])
def test_read_bytes_gives_the_stored_text_decompressed(tmp_path, suffix):
    """read_bytes returns a file's whole content as written, compressed or not."""
    data = b"\xef\xbb\xbfone\r\ntwo\n"
    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress,
                "": bytes}[suffix]
    path = tmp_path / f"f.txt{suffix}"
    path.write_bytes(compress(data))
    assert lines_module.read_bytes(path) == data


# ---------------------------------------------------------------- inflate limits


def test_inflate_limit_is_a_multiple_of_the_stored_size_with_a_floor(monkeypatch):
    from wordpieces.formats.lines import (
        INFLATE_FLOOR,
        INFLATE_RATIO,
        WHOLE_FILE_LIMIT,
        inflate_limit,
    )
    monkeypatch.delenv("WORDPIECES_MAX_INFLATE", raising=False)
    assert inflate_limit(1000, whole=False) == INFLATE_FLOOR
    assert inflate_limit(10 << 20, whole=False) == INFLATE_RATIO * (10 << 20)
    assert inflate_limit(10 << 20, whole=True) == WHOLE_FILE_LIMIT
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "0")
    assert inflate_limit(10, whole=True) is None
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "lots")
    with pytest.raises(ValueError, match="WORDPIECES_MAX_INFLATE must be a number of bytes"):
        inflate_limit(10, whole=True)


def test_a_whole_read_stops_one_byte_past_the_limit(tmp_path, monkeypatch):
    from wordpieces.formats.lines import read_bytes
    path = tmp_path / "v.txt.gz"
    path.write_bytes(gzip.compress(b"a\n" * 1000))
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "2000")
    assert read_bytes(path) == b"a\n" * 1000  # exactly at the limit
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "1999")
    with pytest.raises(FormatError, match=r"v\.txt\.gz: decompresses to more than 1,999"):
        read_bytes(path)
