"""LazyPairEncoding: a pair's lists built on first read equal what the eager path builds.

The eager path is ``PostProcessor.process`` (or ``Finisher`` without a post-processor)
on plain ``Encoding``s, itself checked against HF in tests/differential; here random
raw tokens, templates and paddings check that the lazy form gives exactly the same
encoding, and that it behaves as a plain ``Encoding`` once read (HF's side:
tests/differential/test_pairs_hf.py).
"""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from wordpieces.encode.encodings import plan_layouts
from wordpieces.encode.finishing import Finisher
from wordpieces.encoding.encoding import Encoding
from wordpieces.encoding.lazy_encoding import (
    Layout,
    LazyEncoding,
    LazyPairEncoding,
    ListTokens,
    PairLayout,
    lazy_pair,
)
from wordpieces.errors import TokenizeError
from wordpieces.fast.backend import backend, make_word_encoder
from wordpieces.pipeline.processors import BertProcessing, TemplateProcessing
from wordpieces.tokenizer import Tokenizer

FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
          "attention_mask")
NAMES = [f"tok{i}" for i in range(50)] + ["[CLS]", "[SEP]", "[X]"]
SPECIALS = {"[CLS]": 50, "[SEP]": 51, "[X]": 52}


def plain(enc: Encoding) -> dict:
    """Every field of an encoding as data, sequence ranges in their order."""
    return {**{name: getattr(enc, name) for name in FIELDS}, "len": len(enc),
            "sequence_ranges": list(enc.sequence_ranges.items()),
            "sequence_ids": enc.sequence_ids,
            "overflowing": [plain(o) for o in enc.overflowing]}


RAW = st.integers(0, 10).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 49), min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n)))
PIECES = st.lists(st.sampled_from(["[CLS]", "[SEP]", "[X]"]), max_size=3)
TYPES = st.lists(st.integers(0, 3), min_size=11, max_size=11)


def eager(raw: tuple, type_id: int) -> Encoding:
    """The plain encoding of one sequence, as the reference path has it."""
    ids, offsets, word_ids = raw
    return Encoding.build(list(ids), [NAMES[i] for i in ids], list(offsets), list(word_ids),
                          type_id)


def lazy(first: tuple, second: tuple, layout: PairLayout) -> LazyEncoding:
    """The lazy pair of sequences 0 and 1, as encode_batch makes it."""
    return lazy_pair(LazyEncoding(ListTokens(*first), Layout(NAMES)),
                     LazyEncoding(ListTokens(*second), Layout(NAMES, 1)), layout)


def template(before, middle, after, b_first: bool, types: list[int]) -> str:
    """A pair template: pieces before, between and after $A and $B (or $B and $A)."""
    pieces = [f"{p}:{t}" for p, t in zip(before, types, strict=False)]
    pieces.append(f"$B:{types[3]}" if b_first else f"$A:{types[3]}")
    pieces += [f"{p}:{t}" for p, t in zip(middle, types[4:], strict=False)]
    pieces.append(f"$A:{types[7]}" if b_first else f"$B:{types[7]}")
    pieces += [f"{p}:{t}" for p, t in zip(after, types[8:], strict=False)]
    return " ".join(pieces)


# ---------------------------------------------------------------- layouts equal process


@settings(max_examples=300, deadline=None)
@given(first=RAW, second=RAW, before=PIECES, middle=PIECES, after=PIECES, types=TYPES,
       b_first=st.booleans(), add=st.booleans())
def test_template_pair_layout_equals_process(first, second, before, middle, after, types,
                                             b_first, add):
    """A template's pair layout (either order of $A, $B) gives what process builds."""
    tp = TemplateProcessing("[CLS] $A [SEP]", pair=template(before, middle, after, b_first,
                                                            types), special_tokens=SPECIALS)
    want = tp.process(eager(first, 0), eager(second, 1), add)
    assert plain(lazy(first, second, plan_layouts(tp.plan(add), NAMES)[1])) == plain(want)


