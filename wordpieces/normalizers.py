"""The normalizers, under HF ``tokenizers.normalizers``' names: ``normalizers.Sequence``.

A re-export: the classes live in ``wordpieces.pipeline.normalizers`` (the character-mapping
and Unicode forms) and ``wordpieces.pipeline.edit_normalizers`` (``Strip``, ``Replace``,
``Prepend``); this module gives them the names HF users already write.

>>> from wordpieces import normalizers
>>> norm = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
...                              normalizers.Lowercase()])
>>> norm.normalize_str("Héllo")
'hello'

``Normalizer`` is the protocol every normalizer meets (``isinstance`` works);
``NormalizedString`` is what ``normalize`` returns: the text and its alignment to the
original.

Not here: HF's ``ByteLevel``, ``Nmt`` and ``Precompiled`` normalizers (wordpieces has none:
a ``tokenizer.json`` that names them is refused, naming the JSON path).
"""

from .pipeline.edit_normalizers import Prepend, Replace, Strip
from .pipeline.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    NormalizedString,
    Normalizer,
    Sequence,
    StripAccents,
)

__all__ = [
    "BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "NormalizedString",
    "Normalizer", "Prepend", "Replace", "Sequence", "Strip", "StripAccents",
]
