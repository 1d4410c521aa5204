"""A Dask worker killed mid-count does not change the counts.

A real scheduler and two single-threaded worker processes (each under a nanny, as
``dask worker`` starts them) run as separate processes; the count is watched through
its ``progress`` callback and one worker process is SIGKILLed once a given share of the
input is counted. Dask reruns the lost tasks (map tasks and partial sums alike are pure
functions of their inputs), so the counts must equal a one-process local count.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wordpieces.learn.counting import count_words

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

WORKERS = 2
STARTUP_SECONDS = 60


def _dask(*args: str) -> list[str]:
    return [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Yield the scheduler file of a scheduler and two worker processes, all separate."""
    folder = tmp_path_factory.mktemp("dask_cluster")
    address_file = str(folder / "scheduler.json")
    common = ["--scheduler-file", address_file]
    procs = [subprocess.Popen(_dask("scheduler", "--port", "0", "--dashboard-address", ":0",
                                    *common), stderr=subprocess.DEVNULL)]
    try:
        _wait_for(lambda: os.path.exists(address_file), "the scheduler")
        procs += [subprocess.Popen(_dask("worker", "--nthreads", "1", "--nworkers", "1",
                                         "--dashboard-address", ":0", *common),
                                   stderr=subprocess.DEVNULL) for _ in range(WORKERS)]
        with distributed.Client(scheduler_file=address_file) as client:
            client.wait_for_workers(WORKERS, timeout=STARTUP_SECONDS)
        yield address_file
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=30)


def _wait_for(ready, what: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not start in {STARTUP_SECONDS} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Twelve files of made-up sentences: ~100 blocks of 16 KB, enough to kill mid-job."""
    folder = tmp_path_factory.mktemp("dask_loss_corpus")
    rng = random.Random(14)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyzéü") for _ in range(rng.randint(1, 9)))
             for _ in range(3000)]
    for i in range(12):
        lines = (" ".join(rng.choices(words, k=rng.randint(3, 25))) + rng.choice(".,!?")
                 for _ in range(3000))
        (folder / f"part{i:02}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


class KillAt:
    """A progress callback that SIGKILLs one worker process once ``share`` is counted."""

    def __init__(self, client, share: float):
        self.client, self.share, self.killed = client, share, None

    def __call__(self, stage: str, done: int = 0, total: int = 0, **_) -> None:
        if self.killed is None and total and done >= self.share * total:
            pids = self.client.run(os.getpid)  # {worker address: its process id}
            self.killed = sorted(pids.values())[0]
            os.kill(self.killed, signal.SIGKILL)


@pytest.mark.parametrize("share", [0.2, 0.6])
def test_a_worker_killed_mid_count_changes_nothing(cluster, corpus, share):
    """Kill one of two workers after ``share`` of the bytes: the counts stay exact."""
    expected = count_words(str(corpus), num_proc=1, blocksize=16_384)
    with distributed.Client(scheduler_file=cluster) as client:
        killer = KillAt(client, share)
        counts = count_words(str(corpus), engine="dask", scheduler=client, blocksize=16_384,
                             progress=killer)
        assert killer.killed is not None, "the job ended before a worker could be killed"
        client.wait_for_workers(WORKERS, timeout=STARTUP_SECONDS)  # the nanny restarts it
    assert dict(counts) == dict(expected)
    assert counts.total() == expected.total()


def test_the_cluster_is_separate_processes(cluster):
    """The workers are processes of their own (a kill takes down no test process)."""
    with distributed.Client(scheduler_file=cluster) as client:
        pids = set(client.run(os.getpid).values())
    assert len(pids) == WORKERS and os.getpid() not in pids
    assert json.loads(Path(cluster).read_text())["address"].startswith("tcp://")
