"""The manifest of a set of files saved together: names, sizes and SHA-256, checked on load.

A tokenizer directory, a bundle directory, an ``encode --format npy`` pair and a
TensorFlow export are each several files that only make sense together. The one writer
(``formats.atomic.FileSet``, ``atomic_directory``) records every file it wrote in a
manifest (``wordpieces-manifest.json`` inside a directory it owns; ``NAME.manifest.json``
beside an ``.npy`` pair), and readers check the files against it: a folder where some
files come from one save and some from another (a killed run, a run still going,
another tool rewriting one file) is refused with an error that names the folder and the
first file that does not match, instead of loading silently as a mix.

Each entry also records the file it replaced (``replaces``: its size and SHA-256), so
that a file still holding the previous save's version (a run killed between renames) is
told apart from a file changed later on purpose (``tokenizer_config.json`` edited by
hand), which is read as it is.

The manifest is untrusted input like any saved file: names must be plain relative paths
(no ``..``, no absolute path), sizes and digests are type-checked, and a problem is a
``FormatError`` naming the file and the JSON path. The manifest and every file it lists
are read through ``formats.inside`` (no link followed, no FIFO opened blocking). A
manifest records its own file name (``name``), so a copy of it under another name
(``cp train.manifest.json val.manifest.json``) is told apart from the one its save wrote.

Not handled here: writing the files (``formats.atomic``); what the files mean.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import re

from ..errors import FormatError
from .inside import open_plain, read_plain
from .strict_json import Node, parse_json

MANIFEST = "wordpieces-manifest.json"
MANIFEST_FORMAT = "wordpieces-manifest/1"
MAX_MANIFEST_BYTES = 1 << 20  # a manifest lists a few files; more is not one of ours
_CHUNK = 1 << 20
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


@dataclasses.dataclass(frozen=True)
class Manifest:
    """What a manifest says: the kind of set, each file's size and SHA-256, and the
    manifest's own file name when it is recorded (older saves do not)."""

    kind: str
    files: dict[str, dict]
    name: str | None = None


def manifest_text(kind: str, entries: dict[str, dict], name: str) -> str:
    """The JSON text of manifest ``name`` listing ``entries`` (name -> size and sha256)."""
    return json.dumps({"format": MANIFEST_FORMAT, "kind": kind, "name": name,
                       "files": dict(sorted(entries.items()))}, indent=1) + "\n"


def file_entry(path: str) -> dict:
    """The size and SHA-256 of file ``path``, read in chunks (any size)."""
    with open(path, "rb") as f:
        return _entry_of(f)


def plain_entry(root: str, name: str) -> dict | None:
    """The size and SHA-256 of regular file ``root/name`` (no link followed), None if
    missing; a link or special file is a ``FormatError`` (``formats.inside``)."""
    fd = open_plain(root, name)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        return _entry_of(f)


def _entry_of(f) -> dict:
    digest, size = hashlib.sha256(), 0
    while chunk := f.read(_CHUNK):
        digest.update(chunk)
        size += len(chunk)
    return {"size": size, "sha256": digest.hexdigest()}


def is_safe_name(name: str) -> bool:
    """A plain relative path with '/' separators: no '..', '.', empty or absolute part."""
    parts = name.split("/")
    return (bool(name) and "\\" not in name and "\0" not in name
            and all(p not in ("", ".", "..") for p in parts) and not os.path.isabs(name))


def read_manifest(path: str) -> Manifest | None:
    """The files listed by manifest ``path`` (None when there is none), checked.

    A link or a special file at ``path`` is a ``FormatError`` (never followed or opened
    blocking).
    """
    data = read_plain(os.path.dirname(path) or os.curdir, os.path.basename(path),
                      MAX_MANIFEST_BYTES)
    if data is None:
        return None
    if len(data) > MAX_MANIFEST_BYTES:
        raise FormatError(f"{path}: larger than {MAX_MANIFEST_BYTES} bytes: not a manifest")
    return parse_manifest(data, path)


