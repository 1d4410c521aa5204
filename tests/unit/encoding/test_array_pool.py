"""ArrayPool: big int64 blocks handed out again only when nothing else refers to them."""

from __future__ import annotations

import threading

import pytest

from wordpieces.encoding import array_pool
from wordpieces.encoding.array_pool import ArrayPool

np = pytest.importorskip("numpy")
BIG = array_pool.MIN_BYTES // 8 * 2  # 2 MiB of int64: pooled


def test_a_dropped_array_gives_its_block_back():
    pool = ArrayPool()
    first = pool.take(BIG)
    block = id(first.base)
    del first
    assert id(pool.take(BIG).base) == block


def test_a_live_view_keeps_its_block_out_of_the_pool():
    pool = ArrayPool()
    first = pool.take(BIG)
    view = first[5:10]
    del first
    second = pool.take(BIG)
    second[:] = 7
    assert view.base is not second.base
    assert len(pool._blocks) == 2


def test_a_buffer_taken_from_an_array_keeps_its_block_too():
    pool = ArrayPool()
    first = pool.take(BIG)
    first[:] = 1
    held = memoryview(first)
    del first
    pool.take(BIG)[:] = 2
    assert np.frombuffer(held, dtype=np.int64).max() == 1


def test_a_block_twice_too_big_is_not_handed_out():
    pool = ArrayPool()
    del_me = pool.take(4 * BIG)
    del del_me
    assert pool.take(BIG).nbytes == BIG * 8 and len(pool._blocks) == 2


def test_small_and_huge_requests_are_not_pooled(monkeypatch):
    monkeypatch.setattr(array_pool, "MAX_BLOCK_BYTES", 4 * BIG * 8)
    pool = ArrayPool()
    assert pool.take(10).base is None and pool.take(8 * BIG).base is None
    assert pool._blocks == []


def test_the_pool_keeps_no_more_than_its_cap(monkeypatch):
    monkeypatch.setattr(array_pool, "MAX_KEPT_BYTES", 3 * BIG * 8)
    pool = ArrayPool()
    held = [pool.take(BIG) for _ in range(5)]  # all live: only three are kept
    assert len(held) == 5 and len(pool._blocks) == 3
    del held
    pool.take(3 * BIG)  # a bigger one: free blocks are forgotten to make room
    assert sum(b.nbytes for b in pool._blocks) <= 3 * BIG * 8


def test_threads_never_share_a_block():
    """Each thread fills its array with its own number; no other thread's number shows."""
    pool = ArrayPool()
    errors = []

    def work(k: int) -> None:
        for _ in range(200):
            a = pool.take(BIG)
            a[:] = k
            if not (a == k).all():
                errors.append(k)
            del a

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(pool._blocks) <= 4
