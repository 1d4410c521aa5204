"""The merge loop by likelihood in C gives the pure-Python MergeState's merges, one for one.

``MergeState`` with ``Likelihood`` is the reference (itself checked against brute force
in ``test_merge_scores``); here both run side by side on real corpora and on generated
counts, merge after merge, until no pair is left (or a fixed number of merges on the
largest corpus). Same tokens in the same order means the same scores to the bit and the
same tie rule (within 1e-12 of the best: more occurrences, then the smaller pair).
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import corpus_lines, shared_path
from tests.unit.learn.merge_reference import alphabet_of, brute_force_merges
from tests.unit.learn.test_native_merge import backend, merges_side_by_side
from wordpieces.errors import WordpiecesError
from wordpieces.learn.counting import count_words
from wordpieces.learn.learners import native_merge
from wordpieces.learn.learners.bottom_up import learn_bottom_up, merge_state
from wordpieces.learn.learners.merge_scores import Likelihood, Pmi
from wordpieces.learn.learners.merge_state import MergeState

needs_native = pytest.mark.skipif(native_merge.native_merge_error([]) != "",
                                  reason="the merge extension is not built")


def both_states(counts, prefix="##", min_frequency=0, initial=()):
    words = [(w, c) for w, c in counts.items() if w and c > 0]
    chars = set(initial).union("".join(w for w, _ in words))
    python = MergeState(words, prefix, list(initial), chars, min_frequency=min_frequency,
                        criterion=Likelihood)
    native = native_merge.NativeMergeState(words, prefix, list(initial), chars,
                                           min_frequency=min_frequency, score="likelihood")
    return python, native


@needs_native
@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcé#", min_size=1, max_size=8),
                       st.integers(1, 40), min_size=1, max_size=30),
       st.integers(0, 4), st.sampled_from(["##", "", "#", "@"]))
def test_same_merges_on_generated_counts(counts, min_frequency, prefix):
    """Any counts, prefixes ('#' in words makes a token its own part: w = v), minimum
    frequencies: the same merges in the same order, to the last."""
    python, native = both_states(counts, prefix, min_frequency)
    merges_side_by_side(python, native)


@needs_native
@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(alphabet="ab", min_size=1, max_size=12),
                       st.integers(1, 9), min_size=1, max_size=20))
def test_same_merges_on_runs(counts):
    """Two letters: runs (``##a ##a ##a``: u = v), back-to-back pairs, re-made tokens
    (c(w) grows) and many exact ties."""
    python, native = both_states(counts)
    merges_side_by_side(python, native)


@needs_native
@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=7),
                       st.one_of(st.integers(1, 5), st.integers(10**9, 10**12)),
                       min_size=1, max_size=15))
def test_same_merges_with_skewed_counts(counts):
    """Counts from 1 to 10**12 side by side: gains far apart and near-ties in the window."""
    python, native = both_states(counts)
    merges_side_by_side(python, native)


@needs_native
def test_same_merges_with_huge_counts_and_initial_alphabet():
    """Counts near 2**50 (the total below 2**53) stay exact; initial characters join."""
    counts = {"hug": 2**50, "pug": 2**50 - 1, "hugs": 3, "bun": 2**49}
    python, native = both_states(counts, initial="xyz")
    assert merges_side_by_side(python, native)


@needs_native
def test_stale_entry_inside_the_tie_window_gives_brute_force_merges():
    """N near 4·10**14: a merge moves other gains by less than the tie window, so entries
    scored with the previous N sit inside it (the case of ``test_merge_scores``)."""
    counts = {"ddbb": 10**14 + 4, "dcaaa": 15}
    python, native = both_states(counts)
    merges = merges_side_by_side(python, native)
    assert list(dict.fromkeys(merges)) == list(dict.fromkeys(brute_force_merges(counts, 100)))


@needs_native
@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcdé", min_size=1, max_size=7),
                       st.integers(1, 30), min_size=1, max_size=20),
       st.sampled_from(["##", "", "@"]))
def test_c_merges_equal_brute_force(counts, prefix):
    """The C loop alone against the plain definition (every pair re-scored each step)."""
    words = [(w, c) for w, c in counts.items()]
    native = native_merge.NativeMergeState(words, prefix, [], set("".join(counts)),
                                           min_frequency=0, score="likelihood")
    merges = []
    while len(merges) < 25 and (token := native.merge_best()) is not None:
        merges.append(token)
    assert merges == brute_force_merges(counts, 25, prefix)


def corpus_counts(*parts):
    return dict(count_words(shared_path("corpora", *parts), progress=None).items())


@needs_native
@pytest.mark.shared_data
@pytest.mark.parametrize(("parts", "limit"), [
    (("english", "the-verdict.txt"), None), (("english", "botchan.txt"), None),
    (("portuguese", "machado_dom_casmurro.txt"), None), (("multilingual", "udhr"), 4000)],
    ids=["verdict", "botchan", "casmurro", "udhr"])
def test_same_merges_on_real_corpora(parts, limit):
    """English and Portuguese books to the last merge; the UDHR in every script (89k
    words, 158k merges: Python takes minutes) for its first 4,000."""
    python, native = both_states(corpus_counts(*parts))
    merges = merges_side_by_side(python, native, limit=limit or 10**9)
    assert len(merges) == limit if limit else len(merges) > 2000


@needs_native
@pytest.mark.shared_data
def test_same_vocabulary_with_min_frequency_on_real_text(monkeypatch):
    """learn_bottom_up gives one likelihood vocabulary on either backend."""
    counts = dict(count_words(iter(corpus_lines("english", "tinyshakespeare.txt")),
                              progress=None).items())
    native = learn_bottom_up(counts, 3000, min_frequency=2, score="likelihood")
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert learn_bottom_up(counts, 3000, min_frequency=2, score="likelihood") == native


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
    """learn_bottom_up(score="likelihood")'s whole vocabulary is the same on either backend."""
    size = len(alphabet_of(counts)) + merges
    vocabularies = []
    for choice in ("native", "python"):
        with backend(choice):
            vocabularies.append(learn_bottom_up(counts, size, special_tokens=["[UNK]"],
                                                score="likelihood", drop_unused=drop_unused,
                                                **options))
    assert vocabularies[0] == vocabularies[1]


@needs_native
@pytest.mark.parametrize("min_frequency", [0, 3])
def test_same_merges_with_many_rare_pairs(min_frequency):
    """Thousands of rare pairs (a large alphabet, random words, runs): the heap drops its
    invalid entries and grows, symbols' pair lists drop dead pairs; the merges stay Python's."""
    rng = random.Random(11)
    letters = [chr(c) for c in range(0x3B1, 0x3B1 + 24)] + list("abcdefghijklmnopqrstuvwxyz")
    counts = {}
    while len(counts) < 4000:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
        counts[word * rng.choice([1, 1, 1, 2])] = rng.choice([1, 1, 2, 3, 5, 40])
    python, native = both_states(counts, min_frequency=min_frequency)
    assert len(merges_side_by_side(python, native, limit=2500)) == 2500


@needs_native
def test_likelihood_runs_in_c_by_default_and_python_on_request(monkeypatch):
    """score="likelihood" takes the C loop when the extension is built, also under
    WORDPIECES_BACKEND=native; =python, or a total of 2**53 tokens, takes Python's."""
    words, chars = [("hug", 3)], {"h", "u", "g"}

    def state():
        return merge_state(words, "##", [], chars, min_frequency=0, criterion=Likelihood)

    assert isinstance(state(), native_merge.NativeMergeState)
    monkeypatch.setenv("WORDPIECES_BACKEND", "native")
    assert isinstance(state(), native_merge.NativeMergeState)
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert isinstance(state(), MergeState)
    monkeypatch.setenv("WORDPIECES_BACKEND", "auto")
    words = [("hug", 2**53 // 3 + 1)]
    assert "2**53" in native_merge.native_merge_error(words, "likelihood")
    assert isinstance(state(), MergeState)
    assert isinstance(merge_state(words, "##", [], chars, min_frequency=0,
                                  criterion=Pmi), MergeState)


@needs_native
def test_strict_backend_refuses_to_fall_back_to_python(monkeypatch):
    """WORDPIECES_BACKEND=native: counts the C loop cannot take are an error naming the
    limit, not a silent run in Python; by default they run in Python."""
    counts = {"hug": 2**53 // 3 + 1, "pug": 2}
    monkeypatch.setenv("WORDPIECES_BACKEND", "native")
    with pytest.raises(WordpiecesError, match=r"WORDPIECES_BACKEND=native but .*2\*\*53"):
        learn_bottom_up(counts, 10, score="likelihood")
    monkeypatch.setenv("WORDPIECES_BACKEND", "auto")
    vocab = learn_bottom_up(counts, 10, special_tokens=[], score="likelihood")
    assert {"hug", "pug"} <= set(vocab)
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    assert learn_bottom_up(counts, 10, special_tokens=[], score="likelihood") == vocab


@needs_native
def test_likelihood_through_learn_bottom_up_uses_the_c_loop(monkeypatch):
    """The learner itself runs the C loop for score="likelihood" (its doctest's vocabulary)."""
    made = []
    real = native_merge.NativeMergeState

    def spy(*args, **kwargs):
        made.append(kwargs.get("score"))
        return real(*args, **kwargs)

    monkeypatch.setattr("wordpieces.learn.learners.bottom_up.NativeMergeState", spy)
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    vocab = learn_bottom_up(counts, 13, special_tokens=[], score="likelihood")
    assert made == ["likelihood"]
    assert vocab[7:] == ["##ug", "##un", "hug", "pun", "pug", "bun"]


def test_unknown_native_score_is_refused():
    """The extension names the scores it ranks by."""
    if native_merge.native_merge_error([]) != "":
        pytest.skip("the merge extension is not built")
    with pytest.raises(ValueError, match="'count' or 'likelihood'"):
        native_merge.NativeMergeState([("ab", 1)], "##", [], {"a", "b"}, min_frequency=0,
                                      score="pmi")
