"""Pairs from ``encode_batch`` (lazy: ``LazyPairEncoding``) equal HF's, field for field.

Both backends, real lines of the shared corpora paired two by two, several pair
templates (``$B`` first too), with and without special tokens, every padding option;
pairs with an empty side, with a literal added token, with a character the native
path hands to Python, and batches mixing singles and pairs. Hypothesis draws pairs
over a small vocabulary. Every field is compared (``fields``: ids, tokens, offsets,
word ids, type ids, both masks, sequence ids, windows) and the alignment queries.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import built_on
from tests.hf_reference import fields, hf, hf_from_vocab, sample_lines
from tests.shared_data import shared_path
from wordpieces.encoding.lazy_encoding import LazyPairEncoding
from wordpieces.fast.word_encoder import COMPLEX
from wordpieces.pipeline.processors import BertProcessing
from wordpieces.tokenizer import Tokenizer

BACKENDS = ["native", "python"]
PAIR_TEMPLATES = {"bert": "[CLS] $A [SEP] $B:1 [SEP]:1", "b-first": "[CLS] $B:1 [SEP] $A",
                  "bare": "$A:0 $B:1"}
PADDINGS = {"none": None, "right": {"direction": "right"},
            "left-multiple": {"direction": "left", "pad_to_multiple_of": 8, "pad_type_id": 2},
            "fixed": {"length": 64, "pad_id": 3, "pad_token": "[SEP]"}}


on_backend = built_on


_cache: dict = {}


def twins(backend_name: str, pair_template: str = "bert"):
    """Ours (on that backend) and HF's tokenizer from the uncased BERT vocabulary."""
    key = (backend_name, pair_template)
    if key not in _cache:
        vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
        pair = PAIR_TEMPLATES[pair_template]
        ours = Tokenizer.from_vocab(str(vocab), flavor="huggingface",
                                    template="[CLS] $A [SEP]", pair_template=pair)
        _cache[key] = (on_backend(ours, backend_name), hf_from_vocab(vocab, pair=pair))
    ours, theirs = _cache[key]
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
    return ours, theirs


def pad_both(ours, theirs, padding: dict | None) -> None:
    if padding is not None:
        ours.enable_padding(**padding)
        theirs.enable_padding(**padding)


def line_pairs(corpus: str, n: int, seed: int) -> list[tuple[str, str]]:
    lines = sample_lines(corpus, 2 * n, seed=seed)
    return list(zip(lines[::2], lines[1::2], strict=False))


def assert_batches_equal(ours, theirs, items: list, add: bool = True) -> list:
    got = ours.encode_batch(items, add_special_tokens=add)
    # HF takes no (text, None) item: a text alone is what that item means
    want = theirs.encode_batch([i[0] if isinstance(i, tuple) and i[1] is None else i
                                for i in items], add_special_tokens=add)
    assert [fields(e) for e in got] == [fields(e) for e in want]
    return got


# ---------------------------------------------------------------- real text


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("pair_template", list(PAIR_TEMPLATES))
@pytest.mark.parametrize("padding", list(PADDINGS))
@pytest.mark.parametrize("add", [True, False])
def test_pairs_equal_hf(backend_name, pair_template, padding, add):
    """Pairs of real lines (English, Chinese, UDHR), lazy, equal HF's encodings."""
    ours, theirs = twins(backend_name, pair_template)
    pad_both(ours, theirs, PADDINGS[padding])
    items = (line_pairs("english", 40, 1) + line_pairs("chinese", 10, 2)
             + line_pairs("udhr", 20, 3))
    got = assert_batches_equal(ours, theirs, items, add)
    assert all(isinstance(e, LazyPairEncoding) for e in got)


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("padding", ["none", "left-multiple"])
def test_empty_sides_equal_hf(backend_name, padding):
    """A pair with an empty (or blank) side, or two, equals HF's."""
    ours, theirs = twins(backend_name)
    pad_both(ours, theirs, PADDINGS[padding])
    line = sample_lines("english", 1, seed=4)[0]
    items = [("", line), (line, ""), ("", ""), ("  ", line), (line, " \t ")]
    for add in (True, False):
        assert_batches_equal(ours, theirs, items, add)


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_mixed_batch_equals_hf(backend_name):
    """Singles, (text, None) and pairs in one padded batch equal HF's."""
    ours, theirs = twins(backend_name)
    pad_both(ours, theirs, {"direction": "left", "pad_to_multiple_of": 4})
    lines = sample_lines("english", 12, seed=6)
    items = [lines[0], (lines[1], lines[2]), (lines[3], None), lines[4],
             *zip(lines[5::2], lines[6::2], strict=False)]
    got = assert_batches_equal(ours, theirs, items)
    assert isinstance(got[1], LazyPairEncoding)


