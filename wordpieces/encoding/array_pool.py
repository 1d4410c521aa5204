"""Reuse the memory of big int64 columns between batches: ``ArrayPool``.

``tok(texts, padding=..., return_tensors="np")`` returns int64 columns of (rows x padded
length): tens of megabytes for a large batch. Fresh memory of that size comes from the
kernel page by page, each page zeroed on first touch, and writing into it was about 40 %
of the whole call on one thread (33k short lines padded: 10.9 -> 6.8 ms with the memory
already touched); on two threads, first touches on both at once stalled this project's
2-vCPU guest. A pool keeps a few blocks once the arrays made from them are gone, and
hands them out again.

A block is free when nothing but the pool refers to it: every array handed out is a view
whose ``base`` is the block, so a live result (or any view or buffer taken from it) keeps
the block's reference count up. Handed-out memory holds stale values: the writer must set
every element (the C finisher does).

Not handled here: small arrays (below ``MIN_BYTES`` malloc's own free lists serve them
well), writing the columns (``fast/_native/wp_finish_batch.c``).
"""

from __future__ import annotations

import sys
import threading

MIN_BYTES = 1 << 20  # smaller requests are plain np.empty: malloc reuses those itself
MAX_BLOCK_BYTES = 64 << 20  # bigger requests are not kept (rare, and costly to hold)
MAX_KEPT_BYTES = 192 << 20  # what the pool may hold in all, free or not


class ArrayPool:
    """Hand out int64 arrays whose memory is reused once the previous ones are dropped.

    >>> pool = ArrayPool()
    >>> a = pool.take(1 << 18)                # 2 MiB: a new block
    >>> first = id(a.base)
    >>> del a
    >>> id(pool.take(1 << 18).base) == first  # dropped, so its block is handed out again
    True
    """

    def __init__(self) -> None:
        self._blocks: list = []
        self._lock = threading.Lock()  # two Python threads must not take one free block

    def take(self, count: int):
        """An int64 array of ``count`` elements with undefined contents."""
        import numpy as np
        nbytes = count * 8
        if nbytes < MIN_BYTES or nbytes > MAX_BLOCK_BYTES:
            return np.empty(count, dtype=np.int64)
        with self._lock:
            index = self._free_block(nbytes)
            block = self._new_block(count) if index is None else self._blocks[index]
        return block[:count]

    def _free_block(self, nbytes: int) -> int | None:
        """The index of the smallest free block of nbytes..2*nbytes bytes, or None."""
        best = None
        for i in range(len(self._blocks)):
            size = self._blocks[i].nbytes
            if nbytes <= size <= 2 * nbytes and self._is_free(i) and (
                    best is None or size < self._blocks[best].nbytes):
                best = i
        return best

    def _new_block(self, count: int):
        import numpy as np
        block = np.empty(count, dtype=np.int64)
        self._make_room(block.nbytes)
        if self._kept_bytes() + block.nbytes <= MAX_KEPT_BYTES:
            self._blocks.append(block)
        return block

    def _make_room(self, nbytes: int) -> None:
        """Forget free blocks, largest first, until ``nbytes`` more fit under the cap."""
        by_size = sorted(range(len(self._blocks)), key=lambda i: -self._blocks[i].nbytes)
        dropped: set[int] = set()
        for i in by_size:
            if self._kept_bytes(dropped) + nbytes <= MAX_KEPT_BYTES:
                break
            if self._is_free(i):
                dropped.add(i)
        self._blocks = [b for i, b in enumerate(self._blocks) if i not in dropped]

    def _kept_bytes(self, leaving: set[int] = frozenset()) -> int:  # type: ignore[assignment]
        return sum(b.nbytes for i, b in enumerate(self._blocks) if i not in leaving)

    def _is_free(self, index: int) -> bool:
        """Whether nothing but the pool refers to block ``index`` (no live view of it)."""
        # references: the pool's list and getrefcount's argument
        return sys.getrefcount(self._blocks[index]) <= 2
