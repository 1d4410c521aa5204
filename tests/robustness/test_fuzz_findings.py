"""Replay every input the fuzzers kept, and every seed, through its target.

``fuzz/findings/TARGET/*`` holds inputs that once crashed a target (fixed since: each
must now be handled, parsed or refused with the package's own error);
``fuzz/corpus/TARGET/*`` the seeds ``python -m fuzz.seeds`` writes. A target raising
anything else here is a regression. Runs without atheris (the targets need only bytes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import seeds
from fuzz.targets import TARGETS

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
KEPT = sorted(p for kind in ("findings", "corpus") for p in (FUZZ / kind).glob("*/*")
              if p.is_file() and p.parent.name in TARGETS)


@pytest.mark.parametrize("path", KEPT, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/"
                                                     f"{p.name}")
def test_kept_input_is_handled_by_its_target(path):
    """Each kept input is parsed (and its properties hold) or refused with a clear error."""
    TARGETS[path.parent.name](path.read_bytes())


def test_every_target_has_seeds_in_the_repository():
    """python -m fuzz.seeds has been run and its output committed, for every target."""
    assert {p.parent.name for p in KEPT if p.parent.parent.name == "corpus"} == set(TARGETS)


def test_the_seeds_in_the_repository_are_what_the_seed_script_writes(tmp_path):
    """The committed seeds are the project's own output, not copied from elsewhere."""
    seeds.write(str(tmp_path))
    written = {(p.parent.name, p.name) for p in tmp_path.glob("*/*")}
    kept = {(p.parent.name, p.name) for p in (FUZZ / "corpus").glob("*/seed-*")}
    assert written == kept
