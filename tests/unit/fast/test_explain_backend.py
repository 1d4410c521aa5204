"""fast.backend.explain_backend: which path a pipeline takes, and the stage that decides it."""

from __future__ import annotations

import pytest

from tests.robustness.helpers import use_backend
from wordpieces.fast.backend import explain_backend
from wordpieces.pipeline import normalizers as n
from wordpieces.pipeline import pre_tokenizers as p
from wordpieces.pipeline.edit_normalizers import Prepend, Strip
from wordpieces.pipeline.models import WordLevel, WordPiece

VOCAB = ["[UNK]", "hello", "##s", "!"]


def _explain(normalizer, pre_tokenizer, model=None) -> str:
    return explain_backend(normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                           model=model or WordPiece(VOCAB))


def test_a_compiled_pipeline_is_native(monkeypatch):
    """Charwise normalizers and class pre-tokenizers run in C where it is built."""
    use_backend("native", monkeypatch)
    assert _explain(n.Sequence([n.NFD(), n.Lowercase(), n.StripAccents()]),
                    p.Whitespace()) == "native"


@pytest.mark.parametrize("pre_tokenizer", [
    p.Metaspace(), p.Metaspace(prepend_scheme="first", split=False),
    p.Sequence([p.BertPreTokenizer(), p.Metaspace(prepend_scheme="never")]),
])
def test_metaspace_pipelines_are_native(pre_tokenizer, monkeypatch):
    """Metaspace alone, or after BERT's pre-tokenizer: its edit step runs in C."""
    use_backend("native", monkeypatch)
    assert _explain(n.BertNormalizer(), pre_tokenizer) == "native"


def test_the_python_backend_says_the_fused_path_runs(monkeypatch):
    """WORDPIECES_BACKEND=python: the pure-Python fast path, and why."""
    use_backend("python", monkeypatch)
    why = _explain(n.Lowercase(), p.WhitespaceSplit())
    assert why == "python (fused): (WORDPIECES_BACKEND=python)"


@pytest.mark.parametrize("normalizer, pre_tokenizer, model, words", [
    (Strip(), p.Punctuation(), None, "normalizer Strip"),
    (n.Lowercase(), p.Split(r"\w+|\d{1,3}", "isolated"), None, "is a general regex"),
    (n.Lowercase(), None, None, "no pre-tokenizer"),
    (n.Lowercase(), p.Whitespace(), WordLevel(VOCAB), "model WordLevel"),
    (n.Lowercase(), p.Sequence([p.Metaspace(), p.Digits()]), None,
     "pre_tokenizer Metaspace: before another member"),
    (n.Sequence([n.Lowercase(), Prepend("x")]), p.Metaspace(), None, "two edit steps"),
])
def test_a_pipeline_kept_off_the_native_path_names_why(normalizer, pre_tokenizer, model,
                                                        words):
    """The answer names the stage (or model) and the reason."""
    why = _explain(normalizer, pre_tokenizer, model)
    assert why.startswith("python") and words in why, why
