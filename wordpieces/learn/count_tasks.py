"""What every counting engine runs: the units of work, the map and reduce steps, the meter.

``count_words`` cuts a source into units (``sources.plan``); ``tasks`` turns them into
picklable tasks (a file block, or a batch of texts from a stream), ``run_task`` counts
one of them where it lands (this process, a worker process, a Dask worker) and
``merge_partials`` sums partial counts. The local engine (``counting``) and the Dask
engine (``dask_engine``) both run these, so they count identically, and both report
progress through one ``Meter``.

A pipeline here is anything with a ``words`` attribute: a function from a text to its
list of words (``counting.Pipeline``, which travels to workers).

Not handled here: scheduling the tasks (the engines); WordCounts and fingerprints
(``counting``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from .sources import Block, TextStream, block_lines

BATCH_CHARS = 1 << 20  # texts of a stream are sent to workers in batches of this size
FLUSH_WORDS = 65536  # words buffered before a Counter update (one C call per batch)


def count_lines(texts: Iterable[str], pipeline) -> Counter:
    """Count the words of some texts, each split as a whole."""
    words, buffer = pipeline.words, []
    counter: Counter[str] = Counter()
    for text in texts:
        if text:
            buffer += words(text)
            if len(buffer) >= FLUSH_WORDS:
                counter.update(buffer)
                buffer.clear()
    counter.update(buffer)
    return counter


def count_block(block: Block, pipeline) -> Counter:
    """Count the words of one block of a file (the map step; runs in a worker)."""
    return count_lines(block_lines(block), pipeline)


def merge_partials(*partials: Counter) -> Counter:
    """Sum partial counts (the reduce step)."""
    total: Counter[str] = Counter()
    for partial in partials:
        total.update(partial)
    return total


def tasks(units) -> Iterator[tuple[str, object, int]]:
    """Yield ("block", Block, bytes) and ("texts", [text, ...], chars) units of work."""
    for unit in units:
        if isinstance(unit, Block):
            yield "block", unit, unit.size
            continue
        batch, size = [], 0
        for text in unit:
            batch.append(text)
            size += len(text)
            if size >= BATCH_CHARS:
                yield "texts", batch, size
                batch, size = [], 0
        if batch:
            yield "texts", batch, size


def run_task(kind: str, payload, pipeline) -> Counter:
    """Count one unit of work from ``tasks``."""
    if kind == "block":
        return count_block(payload, pipeline)
    return count_lines(payload, pipeline)


class Meter:
    """Report the bytes counted, of the known total, to a progress callable.

    Each engine calls ``add`` as a task finishes; the callable gets
    ``progress("count", done=bytes, total=bytes or None, words=n or None)``. The total is
    unknown (None) when a unit is a stream of texts; the words are unknown (None) when
    the engine does not bring partial counts back as tasks finish (Dask).
    """

    def __init__(self, units, progress: Callable[..., None] | None):
        self.progress = progress
        known = not any(isinstance(u, TextStream) for u in units)
        self.total = sum(u.size for u in units if isinstance(u, Block)) if known else None
        self.done = 0
        self.words = 0

    def add(self, size: int, partial: Counter | None = None) -> None:
        """Count ``size`` more bytes done, and the words of ``partial`` when given."""
        self.done += size
        if partial is not None:
            self.words += sum(partial.values())
        if self.progress is not None:
            self.progress("count", done=self.done, total=self.total,
                          words=self.words if partial is not None else None)
