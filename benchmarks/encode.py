"""Encode the same lines with wordpieces and the reference libraries, side by side.

One command, one run::

    python benchmarks/encode.py --tf-python /path/to/venv-with-tensorflow-text/bin/python

Datasets are of two kinds. The shapes users feed, all English with bert-base-uncased:
``short-lines`` (the non-blank lines of tinyshakespeare.txt, ~35 B each), ``prose-lines``
(the non-blank lines of the Gutenberg novels, ~60 B), ``paragraphs`` (their blank-line-
separated blocks and WikiText-2's, whitespace-joined) and ``pairs`` (consecutive prose
lines as (text, pair)), and ``multilingual`` (the UDHR in every script plus a Chinese
novel, one line of each file in turn, bert-base-multilingual-cased); and corpora in
several languages (English WikiText-2 and Gutenberg, Portuguese, Chinese, the UDHR in
~190 languages), cut into non-blank lines (``encode_data.py``).
For each dataset every engine encodes the same items, best of ``--repeat``
runs, each engine in its own process (so that its peak RSS is its own). "1 thread"
engines are pinned to one core (``sched_setaffinity``); "all cores" ones are not. The
table gives MB/s of UTF-8 input, tokens/s, peak RSS and how many times faster
wordpieces (native, 1 thread) is when it gives the same kind of output:

- ``ids``: token ids only, without special tokens (vs ``wp-tok-ids``, the public
  ``Tokenizer.encode_batch_ids`` returning lists; ``wp-ids`` where it was not run);
- ``offsets``: ids with offsets, as tuples from the word encoder (vs ``wp-offsets``);
- ``encodings``: full ``Encoding`` objects from ``encode_batch`` (vs ``wp-enc``), the
  like of HF's ``encode_batch``: this is the figure the speed issues are judged on;
- ``read``: ``encode_batch``, then ``ids``, ``offsets`` and ``attention_mask`` read
  from every Encoding, as a training loop does (vs ``wp-enc-read``). HF builds these
  Python lists only when they are read, so this is the fair end-to-end figure;
- ``call``: the transformers-style call ``tok(texts, padding=True, truncation=True,
  max_length=128, return_tensors="np")`` (vs ``wp-call``), against transformers'
  ``BertTokenizerFast`` with the same call and HF ``tokenizers`` with the same padding,
  truncation and special tokens enabled, its columns made numpy arrays;
- ``truncated``: ids with ``[CLS]``/``[SEP]``, cut at 128, as lists: ``tok(texts,
  truncation=True, max_length=128)["input_ids"]`` (vs ``wp-trunc``), against
  flash-tokenizer, blingfire (per text, no special tokens: 126 ids) and HF.

Engines: wordpieces native through its word encoder (ids, ids as numpy, with offsets;
1 thread and all cores) and through the public ``wordpieces.Tokenizer`` (Encodings, read
or not; 1 thread and all cores), wordpieces pure Python (the same, cold word cache;
Encodings also with a warm one), Hugging Face ``tokenizers`` (``encode_batch`` with its
default threads and with one, read or not; ``encode_batch_fast``), TensorFlow Text
``BertTokenizer`` and ``FastBertTokenizer`` (LinMaxMatch) when importable, here or in
``--tf-python``, flash-tokenizer and blingfire (the ``[bench]`` extra;
``encode_engines.py`` says how each is called). Missing libraries are reported as
"not installed". The ``Tokenizer`` engines use ``flavor="huggingface"``, so they give
HF's exact output (without special tokens, as the HF engines are run).

``--forms [FORM ...]`` and ``--latency`` run instead every engine in one process,
alternating, with each engine's agreement with HF beside its speed: every form of the
transformers-style call, and one text per call (``encode_forms.py``). ``--quick`` makes
any mode a smoke run (tiny cuts, 2 rounds).

``--stream-mb N`` also encodes an N MB file (built from the corpora) in streaming mode,
batch by batch, and reports its peak RSS.

Not handled here: vocabulary learning speed (``benchmarks/learn*.py``), correctness
(the differential tests in ``tests/``; ``--forms`` prints how many items equal HF's).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import encode_forms
from encode_data import (
    CORPORA,
    DATASETS,
    PAIRS,
    columns,
    dataset_lines,
    item_bytes,
    lowercase,
    texts_of,
    vocab_path,
)
from encode_engines import (
    CALL,
    MAX_LENGTH,
    engine_blingfire,
    engine_flash,
    engine_hf,
    engine_tf,
    engine_trf,
    read_all,
)
from encode_forms import FORMS

HERE = Path(__file__).resolve()
# name: (label, pinned to one core, output kind)
ENGINES = {
    "wp-ids": ("wordpieces native, 1 thread, ids", True, "ids"),
    "wp-tok-ids": ("wordpieces native, 1 thread, Tokenizer.encode_batch_ids (lists)", True,
                   "ids"),
    "wp-ids-np": ("wordpieces native, 1 thread, ids as numpy", True, "ids"),
    "wp-offsets": ("wordpieces native, 1 thread, offsets", True, "offsets"),
    "wp-all-ids": ("wordpieces native, all cores, ids", False, "ids"),
    "wp-all-offsets": ("wordpieces native, all cores, offsets", False, "offsets"),
    "wp-py-ids": ("wordpieces pure Python, ids", True, "ids"),
    "wp-py-offsets": ("wordpieces pure Python, offsets", True, "offsets"),
    "wp-enc": ("wordpieces native, 1 thread, Tokenizer.encode_batch (Encodings)", True,
               "encodings"),
    "wp-all-enc": ("wordpieces native, all cores, Tokenizer.encode_batch (Encodings)", False,
                   "encodings"),
    "wp-py-enc": ("wordpieces pure Python, Tokenizer.encode_batch (Encodings), cold cache",
                  True, "encodings"),
    "wp-py-enc-warm": ("wordpieces pure Python, Tokenizer.encode_batch (Encodings), WARM "
                       "cache (lines seen before)", True, "encodings"),
    "wp-enc-read": ("wordpieces native, 1 thread, Encodings + read ids/offsets/mask", True,
                    "read"),
    "wp-py-enc-read": ("wordpieces pure Python, Encodings + read ids/offsets/mask, cold "
                       "cache", True, "read"),
    "wp-call": ("wordpieces native, 1 thread, tok(texts, padding, truncation 128, 'np')", True,
                "call"),
    "wp-py-call": ("wordpieces pure Python, tok(texts, padding, truncation 128, 'np')", True,
                   "call"),
    "wp-trunc": ("wordpieces native, 1 thread, tok(texts, truncation 128)['input_ids'] (lists)",
                 True, "truncated"),
    "flash-1": ("flash-tokenizer batch_encode(texts, 'longest', 128, parallel=False) (lists)",
                True, "truncated"),
    "blingfire-1": ("blingfire text_to_ids per text, 126 ids, no special tokens (lists)", True,
                    "truncated"),
    "hf-trunc-1": ("HF tokenizers encode_batch, special tokens, truncation 128, read ids, "
                   "1 thread", True, "truncated"),
    "trf-call": ("transformers BertTokenizerFast(texts, padding, truncation 128, 'np'), "
                 "1 thread", True, "call"),
    "hf-call-1": ("HF tokenizers, padding + truncation 128 enabled, encode_batch, ids + masks "
                  "to numpy, 1 thread", True, "call"),
    "hf": ("HF tokenizers encode_batch, default threads", False, "encodings"),
    "hf-1": ("HF tokenizers encode_batch, 1 thread", True, "encodings"),
    "hf-1-read": ("HF tokenizers encode_batch, 1 thread, + read ids/offsets/mask", True,
                  "read"),
    "hf-fast-1": ("HF tokenizers encode_batch_fast, 1 thread", True, "ids"),
    "tf-bert": ("TF Text BertTokenizer, 1 thread", True, "ids"),
    "tf-fast": ("TF Text FastBertTokenizer, 1 thread", True, "ids"),
    "tf-fast-offsets": ("TF Text FastBertTokenizer, 1 thread, offsets", True, "offsets"),
}




_VOCABS: dict = {}


def make_wordpieces(dataset: str, python: bool):
    if python:
        os.environ["WORDPIECES_BACKEND"] = "python"
    from wordpieces.fast.backend import backend, make_word_encoder
    from wordpieces.pipeline.models import WordPiece
    from wordpieces.pipeline.normalizers import BertNormalizer
    from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
    from wordpieces.vocab import Vocab

    if not python and backend() != "native":
        raise RuntimeError(backend())
    if dataset not in _VOCABS:
        _VOCABS[dataset] = Vocab.from_file(vocab_path(dataset))
    return make_word_encoder(BertNormalizer(lowercase=lowercase(dataset)), BertPreTokenizer(),
                             WordPiece(_VOCABS[dataset], max_input_chars_per_word=200))


class WordpiecesEngine:
    """A wordpieces encoder, built once like every library's tokenizer object.

    The pure-Python encoder also caches whole whitespace-free chunks: it is rebuilt
    before each timed run (outside the timing), or a repeated run would only measure
    dictionary lookups of lines it has already seen. The native encoder keeps no such
    cache (only a per-character table, as HF and TF have built in). Each new encoder
    first sees the dataset's alphabet, one character per word, so that per-character
    tables are set up outside the timing, as every library's are.
    """

    def __init__(self, engine: str, dataset: str):
        self.engine, self.dataset = engine, dataset
        self.python = engine.startswith("wp-py")
        self.threads = None if engine.startswith("wp-all") else 1
        self.enc, self.alphabet = None, ""

    def prepare(self, lines: list[str]):
        if self.enc is not None and not self.python:
            return
        self.enc = None
        gc.collect()
        self.enc = make_wordpieces(self.dataset, python=self.python)
        self.alphabet = self.alphabet or " ".join(sorted(set("".join(lines))))
        self.enc.encode_batch_ids([self.alphabet], 1)

    def __call__(self, lines: list[str]) -> int:
        enc, threads = self.enc, self.threads
        if self.engine == "wp-ids-np":
            return len(enc.encode_batch_ids(lines, threads, as_numpy=True).ids)
        if self.engine.endswith("offsets"):
            return sum(len(r[0]) for r in enc.encode_batch(lines, threads))
        return sum(len(ids) for ids in enc.encode_batch_ids(lines, threads))


def make_tokenizer(dataset: str, python: bool):
    """A public ``wordpieces.Tokenizer`` giving HF's exact output, on the asked backend."""
    if python:
        os.environ["WORDPIECES_BACKEND"] = "python"
    import wordpieces

    if (wordpieces.backend() == "native") == python:
        raise RuntimeError(wordpieces.backend())
    return wordpieces.Tokenizer.from_vocab(vocab_path(dataset), lowercase=lowercase(dataset),
                                           flavor="huggingface")


