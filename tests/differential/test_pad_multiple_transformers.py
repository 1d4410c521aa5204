"""Truncation with ``pad_to_multiple_of`` against live ``transformers`` (issue 21, defect 1).

``tok(text, padding=True, truncation=True, max_length=12, pad_to_multiple_of=8)`` gave 16
ids, longer than ``max_length``; transformers raises ``ValueError``. Every combination
below must give transformers' ids or its error message, on both backends and with and
without arrays.
"""

from __future__ import annotations

import pytest

from tests.robustness.helpers import BACKENDS, use_backend
from tests.transformers_reference import as_plain, bert_uncased_pair, quiet

pytestmark = pytest.mark.shared_data

TEXTS = ["The quick brown fox jumps over the lazy dog again and again.", "Short one."]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return bert_uncased_pair(tmp_path_factory.mktemp("bert"))


def _outcome(tok, **options):
    try:
        with quiet():
            return as_plain(tok(TEXTS, **options))["input_ids"]
    except ValueError as e:
        return "ValueError", str(e)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tensors", [None, "np"])
@pytest.mark.parametrize("padding, truncation, max_length, multiple", [
    (True, True, 12, 8), (True, True, 16, 8), ("max_length", True, 12, 8),
    ("max_length", True, 24, 8), (True, "only_first", 10, 4), (True, False, 12, 8),
    (False, True, 12, 8), (True, True, 12, None), ("max_length", False, 12, 8)])
def test_truncation_and_a_multiple_as_transformers(pair, backend, tensors, padding, truncation,
                                                   max_length, multiple, monkeypatch):
    """Same ids, or the same ValueError, as transformers for each combination."""
    use_backend(backend, monkeypatch)
    ours, theirs = pair
    options = dict(padding=padding, truncation=truncation, max_length=max_length,
                   pad_to_multiple_of=multiple, return_tensors=tensors)
    if tensors == "np" and padding is False:
        options["return_tensors"] = None  # rows of two lengths make no array on either side
    assert _outcome(ours, **options) == _outcome(theirs, **options)
