"""The ``huggingface`` flavor against a live HF ``tokenizers`` pipeline, line for line.

The reference is ``tokenizers.Tokenizer`` with ``BertNormalizer`` + ``BertPreTokenizer`` +
``WordPiece(max_input_chars_per_word=100)`` on the same vocab.txt, encoding without
special tokens; ids and character offsets into the original text must be identical.
Run with ``-s`` to see the identical/total table per corpus and vocabulary.
"""

from __future__ import annotations

import string
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference_corpora import CORPORA, sample_lines
from tests.shared_data import shared_path
from wordpieces.fast.word_encoder import WordEncoder
from wordpieces.flavors import tables
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
from wordpieces.vocab import Vocab

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import models, normalizers, pre_tokenizers  # noqa: E402

VOCABS = {  # name -> (file, lowercase) as the models were trained
    "uncased": ("bert-base-uncased.vocab.txt", True),
    "cased": ("bert-base-cased.vocab.txt", False),
    "multilingual_cased": ("bert-base-multilingual-cased.vocab.txt", False),
    "chinese": ("bert-base-chinese.vocab.txt", True),
}
RESULTS: dict[tuple[str, str], tuple[int, int]] = {}


def hf_pipeline(model, **normalizer_options):
    tok = tokenizers.Tokenizer(model)
    tok.normalizer = normalizers.BertNormalizer(**normalizer_options)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


def our_pipeline(vocab: Vocab, **normalizer_options) -> WordEncoder:
    return WordEncoder(BertNormalizer(flavor="huggingface", **normalizer_options),
                       BertPreTokenizer(flavor="huggingface"),
                       WordPiece(vocab, max_input_chars_per_word=100))


@cache
def encoders(vocab_name: str):
    file, lowercase = VOCABS[vocab_name]
    path = str(shared_path("vocab", file))
    hf = hf_pipeline(models.WordPiece.from_file(path, unk_token="[UNK]",
                                                max_input_chars_per_word=100),
                     lowercase=lowercase)
    return hf, our_pipeline(Vocab.from_file(path), lowercase=lowercase)


def differences(hf, ours: WordEncoder, lines: list[str]) -> list[str]:
    """Lines whose ids or offsets differ, by ``encode`` or by ``encode_ids``."""
    wrong = []
    for line, ref in zip(lines, hf.encode_batch(lines, add_special_tokens=False), strict=True):
        ids, offsets, _ = ours.encode(line)
        if ids != ref.ids or offsets != ref.offsets or ours.encode_ids(line) != ref.ids:
            wrong.append(line)
    return wrong


@pytest.fixture(scope="module", autouse=True)
def results_table():
    """Print identical/total lines per corpus and vocabulary after the module ran."""
    yield
    if RESULTS:
        print("\nhuggingface flavor vs tokenizers: identical lines / total")
        for (corpus, vocab), (same, total) in sorted(RESULTS.items()):
            print(f"  {corpus:18} {vocab:20} {same:5} / {total}")


@pytest.mark.shared_data
@pytest.mark.parametrize("vocab_name", VOCABS)
@pytest.mark.parametrize("corpus", CORPORA)
def test_corpus_ids_and_offsets_equal_hf(corpus, vocab_name):
    """Every sampled line gets HF's ids and offsets (encode and encode_ids)."""
    lines = sample_lines(corpus)
    wrong = differences(*encoders(vocab_name), lines)
    RESULTS[(corpus, vocab_name)] = (len(lines) - len(wrong), len(lines))
    assert not wrong, f"{len(wrong)}/{len(lines)} lines differ, e.g. {wrong[0]!r}"


