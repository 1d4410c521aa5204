"""Truncation's overflowing windows, finished in C, equal live transformers and the reference.

``tok(..., truncation=..., max_length=M, stride=S, return_overflowing_tokens=True)`` gives
one row per window plus ``overflow_to_sample_mapping``. Each call is compared with
transformers' ``BertTokenizerFast`` on the shared corpora (English uncased, multilingual
cased) on both backends, the native one asserted to reach C; a hypothesis test compares
the native path with the pure-Python reference over lengths, strides, sides and
strategies, errors included.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hf_reference import sample_lines
from tests.shared_data import shared_path
from tests.transformers_reference import as_plain, quiet, transformers
from wordpieces.errors import TokenizeError
from wordpieces.fast import backend
from wordpieces.tokenizer import Tokenizer

pytestmark = [pytest.mark.shared_data,
              pytest.mark.skipif(backend._core is None, reason="native extension not built")]

VOCABS = {"english": ("bert-base-uncased.vocab.txt", True),
          "multilingual": ("bert-base-multilingual-cased.vocab.txt", False)}


@functools.cache
def ours(lang: str, kind: str) -> Tokenizer:
    """Our tokenizer for ``lang`` on backend ``kind`` (first used with it forced)."""
    name, lower = VOCABS[lang]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORDPIECES_BACKEND", kind)
        tok = Tokenizer.from_vocab(shared_path("vocab", name), lowercase=lower,
                                   flavor="huggingface")
        tok(["its word encoder is built now"])  # on the backend forced here
        return tok


@functools.cache
def theirs(lang: str):
    """transformers' BertTokenizerFast on the same vocabulary (``vocab=``: a path)."""
    name, lower = VOCABS[lang]
    with quiet():
        return transformers.BertTokenizerFast(vocab=str(shared_path("vocab", name)),
                                              do_lower_case=lower)


@functools.cache
def texts(lang: str) -> tuple[list[str], list[str], list[str]]:
    """(lines, paragraphs, short questions) of ``lang``'s corpora."""
    if lang == "english":
        lines = sample_lines("english", 30, seed=11)
        more = [sample_lines("english", 10, seed=s) for s in range(12, 18)]
    else:
        lines = sample_lines("udhr", 24, seed=11) + sample_lines("chinese", 6, seed=12)
        more = [sample_lines("udhr", 10, seed=s) for s in range(13, 19)]
    paragraphs = [" ".join(group) for group in more]
    questions = [" ".join(line.split()[:6])[:30] for line in lines[:len(paragraphs)]]
    return lines, paragraphs, questions


COLUMNS = {"return_overflowing_tokens": True, "return_offsets_mapping": True,
           "return_special_tokens_mask": True, "return_length": True}

# (name, call on (tokenizer, lines, paragraphs, questions))
CALLS = {
    "single-true": lambda tok, x, p, q: tok(x + p, truncation=True, max_length=32, stride=8,
                                            **COLUMNS),
    "single-longest-np": lambda tok, x, p, q: tok(
        x + p, truncation="longest_first", max_length=32, stride=8, padding="max_length",
        return_tensors="np", **COLUMNS),
    "single-only-first-padded": lambda tok, x, p, q: tok(
        p + x, truncation="only_first", max_length=24, stride=5, padding=True, **COLUMNS),
    "qa-recipe": lambda tok, x, p, q: tok(
        q, p, truncation="only_second", max_length=384, stride=128,
        return_overflowing_tokens=True, return_offsets_mapping=True, padding="max_length"),
    "qa-small-np": lambda tok, x, p, q: tok(
        q, p, truncation="only_second", max_length=48, stride=16, padding=True,
        return_tensors="np", **COLUMNS),
    "pairs-only-first": lambda tok, x, p, q: tok(
        p, q, truncation="only_first", max_length=40, stride=10, **COLUMNS),
    "pairs-longest-first": lambda tok, x, p, q: tok(
        x[::2], x[1::2], truncation="longest_first", max_length=28, stride=4, **COLUMNS),
    "pairs-longest-first-np": lambda tok, x, p, q: tok(
        p, x[:len(p)], truncation=True, max_length=40, stride=6, padding=True,
        return_tensors="np", **COLUMNS),
}


