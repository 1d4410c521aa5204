"""encode_many and the cyclic collector: paused while a batch is built, and a big batch
promoted to the old generation by the one collection then due (``encodings._promotes``).

The user's collector settings are kept: disabled stays disabled (no collection at all),
automatic collection switched off by a zero threshold runs none, and small batches leave
the collector to its own schedule.
"""

from __future__ import annotations

import gc

import pytest

from wordpieces.tokenizer import Tokenizer

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##a", "##b", "!"]


@pytest.fixture
def tok():
    return Tokenizer.from_vocab(VOCAB, flavor="huggingface")


@pytest.fixture
def collections():
    """The generation of every collection started while the test runs."""
    seen: list[int] = []

    def record(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(record)
    saved = gc.get_threshold(), gc.isenabled()
    try:
        yield seen
    finally:
        gc.callbacks.remove(record)
        gc.set_threshold(*saved[0])
        (gc.enable if saved[1] else gc.disable)()


def texts(n: int) -> list[str]:
    return [("ab a! b" * (1 + k % 3))[: 3 + k % 7] for k in range(n)]


def test_a_big_batch_is_collected_once_into_the_old_generation(tok, collections):
    """More encodings than generation 1 holds: one generation-1 collection right after
    the batch, then the encodings are old (no young collection scans them again)."""
    gc.enable()
    gc.set_threshold(700, 10, 10)
    gc.collect()
    collections.clear()
    out = tok.encode_batch(texts(9000), num_threads=1)
    assert collections == [1]
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(enc) in old for enc in out[::97])
    assert [e.ids for e in out[:3]] == [e.ids for e in tok.encode_batch(texts(3))]


def test_a_small_batch_leaves_the_schedule_alone(tok, collections):
    gc.enable()
    gc.set_threshold(700, 10, 10)
    gc.collect()
    collections.clear()
    tok.encode_batch(texts(2000), num_threads=1)
    assert 1 not in collections  # at most the young collection the counts start


@pytest.mark.parametrize("setup", ["disabled", "zero threshold"])
def test_the_users_collector_settings_are_kept(tok, collections, setup):
    """gc.disable() or a zero threshold: no collection runs, and the setting stays."""
    if setup == "disabled":
        gc.disable()
    else:
        gc.enable()
        gc.set_threshold(0)
    out = tok.encode_batch(texts(9000), num_threads=1)
    assert collections == [] and len(out) == 9000
    assert gc.isenabled() == (setup != "disabled")
    if setup == "zero threshold":
        assert gc.get_threshold()[0] == 0
