"""Sum partial counts in bounded memory, keeping the ``max_words`` most common words.

``count_words(..., max_distinct_words=N)`` keeps the N words of highest *total* count,
ties broken by the word (code point order), with their exact counts: the same result as
counting everything and then taking ``most_common(N)``. It is a function of the corpus
alone, so it is the same whatever ``num_proc``, engine or block size.

Why not prune in memory as partial counts arrive: whether a word is "rare" is known only
from its total, and a word rare in every block seen so far can still be among the most
common in the end. A rule that drops words from a running sum therefore depends on the
order and grouping of the blocks (a word with count 3 in each of 1000 blocks is dropped
by a per-block threshold of 4 and kept by one block of twice the size). Exact top-N
counts in a single pass over the data need memory for every distinct word in the worst
case, so the bound has to put the rest somewhere: here, on disk.

How: partial counts are summed in a dict; when it holds more than N words it is written
to a temporary file sorted by word (a "run") and emptied. At the end the runs are merged
in word order (at most ``MERGE_FAN_IN`` files open at once, merged in rounds), each
word's total is computed once, and a heap keeps the N best. Memory: N words in the
dict (plus one partial count, whose size the block size bounds), then N in the heap.
Disk: up to the sum of the runs' sizes, in a temporary folder.

Not handled here: counting the blocks (``count_tasks``); a bound on a single partial
count (a block holds at most ``blocksize`` bytes of words).
"""

from __future__ import annotations

import heapq
import itertools
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

MERGE_FAN_IN = 64  # runs merged at once (open files)


class BoundedTotal:
    """Sum partial counts; ``result`` gives the ``max_words`` most common, exactly."""

    def __init__(self, max_words: int | None, spill_dir: str | None = None):
        if max_words is not None and max_words < 1:
            raise ValueError(f"max_distinct_words must be >= 1, not {max_words}")
        self.max_words = max_words
        self.spill_dir = spill_dir
        self.total: Counter[str] = Counter()
        self.runs: list[str] = []
        self._folder: str | None = None
        self.pruned_words = 0  # distinct words left out of the result
        self.pruned_max_count = 0  # the highest total count among them

    def add(self, partial: Counter) -> None:
        """Add one partial count, spilling the sum to disk when it holds too many words."""
        self.total.update(partial)
        if self.max_words is not None and len(self.total) > self.max_words:
            self._spill()

    def result(self) -> Mapping[str, int]:
        """Return word -> total count for the most common ``max_words`` words."""
        try:
            if not self.runs:  # never more than max_words: nothing to prune
                return self.total
            self._spill()
            return self._top(_summed(self._merged_runs()))
        finally:
            self.close()

    def close(self) -> None:
        """Remove the temporary runs."""
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def _spill(self) -> None:
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="wordpieces-count-", dir=self.spill_dir)
        path = os.path.join(self._folder, f"run-{len(self.runs):06d}.tsv")
        _write_run(path, sorted(self.total.items()))
        self.runs.append(path)
        self.total = Counter()

    def _merged_runs(self) -> Iterator[tuple[str, int]]:
        """Merge the runs in rounds of ``MERGE_FAN_IN`` until one merge finishes them."""
        runs = self.runs
        while len(runs) > MERGE_FAN_IN:
            merged = []
            for start in range(0, len(runs), MERGE_FAN_IN):
                group = runs[start:start + MERGE_FAN_IN]
                path = os.path.join(self._folder or "", f"merged-{os.urandom(4).hex()}.tsv")
                _write_run(path, _summed(heapq.merge(*map(_read_run, group))))
                for used in group:
                    os.remove(used)
                merged.append(path)
            runs = merged
        self.runs = runs
        return heapq.merge(*map(_read_run, runs))

    def _top(self, items: Iterable[tuple[str, int]]) -> dict[str, int]:
        """Keep the ``max_words`` best of ``items`` (given in word order): count, then word."""
        if self.max_words is None:
            return dict(items)
        heap: list[tuple[int, int, str]] = []  # (count, -arrival, word): the worst on top
        for arrival, (word, count) in enumerate(items):
            if len(heap) < self.max_words:
                heapq.heappush(heap, (count, -arrival, word))
            elif count > heap[0][0]:  # a tie loses: every kept word sorts before this one
                self._pruned(heapq.heapreplace(heap, (count, -arrival, word))[0])
            else:
                self._pruned(count)
        return {word: count for count, _, word in heap}

    def _pruned(self, count: int) -> None:
        self.pruned_words += 1
        self.pruned_max_count = max(self.pruned_max_count, count)


def _write_run(path: str, items: Iterable[tuple[str, int]]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for chunk in _batched(items, 65536):
            f.write("".join(f"{word}\t{count}\n" for word, count in chunk))


def _read_run(path: str) -> Iterator[tuple[str, int]]:
    with open(path, encoding="utf-8", newline="\n") as f:
        for line in f:
            word, _, count = line[:-1].rpartition("\t")
            yield word, int(count)


def _summed(items: Iterable[tuple[str, int]]) -> Iterator[tuple[str, int]]:
    """Sum the counts of equal neighbours in a word-ordered stream."""
    for word, group in itertools.groupby(items, key=lambda item: item[0]):
        yield word, sum(count for _, count in group)


def _batched(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk
