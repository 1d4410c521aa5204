"""Vocabulary learners: top-down (TF Text / BERT), bottom-up (merges by count or score), word-level.

Each takes word counts (``WordCounts``, a dict, or ``(word, count)`` pairs) and returns
the vocabulary as a list of tokens, id = position.

Not handled here: counting words (``wordpieces.learn.counting``), building a tokenizer
(``wordpieces.learn.training``).
"""

from .bottom_up import learn_bottom_up
from .tf_compat import bert_vocab_from_dataset
from .top_down import learn_top_down
from .word_level import learn_word_level

__all__ = ["learn_top_down", "learn_bottom_up", "learn_word_level", "bert_vocab_from_dataset"]
