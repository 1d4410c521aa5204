"""Helpers every subcommand shares: input errors, checked inputs, atomic outputs, options.

A command-line user needs three things from these: an error that names the file, line or
value at fault (``CLIError``, exit status 2); inputs checked before work starts; and
outputs that appear only when complete (``atomic_output``), so an interrupted run never
leaves a truncated file that looks finished.

Not handled here: the subcommands themselves; reading lines (``formats.lines``, which
names the file and line of bad UTF-8 itself) and finding input files
(``learn.sources``); the atomic writing itself
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


def input_files(inputs: list[str]) -> list[str]:
    """Resolve the inputs as every reader does (``learn.sources``): files, globs, dirs, URLs.

    No input means stdin (``["-"]``); a missing file, an unmatched glob or an empty
    directory is a ``CLIError`` naming it, before any work starts.
    """
    from ..learn.sources import resolve_paths

    try:
        return resolve_paths(inputs or ["-"])
    except FileNotFoundError as e:
        raise CLIError(str(e)) from None


def input_size(paths: list[str]) -> int | None:
    """Total size in bytes of resolved inputs, or None when one is stdin, a pipe or a URL."""
    total = 0
    for path in paths or ["-"]:
        if path == "-" or not os.path.isfile(path):
            return None
        total += os.path.getsize(path)
    return total


# ---------------------------------------------------------------- writing output


def prepare_output(path: str) -> None:
    """Create the folders ``path`` goes into, as ``mkdir -p`` would; errors name ``path``."""
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise CLIError(f"{path}: cannot create its folder {parent}: "
                       f"{e.strerror or e}") from None


def check_output_parent(path: str) -> None:
    """Make sure the folder ``path`` goes into exists (the sinks' name for ``prepare_output``)."""
    prepare_output(path)


@contextlib.contextmanager
def naming_output(path: str):
    """Report an error writing ``path`` under its own name, not a temporary file's.

    Saves write a temporary file beside the target and rename it (``formats.atomic``);
    the user asked for ``path``, so that is the name an error should carry.
    """
    try:
        yield
    except OSError as e:
        if e.filename in (None, path) or isinstance(e, (BrokenPipeError, InterruptedError)):
            raise
        raise CLIError(f"{path}: cannot write: {e.strerror or e}") from None


@contextlib.contextmanager
def atomic_output(path: str | None, *, binary: bool = False):
    """Yield a file that replaces ``path`` only when the block finishes without error.

    ``None`` or '-' is stdout (not atomic, by nature); any other path is written through
    ``formats.atomic.AtomicFile`` (temporary beside it, removed on error), its missing
    parent folders created first.
    """
    if path in (None, "-"):
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    prepare_output(path)
    with naming_output(path), AtomicFile(path, binary=binary) as f:
        yield f


def check_output_dir(path: str) -> None:
    """Make sure ``path`` can be a directory to write into (its parents are created)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise CLIError(f"{path}: exists and is not a directory")
    prepare_output(path)


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
    """Where the project's shared data lives: ``$WORDPIECES_SHARED``, else ``../shared``.

    ``../shared`` is taken relative to the working directory (a checkout's root, as the
    README's commands run), not to the installed package, which may live anywhere.
    """
    env = os.environ.get(SHARED_ENV)
    if env:
        return env if os.path.isdir(env) else None
    candidate = os.path.abspath(os.path.join(os.pardir, "shared"))
    return candidate if os.path.isdir(candidate) else None
