"""Helpers every subcommand shares: input errors, checked inputs, atomic outputs, options.

A command-line user needs three things from these: an error that names the file, line or
value at fault (``CLIError``, exit status 2); inputs checked before work starts; and
outputs that appear only when complete (``atomic_output``), so an interrupted run never
leaves a truncated file that looks finished.

Not handled here: the subcommands themselves; reading lines (``formats.lines``, which
names the file and line of bad UTF-8 itself); the atomic writing itself
(``formats.atomic``); progress display (``wordpieces.learn.progress``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from ..errors import WordpiecesError
from ..formats.atomic import AtomicFile

SHARED_ENV = "WORDPIECES_SHARED"
# Lines handled per batch (encode, decode, inspect): enough for the native backend's
# threads to share, few enough that a pipe's first answers come soon and memory stays small.
BATCH_LINES = 2000


class CLIError(WordpiecesError):
    """A usage or input error: printed as one line, exit status 2."""


# ---------------------------------------------------------------- reading input


def input_size(paths: list[str]) -> int | None:
    """Total size in bytes of the inputs, or None when one is a pipe or stdin."""
    total = 0
    for path in paths or ["-"]:
        if path == "-" or not os.path.isfile(path):
            return None
        total += os.path.getsize(path)
    return total


def check_inputs(paths: list[str]) -> None:
    """Fail early, naming the file, when an input is missing or is a directory."""
    for path in paths:
        if path == "-":
            continue
        if not os.path.exists(path):
            raise CLIError(f"{path}: no such file")
        if os.path.isdir(path):
            raise CLIError(f"{path}: is a directory, expected a text file")


# ---------------------------------------------------------------- writing output


@contextlib.contextmanager
def atomic_output(path: str | None, *, binary: bool = False):
    """Yield a file that replaces ``path`` only when the block finishes without error.

    ``None`` or '-' is stdout (not atomic, by nature); any other path is written through
    ``formats.atomic.AtomicFile`` (temporary beside it, removed on error).
    """
    if path in (None, "-"):
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    check_output_parent(path)
    with AtomicFile(path, binary=binary) as f:
        yield f


def check_output_parent(path: str) -> None:
    """Fail naming ``path`` when the directory it would be written into is missing."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CLIError(f"{path}: the directory {directory} does not exist")


def check_output_dir(path: str) -> None:
    """Make sure ``path`` can be a directory to write into."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CLIError(f"{path}: exists and is not a directory")


# ---------------------------------------------------------------- option parsing


def token_list(text: str) -> list[str]:
    """Parse a comma-separated token list (``[PAD],[UNK]``); empty items are dropped."""
    return [t.strip() for t in text.split(",") if t.strip()]


def _int_at_least(text: str, minimum: int, rule: str) -> int:
    """Parse an integer for argparse, refusing one below ``minimum`` with ``rule``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value} {rule}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1, "must be at least 1")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0, "must not be negative")


def given(args: argparse.Namespace, names: list[str]) -> dict:
    """The options among ``names`` the user set (None means "not given": keep the default)."""
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


# ---------------------------------------------------------------- shared data


def shared_dir() -> str | None:
    """Where the project's shared data lives: ``$WORDPIECES_SHARED`` or ``../shared``."""
    env = os.environ.get(SHARED_ENV)
    if env:
        return env if os.path.isdir(env) else None
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))))
    candidate = os.path.join(os.path.dirname(package_parent), "shared")
    return candidate if os.path.isdir(candidate) else None
