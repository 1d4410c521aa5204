"""The repository's conftest.py on a small package, run in a subprocess: doctests come from
the package only, a module importing a missing optional dependency is skipped saying which,
and a module importing TensorFlow carries the ``tensorflow`` marker.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT_CONFTEST = Path(__file__).resolve().parents[2] / "conftest.py"
DOCTEST = '''
def double(x):
    """Double x.

    >>> double(2)
    4
    """
    return 2 * x
'''


def missing_optional() -> str | None:
    """An optional dependency that is not installed here (None when all of them are)."""
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT_CONFTEST)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return next((name for name in sorted(module.OPTIONAL)
                 if importlib.util.find_spec(name) is None), None)


def run_doctests(tmp_path: Path, modules: dict[str, str], *args: str):
    """Lay out ``modules`` (path -> text) beside the real conftest.py and run the doctests."""
    project = tmp_path / "project"
    for path, text in {"wordpieces/__init__.py": "", **modules}.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    shutil.copy(ROOT_CONFTEST, project / "conftest.py")
    (project / "pytest.ini").write_text(
        "[pytest]\naddopts = -rs -p no:cacheprovider\nmarkers =\n    tensorflow: needs TF\n")
    env = {**os.environ, "PYTHONPATH": str(project)}
    return subprocess.run([sys.executable, "-m", "pytest", "--doctest-modules", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)


def test_doctests_come_from_the_package_only(tmp_path):
    """A doctest in the package runs; one in tests/ or a script beside it does not."""
    result = run_doctests(tmp_path, {"wordpieces/plain.py": DOCTEST,
                                     "tests/helper.py": DOCTEST, "tools/script.py": DOCTEST},
                          "wordpieces", "tests", "tools")
    assert result.returncode == 0, result.stdout
    assert "1 passed" in result.stdout.splitlines()[-1]


def test_a_module_needing_a_missing_extra_is_skipped_saying_which(tmp_path):
    """Its import would fail: the module is skipped, naming the module and the dependency."""
    missing = missing_optional()
    if missing is None:
        pytest.skip("every optional dependency is installed here")
    result = run_doctests(tmp_path, {"wordpieces/plain.py": DOCTEST,
                                     "wordpieces/probe.py": f"import {missing}\n" + DOCTEST},
                          "wordpieces")
    assert result.returncode == 0, result.stdout
    assert (f"wordpieces/probe.py: its doctests need {missing} (not installed here)"
            in result.stdout)
    assert "1 passed, 1 skipped" in result.stdout.splitlines()[-1]


def test_a_real_import_error_still_fails(tmp_path):
    """Only the optional dependencies are excused: a broken import stays an error."""
    result = run_doctests(tmp_path, {"wordpieces/broken.py": "import no_such_module_here\n"},
                          "wordpieces")
    assert result.returncode != 0
    assert "no_such_module_here" in result.stdout


@pytest.mark.tensorflow
def test_a_module_importing_tensorflow_is_marked(tmp_path):
    """-m tensorflow selects the doctests of a module that imports TensorFlow, and only those."""
    result = run_doctests(tmp_path, {"wordpieces/plain.py": DOCTEST,
                                     "wordpieces/graph.py": "import tensorflow\n" + DOCTEST},
                          "wordpieces", "-m", "tensorflow")
    assert result.returncode == 0, result.stdout
    assert "1 passed, 1 deselected" in result.stdout.splitlines()[-1]
