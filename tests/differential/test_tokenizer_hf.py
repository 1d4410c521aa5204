"""Differential tests: Tokenizer (huggingface flavor) against a live HF tokenizers.Tokenizer
with the same settings, on real lines of the shared corpora, singles and pairs."""

from __future__ import annotations

import os
import random

import pytest

from tests.hf_reference import fields, hf_from_vocab, minilm_pair, mismatches, sample_lines
from tests.shared_data import shared_path
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.shared_data

# More lines for a thorough run: WORDPIECES_HF_LINES=3000 pytest tests/test_tokenizer_hf.py
LINES = int(os.environ.get("WORDPIECES_HF_LINES", "120"))
CORPORA = ("english", "portuguese", "chinese", "udhr")


def _from_vocab_pair(name: str, lowercase: bool):
    path = shared_path("vocab", name)
    ours = Tokenizer.from_vocab(path, flavor="huggingface", lowercase=lowercase)
    return ours, hf_from_vocab(path, lowercase=lowercase)


TOKENIZERS = {
    "minilm-json": minilm_pair,
    "mbert-cased-vocab": lambda: _from_vocab_pair("bert-base-multilingual-cased.vocab.txt", False),
    "chinese-vocab": lambda: _from_vocab_pair("bert-base-chinese.vocab.txt", True),
}

SETTINGS = {
    "plain": lambda t: (t.no_padding(), t.no_truncation()),
    "stride": lambda t: (t.no_padding(), t.enable_truncation(128, stride=16)),
    "left-only-first": lambda t: (
        t.enable_padding(direction="left", pad_to_multiple_of=8),
        t.enable_truncation(20, stride=3, strategy="only_first", direction="left")),
    "fixed-only-second": lambda t: (
        t.enable_padding(length=48, pad_id=3, pad_type_id=1, pad_token="[SEP]"),
        t.enable_truncation(40, stride=2, strategy="only_second")),
}

_cache: dict = {}


def pair_of(name: str):
    if name not in _cache:
        _cache[name] = TOKENIZERS[name]()
    return _cache[name]


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", TOKENIZERS)
def test_encode_matches_hf(name, setting, corpus):
    """Every field of every encoding (overflowing windows included) equals HF's."""
    ours, theirs = pair_of(name)
    SETTINGS[setting](ours)
    SETTINGS[setting](theirs)
    assert mismatches(ours, theirs, sample_lines(corpus, LINES, seed=hash(setting) % 97)) == []


@pytest.mark.parametrize("corpus", CORPORA)
def test_encode_batch_matches_hf(corpus):
    """encode_batch pads to the batch's longest as HF does, pairs included."""
    ours, theirs = pair_of("minilm-json")
    for tok in (ours, theirs):
        tok.enable_padding(pad_to_multiple_of=4)
        tok.enable_truncation(96, stride=10)
    lines = sample_lines(corpus, 60, seed=3)
    batch = lines[:30] + list(zip(lines[30:45], lines[45:], strict=True))
    assert ([fields(e) for e in ours.encode_batch(batch, num_threads=2)]
            == [fields(e) for e in theirs.encode_batch(batch)])


@pytest.mark.parametrize("corpus", CORPORA)
def test_encode_ids_matches_hf(corpus):
    """The ids-only fast paths give HF's ids (truncated and padded)."""
    ours, theirs = pair_of("mbert-cased-vocab")
    for tok in (ours, theirs):
        tok.enable_padding(length=None)
        tok.enable_truncation(50, strategy="longest_first")
    lines = sample_lines(corpus, LINES, seed=5)
    items = [(a, lines[i - 1]) if i % 4 == 0 else a for i, a in enumerate(lines)]
    assert ours.encode_batch_ids(items) == [e.ids for e in theirs.encode_batch(items)]
    assert [ours.encode_ids(a) for a in lines] == [theirs.encode(a).ids for a in lines]


@pytest.mark.parametrize("corpus", CORPORA)
def test_decode_matches_hf(corpus):
    """decode with and without special tokens gives HF's text."""
    ours, theirs = pair_of("minilm-json")
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
    for line in sample_lines(corpus, LINES, seed=7):
        ids = theirs.encode(line).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(ids, skip)


def _with_literal_specials(line: str, rng: random.Random) -> str:
    words = line.split(" ")
    for _ in range(3):
        special = rng.choice(["[MASK]", "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK][MASK]",
                              "[mask]", "[MASK"])
        glue = rng.choice(["", " "])
        words.insert(rng.randrange(len(words) + 1), glue + special + glue)
    return " ".join(words)


@pytest.mark.parametrize("name", ["minilm-json", "mbert-cased-vocab"])
def test_literal_special_tokens_match_hf(name):
    """Special tokens written in the text stay whole, with HF's offsets and word ids."""
    ours, theirs = pair_of(name)
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
    rng = random.Random(11)
    lines = [_with_literal_specials(line, rng) for line in sample_lines("english", 150)]
    assert mismatches(ours, theirs, lines) == []


def test_loaded_settings_match_hf():
    """A loaded tokenizer.json keeps its padding and truncation, as HF does."""
    ours, theirs = minilm_pair()
    assert ours.padding == theirs.padding and ours.truncation == theirs.truncation
    lines = sample_lines("english", 40, seed=13)
    assert mismatches(ours, theirs, lines) == []
