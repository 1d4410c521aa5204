"""Probe a reference's Unicode facts through its public API (shared by the generators).

Used by ``make_hf_tables.py`` and ``make_tf_tables.py``, which import it from this
package (run them with ``python -m``). Every probe feeds the reference the input and records what
comes out; Python's ``unicodedata`` is used only to pick test inputs, never as an answer.

Not handled here: the file format (``flavors.table_file``), the references themselves.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

from ..table_file import HANGUL, HANGUL_FIRST, HANGUL_LAST, hangul_decomposition

Batch = Callable[[list[str]], list[str]]

# Two combining marks every Unicode version has: the lowest and highest classes in use.
LOWEST_MARK, HIGHEST_MARK = "\u0334", "\u0345"  # ccc 1 and ccc 240


def all_code_points() -> list[int]:
    """Every code point but the surrogates, which no reference accepts as text."""
    return [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def changes(cps: list[int], results: list[str]) -> dict[int, str]:
    """Keep the code points whose result is not the character itself."""
    return {cp: r for cp, r in zip(cps, results, strict=True) if r != chr(cp)}


def with_hangul(mapping: dict[int, str]) -> dict[int, str]:
    """Replace results equal to the algorithmic Hangul decomposition by the marker."""
    out = dict(mapping)
    for cp in range(HANGUL_FIRST, HANGUL_LAST + 1):
        if out.get(cp) == hangul_decomposition(cp):
            out[cp] = HANGUL
    return out


def _swaps(nfd: Batch, pairs: list[tuple[str, str]]) -> list[bool]:
    """For each (a, b), tell whether NFD reorders ``"x" + a + b`` (so ccc(a) > ccc(b) > 0).

    ``a`` and ``b`` are NFD-stable, so each three-character piece keeps its length and
    the starter ``x`` stops reordering across pieces: many pieces go in one string.
    """
    flags: list[bool] = []
    for i in range(0, len(pairs), 50_000):
        pieces = ["x" + a + b for a, b in pairs[i:i + 50_000]]
        text = "".join(pieces)
        (out,) = nfd([text])
        if len(out) != len(text):
            raise AssertionError("NFD changed the length of NFD-stable text")
        flags.extend(out[3 * k:3 * k + 3] != p for k, p in enumerate(pieces))
    return flags


def probe_ccc(nfd: Batch, stable: list[int]) -> dict[int, int]:
    """Return the nonzero canonical combining class of each NFD-stable code point.

    The reference's NFD reorders adjacent marks by class, so a character is a nonzero
    class exactly when it swaps with U+0334 (class 1) or U+0345 (class 240); its class
    is then the one of the representative mark it never swaps with.
    """
    chars = [chr(cp) for cp in stable]
    after_low = _swaps(nfd, [(c, LOWEST_MARK) for c in chars])
    before_high = _swaps(nfd, [(HIGHEST_MARK, c) for c in chars])
    nonzero = {c for c, a, b in zip(chars, after_low, before_high, strict=True) if a or b}
    marks = sorted(nonzero | {LOWEST_MARK, HIGHEST_MARK})
    reps: dict[int, str] = {}
    for c in marks:
        reps.setdefault(unicodedata.combining(c), c)
    reps.pop(0, None)
    pairs = [(c, r) for c in marks for r in reps.values()]
    forward = _swaps(nfd, pairs)
    backward = _swaps(nfd, [(r, c) for c, r in pairs])
    classes: dict[int, int] = {}
    for (c, r), f, b in zip(pairs, forward, backward, strict=True):
        if not f and not b:
            if ord(c) in classes:
                raise AssertionError(f"U+{ord(c):04X} ties with two representative classes")
            classes[ord(c)] = unicodedata.combining(r)
    missing = [f"U+{ord(c):04X}" for c in marks if ord(c) not in classes]
    if missing:
        raise AssertionError(f"no representative class found for {missing[:10]}")
    return classes


def reorder_and_drop(text_items: list[str], ccc: dict[int, int], dropped) -> str:
    """Canonically reorder ``text_items`` (already decomposed) and drop marks; the model."""
    out: list[str] = []
    run: list[str] = []
    for c in text_items:
        cls = ccc.get(ord(c), 0)
        if cls == 0:
            out.extend(sorted(run, key=lambda m: ccc[ord(m)]))
            run = []
            out.append(c)
        else:
            run.append(c)
    out.extend(sorted(run, key=lambda m: ccc[ord(m)]))
    return "".join(c for c in out if not dropped(ord(c)))


def check_each(cps: list[int], got: list[str], decomposition: dict[int, str],
               ccc: dict[int, int], dropped: set[int], what: str) -> None:
    """Check the model (decompose, reorder, drop) on every single code point."""
    for cp, result in zip(cps, got, strict=True):
        parts = decomposition.get(cp)
        if parts is None:
            want = "" if cp in dropped else chr(cp)
        else:
            want = reorder_and_drop(list(parts), ccc, dropped.__contains__)
        assert result == want, f"{what}(U+{cp:04X}) = {result!r}, model says {want!r}"


def movable(decomposition: dict[int, str], ccc: dict[int, int], dropped: set[int]):
    """Code points whose result keeps a nonzero-class mark, which NFD may move."""
    kept_marks = {cp for cp, cls in ccc.items() if cls and cp not in dropped}
    found = set(kept_marks) - set(decomposition)
    found.update(cp for cp, parts in decomposition.items()
                 if any(ord(c) in kept_marks for c in parts))
    return sorted(found)


def check_pairs(strip: Batch, decompose, ccc: dict[int, int], dropped, chars: list[int],
                middles: str = "") -> int:
    """Check the model on ``"x" + a + m + b`` for chars a, b and m in ``middles`` or none.

    Raises ``AssertionError`` on the first miss; returns how many inputs were checked.
    """
    cases = [(chr(a), m, chr(b)) for a in chars for b in chars for m in ["", *middles]]
    got = strip(["x" + a + m + b for a, m, b in cases])
    for (a, m, b), g in zip(cases, got, strict=True):
        items = "x" + decompose(a) + decompose(m) + decompose(b) if m else \
            "x" + decompose(a) + decompose(b)
        want = reorder_and_drop(list(items), ccc, dropped)
        if g != want:
            raise AssertionError(f"reordering model misses {a + m + b!r}: {g!r} != {want!r}")
    return len(cases)


def write_table(filename: str, build, argv: list[str]) -> None:
    """Write ``build()``'s table as ``filename`` in ``argv[1]`` (default: ``flavors/data``)."""
    out_dir = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "data"
    path = out_dir / filename
    path.write_text(build(), encoding="ascii", newline="\n")
    print(f"wrote {path}", file=sys.stderr)
