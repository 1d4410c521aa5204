"""Probe HF ``tokenizers`` over every code point and write ``pipeline/data/hf_patterns.txt``.

Usage::

    python -m wordpieces.pipeline.probes.make_pattern_tables [OUT_DIR]

The generic HF components decide characters with tables of their own, not Python's:

- ``regex_w``, ``regex_s``, ``regex_d``, ``regex_L`` ...: what Oniguruma (the engine of
  HF's ``Split``, ``Replace`` and ``Whitespace``) matches with ``\\w``, ``\\s``, ``\\d``,
  ``\\p{L}`` ...; its Unicode version is not Python's, and its ``\\w`` holds the marks;
- ``bracket_flip_w`` ...: where the same class inside brackets (``[\\w]``, ``[^\\w\\s]``)
  disagrees with it outside: Oniguruma's bracketed ``\\w`` leaves out the Latin-1
  digits and fractions ``²³¹¼½¾`` that its bare ``\\w`` takes;
- ``case_fold`` (each character to the first of those ``(?i)`` takes as its equals) and
  ``case_fold_multi`` (characters ``(?i)`` matches with a string of several, such as
  ``ß`` and ``ss``): see ``case_folds.py``;
- ``white_space``: Rust's ``char::is_whitespace`` (``WhitespaceSplit``, ``Strip``);
- ``numeric``: Rust's ``char::is_numeric`` (``Digits``);
- ``whitespace_word``: the characters HF's ``Whitespace`` pre-tokenizer groups into
  words (it classifies characters as whitespace, word or symbol; its word set is not
  Oniguruma's ``\\w``: it holds U+200C and U+200D);
- ``combining_mark``: what the ``StripAccents`` normalizer drops (Mn, Mc and Me in
  its data: more than the ``BertNormalizer``'s accent stripping, which drops Mn only);
- ``nfd``, ``nfkd``: the one-character NFD/NFKD results of HF's normalizers (Unicode 9)
  where they differ from Python's ``unicodedata``.

Surrogates (U+D800..U+DFFF) are skipped: a Python str holding one cannot cross into Rust.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path
from typing import Literal

import tokenizers
from tokenizers import Regex, normalizers, pre_tokenizers

from ...flavors.table_file import format_map, format_set, format_table
from .case_folds import assigned_code_points, fold_classes, matched, multi_folds

CLASSES = {"w": r"\w", "s": r"\s", "d": r"\d", "L": r"\p{L}", "N": r"\p{N}", "P": r"\p{P}",
           "S": r"\p{S}", "M": r"\p{M}", "Z": r"\p{Z}"}
SEPARATOR = "x"  # matched by no probed predicate but \w, \p{L}: probed without it


def code_points() -> list[int]:
    return [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def kept_positions(pieces) -> set[int]:
    return {i for _, (s, e) in pieces for i in range(s, e)}


def probe_regex(pattern: str, cps: list[int]) -> list[int]:
    """Code points a one-character Oniguruma pattern matches (removed by Split)."""
    text = "".join(map(chr, cps))
    kept = kept_positions(pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(text))
    return [cp for i, cp in enumerate(cps) if i not in kept]


def _flip_pattern(pattern: str) -> str:
    """Characters ``pattern`` and ``[pattern]`` disagree on (``\\W`` is the bare complement)."""
    negated = pattern[:1] + pattern[1].swapcase() + pattern[2:]
    return f"(?={pattern})[^{pattern}]|(?=[{pattern}]){negated}"


def probe_bracket_flips(cps: list[int]) -> dict[str, list[int]]:
    """Where each class inside brackets disagrees with it bare: one pass finds them all."""
    flagged = sorted(matched("|".join(map(_flip_pattern, CLASSES.values())), cps))
    return {name: sorted(matched(_flip_pattern(pattern), flagged))
            for name, pattern in CLASSES.items()}


def probe_white_space(cps: list[int]) -> list[int]:
    text = "".join(map(chr, cps))
    kept = kept_positions(pre_tokenizers.WhitespaceSplit().pre_tokenize_str(text))
    return [cp for i, cp in enumerate(cps) if i not in kept]


def probe_numeric(cps: list[int]) -> list[int]:
    """Digits(individual_digits=False) isolates runs of numeric characters."""
    text = SEPARATOR + SEPARATOR.join(map(chr, cps)) + SEPARATOR
    pieces = pre_tokenizers.Digits(individual_digits=False).pre_tokenize_str(text)
    return [ord(w) for w, _ in pieces if w != SEPARATOR and SEPARATOR not in w]


def probe_whitespace_words(cps: list[int]) -> list[int]:
    """Characters that ``Whitespace`` keeps in one word with the letters around them."""
    text = " ".join(f"a{chr(cp)}a" for cp in cps)
    pieces = pre_tokenizers.Whitespace().pre_tokenize_str(text)
    words = [w for w, _ in pieces if len(w) == 3 and w[0] == w[2] == "a"]
    return sorted(ord(w[1]) for w in words)


def probe_strip_accents(cps: list[int]) -> list[int]:
    strip = normalizers.StripAccents()
    return [cp for cp in cps if strip.normalize_str(chr(cp)) == ""]


def probe_forms(form: Literal["NFD", "NFKD"], cps: list[int]) -> dict[int, str]:
    normalizer = getattr(normalizers, form)()
    out = {}
    for cp in cps:
        hf = normalizer.normalize_str(chr(cp))
        if hf != unicodedata.normalize(form, chr(cp)):
            out[cp] = hf
    return out


def main(out_dir: str) -> None:
    cps = code_points()
    bare = {name: probe_regex(p, cps) for name, p in CLASSES.items()}
    sections = {f"regex_{name}": format_set(found) for name, found in bare.items()}
    sections.update((f"bracket_flip_{name}", format_set(flips))
                    for name, flips in probe_bracket_flips(cps).items())
    assigned = assigned_code_points(cps)
    sections["case_fold"] = format_map({cp: chr(members[0]) for members in fold_classes(assigned)
                                        for cp in members[1:]})
    sections["case_fold_multi"] = format_map(multi_folds(assigned))
    sections["white_space"] = format_set(probe_white_space(cps))
    sections["numeric"] = format_set(probe_numeric(cps))
    sections["whitespace_word"] = format_set(probe_whitespace_words(cps))
    sections["combining_mark"] = format_set(probe_strip_accents(cps))
    sections["nfd"] = format_map(probe_forms("NFD", cps))
    sections["nfkd"] = format_map(probe_forms("NFKD", cps))
    header = ["Character tables of Hugging Face tokenizers' generic components.",
              f"Generated by make_pattern_tables.py from tokenizers {tokenizers.__version__};"
              " do not edit.",
              "Probed over U+0000..U+10FFFF except the surrogates U+D800..U+DFFF.",
              f"Python's unicodedata {unicodedata.unidata_version} is the base of nfd/nfkd"
              " and gives case_fold_multi's candidate strings.",
              "Format: see wordpieces/flavors/table_file.py."]
    path = Path(out_dir) / "hf_patterns.txt"
    path.write_text(format_table(header, sections), encoding="ascii")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parents[1] / "data"))
