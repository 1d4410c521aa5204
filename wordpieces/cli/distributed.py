"""``wordpieces encode --engine dask``: encode many files on a Dask cluster.

Each input file (or each block of about ``--blocksize`` bytes of a plain file; a
compressed file is one block) is one task; a task reads its lines (``formats.lines``),
encodes them with the tokenizer shipped once to every worker, and writes its own output
shard atomically under the ``-o`` directory. When every shard is written,
``manifest.json`` lists them in input order with their line and token counts: a
directory without a manifest is an unfinished run. Workers read the inputs and write
the shards themselves, so both must be on storage the workers see (a shared file
system).

Inputs are resolved as everywhere (``learn.sources``): globs, directories and URLs work.

Not handled here: stdin (nothing to distribute), resuming a run (a rerun rewrites every
shard), object-store outputs.
"""

from __future__ import annotations

import json
import os
import sys

from ..errors import require
from ..learn.dask_engine import connect
from ..learn.sources import Block, block_lines, file_blocks
from .common import CLIError, atomic_output, check_output_dir
from .progress import make_progress
from .sinks import NpySink, TextSink, encode_batches

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "wordpieces-encode-manifest/1"
EXTENSIONS = {"ids": ".ids", "tokens": ".tokens", "jsonl": ".jsonl", "npy": ".npy"}


def plan_shards(paths: list[str], output_dir: str, fmt: str,
                blocksize: int | None) -> list[dict]:
    """One task per file, or per block of a file (compressed files stay whole)."""
    tasks = []
    for number, path in enumerate(paths):
        blocks = file_blocks(path, blocksize or sys.maxsize)  # default: one block a file
        stem = os.path.splitext(os.path.basename(path))[0]
        for part, block in enumerate(blocks):
            suffix = f"-{part:04d}" if len(blocks) > 1 else ""
            name = f"{number:05d}-{stem}{suffix}{EXTENSIONS[fmt]}"
            tasks.append({"block": block, "shard": os.path.join(output_dir, name)})
    return tasks


def encode_shard(tok, task: dict, fmt: str, add_special_tokens: bool,
                 max_line_chars: int | None = None) -> dict:
    """Encode one block into its shard (runs on a worker); return its counts."""
    block: Block = task["block"]
    texts = _capped(block_lines(block), block, max_line_chars)
    if fmt == "npy":
        with NpySink(task["shard"], tok.vocab_size) as sink:
            lines, tokens = encode_batches(tok, texts, sink, num_threads=1,
                                           add_special_tokens=add_special_tokens)
    else:
        with atomic_output(task["shard"]) as out:
            lines, tokens = encode_batches(tok, texts, TextSink(out, fmt), num_threads=1,
                                           add_special_tokens=add_special_tokens)
    end = block.start + block.size if block.end is None else block.end
    return {"shard": os.path.basename(task["shard"]), "input": block.path,
            "start": block.start, "end": end, "lines": lines, "tokens": tokens}


def _capped(texts, block: Block, max_chars: int | None):
    """The block's texts; a line over ``max_chars`` is a ``CLIError`` naming where it is."""
    for number, text in enumerate(texts, 1):
        if max_chars is not None and len(text) > max_chars:
            raise CLIError(f"{block.path}: line {number} of the block at byte {block.start}: a "
                           f"line of {len(text):,} characters is longer than --max-line-chars "
                           f"{max_chars:,}")
        yield text


def run_distributed_encode(args, tok, paths: list[str]) -> int:
    """Encode ``paths`` (the resolved inputs) on the cluster into shards and a manifest."""
    distributed = require("distributed", "dask")
    _check(args, paths)
    os.makedirs(args.output, exist_ok=True)
    tasks = plan_shards(paths, args.output, args.format, args.blocksize)
    progress = make_progress(args, "encode", total=sum(t["block"].size for t in tasks))
    with connect(args.scheduler, args.num_proc) as client:
        shipped = client.scatter(tok, broadcast=True)
        futures = {client.submit(encode_shard, shipped, task, args.format,
                                 args.add_special_tokens, args.max_line_chars, pure=False): i
                   for i, task in enumerate(tasks)}
        results = _gather(distributed, futures, tasks, progress)
    _write_manifest(args, results)
    total_lines = sum(r["lines"] for r in results)
    progress.summary(f"encoded {total_lines} lines into {len(results)} shards -> "
                     f"{args.output}/{MANIFEST}")
    return 0


def _check(args, paths: list[str]) -> None:
    if not args.output or args.output == "-":
        raise CLIError("--engine dask needs -o DIR (one shard per input file or block)")
    if "-" in paths:
        raise CLIError("--engine dask encodes files; stdin cannot be distributed")
    check_output_dir(args.output)


def _gather(distributed, futures: dict, tasks: list[dict], progress) -> list[dict]:
    """Wait for every shard, reporting bytes done; results in input order."""
    results: list[dict | None] = [None] * len(tasks)
    done = lines = 0
    with progress:
        for future in distributed.as_completed(list(futures)):
            index = futures[future]
            results[index] = future.result()  # re-raises a worker's error here
            done += tasks[index]["block"].size
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
