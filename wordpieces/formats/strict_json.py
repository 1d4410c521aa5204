"""Parse untrusted JSON strictly and report every problem with its file and JSON path.

``parse_json`` rejects what Python's ``json`` quietly accepts (duplicate keys, ``NaN``)
and turns syntax errors into ``FormatError``. ``Node`` wraps a parsed value with where
it came from, so that reading a field checks its type and a wrong file reads as
``tokenizer.json: model.vocab: expected an object, got an array`` instead of a
``KeyError`` traceback.

Not handled here: what the fields mean (``tokenizer_json``, ``bundle``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NoReturn

from ..errors import FormatError

REQUIRED = object()

_KINDS: dict[str, type | tuple[type, ...]] = {
    "an object": dict, "an array": list, "a string": str, "a boolean": bool,
    "an integer": int, "a non-negative integer": int,
}



def read_bytes(path: str) -> bytes:
    """The bytes of the configuration file ``path``; an unreadable file is a ``FormatError``.

    One reader for every file parsed whole as JSON (tokenizer.json, wordpieces.json,
    tokenizer_config.json, bundle.json), so that each names the file the same way.
    """
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FormatError(f"{path}: cannot read: {e.strerror}") from None


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def parse_json(data: str | bytes, source: str):
    """Parse ``data``; any problem is a ``FormatError`` naming ``source``."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    except UnicodeDecodeError as e:
        raise FormatError(f"{source}: not valid UTF-8 ({e.reason} at byte {e.start})") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise FormatError(f"{source}: invalid JSON at line {e.lineno} column {e.colno}: "
                          f"{e.msg}") from None
    except ValueError as e:
        raise FormatError(f"{source}: invalid JSON: {e}") from None
    except RecursionError:
        raise FormatError(f"{source}: invalid JSON: nested too deeply") from None


def describe(value) -> str:
    """Name the JSON type of ``value`` for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    for kind, types in (("an object", dict), ("an array", list), ("a string", str),
                        ("a number", (int, float))):
        if isinstance(value, types):
            return kind
    return type(value).__name__


def _is(value, kind: str) -> bool:
    if kind in ("an integer", "a non-negative integer"):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return ok and (kind == "an integer" or value >= 0)
    return isinstance(value, _KINDS[kind])


class Node:
    """A parsed JSON value plus its source file and path, with checked accessors."""

    def __init__(self, value, source: str, path: str = ""):
        self.value = value
        self.source = source
        self.path = path

    def where(self, path: str | None = None) -> str:
        path = self.path if path is None else path
        return f"{self.source}: {path}" if path else self.source

    def fail(self, message: str, path: str | None = None) -> NoReturn:
        raise FormatError(f"{self.where(path)}: {message}")

    def expect(self, kind: str, *, nullable: bool = False):
        """Return the value if it is of ``kind`` (``"an object"``, ``"a string"`` …)."""
        if nullable and self.value is None:
            return None
        if not _is(self.value, kind):
            self.fail(f"expected {kind}{' or null' if nullable else ''}, "
                      f"got {describe(self.value)}")
        return self.value

    def _child_path(self, key) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        plain = isinstance(key, str) and key.isidentifier()
        return (f"{self.path}.{key}" if self.path else key) if plain else f"{self.path}[{key!r}]"

    def child(self, key, *, default=REQUIRED) -> Node:
        """The node at ``key`` of this object (or index of this array)."""
        container = self.expect("an array" if isinstance(key, int) else "an object")
        path = self._child_path(key)
        if isinstance(key, int):
            return Node(container[key], self.source, path)
        if key not in container:
            if default is REQUIRED:
                self.fail(f"missing required key {key!r}")
            return Node(default, self.source, path)
        return Node(container[key], self.source, path)

    def get(self, key, kind: str, *, default=REQUIRED, nullable: bool = False):
        """The value at ``key``, checked to be of ``kind`` (``default`` if absent)."""
        node = self.child(key, default=default)
        if default is not REQUIRED and node.value is default:
            return default
        return node.expect(kind, nullable=nullable)

    def elements(self) -> Iterator[Node]:
        """The nodes of this array."""
        for i in range(len(self.expect("an array"))):
            yield self.child(i)

    def members(self) -> Iterator[tuple[str, Node]]:
        """The (key, node) pairs of this object."""
        for key in self.expect("an object"):
            yield key, self.child(key)

    def choice(self, key, choices: dict, *, default=REQUIRED):
        """Map the string at ``key`` through ``choices``, naming the allowed values if not."""
        value = self.get(key, "a string", default=default)
        if default is not REQUIRED and value is default:
            return default
        if value not in choices:
            self.fail(f"unsupported value {value!r} (expected one of "
                      f"{', '.join(map(repr, choices))})", self._child_path(key))
        return choices[value]
