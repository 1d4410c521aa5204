"""Outputs in hostile places: full disks, no permission, folders holding other files.

Each case of issue 14 about where outputs go: an export never deletes what it did not
write; a save never removes other tools' files; a full disk or a refused permission is
reported under the target's name with the previous output intact and no temporary left;
``-o DIR`` and ``-o ''`` are refused before any work; two writers on one target end with
the last complete one; a live writer's temporaries are never removed by another run.
Full disks are real (``RLIMIT_FSIZE`` in the writing subprocess: writes past it fail with
``EFBIG``); permissions are real (a read-only folder, or for root an immutable one).
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest

from tests.robustness.killing import cli, environment, leftovers, snapshot
from wordpieces import Tokenizer
from wordpieces.formats.atomic import PAUSE_ENV
from wordpieces.formats.load import load

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "a"]


def _vocab_file(path: Path, size: int = 20000) -> str:
    path.write_text("".join(t + "\n" for t in VOCAB + [f"w{i}" for i in range(size)]))
    return str(path)


def _run(command: list[str], *, file_limit: int | None = None,
         cwd: str | None = None) -> subprocess.CompletedProcess:
    def limit() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(command, env=environment(), capture_output=True, text=True,
                          preexec_fn=limit, cwd=cwd, timeout=300)


# ---------------------------------------------------------------- export


def test_export_refuses_a_folder_holding_other_files(tmp_path):
    """export --format tensorflow -o DIR: a folder with the user's files is refused intact."""
    target = tmp_path / "model"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    done = _run(cli("export", "-t", _vocab_file(tmp_path / "v.txt"), "--format",
                    "tensorflow", "-o", str(target)))
    assert done.returncode == 2
    assert f"{target}: not an earlier tensorflow-export (it holds notes.txt)" in done.stderr
    assert os.listdir(target) == ["notes.txt"] and sorted(os.listdir(tmp_path)) == [
        "model", "v.txt"]


def test_export_refuses_a_regular_file_at_the_path(tmp_path):
    """A file where the SavedModel directory would go is refused, not replaced."""
    (tmp_path / "model").write_text("a file")
    done = _run(cli("export", "-t", _vocab_file(tmp_path / "v.txt"), "--format",
                    "tensorflow", "-o", str(tmp_path / "model")))
    assert done.returncode == 2 and "exists and is not a directory" in done.stderr
    assert (tmp_path / "model").read_text() == "a file"


# ---------------------------------------------------------------- other tools' files


def test_save_keeps_other_tools_files(tmp_path):
    """Model weights and a config beside a tokenizer survive two saves into the folder."""
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "config.json").write_text("{}")
    Tokenizer.from_vocab(VOCAB, flavor="huggingface").save(tmp_path)
    Tokenizer.from_vocab(VOCAB[:-1], flavor="huggingface").save(tmp_path)
    assert (tmp_path / "model.safetensors").read_bytes() == b"weights"
    assert (tmp_path / "config.json").read_text() == "{}"
    assert load(tmp_path).vocab_size == len(VOCAB) - 1


def test_a_save_pretrained_folder_without_manifest_loads(tmp_path):
    """A folder transformers' save_pretrained wrote (no manifest) loads as before."""
    transformers = pytest.importorskip("transformers")
    vocab = _vocab_file(tmp_path / "vocab.txt", 50)
    reference = transformers.BertTokenizerFast(vocab_file=vocab)
    reference.save_pretrained(tmp_path / "hf")
    assert not (tmp_path / "hf" / "wordpieces-manifest.json").exists()
    text = "hello worlds, a w7"
    assert load(tmp_path / "hf").encode(text).ids == reference(text)["input_ids"]


# ---------------------------------------------------------------- full disk


def test_full_disk_during_a_tokenizer_save_names_the_target(tmp_path):
    """A save cut off by a full disk: error names the folder; old set intact; no temporary."""
    target = tmp_path / "tok"
    Tokenizer.from_vocab(VOCAB, flavor="huggingface").save(target)
    before = snapshot(target)
    done = _run(cli("export", "-t", _vocab_file(tmp_path / "v.txt"), "--format", "hf",
                    "-o", str(target)), file_limit=64 * 1024)
    assert done.returncode == 2, done.stderr
    assert f"error: {target}: " in done.stderr and "File too large" in done.stderr, \
        done.stderr
    assert ".tmp" not in done.stderr and leftovers(tmp_path) == []
    assert snapshot(target) == before and load(target).vocab_size == len(VOCAB)