def complex_char(tok: Tokenizer) -> str:
    """A character the native path hands to the Python reference (class COMPLEX)."""
    reference = on_backend(Tokenizer.from_vocab(tok.get_vocab(), flavor="huggingface"),
                           "python")._seq.word_encoder
    return next(chr(cp) for cp in range(0x80, 0x10000)
                if reference.char_facts(cp)[0] == COMPLEX)


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_added_tokens_and_python_texts_equal_hf(backend_name):
    """Sides with a literal [MASK] (finished eagerly) or a complex character equal HF's."""
    ours, theirs = twins(backend_name)
    pad_both(ours, theirs, {"direction": "right"})
    a, b, c = sample_lines("english", 3, seed=8)
    odd = complex_char(ours)
    items = [(a + " [MASK] end", b), (a, "[MASK]" + b), (f"{a} x{odd}y", b), (c, odd),
             (f"{odd} [MASK]", f"{odd}{odd}"), (a, b)]
    for add in (True, False):
        got = assert_batches_equal(ours, theirs, items, add)
        assert isinstance(got[2], LazyPairEncoding) and isinstance(got[3], LazyPairEncoding)


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_alignment_queries_equal_hf(backend_name):
    """token_to_*, char_to_* and word_to_* of each sequence of a pair equal HF's."""
    ours, theirs = twins(backend_name)
    pad_both(ours, theirs, {"direction": "left", "pad_to_multiple_of": 16})
    items = line_pairs("english", 8, 9)
    for mine, hf_enc, (a, b) in zip(ours.encode_batch(items), theirs.encode_batch(items),
                                    items, strict=True):
        for i in range(len(hf_enc.ids) + 1):
            for query in ("token_to_sequence", "token_to_chars", "token_to_word"):
                assert getattr(mine, query)(i) == getattr(hf_enc, query)(i), (query, i)
        for seq, text in ((0, a), (1, b)):
            for pos in range(len(text) + 1):
                assert mine.char_to_token(pos, seq) == hf_enc.char_to_token(pos, seq)
                assert mine.char_to_word(pos, seq) == hf_enc.char_to_word(pos, seq)
            for word in range(len(text.split()) + 2):
                assert mine.word_to_tokens(word, seq) == hf_enc.word_to_tokens(word, seq)
                assert mine.word_to_chars(word, seq) == hf_enc.word_to_chars(word, seq)


def fits(theirs, pair: tuple[str, str]) -> bool:
    """Whether HF's truncation can fit this pair (only_first/only_second may refuse)."""
    try:
        theirs.encode(*pair)
    except Exception:  # noqa: BLE001 - HF's error for a pair its strategy cannot fit
        return False
    return True


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncated_pairs_equal_hf(backend_name, strategy, direction):
    """Pairs under truncation (windows with a stride where cut, made when first read)
    equal HF's; every pair is lazy."""
    ours, theirs = twins(backend_name)
    pad_both(ours, theirs, {"direction": "right", "pad_to_multiple_of": 8})
    for tok in (ours, theirs):
        tok.enable_truncation(64, stride=4, strategy=strategy, direction=direction)
    items = [pair for pair in line_pairs("english", 60, 14) if fits(theirs, pair)]
    got = assert_batches_equal(ours, theirs, items)
    whole = [e for e in got if not e.overflowing]
    assert 0 < len(whole) < len(got)  # some cut, some whole
    assert all(isinstance(e, LazyPairEncoding) for e in got)


@pytest.mark.shared_data
@pytest.mark.parametrize("backend_name", BACKENDS)
def test_bert_processing_pairs_equal_hf(backend_name):
    """BertProcessing's pair layout gives HF's BertProcessing pairs."""
    from tokenizers import processors
    ours, theirs = twins(backend_name)
    saved = ours.post_processor, theirs.post_processor
    ours.post_processor = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    theirs.post_processor = processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    try:
        pad_both(ours, theirs, {"direction": "right", "pad_type_id": 1})
        for add in (True, False):
            got = assert_batches_equal(ours, theirs, line_pairs("english", 20, 10), add)
            assert all(isinstance(e, LazyPairEncoding) for e in got)
    finally:
        ours.post_processor, theirs.post_processor = saved


