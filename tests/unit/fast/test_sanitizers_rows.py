"""Rerun the tests of a native batch's rows (pairs, windows) on an ASan + UBSan build.

``test_sanitizers.py`` reruns the encoder's differential tests; the lists that
``LazyEncoding``s build from a batch's rows (``wp_rows.c``, ``wp_columns.c``: a pair's
two rows in one list, ``Row.window``; ``wp_lazy.c``: the C fields and a batch's
encodings made in one call) are exercised by the lazy tests, rerun here on the native
backend against a sanitized build (``tests/sanitized_build.py``).
"""

import sys

import pytest

from tests.sanitized_build import REPO, rerun_sanitized

NATIVE = REPO / "wordpieces" / "fast" / "_native"
TESTS = ["tests/unit/encoding/test_lazy_pairs.py", "tests/unit/encoding/test_lazy_encoding.py",
         "tests/unit/encoding/test_lazy_fields.py", "tests/unit/encoding/test_lazy_batches.py",
         "tests/differential/test_pairs_hf.py"]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_lazy_pair_tests_under_asan_and_ubsan(tmp_path):
    """The lazy-pair and lazy-encoding tests pass on a sanitized build, with no report."""
    rerun_sanitized(tmp_path, "wordpieces.fast._native._core", list(NATIVE.glob("**/*.c")),
                    [NATIVE / "core"], [*TESTS, "-k", "not python"],
                    env={"WORDPIECES_BACKEND": "native", "WORDPIECES_REQUIRE_NATIVE": "1"})
