"""Load whatever was saved: a tokenizer (directory or ``tokenizer.json``) or a bundle.

``load`` looks at the path: a directory holding ``bundle.json`` or a ``.zip`` is a
bundle, a directory holding ``tokenizer.json`` or any other file is one tokenizer.
It is the one module that knows both, so neither ``tokenizer_json`` nor ``bundle``
imports the other's loader.

Not handled here: reading the files themselves (``tokenizer_json``, ``bundle``).
"""

from __future__ import annotations

import os

from ..errors import FormatError
from ..tokenizer import Tokenizer
from .bundle import BUNDLE_JSON, Bundle, load_bundle
from .tokenizer_json import TOKENIZER_JSON


def load(path: str | os.PathLike) -> Tokenizer | Bundle:
    """Load a saved tokenizer or bundle: a directory, a ``tokenizer.json`` or a ``.zip``."""
    path = os.fspath(path)
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, BUNDLE_JSON)):
            return load_bundle(path)
        if os.path.isfile(os.path.join(path, TOKENIZER_JSON)):
            return Tokenizer.from_file(os.path.join(path, TOKENIZER_JSON))
        raise FormatError(f"{path}: no {TOKENIZER_JSON} or {BUNDLE_JSON} in this directory")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    if path.lower().endswith(".zip"):
        return load_bundle(path)
    return Tokenizer.from_file(path)
