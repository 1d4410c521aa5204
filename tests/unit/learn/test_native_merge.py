"""The merge loop by count in C gives the pure-Python MergeState's merges, one for one.

The Python loop is the reference (itself checked against brute force in
``test_merge_scores``); here both run side by side on real corpora and on generated
counts, merge after merge, until no pair is left.
"""

import os
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import corpus_lines, shared_path
from tests.unit.learn.merge_reference import alphabet_of
from wordpieces.learn.counting import count_words
from wordpieces.learn.learners import bottom_up as bu
from wordpieces.learn.learners import native_merge
from wordpieces.learn.learners.bottom_up import learn_bottom_up, merge_state
from wordpieces.learn.learners.merge_scores import Count
from wordpieces.learn.learners.merge_state import MergeState

needs_native = pytest.mark.skipif(native_merge.native_merge_error([]) != "",
                                  reason="the merge extension is not built")


def both_states(counts, prefix="##", min_frequency=0, initial=()):
    words = [(w, c) for w, c in counts.items() if w and c > 0]
    chars = set(initial).union("".join(w for w, _ in words))
    python = MergeState(words, prefix, list(initial), chars, min_frequency=min_frequency,
                        criterion=Count)
    native = native_merge.NativeMergeState(words, prefix, list(initial), chars,
                                           min_frequency=min_frequency)
    return python, native


def merges_side_by_side(python, native, limit=10**9):
    """Merge on both until neither has a pair left; return the merges (equal, or fail)."""
    assert native.alphabet() == python.alphabet()
    merges = []
    while len(merges) < limit:
        expected, got = python.merge_best(), native.merge_best()
        assert got == expected, f"merge {len(merges)}: C made {got!r}, Python {expected!r}"
        if expected is None:
            break
        merges.append(expected)
    return merges


@needs_native
@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcé#", min_size=1, max_size=8),
                       st.integers(1, 40), min_size=1, max_size=30),
       st.integers(0, 4), st.sampled_from(["##", "", "#", "@"]))
def test_same_merges_on_generated_counts(counts, min_frequency, prefix):
    """Any counts, prefixes ('#' in words makes tokens equal to a part: "#" + "##" = "##"),
    minimum frequencies: the same merges in the same order, to the last."""
    python, native = both_states(counts, prefix, min_frequency)
    merges_side_by_side(python, native)


@needs_native
@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(alphabet="ab", min_size=1, max_size=12),
                       st.integers(1, 9), min_size=1, max_size=20))
def test_same_merges_on_runs(counts):
    """Two letters: runs (``##a ##a ##a``), back-to-back pairs and re-made tokens."""
    python, native = both_states(counts)
    merges_side_by_side(python, native)


@needs_native
def test_same_merges_with_huge_counts_and_initial_alphabet():
    """Counts near 2**50 stay exact in C; initial characters join the alphabet."""
    counts = {"hug": 2**50, "pug": 2**50 - 1, "hugs": 3, "bun": 2**49}
    python, native = both_states(counts, initial="xyz")
    assert merges_side_by_side(python, native)


def corpus_counts(*parts):
    return dict(count_words(shared_path("corpora", *parts), progress=None).items())


@needs_native
@pytest.mark.shared_data
@pytest.mark.parametrize("parts", [("english", "the-verdict.txt"), ("english", "botchan.txt"),
                                   ("portuguese", "machado_dom_casmurro.txt"),
                                   ("multilingual", "udhr")],
                         ids=["verdict", "botchan", "casmurro", "udhr"])
def test_same_merges_on_real_corpora(parts):
    """English, Portuguese and the UDHR in every script: every merge until none is left."""
    python, native = both_states(corpus_counts(*parts))
    assert len(merges_side_by_side(python, native)) > 1000


@needs_native
@pytest.mark.shared_data
def test_same_vocabulary_with_min_frequency_on_real_text(monkeypatch):
    """learn_bottom_up gives one vocabulary (drop_unused included) on either backend."""
    counts = dict(count_words(iter(corpus_lines("english", "tinyshakespeare.txt")),
                              progress=None).items())
    native = learn_bottom_up(counts, 3000, min_frequency=2)
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert learn_bottom_up(counts, 3000, min_frequency=2) == native


