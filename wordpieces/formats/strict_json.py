"""Parse untrusted JSON strictly and report every problem with its file and JSON path.

``parse_json`` rejects what Python's ``json`` quietly accepts (duplicate keys, ``NaN``,
strings with a lone surrogate such as ``"\\ud800"``, which no UTF-8 file can hold and
which a later save could not write) and values nested more than ``MAX_DEPTH`` deep (a
tokenizer.json nests about six; deeper nesting only serves to exhaust the stack of
whatever walks it), and turns syntax errors into ``FormatError``, naming the JSON path.
``Node`` wraps a parsed value with where it came from, so that reading a field checks its
type and a wrong file reads as ``tokenizer.json: model.vocab: expected an object, got an
array`` instead of a ``KeyError`` traceback.

Not handled here: what the fields mean (``tokenizer_json``, ``bundle``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn

from ..errors import FormatError

REQUIRED = object()
MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (``parse_json``)."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # a JSON escape of a surrogate half

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
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise FormatError(f"{source}: invalid JSON at line {e.lineno} column {e.colno}: "
                          f"{e.msg}") from None
    except ValueError as e:
        raise FormatError(f"{source}: invalid JSON: {e}") from None
    except RecursionError:
        raise FormatError(f"{source}: invalid JSON: nested more than {MAX_DEPTH} deep "
                          "(far more than the stack allows)") from None
    strings = _checked_depth(value, source)
    if _SURROGATE_ESCAPE.search(text):  # only an escape can give a lone surrogate
        _check_encodable(value, strings, source)
    return value


def _members(node: Any) -> Iterable[tuple[Any, Any]]:
    """(key or index, value) pairs of an object or array."""
    return node.items() if isinstance(node, dict) else enumerate(node)


def _containers(value: Any) -> Iterator[tuple[Any, int, str]]:
    """Every array and object of ``value`` with its depth and JSON path, depth first."""
    stack = [(value, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        yield node, depth, path
        for key, child in _members(node):
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, Node(None, "", path).child_path(key)))


def _checked_depth(value: Any, source: str) -> list[str]:
    """Refuse nesting deeper than ``MAX_DEPTH`` (naming the path); return every string.

    One pass without paths (a 250,000-token vocabulary costs milliseconds); the path of
    a problem is found only when there is one.
    """
    if not isinstance(value, (dict, list)):
        return [value] if isinstance(value, str) else []
    strings: list[str] = []
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            path = next(p for _, d, p in _containers(value) if d > MAX_DEPTH)
            path = path if len(path) <= 80 else path[:77] + "..."
            raise FormatError(f"{source}: {path}: arrays and objects nested more than "
                              f"{MAX_DEPTH} deep (the limit; a tokenizer.json needs about six)")
        if isinstance(node, dict):
            strings.extend(node)
        for child in (node.values() if isinstance(node, dict) else node):
            if isinstance(child, str):
                strings.append(child)
            elif isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return strings


def _check_encodable(value: Any, strings: list[str], source: str) -> None:
    """Refuse a string holding a lone surrogate (``"\\ud800"``), naming its JSON path."""
    if _encodable("".join(strings)):
        return
    if isinstance(value, str):
        _lone_surrogate(source, "(top)", "string", value)
    for node, _, path in _containers(value):
        for key, child in _members(node):
            where = Node(None, "", path).child_path(key)
            if isinstance(key, str) and not _encodable(key):
                _lone_surrogate(source, where, "key", key)
            if isinstance(child, str) and not _encodable(child):
                _lone_surrogate(source, where, "string", child)


def _lone_surrogate(source: str, where: str, what: str, text: str) -> NoReturn:
    raise FormatError(f"{source}: {where}: the {what} {text[:80]!r} holds a lone surrogate "
                      "(a \\ud800-\\udfff escape without its pair), which no UTF-8 text can "
                      "hold")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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

    def child_path(self, key) -> str:
        """The JSON path of ``key`` below this node (``model.vocab['##a']``, ``x[3]``)."""
        return self._child_path(key)

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
