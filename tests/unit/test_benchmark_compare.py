"""benchmarks/encode_compare.py: the same-run encode benchmark's timing, ratios and agreement.

Fakes stand in for engines and the clock, so nothing here times anything for real.
"""

from __future__ import annotations

import doctest

import pytest

from benchmarks import encode_compare as cmp


def test_docstring_examples_hold():
    failed, tried = doctest.testmod(cmp)[:2]
    assert tried >= 7 and failed == 0


def test_round_robin_takes_one_of_each_in_turn_until_all_are_used():
    assert cmp.round_robin([["a1", "a2", "a3"], [], ["b1"], ["c1", "c2"]]) == [
        "a1", "b1", "c1", "a2", "c2", "a3"]
    assert cmp.round_robin([]) == []


def test_pairs_and_words_are_cut_from_texts():
    assert cmp.pairs_of(["a", "b", "c", "d"]) == [("a", "b"), ("c", "d")]
    assert cmp.words_of(["  x\ty  ", "", "z"]) == [["x", "y"], ["z"]]


def test_agreement_counts_items_equal_to_the_reference():
    got = [[101, 5, 102], [101, 6, 102], [101, 7, 102], [101, 102]]
    ref = [[101, 5, 102], [101, 9, 102], [101, 7, 102], [101, 102]]
    assert cmp.agreement(got, ref) == 0.75


def test_agreement_without_special_tokens_drops_the_references_first_and_last_id():
    assert cmp.agreement([[5, 6], [7]], [[101, 5, 6, 102], [101, 8, 102]],
                         strip_specials=True) == 0.5
    # without stripping, the same ids are all different
    assert cmp.agreement([[5, 6]], [[101, 5, 6, 102]]) == 0.0


def test_agreement_compares_tuples_and_lists_by_value():
    got = [([101, 7], [(0, 0), (0, 3)], [1, 1])]
    ref = [([101, 7], [[0, 0], [0, 3]], [1, 1])]
    assert cmp.agreement(got, ref) == 1.0
    assert cmp.agreement([([101, 7], [(0, 0), (0, 4)], [1, 1])], ref) == 0.0


def test_agreement_refuses_item_counts_that_differ():
    with pytest.raises(ValueError, match="2 items to compare with 3 reference items"):
        cmp.agreement([[1], [2]], [[1], [2], [3]])


class FakeClock:
    """Each call of an engine advances the clock by that engine's duration."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_alternate_runs_engines_in_turn_and_keeps_the_first_rounds_outputs():
    clock, calls, collected = FakeClock(), [], []

    def engine(name, seconds):
        def call():
            calls.append(name)
            clock.t += seconds
            return f"{name}-out-{len(calls)}"
        return call

    t = cmp.alternate({"a": engine("a", 2.0), "b": engine("b", 0.5)}, 3, now=clock,
                      collect=lambda: collected.append(len(calls)))
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert t.seconds == {"a": [2.0, 2.0, 2.0], "b": [0.5, 0.5, 0.5]}
    assert t.outputs == {"a": "a-out-1", "b": "b-out-2"}
    assert collected == [0, 0, 1, 2, 3, 4, 5]  # once before it all, then before every call
    assert t.errors == {}


def test_alternate_stops_timing_an_engine_that_raises_and_names_the_error():
    calls = []

    def bad():
        calls.append("bad")
        raise ValueError("no such text")

    t = cmp.alternate({"bad": bad, "good": lambda: calls.append("good")}, 3,
                      collect=lambda: None)
    assert calls == ["bad", "good", "good", "good"]
    assert t.errors == {"bad": "ValueError: no such text"}
    assert t.seconds["bad"] == [] and len(t.seconds["good"]) == 3


def test_alternate_refuses_no_rounds():
    with pytest.raises(ValueError, match="repeat must be at least 1, not 0"):
        cmp.alternate({"a": lambda: None}, 0)


def test_summarize_gives_best_median_and_time_over_the_base():
    row = cmp.summarize([4.0, 1.0, 2.0], [0.5, 2.0, 1.0], figure=lambda s: 10 / s)
    assert (row.best, row.median) == (10.0, 5.0)
    assert (row.times_best, row.times_median) == (2.0, 2.0)
    assert cmp.summarize([1.0], None, figure=lambda s: s).times_best is None
    with pytest.raises(ValueError, match="no timings"):
        cmp.summarize([], [1.0], figure=lambda s: s)


def test_table_prints_each_row_its_error_or_figures_and_agreement():
    rows = [cmp.Row("wp", 20.0, 18.0, 1.0, 1.0, 1.0),
            cmp.Row("flash", 12.5, 11.25, 1.6, 1.6, 0.963),
            cmp.Row("hf", 2.0, 1.9, 10.0, 9.47, None),
            cmp.Row("gone", error="not installed (blingfire)")]
    text = cmp.table("prose, truncated", "MB/s", "wordpieces", rows).splitlines()
    assert text[0] == "### prose, truncated"
    assert "time / wordpieces (best)" in text[2]
    assert text[4] == "| wp | 20.0 | 18.0 | 1.00 | 1.00 | 100.0% |"
    assert text[5] == "| flash | 12.5 | 11.2 | 1.60 | 1.60 | 96.3% |"
    assert text[6] == "| hf | 2.0 | 1.9 | 10.00 | 9.47 | – |"
    assert text[7] == "| gone | not installed (blingfire) | | | | |"
