"""Every import inside the package points down the layers docs/architecture.md states.

The layer list lives in the doc only: the code block after "Dependencies point one
way" (its grammar is stated above it there). This test reads it, places every module of
``wordpieces/`` in a layer (a module named by itself wins over its folder, a deeper
folder over a shallower one), and checks every import, inside functions and under
``if TYPE_CHECKING:`` included (``ast``, as ``test_import_graph``), goes to the same
layer or a lower one. A module in no layer, or a name that matches no module, is an
error too, so the doc cannot drift from the tree: moving a module means moving its
name in the doc, nothing here.

Run as a script to print each module's layer:
``python -m tests.unit.test_layers`` (from the repository root).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.helpers import module_names, write_package
from tests.unit.test_import_graph import import_graph

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "wordpieces"
DOC = ROOT / "docs" / "architecture.md"
MARKER = "Dependencies point one way"
_BRACES = re.compile(r"^(?P<head>[^{}]*)\{(?P<options>[^{}]*)\}(?P<tail>[^{}]*)$")


def layer_block(doc_text: str) -> str:
    """The first code block after ``MARKER`` in the doc."""
    start = doc_text.find(MARKER)
    if start < 0:
        raise ValueError(f"docs/architecture.md: no paragraph starting {MARKER!r}")
    opening = doc_text.find("```\n", start)
    closing = doc_text.find("\n```", opening + 4)
    if opening < 0 or closing < 0:
        raise ValueError(f"docs/architecture.md: no code block after {MARKER!r}")
    return doc_text[opening + 4:closing]


def _expand(name: str) -> list[str]:
    """``formats/{a,b}.py`` -> ``formats/a.py``, ``formats/b.py``; other names as given."""
    match = _BRACES.match(name)
    if match is None:
        return [name]
    return [match["head"] + option.strip() + match["tail"]
            for option in match["options"].split(",")]


def _names(items: str) -> list[str]:
    """The names of a layer's item text: commas and spaces separate, braces expand."""
    names: list[str] = []
    for chunk in re.findall(r"[^\s,{]*\{[^}]*\}[^\s,]*|[^\s,]+", items):
        names.extend(_expand(chunk))
    return names


def parse_layers(block: str) -> list[list[str]]:
    """The layers of a doc block, lowest first: each a list of paths and folders."""
    texts: list[str] = []
    for line in block.splitlines():
        stripped = line.strip()
        if stripped.startswith("<-"):
            texts.append(stripped[2:])
        elif not texts and stripped:
            texts.append(stripped)
        elif texts:
            texts[-1] += "\n" + stripped
    layers = [_names(text.split(":", 1)[0]) for text in texts]
    for number, names in enumerate(layers, 1):
        if not names:
            raise ValueError(f"layer {number} of the doc's list names no module or folder")
    return layers


def _relative(path: Path, root: Path) -> str:
    """A module's path under the package, as the doc writes it (``formats/atomic.py``)."""
    return path.relative_to(root).as_posix()


def place_modules(root: Path, layers: list[list[str]]) -> tuple[dict[str, int], list[str]]:
    """Each module's layer index, and the doc's names that match no module.

    A module named by its own path wins; else the deepest folder holding it.
    """
    modules = {name: _relative(path, root) for name, path in module_names(root).items()}
    placed: dict[str, tuple[int, int]] = {}  # module -> (specificity, layer)
    used: set[str] = set()
    for index, names in enumerate(layers):
        for name in names:
            for module, relative in modules.items():
                if name.endswith("/"):
                    if not relative.startswith(name):
                        continue
                    rank = name.count("/")
                elif relative == name:
                    rank = 10**6
                else:
                    continue
                used.add(name)
                if module in placed and placed[module][0] == rank and \
                        placed[module][1] != index:
                    raise ValueError(f"{relative} is named in two layers")
                if module not in placed or placed[module][0] < rank:
                    placed[module] = (rank, index)
    unused = sorted({n for names in layers for n in names} - used)
    return {module: placed[module][1] for module in placed}, unused


