"""Answer per-code-point questions exactly as HF tokenizers and TF Text do.

PROVISIONAL: these are approximations on Python's ``unicodedata``; they are to be
replaced by tables probed from the references themselves and shipped in
``wordpieces/_tables/`` (see DESIGN.md §2).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_RUST_WHITESPACE = frozenset(
    [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
     0x2028, 0x2029, 0x202F, 0x205F, 0x3000])


def hf_is_control(cp: int) -> bool:
    return unicodedata.category(chr(cp)) in ("Cc", "Cf", "Co", "Cs")


def hf_is_whitespace(cp: int) -> bool:
    return cp in _RUST_WHITESPACE


def hf_is_punctuation(cp: int) -> bool:
    return unicodedata.category(chr(cp)).startswith("P")


@lru_cache(maxsize=65536)
def hf_strip_accents(ch: str) -> str:
    d = unicodedata.normalize("NFD", ch)
    return "".join(c for c in d if unicodedata.category(c) != "Mn")


@lru_cache(maxsize=65536)
def hf_lowercase(ch: str) -> str:
    return "".join(c.lower() for c in ch)


def tf_is_control(cp: int) -> bool:
    return unicodedata.category(chr(cp)) in ("Cc", "Cf")


def tf_is_punctuation(cp: int) -> bool:
    return unicodedata.category(chr(cp)).startswith("P")


@lru_cache(maxsize=65536)
def tf_casefold_strip(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ch).casefold())
    d = unicodedata.normalize("NFD", folded)
    return "".join(c for c in d if unicodedata.category(c) != "Mn")
