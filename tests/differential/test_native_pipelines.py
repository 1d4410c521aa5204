"""Differential tests: every pipeline the fast paths compile gives HF's ids and offsets.

Issue 22's pipelines (``pipeline.char_forms``): the table's three, each listed component
joined after BERT's own stage in a ``Sequence``, and each alone with the other stage
BERT's; each read by both libraries from the same ``tokenizer.json`` (a WordPiece over
``bert-base-uncased``), compared with live HF ``tokenizers`` on the shared corpora and on
generated text over all of Unicode, on both backends. Each takes the native path
(``NativeWordEncoder``) where the extension is built, and the pipelines that cannot
compile name the stage that keeps them off it.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hf_reference import sample_lines
from tests.robustness.helpers import use_backend
from tests.shared_data import corpus_lines, shared_path
from wordpieces.fast import backend
from wordpieces.fast.backend import NativeWordEncoder, make_word_encoder
from wordpieces.tokenizer import Tokenizer

tokenizers = pytest.importorskip("tokenizers")

pytestmark = pytest.mark.shared_data

BACKENDS = ("python", "native")
LINES = 60  # per corpus

BERT_N = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
          "strip_accents": None, "lowercase": True}
BERT_P = {"type": "BertPreTokenizer"}


def _seq_n(*members: dict) -> dict:
    return {"type": "Sequence", "normalizers": list(members)}


def _seq_p(*members: dict) -> dict:
    return {"type": "Sequence", "pretokenizers": list(members)}


def _split(pattern: dict, behavior: str) -> dict:
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": False}


NORMALIZERS = {
    "Lowercase": {"type": "Lowercase"},
    "StripAccents": {"type": "StripAccents"},
    "NFD": {"type": "NFD"}, "NFKD": {"type": "NFKD"},
    "NFC": {"type": "NFC"}, "NFKC": {"type": "NFKC"},
    "Replace(a->ä)": {"type": "Replace", "pattern": {"String": "a"}, "content": "\u00e4"},
    "Replace(e->'')": {"type": "Replace", "pattern": {"String": "e"}, "content": ""},
    "Bert(cased, strip)": {**BERT_N, "lowercase": False, "strip_accents": True},
    "Bert(no clean, no cjk)": {**BERT_N, "clean_text": False, "handle_chinese_chars": False},
}

PRE_TOKENIZERS = {
    "Whitespace": {"type": "Whitespace"},
    "WhitespaceSplit": {"type": "WhitespaceSplit"},
    **{f"Punctuation({b})": {"type": "Punctuation", "behavior": b}
       for b in ("Isolated", "Contiguous", "Removed")},
    "Digits": {"type": "Digits", "individual_digits": False},
    "Digits(individual)": {"type": "Digits", "individual_digits": True},
    "CharDelimiterSplit( )": {"type": "CharDelimiterSplit", "delimiter": " "},
    "CharDelimiterSplit(e)": {"type": "CharDelimiterSplit", "delimiter": "e"},
    "Split(-, Isolated)": _split({"String": "-"}, "Isolated"),
    "Split(\\p{P}, Isolated)": _split({"Regex": r"\p{P}"}, "Isolated"),
    "Split([0-9]+, Isolated)": _split({"Regex": "[0-9]+"}, "Isolated"),
    "Split(\\s, Removed)": _split({"Regex": r"\s"}, "Removed"),
    "Split([aeiou], Contiguous)": _split({"Regex": "[aeiou]"}, "Contiguous"),
}

TABLE = {
    "Seq[NFD,Lowercase,StripAccents] / Whitespace": (
        _seq_n({"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}),
        {"type": "Whitespace"}),
    "Seq[NFKC,Lowercase] / Seq[WhitespaceSplit,Punctuation]": (
        _seq_n({"type": "NFKC"}, {"type": "Lowercase"}),
        _seq_p({"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"})),
    "Bert / Seq[Bert,Digits(individual)]": (
        BERT_N, _seq_p(BERT_P, {"type": "Digits", "individual_digits": True})),
}

PIPELINES = {
    **TABLE,
    **{f"{name} / Bert": (n, BERT_P) for name, n in NORMALIZERS.items()},
    **{f"Seq[Bert,{name}] / Bert": (_seq_n(BERT_N, n), BERT_P)
       for name, n in NORMALIZERS.items()},
    **{f"Bert / {name}": (BERT_N, p) for name, p in PRE_TOKENIZERS.items()},
    **{f"Bert / Seq[Bert,{name}]": (BERT_N, _seq_p(BERT_P, p))
       for name, p in PRE_TOKENIZERS.items()},
}

# Pipelines kept on the staged Python path, and the words that name why.
GENERAL = {
    "Strip": ({"type": "Strip", "strip_left": True, "strip_right": True},
              {"type": "Punctuation", "behavior": "Isolated"}, "normalizer Strip"),
    "Prepend": (_seq_n({"type": "Prepend", "prepend": "_"}, BERT_N), BERT_P,
                "normalizer Prepend"),
    "Replace regex": ({"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                      BERT_P, "normalizer Replace"),
    "Metaspace before Digits": (BERT_N, _seq_p({"type": "Metaspace", "replacement": "\u2581",
                                                "prepend_scheme": "always", "split": True},
                                               {"type": "Digits", "individual_digits": True}),
                                "pre_tokenizer Metaspace"),
    "Split regex": (BERT_N, _split({"Regex": r"\w+|\d{1,3}"}, "Isolated"),
                    "is a general regex"),
    "merged": (BERT_N, {"type": "Punctuation", "behavior": "MergedWithPrevious"},
               "merged_with_previous"),
}


@cache
def _base_json() -> str:
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    model = tokenizers.models.WordPiece.from_file(str(vocab), unk_token="[UNK]")
    return tokenizers.Tokenizer(model).to_str()


def _json(normalizer: dict, pre_tokenizer: dict) -> str:
    data = json.loads(_base_json())
    data["normalizer"], data["pre_tokenizer"] = normalizer, pre_tokenizer
    return json.dumps(data)


@cache
def _hf(name: str):
    return tokenizers.Tokenizer.from_str(_json(*PIPELINES[name]))


@cache
def _corpus() -> tuple[str, ...]:
    lines = [line for corpus in ("english", "portuguese", "chinese", "udhr")
             for line in sample_lines(corpus, LINES)]
    emoji = corpus_lines("multilingual", "emoji-test-13.1.txt", limit=5000)
    lines += emoji[::max(1, len(emoji) // LINES)][:LINES]
    extra = ["Ｆｕｌｌ-width ＡＢＣ １２３ ﬁne", "e\u0301 a\u0308 \u1100\u1161\u11a8 \u00c5\u212b",
             "ΣΑΣ σας. İstanbul", "a\u00adb x\u200by \ufeffz \x00q", "###hash ##tag #",
             "3.14-15 --- 1,000,000 a1b2c3", "tab\there\nnew\u3000line\u2028"]
    return tuple(lines + extra)


def _ours(name: str, kind: str, monkeypatch) -> Tokenizer:
    use_backend(kind, monkeypatch)
    return Tokenizer.from_str(_json(*PIPELINES[name]))


def _assert_same(tok: Tokenizer, hf, texts: list[str], name: str) -> None:
    theirs = hf.encode_batch(texts, add_special_tokens=False)
    ours = tok.encode_batch(texts, add_special_tokens=False)
    ids = tok.encode_batch_ids(texts, add_special_tokens=False)
    for text, mine, ref, mine_ids in zip(texts, ours, theirs, ids, strict=True):
        assert (mine.ids, mine.offsets) == (ref.ids, ref.offsets), (name, text)
        assert mine_ids == ref.ids, (name, text)


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("name", list(PIPELINES))
def test_shared_corpora_give_hf_ids_and_offsets(name, kind, monkeypatch):
    """Every line of every corpus: HF's ids and offsets, on both backends."""
    tok = _ours(name, kind, monkeypatch)
    _assert_same(tok, _hf(name), list(_corpus()), name)