def upward_imports(graph: dict[str, set[str]], layer_of: dict[str, int],
                   layers: list[list[str]]) -> list[str]:
    """Each import from a module to a module of a higher layer, described."""
    def where(module: str) -> str:
        index = layer_of[module]
        return f"layer {index + 1} ({', '.join(layers[index])})"

    return [f"{source} [{where(source)}] imports {target} [{where(target)}]"
            for source in sorted(graph) for target in sorted(graph[source])
            if source in layer_of and target in layer_of
            and layer_of[target] > layer_of[source]]


def _doc_layers() -> list[list[str]]:
    return parse_layers(layer_block(DOC.read_text(encoding="utf-8")))


def test_every_module_is_in_a_layer_and_every_name_is_a_module():
    """The doc's list covers the package exactly: no module left out, no stale name."""
    layers = _doc_layers()
    assert len(layers) > 5
    layer_of, unused = place_modules(PACKAGE, layers)
    missing = sorted(set(module_names(PACKAGE)) - set(layer_of))
    assert missing == [], f"modules in no layer of docs/architecture.md: {missing}"
    assert unused == [], f"names in docs/architecture.md's layers that match no module: {unused}"


def test_every_import_points_down_the_layers():
    """No module imports one of a higher layer (imports inside functions included)."""
    layers = _doc_layers()
    graph = import_graph(PACKAGE)
    assert sum(map(len, graph.values())) > 100  # the scan found the imports
    layer_of, _ = place_modules(PACKAGE, layers)
    assert upward_imports(graph, layer_of, layers) == []


# ---------------------------------------------------------------- the checker itself

TOY_DOC = """Intro.

Dependencies point one way, from the bottom up:

```
base.py
  <- files/{low,lower}.py: utilities
       (explained on a second line: base.py here is no name)
  <- core.py, sub/
  <- files/, top.py: the rest
```
"""


def test_the_doc_block_parses_into_layers():
    """Braces expand, text after ':' and continuation lines are explanation."""
    assert parse_layers(layer_block(TOY_DOC)) == [
        ["base.py"], ["files/low.py", "files/lower.py"], ["core.py", "sub/"],
        ["files/", "top.py"]]


def test_an_upward_import_inside_a_function_is_found(tmp_path):
    """core imports top only inside a function: still an upward import; names place modules."""
    pkg = write_package(tmp_path, {
        "pkg/base.py": "",
        "pkg/files/__init__.py": "",
        "pkg/files/low.py": "from .. import base\n",
        "pkg/files/lower.py": "",
        "pkg/files/load.py": "from ..core import thing\n",
        "pkg/core.py": "def thing():\n    from .top import x\n    return x\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": "from ..files.low import y\n",
        "pkg/top.py": "",
    })
    layers = parse_layers(layer_block(TOY_DOC))
    layer_of, unused = place_modules(pkg, layers)
    assert layer_of["pkg.files.low"] == 1 and layer_of["pkg.files.load"] == 3
    assert layer_of["pkg.sub.deep"] == 2 and "pkg" not in layer_of  # pkg/__init__.py: no layer
    assert unused == []
    assert upward_imports(import_graph(pkg), layer_of, layers) == [
        "pkg.core [layer 3 (core.py, sub/)] imports pkg.top [layer 4 (files/, top.py)]"]


def test_a_stale_name_is_reported(tmp_path):
    """A name in the doc that matches no module (a module moved) is listed."""
    pkg = write_package(tmp_path, {"pkg/base.py": "", "pkg/top.py": ""})
    _, unused = place_modules(pkg, parse_layers(layer_block(TOY_DOC)))
    assert unused == ["core.py", "files/", "files/low.py", "files/lower.py", "sub/"]


if __name__ == "__main__":
    doc_layers = _doc_layers()
    placed, stale = place_modules(PACKAGE, doc_layers)
    for number, layer_names in enumerate(doc_layers):
        members = sorted(m for m, i in placed.items() if i == number)
        print(f"layer {number + 1}: {', '.join(layer_names)}\n    {' '.join(members)}")
    problems = upward_imports(import_graph(PACKAGE), placed, doc_layers)
    for problem in problems + [f"stale name: {n}" for n in stale]:
        print("  ", problem)
    sys.exit(1 if problems or stale else 0)