def test_full_disk_during_encode_npy_names_the_output(tmp_path):
    """encode --format npy cut off by a full disk names OUT.npy; the old pair stays."""
    vocab = _vocab_file(tmp_path / "v.txt", 10)
    (tmp_path / "small.txt").write_text("hello\n")
    (tmp_path / "big.txt").write_text("hello world a\n" * 40000)
    out = tmp_path / "ids.npy"
    assert _run(cli("encode", "-t", vocab, str(tmp_path / "small.txt"), "--format", "npy",
                    "-o", str(out))).returncode == 0
    before = snapshot(tmp_path, ["ids.npy", "ids.idx.npy"])
    done = _run(cli("encode", "-t", vocab, str(tmp_path / "big.txt"), "--format", "npy",
                    "-o", str(out)), file_limit=100 * 1024)
    assert done.returncode == 2 and f"error: {out}: " in done.stderr, done.stderr
    assert "File too large" in done.stderr and ".tmp" not in done.stderr
    assert snapshot(tmp_path, ["ids.npy", "ids.idx.npy"]) == before
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------- permissions


@pytest.fixture
def unwritable_folder(tmp_path):
    """A folder no one may write into: read-only, or immutable (``chattr +i``) for root."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    (folder / "v.txt").write_text("\n".join(VOCAB) + "\n")
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
    elif subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode:
        pytest.skip("running as root and chattr +i is not available here")
    try:
        yield folder
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(folder)], check=False)
        os.chmod(folder, 0o755)


def test_permission_denied_names_the_target(unwritable_folder):
    """A save into a folder the user may not write: the error names the target folder."""
    target = unwritable_folder / "tok"
    done = _run(cli("export", "-t", str(unwritable_folder / "v.txt"), "--format", "hf",
                    "-o", str(target)))
    assert done.returncode == 2, done.stderr
    assert f"error: {target}: " in done.stderr, done.stderr
    assert ("Permission denied" in done.stderr or "Operation not permitted" in done.stderr)
    assert ".tmp" not in done.stderr and sorted(os.listdir(unwritable_folder)) == ["v.txt"]


# ---------------------------------------------------------------- bad targets


def test_npy_to_an_existing_directory_is_refused_before_any_work(tmp_path):
    """-o existing_dir: exit 2 naming the directory; no finished-looking DIR.idx.npy."""
    (tmp_path / "in.txt").write_text("hello\n")
    (tmp_path / "existing_dir").mkdir()
    done = _run(cli("encode", "-t", _vocab_file(tmp_path / "v.txt", 10),
                    str(tmp_path / "in.txt"), "--format", "npy", "-o",
                    str(tmp_path / "existing_dir")))
    assert done.returncode == 2
    assert f"{tmp_path / 'existing_dir'}: is a directory" in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["existing_dir", "in.txt", "v.txt"]


@pytest.mark.parametrize("fmt", ["ids", "npy"])
def test_an_empty_output_path_is_refused(tmp_path, fmt):
    """-o '': refused; nothing is written in the current folder or its parent."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "in.txt").write_text("hello\n")
    vocab = _vocab_file(work / "v.txt", 10)
    done = _run(cli("encode", "-t", vocab, "in.txt", "--format", fmt, "-o", ""),
                cwd=str(work))
    assert done.returncode == 2 and "the output path is empty" in done.stderr
    assert sorted(os.listdir(work)) == ["in.txt", "v.txt"]
    assert sorted(os.listdir(tmp_path)) == ["work"]


# ---------------------------------------------------------------- two writers


def _slow_save(vocab: str, target: Path, pause: str) -> subprocess.Popen:
    env = environment(**{PAUSE_ENV: pause}) if pause else environment()
    return subprocess.Popen(cli("export", "-t", vocab, "--flavor", "huggingface", "--format",
                                "hf", "--quiet", "-o", str(target)),
                            env=env, stderr=subprocess.PIPE)


def test_two_writers_the_last_complete_wins_and_neither_breaks_the_other(tmp_path):
    """B starts while A is inside its commit: A's temporaries survive B's cleanup, A
    completes, B commits after it, and the folder holds B's complete set."""
    target = tmp_path / "tok"
    first = _slow_save(_vocab_file(tmp_path / "a.txt", 3000), target, "1")
    assert first.stderr is not None
    assert first.stderr.readline().startswith(b"wordpieces-test: renamed")
    second = _slow_save(_vocab_file(tmp_path / "b.txt", 1000), target, "")
    assert second.wait(timeout=300) == 0 and first.wait(timeout=300) == 0
    assert load(target).vocab_size == len(VOCAB) + 1000
    assert leftovers(tmp_path) == []
