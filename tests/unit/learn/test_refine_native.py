"""The refinement loop in C gives the pure-Python reference's vocabulary, token for token.

``refine_python`` is the reference (its invariants: ``test_refine.py``); here both run
on generated counts and vocabularies (prefixes that words contain, duplicate tokens,
protected tokens outside the vocabulary, few candidates so ties and cut-offs matter)
and on real text, and the result must be the same list in the same order.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import shared_path
from wordpieces.errors import MissingDependencyError
from wordpieces.learn.counting import count_words
from wordpieces.learn.learners import native_merge
from wordpieces.learn.learners import refine as rf
from wordpieces.learn.learners.bottom_up import learn_bottom_up

needs_native = pytest.mark.skipif(native_merge.native_merge_error([]) != "",
                                  reason="the merge extension is not built")
SPECIALS = ["[PAD]", "[UNK]"]
WORDS = st.text(alphabet="abcdé#", min_size=0, max_size=9)
COUNTS = st.dictionaries(WORDS, st.integers(1, 40), min_size=1, max_size=40)


def both(words, counts, vocab, protected, prefix, rounds, candidates):
    expected = rf.refine_python(words, counts, vocab, protected, prefix, rounds, candidates)
    got = rf.refine_native(words, counts, vocab, protected, prefix, rounds, candidates)
    assert got == expected
    return got


@needs_native
@settings(max_examples=300, deadline=None)
@given(COUNTS, st.integers(0, 40), st.sampled_from(["##", "", "#", "@"]),
       st.integers(1, 6), st.sampled_from([1, 3, 10, 1000]))
def test_same_vocabulary_from_merges_on_generated_counts(counts, extra, prefix, rounds,
                                                         candidates):
    """A merge vocabulary of any size and prefix refines to the same list in C."""
    words = [w for w in counts if w]
    chars = {ch for w in words for ch in w}
    size = len(SPECIALS) + 2 * len(chars) + extra
    vocab = learn_bottom_up({w: counts[w] for w in words} or {"a": 1}, size,
                            special_tokens=SPECIALS, continuing_subword_prefix=prefix)
    protected = [t for t in vocab if t in SPECIALS or len(t.removeprefix(prefix) if prefix
                                                          else t) == 1]
    both(list(counts), list(counts.values()), vocab, protected, prefix, rounds, candidates)


@needs_native
@settings(max_examples=300, deadline=None)
@given(COUNTS, st.lists(st.text(alphabet="abcdé#", min_size=0, max_size=5), max_size=30),
       st.lists(st.text(alphabet="abcdé#", min_size=1, max_size=3), max_size=8),
       st.sampled_from(["##", "", "#"]), st.integers(1, 5), st.sampled_from([1, 2, 1000]))
def test_same_vocabulary_from_any_token_lists(counts, vocab, protected, prefix, rounds,
                                              candidates):
    """Any tokens (repeats, empty ones, [UNK] words, protected ones outside the vocabulary)."""
    both(list(counts), list(counts.values()), vocab, protected, prefix, rounds, candidates)


@needs_native
@pytest.mark.shared_data
@pytest.mark.parametrize(("path", "size"), [(("english", "botchan.txt"), 3000),
                                            (("portuguese", "machado_dom_casmurro.txt"), 6000)])
def test_same_vocabulary_on_real_text(path, size):
    """A real novel's counts, merges refined to the same vocabulary in C, the same order."""
    counts = dict(count_words(shared_path("corpora", *path), progress=None).items())
    vocab = learn_bottom_up(counts, size, special_tokens=SPECIALS)
    protected = [t for t in vocab if t in SPECIALS or len(t.removeprefix("##")) == 1]
    got = both(list(counts), list(counts.values()), vocab, protected, "##", rf.ROUNDS,
               rf.CANDIDATES_PER_ROUND)
    assert len(got) == size and got != vocab


def test_backend_python_runs_the_reference(monkeypatch):
    """WORDPIECES_BACKEND=python: ``refine`` never reaches the C loop."""
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")

    def refuse(*args, **kwargs):
        raise AssertionError("the C loop ran under WORDPIECES_BACKEND=python")

    monkeypatch.setattr(rf, "refine_native", refuse)
    vocab = ["a", "b", "c", "d", "x", "y", "##b", "##c", "##d", "##y", "abc", "abcd"]
    assert "xy" in rf.refine(["abcd", "xy"], [10, 9], vocab, vocab[:10])


@needs_native
def test_refine_uses_the_c_loop_when_built(monkeypatch):
    """With the extension built (and no backend forced), the C loop gives the result."""
    monkeypatch.delenv("WORDPIECES_BACKEND", raising=False)
    monkeypatch.setattr(rf, "refine_python", lambda *a, **k: pytest.fail("Python ran"))
    vocab = ["a", "b", "c", "d", "x", "y", "##b", "##c", "##d", "##y", "abc", "abcd"]
    assert "xy" in rf.refine(["abcd", "xy"], [10, 9], vocab, vocab[:10])


def test_strict_native_without_the_extension_is_an_error(monkeypatch):
    """WORDPIECES_BACKEND=native and no extension: a clear error, no silent fallback."""
    monkeypatch.setenv("WORDPIECES_BACKEND", "native")
    monkeypatch.setattr(native_merge, "_merge_native", None)
    with pytest.raises(MissingDependencyError, match="WORDPIECES_BACKEND=native"):
        rf.refine(["ab"], [1], ["a", "##b"], ["a", "##b"])


@needs_native
def test_bad_counts_are_refused_by_name():
    """A count that is not positive is named, not refined around."""
    with pytest.raises(ValueError, match=r"counts\[1\] = 0"):
        rf.refine_native(["ab", "b"], [1, 0], ["a", "b", "##b"], ["a"])
