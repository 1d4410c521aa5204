"""``wordpieces train --algorithm bottom-up --drop-unused / --no-drop-unused``."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import fails, ok
from wordpieces.learn.learners.bottom_up import learn_bottom_up

COUNTS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def train_vocab(tmp_path, *flags: str) -> list[str]:
    corpus = tmp_path / "in.txt"
    corpus.write_text(" ".join(w for w, c in COUNTS.items() for _ in range(c)) + "\n",
                      encoding="utf-8")
    out = tmp_path / "-".join(["tok", *flags])
    ok("train", corpus, "--algorithm", "bottom-up", "--vocab-size", "18", *flags, "-o", out)
    return (out / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]


@pytest.mark.parametrize(("flags", "drop_unused"), [
    (("--drop-unused", "--score", "pmi"), True),
    (("--no-drop-unused",), False),
])
def test_drop_unused_reaches_the_learner(tmp_path, flags, drop_unused):
    """Each form gives learn_bottom_up's vocabulary with that drop_unused, against the
    default of the score (pmi keeps every merge, count drops the unused ones)."""
    score = "pmi" if "pmi" in flags else "count"
    expected = learn_bottom_up(COUNTS, 18, special_tokens=SPECIALS, score=score,
                               drop_unused=drop_unused)
    assert expected != learn_bottom_up(COUNTS, 18, special_tokens=SPECIALS, score=score)
    assert train_vocab(tmp_path, *flags) == expected


def test_drop_unused_is_refused_for_other_algorithms(tmp_path):
    corpus = tmp_path / "in.txt"
    corpus.write_text("hug pug\n", encoding="utf-8")
    assert "--drop-unused applies to --algorithm bottom-up" in fails(
        "train", corpus, "--drop-unused", "-o", tmp_path / "x")
