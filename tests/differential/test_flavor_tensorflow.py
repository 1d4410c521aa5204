"""The ``tensorflow`` flavor against TF Text's BertTokenizer(lower_case=True), line for line.

Always: the goldens in ``../shared/golden/tokenize/*.jsonl`` (field ``tf_bert_tokenizer``,
made by ``make_goldens.py`` with bert-base-uncased). Live against TF Text when
``tensorflow_text`` is importable: the shared corpora and generated text. Ids only: TF's
offsets are bytes. Run with ``-s`` to see the identical/total table.
"""

from __future__ import annotations

import importlib.util
import json
import os
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

pytestmark = pytest.mark.shared_data

GOLDENS = ["english_wikitext", "portuguese", "chinese", "emoji", "udhr_mix"]
RESULTS: dict[tuple[str, str], tuple[int, int]] = {}
HAVE_TF = importlib.util.find_spec("tensorflow_text") is not None
live = pytest.mark.skipif(not HAVE_TF, reason="tensorflow-text is not installed")


@cache
def ours() -> WordEncoder:
    vocab = Vocab.from_file(shared_path("vocab", "bert-base-uncased.vocab.txt"))
    return WordEncoder(BertNormalizer(flavor="tensorflow", lowercase=True),
                       BertPreTokenizer(flavor="tensorflow"),
                       WordPiece(vocab, max_input_bytes_per_word=100))


def differences(expected: list[list[int]], lines: list[str]) -> list[str]:
    """Lines whose ids differ, by ``encode`` or by ``encode_ids``."""
    encoder = ours()
    return [line for line, ids in zip(lines, expected, strict=True)
            if encoder.encode_ids(line) != ids or encoder.encode(line)[0] != ids]


@pytest.fixture(scope="module", autouse=True)
def results_table():
    """Print identical/total lines per corpus after the module ran."""
    yield
    if RESULTS:
        print("\ntensorflow flavor vs TF Text BertTokenizer (bert-base-uncased): identical / total")
        for (source, corpus), (same, total) in sorted(RESULTS.items()):
            print(f"  {source:7} {corpus:18} {same:5} / {total}")


@pytest.mark.parametrize("corpus", GOLDENS)
def test_golden_ids_line_for_line(corpus):
    """Ids equal TF BertTokenizer's (golden) on every golden line."""
    path = shared_path("golden", "tokenize", corpus + ".jsonl")
    records = [json.loads(line) for line in open(path, encoding="utf-8")]
    lines = [r["text"] for r in records]
    wrong = differences([r["tf_bert_tokenizer"] for r in records], lines)
    RESULTS[("golden", corpus)] = (len(lines) - len(wrong), len(lines))
    assert not wrong, f"{len(wrong)}/{len(lines)} lines differ, e.g. {wrong[0]!r}"


# ---------------------------------------------------------------- live TF Text


@cache
def tf_tokenizer():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import tensorflow_text as text

    path = str(shared_path("vocab", "bert-base-uncased.vocab.txt"))
    bert = text.BertTokenizer(path, lower_case=True, token_out_type=tf.int64)

    def tokenize(lines: list[str]) -> list[list[int]]:
        ragged = bert.tokenize(tf.constant([line.encode("utf-8") for line in lines]))
        return ragged.merge_dims(-2, -1).to_list()

    return tokenize


@pytest.mark.tensorflow
@live
@pytest.mark.parametrize("corpus", CORPORA)
def test_live_corpus_ids_equal_tf(corpus):
    """Every sampled corpus line gets the ids TF Text gives it now."""
    lines = sample_lines(corpus)
    wrong = differences(tf_tokenizer()(lines), lines)
    RESULTS[("live", corpus)] = (len(lines) - len(wrong), len(lines))
    assert not wrong, f"{len(wrong)}/{len(lines)} lines differ, e.g. {wrong[0]!r}"


SPECIAL = (sorted(tables.tf_context_chars())
           + list(" \t\n\r\x0b\x0c\x85\xa0\u1680\u2028\u2029\u3000\u200b\u00ad\ufeff\x00\x01")
           + list("\u0301\u0316\u0345\u037a\u0130\u00df\ufb01\uff21\u2460\u03a3\U0001d400")
           + [chr(cp) for cp in (0x378, 0xFFFF, 0xE000, 0x13439, 0x2B81F, 0x2B820, 0xAC00)])
TEXTS = st.lists(st.one_of(
    st.characters(exclude_categories=("Cs",)),  # all of Unicode, unassigned included
    st.characters(min_codepoint=0x300, max_codepoint=0x36F),  # combining marks
    st.characters(min_codepoint=0xFF00, max_codepoint=0xFFEF),  # full- and half-width
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4E3F),  # CJK
    st.sampled_from(SPECIAL),
    st.sampled_from("abcdefghij\u00e9\u0436"),
    st.text("a\u00e9\u0436", min_size=30, max_size=60),  # near the 100-byte word limit
), max_size=40).map("".join)


@pytest.mark.tensorflow
@live
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_live_generated_text_equals_tf(text):
    """Text over all of Unicode gets TF Text's ids."""
    (expected,) = tf_tokenizer()([text])
    assert ours().encode_ids(text) == expected
    assert ours().encode(text)[0] == expected


# ---------------------------------------------------------------- documented behaviour


def ids(text: str) -> list[int]:
    return ours().encode_ids(text)


def vocab_id(token: str) -> int:
    return ours().model.vocab[token]


def test_ogham_and_line_separators_become_unknown():
    """U+1680, U+2028, U+2029 are word characters with no piece: '[UNK]'."""
    for ch in "\u1680\u2028\u2029":
        assert ids(ch) == [vocab_id("[UNK]")]


def test_controls_become_spaces():
    """A control between letters splits the word (BERT and HF would delete it)."""
    assert ids("a\x01b") == ids("a b") == [vocab_id("a"), vocab_id("b")]


def test_lower_case_folds_compatibility_forms():
    """NFKC_Casefold: full-width 'ＡＢＣ' -> 'abc', 'ß' -> 'ss' as in 'strasse'."""
    assert ids("ＡＢＣ") == ids("abc")
    assert ids("straße") == ids("strasse")


def test_word_limit_is_100_utf8_bytes():
    """A word of 50 two-byte letters is tokenized; 51 of them (102 bytes) is '[UNK]'."""
    assert ids("ж" * 50) != [vocab_id("[UNK]")]
    assert ids("ж" * 51) == [vocab_id("[UNK]")]
