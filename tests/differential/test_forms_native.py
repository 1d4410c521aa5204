"""Every form of the call takes the native path, and gives transformers' answer there.

Run in strict mode (``conftest.py``): a form that fell back to Python raises
``NativeFallbackError``. Each form is checked three ways on the shapes the benchmark
measures (short lines, prose lines, paragraphs, pairs, multilingual text): the C entry
point (``NativeWordEncoder.encode_finished``) ran, the output equals transformers'
``BertTokenizerFast`` with the same arguments, and with the C path switched off by hand
the same call fails instead of passing on the reference path.
"""

from __future__ import annotations

import pytest

from tests.hf_reference import sample_lines
from tests.transformers_reference import as_plain, bert_uncased_pair
from wordpieces.encode import batches, engine
from wordpieces.errors import NativeFallbackError
from wordpieces.fast import backend
from wordpieces.tokenizer import Tokenizer

pytestmark = [pytest.mark.shared_data,
              pytest.mark.skipif(backend._core is None, reason="native extension not built")]

SHAPES = {
    "short-lines": lambda: sample_lines("english", 40, seed=3),
    "prose-lines": lambda: sample_lines("english", 40, seed=4),
    "paragraphs": lambda: [" ".join(sample_lines("english", 12, seed=s)) for s in range(6)],
    "multilingual": lambda: sample_lines("udhr", 40, seed=5) + sample_lines("chinese", 10,
                                                                            seed=6),
}

# truncation's overflowing windows: one row per window, with overflow_to_sample_mapping
OVERFLOW = {"truncation": True, "max_length": 32, "stride": 8,
            "return_overflowing_tokens": True}


def left_side(call):
    """``call`` with the tokenizer's ``truncation_side`` set to "left" meanwhile."""
    def run(tok, texts):
        side, tok.truncation_side = tok.truncation_side, "left"
        try:
            return call(tok, texts)
        finally:
            tok.truncation_side = side
    return run


def short(texts: list[str]) -> list[str]:
    """The texts' first 20 characters: the sequence a one-sided truncation keeps whole."""
    return [text[:20] for text in texts]


# (name, call on (tokenizer, texts)): every form users call, lists first (the default)
FORMS = {
    "lists": lambda tok, x: tok(x),
    "truncated": lambda tok, x: tok(x, truncation=True, max_length=128),
    "padded": lambda tok, x: tok(x, padding=True, truncation=True, max_length=128),
    "padded-np": lambda tok, x: tok(x, padding=True, truncation=True, max_length=128,
                                    return_tensors="np"),
    "every-column": lambda tok, x: tok(x, padding="max_length", max_length=64,
                                       truncation=True, return_offsets_mapping=True,
                                       return_special_tokens_mask=True, return_length=True),
    "pairs": lambda tok, x: tok(x[::2], x[1::2], truncation=True, max_length=128),
    "words": lambda tok, x: tok([t.split() for t in x], is_split_into_words=True,
                                truncation=True, max_length=128),
    "word-pairs": lambda tok, x: tok([t.split() for t in x[::2]],
                                     [t.split() for t in x[1::2]],
                                     is_split_into_words=True, padding=True),
    "one-text": lambda tok, x: tok(x[0], truncation=True, max_length=128),
    "one-text-np": lambda tok, x: tok(x[0], return_tensors="np"),
    "ids-only": lambda tok, x: tok(x, return_attention_mask=False, return_token_type_ids=False),
    "one-text-ids-only": lambda tok, x: tok(x[0], return_attention_mask=False,
                                            return_token_type_ids=False),
    "overflow": lambda tok, x: tok(x, **OVERFLOW),
    "overflow-every-column": lambda tok, x: tok(
        x, **OVERFLOW, padding=True, return_offsets_mapping=True,
        return_special_tokens_mask=True, return_length=True),
    "overflow-left": left_side(lambda tok, x: tok(x, **OVERFLOW,
                                                  return_offsets_mapping=True)),
    "overflow-np": lambda tok, x: tok(x, **OVERFLOW, padding="max_length",
                                      return_offsets_mapping=True, return_tensors="np"),
    "overflow-qa": lambda tok, x: tok(short(x[::2]), x[1::2], truncation="only_second",
                                      max_length=48,
                                      stride=16, return_overflowing_tokens=True,
                                      return_offsets_mapping=True, padding="max_length"),
    "overflow-only-first": lambda tok, x: tok(x[::2], short(x[1::2]), **{
        **OVERFLOW, "truncation": "only_first", "max_length": 40}),
    "overflow-longest-pairs": left_side(lambda tok, x: tok(
        x[::2], x[1::2], **{**OVERFLOW, "truncation": "longest_first"},
        return_offsets_mapping=True)),
    "overflow-pairs-np": lambda tok, x: tok(x[::2], x[1::2], **OVERFLOW, padding=True,
                                            return_special_tokens_mask=True,
                                            return_tensors="np"),
    "overflow-one-text": lambda tok, x: tok(x[0], **OVERFLOW),
    "overflow-words": lambda tok, x: tok([t.split() for t in x], is_split_into_words=True,
                                         **OVERFLOW, padding=True),
    "overflow-word-pairs": lambda tok, x: tok([t.split() for t in x[::2]],
                                              [t.split() for t in x[1::2]],
                                              is_split_into_words=True, **OVERFLOW),
}


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return bert_uncased_pair(tmp_path_factory.mktemp("forms"))


