"""The pre-tokenizers, under HF ``tokenizers.pre_tokenizers``' names.

A re-export of ``wordpieces.pipeline.pre_tokenizers``, which splits a normalized text into
words with their spans; ``pre_tokenizers.Sequence`` runs several in turn.

>>> from wordpieces import pre_tokenizers
>>> pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
...                                pre_tokenizers.Digits(individual_digits=True)])
>>> pre.pre_tokenize_str("call 911")
[('call', (0, 4)), ('9', (5, 6)), ('1', (6, 7)), ('1', (7, 8))]

``PreTokenizer`` is the protocol every pre-tokenizer meets (``isinstance`` works).

Not here: HF's ``ByteLevel``, ``UnicodeScripts`` and ``FixedLength`` pre-tokenizers
(wordpieces has none: a ``tokenizer.json`` that names them is refused, naming the JSON path).
"""

from .pipeline.pre_tokenizers import (
    BertPreTokenizer,
    CharDelimiterSplit,
    Digits,
    Metaspace,
    PreTokenizer,
    Punctuation,
    Sequence,
    Split,
    Whitespace,
    WhitespaceSplit,
)

__all__ = [
    "BertPreTokenizer", "CharDelimiterSplit", "Digits", "Metaspace", "PreTokenizer",
    "Punctuation", "Sequence", "Split", "Whitespace", "WhitespaceSplit",
]
