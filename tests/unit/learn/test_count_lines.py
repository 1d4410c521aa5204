"""count_lines: the one rule of a word<TAB>count line (counts files, checkpoint blocks)."""

from __future__ import annotations

import pytest

from wordpieces.errors import FormatError
from wordpieces.learn.count_lines import MAX_COUNT_DIGITS, parse_count_line


def test_a_good_line():
    assert parse_count_line("f:1", "naïve\t12") == ("naïve", 12)


@pytest.mark.parametrize("line, problem", [
    ("hello", "expected 'word<TAB>count'"),
    ("hello\t١٢", "expected 'word<TAB>count'"),
    ("hello\t1_000", "expected 'word<TAB>count'"),
    ("hello\t" + "9" * (MAX_COUNT_DIGITS + 1), f"the count has {MAX_COUNT_DIGITS + 1} digits"),
    ("\t3", "word '' is empty"),
    ("a b\t3", "word 'a b' is empty or holds ASCII whitespace"),
])
def test_a_bad_line_is_named(line, problem):
    with pytest.raises(FormatError, match=rf"^f:7: {problem}"):
        parse_count_line("f:7", line)


def test_the_largest_count_is_read():
    assert parse_count_line("f:1", "a\t" + "9" * MAX_COUNT_DIGITS)[1] == 10 ** 19 - 1
