"""Differential tests against ``transformers`` itself: the call, its options and helpers.

The reference is ``AutoTokenizer.from_pretrained`` on a directory laid out as the hub
lays out all-MiniLM-L6-v2 (its tokenizer.json, tokenizer_config.json and
special_tokens_map.json, linked from ../shared, no network), and ``BertTokenizerFast``
built from bert-base-uncased's vocab.txt. Inputs are real lines of the shared corpora.
Saving and loading (``save`` -> ``AutoTokenizer``, ``save_pretrained`` -> ``wp.load``)
are in ``test_transformers_files.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hf_reference import sample_lines
from tests.transformers_reference import (
    as_plain,
    bert_uncased_pair,
    hub_dir,
    quiet,
    transformers,
)
from wordpieces.formats.load import load

pytestmark = pytest.mark.shared_data

TORCH_SKIP = "return_tensors='pt' needs torch (pip install torch; CPU build is enough)"


@pytest.fixture(scope="module")
def minilm(tmp_path_factory):
    """(ours, theirs) from the same hub-like all-MiniLM-L6-v2 directory."""
    directory = hub_dir(tmp_path_factory.mktemp("minilm"))
    with quiet():
        theirs = transformers.AutoTokenizer.from_pretrained(directory)
    return load(directory), theirs


@pytest.fixture(scope="module")
def bert_uncased(tmp_path_factory):
    """(ours, theirs) from bert-base-uncased's vocab.txt (huggingface flavor)."""
    return bert_uncased_pair(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="module")
def lines():
    """Real lines, interleaved so that every slice mixes English, Portuguese, Chinese and
    the UDHR's many scripts."""
    groups = [sample_lines(corpus, 8, seed=11)
              for corpus in ("english", "portuguese", "chinese", "udhr")]
    return [line for four in zip(*groups, strict=True) for line in four]


def _long_text(n_lines: int = 120) -> str:
    """Corpus text far longer than 512 tokens."""
    return " ".join(sample_lines("english", n_lines, seed=5))


def _same(ours, theirs, *args, **options):
    with quiet():
        expected = as_plain(theirs(*args, **options))
    assert as_plain(ours(*args, **options)) == expected


CALLS = [
    dict(padding=True, return_tensors="np"),
    dict(padding=True, padding_side="left", return_offsets_mapping=True),
    dict(padding="max_length", max_length=64, truncation=True, padding_side="left"),
    dict(truncation=True, max_length=20, stride=4, return_overflowing_tokens=True,
         padding=True),
    dict(max_length=12),  # transformers: max_length alone truncates
    dict(padding=True, max_length=12),  # ... but not when padding
    dict(return_special_tokens_mask=True, return_length=True),
]