@pytest.fixture
def c_calls(pair, monkeypatch):
    """How many times the C entry point ran."""
    pair[0].pipeline.sequences.one_text_calls.clear()  # compiled with the C method bound
    pair[0].__dict__.pop("_lanes", None)  # tok(text)'s compiled calls: the same
    calls = []
    real = backend.NativeWordEncoder.encode_finished

    real_call = backend.NativeWordEncoder.finish_call

    def counted(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    def counted_call(self):  # the one-text lane binds the C method once
        finish = real_call(self)

        def call(*args):
            calls.append(1)
            return finish(*args)
        return call
    monkeypatch.setattr(backend.NativeWordEncoder, "encode_finished", counted)
    monkeypatch.setattr(backend.NativeWordEncoder, "finish_call", counted_call)
    return calls


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("form", FORMS)
def test_form_runs_native_and_matches_transformers(pair, c_calls, form, shape):
    ours, theirs = pair
    texts = SHAPES[shape]()
    got = FORMS[form](ours, texts)
    assert c_calls, f"{form} on {shape} did not reach the C path"
    assert as_plain(got) == as_plain(FORMS[form](theirs, texts))


def test_encode_batch_ids_and_encode_ids_run_native(pair, c_calls):
    ours, theirs = pair
    texts = SHAPES["prose-lines"]()
    assert ours.encode_batch_ids(texts) == [theirs(t)["input_ids"] for t in texts]
    assert ours.encode_ids(texts[0]) == theirs(texts[0])["input_ids"]
    assert len(c_calls) == 2


@pytest.mark.parametrize("form", FORMS)
def test_a_disabled_c_path_fails_in_strict_mode(pair, monkeypatch, form):
    """The check above can fail: with the C path off by hand, strict mode raises."""
    monkeypatch.setattr(batches.BatchFinisher, "_native", lambda self, *a, **k: None)
    monkeypatch.setattr(engine, "one_text_call", lambda *a, **k: None)
    pair[0].pipeline.sequences.one_text_calls.clear()
    pair[0].__dict__.pop("_lanes", None)
    with pytest.raises(NativeFallbackError, match="fell back"):
        FORMS[form](pair[0], SHAPES["short-lines"]())


@pytest.mark.parametrize("form", ["lists", "padded-np", "words"])
def test_python_by_design_is_no_fallback(pair, monkeypatch, form):
    """The pure-Python backend and a processor C does not run are not errors in strict mode."""
    ours, theirs = pair
    texts = SHAPES["short-lines"]()
    monkeypatch.setenv("WORDPIECES_BACKEND", "python")
    python_tok = Tokenizer.from_str(ours.to_str())
    assert as_plain(FORMS[form](python_tok, texts)) == as_plain(FORMS[form](theirs, texts))
    monkeypatch.delenv("WORDPIECES_BACKEND")
    no_plan = Tokenizer.from_str(ours.to_str())
    monkeypatch.setattr(batches, "plans_of", lambda processor, add_special_tokens: None)
    assert as_plain(FORMS[form](no_plan, texts)) == as_plain(FORMS[form](theirs, texts))


@pytest.mark.parametrize("form", ["words", "word-pairs", "lists", "padded-np", "pairs",
                                  "overflow-words", "overflow-qa", "overflow-np"])
def test_row_facts_read_the_columns(pair, form):
    """tokens(i) (and, for pre-split words, word_ids(i) and sequence_ids(i)) come from the
    native columns, equal transformers', and build no Encoding."""
    ours, theirs = pair
    texts = SHAPES["multilingual"]()
    got, expected = FORMS[form](ours, texts), FORMS[form](theirs, texts)
    rows = range(len(got["input_ids"]))
    assert [got.tokens(i) for i in rows] == [expected.tokens(i) for i in rows]
    if "word" in form:
        assert [got.word_ids(i) for i in rows] == [expected.word_ids(i) for i in rows]
        assert [got.sequence_ids(i) for i in rows] == [expected.sequence_ids(i) for i in rows]
    assert callable(got._rows), "an Encoding was built to answer"


LIST_FORMS = [name for name in FORMS if not name.endswith("-np")]


@pytest.mark.parametrize("form", LIST_FORMS)
def test_rows_are_left_out_of_the_cyclic_collector(pair, form):
    """The rows C builds hold ints (or (start, end) pairs of ints): no cycle can pass
    through them, so they are untracked, as CPython untracks such tuples itself; they
    still behave as lists."""
    import gc

    got = FORMS[form](pair[0], SHAPES["short-lines"]())
    for key, column in got.items():
        rows = column if column and isinstance(column[0], list) else [column]
        if key in ("length", "overflow_to_sample_mapping"):
            continue
        assert not any(map(gc.is_tracked, rows)), key
        offsets = [pair for row in rows for pair in row if isinstance(pair, tuple)]
        assert not any(map(gc.is_tracked, offsets)), key
    row = got["input_ids"] if form.startswith("one-text") else got["input_ids"][0]
    row.append(7)
    assert row[-1] == 7 and len(row) == len(row[:-1]) + 1
