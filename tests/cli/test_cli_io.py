"""What the command reads and writes: every input read the same way, every output atomic.

Inputs go through the one line reader (BOM, CRLF, ``.gz/.bz2/.xz``, bad UTF-8 named by
file and line) whichever subcommand or engine reads them; outputs through the one atomic
writer (the mode of a replaced file kept, the umask respected for a new one). A small
vocabulary written here keeps these tests free of ../shared.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import stat
import sys

import pytest

from tests.cli.test_cli import fails, ok, run

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
COMPRESSORS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", ",", "!", "the",
         "cat", "##s", "sat"]
TEXT = "Hello, world!\nthe cats sat\n\nHELLO the world\n" * 700  # several batches


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("".join(token + "\n" for token in VOCAB), encoding="utf-8")
    return path


@pytest.fixture
def plain(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_bytes(TEXT.encode())
    return path


@pytest.fixture
def umask():
    """Set a known umask for one test (children inherit it) and restore it after."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_encode_reads_compressed_inputs(tmp_path, vocab, plain, suffix):
    """encode of a .gz/.bz2/.xz file writes what encode of its text writes."""
    packed = tmp_path / f"in.txt{suffix}"
    packed.write_bytes(COMPRESSORS[suffix](TEXT.encode()))
    expected = ok("encode", "-t", vocab, plain).out
    assert expected.count("\n") == TEXT.count("\n")
    assert ok("encode", "-t", vocab, packed).out == expected


def test_decode_reads_compressed_inputs(tmp_path, vocab):
    """decode reads a compressed file of ids like the plain one."""
    ids = "5 7 6 8\n9 10 11 12\n"
    (tmp_path / "ids.txt").write_text(ids)
    (tmp_path / "ids.txt.gz").write_bytes(gzip.compress(ids.encode()))
    plain = ok("decode", "-t", vocab, tmp_path / "ids.txt").out
    assert plain == "hello, world!\nthe cats sat\n"
    assert ok("decode", "-t", vocab, tmp_path / "ids.txt.gz").out == plain


def test_bom_and_crlf_read_as_plain_lines(tmp_path, vocab, plain):
    """A file saved with a BOM and CRLF line ends encodes like the same lines with LF."""
    windows = tmp_path / "windows.txt"
    windows.write_bytes(b"\xef\xbb\xbf" + TEXT.replace("\n", "\r\n").encode())
    assert ok("encode", "-t", vocab, windows).out == ok("encode", "-t", vocab, plain).out


def test_bad_utf8_in_a_compressed_file_names_file_and_line(tmp_path, vocab):
    """Invalid UTF-8 inside a .gz file is reported with its name and line number."""
    (tmp_path / "bad.txt.gz").write_bytes(gzip.compress(b"fine\nfine\nnot \xff fine\n"))
    assert "bad.txt.gz:3: not valid UTF-8" in fails("encode", "-t", vocab,
                                                     tmp_path / "bad.txt.gz")


def test_bad_utf8_on_stdin_names_stdin_and_line(vocab):
    """Bad bytes on stdin are reported as <stdin>:line, exit status 2."""
    assert "<stdin>:2: not valid UTF-8" in fails("encode", "-t", vocab, stdin=b"ok\n\xc3(\n")


@posix_only
@pytest.mark.parametrize("fmt, name", [("ids", "out.ids"), ("npy", "out.npy")])
def test_output_keeps_the_mode_of_the_file_it_replaces(tmp_path, vocab, plain, fmt, name):
    """Writing over an existing output keeps its permission bits (e.g. 0640)."""
    target = tmp_path / name
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    ok("encode", "-t", vocab, plain, "--format", fmt, "-o", target)
    assert mode(target) == 0o640 and target.read_bytes() != b"old"


@posix_only
@pytest.mark.parametrize("fmt, names", [("ids", ["out.ids"]),
                                        ("npy", ["out.idx.npy", "out.npy"])])
