"""HF's NFC/NFD/NFKC/NFKD as change streams, so that alignments follow HF's exactly.

HF ``tokenizers`` normalizes with the ``unicode-normalization-alignments`` crate, which
yields each output character with a *change*: ``0`` it takes the place of an input
character, ``1`` it is inserted, ``-n`` it also swallows the ``n`` input characters
after the one it replaces. ``NormalizedString.apply_changes`` turns such a stream into
alignments as HF's ``transform`` does, so a composed ``é`` from ``e`` + U+0301 is
aligned to the ``e`` alone, as in HF (not to both characters).

The stream follows the crate's contract: decompose each character (its first output
character has change 0, the others 1), sort each run of non-starters by combining class
(changes travel with their characters), then, for NFC/NFKC, compose, each absorbed
character adding its change minus one to the composite's. Character data is HF's
(Unicode 9): ``char_tables.decompose`` and the probed combining classes.

Not handled here: applying the stream to alignments (``normalizers.NormalizedString``).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Literal

from ..flavors.tables import hf_ccc
from .char_tables import decompose, newer_than_hf

Change = tuple[str, int]


def decomposed_stream(text: str, compat: bool) -> list[Change]:
    """NFD (NFKD when ``compat``) of ``text`` as ``(char, change)`` pairs, HF's order."""
    out: list[tuple[int, str, int]] = []
    for ch in text:
        for i, d in enumerate(decompose(ch, compat)):
            out.append((hf_ccc(ord(d)), d, 1 if i else 0))
    i = 0
    while i < len(out):
        if out[i][0] == 0:
            i += 1
            continue
        start = i
        while i < len(out) and out[i][0] != 0:
            i += 1
        out[start:i] = sorted(out[start:i], key=lambda item: item[0])  # stable
    return [(d, change) for _, d, change in out]


@lru_cache(maxsize=4096)
def compose_pair(first: str, second: str) -> str | None:
    """The primary composite of two characters in HF's data, or None."""
    composed = unicodedata.normalize("NFC", first + second)
    if len(composed) != 1 or newer_than_hf(composed):
        return None
    return composed


def recomposed_stream(stream: list[Change]) -> list[Change]:
    """Canonically compose a decomposed stream, summing changes as HF's crate does."""
    out: list[Change] = []
    pending: list[Change] = []  # blocked non-starters after the composee
    composee: Change | None = None
    last_class: int | None = None
    for ch, change in stream:
        cls = hf_ccc(ord(ch))
        if composee is None:
            if cls:
                out.append((ch, change))
            else:
                composee = (ch, change)
            continue
        blocked = last_class is not None and last_class >= cls
        composite = None if blocked else compose_pair(composee[0], ch)
        if composite is not None:
            composee = (composite, composee[1] + change - 1)
        elif cls == 0:
            out.append(composee)
            out.extend(pending)
            pending, composee, last_class = [], (ch, change), None
        else:
            pending.append((ch, change))
            last_class = cls
    if composee is not None:
        out.append(composee)
    out.extend(pending)
    return out


Form = Literal["NFC", "NFD", "NFKC", "NFKD"]


def normalization_stream(text: str, form: Form) -> list[Change] | None:
    """The change stream of ``form`` over ``text``, or None when it changes nothing."""
    if text.isascii() or unicodedata.is_normalized(form, text):
        return None
    stream = decomposed_stream(text, compat=form in ("NFKC", "NFKD"))
    if form in ("NFC", "NFKC"):
        stream = recomposed_stream(stream)
    return stream
