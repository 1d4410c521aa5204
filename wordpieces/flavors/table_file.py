"""Read and write the character-table files shipped in ``wordpieces/flavors/data/``.

A table file holds, per reference, only what differs from identity: sets of code points
as ranges, and maps from a code point to its result. It is plain ASCII so that a diff
shows exactly which characters a new reference version changed::

    # comment
    @section
    0041            one code point (hex)
    0300..036F      an inclusive range
    00C0<TAB>0041 0300      map: code point -> result code points (hex, space-separated)
    0300..036F<TAB>         map: a range with one shared result (here: deleted)
    AC00..D7A3<TAB>hangul   map: the algorithmic Hangul syllable decomposition
    0300..0314<TAB>230      map to a decimal number (canonical combining classes)

Which sections hold numbers and which hold results is up to the reader.

The generators (``make_hf_tables.py``, ``make_tf_tables.py``) write with
``format_table``; ``wordpieces.flavors.tables`` reads with ``parse_table``.

Not handled here: what the sections mean (``wordpieces.flavors.tables``), probing (the generators).
"""

from __future__ import annotations

from collections.abc import Mapping

HANGUL = "hangul"
_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_V_COUNT, _T_COUNT = 21, 28
_N_COUNT = _V_COUNT * _T_COUNT
HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3


def hangul_decomposition(cp: int) -> str:
    """Decompose a precomposed Hangul syllable into its jamo (Unicode §3.12)."""
    index = cp - _S_BASE
    lead = chr(_L_BASE + index // _N_COUNT)
    vowel = chr(_V_BASE + (index % _N_COUNT) // _T_COUNT)
    trail = index % _T_COUNT
    return lead + vowel + (chr(_T_BASE + trail) if trail else "")


def _hex(cp: int) -> str:
    return f"{cp:04X}"


def _runs(items):
    """Group sorted (cp, value) pairs into (first, last, value) runs of equal values."""
    runs: list[list] = []
    for cp, value in items:
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == value:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, value])
    return runs


def _key(first: int, last: int) -> str:
    return _hex(first) if first == last else f"{_hex(first)}..{_hex(last)}"


def format_set(cps) -> list[str]:
    """Lines for a set of code points, as maximal ranges."""
    return [_key(a, b) for a, b, _ in _runs((cp, None) for cp in sorted(cps))]


def format_map(mapping: Mapping[int, str | int]) -> list[str]:
    """Lines for a map; equal results of consecutive code points share one range line."""
    lines = []
    for a, b, value in _runs(sorted(mapping.items())):
        if isinstance(value, int):
            text = str(value)
        elif value == HANGUL:
            text = HANGUL
        else:
            text = " ".join(_hex(ord(c)) for c in value)
        lines.append(f"{_key(a, b)}\t{text}")
    return lines


def format_table(header: list[str], sections: dict[str, list[str]]) -> str:
    """Assemble a whole file from comment lines and formatted sections."""
    out = [f"# {line}".rstrip() for line in header]
    for name, lines in sections.items():
        out.append(f"@{name}")
        out.extend(lines)
    return "\n".join(out) + "\n"


def _parse_key(key: str) -> tuple[int, int]:
    first, _, last = key.partition("..")
    return int(first, 16), int(last or first, 16)


def decode_result(value: str, cp: int) -> str:
    """Turn a map value into the result string of code point ``cp``."""
    if value == HANGUL:
        return hangul_decomposition(cp)
    return "".join(chr(int(h, 16)) for h in value.split())


def parse_table(text: str, source: str = "<table>") -> dict[str, list[tuple]]:
    """Parse a table file into ``{section: [(first, last) or (first, last, value)]}``.

    Values stay raw strings: the reader knows whether a section holds results
    (``decode_result``) or numbers (``int``). A malformed line raises ``ValueError``
    naming the file and line.
    """
    sections: dict[str, list[tuple]] = {}
    current: list[tuple] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line or line.startswith("#"):
            continue
        try:
            if line.startswith("@"):
                current = sections.setdefault(line[1:].strip(), [])
                continue
            if current is None:
                raise ValueError("entry before the first @section")
            key, tab, value = line.partition("\t")
            first, last = _parse_key(key)
            if last < first or last > 0x10FFFF:
                raise ValueError("bad range")
            current.append((first, last, value) if tab else (first, last))
        except ValueError as e:
            raise ValueError(f"{source}:{number}: bad table line {line!r}: {e}") from None
    return sections
