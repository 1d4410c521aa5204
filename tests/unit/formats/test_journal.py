"""formats.journal: the previous set kept aside during a commit, and put back after a kill."""

from __future__ import annotations

import json
import os

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats.journal import JOURNAL, keep_previous, previous_path, roll_back
from wordpieces.formats.manifest import file_entry

M = "wordpieces-manifest.json"


def _files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and ".previous" not in str(p.relative_to(folder))
            and ".wp-" not in p.name}


def test_roll_back_restores_kept_files_and_removes_the_dead_commits_own(tmp_path):
    """Kept: a.txt, the manifest; new: b.txt (nothing there before). After the 'commit'
    rewrote both and died, roll_back gives the old folder back exactly."""
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / M).write_text("old manifest")
    before = _files(tmp_path)
    (tmp_path / "staged-b").write_text("new b")
    keep_previous(str(tmp_path), M, ["a.txt", "b.txt", M],
                  {"a.txt": {"size": 5, "sha256": "0" * 64},
                   "b.txt": file_entry(str(tmp_path / "staged-b"))})
    os.replace(tmp_path / "staged-b", tmp_path / "b.txt")
    (tmp_path / "a.txt.new").write_text("new a")
    os.replace(tmp_path / "a.txt.new", tmp_path / "a.txt")
    assert roll_back(str(tmp_path), M)
    assert _files(tmp_path) == before
    assert not os.path.lexists(previous_path(str(tmp_path), M))
    assert not roll_back(str(tmp_path), M)  # nothing kept any more


def test_roll_back_keeps_a_file_another_writer_put_at_an_empty_name(tmp_path):
    """A name that held nothing loses only the dead commit's own file."""
    keep_previous(str(tmp_path), M, ["b.txt"], {"b.txt": {"size": 1, "sha256": "0" * 64}})
    (tmp_path / "b.txt").write_text("someone else's")
    roll_back(str(tmp_path), M)
    assert (tmp_path / "b.txt").read_text() == "someone else's"


def test_roll_back_is_idempotent(tmp_path):
    """A roll-back killed halfway (here: run twice over the same kept set) ends the same."""
    (tmp_path / "a.txt").write_text("old")
    keep_previous(str(tmp_path), M, ["a.txt"], {"a.txt": None})
    os.unlink(tmp_path / "a.txt")
    kept = previous_path(str(tmp_path), M)
    os.link(os.path.join(kept, "files", "a.txt"), tmp_path / "a.txt")  # half put back
    assert roll_back(str(tmp_path), M)
    assert (tmp_path / "a.txt").read_text() == "old"


def test_a_tampered_record_is_refused_naming_it(tmp_path):
    keep_previous(str(tmp_path), M, [], {})
    record = os.path.join(previous_path(str(tmp_path), M), JOURNAL)
    with open(record, "w") as f:
        json.dump({"format": "wordpieces-journal/1", "manifest": M,
                   "files": {"../victim": {"kept": True, "new": None}}}, f)
    with pytest.raises(FormatError, match=r"unsafe file name '\.\./victim'"):
        roll_back(str(tmp_path), M)
