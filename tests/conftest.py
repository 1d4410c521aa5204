"""Test-suite hooks: the ``shared_data`` and ``tensorflow`` markers kept exact, and one
closing line on the tests that needed ../shared.

- Without ../shared (a fresh clone), tests marked ``shared_data`` are skipped before their
  fixtures run; without ``tensorflow_text``, tests marked ``tensorflow`` likewise.
- A test that looks up the shared data (``shared_path``, in its body or through a fixture)
  without the marker fails, as does an unmarked test that skips for want of TensorFlow:
  ``-m "not shared_data"`` must select exactly the tests that pass without ../shared, and
  ``scripts/test-tensorflow`` (``-m tensorflow``) every test that needs TF.
- ``--check-shared-marker`` (with ``WORDPIECES_SHARED`` pointing at a missing folder) runs
  the marked tests anyway and fails those that pass: a marker nobody needs.
- The fast tier (``scripts/test --fast``, that is ``-m "not slow"``): the modules in
  ``SLOW_MODULES`` count as ``slow`` as a whole, the tests in ``SLOW_TESTS`` one by one, and
  the run ends with a line naming what the tier left out.

Not handled here: a ``tensorflow`` marker on a test that does not need TF goes unnoticed
(it only moves that test to the TensorFlow run).
"""

from __future__ import annotations

import importlib.util

import pytest

from tests import shared_data

TF_SKIP_REASON = "needs TensorFlow Text: scripts/test-tensorflow runs it"
HAVE_TF = importlib.util.find_spec("tensorflow_text") is not None

# Modules that are slow as a whole (each needs a compiler, kills or times real processes,
# starts a Dask cluster, or runs every corpus), and single tests that take tens of seconds
# (chosen from CI's --durations): the fast tier leaves them out.
SLOW_MODULES = (
    "tests/unit/fast/test_sanitizers.py", "tests/unit/fast/test_sanitizers_rows.py",
    "tests/unit/fast/test_thread_pool.py", "tests/unit/learn/test_native_merge_sanitized.py",
    "tests/robustness/test_kills.py", "tests/robustness/test_checkpoint_kills.py",
    "tests/robustness/test_checkpoint_dask.py", "tests/robustness/test_dask_worker_loss.py",
    "tests/robustness/test_count_memory.py", "tests/robustness/test_huge_line.py",
    "tests/robustness/test_save_kills.py", "tests/robustness/test_regex_linear_proof.py",
    "tests/differential/test_native.py", "tests/differential/test_threads_native.py",
    "tests/differential/test_learners_golden.py",
)
SLOW_TESTS = (
    "tests/differential/test_hf_components.py::test_post_processor_overflow_matches_hf",
    "tests/unit/pipeline/test_patterns.py::test_pattern_script_reproduces_shipped_table",
    "tests/unit/flavors/test_tables.py::test_hf_script_reproduces_shipped_table",
    "tests/unit/formats/test_atomic.py::test_a_commit_cut_after_any_rename_reads_old_or_new_whole",
    "tests/unit/fast/test_word_encoder.py::test_ascii_shortcut_equals_staged",
    "tests/unit/fast/test_word_encoder.py::test_fused_equals_staged_on_any_text",
    "tests/unit/fast/test_word_encoder.py::test_offsets_slice_the_original",
    "tests/unit/learn/test_native_merge.py::test_same_merges_on_real_corpora",
    "tests/unit/learn/test_native_likelihood.py::test_same_merges_on_real_corpora",
    "tests/robustness/test_outputs.py::test_two_writers_the_last_complete_wins_and_neither_breaks",
)
DESELECTED = pytest.StashKey[list]()