@cache
def hf_word_splitter(lowercase: bool):
    """HF's normalizer + pre-tokenizer, giving words and their original offsets."""
    # WordLevel with an empty vocabulary makes each word one [UNK] token whose offsets
    # are the word's span in the original text.
    return hf_pipeline(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"), lowercase=lowercase)


def hf_words(text: str, lowercase: bool) -> list[tuple[str, tuple[int, int]]]:
    tok = hf_word_splitter(lowercase)
    words = [w for w, _ in tok.pre_tokenizer.pre_tokenize_str(tok.normalizer.normalize_str(text))]
    return list(zip(words, tok.encode(text, add_special_tokens=False).offsets, strict=True))


def our_words(text: str, lowercase: bool) -> list[tuple[str, tuple[int, int]]]:
    normalizer = BertNormalizer(flavor="huggingface", lowercase=lowercase)
    return BertPreTokenizer(flavor="huggingface").pre_tokenize(normalizer.normalize(text))


@pytest.mark.shared_data
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("corpus", ["english_gutenberg", "chinese", "udhr", "emoji"])
def test_corpus_words_and_offsets_equal_hf(corpus, lowercase):
    """Normalizer + pre-tokenizer, run stage by stage, give HF's words and offsets."""
    lines = sample_lines(corpus)[:1000]
    wrong = [line for line in lines if our_words(line, lowercase) != hf_words(line, lowercase)]
    assert not wrong, f"{len(wrong)}/{len(lines)} lines differ, e.g. {wrong[0]!r}"


# ---------------------------------------------------------------- generated text

LETTERS = string.ascii_letters + "\u00c0\u00e9\u00df\u0130\u0131\u03a3\u03c3\u03c2\u0410\u0436"
SPECIAL = (sorted(tables.hf_context_chars())
           + list(" \t\n\r\x0b\x0c\x85\xa0\u1680\u2028\u2029\u3000\u200b\ufeff\ufffd\x00")
           + list("\u0301\u0316\u093c\u0900\u0344\u0f73\u1e9e\u2e43\u166d\U000111c9\u061d")
           + [chr(cp) for cp in (0x378, 0xFFFF, 0x2065, 0xE000, 0xF0000, 0x0890, 0x1734,
                                 0x2B81F, 0x2B820, 0x2B91F, 0x2B920, 0xAC00, 0xD7A3)])
CHARS = st.one_of(
    st.characters(exclude_categories=("Cs",)),  # all of Unicode, unassigned included
    st.characters(min_codepoint=0x300, max_codepoint=0x36F),  # combining marks
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4E3F),  # CJK
    st.characters(min_codepoint=0xAC00, max_codepoint=0xAC3F),  # Hangul syllables
    st.sampled_from(SPECIAL),
    st.sampled_from(LETTERS),
)
TEXTS = st.lists(st.one_of(CHARS, st.text("a\u00e9", min_size=95, max_size=105)),
                 max_size=40).map("".join)


@cache
def char_vocab() -> tuple[str, ...]:
    """Every character our pools can normalize to, bare and with ``##``, plus a few runs.

    Words made of them tokenize character by character, so offsets inside words are
    exercised (with a real vocabulary most odd words are one ``[UNK]``).
    """
    pool = set(LETTERS) | set(SPECIAL) | {chr(c) for c in range(0x300, 0x370)}
    pool |= {chr(c) for c in range(0x4E00, 0x4E40)} | {chr(c) for c in range(0xAC00, 0xAC40)}
    chars = set()
    for ch in pool:
        for form in (ch, tables.hf_strip_accents(ch)):
            chars.update(form, tables.hf_lowercase(form))
    chars = sorted(c for c in chars if not c.isspace() and c not in "\x00\x85")
    runs = ["a" * n for n in range(2, 6)]
    return ("[UNK]", *chars, *runs, *("##" + t for t in chars + runs))


@cache
def generated_pair(options: tuple):
    tokens = char_vocab()
    hf = hf_pipeline(models.WordPiece({t: i for i, t in enumerate(tokens)}, unk_token="[UNK]",
                                      max_input_chars_per_word=100), **dict(options))
    return hf, our_pipeline(Vocab(tokens), **dict(options))


OPTIONS = [
    (("lowercase", True),),
    (("lowercase", False),),
    (("lowercase", False), ("strip_accents", True)),
    (("lowercase", True), ("strip_accents", False)),
    (("clean_text", False), ("handle_chinese_chars", False), ("lowercase", True)),
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o))
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_generated_text_equals_hf(options, text):
    """Text over all of Unicode gets HF's ids and offsets, under each option set."""
    hf, ours = generated_pair(options)
    ref = hf.encode(text, add_special_tokens=False)
    ids, offsets, _ = ours.encode(text)
    assert (ids, offsets) == (ref.ids, ref.offsets)
    assert ours.encode_ids(text) == ref.ids


