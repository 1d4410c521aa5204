"""Rerun the native differential tests on an AddressSanitizer + UBSan build.

Compiles ``wordpieces/fast/_native/**/*.c`` with the sanitizers (``tests/sanitized_build.py``)
and runs ``tests/differential/test_native.py``, ``test_threads_native.py`` (batches on
1 to 4 threads) and ``test_native_metaspace.py`` (Metaspace's edit step in the C walk)
against that build in a fresh interpreter.
Any read past a buffer, use after free or undefined behaviour aborts that run, and this test
fails with the sanitizer's report.
"""

import sys

import pytest

from tests.sanitized_build import REPO, rerun_sanitized

NATIVE = REPO / "wordpieces" / "fast" / "_native"
# Under the sanitizers Python itself runs slower: keep the C paths, thin out the repeats
# (test_native.py runs everything at full size).
SELECTION = ("not corpora or uncased.vocab.txt-huggingface or "
             "MiniLM-L6-v2.tokenizer.json-tensorflow or multilingual-cased.vocab.txt-bert "
             "or clean_text or Bert_Metaspace_always_split-native "
             "or Bert_Metaspace_first_whole-native")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_native_differential_tests_under_asan_and_ubsan(tmp_path):
    """The native differential tests pass on a sanitized build, with no sanitizer report."""
    rerun_sanitized(tmp_path, "wordpieces.fast._native._core", list(NATIVE.glob("**/*.c")),
                    [NATIVE / "core"], ["tests/differential/test_native.py",
                                        "tests/differential/test_threads_native.py",
                                        "tests/differential/test_native_metaspace.py",
                                        "-k", SELECTION],
                    env={"WORDPIECES_BACKEND": "native", "WORDPIECES_REQUIRE_NATIVE": "1",
                         "WORDPIECES_EXAMPLES_SCALE": "0.25"})
