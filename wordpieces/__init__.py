"""wordpieces: WordPiece tokenization and vocabulary learning, BERT-exact and fast.

This module only re-exports the public names; see DESIGN.md for the architecture.
"""

from .added_tokens import AddedToken
from .backend import backend
from .batch_encoding import BatchEncoding
from .bundle import Bundle
from .counting import WordCounts, count_words, pipeline_fingerprint
from .decoders import WordPieceDecoder, detokenize
from .encoding import Encoding
from .errors import (
    FormatError,
    MissingDependencyError,
    PipelineMismatchError,
    TokenizeError,
    VocabError,
    WordpiecesError,
)
from .explain import explain
from .export_tf import export_tensorflow
from .inspect_vocab import CorpusStats, vocab_facts
from .learners import bert_vocab_from_dataset, learn_bottom_up, learn_top_down, learn_word_level
from .models import WordLevel, WordPiece, wordpiece_tokenize
from .normalizers import (
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
from .pre_tokenizers import BertPreTokenizer, Split, Whitespace, WhitespaceSplit
from .pre_tokenizers import Sequence as PreTokenizerSequence
from .processors import BertProcessing, TemplateProcessing
from .serialization import load
from .simple import RegexTokenizer, SimpleTokenizer
from .tokenizer import Tokenizer
from .training import train
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
