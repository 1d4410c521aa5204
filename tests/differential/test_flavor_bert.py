"""The ``bert`` flavor against Google's original tokenization.py (goldens) and its rules."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import shared_path
from wordpieces.fast.word_encoder import WordEncoder
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
from wordpieces.vocab import Vocab

VOCABS = {  # golden field -> (vocabulary file, do_lower_case) as make_bert_goldens.py used
    "uncased": ("bert-base-uncased.vocab.txt", True),
    "cased": ("bert-base-cased.vocab.txt", False),
    "multilingual_cased": ("bert-base-multilingual-cased.vocab.txt", False),
}
CORPORA = ["english_wikitext", "portuguese", "chinese", "emoji", "udhr_mix"]


def bert_encoder(vocab_file: str, lowercase: bool) -> WordEncoder:
    vocab = Vocab.from_file(shared_path("vocab", vocab_file))
    return WordEncoder(BertNormalizer(lowercase=lowercase, flavor="bert"),
                       BertPreTokenizer(flavor="bert"),
                       WordPiece(vocab, max_input_chars_per_word=200))


@pytest.fixture(scope="module")
def encoders():
    return {field: bert_encoder(*spec) for field, spec in VOCABS.items()}


@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", CORPORA)
def test_golden_ids_line_for_line(corpus, encoders):
    """Ids equal tokenization.py's on every golden line, for all three vocabularies."""
    path = shared_path("golden", "tokenize_bert", corpus + ".jsonl")
    records = [json.loads(line) for line in open(path, encoding="utf-8")]
    for field, encoder in encoders.items():
        wrong = [r["text"] for r in records if encoder.encode_ids(r["text"]) != r[field]]
        assert not wrong, f"{field}: {len(wrong)}/{len(records)} lines differ, e.g. {wrong[0]!r}"


def tokens(text: str, lowercase: bool = True) -> list[str]:
    normalizer = BertNormalizer(lowercase=lowercase, flavor="bert")
    ns = normalizer.normalize(text)
    return [w for w, _ in BertPreTokenizer(flavor="bert").pre_tokenize(ns)]


def test_bert_basic_tokenizer_example():
    """tokenization_test.py: ' \\tHeLLo!how  \\n Are yoU?  ' -> hello ! how are you ?"""
    assert tokens(" \tHeLLo!how  \n Are yoU?  ") == ["hello", "!", "how", "are", "you", "?"]


def test_bert_chinese_example():
    """tokenization_test.py: CJK characters become words of their own."""
    assert tokens("ah\u535A\u63A8zz") == ["ah", "\u535A", "\u63A8", "zz"]


def test_accents_are_kept_without_lowercase():
    """BERT strips accents only when lowercasing."""
    assert tokens("HäLLo", lowercase=False) == ["HäLLo"]
    assert tokens("HäLLo") == ["hallo"]


def test_controls_are_deleted_and_glue_words():
    """Cc/Cf characters are deleted (not turned into spaces), so neighbours join."""
    assert tokens("ab\u200bcd\x00ef\ufffdgh") == ["abcdefgh"]


def test_zs_and_line_separators_split():
    """Zs spaces (U+00A0, U+3000) and U+2028, which str.split() cuts on, separate words."""
    assert tokens("a\u00a0b\u3000c\u2028d") == ["a", "b", "c", "d"]


def test_emoji_is_not_a_control():
    """tokenization_test.py: U+1F4A9 is not a control character; it stays a word."""
    assert tokens("x \U0001F4A9 y") == ["x", "\U0001F4A9", "y"]


def test_final_sigma_follows_python_lower():
    """BERT lowercases each whitespace token with str.lower(): a final capital sigma is 'ς'."""
    assert tokens("ΟΔΟΣ ΣΑ") == ["οδος", "σα"]
    assert tokens("ΟΔΟΣ, Σ") == ["οδος", ",", "σ"]


def test_cjk_range_starts_at_2b820():
    """BERT's fifth CJK range starts at U+2B820 (HF's at U+2B920)."""
    assert tokens("a\U0002B820b") == ["a", "\U0002B820", "b"]


@pytest.mark.shared_data
def test_word_limit_is_200_chars():
    """BERT's WordpieceTokenizer turns a word over 200 characters into [UNK]."""
    encoder = bert_encoder("bert-base-uncased.vocab.txt", True)
    unk = encoder.model.unk_id
    assert unk not in encoder.encode_ids("a" * 200)
    assert encoder.encode_ids("a" * 201) == [unk]


# ---------------------------------------------------------------- the literal algorithm
# BasicTokenizer as tokenization.py states it (notes/reference-behaviour.md §4), step by
# step on whole strings: the yardstick for text the goldens do not cover.


def _literal_bert_words(text: str, lowercase: bool) -> list[str]:
    import unicodedata as u

    def control(c):
        return c not in "\t\n\r" and u.category(c) in ("Cc", "Cf")

    def space(c):
        return c in " \t\n\r" or u.category(c) == "Zs"

    def punct(c):
        cp = ord(c)
        return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 \
            or u.category(c).startswith("P")

    from wordpieces.flavors.rules import BERT_CJK_RANGES, in_ranges

    cleaned = "".join(" " if space(c) else c for c in text
                      if ord(c) not in (0, 0xFFFD) and not control(c))
    spaced = "".join(f" {c} " if in_ranges(ord(c), BERT_CJK_RANGES) else c for c in cleaned)
    words = []
    for token in spaced.split():
        if lowercase:
            token = token.lower()
            token = "".join(c for c in u.normalize("NFD", token) if u.category(c) != "Mn")
        current = ""
        for c in token:
            if punct(c):
                words += [current, c] if current else [c]
                current = ""
            else:
                current += c
        if current:
            words.append(current)
    return " ".join(words).split()


TRICKY = "aAΣσ \t\x00\x1c\u00a0\u2028\u200b\u0301\U0001D165\U0001D16D\u0344.,中ﬁİ"


@settings(max_examples=400, deadline=None)
@given(text=st.text(st.characters(codec=None)) | st.text(alphabet=TRICKY, max_size=30),
       lowercase=st.booleans())
def test_words_equal_the_literal_algorithm(text, lowercase):
    """On any text, the words equal tokenization.py's BasicTokenizer spelled out literally."""
    assert tokens(text, lowercase=lowercase) == _literal_bert_words(text, lowercase)