class EncodingsEngine:
    """``wordpieces.Tokenizer.encode_batch``: full Encodings, as users get them.

    Tokenizers are rebuilt as in ``WordpiecesEngine``: native ones once, pure-Python
    ones before each timed run (cold word cache), except ``wp-py-enc-warm``, which keeps
    one and encodes the lines once before the timing: the best case of a tokenizer reused
    on text it has already seen. Each new tokenizer first sees the dataset's alphabet.
    """

    def __init__(self, engine: str, dataset: str):
        self.engine, self.dataset = engine, dataset
        self.python = engine.startswith("wp-py")
        self.warm, self.read = engine.endswith("-warm"), engine.endswith("-read")
        self.threads = None if engine.startswith("wp-all") else 1
        self.tok, self.alphabet = None, ""

    def prepare(self, lines: list[str]):
        if self.tok is not None and (self.warm or not self.python):
            return
        self.tok = None
        gc.collect()
        self.tok = make_tokenizer(self.dataset, python=self.python)
        self.alphabet = self.alphabet or " ".join(sorted(set("".join(texts_of(lines)))))
        self.tok.encode_batch([self.alphabet], add_special_tokens=False, num_threads=1)
        if self.warm:
            self.tok.encode_batch(lines, add_special_tokens=False, num_threads=1)

    def __call__(self, lines: list[str]) -> int:
        encodings = self.tok.encode_batch(lines, add_special_tokens=False,
                                          num_threads=self.threads)
        return read_all(encodings) if self.read else sum(len(e) for e in encodings)