# Any code point, with the characters that test the contracts' edges made frequent.
EDGES = ("aAé\u0301\u0308\u0323\u0345\u1100\u1161\u11a8\uac00\u00c5\u212bΣσς"
         "İ1２\u0663 \t\n\u3000\u00a0\u2028\x00\x1c\u00ad\u200b\ufffd-.,!#'¿你好ﬁ㎏①")
# (No lone surrogates: HF refuses them at the door, "TextEncodeInput must be ...".)
ANY_TEXT = st.text(st.one_of(st.characters(codec=None, exclude_categories=("Cs",)),
                             st.sampled_from(EDGES)), max_size=40)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(PIPELINES)), texts=st.lists(ANY_TEXT, min_size=1,
                                                                   max_size=4))
def test_any_text_gives_hf_ids_and_offsets(kind, name, texts):
    """Generated text over all of Unicode: HF's ids and offsets, on both backends."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        tok = _ours(name, kind, monkeypatch)
        _assert_same(tok, _hf(name), texts, name)


def assert_takes_native(tok) -> None:
    """Where the extension is built, ``tok``'s pipeline runs in C (and says so)."""
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    assert isinstance(encoder, NativeWordEncoder), backend.explain_backend(tok)
    assert backend.explain_backend(tok) == "native"


@pytest.mark.parametrize("name", list(PIPELINES))
def test_each_pipeline_takes_the_native_path(name, monkeypatch):
    """Where the extension is built, every listed pipeline runs in C."""
    assert_takes_native(_ours(name, "native", monkeypatch))


