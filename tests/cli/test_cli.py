"""The ``wordpieces`` command, driven in a subprocess, against the references.

Ids are checked against Google BERT's and TF Text's goldens and against Hugging Face
``tokenizers``; vocabularies and counts against TF Text's learner goldens. Error cases
check the exit status and the one-line message; outputs are checked to be atomic.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.shared_data import corpus_lines, shared_path

GOLDEN_LINES = 300  # per golden file: enough real text, a fast subprocess


def run(*args, stdin: str | bytes | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run ``python -m wordpieces ARGS`` and capture its output (as text)."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "wordpieces", *map(str, args)], input=data,
                          capture_output=True, cwd=cwd, env=env, timeout=300)
    proc.out = proc.stdout.decode("utf-8")  # type: ignore[attr-defined]
    proc.err = proc.stderr.decode("utf-8")  # type: ignore[attr-defined]
    return proc


def ok(*args, **kwargs) -> subprocess.CompletedProcess:
    """Run and require exit status 0."""
    proc = run(*args, **kwargs)
    assert proc.returncode == 0, proc.err
    return proc


def fails(*args, **kwargs) -> str:
    """Run, require exit status 2 with one line on stderr and no traceback; return it."""
    proc = run(*args, **kwargs)
    assert proc.returncode == 2, (proc.returncode, proc.err)
    assert "Traceback" not in proc.err
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1 or lines[0].startswith("usage:"), proc.err
    return lines[-1]


def vocab(name: str = "bert-base-uncased") -> Path:
    return shared_path("vocab", f"{name}.vocab.txt")


def golden(name: str, folder: str = "tokenize_bert", limit: int = GOLDEN_LINES) -> list[dict]:
    rows = []
    with open(shared_path("golden", folder, f"{name}.jsonl"), encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line))
            if len(rows) == limit:
                break
    return rows


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def id_lines(text: str) -> list[list[int]]:
    return [[int(x) for x in line.split()] for line in text.split("\n")[:-1]]


# ---------------------------------------------------------------- encode against references


@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", ["english_wikitext", "udhr_mix", "chinese"])
def test_encode_ids_match_google_bert(tmp_path, corpus):
    """encode (flavor bert) gives Google BERT's ids, uncased and cased, line for line."""
    rows = golden(corpus)
    src = write_lines(tmp_path / "in.txt", [r["text"] for r in rows])
    uncased = ok("encode", "-t", vocab(), "--no-add-special-tokens", src).out
    cased = ok("encode", "-t", vocab("bert-base-cased"), "--no-lowercase",
               "--no-add-special-tokens", src).out
    assert id_lines(uncased) == [r["uncased"] for r in rows]
    assert id_lines(cased) == [r["cased"] for r in rows]


@pytest.mark.shared_data
def test_encode_tensorflow_flavor_matches_tf_text(tmp_path):
    """--flavor tensorflow gives TF Text BertTokenizer's ids on the emoji and UDHR goldens."""
    rows = golden("emoji", "tokenize") + golden("udhr_mix", "tokenize")
    src = write_lines(tmp_path / "in.txt", [r["text"] for r in rows])
    out = ok("encode", "-t", vocab(), "--flavor", "tensorflow", "--no-add-special-tokens",
             src).out
    assert id_lines(out) == [r["tf_bert_tokenizer"] for r in rows]


@pytest.mark.shared_data
def test_encode_jsonl_matches_hf_tokenizers(tmp_path):
    """jsonl ids, tokens and offsets equal HF tokenizers' encodings (flavor huggingface)."""
    from tests.hf_reference import hf_from_vocab, sample_lines

    lines = sample_lines("english", 200) + sample_lines("udhr", 100)
    src = write_lines(tmp_path / "in.txt", lines)
    out = ok("encode", "-t", vocab(), "--flavor", "huggingface", "--format", "jsonl",
             "--add-special-tokens", src).out
    records = [json.loads(line) for line in out.splitlines()]
    reference = hf_from_vocab(vocab()).encode_batch(lines)
    assert [r["ids"] for r in records] == [e.ids for e in reference]
    assert [r["tokens"] for r in records] == [e.tokens for e in reference]
    assert [[tuple(o) for o in r["offsets"]] for r in records] == [e.offsets for e in reference]


