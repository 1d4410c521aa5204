"""``wordpieces bundle``: put several tokenizers (one per language, say) into one artifact.

``wordpieces bundle en=en-tok/ pt=pt-tok/ -o converter.zip`` is ``wp.Bundle(en=...,
pt=...).save("converter.zip")`` (the TensorFlow subword tutorial's "converter"): each
``NAME=TOKENIZER`` names a member and what ``-t`` would read for it (a saved folder, a
``tokenizer.json`` or a vocab.txt with the ``--lowercase``/``--flavor`` … options).
``-o`` ending in ``.zip`` writes a zip, anything else a directory.

Not handled here: the bundle format and its checks (``formats.bundle``); a member that is
itself a bundle (refused, naming it).
"""

from __future__ import annotations

import argparse

from .common import CLIError
from .loading import add_vocab_options, load_artifact

EXAMPLES = """\
examples:
  wordpieces bundle en=en-tok/ pt=pt-tok/ -o converter.zip
  wordpieces bundle en=bert-base-uncased.vocab.txt -o bundle/ --lowercase
  wordpieces encode -t converter.zip --member pt text.pt.txt

Member names are identifiers (letters, digits, _): they become attributes of the loaded
bundle (wp.load("converter.zip").pt).
"""


def register(sub, parents) -> None:
    summary = "put several tokenizers (e.g. one per language) into one bundle"
    parser = sub.add_parser("bundle", parents=parents, help=summary, description=summary,
                            epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("members", nargs="+", metavar="NAME=TOKENIZER",
                        help="a member's name and the tokenizer to put there (what -t reads)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="the bundle to write: OUT.zip for a zip, else a directory")
    add_vocab_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..formats.bundle import Bundle

    members = dict(_member(spec, args) for spec in _unique(args.members))
    Bundle(**members).save(args.output)
    print(f"wrote {args.output}: {', '.join(members)}")
    return 0


def _unique(specs: list[str]) -> list[str]:
    """Refuse a member name given twice (the second would silently win)."""
    seen: set[str] = set()
    for spec in specs:
        name = spec.partition("=")[0]
        if name in seen:
            raise CLIError(f"bundle: member {name!r} given twice")
        seen.add(name)
    return specs


def _member(spec: str, args: argparse.Namespace):
    """Parse ``NAME=TOKENIZER`` and load the tokenizer."""
    from ..formats.bundle import Bundle

    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise CLIError(f"bundle: {spec!r} is not NAME=TOKENIZER (e.g. en=en-tok/)")
    loaded = load_artifact(path, args)
    if isinstance(loaded, Bundle):
        raise CLIError(f"bundle: {path} is itself a bundle ({', '.join(loaded.names)}); "
                       f"give its members' tokenizers instead")
    return name, loaded
