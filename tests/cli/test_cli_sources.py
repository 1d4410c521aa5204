"""Every command that reads text takes every kind of source, on both backends.

``count``, ``train``, ``encode`` and ``inspect`` read the hand-checked corpus of
``tests/input_sources.py`` as a path, a glob, a directory (hidden files skipped), stdin,
``.gz``/``.bz2``/``.xz`` and a ``file://`` URL, and must give the hand-worked counts, ids
and statistics each time; ``encode`` and ``inspect`` run on the native and the pure-Python
backend. The outputs' folders are created when missing (``-o out/x``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.input_sources import (
    COMPRESS,
    EXPECTED_COUNTS,
    EXPECTED_IDS,
    FILE_KINDS,
    LINES,
    VOCAB,
    write_source,
)
from wordpieces.learn.training import train

BACKENDS = ("native", "python")


def wordpieces(*args, stdin: bytes | None = None, backend: str | None = None,
               cwd=None) -> subprocess.CompletedProcess:
    """Run ``python -m wordpieces ARGS``; require exit status 0; return it (text output)."""
    env = {**os.environ, "NO_COLOR": "1"}
    if backend is not None:
        env["WORDPIECES_BACKEND"] = backend
    proc = subprocess.run([sys.executable, "-m", "wordpieces", *map(str, args)], input=stdin,
                          capture_output=True, env=env, cwd=cwd, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc


def source(kind: str, folder):
    """Write the corpus as ``kind``: (command-line argument, stdin bytes)."""
    if kind == "url":
        pytest.importorskip("fsspec")
    written = write_source(kind, folder)
    return written.argument, written.stdin


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("".join(token + "\n" for token in VOCAB), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_count_reads_every_source_kind(kind, tmp_path):
    """count writes the hand-counted words, into a folder it creates."""
    argument, stdin = source(kind, tmp_path)
    target = tmp_path / "out" / "deeper" / "counts.tsv"
    wordpieces("count", argument, "-o", target, "--num-proc", "1", stdin=stdin)
    rows = target.read_text(encoding="utf-8").splitlines()[1:]
    assert {w: int(c) for w, c in (row.split("\t") for row in rows)} == EXPECTED_COUNTS


@pytest.mark.parametrize("kind", FILE_KINDS)
def test_train_reads_every_source_kind(kind, tmp_path):
    """train learns from every kind of source the vocabulary train() learns from the lines."""
    argument, stdin = source(kind, tmp_path)
    target = tmp_path / "out" / "tok"
    wordpieces("train", argument, "--vocab-size", "60", "--lower-thresh", "1",
               "--num-proc", "1", "-o", target, stdin=stdin)
    expected = train(iter(LINES), vocab_size=60, lower_thresh=1, num_proc=1, progress="none")
    learned = (target / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert learned == sorted(expected.get_vocab(), key=expected.get_vocab().get)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", FILE_KINDS)
def test_encode_reads_every_source_kind(kind, backend, tmp_path, vocab):
    """encode gives the hand-worked ids of every line, in order, from every kind of source."""
    argument, stdin = source(kind, tmp_path)
    out = wordpieces("encode", "-t", vocab, argument, "--no-add-special-tokens", stdin=stdin,
                     backend=backend)
    assert out.stdout.decode().split("\n")[:-1] == [" ".join(map(str, ids))
                                                    for ids in EXPECTED_IDS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", FILE_KINDS)
def test_inspect_reads_every_source_kind(kind, backend, tmp_path, vocab):
    """inspect counts the corpus's lines, words and tokens (by hand: 5, 15, 16) from any source."""
    argument, stdin = source(kind, tmp_path)
    out = wordpieces("inspect", "-t", vocab, "--corpus", argument, "--json", stdin=stdin,
                     backend=backend)
    corpus = json.loads(out.stdout)["corpus"]
    assert (corpus["lines"], corpus["words"], corpus["tokens"]) == (5, 15, 16)
    assert corpus["characters"] == sum(len(line) for line in LINES)


def test_encode_npy_creates_the_output_folder(tmp_path, vocab):
    """-o into folders that do not exist yet creates them, for the npy pair too."""
    pytest.importorskip("numpy")
    import numpy as np

    argument, _ = source("path", tmp_path)
    target = tmp_path / "new" / "ids.npy"
    wordpieces("encode", "-t", vocab, argument, "--no-add-special-tokens", "--format", "npy",
               "-o", target)
    assert np.load(target).tolist() == [i for ids in EXPECTED_IDS for i in ids]
    assert (tmp_path / "new" / "ids.idx.npy").exists()


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_a_compressed_vocab_txt_is_a_tokenizer_too(suffix, tmp_path):
    """-t takes a compressed vocab.txt, read as the plain one (and its errors name lines)."""
    compress = COMPRESS[suffix]
    vocab = tmp_path / f"vocab.txt.{suffix}"
    vocab.write_bytes(compress("".join(token + "\n" for token in VOCAB).encode()))
    out = wordpieces("encode", "-t", vocab, "--no-add-special-tokens",
                     stdin=(LINES[0] + "\n").encode())
    assert out.stdout.decode() == " ".join(map(str, EXPECTED_IDS[0])) + "\n"
    broken = tmp_path / f"dup.txt.{suffix}"
    broken.write_bytes(compress(b"[UNK]\na\na\n"))
    proc = subprocess.run([sys.executable, "-m", "wordpieces", "encode", "-t", str(broken)],
                          input=b"a\n", capture_output=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (
        f"wordpieces encode: error: {broken}:3: duplicate token 'a' (first seen on line 2)")