@pytest.mark.shared_data
def test_tokens_format_is_the_tokens_of_the_ids(tmp_path):
    """--format tokens writes, line for line, the vocabulary entries of the ids."""
    lines = corpus_lines("english", "the-verdict.txt", limit=100)
    src = write_lines(tmp_path / "in.txt", lines)
    ids = id_lines(ok("encode", "-t", vocab(), src).out)
    tokens = ok("encode", "-t", vocab(), "--format", "tokens", src).out.splitlines()
    table = vocab().read_text(encoding="utf-8").split("\n")
    assert [line.split(" ") if line else [] for line in tokens] == \
        [[table[i] for i in row] for row in ids]


@pytest.mark.shared_data
def test_npy_is_the_ids_flattened_with_line_index(tmp_path):
    """--format npy writes uint16 ids and an int64 index of line starts numpy can load."""
    np = pytest.importorskip("numpy")
    lines = corpus_lines("english", "the-verdict.txt", limit=300) + [""]
    src = write_lines(tmp_path / "in.txt", lines)
    ids = id_lines(ok("encode", "-t", vocab(), "--add-special-tokens", src).out)
    ok("encode", "-t", vocab(), "--add-special-tokens", "--format", "npy", src,
       "-o", tmp_path / "train.npy")
    flat, index = np.load(tmp_path / "train.npy"), np.load(tmp_path / "train.idx.npy")
    assert flat.dtype == np.uint16 and index.dtype == np.int64
    assert len(index) == len(lines) + 1 and index[-1] == len(flat)
    assert [flat[index[i]:index[i + 1]].tolist() for i in range(len(lines))] == ids


@pytest.mark.shared_data
def test_max_length_truncates_like_hf(tmp_path):
    """--max-length cuts each sequence (special tokens included) as HF truncation does."""
    from tests.hf_reference import hf_from_vocab, sample_lines

    lines = sample_lines("english", 100)
    src = write_lines(tmp_path / "in.txt", lines)
    out = ok("encode", "-t", vocab(), "--flavor", "huggingface", "--add-special-tokens",
             "--max-length", "16", src).out
    reference = hf_from_vocab(vocab())
    reference.enable_truncation(16)
    assert id_lines(out) == [e.ids for e in reference.encode_batch(lines)]


@pytest.mark.shared_data
def test_stdin_to_stdout_equals_file_input(tmp_path):
    """Reading stdin and writing stdout gives the same lines as file in, file out."""
    lines = corpus_lines("english", "botchan.txt", limit=500)
    src = write_lines(tmp_path / "in.txt", lines)
    ok("encode", "-t", vocab(), src, "-o", tmp_path / "out.ids")
    piped = ok("encode", "-t", vocab(), stdin="".join(line + "\n" for line in lines)).out
    assert piped == (tmp_path / "out.ids").read_text(encoding="utf-8")


@pytest.mark.shared_data
def test_encode_streams_before_input_ends():
    """encode answers the first batch of lines while stdin is still open (a pipe works)."""
    proc = subprocess.Popen([sys.executable, "-m", "wordpieces", "encode", "-t", str(vocab())],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"hello world\n" * 2500)  # more than one batch
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready, "no output while stdin stayed open"
        assert proc.stdout.readline() == b"101 7592 2088 102\n"  # [CLS] … [SEP]: the default
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
    assert proc.returncode == 0


# ---------------------------------------------------------------- decode / detokenize


