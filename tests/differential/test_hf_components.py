"""Differential tests: HF's generic components read from a tokenizer.json give HF's
encodings (ids, tokens, offsets into the original, word ids, pairs, overflow) and HF's
decoded text, on real lines of the shared corpora, with both backends.

Each case is one stage of a ``tokenizer.json`` around a WordPiece (or WordLevel) model
over the multilingual BERT vocabulary; both sides read the same JSON. The normalizers
are run twice: with ``WhitespaceSplit`` (real words) and with a one-character ``Split``
(every normalized character its own token: its offsets are the normalizer's alignment).
"""

from __future__ import annotations

import json
import os

import pytest

from tests.hf_reference import hf, mismatches, sample_lines
from tests.shared_data import shared_path
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.shared_data

LINES = int(os.environ.get("WORDPIECES_HF_LINES", "25"))  # per corpus
CORPORA = ("english", "portuguese", "chinese", "udhr")
BACKENDS = ("python", "auto")  # auto: the native extension where it is built

WHITESPACE_SPLIT = {"type": "WhitespaceSplit"}
EACH_CHAR = {"type": "Split", "pattern": {"Regex": r"[\s\S]"}, "behavior": "Isolated",
             "invert": False}
BERT_PRE = {"type": "BertPreTokenizer"}
META = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}


def _replace(pattern: dict, content: str) -> dict:
    return {"type": "Replace", "pattern": pattern, "content": content}


NORMALIZERS = {
    "bert": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
             "strip_accents": None, "lowercase": True},
    "bert-cased": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                   "strip_accents": None, "lowercase": False},
    "lowercase": {"type": "Lowercase"},
    "nfc": {"type": "NFC"}, "nfd": {"type": "NFD"}, "nfkc": {"type": "NFKC"},
    "nfkd": {"type": "NFKD"},
    "strip-accents": {"type": "Sequence", "normalizers": [{"type": "NFD"},
                                                          {"type": "StripAccents"}]},
    "strip": {"type": "Strip", "strip_left": True, "strip_right": True},
    "strip-left": {"type": "Strip", "strip_left": True, "strip_right": False},
    "replace-string": _replace({"String": "a"}, "<\u00e0>"),
    "replace-regex": _replace({"Regex": r"\s+"}, "\u2581"),
    "replace-delete": _replace({"Regex": r"\p{P}"}, ""),
    "prepend": {"type": "Prepend", "prepend": "\u2581"},
    "sequence": {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, _replace({"String": "``"}, '"'), {"type": "Lowercase"},
        {"type": "Strip", "strip_left": True, "strip_right": True},
        _replace({"Regex": " +"}, "\u2581"), {"type": "Prepend", "prepend": "\u2581"}]},
}

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def _split(pattern: dict, behavior: str, invert: bool = False) -> dict:
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}


def _metaspace(scheme: str, split: bool) -> dict:
    return {**META, "prepend_scheme": scheme, "split": split}


PRE_TOKENIZERS = {
    "bert": BERT_PRE,
    "whitespace": {"type": "Whitespace"},
    "whitespace-split": WHITESPACE_SPLIT,
    **{f"punctuation-{b}": {"type": "Punctuation", "behavior": b} for b in BEHAVIORS},
    "digits": {"type": "Digits", "individual_digits": False},
    "digits-individual": {"type": "Digits", "individual_digits": True},
    **{f"split-string-{b}": _split({"String": " "}, b) for b in BEHAVIORS},
    **{f"split-regex-{b}": _split({"Regex": r"\p{P}+|\s"}, b) for b in BEHAVIORS},
    "split-regex-invert": _split({"Regex": r"\w+"}, "Removed", invert=True),
    "split-regex-classes": _split({"Regex": r"[^\s\p{L}\p{N}]+|\d{1,3}"}, "Isolated"),
    "char-delimiter": {"type": "CharDelimiterSplit", "delimiter": " "},
    "char-delimiter-letter": {"type": "CharDelimiterSplit", "delimiter": "e"},
    **{f"metaspace-{s}-{split}": _metaspace(s, split)
       for s in ("always", "never", "first") for split in (True, False)},
    "sequence-metaspace-first": {"type": "Sequence", "pretokenizers": [
        WHITESPACE_SPLIT, _metaspace("first", True)]},
    "sequence": {"type": "Sequence", "pretokenizers": [
        {"type": "Whitespace"}, {"type": "Digits", "individual_digits": True},
        {"type": "Punctuation", "behavior": "Isolated"}]},
}


