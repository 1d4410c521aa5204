"""TokenColumns: a finished batch's per-token facts read from its int64 columns."""

from __future__ import annotations

from array import array

import pytest

from wordpieces.encoding.token_columns import TokenColumns

NAMES = {0: "[PAD]", 1: "[CLS]", 2: "[SEP]", 5: "hello", 6: "##s"}


def _columns(words=True):
    rows = [[1, 5, 6, 2], [1, 5, 2, 0]]
    splits = array("q", [0, 4, 8]).tobytes()
    word_ids = array("q", [-1, 0, 0, -1, -1, 0, -1, -1]).tobytes() if words else None
    sequences = array("q", [-1, 0, 0, -1, -1, 0, -1, -1]).tobytes()
    return TokenColumns(rows, NAMES.get, splits, word_ids, sequences)


def test_rows_read_back():
    columns = _columns()
    assert len(columns) == 2
    assert columns.tokens(0) == ["[CLS]", "hello", "##s", "[SEP]"]
    assert columns.word_ids(0) == [None, 0, 0, None]
    assert columns.sequence_ids(1) == [None, 0, None, None]
    assert columns.tokens(-1) == ["[CLS]", "hello", "[SEP]", "[PAD]"]


def test_missing_column_and_bad_row_are_named():
    columns = _columns(words=False)
    assert not columns.has_words and columns.has_sequences
    with pytest.raises(ValueError, match="no word column"):
        columns.word_ids(0)
    with pytest.raises(IndexError, match="batch index 2 is out of range for 2 rows"):
        columns.tokens(2)