@pytest.mark.shared_data
def test_decode_matches_hf_decoder(tmp_path):
    """decode turns id lines back into the text HF's WordPiece decoder gives."""
    from tests.hf_reference import hf_from_vocab, sample_lines

    lines = sample_lines("english", 200)
    reference = hf_from_vocab(vocab())
    ids = [e.ids for e in reference.encode_batch(lines)]
    src = write_lines(tmp_path / "ids.txt", [" ".join(map(str, row)) for row in ids])
    out = ok("decode", "-t", vocab(), "--flavor", "huggingface", src).out
    assert out.split("\n")[:-1] == reference.decode_batch(ids)


@pytest.mark.shared_data
def test_detokenize_joins_words_and_drops_reserved(tmp_path):
    """detokenize: pieces glued, words joined by spaces, [CLS]/[SEP] dropped, [UNK] kept."""
    out = ok("detokenize", "-t", vocab(), stdin="101 14477 20961 3468 100 999 102\n").out
    assert out == "unaffable [UNK] !\n"


# ---------------------------------------------------------------- count / merge / train


@pytest.mark.shared_data
def test_count_matches_tf_text_counts(tmp_path):
    """count --flavor tensorflow writes TF Text's golden word counts, in its order."""
    expected = shared_path("golden", "learner", "verdict_500", "counts.tsv")
    ok("count", shared_path("corpora", "english", "the-verdict.txt"), "--flavor",
       "tensorflow", "-o", tmp_path / "counts.tsv")
    body = (tmp_path / "counts.tsv").read_text(encoding="utf-8").split("\n", 1)[1]
    assert body == expected.read_text(encoding="utf-8")


@pytest.mark.shared_data
def test_merge_counts_equals_counting_together(tmp_path):
    """merge-counts of two files' counts equals the counts of both files at once."""
    a = shared_path("corpora", "english", "the-verdict.txt")
    b = shared_path("corpora", "english", "botchan.txt")
    ok("count", a, "-o", tmp_path / "a.tsv")
    ok("count", b, "-o", tmp_path / "b.tsv")
    ok("count", a, b, "-o", tmp_path / "ab.tsv")
    ok("merge-counts", tmp_path / "a.tsv", tmp_path / "b.tsv", "-o", tmp_path / "m.tsv")
    assert (tmp_path / "m.tsv").read_bytes() == (tmp_path / "ab.tsv").read_bytes()


@pytest.mark.shared_data
def test_train_top_down_matches_tf_text_learner(tmp_path):
    """train --flavor tensorflow on The Verdict gives TF Text's golden 500-token vocabulary."""
    folder = shared_path("golden", "learner", "verdict_500")
    ok("train", shared_path("corpora", "english", "the-verdict.txt"), "--flavor", "tensorflow",
       "--vocab-size", "500", "-o", tmp_path / "tok")
    assert (tmp_path / "tok" / "vocab.txt").read_bytes() == (folder / "vocab.txt").read_bytes()


@pytest.mark.shared_data
def test_train_from_counts_equals_train_from_corpus(tmp_path):
    """train --counts gives the same vocabulary as training on the corpus directly."""
    corpus = shared_path("corpora", "english", "botchan.txt")
    ok("count", corpus, "-o", tmp_path / "c.tsv")
    ok("train", "--counts", tmp_path / "c.tsv", "--vocab-size", "800", "-o", tmp_path / "a")
    ok("train", corpus, "--vocab-size", "800", "-o", tmp_path / "b")
    assert (tmp_path / "a" / "vocab.txt").read_text() == (tmp_path / "b" / "vocab.txt").read_text()


