"""Top-down's threshold search ending short of ``vocab_size`` is said, with the way out.

TF Text's learner (and so ``algorithm="top-down"``) may return far fewer tokens than asked
on a small corpus; ``train`` warns naming the threshold that limited it and the options
that reach the size, and the CLI shows that warning as one line.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import wordpieces as wp
from wordpieces.learn.training import short_of_size_reason

LINES = ["the quick brown fox jumps over the lazy dog while the cat sleeps"] * 30 + [
    "a tokenizer splits unaffable words into pieces and playing into play ##ing"] * 12 + [
    "one rare line"]


def test_train_warns_when_top_down_stops_at_its_lowest_threshold():
    with pytest.warns(UserWarning, match=r"top-down learned \d+ tokens of vocab_size=5000: "
                                         r"even at its lowest count threshold \(10; "
                                         r"lower_thresh=10\)") as caught:
        tok = wp.train(iter(LINES), vocab_size=5000, progress="none", num_proc=1)
    assert tok.vocab_size < 5000 * 0.95
    assert "--lower-thresh" in str(caught[0].message)
    assert "algorithm='bottom-up'" in str(caught[0].message)


def test_no_warning_when_the_size_is_reached():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tok = wp.train(iter(LINES), vocab_size=60, lower_thresh=1, progress="none", num_proc=1)
    assert 57 <= tok.vocab_size <= 60


def test_a_floor_set_by_the_rarest_word_is_named_so():
    """The search never goes below the rarest word's count: lowering lower_thresh is no help."""
    reason = short_of_size_reason(80, 5000, [(40, 70), (12, 80)], {"lower_thresh": 10})
    assert reason is not None and "(12, the rarest word's count)" in reason
    assert "--lower-thresh" not in reason


def test_at_threshold_one_the_advice_does_not_say_lower_it():
    reason = short_of_size_reason(100, 5000, [(5, 80), (1, 100)], {"lower_thresh": 1})
    assert reason is not None and "lower lower_thresh" not in reason
    assert "train on more text" in reason


def test_straddling_thresholds_name_both_sizes():
    reason = short_of_size_reason(800, 1000, [(10, 1200), (20, 900), (15, 1100), (16, 800)],
                                  {})
    assert reason is not None
    assert "at count threshold 15 it gives 1100 tokens, over the size, and at 16 800" in reason
    assert "--slack-ratio" in reason


def test_cli_train_prints_the_reason_as_one_line(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "wordpieces", "train", str(corpus),
                           "--vocab-size", "5000", "--num-proc", "1", "-o", str(tmp_path / "t"),
                           "--flavor", "huggingface"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "top-down learned" in line]
    assert len(lines) == 1 and lines[0].startswith("wordpieces train: warning: top-down")
