"""A batch's lazy encodings made in one C call (Row.lazy_encodings) are the Python ones.

``encode.sequences.make_lazy`` makes a batch's ``LazyEncoding``s with the native
``Row.lazy_encodings`` when the extension is built, else with
``lazy_encoding.lazy_encodings``, its reference. Checked here: both give the same objects
(Rows or Python raw tokens), misuse is refused, ids of any size read back (the C fields
keep one int per id), encodings of one batch in different layouts each read their own,
the lists built from Rows are untracked by the cyclic collector, and ``encode_batch``
on corpus lines (pairs, truncation with overflowing windows, padding) equals HF live.
"""

from __future__ import annotations

import pytest

from tests.hf_reference import fields, hf_from_vocab, sample_lines
from tests.shared_data import shared_path
from wordpieces.encode.encodings import plan_layouts
from wordpieces.encoding.encoding import Encoding
from wordpieces.encoding.lazy_encoding import (
    FIELDS,
    PYTHON_FIELDS,
    Layout,
    LazyEncoding,
    ListTokens,
    lazy_encodings,
)
from wordpieces.fast.backend import ColumnTokens, _core, backend, make_word_encoder
from wordpieces.pipeline.processors import BertProcessing
from wordpieces.tokenizer import Tokenizer

needs_native = pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}")
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##a", "##b", "!"]
LAYOUT = plan_layouts(BertProcessing(("[SEP]", 3), ("[CLS]", 2)).plan(True), VOCAB)[0]
TEXTS = ["ab a!", "", "b ab ##a", "a" * 30, "!!"]


def native_rows(texts: list[str]) -> list:
    tok = Tokenizer.from_vocab(VOCAB, flavor="huggingface")
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    return encoder.encode_batch_raw(texts, 1)


def reference(enc: LazyEncoding) -> dict:
    """Every list as the Python properties build it (reading does not change ``enc``)."""
    return {name: PYTHON_FIELDS[(LazyEncoding, name)].fget(enc) for name in FIELDS}


def read(enc: LazyEncoding) -> dict:
    return {name: getattr(enc, name) for name in FIELDS}


@needs_native
@pytest.mark.parametrize("lists", [False, True])
def test_bulk_encodings_equal_the_python_ones(lists):
    """Row.lazy_encodings gives, per raw tokens, the encoding LazyEncoding(raw, layout) is:
    same type, fresh, same raw tokens and layout, same lists."""
    raws = native_rows(TEXTS)
    if lists:
        raws = [ListTokens(r.ids(), r.offsets(), r.word_ids()) for r in raws]
    made = ColumnTokens.lazy_encodings(LazyEncoding, raws, LAYOUT)
    want = lazy_encodings(raws, LAYOUT)
    assert type(made) is list and len(made) == len(want) == len(TEXTS)
    for enc, twin, raw in zip(made, want, raws, strict=True):
        assert type(enc) is LazyEncoding and enc.fresh
        assert enc._raw is raw and enc._layout is LAYOUT
        assert len(enc) == len(twin)
        assert reference(enc) == reference(twin)
        assert read(enc) == reference(twin) and not enc.fresh
        assert enc == twin and isinstance(enc, Encoding)


@needs_native
def test_bulk_encodings_of_nothing():
    assert ColumnTokens.lazy_encodings(LazyEncoding, [], LAYOUT) == []


@needs_native
@pytest.mark.parametrize("args", [(), (LazyEncoding, []), (LazyEncoding, (), LAYOUT),
                                  ("LazyEncoding", [], LAYOUT), (Encoding, [None], LAYOUT),
                                  (object, [None], LAYOUT)])
def test_bulk_misuse_is_refused(args):
    """Wrong arguments (a TypeError), or a class without LazyEncoding's slots (that, or an
    AttributeError naming the slot): nothing is made."""
    with pytest.raises((TypeError, AttributeError)):
        ColumnTokens.lazy_encodings(*args)