@pytest.mark.parametrize("name", list(GENERAL))
def test_the_rest_names_the_stage_that_keeps_it_in_python(name, monkeypatch):
    """A pipeline that cannot compile says which stage, and still gives HF's results."""
    normalizer, pre_tokenizer, words = GENERAL[name]
    assert_kept_in_python(normalizer, pre_tokenizer, words, list(_corpus())[::7], name,
                          monkeypatch)


def assert_kept_in_python(normalizer: dict, pre_tokenizer: dict, words: str, texts: list[str],
                          name: str, monkeypatch) -> None:
    """The pipeline stays off C, ``explain_backend`` says why (``words``), and it still
    gives HF's ids and offsets on ``texts``."""
    use_backend("native", monkeypatch)
    source = _json(normalizer, pre_tokenizer)
    tok = Tokenizer.from_str(source)
    why = backend.explain_backend(tok)
    assert why.startswith("python: ") and words in why, why
    assert not isinstance(make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model),
                          NativeWordEncoder)
    _assert_same(tok, tokenizers.Tokenizer.from_str(source), texts, name)


PREFIX_WORDS = st.text("abx#", min_size=1, max_size=9)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=100, deadline=None)
@given(prefix=st.sampled_from(["##", "xx", "x", "#"]),
       tokens=st.sets(st.text("abx#", min_size=1, max_size=4), min_size=1, max_size=12),
       words=st.lists(PREFIX_WORDS, min_size=1, max_size=5),
       whitespace=st.booleans())
def test_words_starting_with_the_prefix_split_as_hf(kind, prefix, tokens, words, whitespace):
    """A continuation prefix a word can start with ("xx", or "##" under Whitespace)."""
    vocab = sorted({"[UNK]", *tokens, *(prefix + t for t in sorted(tokens)[:6])})
    model = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": prefix,
             "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}}
    data = json.loads(_base_json())
    data["model"], data["normalizer"] = model, BERT_N
    data["pre_tokenizer"] = {"type": "Whitespace"} if whitespace else BERT_P
    with pytest.MonkeyPatch.context() as monkeypatch:
        use_backend(kind, monkeypatch)
        tok = Tokenizer.from_str(json.dumps(data))
        _assert_same(tok, tokenizers.Tokenizer.from_str(json.dumps(data)), [" ".join(words)],
                     prefix)