@pytest.mark.shared_data
def test_train_encode_decode_round_trip_agrees_with_hf(tmp_path):
    """A trained tokenizer's CLI ids and decoded text equal HF tokenizers' on its saved JSON."""
    hf = pytest.importorskip("tokenizers")
    corpus = shared_path("corpora", "english", "botchan.txt")
    ok("train", corpus, "--algorithm", "bottom-up", "--vocab-size", "600", "--flavor",
       "huggingface", "-o", tmp_path / "tok")
    lines = corpus_lines("english", "the-verdict.txt", limit=200)
    src = write_lines(tmp_path / "in.txt", lines)
    ok("encode", "-t", tmp_path / "tok", "--add-special-tokens", src, "-o", tmp_path / "ids")
    ok("decode", "-t", tmp_path / "tok", tmp_path / "ids", "-o", tmp_path / "back.txt")
    reference = hf.Tokenizer.from_file(str(tmp_path / "tok" / "tokenizer.json"))
    ids = [e.ids for e in reference.encode_batch(lines)]
    assert id_lines((tmp_path / "ids").read_text()) == ids
    assert (tmp_path / "back.txt").read_text().split("\n")[:-1] == reference.decode_batch(ids)


@pytest.mark.shared_data
def test_train_refuses_counts_of_another_pipeline(tmp_path):
    """Counts made lowercased are refused for a cased tokenizer, naming both pipelines."""
    ok("count", shared_path("corpora", "english", "the-verdict.txt"), "-o", tmp_path / "c.tsv")
    message = fails("train", "--counts", tmp_path / "c.tsv", "--no-lowercase",
                    "--vocab-size", "100", "-o", tmp_path / "tok")
    assert "pipeline" in message and not (tmp_path / "tok").exists()


@pytest.mark.shared_data
def test_dask_encode_shards_equal_local_encode(tmp_path):
    """--engine dask writes one shard per file block and a manifest; shards join to local output."""
    pytest.importorskip("distributed")
    files = [shared_path("corpora", "english", "the-verdict.txt"),
             shared_path("corpora", "english", "botchan.txt")]
    ok("encode", "-t", vocab(), *files, "--engine", "dask", "--num-proc", "2",
       "--blocksize", "100000", "-o", tmp_path / "shards")
    manifest = json.loads((tmp_path / "shards" / "manifest.json").read_text())
    joined = "".join((tmp_path / "shards" / s["shard"]).read_text() for s in manifest["shards"])
    local = ok("encode", "-t", vocab(), *files).out
    assert joined == local
    assert len(manifest["shards"]) == 4 and manifest["lines"] == local.count("\n")


# ---------------------------------------------------------------- explain / inspect / export


@pytest.mark.shared_data
def test_explain_shows_the_greedy_search():
    """explain lists each candidate tried, longest first, and the pieces HF gives."""
    out = ok("explain", "-t", vocab(), "unaffable").out
    assert "una ##ffa ##ble" in out
    assert "at 3: try ##ffable: no, try ##ffabl: no, try ##ffab: no, try ##ffa: found" in out


@pytest.mark.shared_data
def test_explain_says_why_a_word_is_unknown():
    """An unknown character makes the whole word [UNK]; explain names the character."""
    out = ok("explain", "-t", vocab(), "snowman☃").out
    assert "=>  [UNK]" in out and "U+2603" in out and "whole word" in out


@pytest.mark.shared_data
def test_explain_colours_pieces_on_request():
    """--color always paints word-start and continuation pieces differently."""
    out = ok("explain", "-t", vocab(), "--color", "always", "--no-steps", "unaffable").out
    start, cont, reset = "\x1b[38;5;214m", "\x1b[38;5;75m", "\x1b[0m"  # amber, blue
    assert f"{start}una{reset} {cont}##ffa{reset} {cont}##ble{reset}" in out
    assert "\x1b" not in ok("explain", "-t", vocab(), "--no-steps", "unaffable").out


@pytest.mark.shared_data
def test_inspect_reports_vocab_and_corpus(tmp_path):
    """inspect --json: BERT's vocab facts and, on a corpus, [UNK] rate and lengths."""
    src = write_lines(tmp_path / "in.txt", corpus_lines("english", "the-verdict.txt"))
    report = json.loads(ok("inspect", "-t", vocab(), "--corpus", src, "--json").out)
    assert report["vocab"]["vocab_size"] == 30522
    assert report["vocab"]["unused_tokens"] == 994
    assert report["corpus"]["lines"] == len(corpus_lines("english", "the-verdict.txt"))
    assert report["corpus"]["sequence_length"]["max_length"] == 512


