"""formats.inside: names inside a saved folder, reached without links, FIFOs refused."""

from __future__ import annotations

import os
import sys

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats.inside import (
    check_not_special,
    check_plain,
    open_plain,
    plain_kind,
    read_plain,
    unlink_plain,
)

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs")


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "set" / "en").mkdir(parents=True)
    (tmp_path / "set" / "a.txt").write_text("a")
    (tmp_path / "set" / "en" / "b.txt").write_text("b")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "victim.txt").write_text("keep")
    return tmp_path / "set"


def test_plain_files_are_read_and_missing_ones_are_none(folder):
    assert read_plain(str(folder), "a.txt") == b"a"
    assert read_plain(str(folder), "en/b.txt") == b"b"
    assert read_plain(str(folder), "missing.txt") is None
    assert read_plain(str(folder), "en/missing/x.txt") is None
    assert read_plain(str(folder), "a.txt", limit=0) == b"a"  # limit + 1 bytes at most


@posix_only
def test_a_link_at_the_name_is_refused_by_name(folder):
    (folder / "lnk.txt").symlink_to(folder.parent / "outside" / "victim.txt")
    assert plain_kind(str(folder), "lnk.txt") == (str(folder / "lnk.txt"), "a symbolic link")
    with pytest.raises(FormatError, match=r"lnk\.txt: is a symbolic link"):
        open_plain(str(folder), "lnk.txt")


@posix_only
def test_a_linked_folder_on_the_way_is_refused_naming_the_folder(folder):
    (folder / "lnk").symlink_to(folder.parent / "outside")
    assert plain_kind(str(folder), "lnk/victim.txt") == (str(folder / "lnk"),
                                                          "a symbolic link")
    with pytest.raises(FormatError, match=r"set/lnk: is a symbolic link"):
        read_plain(str(folder), "lnk/victim.txt")
    unlink_plain(str(folder), "lnk/victim.txt")
    assert (folder.parent / "outside" / "victim.txt").read_text() == "keep"


@posix_only
def test_a_fifo_is_refused_without_blocking(folder):
    os.mkfifo(folder / "pipe")
    with pytest.raises(FormatError, match=r"pipe: is a FIFO"):
        open_plain(str(folder), "pipe")
    with pytest.raises(FormatError, match=r"pipe: is a FIFO"):
        check_plain(str(folder), ["a.txt", "pipe"])
    with pytest.raises(FormatError, match=r"pipe: is a FIFO"):
        check_not_special(str(folder), ["pipe"])


@posix_only
def test_check_not_special_follows_links_to_regular_files(folder):
    (folder / "lnk.txt").symlink_to(folder / "a.txt")
    check_not_special(str(folder), ["lnk.txt", "missing.txt", "en"])
    with pytest.raises(FormatError, match="is a symbolic link"):
        check_plain(str(folder), ["lnk.txt"])


@posix_only
def test_unlink_removes_a_plain_file_and_never_a_link_target(folder):
    (folder / "lnk.txt").symlink_to(folder.parent / "outside" / "victim.txt")
    unlink_plain(str(folder), "lnk.txt")  # not a regular file: left alone
    unlink_plain(str(folder), "en/b.txt")
    unlink_plain(str(folder), "missing.txt")
    assert (folder / "lnk.txt").is_symlink() and not (folder / "en" / "b.txt").exists()
    assert (folder.parent / "outside" / "victim.txt").read_text() == "keep"
