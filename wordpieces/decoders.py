"""The decoders, under HF ``tokenizers.decoders``' names: ``decoders.WordPiece`` ….

A re-export of ``wordpieces.pipeline.decoders``, where the classes carry longer names
(``WordPieceDecoder``, ``MetaspaceDecoder``, ``ReplaceDecoder``, ``StripDecoder``,
``DecoderSequence``) because they sit beside the pre-tokenizer and normalizer of the same
HF name elsewhere; here they are HF's. Beside them, ``detokenize`` is TensorFlow Text's
tutorial detokenizer (``##`` pieces glued, reserved tokens dropped).

>>> from wordpieces import decoders
>>> decoders.WordPiece().decode(["I", "'m", "Jo", "##hn"])
"I'm John"
>>> decoders.Sequence([decoders.Replace("_", " "), decoders.Strip(" ", 1, 0)]).decode(
...     ["_My", "_name"])
'Myname'
>>> decoders.Metaspace().decode(["\u2581My", "\u2581name"])
'My name'

``Decoder`` is the protocol every decoder meets (``isinstance`` works).

Not here: HF's ``ByteLevel``, ``ByteFallback``, ``Fuse``, ``CTC`` and ``BPEDecoder``
decoders and ``DecodeStream`` (a ``tokenizer.json`` with one of the decoders is refused,
naming the JSON path).
"""

from .pipeline.decoders import Decoder, detokenize
from .pipeline.decoders import DecoderSequence as Sequence
from .pipeline.decoders import MetaspaceDecoder as Metaspace
from .pipeline.decoders import ReplaceDecoder as Replace
from .pipeline.decoders import StripDecoder as Strip
from .pipeline.decoders import WordPieceDecoder as WordPiece

__all__ = ["Decoder", "Metaspace", "Replace", "Sequence", "Strip", "WordPiece", "detokenize"]
