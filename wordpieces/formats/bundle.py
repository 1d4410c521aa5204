"""Keep several tokenizers together (e.g. one per language) and save them as one artifact.

A bundle is a directory, or a ``.zip`` with the same layout::

    bundle.json          {"format": "wordpieces-bundle/1", "members": ["en", "pt"]}
    en/tokenizer.json    en/vocab.txt    en/wordpieces.json
    pt/...

It is the counterpart of the TensorFlow tutorial's exported "converter" module holding
``pt`` and ``en`` tokenizers. Zip files are untrusted input: members are read by name
(never extracted), names are checked to be plain identifiers (no path traversal), sizes
are capped, and nothing is executed or unpickled. A ``.zip`` is written in one atomic
rename; a directory is written file by file, each file atomically.

Not handled here: nested bundles, members that are not ``Tokenizer``, telling a bundle
from a single tokenizer (``load``).
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import zipfile

from ..errors import FormatError
from ..tokenizer import Tokenizer
from .atomic import atomic_write_bytes, atomic_write_text
from .strict_json import Node, parse_json
from .tokenizer_json import (
    TOKENIZER_JSON,
    VOCAB_TXT,
    WORDPIECES_JSON,
    dumps,
    parts_from_str,
    read_bytes,
    tokenizer_files,
)

BUNDLE_JSON = "bundle.json"
BUNDLE_FORMAT = "wordpieces-bundle/1"
MAX_MEMBER_BYTES = 1 << 30
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")


def _check_name(name: str, where: str = "bundle") -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise FormatError(f"{where}: bad member name {name!r}: a name is a Python identifier "
                          f"of ASCII letters, digits and '_' (at most 64 characters)")
    return name


class Bundle:
    """Several named tokenizers saved and loaded as one artifact.

    >>> tok = Tokenizer.from_vocab(["[UNK]", "a"], flavor="huggingface")
    >>> b = Bundle(en=tok)
    >>> b.en is tok, b.names
    (True, ['en'])
    """

    def __init__(self, **members: Tokenizer):
        if not members:
            raise ValueError("a bundle needs at least one member, e.g. Bundle(en=tokenizer)")
        for name, member in members.items():
            _check_name(name)
            if hasattr(Bundle, name):
                raise ValueError(f"bundle member name {name!r} clashes with a Bundle attribute")
            if not isinstance(member, Tokenizer):
                raise TypeError(f"bundle member {name!r} must be a Tokenizer, got "
                                f"{type(member).__name__}")
        self._members = dict(sorted(members.items()))

    @property
    def names(self) -> list[str]:
        return list(self._members)

    def __getattr__(self, name: str) -> Tokenizer:
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        raise AttributeError(f"this bundle has no member {name!r} (members: "
                             f"{', '.join(members) or 'none'})")

    def __getitem__(self, name: str) -> Tokenizer:
        return self._members[name]

    def __iter__(self):
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def items(self):
        return self._members.items()

    def __repr__(self) -> str:
        return f"Bundle({', '.join(self._members)})"

    def _files(self) -> dict[str, str]:
        """Relative path -> text of every file of the saved bundle."""
        files = {BUNDLE_JSON: dumps({"format": BUNDLE_FORMAT, "members": self.names}, True)}
        for name, tok in self._members.items():
            for rel, text in tokenizer_files(tok.to_parts()).items():
                files[f"{name}/{rel}"] = text
        return files

    def save(self, path: str | os.PathLike) -> None:
        """Save to a directory, or to a ``.zip`` file if ``path`` ends with ``.zip``."""
        path = os.fspath(path)
        files = self._files()
        if path.lower().endswith(".zip"):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, text in files.items():
                    zf.writestr(name, text.encode("utf-8"))
            atomic_write_bytes(path, buffer.getvalue())
            return
        for name in self.names:
            os.makedirs(os.path.join(path, name), exist_ok=True)
        # The manifest goes last: a reader never sees it before the members exist.
        for rel in sorted(files, key=lambda r: r == BUNDLE_JSON):
            atomic_write_text(os.path.join(path, *rel.split("/")), files[rel])


def _member_names(data: bytes, source: str) -> list[str]:
    root = Node(parse_json(data, source), source)
    fmt = root.get("format", "a string")
    if fmt != BUNDLE_FORMAT:
        root.fail(f"unsupported format {fmt!r} (this version reads {BUNDLE_FORMAT!r})",
                  "format")
    names = [e.expect("a string") for e in root.child("members").elements()]
    for i, name in enumerate(names):
        _check_name(name, f"{source}: members[{i}]")
    if not names or len(set(names)) != len(names):
        root.fail("expected a non-empty list of distinct names", "members")
    return names


def load_bundle(path: str | os.PathLike) -> Bundle:
    """Load a bundle directory or ``.zip``."""
    path = os.fspath(path)
    if os.path.isdir(path):
        manifest = os.path.join(path, BUNDLE_JSON)
        names = _member_names(read_bytes(manifest), manifest)
        return Bundle(**{n: Tokenizer.from_file(os.path.join(path, n, TOKENIZER_JSON))
                         for n in names})
    try:
        with zipfile.ZipFile(path) as zf:
            return _load_zip(zf, path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile) as e:
        raise FormatError(f"{path}: not a readable zip file ({e})") from None


def _read_member(zf: zipfile.ZipFile, name: str, path: str) -> bytes | None:
    """The bytes of zip member ``name`` (None if absent), size-capped."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_MEMBER_BYTES:
        raise FormatError(f"{path}: {name}: member too large ({info.file_size} bytes)")
    with zf.open(info) as f:
        data = f.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise FormatError(f"{path}: {name}: member too large")
    return data


def _load_zip(zf: zipfile.ZipFile, path: str) -> Bundle:
    manifest = _read_member(zf, BUNDLE_JSON, path)
    if manifest is None:
        raise FormatError(f"{path}: not a bundle: no {BUNDLE_JSON} inside")
    members = {}
    for name in _member_names(manifest, f"{path}/{BUNDLE_JSON}"):
        source = f"{path}/{name}/{TOKENIZER_JSON}"
        data = _read_member(zf, f"{name}/{TOKENIZER_JSON}", path)
        if data is None:
            raise FormatError(f"{path}: bundle member {name!r} has no {TOKENIZER_JSON}")
        extras_data = _read_member(zf, f"{name}/{WORDPIECES_JSON}", path)
        extras_source = f"{path}/{name}/{WORDPIECES_JSON}"
        extras = (None if extras_data is None
                  else Node(parse_json(extras_data, extras_source), extras_source))
        parts = parts_from_str(data, source, extras)
        if _read_member(zf, f"{name}/{VOCAB_TXT}", path) is not None:
            parts = dataclasses.replace(parts, vocab_path=f"{path}/{name}/{VOCAB_TXT}")
        members[name] = Tokenizer.from_parts(parts)
    return Bundle(**members)
