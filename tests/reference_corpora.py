"""Sample real text from the shared corpora for the flavors' differential tests.

Lines are read as the golden scripts read them (UTF-8 with an optional BOM, line ends
stripped, blank lines skipped) and spread evenly over each corpus, so a sample of a few
thousand lines still reaches the end of a book. A corpus that is absent (the Japanese
novel is kept aside for validation) skips its tests.
"""

from __future__ import annotations

from functools import cache

import pytest

from tests.shared_data import CORPORA as CORPORA_DIR
from tests.shared_data import shared_path

LIMIT = 3000
PER_UDHR_FILE = 15

# name -> glob patterns under ../shared/corpora
CORPORA = {
    "english_wikitext": ["english/wikitext2/wiki.test.raw"],
    "english_gutenberg": ["english/gutenberg/pg2701_melville_moby_dick.txt"],
    "portuguese": ["portuguese/eca_de_queiros_o_primo_basilio.txt"],
    "chinese": ["multilingual/zh_cao_xueqin_hongloumeng.txt"],
    "japanese": ["multilingual/ja_*.txt"],
    "udhr": ["multilingual/udhr/*.txt", "multilingual/udhr2/*.txt"],
    "emoji": ["multilingual/emoji-test-13.1.txt"],
}


def _lines(path) -> list[str]:
    with open(path, encoding="utf-8-sig") as f:
        stripped = (line.rstrip("\r\n") for line in f)
        return [line for line in stripped if line.strip()]


def _spread(lines: list[str], limit: int) -> list[str]:
    """Pick ``limit`` lines evenly spaced over ``lines`` (all of them if fewer)."""
    if len(lines) <= limit:
        return lines
    step = len(lines) / limit
    return [lines[int(i * step)] for i in range(limit)]


@cache
def _sample(name: str) -> tuple[str, ...]:
    files = sorted(p for pattern in CORPORA[name] for p in CORPORA_DIR.glob(pattern))
    if name == "udhr":  # every language, a few lines each
        return tuple(line for p in files for line in _spread(_lines(p), PER_UDHR_FILE))
    return tuple(_spread([line for p in files for line in _lines(p)], LIMIT))


def sample_lines(name: str) -> list[str]:
    """Return the sampled lines of corpus ``name``, skipping the test if it is absent."""
    shared_path("corpora")  # counted as a read of ../shared; skips when it is absent
    lines = _sample(name)
    if not lines:
        pytest.skip(f"corpus {name!r} not found under {CORPORA_DIR}")
    return list(lines)