@pytest.mark.shared_data
def test_inspect_plot_writes_a_png(tmp_path):
    """inspect --plot writes a valid PNG file."""
    pytest.importorskip("matplotlib")
    src = write_lines(tmp_path / "in.txt", corpus_lines("english", "the-verdict.txt"))
    ok("inspect", "-t", vocab(), "--corpus", src, "--plot", tmp_path / "stats.png")
    data = (tmp_path / "stats.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert int.from_bytes(data[16:20], "big") > 100 and data.endswith(b"IEND\xaeB`\x82")


@pytest.mark.shared_data
def test_export_hf_loads_in_tokenizers(tmp_path):
    """export --format hf writes a tokenizer.json HF loads and encodes identically."""
    hf = pytest.importorskip("tokenizers")
    from tests.hf_reference import sample_lines

    ok("export", "-t", vocab(), "--flavor", "huggingface", "--format", "hf", "-o",
       tmp_path / "out")
    lines = sample_lines("english", 100)
    src = write_lines(tmp_path / "in.txt", lines)
    ours = id_lines(ok("encode", "-t", tmp_path / "out", "--add-special-tokens", src).out)
    loaded = hf.Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    assert ours == [e.ids for e in loaded.encode_batch(lines)]


# ---------------------------------------------------------------- demo, help, progress


@pytest.mark.shared_data
def test_demo_runs_offline_and_prints_bert_ids(tmp_path, monkeypatch):
    """demo prints the BERT ids HF tokenizers gives for its first sentence."""
    from tests.hf_reference import hf_from_vocab

    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the folder it keeps goes there
    out = ok("demo").out
    sentence = "Hello, world! Tokenization isn't hard."
    ids = hf_from_vocab(vocab()).encode(sentence).ids
    assert f"ids:    {' '.join(map(str, ids))}" in out and "why [UNK]" in out


def test_demo_learns_when_asked(tmp_path):
    """demo --learn learns a vocabulary from Python's docs and keeps it with -o."""
    out = ok("demo", "--learn", "-o", tmp_path / "demo").out
    assert "learned top-down" in out
    assert (tmp_path / "demo" / "tokenizer.json").is_file()


def test_demo_without_shared_shows_real_subwords_and_a_hint_that_works(tmp_path, monkeypatch):
    """Without ../shared the shipped vocabulary splits words into real subwords (no letters).

    The hint's folder still exists and its command runs: the demo keeps what it saved.
    """
    monkeypatch.setenv("WORDPIECES_SHARED", str(tmp_path / "absent"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the folder it keeps goes there
    out = ok("demo").out
    assert "'unaffable'  =>  un ##aff ##able " in out
    assert "tokens: [CLS] the un ##aff ##able play ##ers were playing in" in out
    hint = out.strip().splitlines()[-1]
    assert hint.startswith("next: ")
    command = hint.split("next: ")[1].split(" | ")[0].split()
    assert command[1:3] == ["explain", "-t"] and os.path.isdir(command[3])
    assert Path(command[3]).parent == tmp_path
    script = command[0] if os.path.isabs(command[0]) else os.path.abspath(command[0])
    explained = subprocess.run([script, *command[1:4], "tokenization"], capture_output=True,
                               text=True, timeout=120)
    assert explained.returncode == 0 and "token ##ization" in explained.stdout
    notes = [line for line in out.splitlines() if "note:" in line]
    assert all(len(line) < 160 for line in notes), notes


def test_shipped_demo_vocabulary_splits_words_into_at_most_three_pieces():
    """The issue's words each split into <= 3 pieces with no one-letter continuation."""
    from wordpieces.cli.demo import SHIPPED_VOCAB
    from wordpieces.tokenizer import Tokenizer

    tok = Tokenizer.from_vocab(SHIPPED_VOCAB, lowercase=True, flavor="bert")
    for word in ("unaffable", "playing", "tokenization"):
        pieces = tok.tokenize(word)
        assert len(pieces) <= 3 and "[UNK]" not in pieces, (word, pieces)
        assert not [p for p in pieces if p.startswith("##") and len(p) == 3], (word, pieces)


@pytest.mark.parametrize("command", ["demo", "count", "merge-counts", "train", "encode",
                                     "decode", "detokenize", "explain", "inspect", "export",
                                     "bundle", "serve"])
def test_every_subcommand_has_help_with_examples(command):
    """Each subcommand's --help exits 0 and shows examples."""
    assert "examples:" in ok(command, "--help").out


@pytest.mark.shared_data
def test_progress_jsonl_on_stderr(tmp_path):
    """--progress jsonl writes JSON events with the total bytes; stdout stays data only."""
    src = shared_path("corpora", "english", "the-verdict.txt")
    proc = ok("encode", "-t", vocab(), src, "--progress", "jsonl")
    events = [json.loads(line) for line in proc.err.splitlines()]
    assert events[0]["event"] == "encode" and events[0]["total"] == src.stat().st_size
    assert events[-1]["event"] == "summary"
    assert all(line.split() and line.split()[0].isdigit() for line in proc.out.splitlines()
               if line)


@pytest.mark.shared_data
def test_quiet_and_non_terminal_stderr_stay_silent():
    """Without a terminal (auto) or with --quiet nothing is written to stderr."""
    src = shared_path("corpora", "english", "the-verdict.txt")
    assert ok("encode", "-t", vocab(), src).err == ""
    assert ok("encode", "-t", vocab(), src, "--progress", "bar", "--quiet").err == ""


# ---------------------------------------------------------------- errors and atomicity


@pytest.mark.shared_data
def test_missing_input_names_the_file(tmp_path):
    """A missing input file is exit 2 naming it."""
    message = fails("encode", "-t", vocab(), tmp_path / "nope.txt")
    assert "nope.txt: no such file" in message


@pytest.mark.shared_data
def test_bad_utf8_names_file_and_line(tmp_path):
    """Invalid UTF-8 is reported with file and line number."""
    (tmp_path / "bad.txt").write_bytes(b"fine\nalso fine\n\xff oops\n")
    assert "bad.txt:3: not valid UTF-8" in fails("encode", "-t", vocab(), tmp_path / "bad.txt")


@pytest.mark.shared_data
def test_decode_names_line_and_bad_value():
    """A non-integer or out-of-range id is reported with its line and value."""
    assert "<stdin>:2: 'x' is not an integer id" in fails("decode", "-t", vocab(),
                                                          stdin="1 2\n3 x\n")
    assert "<stdin>:1: id 30522 is out of range" in fails("decode", "-t", vocab(),
                                                          stdin="30522\n")


def test_bad_vocab_names_the_line(tmp_path):
    """A vocab.txt with a duplicate token is reported with its line."""
    write_lines(tmp_path / "v.txt", ["[UNK]", "a", "b", "a"])
    message = fails("encode", "-t", tmp_path / "v.txt", stdin="a\n")
    assert "v.txt:4: duplicate token 'a'" in message


@pytest.mark.shared_data
def test_usage_errors_exit_2(tmp_path):
    """Wrong combinations of options are one-line errors with status 2."""
    assert "needs -o FILE.npy" in fails("encode", "-t", vocab(), "--format", "npy", stdin="a\n")
    assert "--min-frequency applies to" in fails("train", shared_path(
        "corpora", "english", "the-verdict.txt"), "--min-frequency", "2", "-o", tmp_path / "t")
    assert "invalid choice" in fails("encode", "-t", vocab(), "--format", "xml")
    assert "no such tokenizer" in fails("encode", "-t", tmp_path / "none", stdin="a\n")


@pytest.mark.shared_data
def test_debug_shows_the_traceback(tmp_path):
    """--debug lets the traceback through instead of the one-line message."""
    (tmp_path / "bad.txt").write_bytes(b"\xff\n")
    proc = run("--debug", "encode", "-t", vocab(), tmp_path / "bad.txt")
    assert proc.returncode != 0 and "Traceback" in proc.err


@pytest.mark.shared_data
def test_failed_run_leaves_no_partial_output(tmp_path):
    """An error after some output was written leaves neither a truncated file nor temp files."""
    good = corpus_lines("english", "botchan.txt", limit=3000)
    (tmp_path / "in.txt").write_bytes("".join(x + "\n" for x in good).encode() + b"\xff\n")
    for fmt, name in (("ids", "out.ids"), ("npy", "out.npy")):
        fails("encode", "-t", vocab(), tmp_path / "in.txt", "--format", fmt,
              "-o", tmp_path / name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


@pytest.mark.shared_data
def test_failed_run_keeps_the_previous_output(tmp_path):
    """A failing rerun does not touch the complete output of an earlier run."""
    (tmp_path / "out.ids").write_text("previous\n")
    (tmp_path / "bad.txt").write_bytes(b"ok\n\xff\n")
    fails("encode", "-t", vocab(), tmp_path / "bad.txt", "-o", tmp_path / "out.ids")
    assert (tmp_path / "out.ids").read_text() == "previous\n"


@pytest.mark.shared_data
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_run_leaves_no_output(tmp_path, sig, status):
    """Ctrl-C or SIGTERM mid-run: exit 130/143, and no output file, complete or partial.

    The child gets the default handling of ``sig`` back: a shell starts a background job
    (a CI script run with ``&``) with SIGINT ignored, Python keeps it ignored, and the
    child would rightly go on reading.
    """
    proc = subprocess.Popen([sys.executable, "-m", "wordpieces", "encode", "-t", str(vocab()),
                             "-o", str(tmp_path / "out.ids")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        proc.stdin.write(b"hello world\n" * 5000)  # two batches written, then it waits
        proc.stdin.flush()
        for _ in range(600):  # wait until the temporary output exists: work has begun
            if any(tmp_path.iterdir()):
                break
            time.sleep(0.1)
        proc.send_signal(sig)
        assert proc.wait(timeout=120) == status
    finally:
        proc.kill()
        proc.stdin.close()
    assert list(tmp_path.iterdir()) == []


def test_console_script_is_installed():
    """The `wordpieces` console script next to this Python runs the same command."""
    script = Path(sys.executable).parent / "wordpieces"
    if not script.exists():
        pytest.skip("package not installed with its console script")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("wordpieces ")



def test_train_score_reaches_the_bottom_up_learner(tmp_path):
    """Each --score choice (the learner's scores) gives learn_bottom_up's vocabulary."""
    from wordpieces.learn.learners.bottom_up import learn_bottom_up
    from wordpieces.learn.learners.merge_scores import SCORES

    corpus = write_lines(tmp_path / "in.txt", ["hug " * 10 + "pug " * 5 + "pun " * 12
                                                + "bun " * 4 + "hugs " * 5])
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocabularies = []
    for score in SCORES:
        ok("train", corpus, "--algorithm", "bottom-up", "--vocab-size", "17", "--score", score,
           "-o", tmp_path / score)
        vocabularies.append((tmp_path / score / "vocab.txt").read_text().split("\n")[:-1])
    assert vocabularies == [learn_bottom_up(counts, 17, special_tokens=specials, score=score)
                            for score in SCORES]
    assert len({tuple(v) for v in vocabularies}) == len(SCORES)


def test_train_score_is_refused_elsewhere_or_unknown(tmp_path):
    """--score names a known score, and only --algorithm bottom-up takes it."""
    corpus = write_lines(tmp_path / "in.txt", ["hug pug pun bun hugs"])
    assert "invalid choice: 'bpe'" in fails("train", corpus, "--algorithm", "bottom-up",
                                             "--score", "bpe", "-o", tmp_path / "x")
    assert "--score applies to" in fails("train", corpus, "--score", "pmi", "-o", tmp_path / "y")
