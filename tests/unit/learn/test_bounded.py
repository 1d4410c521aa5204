"""max_distinct_words keeps the N most common words, exactly, whatever the grouping of counts."""

import os
import random
import warnings
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.learn import bounded
from wordpieces.learn.bounded import BoundedTotal
from wordpieces.learn.counting import CountsPrunedWarning, count_words


def top(counter: Counter, n: int) -> dict:
    """The definition: the n best by count descending, then word, of the full counts."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:n])


words = st.lists(st.text(alphabet="abcé中\U0001f600", min_size=1, max_size=3), max_size=120)


@settings(max_examples=150, deadline=None)
@given(words, st.integers(1, 12), st.randoms(use_true_random=False))
def test_any_grouping_gives_the_exact_top(tokens, max_words, rng):
    """Partials cut and ordered at random give the top of the full counts (ties by word)."""
    bounds = sorted(rng.sample(range(len(tokens) + 1), min(4, len(tokens) + 1)))
    cuts = [tokens[a:b] for a, b in zip([0, *bounds], [*bounds, len(tokens)], strict=True)]
    rng.shuffle(cuts)
    total = BoundedTotal(max_words)
    for cut in cuts:
        total.add(Counter(cut))
    assert dict(total.result()) == top(Counter(tokens), max_words)


def test_merge_rounds_give_the_exact_top(monkeypatch):
    """With more runs than files merged at once, rounds of merges keep every count exact."""
    monkeypatch.setattr(bounded, "MERGE_FAN_IN", 2)
    rng = random.Random(3)
    tokens = [f"w{int(rng.paretovariate(1.0))}" for _ in range(5000)]
    total = BoundedTotal(20)
    for start in range(0, len(tokens), 250):
        total.add(Counter(tokens[start:start + 250]))
    assert len(total.runs) > 4
    assert dict(total.result()) == top(Counter(tokens), 20)


def test_pruned_words_and_highest_pruned_count_are_reported():
    counts = Counter({"a": 9, "b": 7, "c": 7, "d": 5, "e": 1})
    total = BoundedTotal(2)
    for word, count in counts.items():
        total.add(Counter({word: count}))
    assert dict(total.result()) == {"a": 9, "b": 7}
    assert (total.pruned_words, total.pruned_max_count) == (3, 7)


def test_runs_are_removed_after_the_result(tmp_path):
    total = BoundedTotal(1, spill_dir=str(tmp_path))
    total.add(Counter("ab"))
    total.add(Counter("cd"))
    assert os.listdir(tmp_path)
    total.result()
    assert os.listdir(tmp_path) == []


@pytest.fixture
def corpus(tmp_path):
    rng = random.Random(11)
    lines = (" ".join(f"w{int(rng.paretovariate(0.9))}" for _ in range(12))
             for _ in range(3000))
    path = tmp_path / "c.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("num_proc", "blocksize"), [(1, 1 << 20), (1, 3000), (2, 5000)])
def test_counts_equal_the_top_of_full_counts(corpus, num_proc, blocksize):
    """Whatever num_proc and block size, the result is the top 40 of the unbounded count."""
    full = count_words([corpus], num_proc=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CountsPrunedWarning)
        pruned = count_words([corpus], num_proc=num_proc, blocksize=blocksize,
                             max_distinct_words=40)
    assert dict(pruned) == top(Counter(dict(full)), 40)
    assert pruned.fingerprint == full.fingerprint


def test_warning_names_the_words_left_out(corpus):
    full = count_words([corpus], num_proc=1).most_common()
    with pytest.warns(CountsPrunedWarning) as caught:
        count_words([corpus], num_proc=1, blocksize=3000, max_distinct_words=40)
    message = str(caught[0].message)
    assert f"left out {len(full) - 40:,} rarer distinct words" in message
    assert f"the highest count among them is {full[40][1]:,}" in message


def test_no_warning_when_nothing_is_left_out(corpus):
    distinct = len(count_words([corpus], num_proc=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CountsPrunedWarning)
        assert len(count_words([corpus], num_proc=1, max_distinct_words=distinct)) == distinct


@pytest.mark.parametrize("bad", [0, -3, True, 2.5, "10"])
def test_bad_max_words_is_refused(bad):
    with pytest.raises(ValueError, match="max_distinct_words must be an integer >= 1"):
        count_words(iter(["a"]), num_proc=1, max_distinct_words=bad)


def test_dask_gives_the_same_top(corpus):
    distributed = pytest.importorskip("distributed")
    expected = top(Counter(dict(count_words([corpus], num_proc=1))), 40)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client, warnings.catch_warnings():
        warnings.simplefilter("ignore", CountsPrunedWarning)
        counts = count_words([corpus], engine="dask", scheduler=client, blocksize=4000,
                             max_distinct_words=40)
    assert dict(counts) == expected
