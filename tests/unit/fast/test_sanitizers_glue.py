"""Rerun the tests of the batch glue (items split in C, every list form) on ASan + UBSan.

``wp_finish_glue.c`` (``word_items``, ``words_columns``: pre-split words checked, copied
and flattened) and ``wp_finish_batch.c`` (each form's lists built in C, their rows left
out of the collector; truncation's windows) are exercised by the word-items twin tests,
the forms tests and the windows tests, rerun here on the native backend against a
sanitized build (``tests/sanitized_build.py``).
"""

import sys

import pytest

from tests.sanitized_build import REPO, rerun_sanitized

NATIVE = REPO / "wordpieces" / "fast" / "_native"
TESTS = ["tests/unit/encode/test_word_items.py", "tests/differential/test_forms_native.py",
         "tests/differential/test_windows_native.py"]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_batch_glue_tests_under_asan_and_ubsan(tmp_path):
    """The word-items and forms tests pass on a sanitized build, with no report."""
    rerun_sanitized(tmp_path, "wordpieces.fast._native._core", list(NATIVE.glob("**/*.c")),
                    [NATIVE / "core"], TESTS,
                    env={"WORDPIECES_BACKEND": "native", "WORDPIECES_REQUIRE_NATIVE": "1"})
