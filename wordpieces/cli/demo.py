"""``wordpieces demo``: the main job on built-in defaults, offline, in a few seconds.

It builds a tokenizer (from the shared BERT vocabulary when the checkout has one, else
from the small vocabulary this package ships, learned from public-domain books by
``scripts/make_demo_vocab.py``; ``--learn`` learns one on the spot from documentation
text that ships with Python), saves it to a folder it keeps, loads it back, encodes and
decodes a few sentences, and traces one word's split.

Not handled here: anything a user would configure (the other subcommands do that).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import warnings

from .common import shared_dir

SENTENCES = (
    "Hello, world! Tokenization isn't hard.",
    "The unaffable players were playing in Zürich.",
    "Snowmen ☃ are not in the vocabulary.",
)
EXPLAIN_WORDS = ("unaffable", "snowman☃")
DEMO_VOCAB_SIZE = 2000  # what lower_thresh=2 reaches on this text (asking more: short of it)
RESERVED = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
SHIPPED_VOCAB = os.path.join(os.path.dirname(__file__), "data", "demo-vocab.txt")

EXAMPLES = """\
examples:
  wordpieces demo                   # shared BERT vocabulary if present, else the shipped one
  wordpieces demo --learn           # learn a vocabulary from Python's own documentation
  wordpieces demo -o out/demo-tok   # save the tokenizer there (default: a new temporary folder)
"""


def register(sub, parents) -> None:
    parser = sub.add_parser("demo", parents=parents, epilog=EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="build, save, reload and use a tokenizer on built-in text",
                            description=__doc__.split("\n\n")[0])
    parser.add_argument("--learn", action="store_true",
                        help="learn a vocabulary from Python's documentation instead of "
                             "reading one")
    parser.add_argument("-o", "--output", metavar="DIR",
                        help="save the tokenizer here (default: a new temporary folder, "
                             "kept for the commands the demo suggests)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..formats.load import load
    from ..tools.explain import explain, render

    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    print("wordpieces demo (offline)\n")
    tok, origin = _build(args.learn)
    print(f"1. tokenizer: {origin}")
    print(f"   vocab_size={tok.vocab_size}, flavor={tok.flavor!r}, "
          f"reserved_tokens={tok.reserved_tokens}\n")
    directory = args.output or tempfile.mkdtemp(prefix="wordpieces-demo-")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tok.save(directory)
    tok = load(directory)
    files = ", ".join(sorted(os.listdir(directory)))
    print(f"2. saved to {directory}/ ({files}) and loaded back")
    for warning in caught:
        print(f"   note: {_first_clause(str(warning.message))}")
    print("\n3. encode -> ids -> decode")
    for sentence in SENTENCES:
        _show_sentence(tok, sentence)
    print("4. explain: the greedy longest-match search, word by word")
    for word in EXPLAIN_WORDS:
        print(_indent(render(explain(tok, word), color=color)))
    command = _command()
    print(f"\nnext: {command} explain -t {directory} WORD   |   {command} --help")
    return 0


def _first_clause(message: str) -> str:
    """The headline of a save warning: the demo shows what happened, not every detail."""
    head = message.split(": ", 2)
    return ": ".join(head[1:2]) if len(head) > 1 else message


def _command() -> str:
    """How to run ``wordpieces`` from here: the bare name when it is on PATH, else its path.

    ``scripts/demo`` runs inside ``.venv`` without activating it, so the bare name is
    usually not found; the venv's script, relative to the working directory, is.
    """
    script = os.path.join(os.path.dirname(sys.executable), "wordpieces")
    found = shutil.which("wordpieces")
    if found and os.path.realpath(found) == os.path.realpath(script):
        return "wordpieces"
    if not os.path.isfile(script):
        return f"{os.path.basename(sys.executable)} -m wordpieces"
    relative = os.path.relpath(script)
    return relative if not relative.startswith(os.pardir) else script


def _show_sentence(tok, sentence: str) -> None:
    enc = tok.encode(sentence)
    print(f"   text:   {sentence}")
    print(f"   tokens: {' '.join(enc.tokens)}")
    print(f"   ids:    {' '.join(map(str, enc.ids))}")
    print(f"   decode: {tok.decode(enc.ids)}\n")


def _indent(text: str) -> str:
    return "\n".join("   " + line for line in text.splitlines())


def _build(learn: bool):
    """A tokenizer and a sentence saying where it came from."""
    from ..tokenizer import Tokenizer

    if learn:
        return _learn()
    shared = shared_dir()
    vocab = os.path.join(shared, "vocab", "bert-base-uncased.vocab.txt") if shared else None
    if vocab and os.path.isfile(vocab):
        return Tokenizer.from_vocab(vocab, lowercase=True, flavor="bert"), \
            f"BERT's vocabulary {vocab} (lowercase, flavor bert)"
    return Tokenizer.from_vocab(SHIPPED_VOCAB, lowercase=True, flavor="bert"), \
        ("the demo vocabulary that ships with wordpieces: 8,000 tokens learned bottom-up "
         "from public-domain books (scripts/make_demo_vocab.py)")


def _learn():
    """Learn a top-down vocabulary from Python's bundled documentation."""
    text, source = builtin_text()
    start = time.perf_counter()
    tok = _train_top_down(text.splitlines())
    seconds = time.perf_counter() - start
    return tok, (f"learned top-down from {source} ({len(text) // 1000} kB) "
                 f"in {seconds:.1f} s")


def _train_top_down(lines: list[str]):
    from ..learn.training import train

    # One process: on a 0.5 MB text, starting a pool costs more than it saves.
    return train(iter(lines), algorithm="top-down", vocab_size=DEMO_VOCAB_SIZE,
                 reserved_tokens=RESERVED, lower_thresh=2, num_proc=1, progress="none")


def builtin_text() -> tuple[str, str]:
    """English text that every Python install has: the documentation of pydoc topics."""
    from pydoc_data.topics import topics

    return "\n".join(topics[k] for k in sorted(topics)), "Python's pydoc_data.topics"
