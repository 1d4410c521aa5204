"""Rerun the merge extension's differential tests on an AddressSanitizer + UBSan build.

Compiles ``wordpieces/learn/learners/native/*.c`` with the sanitizers into a temporary
directory and runs ``test_native_merge.py`` in a fresh interpreter with the ASan runtime
preloaded and the sanitized ``_merge_native`` in place of the installed one. A read past
a buffer, a use after free or undefined behaviour aborts that run with a report.
"""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.unit.fast.test_sanitizers import FLAGS, compiler, sanitizer_runtime

REPO = Path(__file__).resolve().parents[3]
SOURCES = REPO / "wordpieces" / "learn" / "learners" / "native"
MODULE = "wordpieces.learn.learners._merge_native"

PLUGIN = '''"""pytest plugin: load the sanitized merge extension in place of the installed one."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location({module!r}, {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
sys.modules[{module!r}] = module
print("SANITIZED-MERGE", module.__file__)
'''


def build_sanitized(out: Path) -> Path:
    """Compile the merge extension with the sanitizers; skip if the compiler cannot."""
    target = out / ("_merge_native" + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [*compiler(), "-shared", "-fPIC", *FLAGS, "-I" + sysconfig.get_paths()["include"],
           "-I" + str(SOURCES), *sorted(str(p) for p in SOURCES.glob("*.c")), "-o", str(target)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        if "sanitize" in result.stderr or "asan" in result.stderr:
            pytest.skip(f"the compiler lacks sanitizer support: {result.stderr[-300:]}")
        pytest.fail(f"the merge extension does not compile:\n{' '.join(cmd)}\n{result.stderr}")
    return target


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_merge_differential_tests_under_asan_and_ubsan(tmp_path):
    """test_native_merge.py passes on a sanitized build, with no sanitizer report."""
    runtime = sanitizer_runtime()
    if runtime is None:
        pytest.skip("the compiler has no AddressSanitizer runtime")
    module = build_sanitized(tmp_path)
    (tmp_path / "wp_merge_sanitized.py").write_text(PLUGIN.format(module=MODULE,
                                                                  path=str(module)))
    env = {**os.environ, "LD_PRELOAD": runtime, "PYTHONMALLOC": "malloc",
           "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-s", "-p", "wp_merge_sanitized",
           "-p", "no:cacheprovider", "tests/unit/learn/test_native_merge.py",
           "-k", "not real_corpora or verdict or casmurro"]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=900)
    report = result.stdout[-4000:] + result.stderr[-4000:]
    assert "SANITIZED-MERGE " + str(module) in result.stdout, report
    assert result.returncode == 0, report
    assert "ERROR: AddressSanitizer" not in report and "runtime error:" not in report, report
