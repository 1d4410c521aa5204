"""Keep several tokenizers together (e.g. one per language) and save them as one artifact.

A bundle is a directory, or a ``.zip`` with the same layout::

    bundle.json          {"format": "wordpieces-bundle/1", "members": ["en", "pt"]}
    en/tokenizer.json    en/vocab.txt    en/wordpieces.json
    pt/...

It is the counterpart of the TensorFlow tutorial's exported "converter" module holding
``pt`` and ``en`` tokenizers. Zip files are untrusted input: members are read by name
(never extracted), names are checked to be plain identifiers that are not ``Bundle``'s
own attributes (no path traversal, no shadowing), a name stored twice is refused, the
bytes inflated from one zip are capped at ``MAX_BUNDLE_BYTES`` in total (read in chunks:
a member that inflates past the cap is stopped there, whatever its header claims), and
nothing is executed or unpickled; a member's ``vocab.txt`` is read as a vocabulary
(UTF-8, one token a line, errors naming the member and line) before it is cached. A
``.zip`` is written in one atomic rename; a directory through
``formats.atomic.FileSet`` (a manifest, checked on load: the previous bundle or the new
one, never a mix). In a bundle directory every file read and every member folder is a
plain file or folder inside it (``formats.inside``): a link or a FIFO is refused by
name, on save as on load.

``get_vocab_path()`` of a member loaded from a zip is a real file: the member's
``vocab.txt`` is copied once into a cache named by its SHA-256
(``$WORDPIECES_CACHE``, else ``$XDG_CACHE_HOME/wordpieces``, else
``~/.cache/wordpieces``), as TensorFlow's SavedModel assets are real files; where the
cache cannot be written it is None.

Not handled here: nested bundles, members that are not ``Tokenizer``, telling a bundle
from a single tokenizer (``load``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import lzma
import os
import re
import struct
import zipfile
import zlib

from ..errors import FormatError
from ..tokenizer import Tokenizer
from ..vocab import parse_vocab_lines
from .atomic import AtomicFile, FileSet, atomic_write_bytes, read_file_set, recover
from .inside import check_plain
from .manifest import MANIFEST
from .strict_json import Node, parse_json, read_bytes
from .tokenizer_json import (
    TOKENIZER_JSON,
    VOCAB_TXT,
    WORDPIECES_JSON,
    dumps,
    parts_from_str,
    tokenizer_files,
)

BUNDLE_JSON = "bundle.json"
BUNDLE_FORMAT = "wordpieces-bundle/1"
MAX_BUNDLE_BYTES = 256 << 20
"""Bytes inflated from one bundle ``.zip``, all members together (256 MiB: a large
multilingual tokenizer.json is ~20 MB); past it, loading stops with a ``FormatError``."""
CACHE_ENV = "WORDPIECES_CACHE"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")
_CHUNK = 1 << 20


def reserved_names() -> list[str]:
    """Names a member cannot take: ``Bundle``'s own attributes (``items``, ``save`` ...)."""
    return sorted(n for n in dir(Bundle) if not n.startswith("_"))


def _check_name(name: str, where: str = "bundle") -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise FormatError(f"{where}: bad member name {name!r}: a name is a Python identifier "
                          f"of ASCII letters, digits and '_' (at most 64 characters)")
    if hasattr(Bundle, name):
        raise FormatError(f"{where}: member name {name!r} is reserved: it is an attribute "
                          f"of Bundle (reserved: {', '.join(reserved_names())}); "
                          f"pick another name")
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
            with AtomicFile(path) as out, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, text in files.items():
                    zf.writestr(name, text.encode("utf-8"))
            return
        with FileSet(path, kind="bundle") as saved:
            for name, text in files.items():
                saved.write(name, text)


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
        return _load_directory(path)
    try:
        zf = zipfile.ZipFile(path)
    except (FileNotFoundError, PermissionError):
        raise
    except _UNOPENABLE as e:  # e.g. a name not UTF-8 under the UTF-8 flag (fuzz/ bundle)
        raise FormatError(f"{path}: not a readable zip file ({type(e).__name__}: {e})") \
            from None
    with zf:
        return _load_zip(zf, path)


def _load_directory(path: str) -> Bundle:
    """A bundle directory, checked against its manifest when it has one (older saves not)."""
    manifest = os.path.join(path, BUNDLE_JSON)
    recover(path, MANIFEST)  # before bundle.json is read: it may be a killed save's
    listed = _listed_names(path)
    saved = read_file_set(path, keep=[BUNDLE_JSON] + [
        f"{n}/{f}" for n in listed for f in (TOKENIZER_JSON, WORDPIECES_JSON)],
        reads=[f"{n}/{VOCAB_TXT}" for n in listed])
    if saved is None:
        check_plain(path, [BUNDLE_JSON])
        names = _member_names(read_bytes(manifest), manifest)
        check_plain(path, [f"{n}/{f}" for n in names
                           for f in (TOKENIZER_JSON, WORDPIECES_JSON, VOCAB_TXT)])
        return Bundle(**{n: Tokenizer.from_file(os.path.join(path, n, TOKENIZER_JSON))
                         for n in names})
    if BUNDLE_JSON not in saved:
        raise FormatError(f"{path}: {BUNDLE_JSON} is not listed in its manifest")
    members = {}
    for name in _member_names(saved[BUNDLE_JSON], manifest):
        source = os.path.join(path, name, TOKENIZER_JSON)
        data = saved.get(f"{name}/{TOKENIZER_JSON}")
        if data is None:
            raise FormatError(f"{path}: bundle member {name!r} has no {TOKENIZER_JSON} in "
                              f"its manifest")
        vocab = os.path.join(path, name, VOCAB_TXT)
        members[name] = _member(data, source, saved.get(f"{name}/{WORDPIECES_JSON}"),
                                vocab if os.path.isfile(vocab) else None)
    return Bundle(**members)