@pytest.mark.shared_data
@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_generated_text_equals_hf_with_multilingual_vocab(text):
    """Text over all of Unicode gets HF's ids and offsets with mBERT's vocabulary."""
    hf, ours = encoders("multilingual_cased")
    ref = hf.encode(text, add_special_tokens=False)
    assert ours.encode(text)[:2] == (ref.ids, ref.offsets)


# ---------------------------------------------------------------- documented behaviour


def hf_and_ours(text: str, lowercase: bool = True):
    hf, ours = generated_pair((("lowercase", lowercase),))
    ref = hf.encode(text, add_special_tokens=False)
    return (ref.tokens, ref.offsets), ours.encode(text)


def tokens_of(ours_result) -> list[str]:
    vocab = char_vocab()
    return [vocab[i] for i in ours_result[0]]


@pytest.mark.shared_data
def test_unassigned_code_points_kept_as_unknown():
    """Unassigned U+0378 / U+FFFF / U+2065 survive cleaning: the word becomes [UNK]."""
    hf, ours = encoders("uncased")
    unk = hf.token_to_id("[UNK]")
    for ch in "\u0378\uffff\u2065":
        assert hf.encode(f"a{ch}b", add_special_tokens=False).ids == [unk]
        assert ours.encode_ids(f"a{ch}b") == [unk]


def test_private_use_deleted_gluing_neighbours():
    """Private-use U+E000 is deleted: 'a<U+E000>b' is the one word 'ab' spanning 0..3."""
    (ref_tokens, ref_offsets), ours = hf_and_ours("a\ue000b")
    assert ref_tokens == tokens_of(ours) == ["a", "##b"]
    assert ref_offsets == ours[1] == [(0, 1), (2, 3)]


def test_cjk_gap_before_0x2b920_not_spaced():
    """U+2B820..U+2B91F are not spaced out (HF's range starts at 0x2B920), U+2B920 is."""
    for cp, alone in ((0x2B820, False), (0x2B91F, False), (0x2B920, True)):
        words = our_words(f"a{chr(cp)}b", True)
        assert words == hf_words(f"a{chr(cp)}b", True)
        assert (len(words) == 3) is alone


def test_punctuation_table_predates_unicode_9():
    """U+2E43 (Unicode 9 punctuation) stays in its word; U+166D (old Po) is split off."""
    assert [w for w, _ in hf_words("a\u2e43b", False)] == ["a\u2e43b"]
    assert [w for w, _ in hf_words("a\u166db", False)] == ["a", "\u166d", "b"]
    assert our_words("a\u2e43b", False) == hf_words("a\u2e43b", False)
    assert our_words("a\u166db", False) == hf_words("a\u166db", False)


def test_no_final_sigma():
    """HF lowercases per character: a word-final capital sigma becomes σ, not ς."""
    assert our_words("ΟΔΟΣ", True) == hf_words("ΟΔΟΣ", True) == [("οδοσ", (0, 4))]


def test_marks_reordered_across_characters_move_offsets():
    """NFD sorts marks across characters; a kept mark takes a dropped neighbour's span."""
    text = "w\U0001e017\u0344\u0320\u0339x"  # U+1E017 is a mark HF sorts but keeps
    (ref_tokens, ref_offsets), ours = hf_and_ours(text)
    assert ref_tokens == tokens_of(ours) == ["w", "##\U0001e017", "##x"]
    assert ref_offsets == ours[1] == [(0, 1), (3, 4), (5, 6)]


def test_word_limit_is_100_characters():
    """A 101-character word is one [UNK] over its whole span; 100 characters is not."""
    for n, unknown in ((100, False), (101, True)):
        (ref_tokens, ref_offsets), ours = hf_and_ours("é" * n)
        assert (tokens_of(ours) == ["[UNK]"]) is unknown
        assert (ref_tokens, ref_offsets) == (tokens_of(ours), ours[1])
