"""Alignment spans are transformers' ``TokenSpan`` / ``CharSpan`` (``.start``, ``.end``,
still tuples), method by method as transformers returns them; a truncation or padding
direction other than left or right is a ValueError, as in HF ``tokenizers``."""

from __future__ import annotations

import pytest

from tests.hf_reference import minilm_pair
from wordpieces.encoding import encoding as encoding_module
from wordpieces.encoding.encoding import Encoding

hf = pytest.importorskip("tokenizers")

TEXTS = ["Hello world, unaffable things!", "a b"]
SPAN_METHODS = ("word_to_tokens", "word_to_chars", "token_to_chars")


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    """(ours, theirs): the same batch through our and transformers' tokenizer call."""
    from tests.transformers_reference import hub_dir, quiet, transformers
    from wordpieces.formats.load import load
    directory = hub_dir(tmp_path_factory.mktemp("minilm"))
    with quiet():
        theirs = transformers.AutoTokenizer.from_pretrained(directory)
    ours = load(directory)
    return ours(TEXTS), theirs(TEXTS)


@pytest.mark.shared_data
@pytest.mark.parametrize("method", [*SPAN_METHODS, "char_to_token", "char_to_word",
                                    "token_to_word"])
def test_batch_alignment_methods_return_transformers_types(calls, method):
    """Each query gives transformers' value and type name, for every row and index."""
    ours, theirs = calls
    for row in range(len(TEXTS)):
        for index in range(8):
            if method == "word_to_chars" and theirs.word_to_tokens(row, index) is None:
                continue  # transformers fails on a missing word (CharSpan(*None))
            mine, reference = (getattr(b, method)(row, index) for b in (ours, theirs))
            assert mine == reference, (method, row, index)
            assert type(mine).__name__ == type(reference).__name__, (method, row, index)
            if reference is not None and method in SPAN_METHODS:
                assert (mine.start, mine.end) == (reference.start, reference.end)


@pytest.mark.shared_data
def test_encoding_spans_equal_hf_tuples_and_have_names():
    """Encoding's spans equal HF Encoding's tuples and read as .start / .end."""
    ours, theirs = minilm_pair()
    mine, reference = ours.encode(TEXTS[0]), theirs.encode(TEXTS[0])
    for method in SPAN_METHODS:
        for index in range(6):
            got, want = getattr(mine, method)(index), getattr(reference, method)(index)
            assert got == want, (method, index)
            assert got is None or isinstance(got, tuple)
    assert type(mine.word_to_tokens(0)).__name__ == "TokenSpan"
    assert isinstance(mine.word_to_chars(0), getattr(encoding_module, "CharSpan", ()))
    assert isinstance(mine.token_to_chars(1), getattr(encoding_module, "CharSpan", ()))
    assert mine.word_to_chars(0).end == reference.word_to_chars(0)[1]


def _encoding() -> Encoding:
    return Encoding(ids=[1, 2, 3], tokens=["a", "b", "c"], offsets=[(0, 1), (1, 2), (2, 3)],
                    word_ids=[0, 1, 2])


@pytest.mark.shared_data
@pytest.mark.parametrize("call", ["truncate", "pad"])
def test_an_unknown_direction_is_refused_as_hf(call):
    """truncate(2, 1, 'sideways') and pad(9, direction='sideways') raise, as HF does."""
    ours, theirs = minilm_pair()
    theirs.no_padding()
    for enc in (theirs.encode("hello world"), ours.encode("hello world"), _encoding()):
        with pytest.raises(ValueError, match="direction"):
            if call == "truncate":
                enc.truncate(2, 1, "not_a_direction")
            else:
                enc.pad(9, direction="not_a_direction")
    unchanged = _encoding()
    with pytest.raises(ValueError, match="'not_a_direction'.*'left' or 'right'"):
        unchanged.truncate(9, 0, "not_a_direction")  # refused even when nothing is cut
    assert unchanged == _encoding()
