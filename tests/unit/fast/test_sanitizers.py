"""Rerun the native differential tests on an AddressSanitizer + UBSan build.

Compiles ``wordpieces/fast/_native/**/*.c`` with ``-fsanitize=address,undefined`` into a
temporary directory, then runs ``tests/differential/test_native.py`` in a fresh interpreter with the
ASan runtime preloaded and the sanitized module in place of the installed one (a pytest
plugin loads it first). Any read past a buffer, use after free or undefined behaviour
aborts that run, and this test fails with the sanitizer's report.
"""

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
NATIVE = REPO / "wordpieces" / "fast" / "_native"
FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer", "-g", "-O1", "-std=c99", "-pthread"]
# Under the sanitizers Python itself runs slower: keep the C paths, thin out the repeats
# (test_native.py runs everything at full size).
SELECTION = ("not corpora or uncased.vocab.txt-huggingface or "
             "MiniLM-L6-v2.tokenizer.json-tensorflow or multilingual-cased.vocab.txt-bert "
             "or clean_text")

PLUGIN = '''"""pytest plugin: load the sanitized extension in place of the installed one."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("wordpieces.fast._native._core", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
sys.modules["wordpieces.fast._native._core"] = module
print("SANITIZED-EXTENSION", module.__file__)
'''


def compiler() -> list[str]:
    return shlex.split(sysconfig.get_config_var("CC") or "cc")


def sanitizer_runtime() -> str | None:
    """Path of the ASan shared runtime the compiler links against, if it has one."""
    for name in ("libasan.so", "libclang_rt.asan-x86_64.so", "libclang_rt.asan-aarch64.so"):
        out = subprocess.run([*compiler(), f"-print-file-name={name}"], capture_output=True,
                             text=True).stdout.strip()
        if os.path.isabs(out) and os.path.exists(out):
            return os.path.realpath(out)
    return None


def build_sanitized(out: Path) -> Path:
    """Compile the extension with the sanitizers; skip if the compiler cannot."""
    target = out / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    sources = sorted(str(p) for p in NATIVE.glob("**/*.c"))
    cmd = [*compiler(), "-shared", "-fPIC", *FLAGS, "-I" + sysconfig.get_paths()["include"],
           "-I" + str(NATIVE / "core"),
           *sources, "-o", str(target)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        if "sanitize" in result.stderr or "asan" in result.stderr or "ubsan" in result.stderr:
            pytest.skip(f"the compiler lacks sanitizer support: {result.stderr[-300:]}")
        pytest.fail(f"the extension does not compile:\n{shlex.join(cmd)}\n{result.stderr}")
    return target


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="preloading the ASan runtime is Linux-only")
def test_native_differential_tests_under_asan_and_ubsan(tmp_path):
    """test_native.py passes on a sanitized build, with no sanitizer report."""
    runtime = sanitizer_runtime()
    if runtime is None:
        pytest.skip("the compiler has no AddressSanitizer runtime")
    module = build_sanitized(tmp_path)
    (tmp_path / "wp_sanitized.py").write_text(PLUGIN.format(path=str(module)))
    env = {**os.environ, "LD_PRELOAD": runtime, "PYTHONMALLOC": "malloc",
           "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "WORDPIECES_BACKEND": "native", "WORDPIECES_REQUIRE_NATIVE": "1",
           "WORDPIECES_EXAMPLES_SCALE": "0.25"}
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-s", "-p", "wp_sanitized",
           "-p", "no:cacheprovider", "tests/differential/test_native.py", "-k", SELECTION]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=900)
    report = result.stdout[-4000:] + result.stderr[-4000:]
    assert "SANITIZED-EXTENSION " + str(module) in result.stdout, report
    assert result.returncode == 0, report
    assert "ERROR: AddressSanitizer" not in report and "runtime error:" not in report, report
