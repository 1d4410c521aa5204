"""Helpers for differential tests against ``transformers``: offline references built from
../shared, warnings silenced, results compared as plain lists.

``transformers`` never reaches the network here: ``HF_HUB_OFFLINE=1`` is set before it is
imported, and every reference is built from local files.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from pathlib import Path

import pytest

from tests.shared_data import shared_path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
transformers = pytest.importorskip("transformers")

# The hub's file names for all-MiniLM-L6-v2, and where ../shared keeps each one.
MINILM_FILES = {"tokenizer.json": "all-MiniLM-L6-v2.tokenizer.json",
                "tokenizer_config.json": "all-MiniLM-L6-v2.tokenizer_config.json",
                "special_tokens_map.json": "all-MiniLM-L6-v2.special_tokens_map.json"}


def hub_dir(folder: Path, files: dict[str, str] | None = None) -> Path:
    """``folder`` laid out as a hub checkout: links to the shared files (read in place)."""
    for name, shared in (files or MINILM_FILES).items():
        os.symlink(shared_path("vocab", shared), folder / name)
    return folder


def bert_uncased_pair(folder: Path):
    """(ours, theirs) from bert-base-uncased's vocab.txt: huggingface flavor, BertTokenizerFast."""
    from wordpieces.tokenizer import Tokenizer

    directory = hub_dir(folder, {"vocab.txt": "bert-base-uncased.vocab.txt"})
    with quiet():
        theirs = transformers.BertTokenizerFast.from_pretrained(directory)
    return Tokenizer.from_vocab(directory / "vocab.txt", flavor="huggingface"), theirs


@contextlib.contextmanager
def quiet():
    """Silence transformers' warnings (deprecations, "no max_length" notes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def as_plain(batch) -> dict:
    """A BatchEncoding (ours or theirs) as a dict of plain lists (arrays, tensors converted)."""
    out = {}
    for key, value in dict(batch).items():
        value = value.tolist() if hasattr(value, "tolist") else value
        if key == "offset_mapping":
            value = _tuples(value)
        out[key] = value
    return out


def _tuples(value):
    """Offsets as tuples at any nesting (transformers gives tuples, arrays give lists)."""
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int)
                                                                   for v in value):
        return tuple(value)
    return [_tuples(v) for v in value]
