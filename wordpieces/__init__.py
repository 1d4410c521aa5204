"""wordpieces: WordPiece tokenization and vocabulary learning, BERT-exact and fast.

This module only re-exports the public names; see docs/architecture.md for the architecture.
"""

from .encoding.batch_encoding import BatchEncoding
from .encoding.encoding import Encoding
from .errors import (
    FormatError,
    MissingDependencyError,
    PipelineMismatchError,
    TokenizeError,
    VocabError,
    WordpiecesError,
)
from .fast.backend import backend
from .formats.bundle import Bundle
from .formats.export_tf import export_tensorflow
from .formats.load import load
from .learn.counting import WordCounts, count_words, pipeline_fingerprint
from .learn.learners import (
    bert_vocab_from_dataset,
    learn_bottom_up,
    learn_top_down,
    learn_word_level,
)
from .learn.training import train
from .pipeline.added_tokens import AddedToken
from .pipeline.decoders import (
    DecoderSequence,
    MetaspaceDecoder,
    ReplaceDecoder,
    StripDecoder,
    WordPieceDecoder,
    detokenize,
)
from .pipeline.edit_normalizers import Prepend, Replace, Strip
from .pipeline.extra_processors import ProcessorSequence, RobertaProcessing
from .pipeline.models import WordLevel, WordPiece, wordpiece_tokenize
from .pipeline.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    Lowercase,
    NormalizedString,
    Sequence,
    StripAccents,
)
from .pipeline.pre_tokenizers import (
    BertPreTokenizer,
    CharDelimiterSplit,
    Digits,
    Metaspace,
    Punctuation,
    Split,
    Whitespace,
    WhitespaceSplit,
)
from .pipeline.pre_tokenizers import Sequence as PreTokenizerSequence
from .pipeline.processors import BertProcessing, TemplateProcessing
from .simple import RegexTokenizer, SimpleTokenizer
from .tokenizer import Tokenizer
from .tools.explain import explain
from .tools.inspect_vocab import CorpusStats, vocab_facts
from .vocab import Vocab

__version__ = "0.1.0"

__all__ = [
    "AddedToken", "backend", "BatchEncoding", "bert_vocab_from_dataset", "BertNormalizer",
    "BertPreTokenizer", "BertProcessing", "Bundle", "CharDelimiterSplit", "CorpusStats",
    "count_words", "DecoderSequence", "detokenize", "Digits", "Encoding", "explain",
    "export_tensorflow", "FormatError", "learn_bottom_up", "learn_top_down",
    "learn_word_level", "load", "Lowercase", "Metaspace", "MetaspaceDecoder",
    "MissingDependencyError", "NFC", "NFD", "NFKC", "NFKD", "NormalizedString",
    "pipeline_fingerprint", "PipelineMismatchError", "Prepend", "PreTokenizerSequence",
    "ProcessorSequence", "Punctuation", "RegexTokenizer", "Replace", "ReplaceDecoder",
    "RobertaProcessing", "Sequence", "SimpleTokenizer", "Split", "Strip", "StripAccents",
    "StripDecoder", "TemplateProcessing", "TokenizeError", "Tokenizer", "train", "Vocab",
    "vocab_facts", "VocabError", "Whitespace", "WhitespaceSplit", "WordCounts", "WordLevel",
    "WordPiece", "wordpiece_tokenize", "WordPieceDecoder", "WordpiecesError",
]
