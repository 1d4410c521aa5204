"""The package's import graph has no cycle, imports inside functions included.

A cycle broken up with an import inside a function still ties two modules together:
neither can be read, tested or moved without the other. The graph is built from the
source (``ast``), so it sees every ``import`` statement wherever it stands, and also
those under ``if TYPE_CHECKING:`` (a type-only cycle still couples the two modules).

Run as a script to print the graph's size and any cycle:
``python -m tests.unit.test_import_graph [PACKAGE_DIR]`` (from the repository root).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.helpers import module_names, write_package

PACKAGE = Path(__file__).resolve().parents[2] / "wordpieces"


def _imported(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` names (before its imported names)."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``module`` imports, wherever the import statement stands."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            target = _imported(node, module, is_package)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in known else target)
    return (found & known) - {module}


def import_graph(root: Path) -> dict[str, set[str]]:
    """The import graph of the package in ``root``: module -> modules it imports."""
    names = module_names(root)
    return {name: imports_of(name, path, set(names)) for name, path in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_package_has_no_import_cycle():
    """No module of wordpieces reaches itself through its imports."""
    graph = import_graph(PACKAGE)
    assert len(graph) > 40  # the scan found the package
    assert cycles(graph) == []


def test_root_package_only_reexports():
    """No module imports the root package (it re-exports everything: that is a cycle)."""
    graph = import_graph(PACKAGE)
    assert [m for m, targets in graph.items() if "wordpieces" in targets] == []


def test_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    """A cycle hidden in a function body still counts."""
    pkg = write_package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from .b import thing\n",
        "pkg/sub/__init__.py": "",
        "pkg/b.py": "def thing():\n    from . import a\n    return a\n",
        "pkg/sub/c.py": "from ..a import thing\n",
    })
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.b"]]


def test_relative_imports_resolve_across_subpackages(tmp_path):
    """``from ..x import y`` and ``from . import module`` point at the right modules."""
    pkg = write_package(tmp_path, {
        "pkg/__init__.py": "from .sub import c\n",
        "pkg/a.py": "import pkg.sub.c\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from ..a import name\nfrom . import d\n",
        "pkg/sub/d.py": "",
    })
    graph = import_graph(pkg)
    assert graph["pkg"] == {"pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.a", "pkg.sub.d"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.c"]]


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE
    graph = import_graph(root)
    edges = sum(len(targets) for targets in graph.values())
    found = cycles(graph)
    print(f"{len(graph)} modules, {edges} import edges (imports inside functions included), "
          f"{len(found)} cycle(s)")
    for component in found:
        print("  cycle:", " <-> ".join(component))
    sys.exit(1 if found else 0)
