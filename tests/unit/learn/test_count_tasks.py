"""The tasks every counting engine runs: units of work, map and reduce steps, the meter."""

from collections import Counter

import pytest

from wordpieces.learn import count_tasks
from wordpieces.learn.count_tasks import Meter, merge_partials, run_task, tasks
from wordpieces.learn.counting import Pipeline
from wordpieces.learn.sources import Block, TextStream, file_blocks


def test_texts_of_a_stream_are_batched_by_characters(monkeypatch):
    """A stream becomes batches of about BATCH_CHARS characters, nothing lost or repeated."""
    monkeypatch.setattr(count_tasks, "BATCH_CHARS", 10)
    texts = ["abcd", "efgh", "ijkl", "m", "nopqrstuvw", "x"]
    work = list(tasks([TextStream(texts)]))
    assert [kind for kind, _, _ in work] == ["texts"] * 3
    assert [batch for _, batch, _ in work] == [["abcd", "efgh", "ijkl"], ["m", "nopqrstuvw"],
                                               ["x"]]
    assert [size for _, _, size in work] == [12, 11, 1]


def test_a_block_is_one_task_sized_in_bytes(tmp_path):
    """Each file block is one task whose size is the block's bytes."""
    path = tmp_path / "f.txt"
    path.write_bytes(b"one two\n" * 10)
    blocks = file_blocks(str(path), 30)
    assert [(kind, payload, size) for kind, payload, size in tasks(blocks)] == \
        [("block", b, b.size) for b in blocks]
    assert sum(size for _, _, size in tasks(blocks)) == 80


def test_run_task_counts_a_block_and_a_batch_alike(tmp_path):
    """A block of a file and the same lines as a batch give the same counts."""
    path = tmp_path / "f.txt"
    path.write_text("Hello, hello\nworld!\n", encoding="utf-8")
    pipeline = Pipeline()
    from_block = run_task("block", Block(str(path)), pipeline)
    assert from_block == run_task("texts", ["Hello, hello", "world!"], pipeline)
    assert from_block == Counter({"hello": 2, ",": 1, "world": 1, "!": 1})


def test_merge_partials_sums():
    """The reduce step adds partial counts."""
    assert merge_partials(Counter(a=1), Counter(a=2, b=1), Counter()) == Counter(a=3, b=1)


def test_meter_reports_bytes_of_the_total_and_words(tmp_path):
    """With file blocks only, the total is known and each partial's words are added."""
    events = []
    units = [Block("a", size=10), Block("b", size=5)]
    meter = Meter(units, lambda event, **fields: events.append((event, fields)))
    meter.add(10, Counter(x=3))
    meter.add(5, Counter(y=1))
    assert events == [("count", {"done": 10, "total": 15, "words": 3}),
                      ("count", {"done": 15, "total": 15, "words": 4})]


def test_meter_total_is_unknown_with_a_stream():
    """A stream of texts has no size in advance: the total is None."""
    assert Meter([Block("a", size=10), TextStream([])], None).total is None


def test_meter_words_are_unknown_without_partials():
    """An engine that leaves partial counts on the cluster reports words=None."""
    events = []
    meter = Meter([Block("a", size=4)], lambda event, **fields: events.append(fields))
    meter.add(4)
    assert events == [{"done": 4, "total": 4, "words": None}]


def test_meter_without_progress_is_silent():
    """No progress callable: add() only keeps the totals."""
    meter = Meter([Block("a", size=4)], None)
    meter.add(4, Counter(a=2))
    assert (meter.done, meter.words) == (4, 2)


@pytest.mark.parametrize("kind", ["block", "texts"])
def test_empty_input_counts_nothing(tmp_path, kind):
    """An empty file or an empty batch gives empty counts."""
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    payload = Block(str(path)) if kind == "block" else []
    assert run_task(kind, payload, Pipeline()) == Counter()
