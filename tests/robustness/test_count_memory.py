"""``count --max-words`` bounds counting memory on a corpus of many distinct words.

A real ``wordpieces count`` in a subprocess, on ~400k distinct made-up words, with and
without ``--max-words 10000``: the peak resident memory (``ru_maxrss`` of the child)
of the bounded run must stay well under the unbounded one's, and its counts must be the
unbounded run's top 10,000 (count descending, then word). Memory is compared, never time.
"""

from __future__ import annotations

import random
import string
import subprocess
import sys

import pytest

from tests.robustness.killing import TIMEOUT, environment
from wordpieces.learn.counting import WordCounts

MAX_WORDS = 10_000


def peak_rss_of(command: list[str]) -> int:
    """Run ``command`` in a fresh child; return its peak resident memory in KiB."""
    probe = ("import resource, subprocess, sys; "
             "done = subprocess.run(sys.argv[1:], capture_output=True); "
             "sys.stderr.buffer.write(done.stderr); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
             "sys.exit(done.returncode)")
    done = subprocess.run([sys.executable, "-c", probe, *command], env=environment(),
                          capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return int(done.stdout)


@pytest.fixture(scope="module")
def distinct_corpus(tmp_path_factory):
    """~40,000 lines of ten random words of 4-10 letters: almost every word distinct."""
    rng = random.Random(14)
    path = tmp_path_factory.mktemp("distinct") / "words.txt"
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(40_000):
            f.write(" ".join("".join(rng.choice(string.ascii_lowercase)
                                     for _ in range(rng.randint(4, 10)))
                             for _ in range(10)) + "\n")
    return path


def test_max_words_bounds_peak_memory(distinct_corpus, tmp_path):
    def count(out, *extra):
        return peak_rss_of([sys.executable, "-m", "wordpieces", "count",
                            str(distinct_corpus), "-o", str(out), "--num-proc", "1",
                            "--blocksize", str(1 << 19), "--quiet", *extra])

    unbounded = count(tmp_path / "all.tsv")
    bounded = count(tmp_path / "top.tsv", "--max-words", str(MAX_WORDS))
    full = WordCounts.load(tmp_path / "all.tsv")
    assert len(full) > 350_000
    assert dict(WordCounts.load(tmp_path / "top.tsv")) == dict(full.most_common(MAX_WORDS))
    assert bounded < 0.6 * unbounded, (bounded, unbounded)
