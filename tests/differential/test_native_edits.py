"""Differential tests: the edit stages the fast paths compile give HF's ids and offsets.

Issue 22's edit stages (``pipeline.char_forms._edit_stage``): ``Strip`` (left, right,
both) where the whitespace it removes is a space of the pre-tokenizer, and a literal
multi-character ``Replace`` (its texts holding the pattern's guard character take the
staged path, the others the compiled one); each alone and after BERT's stage in a
``Sequence``, read by both libraries from the same ``tokenizer.json``, compared with live
HF ``tokenizers`` on the shared corpora (with lines holding the patterns and outer
whitespace) and generated text, on both backends. Each takes the native path; the
variants that cannot compile (a ``Prepend`` before a deleting stage or after a ``Strip``, a
``Strip`` the pre-tokenizer would see, a pattern spanning a space) name their stage.
``Metaspace``, the pre-tokenizer's edit step, has its own module:
``test_native_metaspace.py``.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.differential.test_native_pipelines import (
    BERT_N,
    BERT_P,
    EDGES,
    _assert_same,
    _corpus,
    _json,
    _seq_n,
    _seq_p,
    assert_kept_in_python,
    assert_takes_native,
)
from tests.robustness.helpers import use_backend
from wordpieces.fast.backend import make_word_encoder
from wordpieces.tokenizer import Tokenizer

tokenizers = pytest.importorskip("tokenizers")

pytestmark = pytest.mark.shared_data

BACKENDS = ("python", "native")


def _strip(left: bool = True, right: bool = True) -> dict:
    return {"type": "Strip", "strip_left": left, "strip_right": right}


def _replace(pattern: str, content: str) -> dict:
    return {"type": "Replace", "pattern": {"String": pattern}, "content": content}


WHITESPACE = {"type": "Whitespace"}
EDITS = {
    "Strip": _strip(),
    "Strip(left)": _strip(right=False),
    "Strip(right)": _strip(left=False),
    "Replace(``->\")": _replace("``", '"'),
    "Replace(''->\")": _replace("''", '"'),
    "Replace(...->\u2026)": _replace("...", "\u2026"),
    "Replace(ab->xyz)": _replace("ab", "xyz"),
    "Replace(ss->'')": _replace("ss", ""),
}

PIPELINES = {
    **{f"{name} / Bert": (n, BERT_P) for name, n in EDITS.items()},
    **{f"Seq[Bert,{name}] / Bert": (_seq_n(BERT_N, n), BERT_P) for name, n in EDITS.items()},
    **{f"Seq[{name},Bert] / Whitespace": (_seq_n(n, BERT_N), WHITESPACE)
       for name, n in EDITS.items()},
    "Prepend(\u2581) / Bert": ({"type": "Prepend", "prepend": "\u2581"}, BERT_P),
    "Seq[Bert,Prepend(\u2581)] / Bert": (
        _seq_n(BERT_N, {"type": "Prepend", "prepend": "\u2581"}), BERT_P),
    "Seq[Bert,Prepend(_)] / Whitespace": (
        _seq_n(BERT_N, {"type": "Prepend", "prepend": "_"}), WHITESPACE),
    "Seq[Prepend(Ab),Lowercase,NFKC] / WhitespaceSplit": (
        _seq_n({"type": "Prepend", "prepend": "Ab"}, {"type": "Lowercase"}, {"type": "NFKC"}),
        {"type": "WhitespaceSplit"}),
    "Seq[NFKC,Prepend(x#)] / Seq[Bert,Digits]": (
        _seq_n({"type": "NFKC"}, {"type": "Prepend", "prepend": "x#"}),
        _seq_p(BERT_P, {"type": "Digits", "individual_digits": True})),
    "Seq[Strip,NFKC,Replace(''->\"),Lowercase] / Seq[Bert,Digits]": (
        _seq_n(_strip(), {"type": "NFKC"}, _replace("''", '"'), {"type": "Lowercase"}),
        _seq_p(BERT_P, {"type": "Digits", "individual_digits": True})),
}

# Edit stages kept on the staged Python path, and the words that name why.
GENERAL = {
    "Prepend then Bert": (_seq_n({"type": "Prepend", "prepend": "\u2581"}, BERT_N), BERT_P,
                          "normalizer Prepend"),
    "Strip then Prepend": (_seq_n(_strip(), {"type": "Prepend", "prepend": "\u2581"}),
                           BERT_P, "normalizer Prepend"),
    "Strip / Punctuation": (_strip(), {"type": "Punctuation", "behavior": "Isolated"},
                            "normalizer Strip"),
    "Strip then Replace( ->_)": (_seq_n(_strip(), _replace(" ", "_")), BERT_P,
                                 "normalizer Strip"),
    "Replace(a b->x)": (_replace("a b", "x"), BERT_P, "normalizer Replace"),
}

EXTRA = ["\x00hi x", "\u00adab", "\u2581hi", "A", "\x00", "x#1 #x",
         "``Quoted,'' she said... ``twice''", "wait.. what... ok....", "abab ab-ab xab",
         "  \t leading and trailing \n ", "\u3000\u00a0x y\u2028", "  ", "",
         "boss's class passes", "ss", "''", "``", "\u00a8a \u00a8"]


@cache
def _hf(name: str):
    return tokenizers.Tokenizer.from_str(_json(*PIPELINES[name]))


def _ours(name: str, kind: str, monkeypatch) -> Tokenizer:
    use_backend(kind, monkeypatch)
    return Tokenizer.from_str(_json(*PIPELINES[name]))


def _texts() -> list[str]:
    return [*_corpus(), *EXTRA]


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("name", list(PIPELINES))
def test_shared_corpora_give_hf_ids_and_offsets(name, kind, monkeypatch):
    """Every line of every corpus, and lines holding the patterns: HF's ids and offsets."""
    _assert_same(_ours(name, kind, monkeypatch), _hf(name), _texts(), name)


