"""wordpieces: WordPiece tokenization and vocabulary learning, BERT-exact and fast.

The top level holds what most code needs: ``Tokenizer`` and what it returns, ``load``,
``train`` and the learners, bundles, the tutorials' tokenizers and the root error. The
pipeline stages sit in namespaces named as in HF ``tokenizers``: ``normalizers``,
``pre_tokenizers``, ``models``, ``processors``, ``decoders`` (each with its own
``Sequence``); every exception is in ``errors``.

>>> import wordpieces as wp
>>> wp.decoders.WordPiece().decode(["un", "##aff", "##able"])
'unaffable'

The flat names of 0.1's development (``wp.DecoderSequence``, ``wp.BertNormalizer`` …)
still resolve, each with one ``DeprecationWarning`` naming its new place (the table:
``wordpieces.deprecated.MOVED``); they are not in ``__all__``. This module only
re-exports; see docs/architecture.md for the architecture.
"""

from typing import TYPE_CHECKING

from . import decoders, errors, models, normalizers, pre_tokenizers, processors
from .encoding.batch_encoding import BatchEncoding
from .encoding.encoding import Encoding
from .errors import WordpiecesError
from .fast.backend import backend
from .formats.bundle import Bundle
from .formats.load import load
from .learn.counting import WordCounts, count_words
from .learn.learners import learn_bottom_up, learn_top_down, learn_word_level
from .learn.training import train
from .pipeline.added_tokens import AddedToken
from .simple import RegexTokenizer, SimpleTokenizer
from .tokenizer import Tokenizer
from .tools.explain import explain
from .vocab import Vocab

__version__ = "0.1.0"

__all__ = [
    "AddedToken", "backend", "BatchEncoding", "Bundle", "count_words", "decoders",
    "Encoding", "errors", "explain", "learn_bottom_up", "learn_top_down",
    "learn_word_level", "load", "models", "normalizers", "pre_tokenizers", "processors",
    "RegexTokenizer", "SimpleTokenizer", "Tokenizer", "train", "Vocab", "WordCounts",
    "WordpiecesError",
]


if not TYPE_CHECKING:  # type checkers report the old flat names as missing: use the new ones
    from . import deprecated

    __getattr__ = deprecated.moved_attribute