def with_side(tok, side: str, call):
    """``call()`` with ``tok.truncation_side`` set to ``side`` meanwhile."""
    before, tok.truncation_side = tok.truncation_side, side
    try:
        return call()
    finally:
        tok.truncation_side = before


@pytest.fixture
def c_calls(monkeypatch):
    """How many times the C entry point ran."""
    calls = []
    real = backend.NativeWordEncoder.encode_finished

    def counted(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(backend.NativeWordEncoder, "encode_finished", counted)
    return calls


@pytest.mark.parametrize("kind", ["native", "python"])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("lang", VOCABS)
@pytest.mark.parametrize("name", CALLS)
def test_windows_match_transformers(c_calls, name, lang, side, kind):
    """Every column, the mapping and the lengths equal transformers'; native reaches C."""
    tok, ref = ours(lang, kind), theirs(lang)
    args = texts(lang)
    got = with_side(tok, side, lambda: CALLS[name](tok, *args))
    expected = with_side(ref, side, lambda: CALLS[name](ref, *args))
    assert as_plain(got) == as_plain(expected)
    assert len(got["overflow_to_sample_mapping"]) > len(args[2]), "no input overflowed"
    assert bool(c_calls) == (kind == "native")


@pytest.mark.parametrize("lang", VOCABS)
def test_qa_recipe_rows_read_as_transformers(lang):
    """The recipe's next steps: sequence_ids(i), word_ids(i) and tokens(i) of each row."""
    tok, ref = ours(lang, "native"), theirs(lang)
    got = CALLS["qa-recipe"](tok, *texts(lang))
    expected = CALLS["qa-recipe"](ref, *texts(lang))
    for i in range(len(expected["input_ids"])):
        assert got.sequence_ids(i) == expected.sequence_ids(i)
        assert got.word_ids(i) == expected.word_ids(i)
        assert got.tokens(i) == expected.tokens(i)


def test_a_stride_that_cannot_move_raises():
    """transformers (HF tokenizers) panics on a stride not below the room truncation
    leaves; ours raises a TokenizeError naming it, on both backends."""
    text = "the quick brown fox jumps over the lazy dog"
    reference = theirs("english")  # outside the raises below: a missing-data skip passes
    with pytest.raises(BaseException, match="stride"):  # a PanicException is no Exception
        reference([text], truncation=True, max_length=6, stride=4,
                  return_overflowing_tokens=True)
    for kind in ("native", "python"):
        tok = ours("english", kind)
        with pytest.raises(TokenizeError, match="stride 4"):
            tok([text], truncation=True, max_length=6, stride=4, return_overflowing_tokens=True)


def outcome(tok, items, options: dict, side: str):
    """``tok(...)``'s plain columns for ``items`` (pairs split off), or the error's type."""
    firsts = [a for a, _ in items]
    pairs = [b for _, b in items] if all(b is not None for _, b in items) else None
    try:
        return as_plain(with_side(tok, side, lambda: tok(firsts, pairs, **options)))
    except (TokenizeError, ValueError) as error:  # ValueError: ragged rows as arrays
        return type(error), str(error)


WORDS = st.sampled_from(["the", "a", "quick", "brown", "unaffable", "jumps", ",", ".",
                         "héllo", "日本", "x"])
TEXT = st.lists(WORDS, max_size=30).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(items=st.lists(st.tuples(TEXT, st.one_of(st.none(), TEXT)), min_size=1, max_size=4),
       max_length=st.integers(0, 30), stride=st.integers(0, 16),
       side=st.sampled_from(["right", "left"]),
       strategy=st.sampled_from([True, "longest_first", "only_first", "only_second"]),
       padding=st.sampled_from([False, True, "max_length"]),
       tensors=st.sampled_from([None, "np"]))
def test_native_windows_equal_the_reference(items, max_length, stride, side, strategy,
                                            padding, tensors):
    """Native and pure-Python give the same rows (or the same error), texts shorter than
    a window and strides at or over it included."""
    if tensors and not padding:
        padding = True  # ragged rows cannot be arrays (both raise transformers' error)
    if any(b is None for _, b in items):
        items = [(a, None) for a, _ in items]
    options = {"truncation": strategy, "max_length": max_length, "stride": stride,
               "padding": padding, "return_tensors": tensors, **COLUMNS}
    native = outcome(ours("english", "native"), items, options, side)
    assert native == outcome(ours("english", "python"), items, options, side)
