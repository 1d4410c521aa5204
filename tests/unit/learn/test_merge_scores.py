"""The likelihood score is the exact gain of the corpus log-likelihood, merge after merge."""

import inspect
import random
import sys
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.learn.merge_reference import (
    alphabet_of,
    apply_merge,
    brute_force_merges,
    log_likelihood,
)
from wordpieces.learn.learners.bottom_up import learn_bottom_up
from wordpieces.learn.learners.merge_scores import (
    likelihood_gain,
    likelihood_gain_of,
    scorer,
    xlogx_change,
)
from wordpieces.learn.learners.merge_state import MergeState


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcdé", min_size=1, max_size=7),
                       st.integers(1, 30), min_size=1, max_size=20),
       st.integers(0, 3), st.sampled_from(["##", "", "@"]))
def test_likelihood_merges_equal_brute_force(counts, min_frequency, prefix):
    """Every merge is the one that most increases the recomputed corpus log-likelihood."""
    alphabet = alphabet_of(counts, prefix)
    vocab = learn_bottom_up(counts, len(alphabet) + 25, special_tokens=[], score="likelihood",
                            min_frequency=min_frequency, continuing_subword_prefix=prefix)
    every_merge = brute_force_merges(counts, 10_000, prefix, min_frequency)
    assert vocab[len(alphabet):] == list(dict.fromkeys(every_merge))[:25]


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(alphabet="ab", min_size=1, max_size=9),
                       st.integers(1, 50), min_size=1, max_size=15))
def test_likelihood_merges_equal_brute_force_on_runs(counts):
    """Two letters: runs (``##a ##a ##a``), repeated pairs and re-made strings abound."""
    alphabet = alphabet_of(counts)
    vocab = learn_bottom_up(counts, len(alphabet) + 20, special_tokens=[], score="likelihood")
    assert vocab[len(alphabet):] == list(dict.fromkeys(brute_force_merges(counts, 10_000)))[:20]


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcé", min_size=1, max_size=7),
                       st.integers(1, 30), min_size=1, max_size=20),
       st.integers(0, 3), st.sampled_from(["##", "", "@"]))
def test_count_merges_equal_brute_force(counts, min_frequency, prefix):
    """``score="count"`` merges the pair replacing the most occurrences (runs halved)."""
    alphabet = alphabet_of(counts, prefix)
    vocab = learn_bottom_up(counts, len(alphabet) + 25, special_tokens=[], score="count",
                            min_frequency=min_frequency, continuing_subword_prefix=prefix,
                            drop_unused=False)
    every_merge = brute_force_merges(counts, 10_000, prefix, min_frequency, score="count")
    assert vocab[len(alphabet):] == list(dict.fromkeys(every_merge))[:25]


@pytest.mark.parametrize("seed", range(4))
def test_likelihood_merges_equal_brute_force_on_skewed_corpora(seed):
    """Heavy-tailed counts exercise deferred and stale entries over many merges."""
    rng = random.Random(seed)
    counts = {"".join(rng.choice("abcdef") for _ in range(rng.randint(1, 8))):
              max(1, int(rng.paretovariate(1.1))) for _ in range(60)}
    alphabet = alphabet_of(counts)
    vocab = learn_bottom_up(counts, len(alphabet) + 60, special_tokens=[], score="likelihood")
    assert vocab[len(alphabet):] == list(dict.fromkeys(brute_force_merges(counts, 10_000)))[:60]


def test_a_run_of_three_replaces_one():
    """``##a ##a ##a`` holds one replaceable ``(##a, ##a)``: the gain counts one occurrence."""
    counts = {"baaa": 3}
    splits = {"baaa": ["b", "##a", "##a", "##a"]}
    after = {"baaa": apply_merge(splits["baaa"], ("##a", "##a"), "##aa")[0]}
    expected = log_likelihood(after, counts) - log_likelihood(splits, counts)
    # c(##a) 9 -> 3 (u = v: loses 2m), c(##aa) 0 -> 3, N 12 -> 9, with m = 3.
    gain = likelihood_gain_of(3, [(9, -6), (0, 3)], 12)
    assert gain == pytest.approx(expected, rel=1e-12)


@given(st.integers(1, 10**9), st.integers(-10**6, 10**6))
def test_xlogx_change_is_the_difference(count, delta):
    """``Δf(c, d) = f(c + d) - f(c)`` to 1e-12, where two float ``x·ln x`` would cancel."""
    delta = max(delta, -count)

    def f(x):
        return Decimal(x) * Decimal(x).ln() if x else Decimal(0)
    with localcontext() as context:
        context.prec = 60
        exact = float(f(count + delta) - f(count))
    assert xlogx_change(count, delta) == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_xlogx_change_of_a_huge_count_losing_almost_all():
    """``c = 10**16 + 3`` losing all but 1: ``delta / c`` rounds to -1 (log1p(-1) fails)."""
    count, delta = 10**16 + 3, -(10**16 + 2)
    with localcontext() as context:
        context.prec = 60
        exact = float(-Decimal(count) * Decimal(count).ln())  # f(1) = 0
    assert xlogx_change(count, delta) == pytest.approx(exact, rel=1e-12)


