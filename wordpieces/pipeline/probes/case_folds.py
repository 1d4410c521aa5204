"""Probe what HF's Oniguruma matches case-insensitively, for ``make_pattern_tables.py``.

Two questions, answered by live ``tokenizers`` over every assigned code point:

- ``case_fold``: which characters ``(?i)`` makes one another's equals (``k``, ``K`` and
  the Kelvin sign U+212A). Asking each code point alone would take a regex per code
  point over the whole text, so the characters that have any partner are found first
  with classes of half the code space: two characters differing in bit ``k`` of their
  code point are told apart by the class of all code points with that bit set (its
  case-insensitive match takes the partner outside it; the text asked is what lies
  outside, so few characters match). Bits 8..20 are asked over every assigned code
  point, bits 0..7 block by block (256 code points). Each character found is then asked
  alone, among the others found.
- ``case_fold_multi``: which characters ``(?i)`` matches with several (``ß`` and ``ss``,
  ``ﬁ`` and ``fi``): no character class can say that, so a pattern needing it is refused.
  The candidate strings are every full case folding of Python's data of more than one
  character; the characters matching one of them are found over the whole text, then
  each is asked which strings it matches whole.

Unassigned code points (Oniguruma's ``\\p{Cn}``) have no case and are left out.

Not handled here: writing the file (``make_pattern_tables``), using the answers
(``char_tables``, ``patterns``).
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Regex, pre_tokenizers

SEPARATOR = " "  # no case and no fold: between the characters asked about


def ranges_of(cps: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def caseless_class(cps: Iterable[int], ranges: list[tuple[int, int]] | None = None) -> str:
    """``(?i)`` and a bracket class of ``cps`` (or of ``ranges``, when given)."""
    body = "".join(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}"
                   for a, b in (ranges_of(cps) if ranges is None else ranges))
    return f"(?i)[{body}]"


def matched(pattern: str, cps: list[int], separator: str = "") -> set[int]:
    """Code points of ``cps`` that ``pattern`` takes (the gaps ``Split`` leaves).

    Fast when few are taken: the questions below are asked so that they are.
    """
    text = separator.join(map(chr, cps))
    step = len(separator) + 1
    pieces = pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(text)
    out: set[int] = set()
    pos = 0
    for _, (start, end) in [*pieces, ("", (len(text), len(text)))]:
        out.update(cps[i // step] for i in range(pos, start) if i % step == 0)
        pos = end
    return out


def _partnered_across(assigned: list[int], bits: range) -> set[int]:
    found: set[int] = set()
    for bit in bits:
        for value in (0, 1):
            size = 1 << bit
            side = [(start, start + size - 1) for start in range(value * size, 0x110000, 2 * size)]
            others = [cp for cp in assigned if (cp >> bit) & 1 != value]
            found |= matched(caseless_class((), side), others)
    return found


def _partnered_within_blocks(assigned: list[int]) -> set[int]:
    blocks: dict[int, list[int]] = {}
    for cp in assigned:
        blocks.setdefault(cp >> 8, []).append(cp)
    found: set[int] = set()
    for block in blocks.values():
        for bit in range(8):
            for value in (0, 1):
                side = [cp for cp in block if (cp >> bit) & 1 == value]
                others = [cp for cp in block if (cp >> bit) & 1 != value]
                if side and others:
                    found |= matched(caseless_class(side), others)
    return found


def fold_classes(assigned: list[int]) -> list[tuple[int, ...]]:
    """The sets of two or more characters ``(?i)`` takes as equal, each sorted."""
    cased = sorted(_partnered_across(assigned, range(8, 21)) | _partnered_within_blocks(assigned))
    classes: dict[int, frozenset[int]] = {}
    for cp in cased:
        others = [other for other in cased if other != cp]
        classes[cp] = frozenset(matched(caseless_class([cp]), others, SEPARATOR) | {cp})
    for cp, members in classes.items():
        if any(classes[other] != members for other in members):
            raise RuntimeError(f"(?i) is not an equivalence at U+{cp:04X}: {sorted(members)}")
    return sorted({tuple(sorted(m)) for m in classes.values()}, key=lambda m: m[0])


def assigned_code_points(cps: list[int]) -> list[int]:
    """The code points Oniguruma knows (not ``\\p{Cn}``)."""
    unassigned = matched(r"\p{Cn}", cps)
    return [cp for cp in cps if cp not in unassigned]


def candidate_strings() -> list[str]:
    """Every several-character full case folding (or lowercasing) in Python's data."""
    out: set[str] = set()
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        out.update(s for s in (chr(cp).casefold(), chr(cp).lower()) if len(s) > 1)
    return sorted(out)


def _literal(text: str) -> str:
    return "".join(f"\\x{{{ord(c):x}}}" for c in text)


def multi_folds(assigned: list[int]) -> dict[int, str]:
    """Each character ``(?i)`` matches with a string of several: the string."""
    strings = candidate_strings()
    either = "(?i)(?:" + "|".join(_literal(s) for s in strings) + ")"
    text = SEPARATOR.join(strings)
    out = {}
    for cp in sorted(matched(either, assigned)):
        pieces = pre_tokenizers.Split(Regex("(?i)" + _literal(chr(cp))),
                                      "isolated").pre_tokenize_str(text)
        whole = sorted(w for w, _ in pieces if w in strings)
        if whole:
            out[cp] = whole[0]
    return out
