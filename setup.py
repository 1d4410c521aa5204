"""Build the optional native extensions ``wordpieces.fast._native._core`` and ``_merge_native``.

Everything else about the package lives in pyproject.toml. The extension needs only a
C compiler; if compiling fails (no compiler, no Python headers), the install still
succeeds and ``wordpieces`` runs on its pure-Python backend (``wordpieces.backend()``
says why). Environment switches:

- ``WORDPIECES_NO_NATIVE=1``: do not try to build the extension;
- ``WORDPIECES_REQUIRE_NATIVE=1``: fail the install if the extension does not build
  (for CI, where a silent fallback would hide a broken build).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = "wordpieces/fast/_native"
# The CPython glue (includes Python.h) and the algorithm files under core/ (plain C99).
GLUE = ["wp_module.c", "wp_batch.c", "wp_columns.c", "wp_finish_glue.c",
        "wp_finish_batch.c", "wp_find.c", "wp_pipeline.c", "wp_rows.c", "wp_lazy.c"]
CORE = ["wp_encode.c", "wp_trie.c", "wp_chartable.c", "wp_threads.c", "wp_finish.c"]
HEADERS = ["wp_module.h", "wp_finish_glue.h", "wp_columns.h", "wp_rows.h"] + [
    f"core/{name}" for name in ("wp_buf.h", "wp_chartable.h", "wp_encode.h", "wp_finish.h",
                                "wp_threads.h", "wp_trie.h")]
# The bottom-up learner's merge loop by count and likelihood
# (wordpieces.learn.learners._merge_native).
MERGE = "wordpieces/learn/learners/native"
MERGE_SOURCES = ["wp_merge_module.c", "wp_merge.c", "wp_likelihood.c", "wp_names.c",
                 "wp_pieces.c", "wp_refine.c", "wp_refine_loop.c"]
UNIX_FLAGS = ["-O3", "-std=c99", "-fvisibility=hidden", "-pthread"]


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


class OptionalBuildExt(build_ext):
    """Build the extension if possible; otherwise warn and carry on without it."""

    def build_extensions(self):
        if self.compiler.compiler_type == "unix":
            for ext in self.extensions:
                ext.extra_compile_args = UNIX_FLAGS + ext.extra_compile_args
                ext.extra_link_args = ["-pthread"] + ext.extra_link_args
        super().build_extensions()

    def run(self):
        try:
            super().run()
        except Exception as e:  # noqa: BLE001 - any build failure means "pure Python"
            self._give_up(e)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001
            self._give_up(e)

    def _give_up(self, error: Exception):
        if _flag("WORDPIECES_REQUIRE_NATIVE"):
            raise error
        print(f"WARNING: wordpieces: the native extension was not built ({error}); "
              "installing the pure-Python backend", file=sys.stderr)


ext_modules = []
if not _flag("WORDPIECES_NO_NATIVE"):
    ext_modules.append(Extension(
        "wordpieces.fast._native._core",
        sources=[f"{NATIVE}/{name}" for name in GLUE] + [f"{NATIVE}/core/{name}" for name in CORE],
        depends=[f"{NATIVE}/{name}" for name in HEADERS],
        include_dirs=[f"{NATIVE}/core"],
    ))
    ext_modules.append(Extension(
        "wordpieces.learn.learners._merge_native",
        sources=[f"{MERGE}/{name}" for name in MERGE_SOURCES],
        depends=[f"{MERGE}/{name}" for name in ("wp_merge.h", "wp_merge_internal.h", "wp_pieces.h",
                                                 "wp_refine.h", "wp_refine_internal.h")],
        include_dirs=[MERGE],
    ))

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
