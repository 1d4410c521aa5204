"""Memory per distinct word: counting, and each learner on the counts it is given.

Counting memory grows with the distinct words it holds, and so does a learner's; this
measures both as bytes per distinct word, from the growth of peak memory between two
sizes (so the interpreter, the code and fixed tables cancel out):

- ``count``: ``count_words`` over texts holding N distinct words (one process, so every
  word is in this process's dict), peak RSS;
- ``top-down``, ``bottom-up``: the learner alone (8,000 tokens) on a ``WordCounts`` of N
  words, peak RSS minus the RSS with the counts loaded.

Words are made up (Zipf-like counts; letters drawn at random, lengths 2-14), with the
same seed at every size, and each measurement runs in its own process.

    .venv/bin/python benchmarks/memory_per_word.py --words 100000 400000

Not handled here: time (``benchmarks/learn*.py``), memory of the Dask engine's workers.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys

KINDS = ("count", "top-down", "bottom-up")
LETTERS = "etaoinshrdlcumwfgypbvkjxqz"


def made_up_words(n: int) -> list[tuple[str, int]]:
    """``n`` distinct words with Zipf-like counts, the same for the same ``n``."""
    rng = random.Random(n)
    seen: set[str] = set()
    while len(seen) < n:
        seen.add("".join(rng.choices(LETTERS, k=rng.randint(2, 14))))
    return [(word, max(1, 100_000 // (rank + 1))) for rank, word in enumerate(sorted(seen))]


def reset_peak_rss() -> int:
    """Reset this process's peak RSS to its current RSS (Linux); return that RSS."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    return _status_kb("VmRSS") * 1024


def peak_rss() -> int:
    """Peak RSS since the last reset."""
    return _status_kb("VmHWM") * 1024


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(kind: str, n: int) -> dict:
    """Measure one kind at one size in this process."""
    import wordpieces as wp

    words = made_up_words(n)
    if kind == "count":
        # each word as often as min(count, 3): counting keeps one entry per distinct word
        texts = [" ".join([w] * min(c, 3)) for w, c in words]
        del words
        before = reset_peak_rss()
        counts = wp.count_words(iter(texts), num_proc=1)
        return {"bytes": peak_rss() - before, "distinct": len(counts)}
    counts = wp.WordCounts(dict(words))
    del words
    before = reset_peak_rss()
    if kind == "top-down":
        wp.learn_top_down(counts, 8000, ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    else:
        wp.learn_bottom_up(counts, 8000)
    return {"bytes": peak_rss() - before, "distinct": len(counts)}


def measure(kind: str, n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(n)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, nargs=2, default=[100_000, 400_000],
                        help="the two sizes (distinct words) the growth is taken between")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return
    small, big = args.words
    print(f"# bytes per distinct word, from {small:,} to {big:,} made-up words\n")
    print("| kind | peak MB at small | peak MB at big | bytes per distinct word |")
    print("|---|---:|---:|---:|")
    for kind in args.kinds:
        a, b = measure(kind, small), measure(kind, big)
        slope = (b["bytes"] - a["bytes"]) / (b["distinct"] - a["distinct"])
        print(f"| {kind} | {a['bytes'] / 1e6:.0f} | {b['bytes'] / 1e6:.0f} | {slope:,.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
