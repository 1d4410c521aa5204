"""The top-down learner returns exactly what TF Text's learner returns."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.learn.counting import WordCounts
from wordpieces.learn.learners.top_down import (
    ThresholdLearner,
    _final_vocabulary,
    _piece_starts,
    learn_top_down,
)

TF_CASES = json.loads((Path(__file__).parent / "data" / "top_down_tf_cases.json")
                      .read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", TF_CASES, ids=[c["name"] for c in TF_CASES])
def test_edge_cases_match_tf(case):
    """Each recorded edge case (made with the real TF Text) gives TF's vocab or error."""
    counts = [tuple(pair) for pair in case["counts"]]
    expected = case["result"]
    if isinstance(expected, dict):
        with pytest.raises(Exception) as info:
            learn_top_down(counts, **case["params"])
        assert isinstance(info.value, {"TypeError": TypeError,
                                       "ValueError": ValueError}[expected["error"]])
    else:
        assert learn_top_down(counts, **case["params"]) == expected


def test_split_indices_as_tf_test():
    """TF's get_split_indices test: 'hello' splits at 2 (and 3 with the joiner)."""
    tokens = dict.fromkeys(["he", "llo", "##l", "##lo", "!"], 1)
    assert _piece_starts("hello", tokens, "") == [0, 2]
    assert _piece_starts("hello", tokens, "##") == [0, 2, 3]


def test_final_vocabulary_order_as_tf_test():
    """TF's generate_final_vocabulary test: reserved, sorted chars, count desc then token."""
    got = _final_vocabulary(["<unk>", "<s>", "</s>"], ["c", "a", "b"],
                            {"my": 2, "na": 5, "##me": 1, "is": 2})
    assert got == ["<unk>", "<s>", "</s>", "a", "b", "c", "na", "is", "my", "##me"]


def test_search_bounds_as_tf_test():
    """TF's get_search_threshs test: (10000, 2) on these counts clips to (292, 3)."""
    seen = []
    learn_top_down([("apple", 3), ("banana", 292), ("cucumber", 5)], 1000, [],
                   upper_thresh=10000, lower_thresh=2,
                   progress=lambda event, **f: seen.append(f["thresh"]))
    assert seen[0] == (292 + 3) // 2


def test_dict_order_does_not_matter():
    """A dict is taken in canonical order, whatever its insertion order."""
    pairs = [("zeta", 3), ("alpha", 3), ("mid", 3), ("beta", 3), ("top", 9)]
    a = learn_top_down(dict(pairs), 50, [], lower_thresh=1, max_input_tokens=3)
    b = learn_top_down(dict(reversed(pairs)), 50, [], lower_thresh=1, max_input_tokens=3)
    canonical = sorted(pairs, key=lambda p: (-p[1], p[0]))
    assert a == b == learn_top_down(canonical, 50, [], lower_thresh=1, max_input_tokens=3)


def test_word_counts_input():
    """WordCounts is accepted like a dict."""
    counts = {"then": 12, "the": 40, "eat": 11, "at": 20}
    assert (learn_top_down(WordCounts(counts), 30, [], lower_thresh=1)
            == learn_top_down(counts, 30, [], lower_thresh=1))


def test_bad_counts_are_named():
    """A malformed item is reported with its position."""
    with pytest.raises(TypeError, match="item 1"):
        learn_top_down([("a", 1), ("b",)], 10, [])
    with pytest.raises(TypeError, match="not a number"):
        learn_top_down([("a", "3")], 10, [])


words = st.text(alphabet="abcé#", min_size=0, max_size=7)
pair_lists = st.lists(st.tuples(words, st.integers(0, 40)), min_size=1, max_size=30)
params = st.fixed_dictionaries({
    "vocab_size": st.integers(0, 60),
    "lower_thresh": st.one_of(st.none(), st.integers(0, 6)),
    "upper_thresh": st.one_of(st.none(), st.integers(0, 50)),
    "num_iterations": st.integers(0, 4),
    "include_joiner_token": st.booleans(),
})


@settings(max_examples=150, deadline=None)
@given(pair_lists, params)
def test_fast_and_exact_paths_agree(pairs, kwargs):
    """Integer counts (fast path) and the same counts as floats (exact path) agree."""
    as_floats = [(w, float(c)) for w, c in pairs]
    assert learn_top_down(pairs, **kwargs, reserved_tokens=[]) == learn_top_down(
        as_floats, **kwargs, reserved_tokens=[])


@settings(max_examples=100, deadline=None)
@given(pair_lists, st.randoms(use_true_random=False))
def test_dict_input_is_order_independent(pairs, rng):
    """Same dict contents in any insertion order give the same vocabulary."""
    merged = {}
    for w, c in pairs:
        merged[w] = c
    items = list(merged.items())
    rng.shuffle(items)
    assert (learn_top_down(dict(items), 30, ["[UNK]"], lower_thresh=1)
            == learn_top_down(merged, 30, ["[UNK]"], lower_thresh=1))


def test_random_words_keep_every_character():
    """Every character of the learned words is in the vocabulary, bare and joined."""
    rng = random.Random(7)
    pairs = [("".join(rng.choice("abcdefg") for _ in range(rng.randint(1, 8))),
              rng.randint(1, 50)) for _ in range(300)]
    vocab = learn_top_down(pairs, 100, ["[UNK]"])
    chars = {ch for w, _ in pairs for ch in w}
    assert chars <= set(vocab) and {"##" + c for c in chars} <= set(vocab)
    assert len(vocab) == len(set(vocab))


cut_params = st.fixed_dictionaries({
    "vocab_size": st.integers(0, 60),
    "lower_thresh": st.one_of(st.none(), st.integers(0, 6)),
    "max_input_tokens": st.sampled_from([-1, 0, 3, 10, 5_000_000]),
    "max_token_length": st.sampled_from([3, 50]),
    "max_unique_chars": st.sampled_from([2, 1000]),
})


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcé#", min_size=0, max_size=7),
                       st.integers(0, 40), min_size=1, max_size=30), cut_params)
def test_mapping_read_in_place_as_canonical_pairs(counts, kwargs):
    """A dict (read in place, never sorted unless the input is cut) gives what its
    canonical pairs give, with every input filter (length, characters, the cut)."""
    canonical = sorted(counts.items(), key=lambda p: (-p[1], p[0]))
    reserved = ["[UNK]", "ab"]
    assert (learn_top_down(counts, reserved_tokens=reserved, **kwargs)
            == learn_top_down(canonical, reserved_tokens=reserved, **kwargs))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcd#", min_size=1, max_size=8),
                       st.integers(0, 30), min_size=1, max_size=40),
       st.integers(1, 12), st.integers(-2, 14), st.sampled_from(["##", ""]),
       st.integers(1, 3))
def test_first_round_pruned_to_the_floor_changes_no_vocabulary(counts, floor, thresh,
                                                               joiner, rounds):
    """Keeping only the first-round suffixes weighing ``floor`` or more gives the same
    vocabulary at every threshold (below the floor the full round is made again)."""
    words = sorted(counts)
    weights = [counts[w] for w in words]
    pruned, full = (ThresholdLearner(words, weights, [], num_iterations=rounds,
                                     joiner=joiner, floor=f) for f in (floor, None))
    assert pruned.vocab(thresh) == full.vocab(thresh)
