"""What the robustness tests share: a small vocabulary and both backends."""

from __future__ import annotations

import json

import pytest

from wordpieces import Tokenizer
from wordpieces.fast import backend

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "a"]
BACKENDS = ["native", "python"]


def use_backend(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the tokenizers built next run on ``kind`` (skip native without the extension)."""
    monkeypatch.delenv("WORDPIECES_BACKEND", raising=False)
    if kind == "native" and backend.backend() != "native":
        pytest.skip(f"native extension not available: {backend.backend()}")
    monkeypatch.setenv("WORDPIECES_BACKEND", kind)


def tokenizer_json() -> dict:
    """The tokenizer.json of a BERT tokenizer over ``VOCAB``, as a dict to edit."""
    return json.loads(Tokenizer.from_vocab(VOCAB).to_str())


def write_json(path, data: dict) -> str:
    """Write ``data`` as ``path`` (a tokenizer.json) and return the path as a str."""
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)
