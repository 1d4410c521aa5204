"""Profile the native word encoder: CPU time, cost per stage, and its thread phases.

Figures that hold on a busy machine (docs/performance.md says why and what they gave)::

    python benchmarks/core_profile.py time paragraphs          # ns/byte on one pinned core
    python benchmarks/core_profile.py stages paragraphs        # per stage (needs perf)
    python benchmarks/core_profile.py threads paragraphs --mode ids   # 2-thread prediction

``time`` measures the word encoder's ``encode_batch_ids(texts, 1, as_numpy=True)``
(``--mode ids``: lists; ``--api tokenizer``: the public ``Tokenizer``'s transformers-style
call, or its ``encode_batch_ids``) by CPU time, best of ``--repeat``, pinned to one
core; run it for two builds alternately (``PYTHONPATH``) to compare them. ``stages``
records the same calls with ``perf record`` and splits the samples of ``_core`` by the C
function each source line belongs to. ``threads`` records one run at 1 thread and one at
2, sorts the samples of the 2-thread run by function into work without the GIL
(parallel), lists the caller's thread builds while the others encode (overlapped) and
the rest (serial), and predicts the idle-machine speed-up from them.
Not handled here: comparisons with other libraries (``benchmarks/encode.py``).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import encode as shapes  # noqa: E402 - the datasets of the shape benchmark

CORE = HERE.parent / "wordpieces" / "fast" / "_native"
# C function (as written in core/) -> stage; inlined functions keep their own lines
STAGES = {
    "code_point": "classify", "entry_of": "classify", "encode_char": "classify",
    "encode_kind": "classify", "wp_table_get": "classify", "wp_charinfo_bytes": "normalize",
    "append_char": "normalize", "append_simple_run": "normalize", "grow_word": "normalize",
    "flush_word": "pre-tokenize", "too_long": "pre-tokenize", "emit_word": "pre-tokenize",
    "wp_encode_text": "pre-tokenize", "wp_trie_match": "walk", "wp_trie_fail": "walk",
    "put_token": "output", "reserve_tokens": "output", "wp_i32_reserve": "output",
    "wp_i64_reserve": "output", "wp_grow": "output",
    "start_word": "walk", "walk_step": "walk", "wp_unit_base": "walk", "wp_trie_pop": "walk",
    "put_offsets": "output",
}
FUNCTION = re.compile(r"^(?:WP_INLINE|static|int|void|int64_t|int32_t|PyObject)\b.*?\b(\w+)\(")


def pin_one_core() -> None:
    """Run on one core, always the same (one thread's figures then do not wander)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})


def encode_function(api: str, dataset: str, mode: str):
    """``run(texts, threads)``: the word encoder's call, or the public Tokenizer's."""
    if api == "encoder":
        encoder = shapes.make_wordpieces(dataset, python=False)
        return lambda texts, n: encoder.encode_batch_ids(texts, n, as_numpy=mode == "np")
    tok = shapes.make_tokenizer(dataset, python=False)
    if mode == "np":
        return lambda texts, n: tok(texts, **shapes.CALL, num_threads=n)
    return lambda texts, n: tok.encode_batch_ids(texts, add_special_tokens=False, num_threads=n)


def encode_calls(args, threads: int) -> float:
    """Encode the dataset `args.repeat` times after a warm-up; return the best CPU s/byte."""
    texts = shapes.dataset_lines(args.dataset)
    run = encode_function(args.api, args.dataset, args.mode)
    size = sum(map(shapes.item_bytes, texts))
    run(texts[:2000], threads)
    time.sleep(1.0)  # a gap in the samples: what follows is the measured calls
    best = float("inf")
    for _ in range(args.repeat):
        start = time.process_time()
        run(texts, threads)
        best = min(best, time.process_time() - start)
    time.sleep(1.0)  # another gap: what follows (the interpreter's exit) is not measured
    return best / size


def perf_record(args, threads: int, data: Path, frequency: int) -> None:
    """Run this script's `time` command for the dataset under perf record."""
    if not shutil.which("perf"):
        sys.exit("core_profile: `perf` is not installed (linux-tools)")
    command = ["perf", "record", "-q", "-F", str(frequency), "-o", str(data), "--",
               sys.executable, __file__, "time", args.dataset, "--mode", args.mode,
               "--api", args.api, "--repeat", str(args.repeat), "--threads", str(threads)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def functions_of(path: Path) -> list[tuple[int, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, m.group(1)) for n, line in enumerate(lines, 1) if (m := FUNCTION.match(line))]


def stage_of(file: str, line: int, cache: dict) -> str:
    """The stage of a source line of the extension, by the function it is in."""
    if file.startswith(("wp_batch", "wp_columns", "wp_module", "unicodeobject", "object")):
        return "batch"
    if file == "wp_trie.c":
        return "trie build"
    if file not in cache:
        found = sorted(CORE.rglob(file))
        cache[file] = functions_of(found[0]) if found else []
    name = "?"
    for start, function in cache[file]:
        if start <= line:
            name = function
    return STAGES.get(name, "other")


def stages(args) -> None:
    data = Path(args.out or "perf.stages.data")
    perf_record(args, 1, data, 4999)
    pin_one_core()
    ns_per_byte = encode_calls(args, 1) * 1e9
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                             "--sort", "dso,srcline"], capture_output=True, text=True).stdout
    shares: dict[str, float] = collections.defaultdict(float)
    cache: dict = {}
    for row in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(_core\S*)\s+(\S+):(\d+)", row)
        if m:
            shares[stage_of(m.group(3), int(m.group(4)), cache)] += float(m.group(1))
    shares.pop("trie build", None)
    total = sum(shares.values())
    print(f"{args.dataset} {args.api} {args.mode}: {ns_per_byte:.2f} ns/byte (one core, CPU)")
    for stage, share in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"  {stage:13s} {share / total:6.1%}  {share / total * ns_per_byte:5.2f} ns/byte")


