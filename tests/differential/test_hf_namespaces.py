"""The namespaces carry HF ``tokenizers``' names for HF's components: each HF component
``tokenizers.<ns>.X`` that wordpieces reads from a ``tokenizer.json`` comes back as
``wordpieces.<ns>.X``, and every HF component missing from a wordpieces namespace is one
that loading refuses by name. Built on HF's side with HF's own constructors, so a renamed or
missing class on either side fails here.
"""

from __future__ import annotations

import inspect

import pytest

import wordpieces as wp
from wordpieces.errors import FormatError

hf = pytest.importorskip("tokenizers")

VOCAB = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "<s>": 3, "</s>": 4, "a": 5, "##b": 6}
NAMESPACES = ("normalizers", "pre_tokenizers", "models", "processors", "decoders")
STAGES = {"normalizers": "normalizer", "pre_tokenizers": "pre_tokenizer",
          "processors": "post_processor", "decoders": "decoder", "models": "model"}
BASES = {"normalizers": "Normalizer", "pre_tokenizers": "PreTokenizer", "models": "Model",
         "processors": "PostProcessor", "decoders": "Decoder"}
EXTRAS = {"normalizers": {"NormalizedString"}, "models": {"wordpiece_tokenize"},
          "decoders": {"detokenize"}}  # wordpieces' own, beside HF's names
NOT_STAGES = {"DecodeStream"}  # HF's streaming decode helper, not a decoder in a tokenizer


def _hf_examples():
    """One HF-built instance of each HF component wordpieces implements, by namespace."""
    n, p, m, pr, d = (hf.normalizers, hf.pre_tokenizers, hf.models, hf.processors,
                      hf.decoders)
    bert = pr.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    return {
        "normalizers": [n.BertNormalizer(), n.Lowercase(), n.NFC(), n.NFD(), n.NFKC(),
                        n.NFKD(), n.Prepend("\u2581"), n.Replace("a", "b"),
                        n.Sequence([n.NFD(), n.StripAccents()]), n.Strip(), n.StripAccents()],
        "pre_tokenizers": [p.BertPreTokenizer(), p.CharDelimiterSplit("-"), p.Digits(),
                           p.Metaspace(), p.Punctuation(), p.Sequence([p.Whitespace()]),
                           p.Split(" ", "isolated"), p.Whitespace(), p.WhitespaceSplit()],
        "models": [m.WordPiece(VOCAB, unk_token="[UNK]"), m.WordLevel(VOCAB, unk_token="[UNK]")],
        "processors": [bert, pr.RobertaProcessing(("</s>", 4), ("<s>", 3)),
                       pr.TemplateProcessing(single="[CLS] $A [SEP]",
                                             special_tokens=[("[CLS]", 1), ("[SEP]", 2)]),
                       pr.Sequence([bert])],
        "decoders": [d.WordPiece(), d.Metaspace(), d.Replace("_", " "), d.Strip(" ", 1, 0),
                     d.Sequence([d.WordPiece()])],
    }


def _hf_components(namespace: str) -> set[str]:
    """The component classes HF's module ``tokenizers.<namespace>`` offers."""
    module = getattr(hf, namespace)
    return {name for name, obj in vars(module).items()
            if not name.startswith("_") and inspect.isclass(obj)} - NOT_STAGES


def _loaded(namespace: str, component) -> object:
    """``component`` (an HF object) put in an HF tokenizer, saved, read by wordpieces."""
    if namespace == "models":
        tok = hf.Tokenizer(component)
    else:
        tok = hf.Tokenizer(hf.models.WordPiece(VOCAB, unk_token="[UNK]"))
        setattr(tok, STAGES[namespace], component)
    return getattr(wp.Tokenizer.from_str(tok.to_str()), STAGES[namespace])


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_each_hf_component_loads_as_the_class_of_its_name(namespace):
    """HF's ``<ns>.X`` read from a tokenizer.json is an instance of ``wordpieces.<ns>.X``."""
    ours = getattr(wp, namespace)
    for component in _hf_examples()[namespace]:
        name = type(component).__name__
        assert isinstance(_loaded(namespace, component), getattr(ours, name)), name


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_the_examples_cover_every_shared_name(namespace):
    """Every HF component a wordpieces namespace also names is among the cases above."""
    shared = (_hf_components(namespace) & set(getattr(wp, namespace).__all__)) - {
        BASES[namespace]}
    assert {type(c).__name__ for c in _hf_examples()[namespace]} == shared


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_our_names_are_hf_names(namespace):
    """Each name a namespace exports is HF's (its base protocol included), or one of ours."""
    ours = set(getattr(wp, namespace).__all__)
    assert ours - EXTRAS.get(namespace, set()) <= _hf_components(namespace)
    assert BASES[namespace] in ours


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_hf_components_we_lack_are_refused_by_name(namespace):
    """An HF component missing from our namespace is refused on load, naming its type."""
    missing = _hf_components(namespace) - set(getattr(wp, namespace).__all__)
    assert missing  # HF has byte-level parts in every namespace
    for name in sorted(missing):
        component = _hf_instance(namespace, name)
        with pytest.raises(FormatError, match=rf"{STAGES[namespace]}: {name} is not supported"):
            _loaded(namespace, component)


def _hf_instance(namespace: str, name: str):
    """An HF component built with the arguments its constructor requires."""
    required = {"Precompiled": (b"\x00" * 8,), "FixedLength": (3,)}
    return getattr(getattr(hf, namespace), name)(*required.get(name, ()))
