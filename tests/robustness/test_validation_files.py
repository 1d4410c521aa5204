"""Counts files, ids on the command line, pipes and saved bytes (issue 14, 5 and 6).

Each case was accepted silently, or refused without naming the file and line; each test
asserts the fixed behaviour, through the API and the command line.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading

import pytest

import wordpieces as wp
from tests.robustness.helpers import VOCAB
from wordpieces.errors import FormatError
from wordpieces.learn.counting import WordCounts

HEADER = ('# {"fingerprint": null, "format": "wordpieces-word-counts", "pipeline": null, '
          '"version": 1}\n')


def cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``wordpieces ARGS`` in a fresh interpreter; text in and out."""
    return subprocess.run([sys.executable, "-m", "wordpieces", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- counts files


@pytest.mark.parametrize("word", ["", " ", "a b", "tab\there", "end "], ids=repr)
def test_counts_word_that_no_pretokenizer_gives_is_refused_at_its_line(tmp_path, word):
    """An empty word or one with a space went into the vocabulary (--ignore-fingerprint)."""
    path = tmp_path / "c.tsv"
    path.write_text(f"{HEADER}the\t5\n{word}\t3\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"c\.tsv:3: word .* is empty or holds ASCII "
                                          r"whitespace"):
        WordCounts.load(path)


def test_train_refuses_such_counts_naming_file_and_line(tmp_path):
    """The command line stops with the file and line, and writes no tokenizer."""
    (tmp_path / "c.tsv").write_text("the\t5\ncat\t4\n\t3\n", encoding="utf-8")
    out = cli("train", "--counts", str(tmp_path / "c.tsv"), "--ignore-fingerprint",
              "-o", str(tmp_path / "tok"), "--vocab-size", "50", "-q")
    assert out.returncode == 2
    assert "c.tsv:3: word '' is empty or holds ASCII whitespace" in out.stderr
    assert not (tmp_path / "tok").exists()


@pytest.mark.parametrize("words", [{"": 3}, {"a b": 1, "c": 2}], ids=["empty", "space"])
def test_counts_given_in_python_refuse_the_same_words(words):
    """WordCounts built from a dict (train(counts) passes through it) refuses them too."""
    with pytest.raises(ValueError, match=r"is empty or holds ASCII whitespace"):
        WordCounts(words)


def test_a_5000_digit_count_names_file_and_line(tmp_path):
    """int() failed on it with no file or line."""
    path = tmp_path / "c.tsv"
    path.write_text("the\t5\ncat\t" + "9" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"c\.tsv:2: the count has 5000 digits \(at most 19\)"):
        WordCounts.load(path)


@pytest.mark.parametrize("count", ["٣", "1_000", "+5", "²"])
def test_a_count_of_other_than_ascii_digits_is_refused(tmp_path, count):
    """int() reads Arabic-Indic digits and underscores; a counts file never has them."""
    path = tmp_path / "c.tsv"
    path.write_text(f"the\t{count}\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"c\.tsv:1: expected 'word<TAB>count' with a count "
                                          r"of digits 0-9"):
        WordCounts.load(path)


def test_a_saved_counts_file_cut_inside_a_number_is_refused(tmp_path):
    """save() ends every line with a newline: a last line without one was cut short."""
    path = tmp_path / "c.tsv"
    WordCounts({"the": 1234, "cat": 5}).save(path)
    data = path.read_bytes()
    path.write_bytes(data[:data.index(b"1234") + 2])  # "the\t12": a smaller count
    with pytest.raises(FormatError, match=r"c\.tsv:2: the last line has no newline: the file "
                                          r"was cut short"):
        WordCounts.load(path)


def test_a_plain_tsv_without_final_newline_still_loads(tmp_path):
    """Without the header it is a foreign TSV (TF, spm): nothing says how it should end."""
    path = tmp_path / "c.tsv"
    path.write_bytes(b"the\t12\ncat\t5")
    assert dict(WordCounts.load(path).items()) == {"the": 12, "cat": 5}


# ---------------------------------------------------------------- vocab_size


@pytest.mark.parametrize("size, message", [
    (1, r"vocab_size must be >= 6"), (0, r"vocab_size must be >= 6"),
    (2**40, r"vocab_size must be <= 16,777,216")])
def test_vocab_size_outside_its_bounds_is_refused_before_counting(size, message):
    """vocab_size=1 silently returned 5 to 117 tokens."""
    with pytest.raises(ValueError, match=message):
        wp.train(iter(["the cat"]), vocab_size=size, progress="none")


def test_vocab_size_below_the_alphabet_says_how_many_are_needed():
    """Every character seen must be in the vocabulary: asking for fewer is an error."""
    with pytest.raises(ValueError, match=r"vocab_size=8 is too small for this corpus: the "
                                         r"vocabulary needs at least \d+ tokens"):
        wp.train(iter(["the quick brown fox jumps"] * 5), vocab_size=8, progress="none",
                 lower_thresh=1)


def test_vocab_size_too_small_on_the_command_line_is_one_clear_line(tmp_path):
    """The CLI reports it as a usage error, not a traceback."""
    (tmp_path / "corpus.txt").write_text("the quick brown fox\n" * 5, encoding="utf-8")
    out = cli("train", str(tmp_path / "corpus.txt"), "-o", str(tmp_path / "tok"),
              "--vocab-size", "1", "-q")
    assert out.returncode == 2
    assert out.stderr.strip() == "wordpieces train: error: vocab_size must be >= 6, got 1"


# ---------------------------------------------------------------- decode ids


@pytest.mark.parametrize("field", ["+2", "7_592", "٣", "2.0", "-1"])
def test_decode_accepts_only_ascii_digit_ids(tmp_path, field):
    """int() took '7_592', '+2088' and non-ASCII digits as ids."""
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    out = cli("decode", "-t", str(tmp_path / "vocab.txt"), stdin=f"5 {field}\n")
    assert out.returncode == 2
    assert f"<stdin>:1: {field!r} is not an integer id (digits 0-9)" in out.stderr


def test_decode_names_a_huge_id_without_converting_it(tmp_path):
    """A 5000-digit id is out of range, said so, with no int() conversion error."""
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    out = cli("decode", "-t", str(tmp_path / "vocab.txt"), stdin="5 " + "9" * 5000 + "\n")
    assert out.returncode == 2
    assert "<stdin>:1: id 999999999999999999999999999999 is out of range" in out.stderr


# ---------------------------------------------------------------- pipes


def _through_fifo(tmp_path, data: bytes) -> str:
    """A named pipe that yields ``data`` once (what ``-t <(cat FILE)`` gives)."""
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            f.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return fifo


def test_a_vocab_txt_through_a_pipe_is_read_as_a_vocab(tmp_path):
    """-t <(cat vocab.txt) was read as JSON: the content decides, not the name."""
    data = ("\n".join(VOCAB) + "\n").encode()
    tok = wp.load(_through_fifo(tmp_path, data))
    assert tok.encode("hello worlds").tokens == ["[CLS]", "hello", "world", "##s", "[SEP]"]


def test_a_tokenizer_json_through_a_pipe_is_read_as_json(tmp_path):
    """And a tokenizer.json through a pipe is still a tokenizer.json."""
    saved = wp.Tokenizer.from_vocab(VOCAB, lowercase=False)
    tok = wp.load(_through_fifo(tmp_path, saved.to_str().encode()))
    assert tok.to_str() == saved.to_str()


def test_the_command_line_reads_a_vocab_from_process_substitution(tmp_path):
    """The real shell form, through bash."""
    (tmp_path / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    out = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m wordpieces encode -q --no-add-special-tokens '
         '-t <(cat vocab.txt)'],
        input="hello worlds\n", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert (out.returncode, out.stdout) == (0, "5 6 7\n"), out.stderr


# ---------------------------------------------------------------- saved bytes


def test_tokenizer_json_bytes_do_not_depend_on_the_hash_seed(tmp_path):
    """post_processor.special_tokens came from a set: 4 of 8 runs differed."""
    code = ("import sys, wordpieces as wp; sys.stdout.write(wp.Tokenizer.from_vocab("
            f"{VOCAB!r}).to_str())")
    digests = set()
    for seed in ("0", "1", "2", "3", "4", "5", "6", "7"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120)
        digests.add(hashlib.sha256(out.stdout).hexdigest())
    assert len(digests) == 1
