"""The TensorFlow "subword tokenizer" tutorial without TensorFlow: a pt/en converter.

Learns a Portuguese and an English vocabulary top-down (8,000 tokens, reserved
``[PAD] [UNK] [START] [END]``, lowercase, TF Text's tokenization), builds the two
tokenizers with the template ``[START] $A [END]``, bundles them, saves the bundle,
loads it back and shows tokenization, lookup and detokenization of a few sentences.

    .venv/bin/python examples/tutorial_converter.py [--out converter.zip]

Without ``--out`` the bundle goes to a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from wordpieces.formats.bundle import Bundle
from wordpieces.formats.load import load
from wordpieces.learn.training import train

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]
SENTENCES = {
    "pt": ["Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da "
           "Central um rapaz aqui do bairro.",
           "Os meus olhos não sabiam ler o que havia naquela carta.",
           "este é o primeiro livro que eu fiz."],
    "en": ["It is a truth universally acknowledged, that a single man in possession of a "
           "good fortune, must be in want of a wife.",
           "Call me Ishmael.",
           "The tokenizer doesn't know the word 'antidisestablishmentarianism'!"],
}


def learn(language: str, source) -> tuple:
    """Train one tokenizer; return it with the seconds it took."""
    start = time.perf_counter()
    tok = train(source, algorithm="top-down", vocab_size=8000, reserved_tokens=RESERVED,
                lowercase=True, flavor="tensorflow", template="[START] $A [END]")
    return tok, time.perf_counter() - start


def show(name: str, tok, sentences: list[str]) -> None:
    vocab = [tok.id_to_token(i) for i in range(tok.vocab_size)]
    print(f"\n== {name}: {tok.vocab_size} tokens; first {vocab[:12]}; last {vocab[-6:]}")
    for text in sentences:
        ids = tok.encode(text).ids
        print(f"\ntext:        {text}")
        print(f"tokens:      {tok.tokenize(text)}")
        print(f"ids:         {ids}")
        print(f"lookup:      {' '.join(tok.lookup(ids))}")
        print(f"detokenize:  {tok.detokenize(ids)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="where to save the bundle (a directory or a .zip)")
    args = parser.parse_args()
    pt, pt_seconds = learn("pt", str(CORPORA / "portuguese"))
    en, en_seconds = learn("en", str(CORPORA / "english"))
    print(f"learned pt in {pt_seconds:.1f} s ({pt.vocab_size} tokens), "
          f"en in {en_seconds:.1f} s ({en.vocab_size} tokens)")
    with tempfile.TemporaryDirectory() as folder:
        out = args.out or os.path.join(folder, "converter.zip")
        Bundle(pt=pt, en=en).save(out)
        converter = load(out)
        print(f"saved the bundle to {out} and loaded it back: {converter.names}")
        for name in converter.names:
            show(name, converter[name], SENTENCES[name])


if __name__ == "__main__":
    main()
