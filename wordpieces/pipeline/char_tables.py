"""Answer the character questions of HF's generic components exactly as HF does.

HF ``tokenizers`` decides characters with tables of other Unicode versions than
Python's: Oniguruma's ``\\w``/``\\s``/``\\d``/``\\p{..}`` classes (``Split``,
``Replace``, ``Whitespace``; bare and inside brackets, which differ) and its
case-insensitive equals (``(?i)``), Rust's ``char::is_whitespace`` and ``char::is_numeric``
(``WhitespaceSplit``, ``Strip``, ``Digits``) and the Unicode 9 NFD/NFKD of its
normalizers. They are probed from HF over every code point
(``probes/make_pattern_tables.py``) into ``data/hf_patterns.txt``, loaded lazily once.

Not handled here: the BERT tables (``flavors.tables``), applying any of this to text
(``patterns``, ``unicode_forms``, ``normalizers``, ``pre_tokenizers``).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib import resources

from ..flavors.table_file import decode_result, parse_table
from ..flavors.tables import RangeSet

MAX_CODE_POINT = 0x10FFFF
REGEX_CLASSES = ("w", "s", "d", "L", "N", "P", "S", "M", "Z")


@cache
def _sections() -> dict[str, list[tuple]]:
    text = resources.files("wordpieces.pipeline.data").joinpath("hf_patterns.txt").read_text(
        "ascii")
    return parse_table(text, "hf_patterns.txt")


@cache
def char_set(name: str) -> RangeSet:
    """The probed set ``name`` (``regex_w`` ..., ``white_space``, ``numeric``)."""
    return RangeSet((a, b) for a, b in _sections()[name])


def _symmetric_difference(a, b) -> list[tuple[int, int]]:
    """The code points in exactly one of two lists of disjoint inclusive ranges."""
    edges: dict[int, int] = {}
    for first, last in (*a, *b):
        for edge in (first, last + 1):
            edges[edge] = edges.get(edge, 0) ^ 1
    toggles = sorted(edge for edge, odd in edges.items() if odd)
    return [(toggles[i], toggles[i + 1] - 1) for i in range(0, len(toggles), 2)]


@cache
def bracketed_set(name: str) -> RangeSet:
    """What Oniguruma's class ``name`` (``w``, ``s``, ``d``, ``L`` ...) matches inside brackets.

    Not always its bare set: ``[\\w]`` leaves out ``²³¹¼½¾``, which ``\\w`` takes.
    """
    bare = char_set(f"regex_{name}").ranges()
    return RangeSet(_symmetric_difference(bare, char_set(f"bracket_flip_{name}").ranges()))


@cache
def _case_classes() -> dict[int, tuple[int, ...]]:
    classes: dict[int, list[int]] = {}
    for first, last, value in _sections()["case_fold"]:
        for cp in range(first, last + 1):
            classes.setdefault(ord(decode_result(value, cp)), []).append(cp)
    out: dict[int, tuple[int, ...]] = {}
    for key, others in classes.items():
        members = (key, *others)
        out.update((cp, members) for cp in members)
    return out


def case_equals(cp: int) -> tuple[int, ...]:
    """The code points Oniguruma's ``(?i)`` takes as equal to ``cp``, the first its key."""
    return _case_classes().get(cp, (cp,))


def cased_code_points() -> tuple[int, ...]:
    """Every code point that ``(?i)`` takes as equal to another one."""
    return tuple(_case_classes())


@cache
def multi_char_folds() -> dict[int, str]:
    """The characters ``(?i)`` also matches with several (``ß``: ``'ss'``), to that string."""
    return {cp: decode_result(v, cp) for a, b, v in _sections()["case_fold_multi"]
            for cp in range(a, b + 1)}


@cache
def _overrides(form: str) -> dict[int, str]:
    return {cp: decode_result(v, cp) for a, b, v in _sections()[form]
            for cp in range(a, b + 1)}


def is_white_space(ch: str) -> bool:
    """Rust's ``char::is_whitespace`` (the White_Space property) as HF runs it."""
    return ord(ch) in char_set("white_space")


def is_numeric(ch: str) -> bool:
    """Rust's ``char::is_numeric`` (Nd, Nl, No) as HF's ``Digits`` runs it."""
    return ord(ch) in char_set("numeric")


def is_combining_mark(ch: str) -> bool:
    """True if HF's ``StripAccents`` normalizer drops ``ch`` (a combining mark: M*)."""
    return ord(ch) in char_set("combining_mark")


def decompose(ch: str, compat: bool) -> str:
    """HF's full NFD (or NFKD when ``compat``) of one character (Unicode 9 data)."""
    override = _overrides("nfkd" if compat else "nfd").get(ord(ch))
    if override is not None:
        return override
    return unicodedata.normalize("NFKD" if compat else "NFD", ch)


def newer_than_hf(ch: str) -> bool:
    """True if HF's NFD leaves ``ch`` whole though Python decomposes it (a newer composite)."""
    return ord(ch) in _overrides("nfd")