@settings(max_examples=100, deadline=None)
@given(first=RAW, second=RAW, add=st.booleans())
def test_bert_pair_layout_equals_process(first, second, add):
    """BertProcessing's pair layout gives its process (the pair keeps type id 1)."""
    bp = BertProcessing(("[SEP]", 51), ("[CLS]", 50))
    want = bp.process(eager(first, 0), eager(second, 1), add)
    assert plain(lazy(first, second, plan_layouts(bp.plan(add), NAMES)[1])) == plain(want)


@settings(max_examples=100, deadline=None)
@given(first=RAW, second=RAW)
def test_no_processor_layout_equals_finisher(first, second):
    """Without a post-processor, a pair is its two sequences joined (Finisher's merge)."""
    want = Finisher(None, True, None, None).encoding(eager(first, 0), eager(second, 1))
    assert plain(lazy(first, second, PairLayout(NAMES))) == plain(want)


# ---------------------------------------------------------------- behaving as an Encoding

BERT_PAIR = plan_layouts(BertProcessing(("[SEP]", 51), ("[CLS]", 50)).plan(True), NAMES)[1]


@settings(max_examples=200, deadline=None)
@given(first=RAW, second=RAW, length=st.integers(0, 30),
       direction=st.sampled_from(["left", "right"]), read_first=st.booleans())
def test_pad_equals_eager_pad(first, second, length, direction, read_first):
    """Padding a lazy pair (fresh: only its layout changes; or read) equals the plain pad."""
    enc, want = lazy(first, second, BERT_PAIR), lazy(first, second, BERT_PAIR).copy()
    if read_first:
        enc.ids  # noqa: B018 (reading builds the list)
    grows = length > len(want)
    for e in (enc, want):
        e.pad(length, direction=direction, pad_id=7, pad_type_id=2, pad_token="[X]")
    assert enc.fresh == (grows and not read_first) or not grows
    assert plain(enc) == plain(want)


@settings(max_examples=100, deadline=None)
@given(first=RAW, second=RAW, order=st.permutations(FIELDS))
def test_any_read_order_gives_the_same_lists(first, second, order):
    """A pair's lists do not depend on which was read first."""
    reference = plain(lazy(first, second, BERT_PAIR))
    enc = lazy(first, second, BERT_PAIR)
    for name in order:
        assert getattr(enc, name) == reference[name]


@settings(max_examples=100, deadline=None)
@given(first=RAW, second=RAW, name=st.sampled_from(FIELDS))
def test_mutating_one_list_leaves_the_others(first, second, name):
    """Appending to one list changes no other list, and no later encoding of the rows."""
    enc = lazy(first, second, BERT_PAIR)
    before = copy.deepcopy(plain(enc))
    getattr(enc, name).append(None)
    after = plain(enc)
    assert {k: v for k, v in after.items() if k not in (name, "len", "sequence_ids")} == \
        {k: v for k, v in before.items() if k not in (name, "len", "sequence_ids")}
    assert plain(lazy(first, second, BERT_PAIR)) == before


def make() -> LazyEncoding:
    return lazy(([3, 4], [(0, 2), (3, 5)], [0, 1]), ([5], [(0, 1)], [0]), BERT_PAIR)


def test_len_and_ranges_need_no_list():
    """len() of a fresh pair comes from its layout; reading anything ends freshness."""
    enc = make()
    assert isinstance(enc, LazyPairEncoding) and len(enc) == 6 and enc.fresh
    assert enc.sequence_ranges == {0: (1, 3), 1: (4, 5)} and not enc.fresh
    assert enc.overflowing == []


def test_set_list_is_kept():
    """Assigning a list replaces it and only it, as on a plain Encoding."""
    enc = make()
    enc.type_ids = [9] * 6
    assert enc.type_ids == [9] * 6 and enc.tokens == ["[CLS]", "tok3", "tok4", "[SEP]",
                                                       "tok5", "[SEP]"]


