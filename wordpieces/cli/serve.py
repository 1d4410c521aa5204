"""``wordpieces serve``: the playground, a local web page to watch WordPiece split text.

Loads the tokenizers named with ``-t`` (each member of a bundle becomes a choice) or, with
none, the toy teaching vocabulary plus ``../shared/vocab/bert-base-uncased.vocab.txt``
(relative to the working directory) when it is there, which the page then starts with;
binds to loopback unless ``--host`` says otherwise, prints the URL and serves until Ctrl-C.

The vocab.txt options (``--no-lowercase`` …) apply to every ``-t`` that is a vocab.txt; a
saved tokenizer among them keeps its own settings (it is not refused, as other commands
refuse a lone one), and a line on stderr names the ``-t`` they applied to. With no vocab.txt
to apply to, they are an error naming the ``-t`` given.

Not handled here: the page and the API (``wordpieces.tools.playground``).
"""

from __future__ import annotations

import argparse
import os
import sys

from .common import CLIError, non_negative_int
from .loading import VOCAB_OPTIONS, add_vocab_options, is_vocab_txt, load_artifact

DEFAULT_BERT = os.path.join("..", "shared", "vocab", "bert-base-uncased.vocab.txt")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOY = "toy"  # the teaching vocabulary's name when serve loads it by default

SERVE_EXAMPLES = """\
examples:
  wordpieces serve                                  # toy vocabulary (+ BERT from ../shared)
  wordpieces serve -t bert-base-cased.vocab.txt --no-lowercase -t my-tok/
  wordpieces serve -t converter.zip --port 8080 --open   # each bundle member is a choice

--no-lowercase and the other vocab.txt options apply to every -t that is a vocab.txt; a
saved tokenizer keeps its own settings. To compare BERT uncased with cased, save the cased
one with its setting first:
  wordpieces export -t bert-base-cased.vocab.txt --no-lowercase --format hf -o bert-cased/
  wordpieces serve -t bert-base-uncased.vocab.txt -t bert-cased/

The page shows the pieces of what you type (word-start and ## pieces in two colours, ids
underneath, offsets on hover), the greedy trace of a clicked word, two tokenizers side by
side and vocabulary figures. The JSON API (GET /api/tokenizers, POST /api/encode,
/api/explain, /api/compare, GET /api/vocab/NAME) is described in docs/playground.md; it answers
only its own page and clients that send no Origin, and a POST must be JSON:
  curl -H 'Content-Type: application/json' -d '{"tokenizer": "toy", "text": "playing"}' \\
    http://127.0.0.1:8000/api/encode
"""


def register(sub, parents) -> None:
    summary = "a local web page to watch tokenizers split text, and its JSON API"
    parser = sub.add_parser("serve", parents=parents, help=summary, description=summary,
                            epilog=SERVE_EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-t", "--tokenizer", action="append", default=[], metavar="TOKENIZER",
                        help="a saved tokenizer, tokenizer.json, bundle or vocab.txt; "
                             "repeat for more (default: the toy vocabulary, plus "
                             f"{DEFAULT_BERT} when present)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=non_negative_int, default=8000,
                        help="port (default: 8000; 0 picks a free one)")
    parser.add_argument("--open", action="store_true", help="open the page in a browser")
    add_vocab_options(parser)
    parser.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    from ..tools.playground.api import Playground
    from ..tools.playground.server import make_server

    named = load_tokenizers(args)
    playground = Playground(named, default=starting_choice(named, args))
    try:
        server = make_server(playground, args.host, args.port, log=not args.quiet)
    except OSError as error:
        raise CLIError(f"{args.host}:{args.port}: cannot listen there ({error.strerror or error}); "
                       f"choose another with --port or --host") from None
    with server:
        print(f"wordpieces serve: {server.url}  (tokenizers: {', '.join(playground.tokenizers)}; "
              f"Ctrl-C to stop)", flush=True)
        if args.host not in LOOPBACK:
            print(f"wordpieces serve: warning: listening on {args.host}: other machines can "
                  f"reach the page", file=sys.stderr)
        if args.open:
            import webbrowser
            webbrowser.open(server.url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


def load_tokenizers(args: argparse.Namespace) -> dict:
    """Name -> Tokenizer for every ``-t`` (bundle members as ``bundle:member``)."""
    from ..formats.bundle import Bundle
    from ..tokenizer import Tokenizer
    from ..tools.playground.api import toy_vocabulary

    if not args.tokenizer:
        named = {TOY: Tokenizer.from_vocab(toy_vocabulary())}
        if os.path.isfile(DEFAULT_BERT):
            named["bert-base-uncased"] = load_artifact(DEFAULT_BERT, args)
        return named
    takes_options = option_targets(args)
    named = {}
    for path in args.tokenizer:
        loaded = load_artifact(path, args if path in takes_options else None)
        stem = tokenizer_name(path)
        members = loaded.items() if isinstance(loaded, Bundle) else [(None, loaded)]
        for member, tok in members:
            name = stem if member is None else f"{stem}:{member}"
            if name in named:
                raise CLIError(f"{path}: a tokenizer named {name!r} is already loaded; "
                               f"give each -t a different file name")
            named[name] = tok
    return named


def starting_choice(named: dict, args: argparse.Namespace) -> str:
    """The tokenizer the page starts with: the first ``-t``, or with none BERT over the toy."""
    if args.tokenizer:
        return next(iter(named))
    return next((name for name in named if name != TOY), TOY)


def option_targets(args: argparse.Namespace) -> list[str]:
    """The ``-t`` the vocab.txt options apply to (each vocab.txt, or pipe), said on stderr.

    Options given with no vocab.txt among the ``-t`` are an error naming them.
    """
    from ..formats.load import is_stream

    given = [n for n in VOCAB_OPTIONS if getattr(args, n, None) is not None]
    targets = [p for p in args.tokenizer if is_vocab_txt(p) or is_stream(p)]
    if not given:
        return targets
    flags = ", ".join(_flag(args, n) for n in given)
    kept = [p for p in args.tokenizer if p not in targets]
    if not targets:
        raise CLIError(f"{flags}: apply only to a -t that is a vocab.txt, and none is "
                       f"({', '.join(args.tokenizer)}: a saved tokenizer keeps the settings "
                       f"it was saved with)")
    if not args.quiet:
        note = f"; {', '.join(kept)} keep their saved settings" if kept else ""
        print(f"wordpieces serve: {flags} applied to {', '.join(targets)}{note}",
              file=sys.stderr)
    return targets


def _flag(args: argparse.Namespace, name: str) -> str:
    """The option as the user typed it: ``--no-lowercase`` for a switch set off."""
    value = getattr(args, name)
    dashed = name.replace("_", "-")
    if isinstance(value, bool):
        return f"--{dashed}" if value else f"--no-{dashed}"
    return f"--{dashed} {value}"


def tokenizer_name(path: str) -> str:
    """A short name for the page: the file or folder name without ``.vocab.txt``-like ends.

    >>> tokenizer_name("../shared/vocab/bert-base-uncased.vocab.txt")
    'bert-base-uncased'
    >>> tokenizer_name("out/en-tok/")
    'en-tok'
    >>> tokenizer_name("all-MiniLM-L6-v2.tokenizer.json"), tokenizer_name("hub/tokenizer.json")
    ('all-MiniLM-L6-v2', 'tokenizer')
    """
    name = os.path.basename(os.path.normpath(path))
    for ending in (".txt", ".json", ".zip", ".vocab", ".tokenizer"):
        name = name.removesuffix(ending) or name  # tokenizer.json stays "tokenizer"
    return name or path
