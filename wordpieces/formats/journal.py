"""The previous set kept whole while a commit runs, so a killed save leaves the old set.

A set's files live at fixed names at the top of their folder (``tokenizer.json`` where
``transformers`` reads it), so a commit that renames several files in one by one has
moments where some are new and some old. ``formats.atomic.FileSet.commit`` brackets
those renames, under the folder's exclusive lock:

1. ``keep_previous``: every name the commit replaces or removes (its files, the files it
   drops, its manifest) that holds a regular file now is hard-linked (moved, where the
   file system has no hard links) into a folder built under a temporary name beside the
   set, with a record (``journal.json``) of which names held a file and what the commit
   puts at each; that folder is then renamed to ``.MANIFEST.previous``: one rename from
   which on the old set is kept whole.
2. the commit's own renames (the manifest, then each file; dropped files removed);
3. ``finish``: ``.MANIFEST.previous`` is renamed to a temporary name and removed: the
   commit is final.

A writer killed anywhere between 1 and 3 leaves ``.MANIFEST.previous``; the next writer
into the folder, or the next reader (``formats.atomic.read_file_set``: ``wp.load``,
``cli.npy.check_pair``) that can take the folder's exclusive lock, calls ``roll_back``
first: each kept file is linked back to its name, each name that held nothing loses what
the dead commit put there (only if it is that file), the old manifest last, then the
kept folder is retired. Every step is idempotent, so a roll-back that is itself killed
is finished by the next one. Readers that check nothing (``transformers``, ``np.load``)
see the files as they are until then.

Test hook: ``WORDPIECES_TEST_PAUSE_AFTER_RENAME`` (``test_pause``): every rename of a
commit, these two included, is announced on stderr and followed by a pause.

Not handled here: the lock (``formats.folder_lock``), what the files are.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time

from ..errors import FormatError
from .folder_lock import directory_lock
from .inside import plain_kind, refusal, unlink_plain
from .manifest import is_safe_name, plain_entry
from .strict_json import Node, parse_json
from .temporaries import fsync_directory, temporary_name

PAUSE_ENV = "WORDPIECES_TEST_PAUSE_AFTER_RENAME"
JOURNAL = "journal.json"
JOURNAL_FORMAT = "wordpieces-journal/1"
_FILES = "files"


def previous_path(directory: str, manifest: str) -> str:
    """Where a commit keeps the set it replaces: ``.MANIFEST.previous`` beside it."""
    return os.path.join(directory, f".{manifest}.previous")


def test_pause(label: str) -> None:
    """The test hook: announce a rename and wait, so a test can kill the writer here."""
    pause = os.environ.get(PAUSE_ENV)
    if pause:
        sys.stderr.write(f"wordpieces-test: renamed {label}\n")
        sys.stderr.flush()
        time.sleep(float(pause))


def keep_previous(directory: str, manifest: str, names: list[str],
                  new: dict[str, dict]) -> None:
    """Keep the files at ``names`` aside (links), then record them as the previous set.

    ``new``: the size and SHA-256 of what the commit puts at each name (None: removed).
    """
    building = os.path.join(directory, temporary_name(f"{manifest}.previous"))
    os.mkdir(building, 0o700)
    record = {}
    for name in names:
        path, what = plain_kind(directory, name)
        kept = what is None and os.path.lexists(path)
        if kept:
            _link_or_move(path, os.path.join(building, _FILES, *name.split("/")))
        record[name] = {"kept": kept, "new": new.get(name)}
    with open(os.path.join(building, JOURNAL), "w", encoding="utf-8") as f:
        f.write(json.dumps({"format": JOURNAL_FORMAT, "manifest": manifest,
                            "files": record}, indent=1) + "\n")
        f.flush()
        os.fsync(f.fileno())
    for folder, _, _ in os.walk(building):
        fsync_directory(folder)
    os.rename(building, previous_path(directory, manifest))
    fsync_directory(directory)
    test_pause(f"{manifest} previous set kept")


def _link_or_move(source: str, destination: str) -> None:
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    try:
        os.link(source, destination, follow_symlinks=False)
    except OSError:  # no hard links here (FAT, some network file systems)
        os.rename(source, destination)


def finish(directory: str, manifest: str) -> None:
    """The commit is complete: retire the kept previous set."""
    _retire(directory, manifest)
    test_pause(f"{manifest} previous set dropped")


def _retire(directory: str, manifest: str) -> None:
    """Rename the kept set away in one step (it is gone whole), then delete it."""
    kept = previous_path(directory, manifest)
    retired = os.path.join(directory, temporary_name(f"{manifest}.previous"))
    os.rename(kept, retired)
    fsync_directory(directory)
    shutil.rmtree(retired, ignore_errors=True)


def recover(directory: str, manifest: str) -> bool:
    """Put back the set a killed save kept aside in ``directory``, when there is one.

    Needs the folder's exclusive lock (a live writer holds it during its commit) and
    write access; without either the folder is left as it is (``formats.atomic.read_file_set`` then
    reports the mix). True when a set was put back.
    """
    if not os.path.lexists(previous_path(directory, manifest)):
        return False
    with directory_lock(directory, exclusive=True) as held:
        if not held:
            return False
        try:
            return roll_back(directory, manifest)
        except OSError:  # read-only folder: the mix is reported by the check
            return False


def roll_back(directory: str, manifest: str) -> bool:
    """Put back the set a killed commit kept aside; False when there is none.

    The caller holds the folder's exclusive lock. A record that is not one this
    package wrote is a ``FormatError`` naming it.
    """
    kept = previous_path(directory, manifest)
    if os.path.islink(kept) or not os.path.isdir(kept):
        return False
    record = _read_record(kept, manifest)
    for name in sorted(record, key=lambda n: n == manifest):  # the manifest last
        _restore(directory, kept, name, record[name])
    _retire(directory, manifest)
    return True


def _restore(directory: str, kept: str, name: str, entry: dict) -> None:
    """Put ``name`` back as it was before the dead commit."""
    path, what = plain_kind(directory, name)
    if path != _joined(directory, name):  # a folder on the way is a link: never follow it
        raise refusal(path, what or "not a directory")
    if what not in (None, "a symbolic link"):  # a link at the name itself is replaced
        raise refusal(path, what)
    if not entry["kept"]:
        with contextlib.suppress(FormatError, OSError):
            if entry["new"] is not None and plain_entry(directory, name) == entry["new"]:
                unlink_plain(directory, name)
        return
    source = os.path.join(kept, _FILES, *name.split("/"))
    if not os.path.isfile(source) or os.path.islink(source):
        return  # moved back already (no hard links), or never there
    with contextlib.suppress(OSError):
        if os.path.samestat(os.lstat(source), os.lstat(path)):
            return  # never replaced
    os.makedirs(os.path.dirname(path), exist_ok=True)
    staged = os.path.join(os.path.dirname(path), temporary_name(os.path.basename(path)))
    _link_or_move(source, staged)
    os.replace(staged, path)


def _joined(directory: str, name: str) -> str:
    return os.path.join(directory, *name.split("/"))


def _read_record(kept: str, manifest: str) -> dict[str, dict]:
    """The checked ``journal.json`` of a kept set: name -> {"kept", "new"}."""
    source = os.path.join(kept, JOURNAL)
    try:
        with open(source, "rb") as f:
            data = f.read(1 << 20)
    except OSError as e:
        raise FormatError(f"{source}: cannot read: {e.strerror}") from None
    root = Node(parse_json(data, source), source)
    if root.get("format", "a string") != JOURNAL_FORMAT:
        root.fail(f"expected format {JOURNAL_FORMAT!r}", "format")
    if root.get("manifest", "a string") != manifest:
        root.fail(f"expected {manifest!r}", "manifest")
    record = {}
    for name, node in root.child("files").members():
        if not is_safe_name(name):
            node.fail(f"unsafe file name {name!r}: expected a plain relative path")
        new = node.child("new", default=None)
        record[name] = {"kept": node.get("kept", "a boolean"),
                        "new": None if new.value is None else
                        {"size": new.get("size", "a non-negative integer"),
                         "sha256": new.get("sha256", "a string")}}
    return record
