"""The MaxMatch refinement of a merge vocabulary (``learn_bottom_up(refine=True)``).

Invariants on generated counts: HF's alphabet (every character bare, behind the prefix
those seen inside a word), the exact size, a greedy cost on the training words never
above the merge vocabulary's, the same result whatever the counts' order; on real text,
a lower training cost than the count learner's.
"""

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wordpieces as wp
from tests.shared_data import shared_path
from wordpieces.learn.counting import count_words
from wordpieces.learn.learners.bottom_up import learn_bottom_up
from wordpieces.learn.learners.refine import (
    Segmenter,
    adjacent_joins,
    greedy_cost,
    refine,
    removal_losses,
    update_joins,
)
from wordpieces.learn.training import train

SPECIALS = ["[PAD]", "[UNK]"]


def hf_trained(lines: list[str], size: int) -> set[str]:
    """HF's WordPieceTrainer's vocabulary on ``lines`` (BERT normalizer, lowercase)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(lines, trainers.WordPieceTrainer(
        vocab_size=size, special_tokens=["[UNK]"], show_progress=False))
    return set(tok.get_vocab())
COUNTS = st.dictionaries(st.text(alphabet="abcdeé", min_size=1, max_size=9),
                         st.integers(1, 40), min_size=1, max_size=40)


def cost(counts: dict, vocab: list[str], prefix: str = "##") -> int:
    return greedy_cost(list(counts), list(counts.values()), vocab, prefix)


def alphabet(counts: dict, prefix: str = "##") -> set[str]:
    """HF's trainer's: every character bare, behind the prefix those seen inside a word."""
    return ({ch for word in counts for ch in word}
            | {prefix + ch for word in counts for ch in word[1:]})


@settings(max_examples=100, deadline=None)
@given(COUNTS, st.integers(0, 40), st.sampled_from(["count", "likelihood", "pmi"]),
       st.sampled_from(["##", "", "@"]))
def test_refined_vocabulary_keeps_characters_and_size_and_never_costs_more(
        counts, extra, score, prefix):
    """HF's alphabet, the merges' size (or the alphabet's), cost <= merges'.

    Every character bare, behind the prefix only those seen inside a word (no training
    word would use the others). The merges' size is the size asked unless nothing was
    left to merge.
    """
    chars = alphabet(counts, prefix)
    base = len(SPECIALS) + len(chars)
    size = base + extra
    options = {"special_tokens": SPECIALS, "score": score,
               "continuing_subword_prefix": prefix}
    merged = learn_bottom_up(counts, size, **options)
    refined = learn_bottom_up(counts, size, **options, refine=True)
    assert len(refined) == len(set(refined)) == max(len(merged), base)
    assert len(merged) == size or not _any_pair(counts, merged, prefix)
    assert refined[:2] == SPECIALS
    assert {t for t in refined if len(t.removeprefix(prefix) if prefix else t) == 1
            and t not in SPECIALS} == chars
    if chars <= set(merged):  # else the merges had no room for both forms
        assert cost(counts, refined, prefix) <= cost(counts, merged, prefix)


def _any_pair(counts: dict, vocab: list[str], prefix: str) -> bool:
    """Whether some word still splits in two or more pieces (a merge was left)."""
    seg = Segmenter(list(counts), list(counts.values()), vocab, prefix)
    return any(p is not None and len(p) > 1 for p in seg.pieces)


@settings(max_examples=40, deadline=None)
@given(COUNTS, st.integers(0, 30), st.randoms(use_true_random=False))
def test_refined_vocabulary_does_not_depend_on_the_counts_order(counts, extra, rng):
    """The same counts given in another order give the same vocabulary."""
    size = len(SPECIALS) + len(alphabet(counts)) + extra
    items = list(counts.items())
    rng.shuffle(items)
    assert (learn_bottom_up(dict(items), size, special_tokens=SPECIALS, refine=True)
            == learn_bottom_up(counts, size, special_tokens=SPECIALS, refine=True))


@settings(max_examples=60, deadline=None)
@given(COUNTS, st.integers(0, 30), st.sampled_from(["##", ""]))
def test_removal_losses_match_segmenting_again_without_the_token(counts, extra, prefix):
    """Each loss (memoized rests included) is the cost of a fresh segmentation without it."""
    vocab = learn_bottom_up(counts, len(SPECIALS) + len(alphabet(counts, prefix)) + extra,
                            special_tokens=SPECIALS, continuing_subword_prefix=prefix)
    words, weights = list(counts), list(counts.values())
    seg = Segmenter(words, weights, vocab, prefix)
    losses = removal_losses(seg, vocab, ceiling=float("inf"))
    total = seg.total()
    for token in vocab:
        assert losses[token] == greedy_cost(words, weights, set(vocab) - {token}, prefix) - total
    assert seg.vocab == set(vocab)  # every token is back


@settings(max_examples=60, deadline=None)
@given(COUNTS, st.integers(0, 20), st.lists(st.text(alphabet="abcdeé", min_size=2, max_size=5),
                                            max_size=6), st.sampled_from(["##", ""]))
def test_joins_kept_up_to_date_equal_the_joins_counted_again(counts, extra, added, prefix):
    """``update_joins`` after words re-split gives what ``adjacent_joins`` counts afresh."""
    vocab = learn_bottom_up(counts, len(SPECIALS) + len(alphabet(counts, prefix)) + extra,
                            special_tokens=SPECIALS, continuing_subword_prefix=prefix)
    seg = Segmenter(list(counts), list(counts.values()), vocab, prefix)
    joins = adjacent_joins(seg)
    for token in added:
        seg.add(prefix + token if prefix and token[0] > "c" else token)
    changed = []
    for index, word in enumerate(seg.words):
        pieces = seg.segment(word)
        if pieces != seg.pieces[index]:
            changed.append((index, seg.pieces[index], pieces))
            seg.reassign(index, pieces)
    update_joins(joins, seg, changed)
    assert dict(joins) == dict(adjacent_joins(seg))


def test_refined_alphabet_is_hf_trainers():
    """Bare forms of all; continuation forms of characters seen inside words (or asked).

    "," and "!" are only ever words of their own: no "##," or "##!", unless asked for
    through ``initial_alphabet``; "h" only inside words: both forms.
    """
    counts = {"the": 9, "ah": 5, ",": 7, "!": 2, "tea": 3}
    vocab = learn_bottom_up(counts, 20, special_tokens=SPECIALS, refine=True)
    assert {",", "!", "h", "##h", "t", "##e"} <= set(vocab)
    assert "##," not in vocab and "##!" not in vocab and "##t" not in vocab
    asked = learn_bottom_up(counts, 20, special_tokens=SPECIALS, refine=True,
                            initial_alphabet=["!", "z"])
    assert {"##!", "z", "##z"} <= set(asked) and "##," not in asked
    tok = train(iter(["the tea, ah!"] * 5), algorithm="bottom-up", vocab_size=30,
                refine=True, progress="none")
    hf = hf_trained(["the tea, ah!"] * 5, 30)
    assert {t for t in tok.get_vocab() if len(t.removeprefix("##")) == 1} == {
        t for t in hf if len(t.removeprefix("##")) == 1}


def test_refine_swaps_a_shadowed_token_for_a_useful_one():
    """A token MaxMatch never emits makes way for one that saves tokens."""
    counts = {"abcd": 10, "xy": 9}
    vocab = ["a", "b", "c", "d", "x", "y", "##b", "##c", "##d", "##y", "abc", "abcd"]
    refined = refine(list(counts), list(counts.values()), vocab, vocab[:10])
    assert "abc" not in refined and "xy" in refined
    assert cost(counts, refined) == 19 < cost(counts, vocab)


def test_segmenter_matches_wordpiece_greedy_longest_match():
    """Pieces are WordPiece's: longest first piece, then longest continuations."""
    seg = Segmenter(["unhappy", "zq"], [1, 1], ["u", "un", "##h", "##happ", "##a", "##p",
                                                "##y", "##happy", "z"], "##")
    assert seg.pieces == [("un", "##happy"), None]
    bare = Segmenter(["abc", "cab"], [1, 1], ["a", "b", "c", "bc", "ca"], "")
    assert bare.pieces == [("a", "bc"), ("ca", "b")]  # no prefix: any token anywhere


def test_train_and_the_cli_option_reach_the_learner(tmp_path):
    """train(refine=True) and ``wordpieces train --refine`` give the refined vocabulary.

    "h" is only ever seen inside words: the merges keep "##h" alone, the refinement both.
    """
    lines = ["the cat sat on the mat with the other cats"] * 30
    plain = train(iter(lines), algorithm="bottom-up", vocab_size=40, progress="none")
    tok = train(iter(lines), algorithm="bottom-up", vocab_size=40, refine=True,
                progress="none")
    assert "h" not in plain.get_vocab() and "h" in tok.get_vocab()
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines), encoding="utf-8")
    command = [sys.executable, "-m", "wordpieces", "train", str(corpus), "--algorithm",
               "bottom-up", "--vocab-size", "40", "--refine", "-o", str(tmp_path / "t")]
    subprocess.run(command, check=True, timeout=120, capture_output=True)
    assert wp.load(tmp_path / "t").get_vocab() == tok.get_vocab()
    command[command.index("bottom-up")] = "top-down"
    refused = subprocess.run(command, timeout=120, capture_output=True, text=True)
    assert refused.returncode == 2 and "--refine applies to --algorithm bottom-up" in (
        refused.stderr)


@pytest.mark.shared_data
def test_refined_vocabulary_costs_less_than_the_count_learners_on_real_text():
    """On a real novel, 3,000 tokens: fewer greedy tokens on the training words."""
    counts = dict(count_words(shared_path("corpora", "english", "botchan.txt"),
                              progress=None).items())
    merged = learn_bottom_up(counts, 3000, special_tokens=SPECIALS)
    refined = learn_bottom_up(counts, 3000, special_tokens=SPECIALS, refine=True)
    assert len(refined) == 3000
    assert cost(counts, refined) < 0.99 * cost(counts, merged)
