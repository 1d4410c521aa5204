"""Rerun the merge extension's differential tests on an AddressSanitizer + UBSan build.

Compiles ``wordpieces/learn/learners/native/*.c`` with the sanitizers
(``tests/sanitized_build.py``) and runs ``test_native_merge.py`` (by count) and
``test_native_likelihood.py`` against that build in a fresh interpreter. A read past a
buffer, a use after free or undefined behaviour aborts that run with a report.
"""

import sys

import pytest

from tests.sanitized_build import REPO, rerun_sanitized

SOURCES = REPO / "wordpieces" / "learn" / "learners" / "native"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_merge_differential_tests_under_asan_and_ubsan(tmp_path):
    """test_native_merge.py passes on a sanitized build, with no sanitizer report."""
    rerun_sanitized(tmp_path, "wordpieces.learn.learners._merge_native",
                    list(SOURCES.glob("*.c")), [SOURCES],
                    ["tests/unit/learn/test_native_merge.py",
                     "-k", "not real_corpora or verdict or casmurro"])


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_likelihood_differential_tests_under_asan_and_ubsan(tmp_path):
    """test_native_likelihood.py passes on a sanitized build, with no sanitizer report."""
    rerun_sanitized(tmp_path, "wordpieces.learn.learners._merge_native",
                    list(SOURCES.glob("*.c")), [SOURCES],
                    ["tests/unit/learn/test_native_likelihood.py",
                     "-k", "not real_corpora or verdict or casmurro"])
