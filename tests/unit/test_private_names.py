"""Private names stay in their module: no import of ``_name``, no ``obj._attr`` from outside.

A leading underscore says "nothing outside this module relies on me", so the module is
free to rename or remove the name. A private name used from another module is a hidden
contract: the two modules are tied and nothing documents how. The scan reads the
package's source (``ast``) and reports, as ``path:line: what``:

- ``from .x import _name``, ``from wordpieces.x import _name``, ``import wordpieces.x._y``,
  except a private *module* imported from inside the package that holds it
  (``fast/backend.py`` may load the extension ``fast/_native/_core``);
- ``obj._attr`` (read or written) and ``getattr(obj, "_attr")`` (and ``setattr``,
  ``hasattr``, ``delattr``) where ``obj`` is not ``self``/``cls`` and ``_attr`` is
  defined nowhere in the same module (no def, class, assignment, ``self._attr = ...``
  or ``__slots__`` entry): it belongs to another module's object.

Dunders (``__len__``, ``__dict__``) are public protocol and never reported. Neither is a
private attribute of a module imported from another project (``bert_tokenizer.
_DELIM_REGEX``, read by the TF table probe on purpose): that project's boundary, not
one of this package's.

Run as a script to list the violations: ``python tests/unit/test_private_names.py [PACKAGE_DIR]``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.helpers import module_names, write_package

PACKAGE = Path(__file__).resolve().parents[2] / "wordpieces"
ATTRIBUTE_FUNCTIONS = ("getattr", "setattr", "hasattr", "delattr")


def is_private(name: str) -> bool:
    """A leading underscore, not a dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imported(node: ast.ImportFrom, package: str) -> str:
    """The absolute module an ``ImportFrom`` names (before its imported names)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_module(dotted: str, root: Path) -> bool:
    """Whether ``dotted`` names a module of the package on disk (source or extension)."""
    *parents, last = dotted.split(".")[1:]
    folder = root.joinpath(*parents)
    return ((folder / last).is_dir() or (folder / f"{last}.py").is_file()
            or any(folder.glob(f"{last}.*.so")) or any(folder.glob(f"{last}.*.pyd")))


def _reachable(dotted: str, package: str) -> bool:
    """Whether ``package`` sits inside the package holding ``dotted``'s first private part."""
    parts = dotted.split(".")
    first = next(i for i, part in enumerate(parts) if is_private(part))
    holder = ".".join(parts[:first])
    return package == holder or package.startswith(holder + ".")


def _private_import_allowed(dotted: str, package: str, root: Path) -> bool:
    """A private module from inside its own package; nothing else private."""
    return _is_module(dotted, root) and _reachable(dotted, package)


def import_violations(tree: ast.Module, package: str, root: Path) -> list[str]:
    """Imports of another module's private names (or of private modules from outside)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _imported(node, package)
            dotted_names = [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            dotted_names = [alias.name for alias in node.names]
        else:
            continue
        for dotted in dotted_names:
            parts = dotted.split(".")
            if (parts[0] == root.name and any(map(is_private, parts))
                    and not _private_import_allowed(dotted, package, root)):
                found.append(f"{node.lineno}: imports {dotted}")
    return found


def _on_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def defined_names(tree: ast.Module) -> set[str]:
    """Every name the module defines: defs, classes, assignments, ``self.x =``, ``__slots__``.

    ``other._x = ...`` defines nothing: writing another object's private field is what
    the scan looks for.
    """
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and _on_self(node.value)):
            names.add(node.attr)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names.update(c.value for c in ast.walk(node.value)
                         if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return names


def foreign_modules(tree: ast.Module, root_name: str) -> set[str]:
    """Names bound to modules (or their members) of other projects by import statements."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names
                         if a.name.split(".")[0] != root_name)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] != root_name:
            names.update(a.asname or a.name for a in node.names)
    return names


