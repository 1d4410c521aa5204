"""Differential tests: pipelines ending in HF's ``Metaspace`` compile and give HF's results.

Issue 22's last item (``pipeline.metaspace_form``, ``fast.metaspace_words``, the C walk's
``WP_BEGIN`` and prefix): ``Metaspace`` after BERT's normalizer in each prepend scheme,
split or whole, after BERT's pre-tokenizer in a ``Sequence``, after other compiled
normalizers, with another replacement; each read by both libraries from the same
``tokenizer.json`` (a WordPiece over ``bert-base-uncased`` plus ``▁`` and ``_`` tokens, so
that words split as they would on a real Metaspace vocabulary), compared with live HF
``tokenizers`` on the shared corpora, edge texts, pairs and added tokens, and generated
text, ids, offsets and word ids, on both backends. Each takes the native path; the
variants left staged name their stage.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.differential.test_native import examples
from tests.differential.test_native_pipelines import (
    BERT_N,
    BERT_P,
    EDGES,
    _base_json,
    _corpus,
    _seq_n,
    _seq_p,
    assert_takes_native,
)
from tests.robustness.helpers import use_backend
from wordpieces.fast import backend
from wordpieces.fast.backend import NativeWordEncoder, make_word_encoder
from wordpieces.tokenizer import Tokenizer

tokenizers = pytest.importorskip("tokenizers")

pytestmark = pytest.mark.shared_data

BACKENDS = ("python", "native")
BAR = "\u2581"


def _metaspace(scheme: str = "always", split: bool = True, replacement: str = BAR) -> dict:
    return {"type": "Metaspace", "replacement": replacement, "prepend_scheme": scheme,
            "split": split}


NFD_LOWER_STRIP = _seq_n({"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"})

# Names without spaces or commas: tests/unit/fast/test_sanitizers.py selects some by name.
PIPELINES = {
    **{f"Bert_Metaspace_{scheme}_{'split' if split else 'whole'}": (
        BERT_N, _metaspace(scheme, split))
       for scheme in ("always", "first", "never") for split in (True, False)},
    **{f"Bert_Seq_Bert_Metaspace_{scheme}_{'split' if split else 'whole'}": (
        BERT_N, _seq_p(BERT_P, _metaspace(scheme, split)))
       for scheme in ("always", "first", "never") for split in (True, False)},
    "NFD_Lowercase_StripAccents_Metaspace": (NFD_LOWER_STRIP, _metaspace()),
    "NFKC_Lowercase_Metaspace_first": (_seq_n({"type": "NFKC"}, {"type": "Lowercase"}),
                                       _metaspace("first")),
    "Bert_Metaspace_underscore": (BERT_N, _metaspace(replacement="_")),
    "Bert_Seq_Bert_Metaspace_underscore": (BERT_N, _seq_p(BERT_P, _metaspace(replacement="_"))),
    "Bert_Seq_WhitespaceSplit_Metaspace_never": (
        BERT_N, _seq_p({"type": "WhitespaceSplit"}, _metaspace("never"))),
    "Lowercase_Metaspace_letter_x": ({"type": "Lowercase"}, _metaspace(replacement="x")),
}

# Metaspace pipelines kept on the staged Python path, and the words that name why.
GENERAL = {
    "Seq[Metaspace,Digits]": (BERT_N, _seq_p(_metaspace(), {"type": "Digits",
                                                             "individual_digits": True}),
                              "pre_tokenizer Metaspace: before another member"),
    "Seq[Punctuation,Metaspace]": (BERT_N, _seq_p({"type": "Punctuation",
                                                   "behavior": "Isolated"}, _metaspace()),
                                   "keep the space"),
    "Seq[Whitespace,Metaspace]": (BERT_N, _seq_p({"type": "Whitespace"}, _metaspace()),
                                  "several run classes"),
    "Metaspace(tab)": (BERT_N, _metaspace(replacement="\t"), "the replacement is whitespace"),
    "Prepend then Metaspace": (_seq_n(BERT_N, {"type": "Prepend", "prepend": "x"}),
                               _metaspace(), "two edit steps"),
    "Strip then Metaspace": (_seq_n({"type": "Strip", "strip_left": True, "strip_right": True},
                                    BERT_N), _metaspace(), "normalizer Strip"),
    "Split regex then Metaspace": (BERT_N, _seq_p({"type": "Split", "pattern": {"Regex": "a+b"},
                                                   "behavior": "Isolated", "invert": False},
                                                  _metaspace()), "is a general regex"),
}

# The edges of the edit step, checked live: leading deleted characters ("first" looks at
# the original's character 0), texts starting with a space or the replacement, runs of
# spaces, whitespace BERT maps to spaces, CJK it pads with spaces, long words (split=False
# makes the text one word: over 100 characters it is [UNK]), empty and all-space texts.
EXTRA = ["hi x", "\x00hi x", "\x00\x00hi", " hi  x", "\u2581hi", "x\u2581y", "hi \u2581x",
         "hi\u2581\u2581x", "  ", "", " ", "\u3000hi\tx\n", "a\x00b c", "\u4f60\u597d hi",
         "hi\u4f60\u597d", "\u4f60x", "\x00 hi", " \x00hi", ",x", "x,y", "x \x00hi", "\u2581 x",
         "_hi _x", "a_b", "a \x00 b", "hi \x1c x", "x" * 101, "x" * 99, " ".join(["the"] * 30),
         "hi  ", "  hi", "\t\thi", "\u00a8a \u00a8", "\ufdfa x", "e\u0301 n\u0303", "xx xax",
         "the  quick\u00a0brown \u2028fox"]


@cache
def _json(normalizer: str, pre_tokenizer: str) -> str:
    """The shared tokenizer.json with these stages (JSON) and ▁/_ tokens in its vocabulary."""
    data = json.loads(_base_json())
    vocab = data["model"]["vocab"]
    words = [t for t in list(vocab)[1996:6000] if t.isalpha()]
    for token in [BAR, BAR + BAR, "_", *(BAR + w for w in words), *("_" + w for w in words[:300])]:
        vocab.setdefault(token, len(vocab))
    data["normalizer"], data["pre_tokenizer"] = json.loads(normalizer), json.loads(pre_tokenizer)
    return json.dumps(data)


def _source(name: str, table: dict = PIPELINES) -> str:
    normalizer, pre_tokenizer = table[name][:2]
    return _json(json.dumps(normalizer), json.dumps(pre_tokenizer))


@cache
def _hf(name: str):
    return tokenizers.Tokenizer.from_str(_source(name))


def _ours(name: str, kind: str, monkeypatch) -> Tokenizer:
    use_backend(kind, monkeypatch)
    return Tokenizer.from_str(_source(name))


def _assert_same(tok: Tokenizer, hf, texts: list, name: str, special: bool = False) -> None:
    """Ids, offsets and word ids of each text (or pair) equal HF's; the ids-only path too."""
    theirs = hf.encode_batch(texts, add_special_tokens=special)
    ours = tok.encode_batch(texts, add_special_tokens=special)
    ids = tok.encode_batch_ids(texts, add_special_tokens=special)
    for text, mine, ref, mine_ids in zip(texts, ours, theirs, ids, strict=True):
        assert (mine.ids, mine.offsets) == (ref.ids, ref.offsets), (name, text)
        assert mine.word_ids == ref.word_ids, (name, text)
        assert mine_ids == ref.ids, (name, text)


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("name", list(PIPELINES))
def test_shared_corpora_give_hf_ids_and_offsets(name, kind, monkeypatch):
    """Every line of every corpus, and the edge texts: HF's ids, offsets and word ids."""
    _assert_same(_ours(name, kind, monkeypatch), _hf(name), [*_corpus(), *EXTRA], name)


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("name", list(PIPELINES))
def test_pairs_and_added_tokens_give_hf_results(name, kind, monkeypatch):
    """Pairs and texts holding an added special token go through the same word encoder."""
    data = json.loads(_source(name))
    data["added_tokens"] = [{"id": 103, "content": "[MASK]", "single_word": False,
                             "lstrip": False, "rstrip": False, "normalized": False,
                             "special": True}]
    data["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 102],
                              "cls": ["[CLS]", 101]}
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_str(json.dumps(data))
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    texts = ["hi [MASK] x", "[MASK]hi", " [MASK] ", "\x00[MASK]hi x", "hi[MASK]",
             "\u4f60[MASK]\u597d", "a  b [MASK]  c"]
    pairs = [("hi x", " y z"), ("\x00a", "\x00b"), ("", "x"), ("[MASK] hi", "x [MASK]y"),
             ("the  cat", "\u2581sat")]
    _assert_same(tok, hf, texts + pairs, name, special=True)
    assert tok(pairs)["input_ids"] == [e.ids for e in hf.encode_batch(pairs)]