LOOKUPS_AT_SETUP = pytest.StashKey[int]()
SHARED_FIXTURES: set[tuple[str, str]] = set()  # (baseid, name) of fixtures that read ../shared


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--check-shared-marker", action="store_true",
        help="without the shared data, run the tests marked shared_data anyway and fail "
             "those that pass (their marker is not needed)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of a ``SLOW_MODULES`` module, and each ``SLOW_TESTS`` one, ``slow``."""
    for item in items:
        if item.nodeid.split("::", 1)[0] in SLOW_MODULES or item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Remember what ``-m`` left out, for the closing line of the fast tier."""
    if items:
        items[0].config.stash.setdefault(DESELECTED, []).extend(items)


def fast_tier_summary(config: pytest.Config) -> str | None:
    """The line naming what ``-m "not slow"`` left out (None in any other run).

    Under xdist the workers collect, so the controller knows no counts: the line then
    names what the tier leaves out by definition.
    """
    if config.option.markexpr != "not slow":
        return None
    left = [item for item in config.stash.get(DESELECTED, []) if needs(item, "slow")]
    count = f"{len(left)} slow tests: " if left else ""
    modules = ", ".join(m.rsplit("/", 1)[1] for m in SLOW_MODULES)
    return (f"fast tier: left out {count}the tests marked slow, {len(SLOW_TESTS)} slow tests "
            f"listed one by one and the modules {modules} (tests/conftest.py); scripts/test "
            "runs them all")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--check-shared-marker") and shared_data.available():
        raise pytest.UsageError(
            "--check-shared-marker needs the shared data to be absent: "
            f"set WORDPIECES_SHARED to a missing folder (found {shared_data.SHARED})")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test whose marker names what is missing here, before its fixtures run."""
    item.stash[LOOKUPS_AT_SETUP] = shared_data.lookups()
    checking = item.config.getoption("--check-shared-marker")
    if needs(item, "shared_data") and not shared_data.available() and not checking:
        pytest.skip(f"{shared_data.SKIP_REASON} ({shared_data.WHERE})")
    if needs(item, "tensorflow") and not HAVE_TF:
        pytest.skip(TF_SKIP_REASON)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    """Remember fixtures that read ../shared: later tests reuse their cached value."""
    before = shared_data.lookups()
    try:
        return (yield)
    finally:
        if shared_data.lookups() != before:
            SHARED_FIXTURES.add((fixturedef.baseid, fixturedef.argname))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Fail a test whose markers do not say what it needs (see ``marker_problem``)."""
    report = yield
    if call.when == "call" or (call.when == "setup" and not report.passed):
        problem = marker_problem(item, report)
        if problem:
            report.outcome = "failed"
            report.longrepr = f"{item.nodeid}: {problem}"
    return report


def marker_problem(item: pytest.Item, report: pytest.TestReport) -> str | None:
    """Say what is wrong with the item's markers, given how its run went (None: nothing)."""
    if read_shared_data(item) and not needs(item, "shared_data"):
        return ("reads the shared data (shared_path) but is not marked shared_data: add "
                "@pytest.mark.shared_data so that a run without ../shared skips it")
    if (item.config.getoption("--check-shared-marker") and needs(item, "shared_data")
            and report.passed):
        return "is marked shared_data but passes without the shared data: drop the marker"
    if (report.skipped and not needs(item, "tensorflow")
            and "tensorflow" in skip_reason(report).lower()):
        return ("skips without TensorFlow but is not marked tensorflow, so "
                "scripts/test-tensorflow (-m tensorflow) never runs it: add the marker")
    return None


def needs(item: pytest.Item, marker: str) -> bool:
    """Tell whether the item carries ``marker`` (on itself, its class or its module)."""
    return item.get_closest_marker(marker) is not None


def read_shared_data(item: pytest.Item) -> bool:
    """Tell whether the item looked up ../shared itself or uses a fixture that did."""
    if shared_data.lookups() != item.stash.get(LOOKUPS_AT_SETUP, shared_data.lookups()):
        return True
    names = getattr(item, "fixturenames", ())
    return any(name in names and item.nodeid.startswith(baseid)
               for baseid, name in SHARED_FIXTURES)


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason a skipped report gives (its longrepr is ``(path, line, "Skipped: why")``)."""
    longrepr = report.longrepr
    if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def shared_data_skips(terminalreporter: pytest.TerminalReporter) -> int:
    """Count the tests skipped for want of ../shared (xdist hands workers' reports back).

    Without ../shared every skipped ``shared_data`` test counts, whatever skipped it first
    (``--check-shared-marker`` lets each one find out for itself).
    """
    absent = not shared_data.available()
    return sum(1 for report in terminalreporter.stats.get("skipped", [])
               if isinstance(report, pytest.TestReport)
               and (skip_reason(report).startswith(shared_data.SKIP_REASON)
                    or absent and "shared_data" in report.keywords))


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the run with one line on the tests that needed ../shared, after pytest's own."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    fast = fast_tier_summary(config)
    if fast:
        reporter.write_line(fast, yellow=True)
    count = shared_data_skips(reporter)
    if count:
        tests = "1 test skipped: it needs" if count == 1 else f"{count} tests skipped: they need"
        reporter.write_line(f"{tests} the shared data ({shared_data.WHERE})", yellow=True)
