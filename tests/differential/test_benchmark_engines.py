"""benchmarks/encode_forms.py's engines give HF's ids, as its "same ids as HF" column says.

Run on a few short lines, one round each: this checks what every engine is called with
(a transformers tokenizer holding the real vocabulary, flash-tokenizer and blingfire
truncated as documented), never how fast it is.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.shared_data import shared_path


def ticks():
    """A clock that advances one second per reading: no real timing, no zero durations."""
    return itertools.count().__next__


BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
pytestmark = pytest.mark.shared_data
pytest.importorskip("tokenizers")


@pytest.fixture
def forms(monkeypatch):
    shared_path("vocab", "bert-base-uncased.vocab.txt")  # skips without the shared data
    shared_path("corpora", "english", "tinyshakespeare.txt")
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import each other by name
    import encode_forms

    return encode_forms


def rows_by_engine(forms, form, dataset, names):
    texts = forms.texts_of(forms.dataset_lines(dataset, 0.004))
    makers = {n: forms.FORM_ENGINES[n] for n in names}
    engines, errors = forms.build(makers, form, dataset)
    rows = forms.measure(list(makers), engines, errors, forms.form_items(form, texts),
                         forms.form_items(form, texts[:5]), 1, ticks(), "wp",
                         lambda s: 1.0, forms.hf_reference(engines, errors))
    return dict(zip(names, rows, strict=True))


@pytest.mark.parametrize("form", ["lists", "padded", "np", "pairs", "words", "encode-batch"])
def test_wordpieces_gives_hf_ids_in_every_form(forms, form):
    rows = rows_by_engine(forms, form, "short-lines", ["wp", "hf"])
    assert rows["hf"].accuracy == 1.0  # the reference against itself
    assert rows["wp"].error == "" and rows["wp"].accuracy == 1.0


def test_transformers_holds_the_real_vocabulary_and_gives_hf_ids(forms):
    pytest.importorskip("transformers")
    rows = rows_by_engine(forms, "truncated", "short-lines", ["trf", "hf"])
    assert rows["trf"].error == "" and rows["trf"].accuracy == 1.0


@pytest.mark.parametrize("engine", ["flash", "blingfire"])
def test_flash_and_blingfire_are_compared_with_hf_truncated(forms, engine):
    pytest.importorskip({"flash": "flash_tokenizer", "blingfire": "blingfire"}[engine])
    rows = rows_by_engine(forms, "truncated", "short-lines", [engine, "hf"])
    # English short lines: both reproduce HF (blingfire without [CLS]/[SEP])
    assert rows[engine].error == "" and rows[engine].accuracy == 1.0


def test_the_latency_table_compares_each_call_with_its_hf_call(forms, capsys):
    rows = forms.run_latency("short-lines", 30, 1, 0.004, ticks())
    out = capsys.readouterr().out
    assert "latency: one text per call, short-lines (30 texts" in out
    by_label = {r.label: r for r in rows}
    for label in ("wordpieces encode_ids(text)", "wordpieces tok(text)",
                  "wordpieces tok(text, truncation=True, max_length=128)",
                  "HF tokenizers encode(text).ids"):
        assert by_label[label].accuracy == 1.0, label


def test_the_multilingual_shape_takes_every_file_in_turn(forms):
    shared_path("corpora", "multilingual", "zh_cao_xueqin_hongloumeng.txt")
    lines = forms.dataset_lines("multilingual", 0.05)
    assert any("\u4e00" <= ch <= "\u9fff" for line in lines for ch in line)  # the novel
    assert any("\u0400" <= ch <= "\u04ff" for line in lines for ch in line)  # Cyrillic
    assert 0.05e6 <= sum(len(t.encode()) for t in lines) < 0.06e6
