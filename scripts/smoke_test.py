"""Smoke-test an installed wordpieces: run by scripts/check-package in a fresh environment.

Run from outside the checkout with the environment's Python, it checks that the package
imported is the installed one, that the public API tokenizes, learns, saves and loads,
that the probed character tables shipped as data files load, that the command line runs,
and, when ``WORDPIECES_REQUIRE_NATIVE=1`` (CI), that the native extension was built.
Expected ids were worked out by hand from the small vocabulary below.

Usage: python smoke_test.py PATH/TO/bin/wordpieces

Not handled here: correctness beyond a few hand-checked cases (the test suite does that).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib.metadata import version

import wordpieces as wp

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", ",", "world", "!", "##s"]


def check(condition: bool, what: str) -> None:
    """Fail with ``what`` unless ``condition`` holds."""
    if not condition:
        sys.exit(f"smoke test failed: {what}")


def check_api(folder: str) -> None:
    """Encode, decode, learn, save and load with the installed package."""
    tok = wp.Tokenizer.from_vocab(VOCAB, lowercase=True, flavor="huggingface")
    enc = tok.encode("Hello, worlds!")
    check(enc.ids == [2, 5, 6, 7, 9, 8, 3], f"encode gave {enc.ids}")
    check(tok.decode(enc.ids) == "hello, worlds!", f"decode gave {tok.decode(enc.ids)!r}")
    tok.save(os.path.join(folder, "tok"))
    check(wp.load(os.path.join(folder, "tok")).encode("hello").ids == [2, 5, 3],
          "a saved tokenizer did not load back")
    learned = wp.train(iter(["the cat sat on the mat"] * 20), vocab_size=28,
                       lower_thresh=1, num_proc=1, progress="none")
    check(learned.tokenize("the cats") == ["the", "cat", "##s"],
          f"train learned {learned.tokenize('the cats')}")


def check_data_files() -> None:
    """The huggingface and tensorflow flavors read their probed tables (package data).

    Lowercasing strips the accents (hello world); each CJK ideograph is a word of its
    own, unknown here.
    """
    for flavor in ("huggingface", "tensorflow"):
        tok = wp.Tokenizer.from_vocab(VOCAB, lowercase=True, flavor=flavor)
        ids = tok.encode("héllo wörld 你好", add_special_tokens=False).ids
        check(ids == [5, 7, 1, 1], f"flavor {flavor}: got {ids}")


def check_command_line(cli: str, folder: str) -> None:
    """``wordpieces --version`` and ``encode`` run from the installed script."""
    found = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True)
    check(found.stdout.strip() == f"wordpieces {version('wordpieces')}",
          f"--version printed {found.stdout!r}")
    vocab = os.path.join(folder, "vocab.txt")
    with open(vocab, "w", encoding="utf-8") as f:
        f.write("\n".join(VOCAB) + "\n")
    out = subprocess.run([cli, "encode", "-t", vocab], input="Hello, worlds!\n",
                         capture_output=True, text=True, check=True)
    check(out.stdout == "2 5 6 7 9 8 3\n", f"wordpieces encode printed {out.stdout!r}")


def main(cli: str) -> None:
    check("site-packages" in (wp.__file__ or ""), f"imported {wp.__file__}, not an install")
    if os.environ.get("WORDPIECES_REQUIRE_NATIVE") == "1":
        check(wp.backend() == "native", f"backend is {wp.backend()}")
    with tempfile.TemporaryDirectory() as folder:
        check_api(folder)
        check_data_files()
        check_command_line(cli, folder)
    print(f"smoke test passed: wordpieces {version('wordpieces')}, backend {wp.backend()}")


if __name__ == "__main__":
    main(sys.argv[1])
