"""encode refuses a line over its documented length cap, naming it, before encoding it."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from tests.robustness.helpers import VOCAB
from wordpieces.cli.encode import MAX_LINE_CHARS


def _encode(tmp_path, args: list[str], data: bytes, limit_memory: bool = False):
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "wordpieces", "encode", "-q",
                           "--no-add-special-tokens", "-t", str(tmp_path / "vocab.txt"),
                           *args], input=data,
                          capture_output=True, timeout=300,
                          preexec_fn=_one_gigabyte if limit_memory else None)


def _one_gigabyte():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_a_line_over_the_default_cap_is_refused_in_bounded_memory(tmp_path):
    """A line one character over the cap, to jsonl under 1 GB: refused, naming the line."""
    line = ("hello world " * (MAX_LINE_CHARS // 12 + 1))[:MAX_LINE_CHARS + 1]
    out = _encode(tmp_path, ["--format", "jsonl"], line.encode() + b"\n", limit_memory=True)
    message = out.stderr.decode()
    assert out.returncode == 2, message
    assert f"<stdin>:1: a line of {MAX_LINE_CHARS + 1:,} characters" in message
    assert f"--max-line-chars {MAX_LINE_CHARS:,}" in message
    assert out.stdout == b""


def test_the_cap_names_the_file_and_line_and_writes_nothing(tmp_path):
    """With --max-line-chars 20, line 2 of a file (21 characters) is named; -o is not made."""
    source = tmp_path / "in.txt"
    source.write_text("hello world\n" + "hello world hello wor\n", encoding="utf-8")
    out = _encode(tmp_path, ["--max-line-chars", "20", str(source), "-o",
                             str(tmp_path / "out.txt")], b"")
    assert out.returncode == 2
    assert f"{source}:2: a line of 21 characters" in out.stderr.decode()
    assert not (tmp_path / "out.txt").exists()


def test_a_line_at_the_cap_is_encoded(tmp_path):
    """Exactly --max-line-chars characters is allowed."""
    out = _encode(tmp_path, ["--max-line-chars", "11"], b"hello world\n")
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().split() == [str(VOCAB.index("hello")), str(VOCAB.index("world"))]


def test_the_dask_engine_names_the_block(tmp_path):
    """--engine dask: the worker refuses the long line, naming the file and its block."""
    pytest.importorskip("distributed")
    source = tmp_path / "in.txt"
    source.write_text("hello world\n" + "hello world hello wor\n", encoding="utf-8")
    out = _encode(tmp_path, ["--engine", "dask", "--num-proc", "1", "--max-line-chars", "20",
                             str(source), "-o", str(tmp_path / "shards")], b"")
    assert out.returncode == 2, out.stderr.decode()
    assert f"{source}: line 2 of the block at byte 0: a line of 21 characters" in \
        out.stderr.decode()
