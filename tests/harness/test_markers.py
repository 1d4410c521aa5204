"""The suite's own rules, on small suites run in a subprocess with this suite's conftest:
a missing ``shared_data`` or ``tensorflow`` marker fails the test, a run without ../shared
skips the marked tests and ends with one line counting them (also under xdist).

Not handled here: the markers of the real tests (a run without ../shared checks those:
``.ci/run`` does it with ``--check-shared-marker``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
INI = """[pytest]
addopts = --strict-markers -rfEs -p no:cacheprovider
markers =
    shared_data: reads the shared data
    tensorflow: needs tensorflow-text
"""
READER = '''
import pytest
from tests.shared_data import shared_path


@pytest.fixture(scope="module")
def vocab():
    return shared_path("vocab.txt").read_text()
'''


def run_suite(tmp_path: Path, tests: str, *args: str, shared: bool) -> subprocess.CompletedProcess:
    """Run ``tests`` (a test module's text) under this suite's conftest; ../shared as asked."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pytest.ini").write_text(INI)
    (project / "tests" / "__init__.py").write_text("")
    for name in ("conftest.py", "shared_data.py"):
        shutil.copy(TESTS / name, project / "tests" / name)
    (project / "tests" / "test_sample.py").write_text(READER + tests)
    data = tmp_path / "shared"
    if shared:
        data.mkdir()
        (data / "vocab.txt").write_text("[UNK]\n")
    env = {**os.environ, "WORDPIECES_SHARED": str(data), "PYTHONPATH": str(project)}
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


def test_without_shared_data_marked_tests_skip_and_the_run_says_how_many(tmp_path):
    """Marked tests skip before their fixtures; the last line counts them and says where."""
    result = run_suite(tmp_path, '''
@pytest.mark.shared_data
def test_a(vocab):
    assert vocab


@pytest.mark.shared_data
def test_b():
    assert shared_path("vocab.txt")


def test_c():
    assert True
''', shared=False)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.strip().splitlines()
    assert "1 passed, 2 skipped" in lines[-2]
    assert lines[-1] == ('2 tests skipped: they need the shared data '
                         '(../shared or $WORDPIECES_SHARED; see README "Development")')


def test_the_count_is_right_under_xdist(tmp_path):
    """Workers' skips reach the controller: the closing line counts every one of them."""
    pytest.importorskip("xdist")
    marked = "".join(f'''
@pytest.mark.shared_data
def test_{i}(vocab):
    assert vocab
''' for i in range(7))
    result = run_suite(tmp_path, marked, "-n", "2", shared=False)
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith(
        "7 tests skipped: they need the shared data")


def test_with_shared_data_there_is_no_closing_line(tmp_path):
    """With the data present the marked tests run and nothing is added after pytest's line."""
    result = run_suite(tmp_path, '''
@pytest.mark.shared_data
def test_a(vocab):
    assert vocab == "[UNK]\\n"
''', shared=True)
    assert result.returncode == 0, result.stdout
    assert "1 passed" in result.stdout.strip().splitlines()[-1]
    assert "they need the shared data" not in result.stdout


def test_an_unmarked_test_that_reads_the_shared_data_fails(tmp_path):
    """Reading through shared_path without the marker fails, naming the marker to add."""
    result = run_suite(tmp_path, '''
def test_unmarked():
    assert shared_path("vocab.txt")
''', shared=True)
    assert result.returncode == 1
    assert "reads the shared data (shared_path) but is not marked shared_data" in result.stdout


def test_an_unmarked_test_reusing_a_shared_fixture_fails(tmp_path):
    """A cached module fixture that read ../shared counts for every later test that uses it."""
    result = run_suite(tmp_path, '''
@pytest.mark.shared_data
def test_first(vocab):
    assert vocab


def test_second(vocab):
    assert vocab
''', shared=True)
    assert result.returncode == 1
    assert "FAILED tests/test_sample.py::test_second" in result.stdout
    assert "test_first" not in result.stdout.split("short test summary info")[1]


def test_an_unmarked_test_that_reads_without_the_data_fails(tmp_path):
    """Without ../shared, the unmarked reader fails instead of skipping silently."""
    result = run_suite(tmp_path, '''
def test_unmarked(vocab):
    assert vocab
''', shared=False)
    assert result.returncode == 1
    assert "is not marked shared_data" in result.stdout


def test_check_mode_fails_a_marker_nobody_needs(tmp_path):
    """--check-shared-marker runs marked tests without the data: one that passes fails."""
    result = run_suite(tmp_path, '''
@pytest.mark.shared_data
def test_needs_it(vocab):
    assert vocab


@pytest.mark.shared_data
def test_does_not():
    assert True


@pytest.mark.shared_data
def test_skips_first_for_another_reason():
    pytest.skip("something else is missing")
''', "--check-shared-marker", shared=False)
    assert result.returncode == 1
    assert "FAILED tests/test_sample.py::test_does_not" in result.stdout
    assert "passes without the shared data: drop the marker" in result.stdout
    assert "test_needs_it" not in result.stdout.split("short test summary info")[1].split(
        "SKIPPED")[0]
    assert result.stdout.strip().splitlines()[-1].startswith(
        "2 tests skipped: they need the shared data")  # both marked tests that skipped


def test_check_mode_refuses_to_run_with_the_data_present(tmp_path):
    """The check means nothing with ../shared there: it is a usage error."""
    result = run_suite(tmp_path, "", "--check-shared-marker", shared=True)
    assert result.returncode == 4
    assert "--check-shared-marker needs the shared data to be absent" in result.stderr


def test_an_unmarked_test_skipping_for_tensorflow_fails(tmp_path):
    """A test that skips for want of TensorFlow must carry the marker -m tensorflow selects."""
    result = run_suite(tmp_path, '''
def test_tf():
    pytest.skip("could not import 'tensorflow_text'")


@pytest.mark.tensorflow
def test_marked_tf():
    pytest.importorskip("tensorflow_text")
''', shared=True)
    assert result.returncode == 1
    assert "FAILED tests/test_sample.py::test_tf" in result.stdout
    assert "test_marked_tf" not in result.stdout.split("short test summary info")[1].split(
        "SKIPPED")[0]


def test_fast_tier_lists_real_modules_and_names_what_it_leaves_out():
    """Every module the fast tier leaves out exists, and ``-m "not slow"`` says what it left."""
    from tests.conftest import SLOW_MODULES, SLOW_TESTS

    root = TESTS.parent
    assert [m for m in SLOW_MODULES if not (root / m).is_file()] == []
    for test in SLOW_TESTS:  # each names a test function of an existing module
        module, name = test.split("::")
        assert f"def {name}" in (root / module).read_text(encoding="utf-8"), test
    proc = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider",
                           "-m", "not slow", "tests/unit/fast", "tests/unit/test_vocab.py"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    closing = [line for line in proc.stdout.splitlines() if line.startswith("fast tier: ")]
    assert len(closing) == 1, proc.stdout[-2000:]
    assert "test_sanitizers.py" in closing[0] and "test_thread_pool.py" in closing[0]
    assert "tests/unit/fast/test_sanitizers.py::" not in proc.stdout  # none collected
    assert "tests/unit/test_vocab.py::" in proc.stdout


def test_fast_tier_names_what_it_leaves_out_under_xdist():
    """scripts/test runs on xdist workers, which collect: the closing line is there too."""
    root = TESTS.parent
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "-m", "not slow", "tests/unit/test_vocab.py"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    closing = [line for line in proc.stdout.splitlines() if line.startswith("fast tier: ")]
    assert len(closing) == 1 and "test_sanitizers.py" in closing[0], proc.stdout[-2000:]
