"""LazyEncoding: lists built on first read are exactly the lists HF and the eager path give."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hf_reference import fields, hf_from_vocab, sample_lines
from tests.shared_data import shared_path
from wordpieces.encode.encodings import plan_layouts
from wordpieces.encoding.encoding import Encoding
from wordpieces.encoding.lazy_encoding import Layout, LazyEncoding, ListTokens
from wordpieces.pipeline.processors import BertProcessing, TemplateProcessing
from wordpieces.tokenizer import Tokenizer

FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
          "attention_mask")
NAMES = [f"tok{i}" for i in range(50)] + ["[CLS]", "[SEP]", "[X]"]
SPECIALS = {"[CLS]": 50, "[SEP]": 51, "[X]": 52}


def plain(enc: Encoding) -> dict:
    """Every field of an encoding as data (reading a LazyEncoding builds its lists)."""
    return {**{name: getattr(enc, name) for name in FIELDS}, "len": len(enc),
            "sequence_ranges": enc.sequence_ranges,
            "overflowing": [plain(o) for o in enc.overflowing]}


# ---------------------------------------------------------------- against HF, real text


@pytest.fixture(scope="module")
def english():
    return sample_lines("english", 80, seed=5)


@pytest.fixture(scope="module")
def vocab():
    """The uncased BERT vocabulary, looked up when a test needs it (not at import)."""
    return shared_path("vocab", "bert-base-uncased.vocab.txt")


TEMPLATES = ["[CLS] $A [SEP]", "$A", "[CLS]:1 [SEP]:0 $A:2 [SEP]:3 [CLS]"]


@pytest.mark.shared_data
@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("padding", [None, {"direction": "right"},
                                     {"direction": "left", "pad_to_multiple_of": 8,
                                      "pad_type_id": 2}])
@pytest.mark.parametrize("add_special_tokens", [True, False])
def test_batches_equal_hf(english, vocab, template, padding, add_special_tokens):
    """encode_batch (lazy lists, padding folded into the layout) equals HF field for field."""
    ours = Tokenizer.from_vocab(str(vocab), flavor="huggingface", template=template)
    theirs = hf_from_vocab(vocab, template=template,
                           pair="[CLS] $A [SEP] $B:1 [SEP]:1")
    if padding is not None:
        ours.enable_padding(pad_id=0, **padding)
        theirs.enable_padding(pad_id=0, **padding)
    got = ours.encode_batch(english, add_special_tokens=add_special_tokens)
    assert any(isinstance(e, LazyEncoding) for e in got)
    want = theirs.encode_batch(english, add_special_tokens=add_special_tokens)
    assert [fields(e) for e in got] == [fields(e) for e in want]


@pytest.mark.shared_data
@pytest.mark.parametrize("max_length", [12, 512])
def test_truncation_equals_hf(english, vocab, max_length):
    """Truncation that cuts (overflowing windows) or keeps everything equals HF."""
    ours = Tokenizer.from_vocab(str(vocab), flavor="huggingface")
    theirs = hf_from_vocab(vocab)
    for tok in (ours, theirs):
        tok.enable_truncation(max_length, stride=3)
    got = ours.encode_batch(english[:30])
    want = theirs.encode_batch(english[:30])
    assert [fields(e) for e in got] == [fields(e) for e in want]


@pytest.mark.shared_data
def test_bert_processing_equals_hf(english, vocab):
    """BertProcessing's shortcut layout gives HF's BertProcessing encodings."""
    from tokenizers import processors
    ours = Tokenizer.from_vocab(str(vocab), flavor="huggingface")
    theirs = hf_from_vocab(vocab)
    ours.post_processor = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    theirs.post_processor = processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    for special in (True, False):
        got = ours.encode_batch(english[:30], add_special_tokens=special)
        want = theirs.encode_batch(english[:30], add_special_tokens=special)
        assert [fields(e) for e in got] == [fields(e) for e in want]


# ---------------------------------------------------------------- against the eager path

RAW = st.integers(0, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 49), min_size=n, max_size=n),
    st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n)))
PIECES = st.lists(st.sampled_from(["[CLS]", "[SEP]", "[X]"]), max_size=3)


@settings(max_examples=200, deadline=None)
@given(raw=RAW, before=PIECES, after=PIECES, type_ids=st.lists(st.integers(0, 3), min_size=7,
                                                               max_size=7),
       add=st.booleans())
def test_template_layout_equals_process(raw, before, after, type_ids, add):
    """A template's layout gives what TemplateProcessing.process builds eagerly."""
    pieces = [f"{p}:{t}" for p, t in zip(before, type_ids, strict=False)]
    pieces.append(f"$A:{type_ids[3]}")
    pieces += [f"{p}:{t}" for p, t in zip(after, type_ids[4:], strict=False)]
    tp = TemplateProcessing(" ".join(pieces), special_tokens=SPECIALS)
    ids, offsets, word_ids = raw
    eager = tp.process(Encoding.build(list(ids), [NAMES[i] for i in ids], list(offsets),
                                      list(word_ids)), None, add)
    lazy = LazyEncoding(ListTokens(ids, offsets, word_ids), plan_layouts(tp.plan(add), NAMES)[0])
    assert plain(lazy) == plain(eager)