# The contracts' edges, with the patterns' characters and outer whitespace made frequent.
EDIT_TEXT = st.text(st.one_of(st.characters(codec=None, exclude_categories=("Cs",)),
                              st.sampled_from(EDGES + "`'.abxs  \t\u3000")), max_size=40)


@pytest.mark.parametrize("kind", BACKENDS)
@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(PIPELINES)), texts=st.lists(EDIT_TEXT, min_size=1,
                                                                   max_size=4))
def test_any_text_gives_hf_ids_and_offsets(kind, name, texts):
    """Generated text over all of Unicode: HF's ids and offsets, on both backends."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _assert_same(_ours(name, kind, monkeypatch), _hf(name), texts, name)


@pytest.mark.parametrize("name", list(PIPELINES))
def test_each_pipeline_takes_the_native_path(name, monkeypatch):
    """Where the extension is built, every listed pipeline runs in C."""
    assert_takes_native(_ours(name, "native", monkeypatch))


def test_texts_without_the_guard_stay_in_c(monkeypatch):
    """Only texts that may hold the pattern leave C: the others never call Python."""
    tok = _ours("Replace(``->\") / Bert", "native", monkeypatch)
    encoder = make_word_encoder(tok.normalizer, tok.pre_tokenizer, tok.model)
    calls: list[str] = []
    fallback = encoder.reference.encode_ids

    def counted(text: str):
        calls.append(text)
        return fallback(text)

    monkeypatch.setattr(encoder.reference, "encode_ids", counted)
    monkeypatch.setattr(encoder.reference, "encode", lambda t: (calls.append(t), 0)[1])
    texts = ["plain text, no quotes", "``quoted''", "it's fine"]
    encoder.encode_batch_ids(texts, 1)
    assert calls == ["``quoted''"]


@pytest.mark.parametrize("name", list(GENERAL))
def test_the_rest_names_the_stage_that_keeps_it_in_python(name, monkeypatch):
    """An edit that cannot compile says which stage, and still gives HF's results."""
    normalizer, pre_tokenizer, words = GENERAL[name]
    assert_kept_in_python(normalizer, pre_tokenizer, words, _texts()[::5], name, monkeypatch)
