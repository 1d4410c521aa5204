"""The word-level learner builds HF WordLevelTrainer's vocabulary."""

import pytest

from tests.shared_data import corpus_lines
from wordpieces.learn.counting import WordCounts, count_words
from wordpieces.learn.learners.word_level import learn_word_level
from wordpieces.pipeline.normalizers import Sequence
from wordpieces.pipeline.pre_tokenizers import Whitespace


def hf_word_level(lines, **options):
    """Train HF tokenizers' WordLevel model with a Whitespace pre-tokenizer."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.train_from_iterator(lines, tokenizers.trainers.WordLevelTrainer(**options))
    vocab = tok.get_vocab()
    return sorted(vocab, key=vocab.get)


@pytest.mark.shared_data
@pytest.mark.parametrize("options", [
    {"special_tokens": ["[UNK]", "[PAD]"]},
    {"special_tokens": ["[UNK]"], "min_frequency": 3},
    {"special_tokens": ["<|endoftext|>", "[UNK]"], "vocab_size": 500},
    {"special_tokens": ["[UNK]"], "vocab_size": 300, "min_frequency": 2},
])
def test_matches_hf_word_level_trainer(options):
    """On real text, the vocabulary equals HF's, token for token."""
    lines = corpus_lines("english", "the-verdict.txt") + corpus_lines(
        "english", "tinyshakespeare.txt", limit=2000)
    counts = count_words(iter(lines), normalizer=Sequence([]), pre_tokenizer=Whitespace())
    ours = dict(options)
    if "vocab_size" in ours:
        ours["max_size"] = ours.pop("vocab_size")
    assert learn_word_level(counts, **ours) == hf_word_level(lines, **options)


def test_specials_first_then_count_then_word():
    """Special tokens lead; ties in count go to the smaller word."""
    vocab = learn_word_level({"b": 3, "a": 3, "c": 9, "d": 1}, special_tokens=["[PAD]", "[UNK]"])
    assert vocab == ["[PAD]", "[UNK]", "c", "a", "b", "d"]


def test_max_size_counts_special_tokens():
    """max_size (or vocab_size) bounds the whole vocabulary, special tokens included."""
    counts = {"b": 3, "a": 3, "c": 9}
    assert learn_word_level(counts, max_size=3) == ["[UNK]", "c", "a"]
    assert learn_word_level(counts, vocab_size=3) == ["[UNK]", "c", "a"]
    with pytest.raises(ValueError, match="disagree"):
        learn_word_level(counts, max_size=3, vocab_size=4)


def test_min_frequency_and_duplicates():
    """Repeated words are summed before min_frequency applies; a word equal to a special
    token is not added twice."""
    vocab = learn_word_level([("a", 1), ("b", 2), ("a", 1), ("[UNK]", 5)], min_frequency=2)
    assert vocab == ["[UNK]", "a", "b"]


def test_word_counts_input():
    """WordCounts is accepted."""
    assert learn_word_level(WordCounts({"x": 2})) == ["[UNK]", "x"]
