"""``wordpieces inspect`` and ``explain`` as a newcomer meets them: a padded tokenizer.json
measured as its vocabulary (its padding and truncation named, the cut shown on its own),
the page's two colours on a terminal, and nothing to explain as an error.

Not handled here: the statistics themselves (tests/unit/tools/test_inspect_vocab.py), the
trace (tests/unit/tools/test_explain.py).
"""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import fails, ok, vocab, write_lines
from tests.shared_data import corpus_lines, shared_path

AMBER, BLUE, RESET = "\x1b[38;5;214m", "\x1b[38;5;75m", "\x1b[0m"  # the page's two colours


def minilm():
    """all-MiniLM-L6-v2's tokenizer.json: BERT uncased's vocabulary, padded to 128 and
    truncated at 128."""
    return shared_path("vocab", "all-MiniLM-L6-v2.tokenizer.json")


@pytest.mark.shared_data
def test_inspect_measures_a_padded_tokenizer_json_as_its_vocabulary(tmp_path):
    """The issue's case: 4.743 tokens per word and a median of 130 (the padding) before;
    now the figures of the same vocabulary as a vocab.txt (1.072)."""
    src = write_lines(tmp_path / "verdict.txt", corpus_lines("english", "the-verdict.txt"))
    padded = json.loads(ok("inspect", "-t", minilm(), "--corpus", src, "--json").out)["corpus"]
    plain = json.loads(ok("inspect", "-t", vocab(), "--corpus", src, "--json").out)["corpus"]
    assert padded["tokens"] == plain["tokens"]
    assert padded["tokens_per_word"] == plain["tokens_per_word"]
    assert round(padded["tokens_per_word"]["mean"], 3) == 1.072
    assert padded["sequence_length"]["percentiles"] == plain["sequence_length"]["percentiles"]
    assert padded["left_out"]["padding"]["length"] == 128
    assert padded["left_out"]["truncation"]["max_length"] == 128
    assert plain["left_out"] == {"padding": None, "truncation": None}


@pytest.mark.shared_data
def test_inspect_says_what_it_left_out_and_what_truncation_cuts(tmp_path):
    src = write_lines(tmp_path / "verdict.txt", corpus_lines("english", "the-verdict.txt"))
    lines = ok("inspect", "-t", minilm(), "--corpus", src).out.splitlines()
    assert ("measured without the tokenizer's padding (to 128 tokens) and truncation "
            "(at 128 tokens)") in lines
    report = json.loads(ok("inspect", "-t", minilm(), "--corpus", src, "--json").out)
    seq = report["corpus"]["sequence_length"]
    assert (seq["max_length"], seq["max_length_source"]) == (128, "truncation")
    assert seq["lines_over"] > 0  # the-verdict has lines over 126 word pieces
    cut_line = next(line for line in lines if line.startswith("over max length"))
    assert cut_line.startswith("over max length 128 (the tokenizer's truncation; --max-length "
                               f"to change): {seq['lines_over']} lines")
    given = ok("inspect", "-t", minilm(), "--corpus", src, "--max-length", "512").out
    assert "over max length 512 (--max-length): 0 lines" in given
    assert "measured without" not in ok("inspect", "-t", vocab(), "--corpus", src).out


@pytest.mark.shared_data
def test_explain_colours_word_starts_amber_and_continuations_blue():
    """The page's colours (amber starts, blue ## pieces), not cyan and yellow."""
    out = ok("explain", "-t", vocab(), "--color", "always", "--no-steps", "unaffable").out
    assert f"{AMBER}una{RESET} {BLUE}##ffa{RESET} {BLUE}##ble{RESET}" in out
    assert "\x1b[36m" not in out and "\x1b[33m" not in out


@pytest.mark.shared_data
def test_explain_with_nothing_to_explain_is_an_error():
    """No WORD and an empty stdin: exit 2 and one line naming what is missing."""
    message = fails("explain", "-t", vocab(), stdin="")
    assert message == ("wordpieces explain: error: nothing to explain: no WORD given and "
                       "stdin is empty (give words, e.g. explain -t TOKENIZER unaffable, "
                       "or lines on stdin)")


@pytest.mark.shared_data
def test_explain_still_reads_words_from_stdin():
    assert "una ##ffa ##ble" in ok("explain", "-t", vocab(), stdin="unaffable\n").out