@needs_native
def test_count_runs_in_c_by_default_and_python_on_request(monkeypatch):
    """score="count" uses the C loop; WORDPIECES_BACKEND=python, and other scores, Python."""
    words, chars = [("hug", 3)], {"h", "u", "g"}
    assert isinstance(merge_state(words, "##", [], chars, min_frequency=0, criterion=Count),
                      native_merge.NativeMergeState)
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert isinstance(merge_state(words, "##", [], chars, min_frequency=0, criterion=Count),
                      MergeState)


def test_backend_native_without_the_extension_is_an_error(monkeypatch):
    """WORDPIECES_BACKEND=native with no extension: a clear error, not a silent fallback."""
    monkeypatch.setattr(native_merge, "_merge_native", None)
    monkeypatch.setenv("WORDPIECES_BACKEND", "native")
    with pytest.raises(ImportError, match="WORDPIECES_BACKEND=native"):
        learn_bottom_up({"hug": 3}, 10)
    monkeypatch.setenv("WORDPIECES_BACKEND", "auto")
    assert learn_bottom_up({"hug": 3}, 10, special_tokens=[])[-1] == "hug"  # Python's


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcé#", min_size=1, max_size=9), min_size=1, max_size=25),
       st.sets(st.text(alphabet="abcé#", max_size=5), max_size=30),
       st.sampled_from(["##", "", "#", "@"]))
def test_used_tokens_in_c_equal_the_python_reference(words, vocab, prefix):
    """Any vocabulary (gaps make [UNK] words, which use no token; "" never matches)."""
    vocab = vocab | {prefix + t for t in list(vocab)[::2]}
    pairs = [(w, 1) for w in words]
    assert native_merge.native_used_tokens(pairs, vocab, prefix) == bu.used_tokens(
        pairs, vocab, prefix)


@needs_native
@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcdé", min_size=1, max_size=8),
                       st.integers(1, 30), min_size=1, max_size=30),
       st.integers(0, 40), st.booleans(),
       st.fixed_dictionaries({}, optional={
           "min_frequency": st.integers(0, 3), "limit_alphabet": st.integers(1, 6),
           "initial_alphabet": st.sampled_from(["", "x", "aé"]),
           "continuing_subword_prefix": st.sampled_from(["##", "", "@"])}))
def test_same_vocabulary_on_generated_counts(counts, merges, drop_unused, options):
    """learn_bottom_up's whole vocabulary is the same on either backend, whatever the
    options (drop_unused, min_frequency, limit_alphabet, initial_alphabet, prefix)."""
    size = len(alphabet_of(counts)) + merges
    vocabularies = []
    for choice in ("native", "python"):
        with backend(choice):
            vocabularies.append(learn_bottom_up(counts, size, special_tokens=["[UNK]"],
                                                drop_unused=drop_unused, **options))
    assert vocabularies[0] == vocabularies[1]


@contextmanager
def backend(choice: str):
    """WORDPIECES_BACKEND=choice for the block (hypothesis tests cannot use monkeypatch)."""
    before = os.environ.get("WORDPIECES_BACKEND")
    os.environ["WORDPIECES_BACKEND"] = choice
    try:
        yield
    finally:
        if before is None:
            del os.environ["WORDPIECES_BACKEND"]
        else:
            os.environ["WORDPIECES_BACKEND"] = before


@needs_native
@pytest.mark.parametrize("min_frequency", [0, 3])
def test_same_merges_with_many_rare_pairs(min_frequency):
    """Thousands of rare pairs (a large alphabet, random words, runs of one letter): the
    C heap fills, drops its invalid entries and grows many times over, and word lists
    move from inside their pair to arrays of their own; the merges stay Python's."""
    import random

    rng = random.Random(11)
    letters = [chr(c) for c in range(0x3B1, 0x3B1 + 24)] + list("abcdefghijklmnopqrstuvwxyz")
    counts = {}
    while len(counts) < 4000:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
        counts[word * rng.choice([1, 1, 1, 2])] = rng.choice([1, 1, 2, 3, 5, 40])
    python, native = both_states(counts, min_frequency=min_frequency)
    assert len(merges_side_by_side(python, native, limit=2500)) == 2500
