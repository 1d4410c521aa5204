"""Doctest collection (``--doctest-modules``, on by default): the package's modules only.

A module of ``wordpieces`` whose module-level imports need an optional dependency that is
not installed (the table-probing scripts need ``tokenizers`` or ``tensorflow_text``) is
skipped, naming what is missing; a module that imports TensorFlow gets the ``tensorflow``
marker, so ``scripts/test-tensorflow`` (``-m tensorflow``) runs its doctests.

Not handled here: an optional dependency imported through another module of the package
(the package imports them inside functions, at call time), or by a doctest itself.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule

PACKAGE = Path(__file__).parent / "wordpieces"
# Import names of the optional dependencies (the extras in pyproject.toml, and what they pull in).
OPTIONAL = {"numpy", "dask", "distributed", "fsspec", "matplotlib", "tokenizers", "transformers",
            "tensorflow", "tensorflow_text"}
TENSORFLOW = {"tensorflow", "tensorflow_text"}


class MissingDependencies(pytest.File):
    """A module whose doctests cannot be imported here: collecting it skips, saying why."""

    def __init__(self, *, reason: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def collect(self):
        pytest.skip(self.reason)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    collectors = yield
    doctests = [c for c in collectors if isinstance(c, DoctestModule)]
    if not doctests:
        return collectors
    others = [c for c in collectors if not isinstance(c, DoctestModule)]
    if not file_path.is_relative_to(PACKAGE):  # tests and scripts hold no documentation
        return others
    imports = optional_imports(file_path)
    missing = sorted(name for name in imports if importlib.util.find_spec(name) is None)
    if missing:
        where = file_path.relative_to(PACKAGE.parent).as_posix()
        reason = f"{where}: its doctests need {', '.join(missing)} (not installed here)"
        return [*others, MissingDependencies.from_parent(parent, path=file_path, reason=reason)]
    if imports & TENSORFLOW:
        for collector in doctests:
            collector.add_marker(pytest.mark.tensorflow)
    return collectors


def optional_imports(path: Path) -> set[str]:
    """Name the optional dependencies a module imports at module level (when it is imported)."""
    roots = set()
    for node in ast.parse(path.read_bytes(), str(path)).body:
        if isinstance(node, ast.Import):
            roots.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.partition(".")[0])
    return roots & OPTIONAL