def _private_accesses(tree: ast.Module):
    """Yield (line, receiver, attribute name, text) of every private attribute access."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            yield node.lineno, node.value, node.attr, ast.unparse(node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ATTRIBUTE_FUNCTIONS and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and is_private(node.args[1].value)):
            yield node.lineno, node.args[0], node.args[1].value, ast.unparse(node)


def attribute_violations(tree: ast.Module, root_name: str) -> list[str]:
    """Private attributes used on objects other than self/cls that this module never defines."""
    own = defined_names(tree)
    foreign = foreign_modules(tree, root_name)
    found = []
    for line, receiver, attr, text in _private_accesses(tree):
        if _on_self(receiver) or attr in own:
            continue
        if isinstance(receiver, ast.Name) and receiver.id in foreign:
            continue
        found.append(f"{line}: {text}")
    return found


def violations(root: Path) -> list[str]:
    """Every private name used across a module boundary in the package under ``root``."""
    found = []
    for module, path in module_names(root).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = _package_of(module, path)
        rel = path.relative_to(root.parent).as_posix()
        found += [f"{rel}:{line}" for line in import_violations(tree, package, root)
                  + attribute_violations(tree, root.name)]
    return sorted(found)


# ---------------------------------------------------------------- the package


def test_no_private_name_crosses_a_module_boundary():
    """Nothing in wordpieces uses another module's private names."""
    assert len(module_names(PACKAGE)) > 40  # the scan found the package
    assert violations(PACKAGE) == []


# ---------------------------------------------------------------- the scan itself


def test_importing_a_private_name_is_found(tmp_path):
    """``from .a import _helper`` and its absolute form are reported."""
    pkg = write_package(tmp_path, {
        "pkg/a.py": "def _helper():\n    pass\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/b.py": "from ..a import _helper\nfrom pkg.a import _helper as h\n",
    })
    assert violations(pkg) == ["pkg/sub/b.py:1: imports pkg.a._helper",
                               "pkg/sub/b.py:2: imports pkg.a._helper"]


def test_private_module_is_importable_from_its_own_package_only(tmp_path):
    """``fast/_native/_core`` from ``fast/``: fine; from elsewhere: reported."""
    pkg = write_package(tmp_path, {
        "pkg/fast/__init__.py": "",
        "pkg/fast/_native/__init__.py": "",
        "pkg/fast/_native/_core.py": "",
        "pkg/fast/backend.py": "from ._native import _core\nimport pkg.fast._native._core\n",
        "pkg/other.py": "from .fast._native import _core\n",
    })
    assert violations(pkg) == ["pkg/other.py:1: imports pkg.fast._native._core"]


def test_another_modules_private_attribute_is_found(tmp_path):
    """Reading, writing or getattr-ing ``obj._x`` defined in another module is reported."""
    pkg = write_package(tmp_path, {
        "pkg/a.py": "class A:\n    def __init__(self):\n        self._x = 1\n",
        "pkg/b.py": ("def f(a):\n    a._cache = a._x\n"
                     "    return getattr(a, '_x', None)\n"),
    })
    assert violations(pkg) == ["pkg/b.py:2: a._cache", "pkg/b.py:2: a._x",
                               "pkg/b.py:3: getattr(a, '_x', None)"]


def test_own_private_attributes_self_and_dunders_are_fine(tmp_path):
    """Attributes the module defines, ``self``/``cls`` access and dunders are not reported."""
    pkg = write_package(tmp_path, {
        "pkg/a.py": (
            "class A:\n"
            "    __slots__ = ('_y',)\n"
            "    def __init__(self):\n        self._x = 1\n"
            "    def same(self, other):\n"
            "        return other._x == self._x and other._y and cls_of(other)\n"
            "    @classmethod\n    def make(cls):\n        return cls._z\n"
            "def cls_of(a):\n    return a.__class__.__dict__\n"),
    })
    assert violations(pkg) == []


def test_other_projects_private_attributes_are_theirs(tmp_path):
    """``bert_tokenizer._DELIM_REGEX`` of an imported third-party module is not reported."""
    pkg = write_package(tmp_path, {
        "pkg/probe.py": ("import os\nfrom tf_text.ops import bert_tokenizer\n"
                         "REGEX = bert_tokenizer._DELIM_REGEX\nos._exit\n"),
    })
    assert violations(pkg) == []


if __name__ == "__main__":
    found = violations(Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE)
    print("\n".join(found) or "no private name crosses a module boundary")
    sys.exit(1 if found else 0)