# Any code point, with spaces, the replacements, controls BERT deletes and CJK it pads.
META_TEXT = st.lists(st.one_of(st.characters(codec=None, exclude_categories=("Cs",)),
                               st.sampled_from(EDGES + "  \t\x00\x1c\u2581\u2581_x\u4f60\u00a8"),
                               st.sampled_from(["the", "hello", "  ", " \u2581"])),
                     max_size=30).map("".join)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=examples(200), deadline=None)  # fewer under the sanitizers
@given(name=st.sampled_from(sorted(PIPELINES)), texts=st.lists(META_TEXT, min_size=1,
                                                                   max_size=4))
def test_any_text_gives_hf_ids_and_offsets(kind, name, texts):
    """Generated text over all of Unicode: HF's ids, offsets and word ids, both backends."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _assert_same(_ours(name, kind, monkeypatch), _hf(name), texts, name)


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_scheme_set_on_a_live_tokenizer_is_followed(kind, monkeypatch):
    """Setting the Metaspace's options rebuilds the compiled pipeline (HF lets you)."""
    tok = _ours("Bert_Metaspace_always_split", kind, monkeypatch)
    texts = ["hi there", "\x00hi there"]
    for scheme, split in (("never", True), ("first", False), ("always", True)):
        tok.pre_tokenizer.prepend_scheme, tok.pre_tokenizer.split_words = scheme, split
        name = f"Bert_Metaspace_{scheme}_{'split' if split else 'whole'}"
        _assert_same(tok, _hf(name), texts, name)


