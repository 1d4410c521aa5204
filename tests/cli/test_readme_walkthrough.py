"""The command-line walk-through of docs/cli.md runs as written, on a fresh folder beside ../shared.

The ``console`` block under "## A walk-through" is read from docs/cli.md: each ``$ ``
line (with its ``\\`` continuations) is a command, the lines after it its expected
output, where a line ``...`` stands for any lines left out. The commands run one after
another with bash in an empty temporary folder whose ``../shared`` is a link to the real
shared data (read in place), as on a fresh clone. The TensorFlow export runs in its own
test, marked ``tensorflow`` (``scripts/test-tensorflow`` has TensorFlow Text).

The README's own short block under "## The command line" runs the same way.

Not handled here: the other console blocks (the playground's are run by test_serve.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.shared_data import shared_path

ROOT = Path(__file__).resolve().parents[2]
WALKTHROUGH = ROOT / "docs" / "cli.md"
SECTION = "## A walk-through"
README = ROOT / "README.md"
README_SECTION = "## The command line"
ELLIPSIS = "..."


@dataclass
class Step:
    """One command of the walk-through and the output the docs show for it."""

    command: str
    output: list[str] = field(default_factory=list)

    @property
    def needs_tensorflow(self) -> bool:
        return "--format tensorflow" in self.command


def walkthrough(text: str, section: str = SECTION) -> list[Step]:
    """The commands of the first ``console`` block after ``section``, with their outputs."""
    block = text.split(section, 1)[1].split("```console\n", 1)[1].split("\n```", 1)[0]
    steps: list[Step] = []
    continued = False
    for line in block.splitlines():
        if continued:
            steps[-1].command += "\n" + line
        elif line.startswith("$ "):
            steps.append(Step(line[2:]))
        else:
            steps[-1].output.append(line)
        continued = line.endswith("\\")
    return steps


def matches(expected: list[str], actual: list[str]) -> bool:
    """Tell whether ``actual`` is ``expected`` with each ``...`` line standing for any lines."""
    if not expected:
        return True  # the docs show no output: only the exit status counts
    if ELLIPSIS not in expected:
        return actual == expected
    cut = expected.index(ELLIPSIS)
    head, rest = expected[:cut], expected[cut + 1:]
    if actual[:cut] != head:
        return False
    return any(matches(rest, actual[start:]) if rest else True
               for start in range(cut, len(actual) + 1))


def test_walkthrough_parser_reads_commands_continuations_and_outputs():
    """The parser keeps continuation lines with their command and outputs with theirs."""
    steps = walkthrough(f"{SECTION}\n\n```console\n$ a \\\n    b\n$ c   # note\nout\n...\n"
                        "end\n```\n")
    assert [(s.command, s.output) for s in steps] == [
        ("a \\\n    b", []), ("c   # note", ["out", ELLIPSIS, "end"])]
    assert matches(["out", ELLIPSIS, "end"], ["out", "x", "y", "end"])
    assert not matches(["out", ELLIPSIS, "end"], ["out", "x"])
    assert not matches(["out"], ["out", "more"])


def run_steps(steps: list[Step], tmp_path: Path) -> None:
    """Run ``steps`` in order in an empty folder beside ``shared``; check each as shown."""
    (tmp_path / "shared").symlink_to(shared_path(), target_is_directory=True)
    clone = tmp_path / "clone"
    clone.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "WORDPIECES_SHARED"}
    env.update(NO_COLOR="1", PATH=os.path.dirname(sys.executable) + os.pathsep
               + env.get("PATH", ""))
    for step in steps:
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", step.command], cwd=clone,
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"$ {step.command}\n{proc.stderr}"
        actual = proc.stdout.rstrip("\n").splitlines()
        assert matches(step.output, actual), (
            f"$ {step.command}\ndocs/cli.md shows:\n" + "\n".join(step.output)
            + "\ngot:\n" + "\n".join(actual))


def readme_steps() -> list[Step]:
    text = WALKTHROUGH.read_text(encoding="utf-8")
    assert SECTION in text, f"no {SECTION!r} section in {WALKTHROUGH}"
    steps = walkthrough(text)
    assert len(steps) >= 10, f"the walk-through was not found in {WALKTHROUGH}"
    return steps


@pytest.mark.slow
@pytest.mark.shared_data
def test_readme_walkthrough_runs_as_written(tmp_path):
    """Every command of the walk-through but the TensorFlow export exits 0 and prints
    what docs/cli.md shows."""
    run_steps([s for s in readme_steps() if not s.needs_tensorflow], tmp_path)


@pytest.mark.tensorflow
@pytest.mark.shared_data
def test_readme_tensorflow_export_runs_as_written(tmp_path):
    """The walk-through's TensorFlow export runs as written in a fresh folder (no out/ yet)."""
    steps = [s for s in readme_steps() if s.needs_tensorflow]
    assert steps, "the walk-through has no TensorFlow step any more"
    run_steps(steps, tmp_path)


@pytest.mark.shared_data
def test_readme_command_line_block_runs_as_written(tmp_path):
    """The README's short command-line block exits 0 and prints what the README shows."""
    text = README.read_text(encoding="utf-8")
    assert README_SECTION in text, f"no {README_SECTION!r} section in README.md"
    steps = walkthrough(text, README_SECTION)
    assert len(steps) >= 4, "the README's command-line block was not found"
    run_steps(steps, tmp_path)
