"""Sources cut files into blocks that read back exactly the file's lines, whatever the sizes.

How a file is read as lines (BOM, line ends, compression, bad UTF-8) is tested with the
reader itself, in tests/unit/formats/test_lines.py.
"""

import gzip
import io
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import LINE_TEXT, reference_lines
from tests.shared_data import shared_path
from wordpieces.formats import lines as line_reader
from wordpieces.learn.sources import Block, block_lines, file_blocks, plan, stdin_lines


def read_all(path, *, read_size: int, blocksize: int | None = None) -> list[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(line_reader, "READ_SIZE", read_size)
        blocks = [Block(str(path))] if blocksize is None else file_blocks(str(path), blocksize)
        return [line for block in blocks for line in block_lines(block)]


@settings(max_examples=150, deadline=None)
@given(text=LINE_TEXT, read_size=st.integers(1, 16), blocksize=st.integers(1, 40))
def test_blocks_together_give_each_line_once(tmp_path_factory, text, read_size, blocksize):
    """Cut into byte-range blocks, a file's lines come back each once, in order."""
    path = tmp_path_factory.mktemp("blocks") / "f.txt"
    path.write_bytes(text.encode("utf-8"))
    assert read_all(path, read_size=read_size, blocksize=blocksize) == reference_lines(text)


@pytest.mark.shared_data
def test_real_corpus_with_bom_and_crlf(tmp_path):
    """botchan.txt (BOM, CRLF) reads as Python's reader gives it, in blocks and small chunks."""
    raw = shared_path("corpora", "english", "botchan.txt").read_bytes()[:200_000]
    raw = raw[:raw.rindex(b"\n") + 1]
    path = tmp_path / "botchan.txt"
    path.write_bytes(raw)
    expected = reference_lines(raw.decode("utf-8-sig"))
    assert read_all(path, read_size=4096, blocksize=50_000) == expected
    assert read_all(path, read_size=97) == expected


def test_compressed_file_is_one_block_of_its_lines(tmp_path):
    """A .gz file larger than the block size stays one block and gives its text's lines."""
    text = "alpha\r\nbeta\n\ngamma"
    path = tmp_path / "f.txt.gz"
    with gzip.open(path, "wb") as f:
        f.write(text.encode())
    block, = file_blocks(str(path), 4)
    assert (block.start, block.end, block.compression) == (0, None, "gzip")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(line_reader, "READ_SIZE", 3)
        assert list(block_lines(block)) == ["alpha", "beta", "", "gamma"]


def test_stdin_lines(monkeypatch):
    """Standard input is read as UTF-8 bytes into exactly its lines."""
    stdin = io.TextIOWrapper(io.BytesIO(b"un\r\ndeux\n\ntrois\r"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(line_reader, "READ_SIZE", 2)
    assert list(stdin_lines()) == ["un", "deux", "", "trois\r"]


def test_stdin_is_planned_as_a_stream_read_here(monkeypatch):
    """'-' becomes a stream of texts read by the calling process, not a block for workers."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\nc\n")))
    unit, = plan("-", blocksize=10)
    assert not isinstance(unit, Block) and list(unit) == ["a b", "c"]
