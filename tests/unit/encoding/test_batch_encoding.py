"""Calling a Tokenizer like a transformers tokenizer: same dict as transformers."""

from __future__ import annotations

import sys
import warnings

import pytest

from tests.hf_reference import MINILM, minilm_pair, sample_lines
from tests.shared_data import shared_path
from wordpieces.errors import MissingDependencyError, TokenizeError

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def ours():
    return minilm_pair()[0]


@pytest.fixture(scope="module")
def theirs():
    transformers = pytest.importorskip("transformers")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transformers.BertTokenizerFast(tokenizer_file=str(shared_path(*MINILM)))


def _plain(batch) -> dict:
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in dict(batch).items()}


CALLS = [
    dict(),
    dict(padding=True),
    dict(padding="longest", pad_to_multiple_of=8, return_length=True),
    dict(padding="max_length", max_length=40, truncation=True),
    dict(truncation=True, max_length=16, return_offsets_mapping=True,
         return_special_tokens_mask=True),
    dict(truncation="only_first", max_length=24, stride=4, return_overflowing_tokens=True),
    dict(truncation=True, max_length=30, stride=5, return_overflowing_tokens=True,
         padding=True),
    dict(padding=True, truncation=True, max_length=32, return_tensors="np",
         return_offsets_mapping=True),
    dict(add_special_tokens=False, padding=True),
]


@pytest.mark.parametrize("options", CALLS, ids=lambda o: ",".join(sorted(o)) or "defaults")
@pytest.mark.parametrize("shape", ["single", "batch", "pairs"])
def test_call_matches_transformers(ours, theirs, options, shape):
    """tok(...) returns the dict transformers returns for the same call."""
    lines = sample_lines("english", 12, seed=9)
    if shape == "single":
        args = (lines[0],)
    elif shape == "batch":
        args = (lines[:6],)
    else:
        args = (lines[:6], lines[6:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = _plain(theirs(*args, **options))
        except Exception:  # e.g. only_first cannot fit: ours must refuse too
            with pytest.raises(TokenizeError):
                ours(*args, **options)
            return
    assert _plain(ours(*args, **options)) == expected


def test_call_leaves_tokenizer_settings_alone(ours):
    """A call's padding/truncation options do not change enable_padding/truncation."""
    before = (ours.padding, ours.truncation)
    ours(["a", "b c"], padding=True, truncation=True, max_length=4)
    assert (ours.padding, ours.truncation) == before


def test_batch_encoding_attributes(ours):
    """The result reads as attributes and keeps the encodings (word_ids per row)."""
    out = ours(["hello world", "hi"], padding=True)
    assert out.input_ids == out["input_ids"]
    assert out.word_ids(0) == out.encodings[0].word_ids[:len(out.word_ids(0))]


def test_ragged_numpy_needs_padding(ours):
    """return_tensors='np' on rows of different lengths asks for padding."""
    pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="padding=True"):
        ours(["hello world", "hi"], return_tensors="np")


def test_unsupported_tensors_and_options(ours):
    """'tf' tensors and unknown padding values are reported."""
    with pytest.raises(ValueError, match="not supported"):
        ours("hi", return_tensors="tf")
    with pytest.raises(ValueError, match="padding must be one of"):
        ours("hi", padding="sideways")


@pytest.mark.parametrize("options", [{"padding": "max_length"}, {"truncation": True},
                                     {"padding": "max_length", "truncation": True}])
def test_a_length_asked_but_not_given_warns_and_goes_on_as_transformers(ours, theirs,
                                                                        options):
    """No max_length and no model_max_length (a tokenizer.json alone, whose own
    truncation length transformers' call does not use): a warning, the rows as they are."""
    texts = sample_lines("english", 3) + ["word " * 200]
    with pytest.warns(UserWarning, match="no max_length is given"):
        got = ours(texts, **options)
    assert _plain(got) == _plain(theirs(texts, **options))
    assert len(got["input_ids"][-1]) > 128  # the tokenizer.json's truncation: not the call's


def test_missing_torch_is_a_friendly_error(ours, monkeypatch):
    """Without torch, return_tensors='pt' names the package and the extra to install."""
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependencyError, match=r"'torch'.*wordpieces\[torch\]"):
        ours("hi", return_tensors="pt")


def test_missing_numpy_is_a_friendly_error(ours, monkeypatch):
    """Without numpy, return_tensors='np' says which extra to install."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(MissingDependencyError, match=r"wordpieces\[numpy\]"):
        ours("hi", return_tensors="np")


@pytest.mark.parametrize("form", ["one text", "lists", "np", "pairs"])
def test_a_pickled_batch_reads_as_transformers_pickled_one(ours, theirs, form):
    """A DataLoader worker pickles what tok(...) returns: keys, values, tokens, word ids
    and character spans all come back, as transformers' do."""
    import pickle

    np = pytest.importorskip("numpy") if form == "np" else None
    texts = sample_lines("english", 4)
    args = {"one text": (texts[0],), "lists": (texts,), "np": (texts,),
            "pairs": (texts, texts[::-1])}[form]
    options = {"padding": True, "return_tensors": "np"} if np else {"truncation": True}
    got = pickle.loads(pickle.dumps(ours(*args, **options)))
    expected = pickle.loads(pickle.dumps(theirs(*args, **options)))
    assert _plain(got) == _plain(expected)
    rows = 1 if form == "one text" else len(texts)
    for i in range(rows):
        assert got.tokens(i) == expected.tokens(i)
        assert got.word_ids(i) == expected.word_ids(i)
        assert got.char_to_token(i, 3) == expected.char_to_token(i, 3)