def parse_manifest(data: bytes, source: str) -> Manifest:
    """The kind and files of a manifest's text; errors name ``source``."""
    root = Node(parse_json(data, source), source)
    fmt = root.get("format", "a string")
    if fmt != MANIFEST_FORMAT:
        root.fail(f"unsupported format {fmt!r} (this version reads {MANIFEST_FORMAT!r})",
                  "format")
    kind = root.get("kind", "a string")
    own_name = root.get("name", "a string", default=None)
    files = {}
    for name, node in root.child("files").members():
        if not is_safe_name(name):
            node.fail(f"unsafe file name {name!r}: expected a plain relative path")
        files[name] = _checked_version(node)
        replaced = node.child("replaces", default=None)
        if replaced.value is not None:
            files[name]["replaces"] = _checked_version(replaced)
    return Manifest(kind, files, own_name)


def _checked_version(node: Node) -> dict:
    """A ``{"size", "sha256"}`` object of a manifest, type-checked."""
    size = node.get("size", "a non-negative integer")
    digest = node.get("sha256", "a string")
    if not _HEX64.match(digest):
        node.fail(f"expected 64 lowercase hex digits, got {digest!r}", "sha256")
    return {"size": size, "sha256": digest}


def verify_files(directory: str, listed: dict[str, dict], manifest_name: str, *,
                 keep=(), strict: bool = False) -> dict[str, bytes]:
    """Check every listed file against the manifest; return the bytes of those in ``keep``.

    A missing file, or one that is still the version the save replaced (a save cut off
    between its renames), is a ``FormatError`` naming the directory, the file and what
    to do. A file changed since (edited by hand, rewritten by another tool) is accepted
    as it is, unless ``strict`` (where it is about to be deleted).
    """
    kept = {}
    for name, entry in listed.items():
        found = _read_entry(directory, name, entry, keep=name in keep)
        if found is None:
            raise mixed_error(directory, name, manifest_name, "it is missing")
        seen, data = found
        if seen == entry.get("replaces") and seen != _identity(entry):
            raise mixed_error(directory, name, manifest_name,
                              "it is still the version that save replaced")
        if strict and seen != _identity(entry):
            raise FormatError(f"{directory}: {name} was changed after {manifest_name} was "
                              f"written")
        if name in keep:
            kept[name] = data
    return kept


def _identity(entry: dict) -> dict:
    return {"size": entry["size"], "sha256": entry["sha256"]}


def _read_entry(directory: str, name: str, entry: dict, *,
                keep: bool) -> tuple[dict, bytes] | None:
    """The size and SHA-256 of ``directory/name`` (and its bytes if ``keep``); None if
    missing. A link or a special file there is a ``FormatError`` (``formats.inside``).

    Without ``keep``, a file larger than both versions the manifest knows is not read
    whole: it is neither, whatever its hash.
    """
    replaced = entry.get("replaces") or {"size": -1}
    largest = max(entry["size"], replaced["size"])
    digest, size, parts = hashlib.sha256(), 0, []
    fd = open_plain(directory, name)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
                if keep:
                    parts.append(chunk)
                elif size > largest:
                    return {"size": size, "sha256": ""}, b""
    except OSError as e:
        path = os.path.join(directory, *name.split("/"))
        raise FormatError(f"{path}: cannot read: {e.strerror}") from None
    return {"size": size, "sha256": digest.hexdigest()}, b"".join(parts)


def mixed_error(directory: str, name: str, manifest_name: str, why: str) -> FormatError:
    """The error for a set whose files do not all come from the same save."""
    return FormatError(
        f"{directory}: {name} does not match {manifest_name} ({why}): the folder mixes two "
        f"saves (a save was interrupted, or is still running without file locks); save "
        f"again, or delete {manifest_name} to load the files as they are")


def own_manifest(directory: str, manifest: str) -> Manifest | None:
    """The manifest a save into ``directory`` replaces (None if there is none).

    Anything else at its name (a file another tool wrote, a link, a FIFO) is never
    overwritten: a ``FileExistsError`` naming it.
    """
    path = os.path.join(directory, manifest)
    try:
        return read_manifest(path)
    except FormatError as e:
        raise FileExistsError(errno.EEXIST, f"{manifest} is there and is not a manifest "
                              f"wordpieces wrote ({e}): refusing to replace it; move it "
                              f"away or choose another output name", path) from None