@pytest.mark.parametrize("name", list(GENERAL))
def test_the_rest_names_the_stage_that_keeps_it_in_python(name, monkeypatch):
    """A Metaspace pipeline that cannot compile says why, and still gives HF's results."""
    use_backend("native", monkeypatch)
    source = _source(name, GENERAL)
    tok = Tokenizer.from_str(source)
    why = backend.explain_backend(tok)
    assert why.startswith("python: ") and GENERAL[name][2] in why, why
    assert not isinstance(make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model),
                          NativeWordEncoder)
    _assert_same(tok, tokenizers.Tokenizer.from_str(source), [*_corpus()[::7], *EXTRA], name)


@pytest.mark.parametrize("name", list(PIPELINES))
def test_each_pipeline_takes_the_native_path(name, monkeypatch):
    """Where the extension is built, every listed pipeline runs in C."""
    assert_takes_native(_ours(name, "native", monkeypatch))


@pytest.mark.parametrize("name", ["Bert_Metaspace_always_split", "Bert_Metaspace_first_whole",
                                  "Bert_Seq_Bert_Metaspace_always_split",
                                  "Bert_Seq_Bert_Metaspace_first_split"])
def test_texts_without_a_complex_character_stay_in_c(name, monkeypatch):
    """Spaces, replacements, deleted controls, padded CJK: no call of the Python encoder."""
    tok = _ours(name, "native", monkeypatch)
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    calls: list[str] = []
    monkeypatch.setattr(encoder.reference, "encode_ids", lambda t: calls.append(t) or [])
    monkeypatch.setattr(encoder.reference, "encode", lambda t: calls.append(t) or ([], [], []))
    texts = [t for t in EXTRA if "\ufdfa" not in t] + list(_corpus()[:40])
    ours = encoder.encode_batch(texts, 1)
    assert calls == []
    assert [(ids, offsets) for ids, offsets, _ in ours] == [
        (e.ids, e.offsets) for e in _hf(name).encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize("name", ["Bert_Metaspace_always_split", "Bert_Metaspace_never_whole",
                                  "Bert_Seq_Bert_Metaspace_always_split"])
def test_long_texts_on_threads_give_hf_results(name, monkeypatch):
    """Texts long enough for C to release the GIL, a batch on 3 threads: HF's results."""
    tok = _ours(name, "native", monkeypatch)
    lines = list(_corpus())
    texts = ["  ".join(lines[k:k + 40]) for k in range(0, len(lines), 40)] + lines
    theirs = _hf(name).encode_batch(texts, add_special_tokens=False)
    ours = tok.encode_batch(texts, add_special_tokens=False, num_threads=3)
    assert [(e.ids, e.offsets, e.word_ids) for e in ours] == [
        (e.ids, e.offsets, e.word_ids) for e in theirs]
    assert tok.encode_batch_ids(texts, add_special_tokens=False, num_threads=3) == [
        e.ids for e in theirs]


def test_the_c_encoder_checks_its_metaspace_argument(monkeypatch):
    """The C Encoder's metaspace=(replacement, scheme, each_word): bad values are refused."""
    use_backend("native", monkeypatch)
    core = backend._core  # the extension module (the backend's own import of it)
    base = make_word_encoder(*_stages("Bert_Metaspace_always_split"))
    args = ([b"[UNK]", b"a"], b"##", 0, 100, -1, base._lookup, base._fallback, "")
    cases = [(("\u2581", "sometimes", False), ValueError, "prepend_scheme"),
             (("ab", "always", False), ValueError, "one character"),
             (("\u2581",), TypeError, "takes exactly 3"), ("\u2581", TypeError, "must be")]
    for meta, error, words in cases:
        with pytest.raises(error, match=words):
            core.Encoder(*args, meta)
    with pytest.raises(ValueError, match="two edit steps"):
        core.Encoder(*args[:-1], "x", ("\u2581", "always", False))
    encoder = core.Encoder(*args, ("\u2581", "always", False))
    assert encoder.encode_ids("a") == [0]  # "▁a" is not in this vocabulary


def _stages(name: str):
    tok = Tokenizer.from_str(_source(name))
    return tok.normalizer, tok.pre_tokenizer, tok.model
