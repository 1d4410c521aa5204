"""Check what the built sdist and wheel carry: run by scripts/check-package.

A package that installs can still ship without its license, its C sources (an sdist
that cannot build the extension) or its data files (tables loaded only by some
flavors); its metadata can lose fields. Each missing item is named.

Usage: python package_contents.py SDIST.tar.gz WHEEL.whl

Not handled here: installing and running them (scripts/smoke_test.py).
"""

from __future__ import annotations

import sys
import tarfile
import zipfile

SDIST_FILES = ["LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "setup.py",
               "wordpieces/fast/_native/wp_module.c", "wordpieces/fast/_native/core/wp_encode.c",
               "wordpieces/flavors/data/huggingface.txt"]
WHEEL_FILES = ["wordpieces/__init__.py", "wordpieces/py.typed",
               "wordpieces/flavors/data/huggingface.txt", "wordpieces/flavors/data/tensorflow.txt",
               "wordpieces/tools/playground/static/index.html",
               "wordpieces/cli/data/demo-vocab.txt"]
METADATA_LINES = ["License-Expression: Apache-2.0", "Author: wordpieces developers",
                  "Requires-Python: >=3.10", "Classifier: Typing :: Typed",
                  "License-File: LICENSE", "Provides-Extra: docs"]


def sdist_problems(path: str) -> list[str]:
    with tarfile.open(path) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    return [f"{path}: no {name}" for name in SDIST_FILES if name not in names]


def wheel_problems(path: str) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode("utf-8").splitlines()
    problems = [f"{path}: no {name}" for name in WHEEL_FILES if name not in names]
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        problems.append(f"{path}: no LICENSE in its .dist-info")
    problems += [f"{path}: METADATA lacks {line!r}" for line in METADATA_LINES
                 if line not in metadata]
    if not any(line.startswith("Keywords: ") for line in metadata):
        problems.append(f"{path}: METADATA has no keywords")
    return problems


def main(sdist: str, wheel: str) -> None:
    problems = sdist_problems(sdist) + wheel_problems(wheel)
    for problem in problems:
        print(f"check-package: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print("check-package: the sdist and the wheel carry their files and metadata")


if __name__ == "__main__":
    main(*sys.argv[1:3])
