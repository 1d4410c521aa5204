"""The SentencePiece row of ``benchmarks/learn_quality.py`` on a tiny corpus.

The row counts the words, trains SentencePiece's unigram model on them and reads its
pieces as a WordPiece vocabulary; these tests run that code path (skipped without the
``sentencepiece`` package, a benchmark-only dependency).
"""

import importlib.util
import random
from pathlib import Path

import pytest

pytest.importorskip("sentencepiece")

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmarks" / "learn_quality.py"


def _lines() -> list[str]:
    """Words of two to four syllables, Zipf-like counts: a few hundred distinct words."""
    rng = random.Random(23)
    syllables = ["ka", "to", "ri", "men", "sa", "lo", "tre", "vi", "na", "que", "po", "de"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
             for _ in range(400)]
    return [" ".join(words[min(int(rng.paretovariate(0.8)), 400) - 1] for _ in range(12))
            + rng.choice([".", ",", "?"]) for _ in range(300)]


LINES = _lines()


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("learn_quality_bench", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sentencepiece_row_learns_a_wordpiece_vocabulary_from_files(bench, tmp_path):
    """Specials first, every character in both forms, no duplicate, the size asked.

    Held-out text made of the training words is read whole-word or in pieces, never
    ``[UNK]`` (every character is there in both forms).
    """
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES), encoding="utf-8")
    assert bench.has_sentencepiece()
    result = bench.learn_ours("sentencepiece", [str(corpus)], 80)
    vocab = result["vocab"]
    chars = {ch for line in LINES for ch in line.replace(" ", "")}
    assert vocab[:len(bench.SPECIALS)] == bench.SPECIALS
    assert len(vocab) == len(set(vocab)) == 80
    assert {f for ch in chars for f in (ch, "##" + ch)} <= set(vocab)
    assert "##" not in vocab and "" not in vocab
    merged = vocab[len(bench.SPECIALS) + 2 * len(chars):]
    assert merged and all(len(t.removeprefix("##")) > 1 for t in merged)
    scores = bench.quality(vocab, LINES[:4])
    assert scores["unk_rate"] == 0
    assert 1 <= scores["tokens_per_word"] < 3


def test_the_sentencepiece_row_stops_where_the_corpus_runs_out(bench, tmp_path):
    """A size the text cannot fill gives fewer tokens, not an error (a soft limit)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES), encoding="utf-8")
    vocab = bench.learn_ours("sentencepiece", [str(corpus)], 5000)["vocab"]
    assert len(bench.SPECIALS) < len(vocab) < 5000
    assert len(vocab) == len(set(vocab))
