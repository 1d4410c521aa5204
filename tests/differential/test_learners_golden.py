"""Learners against the real references: TF Text goldens, and TF Text live when installed."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import corpus_lines, shared_path
from wordpieces.learn.learners import bert_vocab_from_dataset, learn_top_down

CASES = ["verdict_500", "english_4000", "portuguese_3000_cased", "chinese_2000_nojoiner"]
NOT_LEARN_PARAMS = ("corpus_files", "lower_case", "counts_order")


def golden_case(name):
    """Counts (in file order), learn() params and TF's vocab of one golden case."""
    folder = shared_path("golden", "learner", name)
    counts = []
    with open(folder / "counts.tsv", encoding="utf-8") as f:
        for line in f:
            word, count = line.rstrip("\n").split("\t")
            counts.append((word, int(count)))
    params = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    learn_params = {k: v for k, v in params.items() if k not in NOT_LEARN_PARAMS}
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    return counts, learn_params, vocab, params


@pytest.mark.shared_data
@pytest.mark.parametrize("name", CASES)
def test_top_down_matches_tf_golden(name):
    """learn_top_down gives TF Text's vocabulary token for token, in order."""
    counts, params, vocab, _ = golden_case(name)
    assert learn_top_down(counts, **params) == vocab


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["verdict_500", "portuguese_3000_cased"])
def test_bert_vocab_from_dataset_matches_tf_golden(name):
    """From the corpus text itself, bert_vocab_from_dataset gives the golden vocabulary."""
    _, params, vocab, meta = golden_case(name)
    lines = [line for f in meta["corpus_files"]
             for line in corpus_lines(*f.split("/"), limit=10**9)]
    got = bert_vocab_from_dataset(lines, params.pop("vocab_size"), params.pop("reserved_tokens"),
                                  {"lower_case": meta["lower_case"]}, params)
    assert got == vocab


@pytest.mark.shared_data
def test_dict_of_golden_counts_matches():
    """A dict of the golden counts gives the same vocabulary as the ordered list."""
    counts, params, vocab, _ = golden_case("verdict_500")
    random.Random(3).shuffle(counts)
    assert learn_top_down(dict(counts), **params) == vocab


# ---------------------------------------------------------------- TF Text live


def tf_learner():
    pytest.importorskip("tensorflow_text")
    from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib
    return wordpiece_tokenizer_learner_lib


live_words = st.text(alphabet="abcdeé#", min_size=0, max_size=8)
live_counts = st.lists(st.tuples(live_words, st.one_of(st.integers(0, 60),
                                                       st.sampled_from([0.5, 2.25, 7.0]))),
                       min_size=1, max_size=40)
live_params = st.fixed_dictionaries({
    "vocab_size": st.integers(0, 80),
    "reserved_tokens": st.sampled_from([[], ["[UNK]"], ["a", "[X]", "a"]]),
}, optional={
    "upper_thresh": st.one_of(st.none(), st.integers(0, 100)),
    "lower_thresh": st.one_of(st.none(), st.integers(-2, 8)),
    "num_iterations": st.integers(0, 5),
    "max_input_tokens": st.sampled_from([-1, 0, 2, 10]),
    "max_token_length": st.integers(0, 9),
    "max_unique_chars": st.integers(0, 7),
    "slack_ratio": st.sampled_from([0.0, 0.05, 0.5, -1.0]),
    "include_joiner_token": st.booleans(),
    "joiner": st.sampled_from(["##", "#", "", "ab"]),
})


@pytest.mark.tensorflow
@settings(max_examples=400, deadline=None)
@given(live_counts, live_params)
def test_top_down_matches_tf_live(counts, params):
    """On random counts and parameters, the result (or the error) is TF Text's."""
    tf = tf_learner()
    try:
        expected = tf.learn(list(counts), **params)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            learn_top_down(counts, **params)
        return
    assert learn_top_down(counts, **params) == expected


@pytest.mark.shared_data
@pytest.mark.tensorflow
@pytest.mark.parametrize("name", CASES)
def test_counts_match_tf_basic_tokenizer_live(name):
    """Counting the golden corpora with TF's BasicTokenizer gives our words (live)."""
    pytest.importorskip("tensorflow_text")
    import tensorflow as tf
    from tensorflow_text.python.ops import bert_tokenizer

    from wordpieces.fast.word_encoder import word_splitter
    from wordpieces.learn.learners.tf_compat import basic_tokenizer_pipeline

    _, _, _, meta = golden_case(name)
    lines = [line for f in meta["corpus_files"] for line in corpus_lines(*f.split("/"))]
    basic = bert_tokenizer.BasicTokenizer(lower_case=meta["lower_case"])
    expected = [w.decode("utf-8") for w in basic.tokenize(tf.constant(lines)).flat_values.numpy()]
    words = word_splitter(*basic_tokenizer_pipeline(lower_case=meta["lower_case"]))
    assert [w for line in lines for w in words(line)] == expected


@pytest.mark.shared_data
@pytest.mark.tensorflow
@pytest.mark.parametrize("options", [{"lower_case": True}, {}, {"keep_whitespace": True},
                                     {"preserve_unused_token": True, "lower_case": True},
                                     {"normalization_form": "NFKC"}])
def test_bert_vocab_from_dataset_matches_tf_live(options):
    """bert_vocab_from_dataset equals TF's on a tf.data batch dataset (live)."""
    pytest.importorskip("tensorflow_text")
    import tensorflow as tf
    from tensorflow_text.tools.wordpiece_vocab.bert_vocab_from_dataset import (
        bert_vocab_from_dataset as tf_bert_vocab_from_dataset,
    )

    lines = corpus_lines("english", "the-verdict.txt") + corpus_lines(
        "multilingual", "udhr", "007.txt", limit=60)
    lines += ["Hello [unused1] [UNUSED12] world\u00a0x\u3000y  \t z", "ß ﬁ ４ Σίσυφος"]
    learn = {"lower_thresh": 1, "max_input_tokens": 400}
    dataset = tf.data.Dataset.from_tensor_slices(lines).batch(16)
    expected = tf_bert_vocab_from_dataset(dataset, 300, ["[PAD]", "[UNK]"], options, learn)
    assert bert_vocab_from_dataset(dataset, 300, ["[PAD]", "[UNK]"], options, learn) == expected
    assert bert_vocab_from_dataset(lines, 300, ["[PAD]", "[UNK]"], options, learn) == expected

