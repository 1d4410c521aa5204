"""Helpers every subcommand shares: input errors, reading lines, atomic outputs, options.

A command-line user needs three things from these: an error that names the file, line or
value at fault (``CLIError``, exit status 2); input read as a stream, so files larger than
memory pass through a pipe; and outputs that appear only when complete (``atomic_output``),
so an interrupted run never leaves a truncated file that looks finished.

Not handled here: the subcommands themselves, progress display (``wordpieces.learn.progress``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator

from ..errors import WordpiecesError

SHARED_ENV = "WORDPIECES_SHARED"


class CLIError(WordpiecesError):
    """A usage or input error: printed as one line, exit status 2."""


# ---------------------------------------------------------------- reading input


class LineReader:
    """Iterate ``(source, line number, text)`` over files ('-' is stdin), counting bytes.

    Lines are decoded one by one so that bad UTF-8 is reported with its line; the line
    ending (``\\n`` or ``\\r\\n``) and a UTF-8 byte-order mark at the start are dropped.
    ``bytes_read`` grows as lines are read (for progress and ETA).
    """

    def __init__(self, paths: list[str]):
        self.paths = list(paths) or ["-"]
        self.bytes_read = 0

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        for path in self.paths:
            with open_binary(path) as f:
                yield from self._decoded(f, "<stdin>" if path == "-" else path)

    def _decoded(self, f, source: str) -> Iterator[tuple[str, int, str]]:
        for number, raw in enumerate(f, start=1):
            self.bytes_read += len(raw)
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.endswith(b"\n"):
                raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
            try:
                yield source, number, raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise CLIError(f"{source}:{number}: not valid UTF-8 ({e.reason} at byte "
                               f"{e.start} of the line)") from None


@contextlib.contextmanager
def open_binary(path: str):
    """Open ``path`` for reading bytes, '-' meaning stdin, with a one-line error."""
    if path == "-":
        yield sys.stdin.buffer
        return
    try:
        f = open(path, "rb")
    except OSError as e:
        raise CLIError(f"{path}: cannot read: {e.strerror}") from None
    with f:
        yield f


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

    ``None`` or '-' is stdout (not atomic, by nature). The temporary file lives beside
    ``path`` (same file system, so the final rename is atomic) and is removed on error.
    """
    if path in (None, "-"):
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CLIError(f"{path}: the directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        default_permissions(fd)
        mode = "wb" if binary else "w"
        kwargs = {} if binary else {"encoding": "utf-8", "newline": "\n"}
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def default_permissions(fd: int) -> None:
    """Give a temporary file the mode a plain ``open`` would (mkstemp makes it 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)


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
