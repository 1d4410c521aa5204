"""``count``/``train`` with ``--checkpoint`` and ``--max-words``, through the real CLI."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from wordpieces.learn.counting import WordCounts


def wordpieces(*args, expect: int = 0, stdin: bytes | None = None):
    """Run ``python -m wordpieces ARGS``; require exit status ``expect``; return it."""
    proc = subprocess.run([sys.executable, "-m", "wordpieces", *map(str, args)],
                          input=stdin, capture_output=True, timeout=300,
                          env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == expect, proc.stderr.decode(errors="replace")
    return proc


@pytest.fixture
def corpus(tmp_path):
    rng = random.Random(5)
    words = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far", "away", "home"]
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(" ".join(rng.choices(words, k=8)) + rng.choice(".!?")
                              for _ in range(3000)) + "\n", encoding="utf-8")
    return path


def test_count_with_checkpoint_writes_the_plain_counts(corpus, tmp_path):
    wordpieces("count", corpus, "-o", tmp_path / "plain.tsv", "--num-proc", "1")
    for _ in range(2):  # the second run reads every block from the checkpoint
        wordpieces("count", corpus, "-o", tmp_path / "ck.tsv", "--num-proc", "1",
                   "--blocksize", "2048", "--checkpoint", tmp_path / "ck")
        assert (tmp_path / "ck.tsv").read_bytes() == (tmp_path / "plain.tsv").read_bytes()


def test_count_refuses_a_checkpoint_of_other_options(corpus, tmp_path):
    wordpieces("count", corpus, "-o", tmp_path / "a.tsv", "--checkpoint", tmp_path / "ck",
               "--blocksize", "2048")
    proc = wordpieces("count", corpus, "-o", tmp_path / "b.tsv", "--checkpoint",
                      tmp_path / "ck", "--blocksize", "2048", "--no-lowercase", expect=2)
    assert b"checkpoint.json: this checkpoint was made with pipeline" in proc.stderr
    assert not (tmp_path / "b.tsv").exists()


def test_count_refuses_a_checkpoint_of_stdin(tmp_path):
    proc = wordpieces("count", "-", "-o", tmp_path / "a.tsv", "--checkpoint", tmp_path / "ck",
                      stdin=b"a b\n", expect=2)
    assert b"wordpieces count: error: a checkpoint needs files" in proc.stderr


def test_train_with_checkpoint_learns_the_same_vocabulary(corpus, tmp_path):
    common = ["--vocab-size", "60", "--lower-thresh", "1", "--num-proc", "1"]
    wordpieces("train", corpus, "-o", tmp_path / "plain", *common)
    wordpieces("train", corpus, "-o", tmp_path / "ck", "--checkpoint", tmp_path / "blocks",
               "--blocksize", "4096", *common)
    assert (tmp_path / "ck" / "vocab.txt").read_bytes() == \
        (tmp_path / "plain" / "vocab.txt").read_bytes()
    assert any(name.startswith("block-") for name in os.listdir(tmp_path / "blocks"))


def test_train_refuses_checkpoint_with_counts(corpus, tmp_path):
    wordpieces("count", corpus, "-o", tmp_path / "c.tsv")
    proc = wordpieces("train", "--counts", tmp_path / "c.tsv", "-o", tmp_path / "t",
                      "--checkpoint", tmp_path / "ck", expect=2)
    assert b"--checkpoint and --max-words apply to counting a corpus" in proc.stderr


def test_count_max_words_keeps_the_most_common(corpus, tmp_path):
    wordpieces("count", corpus, "-o", tmp_path / "all.tsv")
    proc = wordpieces("count", corpus, "-o", tmp_path / "top.tsv", "--max-words", "4",
                      "--blocksize", "4096", "--num-proc", "2")
    full = WordCounts.load(tmp_path / "all.tsv").most_common()
    assert WordCounts.load(tmp_path / "top.tsv").most_common() == full[:4]
    assert (f"wordpieces count: warning: max_distinct_words=4 left out {len(full) - 4:,} "
            f"rarer distinct words; the highest count among them is {full[4][1]:,}"
            ).encode() in proc.stderr
