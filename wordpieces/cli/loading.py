"""Load the tokenizer a subcommand names with ``-t``, and the options that build one.

``-t`` accepts what ``wordpieces.load`` reads (a saved directory, a ``tokenizer.json``, a
bundle directory or ``.zip``) and also a plain ``vocab.txt`` (``.gz``/``.bz2``/``.xz``
too), built with the same normalization options as ``Tokenizer.from_vocab``
(``--lowercase``, ``--flavor`` …).
A bundle needs ``--member NAME``.

Not handled here: saving (each subcommand saves what it makes).
"""

from __future__ import annotations

import argparse
import os

from ..flavors.rules import FLAVORS
from .common import CLIError

# Python keyword == CLI flag (with dashes) == saved config key.
NORMALIZER_OPTIONS = ["lowercase", "strip_accents", "clean_text", "handle_chinese_chars",
                      "flavor"]
VOCAB_OPTIONS = NORMALIZER_OPTIONS + ["unk_token", "continuing_subword_prefix",
                                      "max_input_chars_per_word"]


def add_normalizer_options(parser: argparse.ArgumentParser, *, title: str) -> None:
    """Add ``--lowercase/--no-lowercase``, ``--flavor`` … (defaults as in the Python API)."""
    group = parser.add_argument_group(title)
    group.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=None,
                       help="lowercase the text (default: yes)")
    group.add_argument("--strip-accents", action=argparse.BooleanOptionalAction, default=None,
                       help="remove accents (default: when lowercasing)")
    group.add_argument("--clean-text", action=argparse.BooleanOptionalAction, default=None,
                       help="drop control characters, map whitespace to spaces (default: yes)")
    group.add_argument("--handle-chinese-chars", action=argparse.BooleanOptionalAction,
                       default=None, help="put spaces around CJK ideographs (default: yes)")
    group.add_argument("--flavor", choices=FLAVORS, default=None,
                       help="whose edge cases to reproduce (default: bert)")


def add_vocab_options(parser: argparse.ArgumentParser) -> None:
    """Options used only when ``-t`` is a plain vocab.txt."""
    add_normalizer_options(parser, title="when -t is a vocab.txt")
    group = parser.add_argument_group("vocab.txt model options")
    group.add_argument("--unk-token", default=None, help="unknown token (default: [UNK])")
    group.add_argument("--continuing-subword-prefix", default=None,
                       help="prefix of continuation pieces (default: ##)")
    group.add_argument("--max-input-chars-per-word", type=int, default=None,
                       help="longer words become the unknown token (default: per flavor)")


def add_tokenizer_option(parser: argparse.ArgumentParser, *, vocab_options: bool = True) -> None:
    """Add ``-t/--tokenizer`` and ``--member`` (and the vocab.txt options)."""
    parser.add_argument("-t", "--tokenizer", required=True, metavar="TOKENIZER",
                        help="a saved tokenizer directory, tokenizer.json, bundle "
                             "(directory or .zip) or vocab.txt")
    parser.add_argument("--member", metavar="NAME",
                        help="which tokenizer of a bundle to use")
    if vocab_options:
        add_vocab_options(parser)


def is_vocab_txt(path: str) -> bool:
    """A file that is not JSON or zip is read as a vocab.txt."""
    lower = path.lower()
    return os.path.isfile(path) and not lower.endswith((".json", ".zip"))


def vocab_source(path: str):
    """What ``Tokenizer.from_vocab`` reads for a vocab.txt: the path, or for a ``.gz``/
    ``.bz2``/``.xz`` file its decompressed tokens (lines named as in a plain file)."""
    from ..formats.lines import compression_of, read_bytes
    from ..vocab import Vocab, parse_vocab_lines

    if compression_of(path) is None:
        return path
    return Vocab(parse_vocab_lines(read_bytes(path), path))


def load_artifact(path: str, args: argparse.Namespace | None = None):
    """Load a Tokenizer or Bundle from ``path`` (a vocab.txt uses the options in ``args``)."""
    from ..formats.load import is_stream, load
    from ..tokenizer import Tokenizer

    if not os.path.exists(path):
        raise CLIError(f"{path}: no such tokenizer file or directory")
    options = {n: getattr(args, n) for n in VOCAB_OPTIONS
               if args is not None and getattr(args, n, None) is not None}
    if is_vocab_txt(path):
        return Tokenizer.from_vocab(vocab_source(path), **options)
    if is_stream(path):  # -t <(cat vocab.txt): told apart by content, read once
        try:
            return load(path, **options)
        except TypeError as e:  # vocab.txt options given with a tokenizer.json
            raise CLIError(str(e)) from None
    _refuse_vocab_options(path, args)
    return load(path)


def _refuse_vocab_options(path: str, args: argparse.Namespace | None) -> None:
    """A saved tokenizer carries its own settings: options meant for vocab.txt are errors."""
    if args is None:
        return
    set_ = [n for n in VOCAB_OPTIONS if getattr(args, n, None) is not None]
    if set_:
        flags = ", ".join("--" + n.replace("_", "-") for n in set_)
        raise CLIError(f"{path}: {flags} can only be used when -t is a vocab.txt; a saved "
                       f"tokenizer keeps the settings it was saved with")


def load_tokenizer(args: argparse.Namespace):
    """The Tokenizer named by ``args.tokenizer`` (and ``args.member`` for a bundle)."""
    from ..formats.bundle import Bundle

    loaded = load_artifact(args.tokenizer, args)
    member = getattr(args, "member", None)
    if isinstance(loaded, Bundle):
        if member is None:
            raise CLIError(f"{args.tokenizer}: is a bundle of {', '.join(loaded.names)}; "
                           f"choose one with --member NAME")
        if member not in loaded.names:
            raise CLIError(f"{args.tokenizer}: no member {member!r} in this bundle "
                           f"(members: {', '.join(loaded.names)})")
        return loaded[member]
    if member is not None:
        raise CLIError(f"{args.tokenizer}: --member {member} given, but this is a single "
                       f"tokenizer, not a bundle")
    return loaded
