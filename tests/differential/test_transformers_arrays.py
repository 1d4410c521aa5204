"""``tok(..., return_tensors="np")`` gives transformers' ``BertTokenizerFast`` arrays.

On the native backend these arrays come straight from the C columns (``batches``); the
reference is transformers itself, on real lines of the shared corpora (English,
Portuguese, Chinese and the UDHR's scripts), singly and as pairs, for the call users make
(``padding=True, truncation=True, max_length=128``) and its variants: fixed length, left
sides, pad_to_multiple_of, each truncation strategy, offsets and special-token masks,
overflow mapping, and torch tensors.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.hf_reference import sample_lines
from tests.transformers_reference import bert_uncased_pair, quiet
from wordpieces.errors import TokenizeError
from wordpieces.fast.backend import backend

pytestmark = pytest.mark.shared_data

CALLS = [
    dict(padding=True, truncation=True, max_length=128),
    dict(padding="max_length", max_length=64, truncation=True, padding_side="left",
         return_offsets_mapping=True, return_special_tokens_mask=True),
    dict(padding=True, truncation="longest_first", max_length=24, pad_to_multiple_of=8,
         return_offsets_mapping=True),
    dict(padding=True, truncation="only_first", max_length=40),  # some pair cannot fit
    dict(padding=True, truncation="only_first", max_length=64),  # pairs: short seconds
    dict(padding=True, truncation="only_second", max_length=64),  # pairs: short firsts
    dict(padding=True, return_overflowing_tokens=True, add_special_tokens=False),
]


@pytest.fixture(scope="module")
def bert_uncased(tmp_path_factory):
    """(ours, theirs) from bert-base-uncased's vocab.txt (huggingface flavor)."""
    return bert_uncased_pair(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="module", params=["english", "portuguese", "chinese", "udhr"])
def corpus_lines(request):
    """200 real lines of one corpus (long ones are cut by truncation, as in training)."""
    return sample_lines(request.param, 200, seed=23)


def _check_same(got, expected) -> None:
    assert list(got) == list(expected)
    for key in expected:
        assert got[key].dtype == expected[key].dtype == np.int64, key
        assert got[key].shape == expected[key].shape, key
        assert np.array_equal(got[key], expected[key]), key


def _from_columns(batch) -> bool:
    """Whether ``batch`` was made from the native columns (rows built only when asked)."""
    return callable(batch._rows)


@pytest.mark.parametrize("shape", ["batch", "pairs"])
@pytest.mark.parametrize("options", CALLS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_np_arrays_match_transformers(bert_uncased, corpus_lines, shape, options):
    """Every array (keys, int64 dtype, shape, values) equals BertTokenizerFast's."""
    if "only_second" in options.values() and shape == "batch":
        pytest.skip("only_second needs pairs")
    ours, theirs = bert_uncased
    texts = corpus_lines[:100]
    pairs = corpus_lines[100:] if shape == "pairs" else None
    if options.get("max_length") == 64 and pairs is not None:  # the untouched one fits
        if options["truncation"] == "only_first":
            pairs = [p[:20] for p in pairs]
        else:
            texts = [t[:20] for t in texts]
    try:
        with quiet():
            expected = theirs(texts, pairs, return_tensors="np", **options)
    except Exception as e:  # noqa: BLE001 - a pair that only_* truncation cannot fit
        assert "Truncation error" in str(e), e
        with pytest.raises(TokenizeError, match="cannot fit"):
            ours(texts, pairs, return_tensors="np", **options)
        return
    got = ours(texts, pairs, return_tensors="np", **options)
    _check_same(got, expected)
    assert _from_columns(got) == (backend() == "native")


@pytest.mark.parametrize("shape", ["batch", "pairs"])
def test_np_arrays_truncated_on_the_left(bert_uncased, corpus_lines, shape):
    """truncation_side="left" (the tokenizer attribute, which transformers reads) too."""
    ours, theirs = bert_uncased
    texts = corpus_lines[:100]
    pairs = corpus_lines[100:] if shape == "pairs" else None
    options = dict(padding=True, truncation=True, max_length=24, return_tensors="np",
                   return_offsets_mapping=True, return_special_tokens_mask=True)
    try:
        ours.truncation_side = theirs.truncation_side = "left"
        with quiet():
            expected = theirs(texts, pairs, **options)
        got = ours(texts, pairs, **options)
    finally:
        ours.truncation_side = theirs.truncation_side = "right"
    _check_same(got, expected)


def test_pt_tensors_share_the_arrays(bert_uncased, corpus_lines):
    """return_tensors="pt": transformers' int64 tensors, made from the arrays without a copy."""
    torch = pytest.importorskip("torch", reason="return_tensors='pt' needs torch")
    ours, theirs = bert_uncased
    options = dict(padding=True, truncation=True, max_length=128, return_tensors="pt")
    with quiet():
        expected = theirs(corpus_lines[:50], **options)
    got = ours(corpus_lines[:50], **options)
    assert list(got) == list(expected)
    for key in expected:
        assert got[key].dtype == torch.int64 and torch.equal(got[key], expected[key]), key
    if backend() == "native":
        ids = got["input_ids"]
        assert ids.numpy().base is not None  # a view of the C column, not a copy
