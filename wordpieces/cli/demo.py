"""``wordpieces demo``: the main job on built-in defaults, offline, in a few seconds.

It builds a tokenizer (from the shared BERT vocabulary when the checkout has one, else
by learning a small vocabulary from documentation text that ships with Python), saves
it, loads it back, encodes and decodes a few sentences, and traces one word's split.

Not handled here: anything a user would configure (the other subcommands do that).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

from .common import shared_dir

SENTENCES = (
    "Hello, world! Tokenization isn't hard.",
    "The unaffable players were playing in Zürich.",
    "Snowmen ☃ are not in the vocabulary.",
)
EXPLAIN_WORDS = ("unaffable", "snowman☃")
DEMO_VOCAB_SIZE = 4000
RESERVED = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

EXAMPLES = """\
examples:
  wordpieces demo                   # shared BERT vocabulary if present, else learn one
  wordpieces demo --learn           # always learn from Python's own documentation
  wordpieces demo --learn -o out/demo-tok   # keep the tokenizer it saves
"""


def register(sub, parents) -> None:
    parser = sub.add_parser("demo", parents=parents, epilog=EXAMPLES,
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            help="build, save, reload and use a tokenizer on built-in text",
                            description=__doc__.split("\n\n")[0])
    parser.add_argument("--learn", action="store_true",
                        help="learn a vocabulary even when the shared BERT one is there")
    parser.add_argument("-o", "--output", metavar="DIR",
                        help="save the tokenizer here (default: a temporary directory, "
                             "removed at the end)")
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
    try:
        tok.save(directory)
        tok = load(directory)
        files = ", ".join(sorted(os.listdir(directory)))
        kept = "" if args.output else "  (temporary; use -o DIR to keep it)"
        print(f"2. saved to {directory}/ ({files}) and loaded back{kept}\n")
        print("3. encode -> ids -> decode")
        for sentence in SENTENCES:
            _show_sentence(tok, sentence)
        print("4. explain: the greedy longest-match search, word by word")
        for word in EXPLAIN_WORDS:
            print(_indent(render(explain(tok, word), color=color)))
        print(f"\nnext: wordpieces explain -t {directory} WORD   |   wordpieces --help")
    finally:
        if not args.output:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


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

    shared = shared_dir()
    vocab = os.path.join(shared, "vocab", "bert-base-uncased.vocab.txt") if shared else None
    if not learn and vocab and os.path.isfile(vocab):
        return Tokenizer.from_vocab(vocab, lowercase=True, flavor="bert"), \
            f"BERT's vocabulary {vocab} (lowercase, flavor bert)"
    return _learn()


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
