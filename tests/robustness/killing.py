"""Run a real save in a subprocess and SIGKILL it: at random moments or between two renames.

What the SIGKILL tests of multi-file outputs share. A writer is a command line (the
``wordpieces`` CLI, or ``python -c`` calling a save) that writes one of two versions of
an output over a target. ``kill_at_random`` kills it after a random share of the time an
uninterrupted run takes; ``kill_after_renames`` sets the test hook of
``formats.atomic`` (``WORDPIECES_TEST_PAUSE_AFTER_RENAME``: the writer announces each
rename of a commit on stderr and then pauses) and kills it during the pause that follows
rename ``k``, that is exactly between two renames.

A ``Scoreboard`` keeps what each kill left: the old complete set, the new complete set,
a clear error, or a mix (a reader that accepted files from two versions).
"""

from __future__ import annotations

import collections
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from wordpieces.formats.atomic import PAUSE_ENV

TEMPORARY = re.compile(r"\.wp-[0-9a-f]{8}-\d+-\d+-[0-9a-f]{8}\.(tmp|old)\Z")
RANDOM_KILLS_QUICK = 5  # per multi-file output, in the default run
RANDOM_KILLS_FULL = 20  # per multi-file output, marked slow
SEED = int(os.environ.get("WORDPIECES_KILL_SEED", "14"))
TIMEOUT = 300


def environment(**extra: str) -> dict[str, str]:
    """The subprocess environment: this one, minus the test hook, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != PAUSE_ENV}
    env.update(extra)
    return env


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "wordpieces", *args]


def run(command: list[str], env: dict[str, str] | None = None) -> float:
    """Run ``command`` to the end (it must succeed); return how long it took."""
    start = time.monotonic()
    done = subprocess.run(command, env=env or environment(), capture_output=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return time.monotonic() - start


def kill_at_random(command: list[str], seconds: float, rng: random.Random) -> float:
    """Start ``command``, SIGKILL it at a random moment; return the delay.

    ``seconds`` is how long an uninterrupted run takes; the delay is uniform over its
    last three quarters and a little past its end (the first quarter is the
    interpreter starting, where a kill cannot touch any file).
    """
    delay = rng.uniform(0.25 * seconds, 1.1 * seconds)
    proc = subprocess.Popen(command, env=environment(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    return delay


def kill_after_renames(command: list[str], renames: int, pause: float = 0.5) -> bool:
    """Start ``command`` and SIGKILL it right after its ``renames``-th commit rename.

    Returns False when the writer finished with fewer renames (nothing was killed).
    """
    proc = subprocess.Popen(command, env=environment(**{PAUSE_ENV: str(pause)}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith(b"wordpieces-test: renamed"):
            seen += 1
            if seen == renames:
                proc.send_signal(signal.SIGKILL)
                break
    proc.stderr.close()
    proc.wait(timeout=TIMEOUT)
    return seen == renames


def leftovers(*folders: Path) -> list[str]:
    """Every temporary of a writer under ``folders`` (recursively)."""
    found = []
    for folder in folders:
        for directory, subfolders, files in os.walk(folder):
            found += [os.path.join(directory, n) for n in files + subfolders
                      if TEMPORARY.search(n)]
    return found


def snapshot(folder: Path, names: list[str] | None = None) -> dict[str, bytes]:
    """The bytes of every file under ``folder`` (or of ``names`` in it), temporaries and
    manifests left out."""
    if names is not None:
        return {n: (folder / n).read_bytes() for n in names if (folder / n).exists()}
    files = {}
    for directory, _, found in os.walk(folder):
        for name in found:
            if TEMPORARY.search(name) or name.endswith("manifest.json"):
                continue
            path = Path(directory) / name
            files[str(path.relative_to(folder))] = path.read_bytes()
    return files


class Scoreboard:
    """What the reader saw after each kill: "old"/"new" complete, "error", or "mixed"."""

    def __init__(self, versions: dict[str, dict[str, bytes]]):
        self.versions = versions  # version name -> its complete files
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.mixes: list[str] = []
        self.left_behind = 0  # most temporaries seen at once after a kill

    def record(self, read: Callable[[], object], on_disk: dict[str, bytes],
               error_type: type[Exception]) -> str:
        """Read the output; classify what the reader returned against the files on disk."""
        try:
            read()
        except error_type as e:
            if "mixes two saves" not in str(e):
                raise
            outcome = "error"
        else:
            matching = [v for v, files in self.versions.items() if files == on_disk]
            outcome = matching[0] if matching else "mixed"
            if not matching:
                self.mixes.append(", ".join(sorted(on_disk)))
        self.outcomes[outcome] += 1
        return outcome
