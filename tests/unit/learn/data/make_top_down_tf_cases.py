"""Record TF Text's learner output on edge-case inputs, for tests/unit/learn/test_top_down.py.

Run with tensorflow-text installed (e.g. .venv-tf/bin/python, made by scripts/test-tensorflow),
from the repo root:
    python tests/unit/learn/data/make_top_down_tf_cases.py \
        > tests/unit/learn/data/top_down_tf_cases.json

Each case: name, what it exercises, counts (a list of [word, count]), params, and TF's
result (the vocabulary, or the exception type name).
"""
import json
import sys

from tensorflow_text.tools.wordpiece_vocab import wordpiece_tokenizer_learner_lib as tf_learner

FRUIT = [["apple", 2], ["peach", 1], ["pear", 1]]
TEXTY = [["the", 40], ["then", 12], ["there", 9], ["these", 7], ["other", 6], ["another", 3],
         ["theme", 2], ["heat", 5], ["eat", 11], ["eaten", 4], ["seat", 3], ["at", 20]]

CASES = [
    ("tf_binary_search_example", "TF's own binary-search test", FRUIT,
     dict(vocab_size=10, reserved_tokens=[], lower_thresh=1)),
    ("one_iteration_no_joiner", "TF's LearnWithOneIteration: prefixes reduced unconditionally",
     [["apple", 1], ["app", 1]],
     dict(vocab_size=100, reserved_tokens=[], lower_thresh=1, num_iterations=1,
          include_joiner_token=False)),
    ("two_iterations_no_joiner", "TF's test with two iterations",
     [["apple", 1], ["app", 1]],
     dict(vocab_size=100, reserved_tokens=[], lower_thresh=1, num_iterations=2,
          include_joiner_token=False)),
    ("result_exceeds_vocab_size", "search space runs out above vocab_size", TEXTY,
     dict(vocab_size=12, reserved_tokens=["[UNK]"], lower_thresh=2, upper_thresh=3)),
    ("thresh_ends_below_lower", "too small at lower: thresh becomes lower-1", TEXTY,
     dict(vocab_size=200, reserved_tokens=["[PAD]", "[UNK]"], lower_thresh=6, upper_thresh=7)),
    ("none_thresholds", "None thresholds use the max and min counts", TEXTY,
     dict(vocab_size=30, reserved_tokens=[], upper_thresh=None, lower_thresh=None)),
    ("max_input_tokens_minus_one", "-1: no limit", TEXTY,
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=1, max_input_tokens=-1)),
    ("max_input_tokens_cuts_ties", "the cut keeps list order among equal counts",
     [["zeta", 3], ["alpha", 3], ["mid", 3], ["beta", 3], ["top", 9]],
     dict(vocab_size=50, reserved_tokens=[], lower_thresh=1, max_input_tokens=3)),
    ("max_input_tokens_none", "None raises TypeError in TF", FRUIT,
     dict(vocab_size=10, reserved_tokens=[], max_input_tokens=None)),
    ("dedupe_reserved_and_chars", "reserved tokens that are characters or repeat",
     FRUIT, dict(vocab_size=20, reserved_tokens=["p", "[UNK]", "p", "##e"], lower_thresh=1)),
    ("reserved_word_dropped", "a word equal to a reserved token is not learned from",
     [["[MASK]", 50], ["mask", 5], ["ask", 4]],
     dict(vocab_size=30, reserved_tokens=["[MASK]"], lower_thresh=1)),
    ("max_unique_chars", "rare characters and their words are left out", TEXTY,
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=1, max_unique_chars=4)),
    ("max_token_length", "long words are left out", TEXTY,
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=1, max_token_length=3)),
    ("words_start_with_joiner", "a word starting with the joiner collides with suffixes",
     [["##ab", 5], ["xab", 4], ["ab", 3], ["#", 2], ["a##b", 3]],
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=1)),
    ("empty_joiner", "an empty joiner behaves as no joiner", TEXTY,
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=1, joiner="")),
    ("other_joiner", "a one-character joiner", TEXTY,
     dict(vocab_size=40, reserved_tokens=[], lower_thresh=2, joiner="~")),
    ("float_counts", "fractional counts take the exact path",
     [["ab", 2.5], ["abc", 1.25], ["bc", 0.75], ["c", 3.0]],
     dict(vocab_size=20, reserved_tokens=[], lower_thresh=0)),
    ("zero_threshold", "thresh 0 keeps every prefix with reduced count 0",
     [["abc", 0], ["ab", 1], ["b", 0]],
     dict(vocab_size=20, reserved_tokens=[], lower_thresh=0, upper_thresh=1)),
    ("zero_iterations", "only characters and reserved tokens", TEXTY,
     dict(vocab_size=40, reserved_tokens=["[UNK]"], num_iterations=0)),
    ("negative_slack", "slack below zero counts as zero", TEXTY,
     dict(vocab_size=25, reserved_tokens=[], lower_thresh=1, slack_ratio=-1.0)),
    ("duplicate_words", "a repeated word counts twice", [["ab", 3], ["ab", 4], ["b", 1]],
     dict(vocab_size=20, reserved_tokens=[], lower_thresh=1)),
    ("empty_word", "an empty word contributes nothing but counts for thresholds",
     [["", 50], ["ab", 3], ["abc", 2]], dict(vocab_size=20, reserved_tokens=[], lower_thresh=1)),
    ("empty_counts", "no counts at all", [], dict(vocab_size=20, reserved_tokens=[])),
]


def run(counts, params):
    try:
        return tf_learner.learn([tuple(p) for p in counts], **params)
    except Exception as e:  # record the type TF raises
        return {"error": type(e).__name__}


out = [dict(name=n, why=w, counts=c, params=p, result=run(c, p)) for n, w, c, p in CASES]
json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
