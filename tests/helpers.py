"""Small helpers shared by several test modules (not tests themselves)."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import strategies as st

# Characters that end a line elsewhere (\r, U+2028, \x0b, \x1c, \x85) must stay inside one.
LINE_TEXT = st.text(st.sampled_from("ab é\n\r\u2028\x0b\x1c\x85字"), max_size=80)


def reference_lines(text: str) -> list[str]:
    """Lines as Python's own reader gives them with newline='\\n', ending removed."""
    lines = []
    for line in io.StringIO(text, newline="\n"):
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        lines.append(line)
    return lines


def write_package(root: Path, files: dict[str, str]) -> Path:
    """Write a small package ``pkg`` (an empty ``pkg/__init__.py`` unless given) under root."""
    for name, text in {"pkg/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def module_names(root: Path) -> dict[str, Path]:
    """Map each dotted module name under ``root`` (a package folder) to its file."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def built_on(tok, name: str):
    """``tok`` with its word encoder built now on backend ``name`` ("native" or "python").

    A tokenizer builds its word encoder on first use, on the backend WORDPIECES_BACKEND
    names then; tests comparing the two backends build each twin this way and check it.
    Skips when "native" is asked and the extension is not built.
    """
    import os

    import pytest

    from wordpieces.fast.backend import NativeWordEncoder, PythonWordEncoder, backend
    if name == "native" and backend() != "native":
        pytest.skip(f"backend: {backend()}", allow_module_level=True)
    saved = os.environ.get("WORDPIECES_BACKEND")
    os.environ["WORDPIECES_BACKEND"] = name
    try:
        tok.encode_ids("a")  # builds the word encoder on this backend
    finally:
        if saved is None:
            del os.environ["WORDPIECES_BACKEND"]
        else:
            os.environ["WORDPIECES_BACKEND"] = saved
    kind = NativeWordEncoder if name == "native" else PythonWordEncoder
    assert isinstance(tok._seq.word_encoder, kind)
    return tok
