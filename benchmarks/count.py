"""Measure count_words: speed, and peak memory as the corpus grows (it should not).

All of ../shared/corpora is concatenated ``--times`` times into one temporary file (outside
the repository); each measurement runs in a fresh process so that peak RSS is its own.

    .venv/bin/python benchmarks/count.py --times 1 4 8 --num-proc 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


def build_corpus(times: int, folder: str) -> str:
    """Concatenate every corpus file ``times`` times into one file; return its path."""
    files = sorted(p for p in (SHARED / "corpora").rglob("*")
                   if p.is_file() and p.suffix in (".txt", ".raw"))
    path = os.path.join(folder, f"corpora_x{times}.txt")
    with open(path, "wb") as out:
        for _ in range(times):
            for f in files:
                data = f.read_bytes()
                out.write(data if data.endswith(b"\n") else data + b"\n")
    return path


def measure(path: str, num_proc: int) -> dict:
    """Count ``path`` in this process; report time, words and peak RSS (self + children)."""
    from wordpieces.learn.counting import count_words

    start = time.perf_counter()
    counts = count_words(path, num_proc=num_proc)
    seconds = time.perf_counter() - start
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": seconds, "distinct": len(counts), "words": counts.total(),
            "peak_rss_mb": own, "worker_peak_rss_mb": children}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child[0], int(args.child[1]))))
        return
    print("| corpus | MB | num_proc | seconds | MB/s | words | distinct | peak RSS MB "
          "(parent) | peak RSS MB (largest worker) |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for times in args.times:
            path = build_corpus(times, folder)
            mb = os.path.getsize(path) / 1e6
            for num_proc in args.num_proc:
                out = subprocess.run([sys.executable, __file__, "--child", path, str(num_proc)],
                                     capture_output=True, text=True, check=True)
                r = json.loads(out.stdout)
                print(f"| corpora x{times} | {mb:.0f} | {num_proc} | {r['seconds']:.1f} | "
                      f"{mb / r['seconds']:.1f} | {r['words']:,} | {r['distinct']:,} | "
                      f"{r['peak_rss_mb']:.0f} | {r['worker_peak_rss_mb']:.0f} |", flush=True)
            os.unlink(path)


if __name__ == "__main__":
    main()