@pytest.mark.parametrize("options", CALLS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("shape", ["single", "batch", "pairs"])
@pytest.mark.parametrize("which", ["minilm", "bert_uncased"])
def test_call_matches_transformers(request, lines, which, shape, options):
    """tok(...) gives transformers' dict for the same call (lists or arrays)."""
    ours, theirs = request.getfixturevalue(which)
    args = {"single": (lines[0],), "batch": (lines[:8],),
            "pairs": (lines[:8], lines[8:16])}[shape]
    _same(ours, theirs, *args, **options)


def test_truncation_true_uses_model_max_length(minilm):
    """truncation=True without max_length cuts at tokenizer_config.json's 512, not 128."""
    ours, theirs = minilm
    text = _long_text()
    assert ours.model_max_length == theirs.model_max_length == 512
    out = ours(text, truncation=True)
    assert len(out["input_ids"]) == 512
    _same(ours, theirs, [text, "short"], truncation=True, padding=True)


def test_padding_max_length_uses_model_max_length(minilm, lines):
    """padding='max_length' without max_length pads to model_max_length, as transformers."""
    ours, theirs = minilm
    _same(ours, theirs, lines[:3], padding="max_length", truncation=True)


@pytest.mark.parametrize("shape", ["single", "batch", "pairs"])
def test_is_split_into_words(minilm, lines, shape):
    """Word lists: ids, offsets (into each word) and word_ids as transformers gives them."""
    ours, theirs = minilm
    words = [line.split() for line in lines[:8]]
    args = {"single": (words[0],), "batch": (words,), "pairs": (words[:4], words[4:])}[shape]
    options = dict(is_split_into_words=True, return_offsets_mapping=True, padding=True,
                   truncation=True, max_length=48)
    _same(ours, theirs, *args, **options)
    with quiet():
        expected = theirs(*args, **options)
    got = ours(*args, **options)
    rows = 1 if shape == "single" else len(args[0])
    for i in range(rows):
        assert got.word_ids(i) == expected.word_ids(i)
        assert got.tokens(i) == expected.tokens(i)


@pytest.mark.parametrize("options", [
    dict(truncation=True, max_length=12, stride=3, return_overflowing_tokens=True,
         padding=True),
    dict(truncation="only_second", max_length=60, return_offsets_mapping=True),
], ids=["windows", "only_second"])
def test_is_split_into_words_pairs_truncated(minilm, lines, options):
    """Pairs of word lists cut into windows or on one side, as transformers."""
    ours, theirs = minilm
    words = [line.split() for line in lines[:6]]
    _same(ours, theirs, words[:3], words[3:], is_split_into_words=True, **options)


def test_padding_side_attribute(minilm, lines):
    """tok.padding_side = 'left' pads every later call on the left, as transformers."""
    ours, theirs = minilm
    try:
        ours.padding_side = theirs.padding_side = "left"
        _same(ours, theirs, lines[:5], padding=True)
    finally:
        ours.padding_side = theirs.padding_side = "right"


def test_truncation_side_attribute_and_option(minilm, lines):
    """tok.truncation_side = 'left' keeps the end; the call option does the same."""
    ours, theirs = minilm
    expected = None
    try:
        ours.truncation_side = theirs.truncation_side = "left"
        _same(ours, theirs, lines[:5], truncation=True, max_length=10)
        expected = as_plain(ours(lines[:5], truncation=True, max_length=10))
    finally:
        ours.truncation_side = theirs.truncation_side = "right"
    assert as_plain(ours(lines[:5], truncation=True, max_length=10,
                         truncation_side="left")) == expected


def test_return_tensors_pt(minilm, lines):
    """return_tensors='pt': int64 tensors equal to transformers', and to(device) moves them."""
    torch = pytest.importorskip("torch", reason=TORCH_SKIP)
    ours, theirs = minilm
    got = ours(lines[:4], lines[4:8], padding=True, return_tensors="pt")
    with quiet():
        expected = theirs(lines[:4], lines[4:8], padding=True, return_tensors="pt")
    assert set(got) == set(expected)
    for key in expected:
        assert isinstance(got[key], torch.Tensor) and got[key].dtype == torch.int64
        assert torch.equal(got[key], expected[key])
    assert got.to("cpu") is got and got["input_ids"].device.type == "cpu"


SPECIAL_ATTRIBUTES = ["pad_token", "pad_token_id", "cls_token", "cls_token_id", "sep_token",
                      "sep_token_id", "unk_token", "unk_token_id", "mask_token",
                      "mask_token_id", "bos_token", "eos_token", "all_special_tokens",
                      "all_special_ids", "pad_token_type_id", "model_max_length",
                      "padding_side", "truncation_side"]


@pytest.mark.parametrize("name", SPECIAL_ATTRIBUTES)
@pytest.mark.parametrize("which", ["minilm", "bert_uncased"])
def test_special_token_attributes(request, which, name):
    """pad_token, pad_token_id, cls_token … all_special_ids: transformers' values."""
    ours, theirs = request.getfixturevalue(which)
    if name == "model_max_length" and which == "bert_uncased":
        assert ours.model_max_length is None  # transformers' "no limit" value
        assert theirs.model_max_length >= 10**18
        return
    assert getattr(ours, name) == getattr(theirs, name)


def test_setting_a_special_token(minilm):
    """tok.pad_token = '[SEP]' changes pad_token_id and what padding uses."""
    ours, theirs = minilm
    try:
        ours.pad_token = theirs.pad_token = "[SEP]"
        assert ours.pad_token_id == theirs.pad_token_id
        _same(ours, theirs, ["a b c", "a"], padding=True)
    finally:
        ours.pad_token = theirs.pad_token = "[PAD]"


def test_batch_decode(minilm, lines):
    """batch_decode keeps special tokens by default and skips them on request."""
    ours, theirs = minilm
    batch = ours(lines[:6], padding=True)["input_ids"]
    for skip in (False, True):
        with quiet():
            expected = theirs.batch_decode(batch, skip_special_tokens=skip)
        assert ours.batch_decode(batch, skip_special_tokens=skip) == expected


def test_batch_decode_takes_arrays(minilm, lines):
    """A numpy array of ids decodes like the lists it holds."""
    pytest.importorskip("numpy")
    ours, theirs = minilm
    batch = ours(lines[:3], padding=True, return_tensors="np")["input_ids"]
    assert ours.batch_decode(batch) == theirs.batch_decode(batch)


def test_convert_ids_to_tokens(minilm, lines):
    """One id gives one token; a list gives a list; skip_special_tokens drops them."""
    ours, theirs = minilm
    ids = ours(lines[0])["input_ids"] + [0]
    assert ours.convert_ids_to_tokens(ids[1]) == theirs.convert_ids_to_tokens(ids[1])
    for skip in (False, True):
        assert (ours.convert_ids_to_tokens(ids, skip_special_tokens=skip)
                == theirs.convert_ids_to_tokens(ids, skip_special_tokens=skip))


def test_convert_tokens_to_ids(minilm):
    """Known tokens give their ids; unknown ones the unknown token's id."""
    ours, theirs = minilm
    tokens = ["hello", "[CLS]", "##ing", "notatoken-zz", "[MASK]"]
    assert ours.convert_tokens_to_ids(tokens) == theirs.convert_tokens_to_ids(tokens)
    assert ours.convert_tokens_to_ids("qqqzzz") == theirs.convert_tokens_to_ids("qqqzzz")


PAD_CALLS = [
    dict(),
    dict(padding="max_length", max_length=40),
    dict(pad_to_multiple_of=8, padding_side="left"),
    dict(return_attention_mask=False),
    dict(return_tensors="np"),
]


@pytest.mark.parametrize("options", PAD_CALLS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("form", ["dict_of_rows", "list_of_dicts", "one_row"])
def test_pad_matches_transformers(minilm, lines, form, options):
    """tok.pad on unpadded model inputs gives transformers' tok.pad result."""
    ours, theirs = minilm
    encoded = dict(ours(lines[:5], lines[5:10], return_special_tokens_mask=True))
    inputs = {"dict_of_rows": lambda: encoded,
              "list_of_dicts": lambda: [{k: v[i] for k, v in encoded.items()}
                                        for i in range(5)],
              "one_row": lambda: {k: v[0] for k, v in encoded.items()}}[form]
    if form == "one_row" and options.get("return_tensors"):
        options = {**options, "padding": "max_length", "max_length": 60}
    with quiet():
        expected = as_plain(theirs.pad(inputs(), **options))
    assert as_plain(ours.pad(inputs(), **options)) == expected


def test_pad_to_tensors_pt(minilm, lines):
    """tok.pad(..., return_tensors='pt') gives transformers' tensors."""
    pytest.importorskip("torch", reason=TORCH_SKIP)
    ours, theirs = minilm
    encoded = dict(ours(lines[:4]))
    with quiet():
        expected = as_plain(theirs.pad(encoded, return_tensors="pt"))
    assert as_plain(ours.pad(encoded, return_tensors="pt")) == expected


@pytest.mark.parametrize("shape", ["batch", "pairs"])
def test_batch_encoding_helpers(minilm, lines, shape):
    """tokens(i), word_ids(i), sequence_ids(i) and char_to_token as transformers'."""
    ours, theirs = minilm
    args = (lines[:4],) if shape == "batch" else (lines[:4], lines[4:8])
    got = ours(*args, padding=True)
    with quiet():
        expected = theirs(*args, padding=True)
    for i in range(4):
        assert got.tokens(i) == expected.tokens(i)
        assert got.word_ids(i) == expected.word_ids(i)
        assert got.sequence_ids(i) == expected.sequence_ids(i)
        for seq in range(len(args)):
            for char in range(0, len(args[seq][i]), 3):
                assert (got.char_to_token(i, char, sequence_index=seq)
                        == expected.char_to_token(i, char, sequence_index=seq))


WORD_QUERIES = ["char_to_word", "word_to_tokens", "word_to_chars"]
TOKEN_QUERIES = ["token_to_chars", "token_to_word", "token_to_sequence"]


@pytest.mark.parametrize("query", WORD_QUERIES + TOKEN_QUERIES)
def test_alignment_queries(minilm, lines, query):
    """Every alignment query of the result, for every row, index and sequence, as transformers."""
    ours, theirs = minilm
    args = (lines[:3], lines[3:6])
    got = ours(*args, padding=True)
    with quiet():
        expected = theirs(*args, padding=True)
    for row in range(3):
        if query in TOKEN_QUERIES:
            calls = [(row, t) for t in range(len(got["input_ids"][row]))]
        elif query == "char_to_word":
            calls = [(row, c, s) for s in (0, 1) for c in range(len(args[s][row]))]
        else:  # every word (transformers' word_to_chars fails on a missing word)
            pairs = zip(expected.word_ids(row), expected.sequence_ids(row), strict=True)
            words = {(w, s) for w, s in pairs if w is not None}
            calls = [(row, w, s) for w, s in sorted(words)]
        for call in calls:
            assert getattr(got, query)(*call) == getattr(expected, query)(*call), call


def test_len_and_convert_tokens_to_string(minilm, lines):
    """len(tok) counts added tokens; convert_tokens_to_string glues pieces, as transformers."""
    ours, theirs = minilm
    assert len(ours) == len(theirs)
    for line in lines[:6]:
        tokens = ours.tokenize(line)
        assert tokens == theirs.tokenize(line)
        assert ours.convert_tokens_to_string(tokens) == theirs.convert_tokens_to_string(tokens)


def test_decode_takes_a_tensor_row(minilm, lines):
    """decode accepts a torch tensor (and skips special tokens, HF tokenizers' default)."""
    pytest.importorskip("torch", reason=TORCH_SKIP)
    ours, theirs = minilm
    row = ours(lines[:2], padding=True, return_tensors="pt")["input_ids"][1]
    assert ours.decode(row) == theirs.decode(row, skip_special_tokens=True)


def test_char_to_token_of_one_input(minilm, lines):
    """char_to_token(c) on an unbatched call reads row 0, as transformers."""
    ours, theirs = minilm
    got, expected = ours(lines[2]), theirs(lines[2])
    assert [got.char_to_token(c) for c in range(len(lines[2]))] == \
           [expected.char_to_token(c) for c in range(len(lines[2]))]



@pytest.mark.parametrize("collator", ["DataCollatorWithPadding",
                                      "DataCollatorForTokenClassification"])
def test_transformers_data_collators_take_ours(minilm, lines, collator):
    """transformers' collators (what Trainer pads with) work with our tokenizer as theirs."""
    ours, theirs = minilm
    features = [dict(ours(line)) for line in lines[:6]]
    if collator == "DataCollatorForTokenClassification":
        for f in features:
            f["labels"] = list(range(len(f["input_ids"])))
    results = []
    for tok in (ours, theirs):
        make = getattr(transformers, collator)(tokenizer=tok, return_tensors="np",
                                               pad_to_multiple_of=8)
        with quiet():
            results.append(as_plain(make([dict(f) for f in features])))
    assert results[0] == results[1]


def test_pad_takes_transformers_batch_encoding(minilm, lines):
    """tok.pad accepts transformers' BatchEncoding (a UserDict, not a dict)."""
    ours, theirs = minilm
    with quiet():
        encoded = theirs(lines[:4])
        expected = as_plain(theirs.pad(encoded))
    assert as_plain(ours.pad(encoded)) == expected


# ---------------------------------------------------------------- random input (hypothesis)

_word = st.one_of(st.sampled_from(["Hello", "world!", "[MASK]", "naïve", "東京", "don't",
                                   "x" * 120, "", " ", "ΣΑΣ", "\u200b", "tok en"]),
                  st.text(max_size=6))
_word_lists = st.lists(_word, max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(first=_word_lists, second=st.one_of(st.none(), _word_lists.filter(bool)))
def test_random_word_lists(minilm, first, second):
    """Any word lists (empty words, spaces inside, added tokens, long words) as transformers.

    (An empty pair list is left out: transformers drops it as if no pair were given.)
    """
    ours, theirs = minilm
    args = (first,) if second is None else (first, second)
    _same(ours, theirs, *args, is_split_into_words=True, return_offsets_mapping=True,
          return_special_tokens_mask=True)


_rows = st.lists(st.lists(st.integers(0, 30521), max_size=12), min_size=1, max_size=5)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(rows=_rows, multiple=st.sampled_from([None, 1, 3, 8]),
       side=st.sampled_from(["right", "left"]))
def test_random_rows_pad(minilm, rows, multiple, side):
    """tok.pad on any rows of ids, with any multiple and side, as transformers' tok.pad."""
    ours, theirs = minilm
    inputs = {"input_ids": rows, "token_type_ids": [[1] * len(r) for r in rows]}
    options = dict(pad_to_multiple_of=multiple, padding_side=side)
    with quiet():
        expected = as_plain(theirs.pad({k: list(v) for k, v in inputs.items()}, **options))
    assert as_plain(ours.pad(inputs, **options)) == expected
