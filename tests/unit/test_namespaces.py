"""The top level is small and the stage namespaces hold each stage kind's own names."""

from __future__ import annotations

import ast
import inspect
import types
from pathlib import Path

import pytest

import wordpieces as wp
from wordpieces.pipeline import (
    decoders,
    extra_processors,
    models,
    normalizers,
    pre_tokenizers,
    processors,
)

NAMESPACES = ("normalizers", "pre_tokenizers", "models", "processors", "decoders")


def test_top_level_is_about_twenty_names_and_the_namespaces():
    """Eighteen objects plus the five stage namespaces and ``errors``; each exists."""
    modules = {n for n in wp.__all__ if isinstance(getattr(wp, n), types.ModuleType)}
    assert modules == {*NAMESPACES, "errors"}
    assert len(wp.__all__) - len(modules) == 18
    assert sorted(wp.__all__, key=str.lower) == wp.__all__


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_namespace_exports_exist_and_are_sorted(namespace):
    """Each name of a namespace's ``__all__`` is there; nothing public is left out."""
    module = getattr(wp, namespace)
    assert all(hasattr(module, name) for name in module.__all__)
    public = {n for n, v in vars(module).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(module.__all__)


def test_each_stage_kind_has_its_own_sequence():
    """``<ns>.Sequence`` is that stage's sequence: the four classes differ."""
    assert wp.normalizers.Sequence is normalizers.Sequence
    assert wp.pre_tokenizers.Sequence is pre_tokenizers.Sequence
    assert wp.processors.Sequence is extra_processors.ProcessorSequence
    assert wp.decoders.Sequence is decoders.DecoderSequence
    assert len({getattr(wp, ns).Sequence for ns in NAMESPACES if ns != "models"}) == 4


def test_decoders_carry_hf_names_for_the_decoder_classes():
    """``decoders.WordPiece`` is the decoder, ``models.WordPiece`` the model; the same for
    ``Metaspace`` (pre-tokenizer and decoder), ``Strip`` and ``Replace`` (normalizer, decoder)."""
    assert wp.decoders.WordPiece is decoders.WordPieceDecoder
    assert wp.models.WordPiece is models.WordPiece
    assert wp.decoders.Metaspace is decoders.MetaspaceDecoder
    assert wp.pre_tokenizers.Metaspace is pre_tokenizers.Metaspace
    assert wp.decoders.Strip is decoders.StripDecoder
    assert wp.normalizers.Strip is not wp.decoders.Strip
    assert wp.decoders.Replace is decoders.ReplaceDecoder
    assert wp.processors.TemplateProcessing is processors.TemplateProcessing


@pytest.mark.parametrize("namespace,protocol", [
    ("normalizers", "Normalizer"), ("pre_tokenizers", "PreTokenizer"), ("models", "Model"),
    ("processors", "PostProcessor"), ("decoders", "Decoder")])
def test_every_stage_of_a_namespace_meets_its_protocol(namespace, protocol):
    """Each stage class a namespace exports is an instance of its base, as in HF."""
    module = getattr(wp, namespace)
    base = getattr(module, protocol)
    built = [_example(module, name) for name in module.__all__
             if inspect.isclass(getattr(module, name)) and name not in (protocol,
                                                                        "NormalizedString")]
    assert built and all(isinstance(stage, base) for stage in built)


def _example(module, name: str):
    """An instance of ``module.name``, with the arguments its constructor requires."""
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}
    required = {
        "Prepend": ("_",), "Replace": ("a", "b"), "Split": (" ", "isolated"),
        "CharDelimiterSplit": ("-",), "WordPiece": (vocab,), "WordLevel": (vocab,),
        "BertProcessing": (("[SEP]", 2), ("[CLS]", 1)),
        "RobertaProcessing": (("[SEP]", 2), ("[CLS]", 1)),
        "Sequence": ([],),
    }
    if module is wp.decoders:
        required = {"Replace": ("_", " "), "Strip": (" ", 1, 0), "Sequence": ([],)}
    if name == "TemplateProcessing":
        return module.TemplateProcessing("[CLS] $A [SEP]",
                                         special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    return getattr(module, name)(*required.get(name, ()))


USAGE = Path(__file__).resolve().parents[2] / "docs" / "usage.md"


def _python_block(path: Path, heading: str) -> str:
    """The first ```python block after ``heading`` in a Markdown file."""
    text = path.read_text(encoding="utf-8")
    after = text[text.index(f"\n{heading}\n"):]
    return after.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_usage_namespaces_example_gives_what_it_shows():
    """docs/usage.md's namespaces example runs as written; each ``# value`` is what it gives."""
    source = _python_block(USAGE, "## Building a pipeline: the namespaces")
    namespace: dict = {}
    shown = 0
    for statement in ast.parse(source).body:
        line = source.splitlines()[statement.end_lineno - 1]
        exec(compile(ast.Module([statement], []), "usage.md", "exec"), namespace)
        code, _, comment = line.partition("#")
        if isinstance(statement, ast.Expr) and comment.strip():
            assert eval(code, namespace) == ast.literal_eval(comment.strip()), code
            shown += 1
    assert shown == 4
