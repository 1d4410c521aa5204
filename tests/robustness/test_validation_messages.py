"""No error prints with an empty message (issue 14, "What to build" 2).

``MemoryError()`` carries no text: the command line's top-level handler must still say
what happened, in one line.
"""

from __future__ import annotations

import io
import resource
import subprocess
import sys

import pytest

from tests.robustness.helpers import VOCAB
from wordpieces import cli
from wordpieces.cli import encode as cli_encode
from wordpieces.errors import describe_error


def _raise_memory_error(*args, **kwargs):
    raise MemoryError()


def test_a_memory_error_is_reported_in_words(tmp_path, monkeypatch, capsys):
    """'internal error: MemoryError:' with nothing after it is now a sentence."""
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    monkeypatch.setattr(cli_encode, "encode_batches", _raise_memory_error)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello\n")))
    status = cli.main(["encode", "-q", "-t", str(tmp_path / "vocab.txt")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip() == ("wordpieces encode: error: out of memory: the input or a size in "
                           "the configuration is too large for this machine's memory")


@pytest.mark.parametrize("error, text", [
    (MemoryError(), "out of memory: the input or a size"),
    (MemoryError("cannot allocate 8 GB"), "out of memory (cannot allocate 8 GB)"),
    (RuntimeError(), "RuntimeError (no message)"), (ValueError("bad"), "bad")],
    ids=["memory", "memory-with-text", "empty", "plain"])
def test_describe_error_is_never_empty(error, text):
    """Every error gets words, its own when it has some."""
    assert describe_error(error).startswith(text)


def _limit_memory():  # in the child, before exec: 1.5 GB of address space
    resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))


@pytest.mark.slow
def test_a_huge_line_under_a_memory_limit_ends_with_a_message(tmp_path):
    """A 40 MB line to jsonl under a 1.5 GB limit: encoded, or refused in words."""
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    line = ("hello world " * 3_500_000).encode() + b"\n"
    out = subprocess.run([sys.executable, "-m", "wordpieces", "encode", "-q", "-t",
                          str(tmp_path / "vocab.txt"), "--format", "jsonl"],
                         input=line, capture_output=True, timeout=600,
                         preexec_fn=_limit_memory)
    if out.returncode != 0:
        message = out.stderr.decode().strip()
        assert message.startswith("wordpieces encode: ")
        assert not message.endswith(":"), message  # something after the last colon
        assert "MemoryError: (" not in message
