"""Memory per distinct word: counting, and each learner on the counts it is given.

Counting memory grows with the distinct words it holds, and so does a learner's; this
measures both as bytes per distinct word, from the growth of peak memory between two
sizes (so the interpreter, the code and fixed tables cancel out):

- ``count``: ``count_words`` (one process, so every word is in this process's dict) over
  a file, peak RSS minus the RSS before the call: everything counting holds at its
  peak, its result included;
- ``top-down``, ``bottom-up:<score>`` (``bottom-up-python:<score>``: the pure-Python merge
  loop): the learner alone (8,000 tokens) on a ``WordCounts``, peak RSS minus the RSS
  with the counts loaded: what learning adds on top of the counts it is given.

Two sets of words (``--corpus``):

- ``made-up`` (the default): letters drawn at random, lengths 2-14, Zipf-like counts,
  the same seed at every size; the counted file holds each word min(count, 3) times.
  ``--words`` gives the two sizes.
- ``real``: the English corpora of ``../shared/corpora`` (small), then every shared
  corpus (English, Portuguese, the UDHR mix, ...: big).

Fairness: inputs are written to files by the parent process; each measurement runs in
its own process, which reads them without leaving garbage behind, then collects, hands
freed memory back to the system (``malloc_trim``) and resets its peak. Memory freed
while preparing the input cannot be reused by the code measured, which would hide
part of its cost.

    .venv/bin/python benchmarks/memory_per_word.py --words 50000 200000
    .venv/bin/python benchmarks/memory_per_word.py --corpus real

Not handled here: time (``benchmarks/learn*.py``), memory of the Dask engine's workers,
counting with several processes (each worker holds the counts of its blocks only).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

KINDS = ("count", "top-down", "bottom-up:count", "bottom-up:likelihood", "bottom-up:pmi",
         "bottom-up-python:count", "bottom-up-python:likelihood")
DEFAULT_KINDS = ("count", "top-down", "bottom-up:count", "bottom-up:likelihood",
                 "bottom-up:pmi")
LETTERS = "etaoinshrdlcumwfgypbvkjxqz"
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB_SIZE = 8000


def made_up_words(n: int) -> list[tuple[str, int]]:
    """``n`` distinct words with Zipf-like counts, the same for the same ``n``."""
    rng = random.Random(n)
    seen: set[str] = set()
    while len(seen) < n:
        seen.add("".join(rng.choices(LETTERS, k=rng.randint(2, 14))))
    return [(word, max(1, 100_000 // (rank + 1))) for rank, word in enumerate(sorted(seen))]


def corpus_files(size: str) -> list[str]:
    """The shared corpora: English only (``small``) or all of them (``big``)."""
    folders = ["english"] if size == "small" else ["english", "portuguese", "multilingual"]
    return [str(p) for folder in folders for p in sorted((CORPORA / folder).rglob("*"))
            if p.is_file()]


# ---------------------------------------------------------------- inputs (parent)


def prepare(corpus: str, size, folder: Path) -> dict:
    """Write the counts (TSV) and the texts to count; return their paths."""
    counts_path = folder / f"counts-{size}.tsv"
    if corpus == "real":
        texts = corpus_files(size)
        # counted in a child: this process stays small
        subprocess.run([sys.executable, __file__, "--save-counts", str(counts_path), *texts],
                       check=True)
        return {"counts": str(counts_path), "texts": texts}
    words = made_up_words(int(size))
    texts_path = folder / f"texts-{size}.txt"
    with open(texts_path, "w", encoding="utf-8") as f:
        for word, count in words:
            f.write(" ".join([word] * min(count, 3)) + "\n")
    with open(counts_path, "w", encoding="utf-8") as f:
        for word, count in words:
            f.write(f"{word}\t{count}\n")
    return {"counts": str(counts_path), "texts": [str(texts_path)]}


def save_counts(path: str, files: list[str]) -> None:
    import wordpieces as wp

    with open(path, "w", encoding="utf-8") as f:
        for word, count in wp.count_words(files, progress=None).items():
            f.write(f"{word}\t{count}\n")


# ---------------------------------------------------------------- measuring (child)


def settle() -> int:
    """Collect, give freed memory back to the system, reset the peak; return the RSS."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: freed memory may stay with the process
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status_kb("VmRSS") * 1024


def peak_rss() -> int:
    """Peak RSS since the last reset (Linux)."""
    return _status_kb("VmHWM") * 1024


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def load_counts(path: str):
    """A ``WordCounts`` read from ``path``, leaving no per-word garbage behind."""
    import wordpieces as wp

    counts: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            word, _, count = line.rstrip("\n").rpartition("\t")
            counts[word] = int(count)
    result = wp.WordCounts(counts)
    del counts  # one block (the dict's table): malloc_trim gives it back
    return result


def child(kind: str, inputs: dict) -> dict:
    """Measure one kind on one input in this process."""
    import wordpieces as wp

    if kind == "count":
        before = settle()
        counts = wp.count_words(inputs["texts"], num_proc=1, progress=None)
        return {"bytes": peak_rss() - before, "distinct": len(counts)}
    counts = load_counts(inputs["counts"])
    before = settle()
    if kind == "top-down":
        wp.learn_top_down(counts, VOCAB_SIZE, SPECIALS)
    else:
        backend, _, score = kind.partition(":")
        if backend == "bottom-up-python":
            os.environ["WORDPIECES_BACKEND"] = "python"
        wp.learn_bottom_up(counts, VOCAB_SIZE, special_tokens=SPECIALS, score=score)
    return {"bytes": peak_rss() - before, "distinct": len(counts)}


def measure(kind: str, inputs: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, json.dumps(inputs)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("made-up", "real"), default="made-up")
    parser.add_argument("--words", type=int, nargs=2, default=[100_000, 400_000],
                        help="made-up: the two sizes (distinct words) the growth is taken "
                             "between")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(DEFAULT_KINDS))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--save-counts", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], json.loads(args.child[1]))))
        return
    if args.save_counts:
        save_counts(args.save_counts[0], args.save_counts[1:])
        return
    sizes = ["small", "big"] if args.corpus == "real" else args.words
    with tempfile.TemporaryDirectory() as folder:
        inputs = [prepare(args.corpus, size, Path(folder)) for size in sizes]
        report(args, inputs)


def report(args, inputs: list[dict]) -> None:
    what = ("the English corpora to every shared corpus" if args.corpus == "real"
            else f"{args.words[0]:,} to {args.words[1]:,} made-up words")
    print(f"# bytes per distinct word, from {what}\n")
    print("| kind | distinct words | peak MB | bytes per distinct word | x count |")
    print("|---|---:|---:|---:|---:|")
    counting = None
    for kind in args.kinds:
        a, b = (measure(kind, data) for data in inputs)
        slope = (b["bytes"] - a["bytes"]) / (b["distinct"] - a["distinct"])
        counting = slope if kind == "count" else counting
        ratio = f"{slope / counting:.1f}" if counting else ""
        print(f"| {kind} | {a['distinct']:,} → {b['distinct']:,} | {a['bytes'] / 1e6:.0f} → "
              f"{b['bytes'] / 1e6:.0f} | {slope:,.0f} | {ratio} |", flush=True)

if __name__ == "__main__":
    main()
