"""Helpers for differential tests against Hugging Face ``tokenizers``: build the same
tokenizer on both sides, sample real corpus lines, compare whole encodings."""

from __future__ import annotations

import random

import pytest

from tests.shared_data import corpus_lines, shared_path

hf = pytest.importorskip("tokenizers")

MINILM = ("vocab", "all-MiniLM-L6-v2.tokenizer.json")
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

CORPORA = {
    "english": [("english", "wikitext2", "wiki.test.raw"),
                ("english", "gutenberg", "pg1342_austen_pride_and_prejudice.txt")],
    "portuguese": [("portuguese", "machado_dom_casmurro.txt"),
                   ("portuguese", "eca_de_queiros_o_primo_basilio.txt")],
    "chinese": [("multilingual", "zh_cao_xueqin_hongloumeng.txt")],
    "udhr": "udhr",  # every file of multilingual/udhr
}


def sample_lines(corpus: str, n: int, seed: int = 0) -> list[str]:
    """``n`` non-blank lines drawn at random (fixed seed) from a corpus of ``CORPORA``."""
    lines = []
    sources = CORPORA[corpus]
    if sources == "udhr":
        folder = shared_path("corpora", "multilingual", "udhr")
        sources = [("multilingual", "udhr", p.name) for p in sorted(folder.glob("*.txt"))]
    for parts in sources:
        try:
            lines += corpus_lines(*parts, limit=5000)
        except pytest.skip.Exception:
            continue
    if not lines:
        pytest.skip(f"no shared corpus for {corpus}")
    random.Random(seed).shuffle(lines)
    return lines[:n]


def hf_from_vocab(vocab_path: str, *, lowercase: bool = True,
                  template: str = "[CLS] $A [SEP]", pair: str = "[CLS] $A [SEP] $B:1 [SEP]:1"):
    """An HF tokenizer built like ``Tokenizer.from_vocab(..., flavor="huggingface")``."""
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors
    tok = hf.Tokenizer(models.WordPiece.from_file(str(vocab_path), unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    vocab = tok.get_vocab()
    names = sorted({p.split(":")[0] for p in (template + " " + pair).split()
                    if not p.startswith("$")})
    tok.post_processor = processors.TemplateProcessing(
        single=template, pair=pair, special_tokens=[(n, vocab[n]) for n in names])
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens([t for t in BERT_SPECIALS if t in vocab])
    return tok


def minilm_pair():
    """Our and HF's tokenizer loaded from the same all-MiniLM-L6-v2 tokenizer.json."""
    from wordpieces.tokenizer import Tokenizer
    path = str(shared_path(*MINILM))
    return Tokenizer.from_file(path), hf.Tokenizer.from_file(path)


def fields(enc) -> dict:
    """Everything an encoding holds, overflowing windows included, as plain data."""
    return {"ids": enc.ids, "tokens": enc.tokens, "offsets": [tuple(o) for o in enc.offsets],
            "word_ids": enc.word_ids, "type_ids": enc.type_ids,
            "attention_mask": enc.attention_mask,
            "special_tokens_mask": enc.special_tokens_mask,
            "sequence_ids": enc.sequence_ids, "n_sequences": enc.n_sequences,
            "overflowing": [fields(o) for o in enc.overflowing]}


def outcome(encode, *args):
    """``fields`` of ``encode(*args)``, or "error" if it fails (HF panics count too)."""
    try:
        return fields(encode(*args))
    except BaseException as e:  # HF raises PanicException (a BaseException) on bad strides
        if isinstance(e, KeyboardInterrupt):
            raise
        return "error"


def mismatches(ours, theirs, lines: list[str], *, pair_every: int = 3) -> list:
    """Lines (and pairs) on which the two tokenizers' encodings differ."""
    bad = []
    for i, line in enumerate(lines):
        pair = lines[i - 1] if pair_every and i % pair_every == 0 else None
        if outcome(ours.encode, line, pair) != outcome(theirs.encode, line, pair):
            bad.append((line, pair))
    return bad