@settings(max_examples=200, deadline=None)
@given(raw=RAW, length=st.integers(0, 20), direction=st.sampled_from(["left", "right"]),
       read_first=st.booleans())
def test_pad_equals_eager_pad(raw, length, direction, read_first):
    """Padding a lazy encoding (fresh or already read) equals padding the plain one."""
    layout = plan_layouts(BertProcessing(("[SEP]", 51), ("[CLS]", 50)).plan(True), NAMES)[0]
    lazy = LazyEncoding(ListTokens(*raw), layout)
    eager = lazy.copy()
    if read_first:
        lazy.ids  # noqa: B018 (reading builds the list)
    lazy.pad(length, direction=direction, pad_id=7, pad_type_id=1, pad_token="[PAD]")
    eager.pad(length, direction=direction, pad_id=7, pad_type_id=1, pad_token="[PAD]")
    assert plain(lazy) == plain(eager)


@settings(max_examples=100, deadline=None)
@given(raw=RAW, order=st.permutations(FIELDS))
def test_any_read_order_gives_the_same_lists(raw, order):
    """Lists do not depend on which was read first."""
    layout = Layout(NAMES, 1, ((50, "[CLS]", 0, 1),), ((51, "[SEP]", 1, 1),), 0)
    reference = plain(LazyEncoding(ListTokens(*raw), layout))
    lazy = LazyEncoding(ListTokens(*raw), layout)
    for name in order:
        assert getattr(lazy, name) == reference[name]


# ---------------------------------------------------------------- behaving as an Encoding


def make() -> LazyEncoding:
    layout = Layout(NAMES, 0, ((50, "[CLS]", 0, 1),), ((51, "[SEP]", 0, 1),), 0)
    return LazyEncoding(ListTokens([3, 4], [(0, 2), (3, 5)], [0, 1]), layout)


def test_len_builds_nothing():
    """len() is known without building any list; any read ends freshness."""
    enc = make()
    assert len(enc) == 4 and enc.fresh
    assert enc.sequence_ranges == {0: (1, 3)}
    assert not enc.fresh


def test_left_padding_while_fresh_moves_the_ranges():
    """Padding folded into the layout shifts sequence_ranges as Encoding.pad does."""
    lazy, eager = make(), make().copy()
    for enc in (lazy, eager):
        enc.pad(7, direction="left", pad_id=0, pad_token="[PAD]")
    assert lazy.sequence_ranges == eager.sequence_ranges == {0: (4, 6)}
    assert plain(lazy) == plain(eager)


def test_fields_are_independent():
    """Setting or mutating one list leaves the others as built, as on a plain Encoding."""
    enc = make()
    enc.ids.append(9)
    enc.type_ids = [5] * 4
    assert enc.tokens == ["[CLS]", "tok3", "tok4", "[SEP]"]
    assert enc.ids == [50, 3, 4, 51, 9] and len(enc) == 5
    assert make().ids == [50, 3, 4, 51]  # the raw tokens were not touched


def test_unknown_attribute_is_an_attribute_error():
    """A missing attribute raises AttributeError, not a build error."""
    with pytest.raises(AttributeError, match="nope"):
        make().nope  # noqa: B018


def test_pickle_and_deepcopy_give_plain_equal_encodings():
    """Pickling or copying builds a plain Encoding with the same lists."""
    enc = make()
    for other in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc), enc.copy()):
        assert type(other) is Encoding
        assert other == enc and plain(other) == plain(enc)


def test_truncate_and_merge_read_the_lists():
    """truncate and merge give what they give on plain copies."""
    lazy, eager = make(), make().copy()
    lazy.truncate(3, stride=1)
    eager.truncate(3, stride=1)
    assert plain(lazy) == plain(eager) and len(lazy.overflowing) == 1
    merged = Encoding.merge([make(), make()], growing_offsets=True)
    assert plain(merged) == plain(Encoding.merge([make().copy(), make().copy()],
                                                 growing_offsets=True))
