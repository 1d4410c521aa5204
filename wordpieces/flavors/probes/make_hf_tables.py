"""Probe Hugging Face ``tokenizers`` over every code point and write ``huggingface.txt``.

Usage::

    python -m wordpieces.flavors.probes.make_hf_tables [OUT_DIR]  # default: wordpieces/flavors/data

HF's BertNormalizer runs clean -> chinese -> strip accents -> lowercase, each with its own
(Rust, partly older-Unicode) tables; BertPreTokenizer splits with two more. Each step is
probed alone, one character at a time, through the public Python API:

- ``removed`` / ``to_space``: what ``clean_text`` deletes or turns into a space;
- ``cjk``: what ``handle_chinese_chars`` surrounds with spaces;
- ``whitespace`` / ``punctuation``: what the pre-tokenizer drops / isolates;
- ``nfd``, ``mark_nonspacing``, ``ccc``: strip accents is NFD then "drop Mn", and NFD
  reorders marks across characters, so the table keeps the decomposition, the dropped
  set and the combining classes; the script checks that they reproduce the per-character
  result for every code point and the reordering on every pair of surviving marks;
- ``lowercase``: Rust's ``char::to_lowercase`` (no final-sigma rule).

Surrogates (U+D800..U+DFFF) are skipped: a Python str holding one cannot cross into Rust.
The output depends only on the tokenizers version, so re-running reproduces the file.
"""

from __future__ import annotations

import sys

import tokenizers
from tokenizers import normalizers, pre_tokenizers

from ..table_file import format_map, format_set, format_table
from . import probing

MIDDLES = "\u0301\u0316\u093c\u0900a"  # dropped marks of several classes, a starter


def bert_normalizer(*, clean=False, chinese=False, strip=False, lower=False):
    return normalizers.BertNormalizer(clean_text=clean, handle_chinese_chars=chinese,
                                      strip_accents=strip, lowercase=lower)


def batch(normalizer):
    """Turn a normalizer into a function over a list of strings."""
    return lambda texts: [normalizer.normalize_str(t) for t in texts]


def probe_clean(cps):
    out = batch(bert_normalizer(clean=True))([chr(cp) for cp in cps])
    removed = [cp for cp, r in zip(cps, out, strict=True) if r == ""]
    to_space = [cp for cp, r in zip(cps, out, strict=True) if r == " "]
    other = [cp for cp, r in zip(cps, out, strict=True) if r not in ("", " ", chr(cp))]
    assert not other, f"clean_text does something else to {other[:10]}"
    return removed, to_space


def probe_chinese(cps):
    out = batch(bert_normalizer(chinese=True))([chr(cp) for cp in cps])
    spaced = [cp for cp, r in zip(cps, out, strict=True) if r == f" {chr(cp)} "]
    other = [cp for cp, r in zip(cps, out, strict=True) if r not in (chr(cp), f" {chr(cp)} ")]
    assert not other, f"handle_chinese_chars does something else to {other[:10]}"
    return spaced


def probe_pre_tokenizer(cps: list[int]) -> tuple[list[int], list[int]]:
    """Split ``a<c>b`` pieces, many per call: c is isolated, dropped, or inside a word."""
    pre = pre_tokenizers.BertPreTokenizer()
    space: list[int] = []
    punct: list[int] = []
    for i in range(0, len(cps), 50_000):
        chunk = cps[i:i + 50_000]
        text = "".join(f"a{chr(cp)}b" for cp in chunk)
        covered = [0] * len(text)  # 1: inside a longer word, 2: a word of its own
        for _, (s, e) in pre.pre_tokenize_str(text):
            covered[s:e] = [2 if e - s == 1 else 1] * (e - s)
        for k, cp in enumerate(chunk):
            kind = covered[3 * k + 1]
            (space if kind == 0 else punct if kind == 2 else []).append(cp)
    return space, punct


def probe_strip(cps):
    """Return (nfd changes, Mn set, ccc) after checking them against strip_accents."""
    chars = [chr(cp) for cp in cps]
    nfd_batch = batch(normalizers.NFD())
    strip_batch = batch(bert_normalizer(strip=True))
    nfd = probing.changes(cps, nfd_batch(chars))
    stripped = strip_batch(chars)
    stable = [cp for cp in cps if cp not in nfd]
    mn = {cp for cp, r in zip(cps, stripped, strict=True) if cp not in nfd and r == ""}
    ccc = probing.probe_ccc(nfd_batch, stable)
    probing.check_each(cps, stripped, nfd, ccc, mn, "strip_accents")
    context = probing.movable(nfd, ccc, mn)
    n = probing.check_pairs(strip_batch, lambda c: nfd.get(ord(c), c), ccc, mn.__contains__,
                            context, MIDDLES)
    print(f"reordering model checked on {n} inputs", file=sys.stderr)
    return nfd, mn, ccc, context


def probe_lowercase(cps):
    return probing.changes(cps, batch(bert_normalizer(lower=True))([chr(cp) for cp in cps]))


def build() -> str:
    cps = probing.all_code_points()
    removed, to_space = probe_clean(cps)
    cjk = probe_chinese(cps)
    whitespace, punctuation = probe_pre_tokenizer(cps)
    nfd, mn, ccc, context = probe_strip(cps)
    lowercase = probe_lowercase(cps)
    for cp in context:  # the normalizer's reordering relies on this
        kept = [c for c in nfd.get(cp, chr(cp)) if ord(c) not in mn]
        assert all(lowercase.get(ord(c), c) == c for c in kept), f"U+{cp:04X} changes case"
    header = [
        "Character tables of Hugging Face tokenizers' BertNormalizer and BertPreTokenizer.",
        f"Generated by make_hf_tables.py from tokenizers {tokenizers.__version__}; do not edit.",
        "Probed over U+0000..U+10FFFF except the surrogates U+D800..U+DFFF.",
        "Format: see table_file.py. Sets list what they hold; maps list what is not identity.",
    ]
    sections = {
        "removed": format_set(removed),
        "to_space": format_set(to_space),
        "cjk": format_set(cjk),
        "whitespace": format_set(whitespace),
        "punctuation": format_set(punctuation),
        "nfd": format_map(probing.with_hangul(nfd)),
        "mark_nonspacing": format_set(mn),
        "ccc": format_map(ccc),
        "lowercase": format_map(lowercase),
    }
    return format_table(header, sections)


if __name__ == "__main__":
    probing.write_table("huggingface.txt", build, sys.argv)