@pytest.mark.shared_data
def test_backends_give_equal_pairs():
    """The native and the pure-Python backend give the same pair encodings."""
    native, _ = twins("native")
    python, _ = twins("python")
    items = line_pairs("udhr", 30, 12) + line_pairs("english", 30, 13)
    assert ([fields(e) for e in native.encode_batch(items)]
            == [fields(e) for e in python.encode_batch(items)])


# ---------------------------------------------------------------- drawn pairs

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "ab", "abc", "##a",
         "##b", "##c", "!", "."]
WORDS = ["a", "b", "c", "ab", "abc", "ba", "cab", "!", ".", " ", "  ", "x", "é", "aaaa",
         "[MASK]", "\u08d4"]
SMALL_TEMPLATES = {"bert": "[CLS] $A [SEP] $B:1 [SEP]:1",
                   "odd": "[MASK]:3 $B:1 [SEP] [SEP]:2 $A:0 [CLS]:1"}


def small_twins(backend_name: str, pair_template: str):
    key = ("small", backend_name, pair_template)
    if key not in _cache:
        from tokenizers import models, normalizers, pre_tokenizers, processors
        pair = SMALL_TEMPLATES[pair_template]
        ours = Tokenizer.from_vocab(VOCAB, flavor="huggingface", template="[CLS] $A [SEP]",
                                    pair_template=pair)
        theirs = hf.Tokenizer(models.WordPiece({t: i for i, t in enumerate(VOCAB)},
                                               unk_token="[UNK]"))
        theirs.normalizer = normalizers.BertNormalizer(lowercase=True)
        theirs.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        theirs.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair=pair,
            special_tokens=[(t, VOCAB.index(t)) for t in ("[CLS]", "[SEP]", "[MASK]")])
        theirs.add_special_tokens(VOCAB[:5])
        _cache[key] = (on_backend(ours, backend_name), theirs)
    return _cache[key]


texts = st.lists(st.sampled_from(WORDS), max_size=10).map("".join)
paddings = st.one_of(st.none(), st.fixed_dictionaries({
    "direction": st.sampled_from(["right", "left"]), "pad_id": st.integers(0, 3),
    "pad_type_id": st.integers(0, 2), "length": st.one_of(st.none(), st.integers(0, 25)),
    "pad_to_multiple_of": st.one_of(st.none(), st.integers(1, 8))}))
truncations = st.one_of(st.none(), st.fixed_dictionaries({
    "max_length": st.integers(5, 20), "stride": st.integers(0, 2),
    "strategy": st.sampled_from(["longest_first", "only_first", "only_second"]),
    "direction": st.sampled_from(["right", "left"])}))
later_pads = st.one_of(st.none(), st.fixed_dictionaries({
    "length": st.integers(0, 30), "direction": st.sampled_from(["right", "left"]),
    "pad_id": st.integers(0, 3), "pad_type_id": st.integers(0, 2),
    "pad_token": st.sampled_from(["[PAD]", "[SEP]"])}))


def outcome(tok, items: list, add: bool, later_pad: dict | None):
    """``fields`` of each encoding (padded again by ``later_pad``), or "error"."""
    try:
        encodings = tok.encode_batch(items, add_special_tokens=add)
    except BaseException as e:  # HF panics on bad strides (a BaseException); types differ
        if isinstance(e, KeyboardInterrupt):
            raise
        return "error"
    if later_pad is not None:
        for enc in encodings:
            enc.pad(**later_pad)
    return [fields(e) for e in encodings]


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("pair_template", list(SMALL_TEMPLATES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(st.one_of(texts, st.tuples(texts, texts)), min_size=1, max_size=6),
       padding=paddings, truncation=truncations, later_pad=later_pads, add=st.booleans())
def test_drawn_items_equal_hf(backend_name, pair_template, items, padding, truncation,
                              later_pad, add):
    """Drawn pairs and texts (added tokens, a Python-path character, spaces), truncated,
    padded by the tokenizer then again by Encoding.pad, equal HF's."""
    ours, theirs = small_twins(backend_name, pair_template)
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
        if truncation is not None:
            tok.enable_truncation(**truncation)
    pad_both(ours, theirs, padding)
    assert outcome(ours, items, add, later_pad) == outcome(theirs, items, add, later_pad)
