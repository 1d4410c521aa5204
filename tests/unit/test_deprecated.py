"""The flat names of before the namespaces still resolve, to the same objects, each with one
``DeprecationWarning`` naming the new spelling, and stay out of ``__all__`` and ``dir``."""

from __future__ import annotations

import warnings

import pytest

import wordpieces
from wordpieces.deprecated import MOVED, resolve

# The package's __all__ before the namespaces (62 names), as released to the tests' users.
FLAT = """AddedToken backend BatchEncoding bert_vocab_from_dataset BertNormalizer
BertPreTokenizer BertProcessing Bundle CharDelimiterSplit CorpusStats count_words
DecoderSequence detokenize Digits Encoding explain export_tensorflow FormatError
learn_bottom_up learn_top_down learn_word_level load Lowercase Metaspace MetaspaceDecoder
MissingDependencyError NFC NFD NFKC NFKD NormalizedString pipeline_fingerprint
PipelineMismatchError Prepend PreTokenizerSequence ProcessorSequence Punctuation
RegexTokenizer Replace ReplaceDecoder RobertaProcessing Sequence SimpleTokenizer Split Strip
StripAccents StripDecoder TemplateProcessing TokenizeError Tokenizer train Vocab vocab_facts
VocabError Whitespace WhitespaceSplit WordCounts WordLevel WordPiece wordpiece_tokenize
WordPieceDecoder WordpiecesError""".split()

# Where the pipeline classes were defined: the old name read the class from here.
ORIGINS = {"DecoderSequence": "wordpieces.pipeline.decoders.DecoderSequence",
           "StripDecoder": "wordpieces.pipeline.decoders.StripDecoder",
           "WordPieceDecoder": "wordpieces.pipeline.decoders.WordPieceDecoder",
           "PreTokenizerSequence": "wordpieces.pipeline.pre_tokenizers.Sequence",
           "ProcessorSequence": "wordpieces.pipeline.extra_processors.ProcessorSequence",
           "Sequence": "wordpieces.pipeline.normalizers.Sequence",
           "Strip": "wordpieces.pipeline.edit_normalizers.Strip",
           "VocabError": "wordpieces.errors.VocabError"}


def test_every_old_name_is_kept_or_moved():
    """Each of the 62 flat names is still at the top level or has a new spelling, not both."""
    assert len(FLAT) == 62
    kept = set(FLAT) & set(wordpieces.__all__)
    assert sorted(set(FLAT) - kept) == sorted(MOVED)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_old_name_resolves_to_the_new_object_with_one_warning(name):
    """``wordpieces.<old>`` is the object of its new spelling; one warning names that."""
    with pytest.warns(DeprecationWarning) as caught:
        obj = getattr(wordpieces, name)
    assert obj is resolve(MOVED[name])
    assert [str(w.message) for w in caught] == [
        f"wordpieces.{name} is deprecated; use {MOVED[name]}"]
    assert caught[0].filename == __file__  # points at the caller, not at the package


@pytest.mark.parametrize("name", sorted(ORIGINS))
def test_old_name_is_the_class_it_always_was(name):
    """The renamed ones (``DecoderSequence`` …) are the very classes the old name gave."""
    with pytest.warns(DeprecationWarning):
        assert getattr(wordpieces, name) is resolve(ORIGINS[name])


def test_from_import_warns_once():
    """``from wordpieces import DecoderSequence`` warns once, not for the import's probe too."""
    with pytest.warns(DeprecationWarning) as caught:
        exec("from wordpieces import DecoderSequence, Tokenizer", {})
    assert [str(w.message) for w in caught] == [
        "wordpieces.DecoderSequence is deprecated; use wordpieces.decoders.Sequence"]


def test_old_names_are_hidden():
    """Old names are in neither ``__all__`` nor ``dir``; ``import *`` warns about nothing."""
    assert not set(MOVED) & set(wordpieces.__all__)
    assert not set(MOVED) & set(dir(wordpieces))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace: dict = {}
        exec("from wordpieces import *", namespace)
    assert set(wordpieces.__all__) <= set(namespace)


def test_an_unknown_name_is_still_an_attribute_error():
    """A typo is Python's usual ``AttributeError`` naming it, with no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="has no attribute 'Tokenzer'"):
            wordpieces.Tokenzer  # noqa: B018
        assert not hasattr(wordpieces, "DecoderSequences")
