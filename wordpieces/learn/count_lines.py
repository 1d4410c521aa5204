"""Check one ``word<TAB>count`` line: the one rule of counts files and checkpoint blocks.

``WordCounts.load`` (``counting``) and a checkpoint's recorded blocks (``checkpoint``)
hold the same lines, so both refuse the same things with the same words: a count that is
not ASCII digits, a count over ``MAX_COUNT_DIGITS`` digits (a checkpoint must never
write counts that its own ``train`` refuses), and a word that is empty or holds ASCII
whitespace (no pre-tokenizer gives one, and ``vocab.txt`` cannot hold it).

Not handled here: the files around the lines (headers, duplicates, line numbers: the
callers name ``where``).
"""

from __future__ import annotations

import re

from ..errors import FormatError

COUNT = re.compile(r"[0-9]+\Z")  # ASCII digits only: int() would take "٣" or "1_000"
MAX_COUNT_DIGITS = 19  # counts up to 9,999,999,999,999,999,999 (more than 2**63)
# A counted word is never empty and never holds ASCII whitespace: every pre-tokenizer
# this package counts with splits there (each flavor differs only beyond ASCII: TF Text
# keeps U+00A0 inside a word), and vocab.txt cannot hold a token ending in it.
WORD_BREAK = re.compile(r"[ \t\n\r\x0b\x0c]|\A\Z")


def shown(line: str) -> str:
    """``repr`` of a line for a message, cut to 80 characters."""
    return repr(line if len(line) <= 80 else line[:77] + "...")


def parse_count_line(where: str, line: str) -> tuple[str, int]:
    """One ``word<TAB>count`` line (no line end), checked; errors start with ``where``."""
    word, tab, count = line.rpartition("\t")
    if not tab or not COUNT.match(count):
        raise FormatError(f"{where}: expected 'word<TAB>count' with a count of digits 0-9, "
                          f"got {shown(line)}")
    if len(count) > MAX_COUNT_DIGITS:
        raise FormatError(f"{where}: the count has {len(count)} digits (at most "
                          f"{MAX_COUNT_DIGITS})")
    if WORD_BREAK.search(word):
        raise FormatError(f"{where}: word {word!r} is empty or holds ASCII whitespace: no "
                          "pre-tokenizer gives such a word, and a vocabulary cannot hold it")
    return word, int(count)
