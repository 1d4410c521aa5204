"""The flat names ``wordpieces`` had before its namespaces, kept as deprecated aliases.

``wp.DecoderSequence``, ``wp.BertNormalizer``, ``wp.VocabError`` … still resolve to the same
objects, through the package's module ``__getattr__``, each use with one
``DeprecationWarning`` naming the new spelling (``MOVED``). They are in neither ``__all__``
nor ``dir(wordpieces)``, and type checkers report them as missing, so new code and ``import
*`` use the new names.

>>> import warnings, wordpieces
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     wordpieces.DecoderSequence is wordpieces.decoders.Sequence
True
>>> print(caught[0].message)
wordpieces.DecoderSequence is deprecated; use wordpieces.decoders.Sequence

Not handled here: any name of the present top level or namespaces (those are plain
attributes, resolved without this module).
"""

from __future__ import annotations

import importlib
import sys
import warnings


def _moved(module: str, names: str, renamed: dict[str, str] | None = None) -> dict[str, str]:
    """Old flat name -> its new spelling, for ``names`` now in ``wordpieces.<module>``."""
    renamed = renamed or {}
    return {name: f"wordpieces.{module}.{renamed.get(name, name)}" for name in names.split()}


MOVED: dict[str, str] = {
    **_moved("normalizers", "BertNormalizer Lowercase NFC NFD NFKC NFKD NormalizedString "
                            "Prepend Replace Sequence Strip StripAccents"),
    **_moved("pre_tokenizers", "BertPreTokenizer CharDelimiterSplit Digits Metaspace "
                               "Punctuation Split Whitespace WhitespaceSplit "
                               "PreTokenizerSequence",
             {"PreTokenizerSequence": "Sequence"}),
    **_moved("models", "WordLevel WordPiece wordpiece_tokenize"),
    **_moved("processors", "BertProcessing RobertaProcessing TemplateProcessing "
                           "ProcessorSequence", {"ProcessorSequence": "Sequence"}),
    **_moved("decoders", "DecoderSequence MetaspaceDecoder ReplaceDecoder StripDecoder "
                         "WordPieceDecoder detokenize",
             {"DecoderSequence": "Sequence", "MetaspaceDecoder": "Metaspace",
              "ReplaceDecoder": "Replace", "StripDecoder": "Strip",
              "WordPieceDecoder": "WordPiece"}),
    **_moved("errors", "FormatError MissingDependencyError PipelineMismatchError "
                       "TokenizeError VocabError"),
    **_moved("learn.learners", "bert_vocab_from_dataset"),
    **_moved("learn.counting", "pipeline_fingerprint"),
    **_moved("formats.export_tf", "export_tensorflow"),
    **_moved("tools.inspect_vocab", "CorpusStats vocab_facts"),
}
"""Each deprecated flat name of ``wordpieces``, with the spelling that replaces it."""


def resolve(spelling: str) -> object:
    """Return the object a dotted ``wordpieces.module.name`` spelling names."""
    module, _, name = spelling.rpartition(".")
    return getattr(importlib.import_module(module), name)


def moved_attribute(name: str) -> object:
    """Resolve a deprecated flat name, warning with its new spelling (the package's
    ``__getattr__``: Python calls it only for names the package does not hold).

    >>> moved_attribute("Tokenzer")
    Traceback (most recent call last):
    AttributeError: module 'wordpieces' has no attribute 'Tokenzer'
    """
    spelling = MOVED.get(name)
    if spelling is None:
        raise AttributeError(f"module 'wordpieces' has no attribute {name!r}")
    if not _probed_by_import():
        warnings.warn(f"wordpieces.{name} is deprecated; use {spelling}",
                      DeprecationWarning, stacklevel=2)
    return resolve(spelling)


def _probed_by_import() -> bool:
    """Whether the import system asks (``from wordpieces import X`` first checks that the
    package has ``X``, then reads it: the read warns, so one import warns once)."""
    caller = sys._getframe(2).f_code
    return caller.co_name == "_handle_fromlist" and "importlib" in caller.co_filename