def test_pickle_and_copies_give_plain_equal_encodings():
    """Pickling, deep copy and copy() give a plain Encoding equal to the pair."""
    enc = make()
    for other in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc), enc.copy()):
        assert type(other) is Encoding
        assert other == enc and plain(other) == plain(enc)


def test_truncate_and_merge_read_the_lists():
    """truncate (with windows) and merge give what they give on plain copies."""
    enc, want = make(), make().copy()
    enc.truncate(4, stride=1)
    want.truncate(4, stride=1)
    assert plain(enc) == plain(want) and len(enc.overflowing) == 1
    merged = Encoding.merge([make(), make()], growing_offsets=True)
    assert plain(merged) == plain(Encoding.merge([make().copy(), make().copy()],
                                                 growing_offsets=True))


def test_set_sequence_id_and_type_ids_act_on_the_lists():
    """set_sequence_id / set_type_ids on a fresh pair act as on a plain Encoding."""
    enc, want = make(), make().copy()
    assert enc.fresh
    for e in (enc, want):
        e.set_type_ids(3)
        e.set_sequence_id(1)
    assert plain(enc) == plain(want)


def test_pairing_an_encoding_already_read_is_refused():
    """lazy_pair takes fresh encodings only (a read one may have been changed)."""
    first = LazyEncoding(ListTokens([3], [(0, 1)], [0]), Layout(NAMES))
    first.ids.append(4)
    with pytest.raises(ValueError, match="fresh encodings"):
        lazy_pair(first, LazyEncoding(ListTokens([5], [(0, 1)], [0]), Layout(NAMES, 1)),
                  BERT_PAIR)


def test_relayout_of_a_pair_is_refused():
    """A pair keeps its PairLayout: relayout (the singles' shortcut) is a TypeError."""
    with pytest.raises(TypeError, match="PairLayout"):
        make().relayout(BERT_PAIR)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the native rows

needs_native = pytest.mark.skipif(backend() != "native", reason=f"backend: {backend()}")
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "ab", "##a", "##b", "!"]


def native_rows(texts: list[str]) -> list:
    tok = Tokenizer.from_vocab(VOCAB, flavor="huggingface")
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    return encoder.encode_batch_raw(texts, 1)


FRAMES = st.lists(st.sampled_from([(0, 0), "x", None, 7]), max_size=3).map(tuple)


@needs_native
@settings(max_examples=100, deadline=None)
@given(texts=st.lists(st.text("ab! ", max_size=12), min_size=2, max_size=2),
       before=FRAMES, middle=FRAMES, after=FRAMES)
def test_row_pair_lists_equal_two_row_lists(texts, before, middle, after):
    """Row.*_with (one C call) equals the two rows' lists around the frames."""
    first, second = native_rows(texts)
    names = [*VOCAB]
    assert first.ids_with(second, before, middle, after) == \
        first.ids(before, middle) + second.ids((), after)
    assert first.tokens_with(names, second, before, middle, after) == \
        first.tokens(names, before, middle) + second.tokens(names, (), after)
    assert first.offsets_with(second, before, middle, after) == \
        first.offsets(before, middle) + second.offsets((), after)
    assert first.word_ids_with(second, before, middle, after) == \
        first.word_ids(before, middle) + second.word_ids((), after)


@needs_native
@settings(max_examples=100, deadline=None)
@given(text=st.text("ab! ", max_size=12), data=st.data())
def test_row_window_is_a_slice(text, data):
    """Row.window(start, stop) holds the tokens [start, stop) of the row (C) and of
    its Python twin (ListTokens.window)."""
    row, = native_rows([text])
    start = data.draw(st.integers(0, len(row)))
    stop = data.draw(st.integers(start, len(row)))
    part = row.window(start, stop)
    twin = ListTokens(row.ids(), row.offsets(), row.word_ids()).window(start, stop)
    for kept in (part, twin):
        assert len(kept) == stop - start
        assert kept.ids() == row.ids()[start:stop]
        assert kept.offsets() == row.offsets()[start:stop]
        assert kept.word_ids() == row.word_ids()[start:stop]


