"""A killed save keeps the old version whole: issue 25, case 8, with real SIGKILLs.

Before, 6 of 100 random kills of ``tok.save`` over an earlier save (with a pause after
each rename, as the issue's run had) left the new ``tokenizer.json`` beside the old
``vocab.txt``: ``wp.load`` refused it, and the old tokenizer was gone; an ``.npy`` pair
killed between its two renames left an old ``out.npy`` with a new index. Now a commit
keeps the set it replaces aside (``formats.journal``) and the next reader or writer puts
it back: after every kill ``wp.load`` gives the old tokenizer or the new one, whole, and
the folder holds exactly that set. ``tests/robustness/test_kills.py`` does the same for
every multi-file output at random moments and after each rename.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.robustness.killing import PAUSE_ENV, TEMPORARY, environment, kill_after_renames, run
from wordpieces.cli.npy import check_pair, index_path
from wordpieces.errors import FormatError
from wordpieces.formats.journal import previous_path
from wordpieces.formats.load import load
from wordpieces.formats.manifest import MANIFEST

SAVE = textwrap.dedent("""
    import sys, wordpieces as wp
    size, flavor = int(sys.argv[2]), sys.argv[3]
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] + [f"w{i}" for i in range(size)]
    wp.Tokenizer.from_vocab(tokens, flavor=flavor).save(sys.argv[1])
""")
VERSIONS = {"old": ("3000", "huggingface"), "new": ("900", "bert")}


def _save(target: Path, version: str) -> list[str]:
    return [sys.executable, "-c", SAVE, str(target), *VERSIONS[version]]


def _files(folder: Path) -> dict[str, bytes]:
    """The set's files (the manifest and writers' temporaries left out)."""
    return {p.name: p.read_bytes() for p in folder.iterdir()
            if p.is_file() and p.name != MANIFEST and not TEMPORARY.search(p.name)}


def _kill_at(command: list[str], delay: float, pause: float) -> None:
    """Run ``command`` with a pause after every rename; SIGKILL it after ``delay`` s."""
    proc = subprocess.Popen(command, env=environment(**{PAUSE_ENV: str(pause)}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)


@pytest.fixture
def versions(tmp_path) -> dict[str, dict[str, bytes]]:
    """Each version's files, as an uninterrupted save writes them."""
    found = {}
    for version in VERSIONS:
        run(_save(tmp_path / version, version))
        found[version] = _files(tmp_path / version)
    return found


def _random_kills(tmp_path: Path, versions, kills: int) -> dict[str, int]:
    """Kill saves of "new" over "old" at random moments of a run (pauses included)."""
    target = tmp_path / "model"
    rng = random.Random(25)
    outcomes = {"old": 0, "new": 0}
    pause = 0.05
    seconds = run(_save(target, "new"), environment(**{PAUSE_ENV: str(pause)}))
    for _ in range(kills):
        run(_save(target, "old"))
        _kill_at(_save(target, "new"), rng.uniform(0.5 * seconds, 1.1 * seconds), pause)
        vocab_size = load(target).vocab_size  # never a FormatError: the old set is back
        seen = _files(target)
        outcome = [v for v, files in versions.items() if files == seen]
        assert outcome, f"a mix: {sorted(seen)}"
        assert vocab_size == int(VERSIONS[outcome[0]][0]) + 4
        assert not os.path.lexists(previous_path(str(target), MANIFEST))
        outcomes[outcome[0]] += 1
    return outcomes


def test_random_kills_of_tok_save_keep_the_old_or_the_new_tokenizer(tmp_path, versions):
    """12 kills of tok.save over an earlier save (a pause after each rename): each time
    the old tokenizer or the new one loads whole."""
    outcomes = _random_kills(tmp_path, versions, 12)
    print(f"tok.save, 12 random kills: {outcomes}")


@pytest.mark.slow
def test_a_hundred_random_kills_of_tok_save(tmp_path, versions):
    """The issue's run: 100 kills, never a tokenizer lost."""
    outcomes = _random_kills(tmp_path, versions, 100)
    print(f"tok.save, 100 random kills: {outcomes}")


def test_a_kill_after_the_third_rename_keeps_the_old_tokenizer(tmp_path, versions):
    """Killed after the kept set, the manifest and the first file are renamed: the old."""
    run(_save(tmp_path / "model", "old"))
    assert kill_after_renames(_save(tmp_path / "model", "new"), 3)
    assert load(tmp_path / "model").vocab_size == 3004
    assert _files(tmp_path / "model") == versions["old"]


def test_the_next_save_after_a_kill_puts_the_old_set_back_then_commits(tmp_path, versions):
    """A writer finding a kept set puts it back before its own commit: the new set whole,
    nothing left over."""
    run(_save(tmp_path / "model", "old"))
    assert kill_after_renames(_save(tmp_path / "model", "new"), 4)
    run(_save(tmp_path / "model", "new"))
    assert _files(tmp_path / "model") == versions["new"]
    assert sorted(os.listdir(tmp_path / "model")) == sorted([*versions["new"], MANIFEST])


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_a_reader_that_cannot_write_refuses_naming_the_kept_set(tmp_path, versions):
    """Without write access the folder cannot be put back: a clear error saying where the
    old set is, never a mix."""
    run(_save(tmp_path / "model", "old"))
    assert kill_after_renames(_save(tmp_path / "model", "new"), 3)
    os.chmod(tmp_path / "model", 0o555)
    try:
        with pytest.raises(FormatError, match=r"the previous save is kept whole in"):
            load(tmp_path / "model")
    finally:
        os.chmod(tmp_path / "model", 0o755)
    assert load(tmp_path / "model").vocab_size == 3004


def test_an_npy_pair_killed_between_its_renames_is_put_back_whole(tmp_path):
    """The issue's npy case: killed after out.npy is renamed but not out.idx.npy, the pair
    check puts the old pair back, and numpy reads ids and index of one run."""
    numpy = pytest.importorskip("numpy")
    (tmp_path / "vocab.txt").write_text("".join(f"{t}\n" for t in
                                                ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"]))
    out = tmp_path / "out.npy"

    def encode(lines: int) -> list[str]:
        corpus = tmp_path / f"c{lines}.txt"
        corpus.write_text("a b a\n" * lines)
        return [sys.executable, "-m", "wordpieces", "encode", "-t", str(tmp_path / "vocab.txt"),
                str(corpus), "--no-add-special-tokens", "--format", "npy", "--quiet", "-o",
                str(out)]

    run(encode(300))
    old = (out.read_bytes(), Path(index_path(str(out))).read_bytes())
    # renames: the kept set, the manifest, out.idx.npy, out.npy (sorted), the kept set dropped
    assert kill_after_renames(encode(50), 3)
    check_pair(str(out))
    assert (out.read_bytes(), Path(index_path(str(out))).read_bytes()) == old
    ids, index = numpy.load(out), numpy.load(index_path(str(out)))
    assert index[-1] == len(ids) == 300 * 3
