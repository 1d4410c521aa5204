"""The bottom-up learner's "pmi" score and the behaviour common to both scores.

The "likelihood" score is checked against brute force in ``test_merge_scores``.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import corpus_lines
from tests.unit.learn.merge_reference import alphabet_of, naive_merges
from wordpieces.learn.counting import WordCounts, count_words
from wordpieces.learn.learners.bottom_up import learn_bottom_up

EXAMPLE = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}





def test_worked_example_from_the_issue():
    """hug/pug/pun/bun/hugs merge ##gs, pu, hu, bu, hugs, hug in that order."""
    vocab = learn_bottom_up(EXAMPLE, 13, special_tokens=["[UNK]"], score="pmi")
    assert vocab == ["[UNK]", "##g", "##n", "##s", "##u", "b", "h", "p",
                     "##gs", "pu", "hu", "bu", "hugs"]
    assert learn_bottom_up(EXAMPLE, 14, special_tokens=["[UNK]"], score="pmi")[-1] == "hug"


def test_course_worked_example_first_merge():
    """The HF course's first merge, (##g, ##s) at 1/20, comes first here too."""
    assert naive_merges(EXAMPLE, 1) == ["##gs"]
    assert learn_bottom_up(EXAMPLE, 8, special_tokens=[], score="pmi")[-1] == "##gs"


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcdé", min_size=1, max_size=7),
                       st.integers(1, 30), min_size=1, max_size=25),
       st.integers(0, 3), st.sampled_from(["##", "", "@"]))
def test_equals_the_naive_algorithm(counts, min_frequency, prefix):
    """Incremental merging gives the same merges as rescanning all pairs every step."""
    alphabet = alphabet_of(counts, prefix)
    vocab = learn_bottom_up(counts, len(alphabet) + 40, special_tokens=[],
                            min_frequency=min_frequency, continuing_subword_prefix=prefix,
                            score="pmi")
    every_merge = naive_merges(counts, 10_000, prefix, min_frequency)  # until none is left
    assert vocab[len(alphabet):] == list(dict.fromkeys(every_merge))[:40]


@pytest.mark.parametrize("seed", range(5))
def test_equals_the_naive_algorithm_on_skewed_random_corpora(seed):
    """Heavy-tailed counts over a small alphabet exercise deferred re-scoring."""
    rng = random.Random(seed)
    counts = {"".join(rng.choice("abcdef") for _ in range(rng.randint(1, 9))):
              max(1, int(rng.paretovariate(1.1))) for _ in range(150)}
    alphabet = alphabet_of(counts)
    vocab = learn_bottom_up(counts, len(alphabet) + 200, special_tokens=[], score="pmi")
    assert vocab[len(alphabet):] == list(dict.fromkeys(naive_merges(counts, 10_000)))[:200]


@pytest.mark.shared_data
def test_equals_the_naive_algorithm_on_real_text():
    """On real English words the first 150 merges are the naive algorithm's."""
    counts = dict(count_words(iter(corpus_lines("english", "the-verdict.txt"))).items())
    alphabet = alphabet_of(counts)
    vocab = learn_bottom_up(counts, len(alphabet) + 150, special_tokens=[], score="pmi")
    assert vocab[len(alphabet):] == naive_merges(counts, 150)


def test_vocabulary_order_and_dedupe():
    """Special tokens (deduplicated), the sorted alphabet, then merges."""
    vocab = learn_bottom_up(EXAMPLE, 10, special_tokens=["[PAD]", "[UNK]", "[PAD]"])
    assert vocab[:2] == ["[PAD]", "[UNK]"]
    assert vocab[2:9] == sorted(vocab[2:9])
    assert len(vocab) == len(set(vocab)) == 10


def test_min_frequency_stops_merging():
    """Pairs seen fewer than min_frequency times are never merged."""
    # Seen 16+ times: ##u ##g (20), p ##u (17), ##u ##n (16), all scoring 1/36; ##ug
    # wins on count, which leaves p ##u at 12; ##u ##n follows; nothing else qualifies.
    vocab = learn_bottom_up(EXAMPLE, 100, special_tokens=[], min_frequency=16, score="pmi")
    assert vocab[7:] == ["##ug", "##un"]
    assert naive_merges(EXAMPLE, 10, min_frequency=16) == ["##ug", "##un"]


def test_limit_alphabet_leaves_out_words_with_rare_characters():
    """Only the most frequent characters are kept; words with others are skipped."""
    counts = {"aab": 10, "ba": 5, "abz": 1, "q": 1}
    vocab = learn_bottom_up(counts, 100, special_tokens=[], limit_alphabet=2)
    assert not {"z", "##z", "q"} & set(vocab)
    assert {"a", "b", "##a", "##b"} <= set(vocab)


def test_initial_alphabet_adds_both_forms():
    """Characters of initial_alphabet are in the vocabulary bare and prefixed."""
    vocab = learn_bottom_up(EXAMPLE, 10, special_tokens=[], initial_alphabet=["x"])
    assert {"x", "##x"} <= set(vocab)
    with pytest.raises(ValueError, match="one character"):
        learn_bottom_up(EXAMPLE, 10, initial_alphabet=["xy"])


def test_alphabet_is_kept_when_larger_than_vocab_size():
    """vocab_size below the alphabet size still gives the whole alphabet, no merges."""
    assert len(learn_bottom_up(EXAMPLE, 3, special_tokens=[])) == 7


def test_inputs_in_any_form_agree():
    """A dict, WordCounts and pairs in any order give the same vocabulary."""
    pairs = list(EXAMPLE.items())
    expected = learn_bottom_up(EXAMPLE, 12)
    assert learn_bottom_up(WordCounts(EXAMPLE), 12) == expected
    assert learn_bottom_up(list(reversed(pairs)), 12) == expected


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=6), st.integers(1, 20),
                       min_size=1, max_size=20), st.randoms(use_true_random=False))
def test_dict_order_does_not_matter(counts, rng):
    """The same counts inserted in any order give the same vocabulary."""
    items = list(counts.items())
    rng.shuffle(items)
    assert learn_bottom_up(dict(items), 60) == learn_bottom_up(counts, 60)


def test_non_integer_counts_are_refused():
    """Counts must be integers for exact scores."""
    with pytest.raises(TypeError, match="not an integer"):
        learn_bottom_up({"ab": 1.5}, 10)


def test_progress_reports_merges():
    """progress gets one "merge" event per merge with the new token."""
    events = []
    learn_bottom_up(EXAMPLE, 10, special_tokens=[], score="pmi",
                    progress=lambda event, **f: events.append((event, f["token"])))
    assert events == [("merge", "##gs"), ("merge", "pu"), ("merge", "hu")]


@pytest.mark.parametrize("score", ["count", "likelihood", "pmi"])
def test_train_passes_the_score_through(score):
    """train(algorithm="bottom-up", score=...) learns learn_bottom_up's vocabulary."""
    from wordpieces.learn.training import train

    text = " ".join(w for w, c in EXAMPLE.items() for _ in range(c))
    tok = train(iter([text]), algorithm="bottom-up", vocab_size=17, score=score,
                progress="none")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = tok.get_vocab()
    assert sorted(vocab, key=vocab.get) == learn_bottom_up(EXAMPLE, 17, special_tokens=specials,
                                                           score=score)
