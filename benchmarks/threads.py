"""Measure what ``num_threads=2`` gives over one thread, by wall clock, for each call.

The speed-up of threads can only be seen by the wall clock, so this needs an idle
machine: it prints the load average before and after, and says when the one before was
too high to trust. Each call runs on the same texts at 1 and at N threads, alternately,
``--repeat`` times each; the table gives the best and the median time of each, and the
ratios of the best and of the median times::

    python benchmarks/threads.py                          # every shape, whole-dataset batches
    python benchmarks/threads.py --batch-lines 1000       # batches of 1,000 lines, as users feed

Calls: the word encoder's ``encode_batch_ids(texts, n, as_numpy=True)`` (``enc-np``) and
as lists (``enc-lists``), ``Tokenizer.encode_batch_ids(items, add_special_tokens=False)``
(``tok-ids``) and ``tok(texts, pairs, padding=True, truncation=True, max_length=128,
return_tensors="np")`` (``tok-np``). Datasets and tokenizers are ``benchmarks/encode.py``'s.
Not handled here: comparisons with other libraries (``encode.py``), CPU-time profiles
(``core_profile.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import encode as shapes  # noqa: E402 - the datasets of the shape benchmark

CALLS = ("enc-np", "enc-lists", "tok-ids", "tok-np")
TRUSTED_LOAD = 0.5  # a 1-minute load average above this on 2 cores skews wall clocks


def make_call(name: str, dataset: str):
    """``(prepare, run)`` for call ``name`` on ``dataset``'s tokenizer.

    ``prepare(items)`` turns a batch into ``run``'s input once, before timing (the word
    encoder takes flat texts, ``tok(...)`` texts and pairs); ``run(input, threads)``.
    """
    tok = shapes.make_tokenizer(dataset, python=False)
    encoder = tok._seq.word_encoder  # the raw word encoder, as core_profile uses it
    if name == "enc-np":
        return shapes.texts_of, lambda texts, n: encoder.encode_batch_ids(texts, n,
                                                                          as_numpy=True)
    if name == "enc-lists":
        return shapes.texts_of, lambda texts, n: encoder.encode_batch_ids(texts, n)
    if name == "tok-ids":
        return list, lambda items, n: tok.encode_batch_ids(items, add_special_tokens=False,
                                                           num_threads=n)
    return shapes.columns, lambda columns, n: tok(*columns, **shapes.CALL, num_threads=n)


def batches_of(items: list, lines: int | None) -> list[list]:
    if not lines:
        return [items]
    return [items[i:i + lines] for i in range(0, len(items), lines)]


def timings(run, batches: list[list], threads: tuple[int, int], repeat: int) -> dict:
    """Seconds per pass over ``batches`` at each thread count, alternating the two."""
    for n in threads:
        run(batches[0], n)  # warm up: tables, thread start
    times: dict[int, list[float]] = {n: [] for n in threads}
    for _ in range(repeat):
        for n in threads:
            start = time.perf_counter()
            for batch in batches:
                run(batch, n)
            times[n].append(time.perf_counter() - start)
    return times


def row(dataset: str, call: str, times: dict, threads: tuple[int, int]) -> str:
    one, many = (times[n] for n in threads)
    cells = [f"{min(t) * 1e3:.1f} / {statistics.median(t) * 1e3:.1f}" for t in (one, many)]
    best = min(one) / min(many)
    median = statistics.median(one) / statistics.median(many)
    return f"| {dataset} | {call} | {cells[0]} | {cells[1]} | {best:.2f}× | {median:.2f}× |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+",
                        default=["short-lines", "prose-lines", "paragraphs", "pairs"])
    parser.add_argument("--calls", nargs="+", choices=CALLS, default=list(CALLS))
    parser.add_argument("--threads", type=int, default=2, help="compared with 1")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--max-mb", type=float, default=3)
    parser.add_argument("--batch-lines", type=int, default=0,
                        help="cut each dataset into batches of this many items (0: one batch)")
    args = parser.parse_args(argv)
    threads = (1, args.threads)
    print(f"# benchmarks/threads.py {' '.join(argv or sys.argv[1:])}")
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f}"
          + (f" (above {TRUSTED_LOAD}: wall-clock ratios are not to be trusted)"
             if load > TRUSTED_LOAD else "") + "\n")
    print(f"| shape | call | 1 thread, ms best / median | {threads[1]} threads | "
          "speed-up, best | speed-up, median |")
    print("|---|---|---:|---:|---:|---:|")
    for dataset in args.datasets:
        batches = batches_of(shapes.dataset_lines(dataset, args.max_mb), args.batch_lines)
        for call in args.calls:
            if dataset in shapes.PAIRS and call.startswith("enc"):
                continue  # the word encoder takes no pairs
            prepare, run = make_call(call, dataset)
            times = timings(run, [prepare(b) for b in batches], threads, args.repeat)
            print(row(dataset, call, times, threads), flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f} (this run's own load included)")


if __name__ == "__main__":
    main()
