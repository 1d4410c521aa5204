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
from .pipeline.decoders import WordPieceDecoder, detokenize
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
from .pipeline.pre_tokenizers import BertPreTokenizer, Split, Whitespace, WhitespaceSplit
from .pipeline.pre_tokenizers import Sequence as PreTokenizerSequence
from .pipeline.processors import BertProcessing, TemplateProcessing
from .simple import RegexTokenizer, SimpleTokenizer
from .tokenizer import Tokenizer
from .tools.explain import explain
from .tools.inspect_vocab import CorpusStats, vocab_facts
from .vocab import Vocab

__version__ = "0.1.0"

__all__ = [
    "AddedToken", "BatchEncoding", "BertNormalizer", "BertPreTokenizer", "BertProcessing",
    "Bundle", "CorpusStats", "Encoding", "FormatError", "Lowercase", "MissingDependencyError",
    "NFC", "NFD", "NFKC", "NFKD", "NormalizedString", "PipelineMismatchError",
    "PreTokenizerSequence", "RegexTokenizer",
    "Sequence", "SimpleTokenizer", "Split", "StripAccents", "TemplateProcessing", "TokenizeError",
    "Tokenizer", "Vocab", "VocabError", "WhitespaceSplit", "Whitespace", "WordCounts",
    "WordLevel", "WordPiece", "WordPieceDecoder", "WordpiecesError", "backend",
    "bert_vocab_from_dataset", "count_words", "detokenize", "explain", "export_tensorflow",
    "learn_bottom_up", "learn_top_down", "learn_word_level", "load", "pipeline_fingerprint",
    "train", "vocab_facts", "wordpiece_tokenize",
]
