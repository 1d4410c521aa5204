"""Rerun the refinement loop's differential tests on an AddressSanitizer + UBSan build.

Compiles ``wordpieces/learn/learners/native/*.c`` with the sanitizers
(``tests/sanitized_build.py``) and runs ``test_refine_native.py`` against that build in a
fresh interpreter: a read past a buffer, a use after free or undefined behaviour in
``wp_refine*.c`` aborts that run with a report.
"""

import sys

import pytest

from tests.sanitized_build import REPO, rerun_sanitized

SOURCES = REPO / "wordpieces" / "learn" / "learners" / "native"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_refine_differential_tests_under_asan_and_ubsan(tmp_path):
    """test_refine_native.py passes on a sanitized build, with no sanitizer report."""
    rerun_sanitized(tmp_path, "wordpieces.learn.learners._merge_native",
                    list(SOURCES.glob("*.c")), [SOURCES],
                    ["tests/unit/learn/test_refine_native.py"])