@needs_native
def test_ids_of_any_size_read_back():
    """Ids past CPython's small ints, wp_batch.c's cache and the C fields' table (2^18)
    read back as themselves, as do their tokens; every read gives equal lists."""
    ids = [3, 255, 257, 8191, 8192, 99_999, 2**18 - 1, 2**18, 2**20]
    names = [f"t{i}" for i in range(max(ids) + 1)]
    n = len(ids)
    column = bytearray(b"".join(i.to_bytes(4, "little", signed=True) for i in ids))
    offsets = bytearray(b"".join(v.to_bytes(8, "little") for k in range(n) for v in (k, k + 1)))
    words = bytearray(b"".join(k.to_bytes(4, "little") for k in range(n)))
    splits = bytearray(b"".join(v.to_bytes(8, "little") for v in (0, 4, n)))
    rows = _core.rows(column, offsets, words, splits)
    layout = Layout(names, prefix=((2, "t2", 0, 1),), sequence_index=0)
    for _ in range(2):  # the second time, from the ints kept
        first, second = ColumnTokens.lazy_encodings(LazyEncoding, rows, layout)
        assert first.ids + second.ids[1:] == [2, *ids]
        assert second.tokens == ["t2", *(f"t{i}" for i in ids[4:])]
        assert second.word_ids == [None, 4, 5, 6, 7, 8]
        assert second.offsets == [(0, 0), *((k, k + 1) for k in range(4, n))]


@needs_native
def test_encodings_in_different_layouts_read_their_own():
    """Fields read alternately from encodings in two layouts (the C fields remember the
    last layout read) each give their own layout's lists."""
    other = Layout(VOCAB, type_id=1, suffix=((3, "[SEP]", 1, 1),), sequence_index=0)
    rows = native_rows(TEXTS)
    encodings = [LazyEncoding(row, LAYOUT if k % 2 else other) for k, row in enumerate(rows)]
    twins = [LazyEncoding(row, LAYOUT if k % 2 else other) for k, row in enumerate(rows)]
    for name in FIELDS:
        for enc, twin in zip(encodings, twins, strict=True):
            assert getattr(enc, name) == reference(twin)[name]


@needs_native
@pytest.mark.parametrize("pad", [None, ("right", 3), ("left", 2)])
def test_lists_from_rows_are_left_out_of_the_cyclic_collector(pad):
    """Every list a C field builds from Rows holds atomic values only, so it is untracked
    (as wp_finish_batch.c's rows); it is still a plain list, equal to the reference, that
    keeps what is appended to it."""
    import gc

    for enc, twin in zip(*(ColumnTokens.lazy_encodings(LazyEncoding, native_rows(TEXTS), LAYOUT)
                           for _ in range(2)), strict=True):
        for e in (enc, twin):
            if pad is not None:
                e.pad(len(e) + pad[1], direction=pad[0], pad_id=0, pad_token="[PAD]")
        want = reference(twin)
        for name in FIELDS:
            got = getattr(enc, name)
            assert type(got) is list and got == want[name]
            assert not gc.is_tracked(got), name
        kept = object()
        enc.ids.append(kept)
        assert enc.ids[-1] is kept


# ---------------------------------------------------------------- against HF, real text


@pytest.fixture(scope="module")
def pair_of_tokenizers():
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    return Tokenizer.from_vocab(str(vocab), flavor="huggingface"), hf_from_vocab(vocab)


SETTINGS = [
    ("plain", {}, {}),
    ("padded", {"padding": {"direction": "left", "pad_id": 0, "pad_token": "[PAD]"}}, {}),
    ("cut", {"truncation": {"max_length": 9, "stride": 2}}, {}),
    ("cut-padded", {"truncation": {"max_length": 9, "stride": 2},
                    "padding": {"pad_id": 0, "pad_token": "[PAD]", "pad_to_multiple_of": 4}},
     {}),
    ("no-specials", {}, {"add_special_tokens": False}),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("name,setup,call", SETTINGS, ids=[s[0] for s in SETTINGS])
@pytest.mark.parametrize("pairs", [False, True])
def test_encode_batch_equals_hf(pair_of_tokenizers, name, setup, call, pairs):
    """encode_batch on corpus lines (or pairs of them), as set up, equals HF's
    encode_batch: every field, overflowing windows included, read in any order."""
    lines = sample_lines("english", 40, seed=20)
    items = list(zip(lines[::2], lines[1::2], strict=True)) if pairs else lines
    ours, theirs = pair_of_tokenizers
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
        if "padding" in setup:
            tok.enable_padding(**setup["padding"])
        if "truncation" in setup:  # a pair's windows multiply: cut pairs longer
            tok.enable_truncation(**{**setup["truncation"], **({"max_length": 40} if pairs
                                                                 else {})})
    try:
        got = ours.encode_batch(items, num_threads=1, **call)
        want = theirs.encode_batch(items, **call)
    finally:
        for tok in (ours, theirs):
            tok.no_padding()
            tok.no_truncation()
    assert [fields(e) for e in got[::-1]][::-1] == [fields(e) for e in want]
    if "truncation" in setup:
        assert any(e.overflowing for e in want)
