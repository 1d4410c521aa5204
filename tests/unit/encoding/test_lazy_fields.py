"""The C lazy fields (Row.lazy_field) build exactly the lists of the Python properties.

``encode.encodings`` replaces LazyEncoding's Python field properties by C descriptors
when the native extension is built (``lazy_encoding.use_fields``); the Python ones stay
in ``PYTHON_FIELDS`` as the reference. Every field, on native Rows and on lists, for one
sequence and for pairs, padded both ways, equals the reference; writes, deletes and
misuse behave as a property's; an encoding kept unread after its batch still reads its
own tokens after later batches.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hf_reference import fields, hf_from_vocab, sample_lines
from tests.shared_data import shared_path
from wordpieces.encode.encodings import plan_layouts
from wordpieces.encoding.lazy_encoding import (
    FIELDS,
    PYTHON_FIELDS,
    LazyEncoding,
    LazyPairEncoding,
    ListTokens,
)
from wordpieces.fast.backend import backend, make_word_encoder
from wordpieces.pipeline.processors import BertProcessing, TemplateProcessing
from wordpieces.tokenizer import Tokenizer

needs_native = pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}")
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##a", "##b", "!"]
PROCESSORS = [BertProcessing(("[SEP]", 3), ("[CLS]", 2)),
              TemplateProcessing(single="$A:1 [SEP]:2", pair="$B:1 [SEP] $A:2 [CLS]:3",
                                 special_tokens=[("[CLS]", 2), ("[SEP]", 3)])]


def native_rows(texts: list[str]) -> list:
    tok = Tokenizer.from_vocab(VOCAB, flavor="huggingface")
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    return encoder.encode_batch_raw(texts, 1)


def as_lists(row) -> ListTokens:
    """The same raw tokens as Python lists (the C fields then call their methods)."""
    return ListTokens(row.ids(), row.offsets(), row.word_ids())


def reference(enc: LazyEncoding) -> dict:
    """Every list as the Python properties build it (on a fresh twin, not on ``enc``)."""
    cls = type(enc) if type(enc) in (LazyEncoding, LazyPairEncoding) else LazyEncoding
    return {name: PYTHON_FIELDS[(cls, name)].fget(enc) for name in FIELDS}


def read(enc: LazyEncoding) -> dict:
    return {name: getattr(enc, name) for name in FIELDS}


TEXTS = st.lists(st.text("ab! ", max_size=12), min_size=2, max_size=2)
PADS = st.sampled_from([None, ("right", 3), ("left", 4)])


def padded(enc: LazyEncoding, pad) -> LazyEncoding:
    if pad is not None:
        enc.pad(len(enc) + pad[1], direction=pad[0], pad_id=0, pad_type_id=5, pad_token="[PAD]")
    return enc


@needs_native
def test_the_engine_installs_the_c_fields():
    """With the extension built, every lazy list is a C LazyField, the reference kept."""
    for cls in (LazyEncoding, LazyPairEncoding):
        for name in FIELDS:
            assert type(cls.__dict__[name]).__name__ == "LazyField"
            assert isinstance(PYTHON_FIELDS[(cls, name)], property)


@needs_native
@settings(max_examples=80, deadline=None)
@given(texts=TEXTS, processor=st.sampled_from(PROCESSORS), pad=PADS, lists=st.booleans())
def test_single_fields_equal_the_python_properties(texts, processor, pad, lists):
    """One sequence: each C-built list equals the Python property's, Rows or lists."""
    single = plan_layouts(processor.plan(True), VOCAB)[0]
    for row in native_rows(texts):
        raw = as_lists(row) if lists else row
        enc = padded(LazyEncoding(raw, single), pad)
        twin = padded(LazyEncoding(raw, single), pad)
        assert read(enc) == reference(twin)
        assert len(enc) == len(enc.ids) and not enc.fresh


@needs_native
@settings(max_examples=80, deadline=None)
@given(texts=TEXTS, processor=st.sampled_from(PROCESSORS), pad=PADS, lists=st.booleans())
def test_pair_fields_equal_the_python_properties(texts, processor, pad, lists):
    """A pair: each C-built list (both rows in one pass) equals the Python property's."""
    pair = plan_layouts(processor.plan(True), VOCAB)[1]
    first, second = native_rows(texts)
    if lists:
        first, second = as_lists(first), as_lists(second)
    enc = padded(LazyPairEncoding(first, second, pair), pad)
    twin = padded(LazyPairEncoding(first, second, pair), pad)
    assert read(enc) == reference(twin)


@needs_native
def test_writes_reads_and_misuse_behave_as_properties():
    """Set then read gives the value set; fields stay independent; del and a foreign
    object are refused as a property's would be; pickling gives a plain Encoding."""
    single = plan_layouts(PROCESSORS[0].plan(True), VOCAB)[0]
    (row,) = native_rows(["ab a!"])
    enc = LazyEncoding(row, single)
    enc.ids = [9, 9]
    assert enc.ids == [9, 9] and not enc.fresh
    assert enc.tokens == ["[CLS]", "ab", "a", "!", "[SEP]"]  # not rebuilt from the new ids
    assert enc.ids is enc.ids  # built (or set) once, then kept
    with pytest.raises(AttributeError, match="deleter"):
        del enc.offsets
    with pytest.raises(TypeError, match="doesn't apply"):
        LazyEncoding.__dict__["ids"].__get__(object(), object)
    assert LazyEncoding.__dict__["ids"].__get__(None, LazyEncoding) is LazyEncoding.__dict__["ids"]
    again = pickle.loads(pickle.dumps(enc))
    assert type(again).__name__ == "Encoding" and again.ids == [9, 9]


@pytest.mark.shared_data
def test_unread_encodings_survive_later_batches():
    """An encoding kept unread after its batch reads its own tokens after other batches
    (no view over memory a later batch reuses), equal to HF."""
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    ours = Tokenizer.from_vocab(str(vocab), flavor="huggingface")
    theirs = hf_from_vocab(vocab)
    lines = sample_lines("english", 60, seed=11)
    kept = ours.encode_batch(lines[:30], num_threads=1)
    for _ in range(3):
        for enc in ours.encode_batch(lines[30:][::-1] * 4, num_threads=1):
            assert enc.ids
    expected = theirs.encode_batch(lines[:30])
    assert [fields(e) for e in kept] == [fields(e) for e in expected]