@needs_native
def test_row_window_outside_the_row_is_an_index_error():
    """A window past either end of the row names it and the row's length."""
    row, = native_rows(["ab a"])
    with pytest.raises(IndexError, match=r"window \[1, 5\) is outside a row of 2 tokens"):
        row.window(1, 5)
    with pytest.raises(IndexError, match=r"window \[-1, 2\)"):
        row.window(-1, 2)


@needs_native
def test_row_pair_lists_refuse_bad_arguments():
    """A second sequence that is not a Row, a frame that is not a tuple, a wrong count."""
    first, second = native_rows(["ab a", "b!"])
    with pytest.raises(TypeError, match="second sequence must be a Row, not list"):
        first.ids_with([4], (), (), ())
    with pytest.raises(TypeError, match="frames around rows must be tuples, got list"):
        first.offsets_with(second, (), [], ())
    with pytest.raises(TypeError, match=r"word_ids_with\(\) takes 4 arguments \(3 given\)"):
        first.word_ids_with(second, (), ())
    with pytest.raises(TypeError, match="names must be a list"):
        first.tokens_with((), second, (), (), ())


# ---------------------------------------------------------------- inputs truncation cut

SMALL = Tokenizer.from_vocab(VOCAB, flavor="huggingface")
WORDS = st.lists(st.sampled_from(["a", "b", "ab", "!", " ", "ba"]), max_size=12).map("".join)
ITEMS = st.lists(st.one_of(WORDS, st.tuples(WORDS, WORDS)), min_size=1, max_size=4)
PADS = st.lists(st.tuples(st.integers(0, 24), st.sampled_from(["left", "right"]),
                          st.integers(0, 3)), max_size=3)


def cut_batch(items: list, max_length: int, stride: int, direction: str) -> list:
    SMALL.enable_truncation(max_length, stride=stride, direction=direction)
    try:
        return SMALL.encode_batch(items)
    finally:
        SMALL.no_truncation()


@settings(max_examples=200, deadline=None)
@given(items=ITEMS, max_length=st.integers(5, 12), stride=st.integers(0, 2),
       direction=st.sampled_from(["left", "right"]), pads=PADS, read_at=st.integers(0, 3))
def test_cut_inputs_pad_as_eager_ones(items, max_length, stride, direction, pads, read_at):
    """A cut input's windows, made when first read, are padded as an eager encoding's
    are (pads while fresh recorded, later ones applied), whenever they are read."""
    try:
        lazy = cut_batch(items, max_length, stride, direction)
    except TokenizeError:  # a stride the kept part cannot take: no encoding to compare
        assume(False)
    want = [e.copy() for e in cut_batch(items, max_length, stride, direction)]
    for step, (length, side, pad_id) in enumerate(pads):
        if step == read_at:
            for enc in lazy:
                enc.overflowing  # noqa: B018 (reading builds the windows)
        for enc in (*lazy, *want):
            enc.pad(length, direction=side, pad_id=pad_id, pad_token="[PAD]")
    assert [plain(e) for e in lazy] == [plain(e) for e in want]


def test_cut_pair_is_lazy_with_the_eager_windows():
    """A pair truncation cut is lazy (its length known unread) with the eager windows."""
    enc, = cut_batch([("ab ab ab ab", "b b b b b")], 8, 1, "right")
    want, = [e.copy() for e in cut_batch([("ab ab ab ab", "b b b b b")], 8, 1, "right")]
    assert isinstance(enc, LazyPairEncoding) and enc.fresh and len(enc) == 8
    assert len(want.overflowing) > 1 and plain(enc) == plain(want)


def test_cut_input_pickles_and_copies_with_its_windows():
    """Pickling and copying a fresh cut input give a plain Encoding with its windows."""
    enc, = cut_batch([("ab ab ab ab", "b b b b b")], 8, 1, "left")
    for other in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)):
        assert type(other) is Encoding and other.overflowing
        assert plain(other) == plain(enc)
