"""The ``wordpieces`` command: subcommands over the Python API, with the same option names.

``main`` builds the argparse parser from each subcommand module's ``register``, runs the
chosen command and turns every expected failure into one line on stderr and exit status
2 (usage or input error); anything else is exit status 1 with a one-line "internal
error". ``--debug`` shows the traceback instead.

Not handled here: the subcommands' work (``cli.corpus``, ``cli.encode``, ``cli.tools``,
``cli.demo``, ``cli.bundle``, ``cli.serve``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings

from ..errors import MissingDependencyError, WordpiecesError, describe_error
from .common import CLIError

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_PIPE, EXIT_TERMINATED = (
    0, 1, 2, 130, 141, 143)

DESCRIPTION = """\
Learn WordPiece vocabularies, tokenize text into ids and back, and see why a word split
as it did. Every subcommand has --help with examples.

Start here:  wordpieces demo
"""


def _global_options() -> argparse.ArgumentParser:
    """Options accepted before or after the subcommand name."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("output and diagnostics")
    group.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no progress and no summary on stderr")
    group.add_argument("--progress", choices=("auto", "bar", "jsonl", "none"),
                       default=argparse.SUPPRESS,
                       help="progress on stderr: auto (a bar when stderr is a terminal), "
                            "bar, jsonl (one JSON object per line, for machines), none")
    group.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the full traceback on errors")
    return common


def build_parser() -> argparse.ArgumentParser:
    """The ``wordpieces`` parser with every subcommand registered."""
    return build_parsers()[0]


def build_parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``wordpieces`` parser and each subcommand's own parser, by name."""
    from . import bundle, corpus, demo, encode, serve, tools

    common = _global_options()
    parser = argparse.ArgumentParser(
        prog="wordpieces", description=DESCRIPTION, parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"wordpieces {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (demo, corpus, encode, tools, bundle, serve):
        module.register(sub, [common])
    return parser, dict(sub.choices)


def parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse ``argv``; an unknown option is reported with its subcommand's usage.

    argparse's subparsers hand the arguments they do not know back to the top-level
    parser, which would print the top-level usage: the user needs the subcommand's.
    """
    parser, commands = build_parsers()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        where = commands.get(args.command, parser)
        where.error(f"unrecognized arguments: {' '.join(unknown)}")  # exits with status 2
    if args.command is None:
        parser.print_help(sys.stderr)
        raise SystemExit(EXIT_USAGE)
    return args


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("wordpieces")
    except Exception:  # not installed (run from a checkout): still answer --version
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse(argv)  # --help, --version and usage errors exit here (SystemExit)
    for name, default in (("quiet", False), ("progress", "auto"), ("debug", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    _exit_cleanly_on_sigterm()
    with warnings.catch_warnings():  # restores the warning display when main() returns
        warnings.showwarning = _warning_line(args)
        try:
            return args.func(args) or EXIT_OK
        except BaseException as error:  # noqa: BLE001 -- every exit path is decided below
            return _fail(args, error)


def _warning_line(args: argparse.Namespace):
    """Show a library warning as ``wordpieces CMD: warning: ...`` (none with --quiet).

    Python's default display names the source line that warned, which means nothing to
    a command-line user.
    """
    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if not args.quiet:
            _say(f"wordpieces {args.command}: warning: {message}")

    return show


def _exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so that partial outputs are removed on the way out."""
    def terminate(signum, frame):
        raise SystemExit(EXIT_TERMINATED)

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread (main() called from a thread): leave it
        pass


def _fail(args: argparse.Namespace, error: BaseException) -> int:
    """Report ``error`` in one line (or re-raise it under --debug) and pick the exit status."""
    if isinstance(error, SystemExit):
        raise error
    if isinstance(error, BrokenPipeError):
        _silence_stdout()
        return EXIT_PIPE
    if args.debug:
        raise error
    prog = f"wordpieces {args.command}"
    if isinstance(error, KeyboardInterrupt):
        _say(f"{prog}: interrupted")
        return EXIT_INTERRUPTED
    if isinstance(error, (CLIError, WordpiecesError, MissingDependencyError)):
        _say(f"{prog}: error: {describe_error(error)}")
        return EXIT_USAGE
    if isinstance(error, OSError):
        _say(f"{prog}: error: {_os_message(error)}")
        return EXIT_USAGE
    if isinstance(error, ValueError):
        _say(f"{prog}: error: {describe_error(error)}")
        return EXIT_USAGE
    if isinstance(error, MemoryError):  # never an empty message (errors.describe_error)
        _say(f"{prog}: error: {describe_error(error)}")
        return EXIT_USAGE
    _say(f"{prog}: internal error: {type(error).__name__}: {describe_error(error)} "
         f"(run again with --debug for the traceback)")
    return EXIT_INTERNAL


def _os_message(error: OSError) -> str:
    if error.filename is not None and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return str(error)


def _say(message: str) -> None:
    """Print one line on stderr (newlines inside the message are flattened)."""
    print(" ".join(message.split("\n")), file=sys.stderr)


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