def test_gain_of_distinct_symbols_matches_the_general_form():
    """The fast formula for distinct u, v, w equals the sum of the three changes."""
    assert likelihood_gain(7, 40, 30, 5, 500) == pytest.approx(
        likelihood_gain_of(7, [(40, -7), (30, -7), (5, 7)], 500), rel=1e-14)


def test_unknown_score_is_refused_by_name():
    with pytest.raises(ValueError, match="'bpe'.*count, likelihood, pmi"):
        scorer("bpe")
    with pytest.raises(ValueError, match="unknown score"):
        learn_bottom_up({"ab": 1}, 10, score="bpe")


def greedy_pieces(word, vocab, prefix="##"):
    """WordPiece's greedy longest-match-first segmentation (None: the word is [UNK])."""
    pieces, start = [], 0
    while start < len(word):
        lead = prefix if start else ""
        end = next((e for e in range(len(word), start, -1) if lead + word[start:e] in vocab),
                   None)
        if end is None:
            return None
        pieces.append(lead + word[start:end])
        start = end
    return pieces


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=8),
                       st.integers(1, 30), min_size=1, max_size=25), st.integers(1, 30))
def test_drop_unused_keeps_only_tokens_the_training_words_use(counts, merges):
    """Kept merges are used by training words, in merge order; the vocabulary is full
    unless merges run out, and then every merge the words use is kept."""
    alphabet = alphabet_of(counts)
    size = len(alphabet) + merges
    vocab = learn_bottom_up(counts, size, special_tokens=[], score="count", drop_unused=True)
    every = learn_bottom_up(counts, 10**6, special_tokens=[], score="count", drop_unused=False)
    kept = vocab[len(alphabet):]
    used = {p for w in counts for p in greedy_pieces(w, set(vocab))}
    assert set(kept) <= used
    positions = [every.index(t) for t in kept]
    assert positions == sorted(positions)
    if len(vocab) < size:  # merges ran out: every merge the words use is kept
        used_by_all = {p for w in counts for p in greedy_pieces(w, set(every))}
        assert kept == [t for t in every[len(alphabet):] if t in used_by_all]


def test_drop_unused_after_the_cut_to_size():
    """Cut to size, a vocabulary can leave a token unused (``##cb`` here, once ``##cbb`` and
    ``##cc`` split the words); it gives its slot to a later merge instead (found by
    hypothesis)."""
    counts = {"aa": 2, "aaaccb": 1, "acccbb": 1, "baacbbcc": 1}
    alphabet = alphabet_of(counts)
    vocab = learn_bottom_up(counts, len(alphabet) + 4, special_tokens=[], score="count")
    used = {p for w in counts for p in greedy_pieces(w, set(vocab))}
    assert len(vocab) == len(alphabet) + 4
    assert set(vocab[len(alphabet):]) <= used


def test_drop_unused_is_the_default_for_count_only():
    """The documented example: count drops ##ug (every word is whole); pmi keeps all merges."""
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    assert learn_bottom_up(counts, 13, special_tokens=[])[7:] == [
        "hug", "pun", "hugs", "pug", "bun"]
    assert learn_bottom_up(counts, 13, special_tokens=[], score="pmi")[7:] == [
        "##gs", "pu", "hu", "bu", "hugs", "hug"]


def lines_run(function, call) -> set[int]:
    """Line numbers of ``function`` executed while ``call()`` runs."""
    code, seen = function.__code__, set()

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None

        def local(frame, event, arg):
            seen.add(frame.f_lineno)
            return local
        return local
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return seen


def test_stale_entry_inside_a_tie_window_is_rescored_and_requeued(monkeypatch):
    """A near-tie scored with an older N is re-scored, re-queued, and the order stays exact.

    With a count of 10**14 the total N is so large that a merge moves other gains by
    less than the 1e-12 tie window: after the top is re-scored, another entry still
    scored with the old N can lie within the window below it. ``_pop_best`` re-scores
    such an entry and pushes it back (the branch this test reaches); the merges equal
    brute force. Taking the stale entry into the tie group as it is instead would make
    ``##aa`` before ``dca`` here (found by a random search over huge counts).
    """
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")  # the branch is MergeState's
    counts = {"ddbb": 10**14 + 4, "dcaaa": 15}
    source, start = inspect.getsourcelines(MergeState._pop_best)
    requeue = start + next(i for i, line in enumerate(source)
                           if "heapq.heappush(heap, self._entry(" in line)
    alphabet = alphabet_of(counts)
    learned = []
    ran = lines_run(MergeState._pop_best, lambda: learned.extend(learn_bottom_up(
        counts, len(alphabet) + 60, special_tokens=[], score="likelihood")))
    assert requeue in ran
    assert learned[len(alphabet):] == list(dict.fromkeys(brute_force_merges(counts, 10_000)))
