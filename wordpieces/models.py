"""The models, under HF ``tokenizers.models``' names: ``models.WordPiece``, ``WordLevel``.

A re-export of ``wordpieces.pipeline.models``: a model turns one word into tokens. Beside
HF's names, ``wordpiece_tokenize(word, vocab)`` is the greedy longest-match-first split of
a single word, without building a model.

>>> from wordpieces import models
>>> models.wordpiece_tokenize("unaffable", ["un", "##aff", "##able"])
['un', '##aff', '##able']

``Model`` is the protocol every model meets (``isinstance`` works).

Not here: HF's ``BPE`` and ``Unigram`` models (wordpieces learns and runs WordPiece and
word-level vocabularies only: a ``tokenizer.json`` with either is refused, naming the path).
"""

from .pipeline.models import Model, WordLevel, WordPiece, wordpiece_tokenize

__all__ = ["Model", "WordLevel", "WordPiece", "wordpiece_tokenize"]
