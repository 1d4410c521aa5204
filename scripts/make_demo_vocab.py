"""Learn the small vocabulary ``wordpieces demo`` ships, from public-domain English text.

A fresh clone has no ``../shared``, and a vocabulary learned on the spot from the text that
ships with Python (its pydoc topics, 0.5 MB of technical prose) splits everyday words into
letters (``unaffable`` -> ``u ##n ##a ##f ##f ##able``). The demo should show WordPiece at
its best, so it reads this file instead: 8,000 tokens learned bottom-up (the default
learner, BERT lowercase normalization) from public-domain books in ``../shared/corpora``:
eight Project Gutenberg novels, the US inaugural addresses 1789-2021 and Shakespeare (see
``../shared/corpora/SOURCES.md``). Only the learned vocabulary is kept, not the text.

Usage (from the project root): .venv/bin/python scripts/make_demo_vocab.py
It rewrites ``wordpieces/cli/data/demo-vocab.txt``; the result is deterministic.

Not handled here: any other vocabulary (``wordpieces train`` makes those).
"""

from __future__ import annotations

import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "wordpieces", "cli", "data", "demo-vocab.txt")
SIZE = 8000
SOURCES = [f"gutenberg/{name}" for name in (
    "pg1342_austen_pride_and_prejudice.txt", "pg1400_dickens_great_expectations.txt",
    "pg1661_doyle_adventures_of_sherlock_holmes.txt", "pg2701_melville_moby_dick.txt",
    "pg345_stoker_dracula.txt", "pg76_twain_huckleberry_finn.txt",
    "pg84_shelley_frankenstein.txt", "pg98_dickens_tale_of_two_cities.txt")] + [
    "nltk/us_inaugural_addresses_1789-2021.txt", "tinyshakespeare.txt"]


def main() -> int:
    sys.path.insert(0, ROOT)
    import wordpieces as wp

    english = os.path.join(os.environ.get("WORDPIECES_SHARED", os.path.join(ROOT, "..", "shared")),
                           "corpora", "english")
    paths = [os.path.join(english, name) for name in SOURCES]
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        print(f"make_demo_vocab: missing {missing[0]} (needs ../shared)", file=sys.stderr)
        return 2
    tok = wp.train(paths, algorithm="bottom-up", vocab_size=SIZE, progress="none", num_proc=1)
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok.model.vocab.save(OUTPUT)
    print(f"wrote {OUTPUT}: {tok.vocab_size} tokens; unaffable -> {tok.tokenize('unaffable')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