def test_new_output_gets_the_umask_default(tmp_path, vocab, plain, umask, fmt, names):
    """A new output has 0666 & ~umask, as a plain open would give it."""
    umask(0o027)
    ok("encode", "-t", vocab, plain, "--format", fmt, "-o", tmp_path / names[-1])
    assert [mode(tmp_path / n) for n in names] == [0o640] * len(names)


def test_missing_output_folders_are_created(tmp_path, vocab, plain):
    """An output in folders that do not exist yet creates them (as mkdir -p), npy too."""
    for name in ("out.ids", "out.npy"):
        fmt = "npy" if name.endswith(".npy") else "ids"
        target = tmp_path / "new" / fmt / name
        ok("encode", "-t", vocab, plain, "--format", fmt, "-o", target)
        assert target.stat().st_size > 0


def test_a_file_in_the_way_of_the_output_folder_is_named(tmp_path, vocab, plain):
    """When the output's folder cannot be made, the error names the output, not a temporary."""
    (tmp_path / "taken").write_text("a file\n")
    for command in (["encode", "-t", vocab, plain], ["count", plain]):
        message = fails(*command, "-o", tmp_path / "taken" / "out.txt")
        assert f"{tmp_path / 'taken' / 'out.txt'}: cannot create its folder" in message
        assert ".tmp" not in message


@posix_only
def test_count_output_is_atomic_and_keeps_its_mode(tmp_path, plain):
    """count writes its TSV through the same writer: mode kept, no temporary left."""
    target = tmp_path / "counts.tsv"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    ok("count", plain, "-o", target)
    assert mode(target) == 0o600 and "hello\t1400" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counts.tsv", "plain.txt"]


def test_dask_encode_reads_a_compressed_file_whole(tmp_path, vocab, plain):
    """--engine dask reads a .gz input as one block, whatever --blocksize says."""
    pytest.importorskip("distributed")
    packed = tmp_path / "in.txt.gz"
    packed.write_bytes(gzip.compress(TEXT.encode()))
    ok("encode", "-t", vocab, packed, plain, "--engine", "dask", "--num-proc", "1",
       "--blocksize", "5000", "-o", tmp_path / "shards")
    manifest = json.loads((tmp_path / "shards" / "manifest.json").read_text())
    first, *rest = manifest["shards"]
    assert first["input"] == str(packed) and (first["start"], first["end"]) == (
        0, packed.stat().st_size)
    assert all(shard["input"] == str(plain) for shard in rest) and len(rest) > 1
    local = ok("encode", "-t", vocab, plain).out
    assert (tmp_path / "shards" / first["shard"]).read_text() == local
    assert "".join((tmp_path / "shards" / s["shard"]).read_text() for s in rest) == local


def test_dask_encode_names_the_file_line_of_bad_utf8_in_a_later_block(tmp_path, vocab):
    """A bad byte in a block far from the file's start is reported with its line in the file."""
    pytest.importorskip("distributed")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"hello world\n" * 1000 + b"bad \xff\n")
    proc = run("encode", "-t", vocab, bad, "--engine", "dask", "--num-proc", "1",
               "--blocksize", "4000", "-o", tmp_path / "shards")
    assert proc.returncode == 2, proc.err
    assert "bad.txt:1001: not valid UTF-8" in proc.err


def test_an_error_on_a_temporary_file_is_reported_under_the_outputs_name(tmp_path):
    """An OSError naming the temporary beside the output is re-raised naming the output."""
    import errno
    import re

    from wordpieces.cli.common import CLIError, naming_output

    target = str(tmp_path / "counts.tsv")
    temporary = str(tmp_path / ".counts.tsv.x1y2.tmp")
    expected = rf"^{re.escape(target)}: cannot write: No space left on device$"
    with pytest.raises(CLIError, match=expected):
        with naming_output(target):
            raise OSError(errno.ENOSPC, "No space left on device", temporary)
    with pytest.raises(OSError, match="Broken pipe"):  # not about the output file: unchanged
        with naming_output(target):
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
