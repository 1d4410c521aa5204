"""SIGKILL a real ``wordpieces count --checkpoint`` several times, then finish: same counts.

A made-up corpus of a few MB is cut into ~180 blocks. A run with a checkpoint folder is
killed (SIGKILL to its whole process group, pool workers included) at a random moment,
again and again on the same folder, then a last run finishes; its output must be
byte-identical to an uninterrupted run's without a checkpoint. After every kill each
recorded block file is whole (its header's word count matches its lines), and after the
finishing run no temporary file is left in the folder.

Each run is killed a random moment (up to 0.05 s) after it reports (``--progress jsonl``)
a random share of the bytes a little past what is already recorded, so most kills
interrupt a resumed run mid-count, some during a block's atomic write (at least 2 of the
quick kills, 10 of the full run's must land between the first and the last block, or the
test fails as vacuous).
Kills per engine setting: ``QUICK_KILLS`` by default, ``FULL_KILLS`` in the slow run:
``.venv/bin/python -m pytest tests/robustness/test_checkpoint_kills.py -m slow``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.robustness.killing import SEED, TIMEOUT, cli, environment, leftovers

QUICK_KILLS = 3
FULL_KILLS = 20
BLOCKSIZE = 32768


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """~6 MB of Zipf-distributed words with punctuation."""
    rng = random.Random(SEED)
    marks = ["", ",", ".", "!", "?"]
    path = tmp_path_factory.mktemp("kill_corpus") / "corpus.txt"
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(120_000):
            f.write(" ".join(f"w{int(rng.paretovariate(0.7))}{rng.choice(marks)}"
                             for _ in range(12)) + "\n")
    return path


@pytest.fixture(scope="module")
def uninterrupted(corpus, tmp_path_factory) -> bytes:
    """The counts file of a run without a checkpoint, never killed."""
    out = tmp_path_factory.mktemp("plain") / "counts.tsv"
    done = subprocess.run(count_command(corpus, out, num_proc=1), env=environment(),
                          capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return out.read_bytes()


def count_command(corpus: Path, out: Path, *, num_proc: int, checkpoint: Path | None = None):
    extra = ["--checkpoint", str(checkpoint)] if checkpoint else []
    return cli("count", str(corpus), "-o", str(out), "--num-proc", str(num_proc),
               "--blocksize", str(BLOCKSIZE), *extra)


def timed_run(command: list[str]) -> float:
    start = time.monotonic()
    done = subprocess.run(command, env=environment(), capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return time.monotonic() - start


def kill_at_progress(command: list[str], share: float, pause: float) -> bool:
    """Start ``command`` in its own session; SIGKILL the whole group once it reports
    ``share`` of the bytes counted (``--progress jsonl``), ``pause`` seconds later.

    Returns whether it was still running (False: it finished before the kill).
    """
    proc = subprocess.Popen([*command, "--progress", "jsonl"], env=environment(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stderr is not None
    killed = False
    for line in proc.stderr:
        event = json.loads(line) if line.startswith(b"{") else {}
        if event.get("event") == "count" and event["done"] >= share * event["total"]:
            time.sleep(pause)  # a moment inside the next blocks: a write, a count
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            break
    proc.stderr.close()
    proc.wait(timeout=TIMEOUT)
    return killed and proc.returncode == -signal.SIGKILL


def whole_blocks(folder: Path) -> int:
    """Count the recorded blocks, checking each holds as many lines as its header says."""
    names = sorted(n for n in os.listdir(folder) if n.startswith("block-"))
    for name in names:
        header, *lines = (folder / name).read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "" and len(lines) - 1 == json.loads(header)["words"], name
    return len(names)


def kill_then_finish(corpus, uninterrupted, tmp_path, *, num_proc: int, kills: int,
                     midway_at_least: int):
    """Spend ``kills`` kills in rounds: each round kills runs on one checkpoint folder until
    every block is recorded, then finishes it and checks the output. A fast machine records
    many blocks between a progress line and its kill, so one folder takes only a few kills."""
    rng = random.Random(SEED * 100 + num_proc)
    midway, spent, rounds = 0, 0, 0
    while spent < kills:
        folder = tmp_path / f"ckpt{rounds}"
        landed, tried = kill_one_folder(corpus, folder, num_proc, kills - spent, rng)
        midway, spent, rounds = midway + landed, spent + tried, rounds + 1
        finish(corpus, uninterrupted, folder, tmp_path / f"counts{rounds}.tsv", num_proc)
    assert midway >= midway_at_least, (
        f"too few kills landed mid-count: {midway} of {spent} in {rounds} rounds")


def kill_one_folder(corpus, folder, num_proc: int, budget: int, rng) -> tuple[int, int]:
    """Kill runs on ``folder`` until every block is recorded or ``budget`` is spent;
    return (kills that landed mid-count, kills tried)."""
    command = count_command(corpus, folder.with_suffix(".tsv"), num_proc=num_proc,
                            checkpoint=folder)
    total_blocks = -(-corpus.stat().st_size // BLOCKSIZE)
    midway = done = tried = 0
    while tried < budget and done < total_blocks:
        # a little past what is recorded: most kills land mid-count, each one a bit later
        share = min(done / total_blocks + rng.uniform(0.005, 0.03), 0.97)
        tried += 1
        if kill_at_progress(command, share, rng.uniform(0.0, 0.05)):
            done = whole_blocks(folder) if folder.exists() else 0
            midway += 0 < done < total_blocks
    return midway, tried


def finish(corpus, uninterrupted, folder, out, num_proc: int) -> None:
    """A last run on ``folder``: the counts of an uninterrupted run, no temporaries left."""
    timed_run(count_command(corpus, out, num_proc=num_proc, checkpoint=folder))
    assert out.read_bytes() == uninterrupted
    assert whole_blocks(folder) == -(-corpus.stat().st_size // BLOCKSIZE)
    assert leftovers(folder) == []


@pytest.mark.parametrize("num_proc", [1, 2])
def test_killed_counts_resume_to_the_same_counts(corpus, uninterrupted, tmp_path, num_proc):
    kill_then_finish(corpus, uninterrupted, tmp_path, num_proc=num_proc, kills=QUICK_KILLS,
                     midway_at_least=2)


@pytest.mark.slow
@pytest.mark.parametrize("num_proc", [1, 2])
def test_many_kills_resume_to_the_same_counts(corpus, uninterrupted, tmp_path, num_proc):
    kill_then_finish(corpus, uninterrupted, tmp_path, num_proc=num_proc, kills=FULL_KILLS,
                     midway_at_least=10)