def _listed_names(path: str) -> list[str]:
    """The member names ``bundle.json`` lists, read loosely (checked once verified)."""
    try:
        return _member_names(read_bytes(os.path.join(path, BUNDLE_JSON)), BUNDLE_JSON)
    except FormatError:
        return []


def _member(data: bytes, source: str, extras_data: bytes | None,
            vocab_path: str | None) -> Tokenizer:
    """One member from the bytes of its tokenizer.json and wordpieces.json."""
    extras_source = os.path.join(os.path.dirname(source), WORDPIECES_JSON)
    extras = (None if extras_data is None
              else Node(parse_json(extras_data, extras_source), extras_source))
    parts = parts_from_str(data, source, extras)
    return Tokenizer.from_parts(dataclasses.replace(parts, vocab_path=vocab_path))


# What zipfile raises on a corrupt or unsupported member: a bad CRC, a broken deflate,
# bzip2 or lzma stream, a truncated member, encryption, an unknown compression method, a
# local header whose name does not decode.
_UNREADABLE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError,
               NotImplementedError, RuntimeError, ValueError)


# What zipfile raises on a corrupt directory: bad signatures, names that do not decode,
# offsets past the end, sizes that overflow, a zip format version it does not know.
_UNOPENABLE = (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
               OverflowError, struct.error, NotImplementedError)


class _ZipReader:
    """Reads members of an untrusted zip by name, within one budget of inflated bytes."""

    def __init__(self, zf: zipfile.ZipFile, path: str):
        self.zf, self.path, self.left = zf, path, MAX_BUNDLE_BYTES
        seen: set[str] = set()
        for info in zf.infolist():
            if info.filename in seen:
                raise FormatError(f"{path}: {info.filename}: stored twice in the zip (which "
                                  f"copy is meant is ambiguous); refusing the bundle")
            seen.add(info.filename)

    def read(self, name: str) -> bytes | None:
        """The bytes of member ``name`` (None if absent), within the budget."""
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            return None
        if info.file_size > self.left:
            self._too_large(name, f"says it holds {info.file_size:,} bytes")
        parts: list[bytes] = []
        try:
            with self.zf.open(info) as f:
                while chunk := f.read(min(_CHUNK, self.left + 1)):
                    if len(chunk) > self.left:
                        self._too_large(name, "inflates past it")
                    self.left -= len(chunk)
                    parts.append(chunk)
        except FormatError:  # over the cap: already says so
            raise
        except _UNREADABLE as e:  # corrupt or unsupported data (found by fuzz/ bundle)
            raise FormatError(f"{self.path}: {name}: cannot be read from the zip "
                              f"({type(e).__name__}: {e})") from None
        return b"".join(parts)

    def _too_large(self, name: str, what: str):
        raise FormatError(f"{self.path}: {name}: {what}: over the bundle cap of "
                          f"{MAX_BUNDLE_BYTES:,} inflated bytes in all (MAX_BUNDLE_BYTES; "
                          f"{self.left:,} were left for it); refusing the bundle")


def _load_zip(zf: zipfile.ZipFile, path: str) -> Bundle:
    reader = _ZipReader(zf, path)
    manifest = reader.read(BUNDLE_JSON)
    if manifest is None:
        raise FormatError(f"{path}: not a bundle: no {BUNDLE_JSON} inside")
    members = {}
    for name in _member_names(manifest, f"{path}/{BUNDLE_JSON}"):
        data = reader.read(f"{name}/{TOKENIZER_JSON}")
        if data is None:
            raise FormatError(f"{path}: bundle member {name!r} has no {TOKENIZER_JSON}")
        vocab = reader.read(f"{name}/{VOCAB_TXT}")
        if vocab is not None:  # checked before it becomes get_vocab_path()'s file
            parse_vocab_lines(vocab, f"{path}/{name}/{VOCAB_TXT}")
        members[name] = _member(data, f"{path}/{name}/{TOKENIZER_JSON}",
                                reader.read(f"{name}/{WORDPIECES_JSON}"),
                                None if vocab is None else cached_vocab_file(vocab))
    return Bundle(**members)


def cache_directory() -> str:
    """Where files extracted from bundles go (``$WORDPIECES_CACHE`` or the user's cache)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "wordpieces")


def cached_vocab_file(data: bytes) -> str | None:
    """A real file holding ``data`` (a member's vocab.txt), named by its SHA-256.

    Written once (atomically) and shared by every load of the same vocabulary; None
    where the cache cannot be written (a read-only home).
    """
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(cache_directory(), "vocab", digest[:32], VOCAB_TXT)
    try:
        if os.path.isfile(path) and os.path.getsize(path) == len(data):
            with open(path, "rb") as f:
                if f.read() == data:
                    return path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write_bytes(path, data)
    except OSError:
        return None
    return path