class TokenizerCallEngine(EncodingsEngine):
    """The public ``Tokenizer`` as a training loop calls it: ids as lists, or ``tok(...)``.

    ``wp-tok-ids``: ``encode_batch_ids`` without special tokens (the ids figure of the
    speed goals); ``wp-trunc``: ``tok(texts[, pairs], truncation=True, max_length=128)``'s
    ids as lists (what flash-tokenizer gives); ``*-call``: ``tok(texts[, pairs], **CALL)``,
    arrays of every column.
    """

    def __call__(self, items: list) -> int:
        if self.engine == "wp-tok-ids":
            ids = self.tok.encode_batch_ids(items, add_special_tokens=False, num_threads=1)
            return sum(map(len, ids))
        texts, pairs = columns(items)
        if self.engine == "wp-trunc":
            out = self.tok(texts, pairs, truncation=True, max_length=MAX_LENGTH, num_threads=1)
            return sum(map(len, out["input_ids"]))
        out = self.tok(texts, pairs, **CALL)
        return int(out["attention_mask"].sum())


def engine_wp(engine: str, dataset: str):
    parts = engine.split("-")
    if "call" in parts or engine in ("wp-tok-ids", "wp-trunc"):
        return TokenizerCallEngine(engine, dataset)
    if "enc" in parts:
        return EncodingsEngine(engine, dataset)
    if dataset in PAIRS:
        raise NotImplementedError("the word encoder takes no pairs")
    return WordpiecesEngine(engine, dataset)


