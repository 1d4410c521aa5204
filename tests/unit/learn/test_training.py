"""train() counts, learns and builds a tokenizer that matches the references."""

import json
import random

import pytest

from tests.shared_data import CORPORA, corpus_lines, shared_path
from wordpieces.formats.load import load
from wordpieces.learn.counting import PipelineMismatchError, count_words
from wordpieces.learn.learners import learn_bottom_up, learn_top_down
from wordpieces.learn.training import train
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer


def golden(name):
    folder = shared_path("golden", "learner", name)
    meta = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    return meta, vocab


@pytest.mark.shared_data
def test_top_down_tensorflow_flavor_gives_the_tf_golden_vocab():
    """Training from the corpus files with TF's pipeline and params gives TF's vocabulary."""
    meta, vocab = golden("verdict_500")
    tok = train([str(CORPORA / f) for f in meta["corpus_files"]], vocab_size=meta["vocab_size"],
                reserved_tokens=meta["reserved_tokens"], lowercase=meta["lower_case"],
                flavor="tensorflow", progress="none", num_proc=1)
    assert tok.get_vocab(with_added_tokens=False) == {t: i for i, t in enumerate(vocab)}
    assert tok.encode("The Verdict!").tokens[0] == "[CLS]"


@pytest.mark.shared_data
def test_word_level_matches_hf_with_the_bert_pipeline():
    """Word-level training with the huggingface flavor equals HF's WordLevelTrainer."""
    tokenizers = pytest.importorskip("tokenizers")
    lines = corpus_lines("english", "the-verdict.txt")
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    hf.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    hf.train_from_iterator(lines, tokenizers.trainers.WordLevelTrainer(
        vocab_size=700, special_tokens=specials))
    tok = train(iter(lines), algorithm="word-level", vocab_size=700, flavor="huggingface",
                special_tokens=specials, progress="none")
    assert tok.get_vocab() == hf.get_vocab()
    text = "She had never seen the picture, Mr. Gisburn!"
    assert tok.encode(text, add_special_tokens=False).ids == hf.encode(text).ids


@pytest.mark.shared_data
def test_bottom_up_uses_the_bottom_up_learner():
    """The bottom-up tokenizer's vocabulary is learn_bottom_up's on the same counts."""
    lines = corpus_lines("english", "the-verdict.txt")
    tok = train(iter(lines), algorithm="bottom-up", vocab_size=400, progress="none")
    counts = count_words(iter(lines))
    expected = learn_bottom_up(counts, 400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]",
                                                            "[MASK]"])
    assert tok.get_vocab(with_added_tokens=False) == {t: i for i, t in enumerate(expected)}


@pytest.mark.shared_data
def test_counts_from_the_same_pipeline_are_accepted(tmp_path):
    """Saved counts of the same pipeline train the same tokenizer as the text."""
    lines = corpus_lines("english", "the-verdict.txt")
    count_words(iter(lines)).save(tmp_path / "c.tsv")
    from wordpieces.learn.counting import WordCounts
    from_counts = train(WordCounts.load(tmp_path / "c.tsv"), vocab_size=300, progress="none")
    from_text = train(iter(lines), vocab_size=300, progress="none")
    assert from_counts.get_vocab() == from_text.get_vocab()


def test_counts_from_another_pipeline_are_refused():
    """Counts made cased (or of unknown origin) are refused for an uncased tokenizer."""
    cased = count_words(iter(["Hello World"]), normalizer=BertNormalizer(lowercase=False),
                        pre_tokenizer=BertPreTokenizer())
    with pytest.raises(PipelineMismatchError, match="ignore_fingerprint=True"):
        train(cased, vocab_size=50, progress="none")
    with pytest.raises(PipelineMismatchError, match="unknown pipeline"):
        train({"hello": 3}, vocab_size=50, progress="none")
    tok = train(cased, vocab_size=50, progress="none", ignore_fingerprint=True, lower_thresh=1)
    assert "Hello" in tok.get_vocab()


@pytest.mark.shared_data
def test_saved_tokenizer_reloads(tmp_path):
    """A trained tokenizer saves and loads back with the same tokenization."""
    lines = corpus_lines("portuguese", "machado_dom_casmurro.txt", limit=800)
    tok = train(iter(lines), vocab_size=500, reserved_tokens=["[PAD]", "[UNK]", "[START]",
                                                              "[END]"], progress="none")
    tok.save(tmp_path / "pt")
    again = load(tmp_path / "pt")
    text = "Uma noite destas, vindo da cidade para o Engenho Novo"
    assert again.encode(text).ids == tok.encode(text).ids
    assert tok.encode(text).tokens[0] == "[START]"


@pytest.mark.shared_data
def test_progress_events_reach_a_callable():
    """Counting and learning events go to a progress callable."""
    events = []
    train(iter(corpus_lines("english", "the-verdict.txt")), vocab_size=300,
          progress=lambda event, **f: events.append(event))
    assert events[0] == "count" and "search" in events


def test_bad_options_are_named():
    """Unknown algorithm, missing unk token and conflicting names are refused."""
    with pytest.raises(ValueError, match="algorithm"):
        train(iter(["a"]), algorithm="bpe")
    with pytest.raises(ValueError, match="unk_token"):
        train(iter(["a"]), reserved_tokens=["[PAD]"])
    with pytest.raises(ValueError, match="same option"):
        train(iter(["a"]), reserved_tokens=["[UNK]"], special_tokens=["[PAD]", "[UNK]"])


@pytest.mark.shared_data
def test_count_options_reach_the_counter():
    """blocksize and num_proc go to count_words, not to the learner; results do not change."""
    path = shared_path("corpora", "english", "the-verdict.txt")
    whole = train(str(path), algorithm="bottom-up", vocab_size=300, progress="none")
    blocks = train(str(path), algorithm="bottom-up", vocab_size=300, progress="none",
                   blocksize=4096, num_proc=2)
    assert blocks.get_vocab() == whole.get_vocab()


def test_top_down_may_end_above_vocab_size_as_tf_does():
    """TF Text's search stops within its slack, sometimes above vocab_size: train() keeps
    that vocabulary (the learner's, token for token TF's) rather than refusing it."""
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefgh") for _ in range(rng.randint(2, 7)))
             for _ in range(300)]
    lines = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(200)]
    expected = learn_top_down(count_words(iter(lines), num_proc=1), 80, ["[UNK]"],
                              lower_thresh=1)
    assert len(expected) > 80
    tok = train(iter(lines), vocab_size=80, lower_thresh=1, reserved_tokens=["[UNK]"],
                num_proc=1, progress="none")
    vocab = tok.get_vocab()
    assert sorted(vocab, key=vocab.get) == expected