def _roberta(trim: bool, prefix: bool) -> dict:
    return {"type": "RobertaProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101],
            "trim_offsets": trim, "add_prefix_space": prefix}


TEMPLATE = {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}},
             {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
             {"Sequence": {"id": "B", "type_id": 1}},
             {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
    "special_tokens": {n: {"id": n, "ids": [i], "tokens": [n]}
                       for n, i in (("[CLS]", 101), ("[SEP]", 102))}}

PROCESSORS = {
    "bert": {"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]},
    **{f"roberta-trim{t}-prefix{p}": _roberta(t, p) for t in (True, False)
       for p in (True, False)},
    "template": TEMPLATE,
    "sequence": {"type": "Sequence", "processors": [_roberta(True, False), TEMPLATE]},
}

DECODERS = {
    "wordpiece": (BERT_PRE, {"type": "WordPiece", "prefix": "##", "cleanup": True}),
    "wordpiece-raw": (BERT_PRE, {"type": "WordPiece", "prefix": "##", "cleanup": False}),
    "metaspace": (META, {**META}),
    "metaspace-never": (_metaspace("never", True), _metaspace("never", True)),
    "replace": (META, _replace({"String": "\u2581"}, " ")),
    "strip": (META, {"type": "Strip", "content": "\u2581", "start": 1, "stop": 0}),
    "sequence": (META, {"type": "Sequence", "decoders": [
        _replace({"String": "\u2581"}, " "), {"type": "WordPiece", "prefix": "##",
                                               "cleanup": True},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}),
}

_vocab_json: list[str] = []
_lines: list[str] = []


def vocab_json() -> str:
    """The multilingual BERT vocabulary as a JSON object (made once: it is big)."""
    if not _vocab_json:
        path = shared_path("vocab", "bert-base-multilingual-cased.vocab.txt")
        with open(path, encoding="utf-8") as f:
            _vocab_json.append(json.dumps({line.rstrip("\n"): i for i, line in enumerate(f)}))
    return _vocab_json[0]


def lines() -> list[str]:
    if not _lines:
        for corpus in CORPORA:
            _lines.extend(sample_lines(corpus, LINES))
    return _lines


def document(normalizer=None, pre_tokenizer=None, processor=None, decoder=None,
             model: str = "WordPiece") -> str:
    """A whole tokenizer.json around the multilingual vocabulary."""
    block = {"type": model, "unk_token": "[UNK]", "vocab": "VOCAB"}
    if model == "WordPiece":
        block.update(continuing_subword_prefix="##", max_input_chars_per_word=100)
    text = json.dumps({"version": "1.0", "truncation": None, "padding": None,
                       "added_tokens": [], "normalizer": normalizer,
                       "pre_tokenizer": pre_tokenizer, "post_processor": processor,
                       "decoder": decoder, "model": block})
    return text.replace('"vocab": "VOCAB"', '"vocab": ' + vocab_json())


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Run the test with WORDPIECES_BACKEND set (read when a tokenizer first encodes)."""
    monkeypatch.setenv("WORDPIECES_BACKEND", request.param)
    return request.param


def both(text: str):
    return Tokenizer.from_str(text), hf.Tokenizer.from_str(text)


def assert_same_encodings(text: str, *, pair_every: int = 0) -> None:
    ours, theirs = both(text)
    bad = mismatches(ours, theirs, lines(), pair_every=pair_every)
    assert not bad, f"{len(bad)} of {len(lines())} lines differ, first: {bad[0]!r}"


@pytest.mark.parametrize("pre", ["words", "each-char"])
@pytest.mark.parametrize("name", NORMALIZERS)
def test_normalizer_matches_hf(name, pre, backend):
    """Ids, tokens and offsets equal HF's; with one token per character, the offsets are
    the normalizer's alignment to the original, character by character."""
    pre_tokenizer = WHITESPACE_SPLIT if pre == "words" else EACH_CHAR
    assert_same_encodings(document(NORMALIZERS[name], pre_tokenizer))


@pytest.mark.parametrize("name", PRE_TOKENIZERS)
def test_pre_tokenizer_matches_hf(name, backend):
    """Words, ids and offsets of every pre-tokenizer (every split behaviour) equal HF's."""
    assert_same_encodings(document(NORMALIZERS["nfc"], PRE_TOKENIZERS[name]))


@pytest.mark.parametrize("name", ["whitespace", "metaspace-first-True", "sequence"])
def test_word_level_model_matches_hf(name, backend):
    """The same pre-tokenizers in front of a WordLevel model."""
    assert_same_encodings(document(None, PRE_TOKENIZERS[name], model="WordLevel"))


@pytest.mark.parametrize("name", PROCESSORS)
def test_post_processor_matches_hf(name):
    """Singles and pairs: special tokens, type ids, trimmed offsets, sequence ids."""
    assert_same_encodings(document(None, BERT_PRE, PROCESSORS[name]), pair_every=2)


@pytest.mark.parametrize("name", PROCESSORS)
def test_post_processor_overflow_matches_hf(name):
    """Truncated pairs with a stride: every overflowing window wrapped as HF wraps it."""
    ours, theirs = both(document(None, BERT_PRE, PROCESSORS[name]))
    for tok in (ours, theirs):
        tok.enable_truncation(24, stride=4)
    bad = mismatches(ours, theirs, lines(), pair_every=2)
    assert not bad, f"{len(bad)} lines differ, first: {bad[0]!r}"


@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize("name", DECODERS)
def test_decoder_matches_hf(name, skip):
    """decode(encode(line).ids) equals HF's text, special tokens skipped or kept."""
    pre_tokenizer, decoder = DECODERS[name]
    ours, theirs = both(document(NORMALIZERS["nfc"], pre_tokenizer,
                                 PROCESSORS["template"], decoder))
    for line in lines():
        ids = theirs.encode(line).ids
        assert ours.decode(ids, skip_special_tokens=skip) == theirs.decode(
            ids, skip_special_tokens=skip), line


@pytest.mark.parametrize("case", ["sequence-normalizer", "metaspace", "punctuation-roberta",
                                  "split-regex"])
def test_saved_tokenizer_json_loads_in_hf_to_the_same_behaviour(case, tmp_path):
    """from_file then save: HF reads the saved tokenizer.json and encodes as the original."""
    text = {
        "sequence-normalizer": lambda: document(NORMALIZERS["sequence"], BERT_PRE, TEMPLATE),
        "metaspace": lambda: document(NORMALIZERS["nfkc"], META, None, META),
        "punctuation-roberta": lambda: document(
            NORMALIZERS["strip"], PRE_TOKENIZERS["punctuation-MergedWithNext"],
            PROCESSORS["sequence"], DECODERS["sequence"][1]),
        "split-regex": lambda: document(NORMALIZERS["replace-regex"],
                                        PRE_TOKENIZERS["split-regex-classes"]),
    }[case]()
    source = tmp_path / "source.json"
    source.write_text(text, encoding="utf-8")
    Tokenizer.from_file(source).save(tmp_path / "saved")
    original = hf.Tokenizer.from_file(str(source))
    reloaded = hf.Tokenizer.from_file(str(tmp_path / "saved" / "tokenizer.json"))
    assert not mismatches(reloaded, original, lines(), pair_every=3)
    assert [reloaded.decode(original.encode(x).ids) for x in lines()] == [
        original.decode(original.encode(x).ids) for x in lines()]