# Work any thread does without the GIL (wp_pipeline.c, wp_finish_batch.c, wp_find.c,
# wp_batch.c); the encoder inlines everything else into these.
PARALLEL = {"emit_word", "wp_encode_text", "encode_rows", "append_simple_run", "copy_rows",
            "scan_rows", "find_rows", "holds_any", "wp_finish_write", "write_rows",
            "write_padding", "write_sequence", "put", "unlearned_Py_UCS2",
            "unlearned_Py_UCS4", "find_Py_UCS2", "find_Py_UCS4"}
# Results the caller's thread builds with the GIL while other threads still encode.
OVERLAPPED = {"finish_chunk", "finished_list", "chunk_lists", "wp_text_result", "ids_list",
              "offsets_list", "int32_list", "wp_batch_row", "PyList_New", "consume_ready"}


def phases(data: Path) -> collections.Counter:
    """Samples of the measured calls by kind: parallel, overlapped, serial.

    *parallel*: any thread's work without the GIL (the functions in PARALLEL, every
    worker sample, and the main thread's kernel samples while a worker ran: page faults
    of the columns it writes); *overlapped*: lists the main thread builds while the
    others encode (OVERLAPPED); *serial*: the rest of the main thread's. Classes by
    function, not by time, hold on a busy machine, where threads take turns on a core.
    """
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "pid,tid,time,ip,sym"],
                            capture_output=True, text=True).stdout
    rows = []
    for line in script.splitlines():
        parts = line.split()
        if len(parts) >= 3 and "/" in parts[0]:
            pid, tid = map(int, parts[0].split("/"))
            symbol = parts[3] if len(parts) > 3 else "?"
            rows.append((pid, tid, float(parts[1].rstrip(":")), symbol, parts[2]))
    main = rows[0][0]
    stamps = [r[2] for r in rows if r[1] == main]
    # the two longest pauses of the main thread are the sleeps around the measured calls
    gaps = sorted(range(1, len(stamps)), key=lambda i: stamps[i] - stamps[i - 1])[-2:]
    first, last = stamps[min(gaps)], stamps[max(gaps) - 1]
    measured = [r for r in rows if r[0] == main and first <= r[2] <= last]
    windows: dict[int, list[float]] = {}
    for _, tid, stamp, _, _ in measured:
        if tid != main:
            windows.setdefault(tid, [stamp, stamp])[1] = stamp
    spans = sorted(windows.values())
    counts: collections.Counter[str] = collections.Counter()
    for _, tid, stamp, symbol, ip in measured:
        kernel = ip.startswith("ffff")
        if tid != main or symbol in PARALLEL or (
                kernel and any(a <= stamp <= b for a, b in spans)):
            counts["parallel"] += 1
        else:
            counts["overlapped" if symbol in OVERLAPPED else "serial"] += 1
    return counts


def threads(args) -> None:
    runs = []
    for n in (1, 2):
        data = Path(f"{args.out or 'perf.threads'}.{n}")
        perf_record(args, n, data, 4999)
        runs.append(phases(data))
    one, two = runs
    total = sum(one.values())
    # idle machine: the serial part, then the parallel work shared by two threads, the
    # caller's thread also building the lists (never less than the lists alone)
    shared = max(two["overlapped"], (two["parallel"] + two["overlapped"]) / 2)
    predicted = total / (two["serial"] + shared)
    print(f"{args.dataset} {args.api} {args.mode}: 1 thread {total} samples; 2 threads: "
          f"serial {two['serial']}, lists while encoding {two['overlapped']}, parallel "
          f"{two['parallel']}; serial share {two['serial'] / total:.0%}; predicted idle "
          f"speed-up {predicted:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["time", "stages", "threads"])
    parser.add_argument("dataset", choices=sorted(shapes.DATASETS))
    parser.add_argument("--mode", choices=["np", "ids"], default="np",
                        help="numpy arrays, or ids as Python lists")
    parser.add_argument("--api", choices=["encoder", "tokenizer"], default="encoder",
                        help="the raw word encoder, or the public Tokenizer: "
                             "tok(..., padding, truncation 128, 'np') / encode_batch_ids")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="for `time`")
    parser.add_argument("--out", help="perf data file (default: in the current folder)")
    args = parser.parse_args()
    os.environ.setdefault("WORDPIECES_SHARED", str(shapes.SHARED))
    if args.command == "time":
        if args.threads == 1:
            pin_one_core()
        seconds = encode_calls(args, args.threads)
        print(f"{args.dataset} {args.api} {args.mode}: {seconds * 1e9:.2f} ns/byte, "
              f"{1e-6 / seconds:.1f} MB/s (CPU time)")
    else:
        {"stages": stages, "threads": threads}[args.command](args)


if __name__ == "__main__":
    main()
