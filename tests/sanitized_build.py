"""Build a C extension under AddressSanitizer + UBSan and rerun its tests against it.

One mechanism for every native extension of the package (the encoder's ``_core``, the
merge loop's ``_merge_native``): compile its sources with the sanitizers into a temporary
folder, then run a pytest selection in a fresh interpreter with the ASan runtime preloaded
and a plugin that loads the sanitized module in place of the installed one. Any read past
a buffer, use after free or undefined behaviour aborts that run with a report.

Not handled here: which tests to rerun (each caller names its own selection).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer", "-g", "-O1", "-std=c99", "-pthread"]
MARK = "SANITIZED-MODULE"

PLUGIN = '''"""pytest plugin: load the sanitized extension in place of the installed one."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location({module!r}, {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
sys.modules[{module!r}] = module
print({mark!r}, module.__file__)
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


def build_sanitized(out: Path, module: str, sources: list[Path], includes: list[Path]) -> Path:
    """Compile ``sources`` into the sanitized extension ``module``; skip if the compiler cannot."""
    target = out / (module.rsplit(".", 1)[-1] + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [*compiler(), "-shared", "-fPIC", *FLAGS, "-I" + sysconfig.get_paths()["include"],
           *("-I" + str(folder) for folder in includes), *sorted(map(str, sources)),
           "-o", str(target)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        if any(word in result.stderr for word in ("sanitize", "asan", "ubsan")):
            pytest.skip(f"the compiler lacks sanitizer support: {result.stderr[-300:]}")
        pytest.fail(f"{module} does not compile:\n{shlex.join(cmd)}\n{result.stderr}")
    return target


def rerun_sanitized(tmp_path: Path, module: str, sources: list[Path], includes: list[Path],
                    pytest_args: list[str], env: dict[str, str] | None = None) -> None:
    """Run ``pytest_args`` against a sanitized build of ``module``; fail on any report."""
    runtime = sanitizer_runtime()
    if runtime is None:
        pytest.skip("the compiler has no AddressSanitizer runtime")
    built = build_sanitized(tmp_path, module, sources, includes)
    (tmp_path / "wp_sanitized_plugin.py").write_text(
        PLUGIN.format(module=module, path=str(built), mark=MARK))
    full_env = {**os.environ, "LD_PRELOAD": runtime, "PYTHONMALLOC": "malloc",
                "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
                "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
                "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]), **(env or {})}
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-s", "-p", "wp_sanitized_plugin",
           "-p", "no:cacheprovider", *pytest_args]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=full_env,
                            timeout=900)
    report = result.stdout[-4000:] + result.stderr[-4000:]
    assert f"{MARK} {built}" in result.stdout, report
    assert result.returncode == 0, report
    assert "ERROR: AddressSanitizer" not in report and "runtime error:" not in report, report
