"""Load whatever was saved: a tokenizer (directory, tokenizer.json, vocab.txt) or a bundle.

``load`` takes what the command line's ``-t`` takes and looks at the path: a directory
holding ``bundle.json`` or a ``.zip`` is a bundle; a directory holding ``tokenizer.json``
(saved by wordpieces or by ``transformers``' ``save_pretrained``), or ``vocab.txt`` with
``tokenizer_config.json`` (a slow-only ``save_pretrained``), is one tokenizer; a
``.json`` file is a ``tokenizer.json``; any other file is a ``vocab.txt`` (``.gz``,
``.bz2``, ``.xz`` too), built by ``Tokenizer.from_vocab`` with the given options; a pipe
is told apart by its content. In a directory, the files a load reads are never FIFOs
or devices (refused by name, never opened); in one a wordpieces save wrote (it holds
``wordpieces-manifest.json``) or a bundle, never links either (``formats.inside``),
while a folder another tool wrote may be links (a hub checkout). It is the one module
that knows both
tokenizers and bundles, so neither ``tokenizer_json`` nor ``bundle`` imports the other's
loader.

Not handled here: reading the files themselves (``tokenizer_json``, ``bundle``,
``transformers_config``).
"""

from __future__ import annotations

import os

from ..errors import FormatError
from ..tokenizer import Tokenizer
from ..vocab import Vocab, parse_vocab_lines
from .atomic import recover
from .bundle import BUNDLE_JSON, Bundle, load_bundle
from .inside import check_not_special, check_plain
from .lines import compression_of
from .lines import read_bytes as read_all
from .manifest import MANIFEST
from .strict_json import read_bytes
from .tokenizer_json import TOKENIZER_JSON, VOCAB_TXT, WORDPIECES_JSON, parts_from_str
from .transformers_config import SPECIAL_TOKENS_MAP_JSON, TOKENIZER_CONFIG_JSON

SAVED_NAMES = (MANIFEST, BUNDLE_JSON, TOKENIZER_JSON, VOCAB_TXT, WORDPIECES_JSON,
               TOKENIZER_CONFIG_JSON, SPECIAL_TOKENS_MAP_JSON)
"""What a load may read from a directory (checked to be regular files first)."""


def is_vocab_txt(path: str) -> bool:
    """A file that is not JSON or zip is read as a ``vocab.txt``."""
    return os.path.isfile(path) and not path.lower().endswith((".json", ".zip"))


def load(path: str | os.PathLike, **vocab_options) -> Tokenizer | Bundle:
    """Load a saved tokenizer or bundle: a directory, ``tokenizer.json``, ``.zip`` or vocab.txt.

    ``vocab_options`` (``lowercase``, ``flavor`` …, as ``Tokenizer.from_vocab``) apply
    to a ``vocab.txt`` only: anything saved keeps the settings it was saved with.
    """
    path = os.fspath(path)
    if is_stream(path):
        return _load_stream(path, vocab_options)
    if vocab_options and not is_vocab_txt(path):
        raise TypeError(f"{path}: options {', '.join(sorted(vocab_options))} apply to a "
                        f"vocab.txt only; a saved tokenizer keeps its own settings")
    if os.path.isdir(path):
        return _load_directory(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file or directory")
    if path.lower().endswith(".zip"):
        return load_bundle(path)
    if is_vocab_txt(path):
        return Tokenizer.from_vocab(vocab_source(path), **vocab_options)
    return Tokenizer.from_file(path)


def vocab_source(path: str):
    """What ``Tokenizer.from_vocab`` reads for a vocab.txt: the path, or for a ``.gz``/
    ``.bz2``/``.xz`` file its decompressed tokens (lines named as in a plain file)."""
    if compression_of(path) is None:
        return path
    return Vocab(parse_vocab_lines(read_all(path), path))


def is_stream(path: str) -> bool:
    """A pipe or device (``-t <(cat vocab.txt)``): no name to go by, readable only once."""
    return os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path)


def _load_stream(path: str, vocab_options: dict) -> Tokenizer:
    """Read a pipe once and tell a ``tokenizer.json`` from a ``vocab.txt`` by its content."""
    raw = read_bytes(path)
    if raw.startswith(b"PK\x03\x04"):
        raise FormatError(f"{path}: a bundle .zip is read from a file, not from a pipe")
    if not raw.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):  # no vocab.txt line does
        return Tokenizer.from_vocab(parse_vocab_lines(raw, path), **vocab_options)
    if vocab_options:
        raise TypeError(f"{path}: options {', '.join(sorted(vocab_options))} apply to a "
                        f"vocab.txt only; this is a tokenizer.json")
    return Tokenizer.from_parts(parts_from_str(raw, path))


def _load_directory(path: str) -> Tokenizer | Bundle:
    recover(path, MANIFEST)  # a killed save's kept set back first: what to load depends on it
    check_not_special(path, SAVED_NAMES)
    if os.path.lexists(os.path.join(path, MANIFEST)) or \
            os.path.lexists(os.path.join(path, BUNDLE_JSON)):
        check_plain(path, SAVED_NAMES)  # a wordpieces save: no links either
    if os.path.isfile(os.path.join(path, BUNDLE_JSON)):
        return load_bundle(path)
    has = {name: os.path.isfile(os.path.join(path, name))
           for name in (TOKENIZER_JSON, VOCAB_TXT, TOKENIZER_CONFIG_JSON)}
    if has[TOKENIZER_JSON] or (has[VOCAB_TXT] and has[TOKENIZER_CONFIG_JSON]):
        return Tokenizer.from_pretrained(path)
    raise FormatError(f"{path}: no {TOKENIZER_JSON}, {BUNDLE_JSON}, or {VOCAB_TXT} with "
                      f"{TOKENIZER_CONFIG_JSON} in this directory")
