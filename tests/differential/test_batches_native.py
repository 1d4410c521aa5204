"""Whole batches finished in C (``batches``, ``core/wp_finish.c``) equal the Python reference.

The reference is the same tokenizer on the pure-Python backend, whose batches go through
``encode.finishing.Finisher`` text by text. Hypothesis draws the batches (texts, pairs,
empty texts, literal added tokens) and every option: truncation strategy, side, stride
and length, padding side, length and multiple, pad ids, ``add_special_tokens``, and three
post-processors (BERT's template, none, a pair template, an odd one whose tokenizer
also has a normalized added token). Errors must match too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import built_on
from wordpieces.fast.backend import backend
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}")

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c", "ab", "abc", "##a",
         "##b", "##c", "!", "."]
# "[MASK]" written in a text sends its batch to the reference path (added tokens)
WORDS = ["a", "b", "c", "ab", "abc", "ba", "cab", "!", ".", " ", "  ", "x", "é", "aaaa"]
WORDS_ADDED = WORDS + ["[MASK]"]
TEMPLATES = {"bert": {}, "none": {"template": None},
             "pair": {"template": "[CLS] $A [SEP]", "pair_template": "[CLS] $B:1 [SEP]:1 $A"},
             "odd": {"template": "[CLS] [CLS] $A:2 [SEP]:1",
                     "pair_template": "[MASK]:3 $B:1 [SEP] $A:0 [SEP]:2"}}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _build(template: str, python: bool) -> Tokenizer:
    tok = Tokenizer.from_vocab(VOCAB, flavor="huggingface", **TEMPLATES[template])
    if template == "odd":  # a normalized added token: every batch takes the reference path
        tok.add_tokens(["cab"])
    return built_on(tok, "python" if python else "native")


TWINS = {name: (_build(name, False), _build(name, True)) for name in TEMPLATES}

texts = st.one_of(st.lists(st.sampled_from(WORDS), max_size=12).map("".join),
                  st.lists(st.sampled_from(WORDS_ADDED), max_size=6).map("".join))
items = st.lists(st.one_of(texts, st.tuples(texts, st.one_of(st.none(), texts))), max_size=8)
truncations = st.one_of(st.none(), st.fixed_dictionaries({
    "max_length": st.integers(0, 20), "stride": st.integers(0, 4),
    "strategy": st.sampled_from(["longest_first", "only_first", "only_second"]),
    "direction": st.sampled_from(["right", "left"])}))
paddings = st.one_of(st.none(), st.fixed_dictionaries({
    "direction": st.sampled_from(["right", "left"]), "pad_id": st.integers(0, 3),
    "pad_type_id": st.integers(0, 2), "length": st.one_of(st.none(), st.integers(0, 25)),
    "pad_to_multiple_of": st.one_of(st.none(), st.integers(1, 8))}))


def _outcome(call):
    try:
        return call()
    except (ValueError, TypeError, Exception) as e:  # the same error on both sides
        return type(e).__name__, str(e)


def _configure(tok: Tokenizer, truncation: dict | None, padding: dict | None) -> None:
    tok.no_truncation()
    tok.no_padding()
    if truncation is not None:
        tok.enable_truncation(**truncation)
    if padding is not None:
        tok.enable_padding(**padding)


@pytest.mark.parametrize("template", list(TEMPLATES))
@SETTINGS
@given(batch=items, truncation=truncations, padding=paddings, add=st.booleans())
def test_encode_batch_ids_matches_reference(template, batch, truncation, padding, add):
    """encode_batch_ids: the C finish gives the reference's ids, or its error."""
    native, python = TWINS[template]
    results = []
    for tok in (native, python):
        try:
            _configure(tok, truncation, padding)
        except ValueError as e:  # enable_truncation refuses the stride: both do
            results.append(("config", str(e)))
            continue
        results.append(_outcome(lambda t=tok: t.encode_batch_ids(batch,
                                                                   add_special_tokens=add)))
    assert results[0] == results[1]


def _call_options(draw_truncation, draw_padding, flags) -> dict:
    options: dict = {"return_tensors": "np", "add_special_tokens": flags[0],
                     "return_offsets_mapping": flags[1],
                     "return_special_tokens_mask": flags[2],
                     "return_overflowing_tokens": flags[3] and draw_truncation is None}
    if draw_truncation is not None:
        options.update(truncation=draw_truncation["strategy"],
                       max_length=draw_truncation["max_length"],
                       truncation_side=draw_truncation["direction"])
    if draw_padding is not None:
        fixed = draw_padding["length"] is not None and draw_truncation is None
        options.update(padding="max_length" if fixed else True,
                       padding_side=draw_padding["direction"],
                       pad_to_multiple_of=draw_padding["pad_to_multiple_of"])
        if fixed:
            options["max_length"] = draw_padding["length"]
    return options


def _plain(batch) -> dict:
    return {key: (value.dtype.name, value.shape, value.tolist()) for key, value in batch.items()}


@pytest.mark.parametrize("template", list(TEMPLATES))
@SETTINGS
@given(batch=st.lists(texts, max_size=8), pairs=st.one_of(st.none(), st.lists(texts)),
       truncation=truncations, padding=paddings, flags=st.tuples(*[st.booleans()] * 4))
def test_call_arrays_match_reference(template, batch, pairs, truncation, padding, flags):
    """tok(..., return_tensors="np"): the arrays from C equal the reference's, or its error."""
    pairs = None if pairs is None else (pairs + [""] * len(batch))[:len(batch)]
    options = _call_options(truncation, padding, flags)
    results = [_outcome(lambda t=tok: _plain(t(batch, pairs, **options)))
               for tok in TWINS[template]]
    assert results[0] == results[1]


def test_call_arrays_keep_rows_for_queries():
    """The arrays come with their Encodings on demand: tokens() and word_ids() still work."""
    native, python = TWINS["bert"]
    got = native(["ab c", "abc!"], padding=True, return_tensors="np")
    expected = python(["ab c", "abc!"], padding=True, return_tensors="np")
    assert isinstance(got["input_ids"], np.ndarray)
    assert [got.tokens(i) for i in range(2)] == [expected.tokens(i) for i in range(2)]
    assert got.word_ids(1) == expected.word_ids(1)



def test_a_processor_changed_in_place_is_probed_again():
    """What the processor adds is remembered, but a change made in place is seen."""
    from wordpieces.pipeline.processors import parse_template
    native, python = _build("bert", False), _build("bert", True)
    for tok in (native, python):
        assert tok.encode_batch_ids(["ab c"]) == [[2, 8, 7, 3]]
        tok.post_processor.single = parse_template("[SEP] $A [CLS]")
    assert native.encode_batch_ids(["ab c"]) == python.encode_batch_ids(["ab c"]) \
        == [[3, 8, 7, 2]]


def test_call_arrays_in_reused_memory_match_reference():
    """Columns written into a block a previous batch filled: every value is rewritten."""
    native, python = TWINS["bert"]
    long_rows = ["abc ab " * 40] * 3000  # ~80 tokens a row: a pooled block of stale ids
    short_rows = (["a", "ab c", ""] * 1200)[:3000]
    native(long_rows, padding=True, return_tensors="np")  # dropped: its blocks are free
    options = {"padding": True, "return_tensors": "np", "return_special_tokens_mask": True}
    got, expected = native(short_rows, **options), python(short_rows, **options)
    assert _plain(got) == _plain(expected)
    assert got["input_ids"].base is not None  # the pool's memory, not a fresh array
