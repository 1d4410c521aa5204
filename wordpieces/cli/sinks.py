"""Where ``encode`` puts its sequences: text lines (ids, tokens, jsonl) or ``.npy`` arrays.

Both ways of running ``encode`` (one process reading a stream, ``cli.encode``; a Dask task
per file block, ``cli.distributed``) encode batches of lines into one of these sinks with
``encode_batches``, so their outputs are byte for byte the same.

Not handled here: reading the input (``formats.lines``), choosing where the output goes
(the two encode modules), the ``.npy`` format itself (``cli.npy``).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable

from ..formats.atomic import FileSet, checked_target, naming
from .common import BATCH_LINES, check_output_parent
from .npy import NpyWriter, index_path, manifest_path


def encode_batches(tok, texts: Iterable[str], sink, *, add_special_tokens: bool,
                   num_threads: int | None, batch_lines: int = BATCH_LINES,
                   after_batch: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """Encode ``texts`` into ``sink``, ``batch_lines`` at a time; return (lines, tokens).

    ``after_batch(lines, tokens)`` is called with the totals so far after each batch
    (for progress).
    """
    rows = iter(texts)
    lines = tokens = 0
    while batch := list(itertools.islice(rows, batch_lines)):
        tokens += sink.add(tok, batch, add_special_tokens, num_threads)
        lines += len(batch)
        if after_batch is not None:
            after_batch(lines, tokens)
    return lines, tokens


class TextSink:
    """Write ``ids``, ``tokens`` or ``jsonl`` lines to a text stream."""

    def __init__(self, out, fmt: str):
        self.out = out
        self.format = fmt
        self._tokens: list[str] | None = None  # id -> token, for the tokens format

    def add(self, tok, texts: list[str], add_special_tokens: bool, num_threads) -> int:
        """Write one output line per text; return the number of tokens written."""
        if self.format in ("ids", "tokens"):
            rows = tok.encode_batch_ids(texts, add_special_tokens=add_special_tokens,
                                        num_threads=num_threads)
            self.out.write("".join(self._line(tok, ids) + "\n" for ids in rows))
            return sum(map(len, rows))
        encodings = tok.encode_batch(texts, add_special_tokens=add_special_tokens,
                                     num_threads=num_threads)
        self.out.write("".join(format_encoding(e) + "\n" for e in encodings))
        return sum(map(len, encodings))

    def _line(self, tok, ids: list[int]) -> str:
        if self.format == "ids":
            return " ".join(map(str, ids))
        if self._tokens is None:  # the fast ids path, then a table lookup per id
            self._tokens = [tok.id_to_token(i) for i in range(tok.vocab_size)]
        return " ".join(self._tokens[i] for i in ids)


def format_encoding(enc) -> str:
    """One ``jsonl`` line: ids, tokens and character offsets of an encoding."""
    return json.dumps({"ids": enc.ids, "tokens": enc.tokens,
                       "offsets": [list(o) for o in enc.offsets]},
                      ensure_ascii=False, separators=(",", ":"))


class NpySink:
    """Append ids to ``OUT.npy`` and line starts to ``OUT.idx.npy``; both appear at the end.

    The two arrays are one ``formats.atomic.FileSet`` (manifest ``OUT.manifest.json``):
    a run killed at any point leaves the previous pair or the new one, and what it left
    behind is removed by the next run into the same folder.
    """

    def __init__(self, path: str, vocab_size: int):
        self.path = checked_target(path)
        checked_target(index_path(path))  # '-o DIR' or '-o ""': refused before any work
        check_output_parent(path)
        dtype = "uint16" if vocab_size <= 1 << 16 else "uint32"
        folder = os.path.dirname(os.path.abspath(path))
        self.files = FileSet(folder, kind="npy-pair", shared_folder=True,
                             manifest=os.path.basename(manifest_path(path)))
        try:
            self.ids = NpyWriter(self.files.open(os.path.basename(path)), dtype)
            self.index = NpyWriter(self.files.open(os.path.basename(index_path(path))),
                                   "int64")
        except BaseException:
            self.files.discard()
            raise

    def add(self, tok, texts: list[str], add_special_tokens: bool, num_threads) -> int:
        """Append the ids of ``texts`` and their start offsets; return the tokens added."""
        rows = tok.encode_batch_ids(texts, add_special_tokens=add_special_tokens,
                                    num_threads=num_threads)
        starts, position = [], self.ids.length
        for ids in rows:
            starts.append(position)
            position += len(ids)
        self.index.extend(starts)
        self.ids.extend(itertools.chain.from_iterable(rows))
        return position - starts[0] if starts else 0

    def __enter__(self) -> NpySink:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.files.discard()
            return
        try:
            self.index.extend([self.ids.length])
            self.index.finish()
            self.ids.finish()
        except OSError as e:
            self.files.discard()
            raise naming(e, self.path) from None
        except BaseException:
            self.files.discard()
            raise
        self.files.commit()