def child(engine: str, dataset: str, repeat: int, max_mb: float | None, clock: str) -> dict:
    """Run one engine on one dataset in this process; return its figures."""
    pinned = ENGINES[engine][1]
    if pinned:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    # CPU time of a process pinned to one core is its busy time: other work sharing
    # the machine does not count. Engines using all cores are always timed on the wall.
    now = time.process_time if clock == "cpu" and pinned else time.perf_counter
    lines = dataset_lines(dataset, max_mb)
    size = sum(map(item_bytes, lines))
    maker = {"wp": engine_wp, "hf": engine_hf, "tf": engine_tf, "trf": engine_trf,
             "flash": engine_flash, "blingfire": engine_blingfire}[engine.split("-")[0]]
    try:
        run = maker(engine, dataset)
    except ImportError as e:
        return {"error": f"not installed ({e.name})"}
    except NotImplementedError as e:
        return {"error": f"n/a: {e}"}
    prepare = getattr(run, "prepare", lambda lines: None)
    prepare(lines)
    run(lines[:50])  # warm up: imports, lazy tables, thread pools
    best, tokens = float("inf"), 0
    for _ in range(repeat):
        prepare(lines)
        start = now()
        tokens = run(lines)
        best = min(best, now() - start)
    return {"mb_s": size / best / 1e6, "tokens_s": tokens / best, "tokens": tokens,
            "bytes": size, "rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    scale = 1024 if sys.platform != "darwin" else 1  # Linux: KiB, macOS: bytes
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


# ---------------------------------------------------------------- streaming (child)


def stream_child(path: str) -> dict:
    """Encode a big file batch by batch, keeping only counts; report peak RSS."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    enc = make_wordpieces("wikitext2", python=False)
    start, tokens, size, batch = time.perf_counter(), 0, 0, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            batch.append(line)
            if len(batch) == 10_000:
                tokens += len(enc.encode_batch_ids(batch, 1, as_numpy=True).ids)
                size += sum(map(len, batch))
                batch = []
    tokens += len(enc.encode_batch_ids(batch, 1, as_numpy=True).ids)
    seconds = time.perf_counter() - start
    return {"bytes": os.path.getsize(path), "seconds": seconds, "tokens": tokens,
            "mb_s": os.path.getsize(path) / seconds / 1e6, "rss_mb": peak_rss_mb()}


def make_big_file(megabytes: int) -> str:
    """Write a file of about ``megabytes`` MB by repeating English corpora."""
    chunk = "".join(p.read_text(encoding="utf-8-sig")
                    for p in sorted((CORPORA / "english").rglob("*.txt"))).encode("utf-8")
    fd, path = tempfile.mkstemp(suffix=".txt", prefix="wordpieces-stream-")
    with os.fdopen(fd, "wb") as f:
        for _ in range(max(1, megabytes * 1_000_000 // len(chunk))):
            f.write(chunk)
    return path


# ---------------------------------------------------------------- parent


def run_child(args: list[str], python: str) -> dict:
    cmd = [python, str(HERE), "--child", *args]
    result = subprocess.run(cmd, capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"failed: {tail[:120]}"}
    return json.loads(lines[-1])


def tf_available(python: str) -> bool:
    code = "import tensorflow_text"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def table(dataset: str, results: dict[str, dict]) -> str:
    """A Markdown table of one dataset's results."""
    size = next((r["bytes"] for r in results.values() if "bytes" in r), 0)
    rows = [f"### {dataset} ({size / 1e6:.2f} MB, "
            f"vocab {DATASETS[dataset][1]})", "",
            "| engine | MB/s | tokens/s | peak RSS MB | wordpieces is × faster |",
            "|---|---:|---:|---:|---:|"]
    ids_base = "wp-tok-ids" if "mb_s" in results.get("wp-tok-ids", {}) else "wp-ids"
    base = {kind: results.get(e, {}).get("mb_s") for kind, e in
            (("ids", ids_base), ("offsets", "wp-offsets"), ("encodings", "wp-enc"),
             ("read", "wp-enc-read"), ("call", "wp-call"), ("truncated", "wp-trunc"))}
    for engine, (label, _, kind) in ENGINES.items():
        r = results.get(engine)
        if r is None:
            continue
        if "error" in r:
            rows.append(f"| {label} | {r['error']} | | | |")
            continue
        ratio = base[kind] / r["mb_s"] if base[kind] else float("nan")
        rows.append(f"| {label} | {r['mb_s']:.1f} | {r['tokens_s'] / 1e6:.2f} M | "
                    f"{r['rss_mb']:.0f} | {ratio:.2f} |")
    return "\n".join(rows + versus_hf(results))


def versus_hf(results: dict[str, dict]) -> list[str]:
    """How many times HF's one-thread figure each wordpieces Encodings engine reaches."""
    def speed(engine: str) -> float | None:
        return results.get(engine, {}).get("mb_s")

    pairs = [(e, "hf-1-read" if e.endswith("-read") else "hf-1")
             for e in ("wp-enc", "wp-enc-read", "wp-py-enc", "wp-py-enc-warm", "wp-py-enc-read")]
    parts = [f"{e} {speed(e) / speed(hf):.1f}x" for e, hf in pairs if speed(e) and speed(hf)]
    return ["", "vs HF encode_batch, 1 thread (same output): " + ", ".join(parts)] if parts else []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=None,
                        help="default: every dataset; --forms: short-lines prose-lines "
                             "paragraphs multilingual; --latency: gutenberg")
    parser.add_argument("--engines", nargs="+", choices=list(ENGINES), default=list(ENGINES))
    parser.add_argument("--repeat", type=int, default=None,
                        help="best of this many runs (default 3; --forms/--latency: best and "
                             "median of 5 rounds; --quick: 2)")
    parser.add_argument("--max-mb", type=float, default=None, help="cut each dataset")
    parser.add_argument("--tf-python", default=sys.executable,
                        help="interpreter that has tensorflow-text (default: this one)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="time 1-thread engines by wall clock or by CPU time (for a "
                             "busy machine); all-cores engines always use the wall clock")
    parser.add_argument("--stream-mb", type=int, default=0,
                        help="also stream-encode a file of this many MB")
    parser.add_argument("--forms", nargs="*", choices=list(FORMS), default=None,
                        help="every engine in one process, alternating: these forms of the "
                             "call (none named: all), one table per dataset and form")
    parser.add_argument("--latency", action="store_true",
                        help="one text per call, µs per call (with --forms: both)")
    parser.add_argument("--lines", type=int, default=2000,
                        help="--latency: texts to encode one by one (default 2000)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: --max-mb 0.02, --lines 200, --repeat 2 unless given")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.max_mb = args.max_mb or 0.02
        args.repeat = args.repeat or 2
        args.lines = min(args.lines, 200)
    if args.forms is not None or args.latency:
        encode_forms.main(args.forms, args.latency, args.datasets, args.repeat or 5,
                          args.max_mb, args.lines, args.clock)
        return
    args.repeat = args.repeat or 3
    args.datasets = args.datasets or list(DATASETS)
    if args.child:
        if args.child[0] == "stream":
            print(json.dumps(stream_child(args.child[1])))
        else:
            engine, dataset, repeat, max_mb, clock = args.child
            max_mb = float(max_mb) if max_mb != "None" else None
            print(json.dumps(child(engine, dataset, int(repeat), max_mb, clock)))
        return
    has_tf = tf_available(args.tf_python)
    print(f"# wordpieces encode benchmark: {' '.join(sys.argv)}", flush=True)
    for dataset in args.datasets:
        results = {}
        for engine in args.engines:
            if engine.startswith("tf") and not has_tf:
                results[engine] = {"error": "not installed (tensorflow-text)"}
                continue
            python = args.tf_python if engine.startswith("tf") else sys.executable
            results[engine] = run_child(
                [engine, dataset, str(args.repeat), str(args.max_mb), args.clock], python)
        print("\n" + table(dataset, results), flush=True)
    if args.stream_mb:
        path = make_big_file(args.stream_mb)
        try:
            r = run_child(["stream", path], sys.executable)
        finally:
            os.unlink(path)
        print(f"\nstreaming {r.get('bytes', 0) / 1e6:.0f} MB (wordpieces native, 1 thread, "
              f"ids as numpy, batches of 10,000 lines): {r.get('mb_s', 0):.1f} MB/s, "
              f"peak RSS {r.get('rss_mb', 0):.0f} MB {r.get('error', '')}")


if __name__ == "__main__":
    main()
