"""``wordpieces encode --engine dask``: encode many files on a Dask cluster.

Each input file (or each block of about ``--blocksize`` bytes of it) is one task; a task
reads its lines, encodes them with the tokenizer shipped once to every worker, and
writes its own output shard atomically under the ``-o`` directory. When every shard is
written, ``manifest.json`` lists them in input order with their line and token counts: a
directory without a manifest is an unfinished run. Workers read the inputs and write
the shards themselves, so both must be on storage the workers see (a shared file
system).

Not handled here: stdin (nothing to distribute), resuming a run (a rerun rewrites every
shard), object-store outputs.
"""

from __future__ import annotations

import json
import os

from ..errors import require
from .common import CLIError, atomic_output, check_output_dir
from .progress import make_progress

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "wordpieces-encode-manifest/1"
EXTENSIONS = {"ids": ".ids", "tokens": ".tokens", "jsonl": ".jsonl", "npy": ".npy"}
BATCH_LINES = 2000


def plan_shards(paths: list[str], output_dir: str, fmt: str,
                blocksize: int | None) -> list[dict]:
    """One task per file, or per block of a file: input range and shard path."""
    tasks = []
    for number, path in enumerate(paths):
        size = os.path.getsize(path)
        step = blocksize or max(size, 1)
        starts = list(range(0, size, step)) or [0]
        stem = os.path.splitext(os.path.basename(path))[0]
        for part, start in enumerate(starts):
            suffix = f"-{part:04d}" if len(starts) > 1 else ""
            name = f"{number:05d}-{stem}{suffix}{EXTENSIONS[fmt]}"
            tasks.append({"input": path, "start": start, "end": min(start + step, size),
                          "size": size, "shard": os.path.join(output_dir, name)})
    return tasks


def block_texts(path: str, start: int, end: int):
    """Lines whose first byte lies in ``[start, end)`` of ``path``, decoded."""
    with open(path, "rb") as f:
        if start > 0:
            f.seek(start - 1)
            f.readline()  # the line in progress at ``start`` belongs to the previous block
        number = 0
        while f.tell() < end:
            raw = f.readline()
            if not raw:
                return
            number += 1
            yield _decode_line(raw, path, start, number)


def _decode_line(raw: bytes, path: str, start: int, number: int) -> str:
    if start == 0 and number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if raw.endswith(b"\n"):
        raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        where = f"{path}:{number}" if start == 0 else f"{path} (line {number} of the block " \
                                                      f"starting at byte {start})"
        raise CLIError(f"{where}: not valid UTF-8 ({e.reason})") from None


def encode_shard(tok, task: dict, fmt: str, add_special_tokens: bool) -> dict:
    """Encode one block into its shard (runs on a worker); return its counts."""
    import itertools

    from .encode import NpySink, TextSink

    texts = block_texts(task["input"], task["start"], task["end"])
    lines = tokens = 0

    def feed(sink):
        nonlocal lines, tokens
        while batch := list(itertools.islice(texts, BATCH_LINES)):
            tokens += sink.add(tok, batch, add_special_tokens, 1)
            lines += len(batch)

    if fmt == "npy":
        with NpySink(task["shard"], tok.vocab_size) as sink:
            feed(sink)
    else:
        with atomic_output(task["shard"]) as out:
            feed(TextSink(out, fmt))
    return {"shard": os.path.basename(task["shard"]), "input": task["input"],
            "start": task["start"], "end": task["end"], "lines": lines, "tokens": tokens}


def run_distributed_encode(args, tok) -> int:
    """Encode ``args.inputs`` on the cluster into shards plus a manifest under ``-o``."""
    distributed = require("distributed", "dask")
    paths = _check(args)
    os.makedirs(args.output, exist_ok=True)
    tasks = plan_shards(paths, args.output, args.format, args.blocksize)
    client, owned = _connect(distributed, args)
    progress = make_progress(args, "encode", total=sum(t["end"] - t["start"] for t in tasks))
    try:
        shipped = client.scatter(tok, broadcast=True)
        futures = {client.submit(encode_shard, shipped, task, args.format,
                                 args.add_special_tokens, pure=False): i
                   for i, task in enumerate(tasks)}
        results = _gather(distributed, futures, tasks, progress)
    finally:
        for thing in owned:
            thing.close()
    _write_manifest(args, results)
    total_lines = sum(r["lines"] for r in results)
    progress.summary(f"encoded {total_lines} lines into {len(results)} shards -> "
                     f"{args.output}/{MANIFEST}")
    return 0


def _check(args) -> list[str]:
    if not args.output or args.output == "-":
        raise CLIError("--engine dask needs -o DIR (one shard per input file or block)")
    if not args.inputs or "-" in args.inputs:
        raise CLIError("--engine dask encodes files; stdin cannot be distributed")
    check_output_dir(args.output)
    return list(args.inputs)


def _connect(distributed, args):
    if args.scheduler:
        client = distributed.Client(args.scheduler)
        return client, [client]
    workers = args.num_proc or os.cpu_count() or 1
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    return client, [client, cluster]


def _gather(distributed, futures: dict, tasks: list[dict], progress) -> list[dict]:
    """Wait for every shard, reporting bytes done; results in input order."""
    results: list[dict | None] = [None] * len(tasks)
    done = lines = 0
    with progress:
        for future in distributed.as_completed(list(futures)):
            index = futures[future]
            results[index] = future.result()  # re-raises a worker's error here
            done += tasks[index]["end"] - tasks[index]["start"]
            lines += results[index]["lines"]
            progress.update(done=done, lines=lines)
    return results  # type: ignore[return-value]


def _write_manifest(args, results: list[dict]) -> None:
    manifest = {"format": MANIFEST_FORMAT, "tokenizer": args.tokenizer,
                "output_format": args.format, "add_special_tokens": args.add_special_tokens,
                "max_length": args.max_length,
                "lines": sum(r["lines"] for r in results),
                "tokens": sum(r["tokens"] for r in results), "shards": results}
    with atomic_output(os.path.join(args.output, MANIFEST)) as out:
        out.write(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
