"""Pre-split words checked, copied and flattened in C: the same as the Python reference.

``backend.word_items`` (``call._word_items``' fast path) and ``backend.words_columns``
(``batches.words_columns``') against ``call.reference_word_items`` and
``batches.reference_words_columns``, on generated batches: plain ones (lists and tuples
of str, pairs or not, empty rows) must take C; anything else (a str subclass, a number,
a ragged pair list) must be left to the reference, which raises its error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.encode import batches, call
from wordpieces.fast import backend

pytestmark = pytest.mark.skipif(backend.backend() == "python",
                                reason="needs the native extension")


class Word(str):
    """A str subclass: the reference accepts it, C leaves it to the reference."""


words = st.lists(st.text(max_size=4), max_size=5)
rows = st.lists(words.map(tuple) | words, min_size=1, max_size=6)


def _pairs_for(batch):
    return st.one_of(st.none(), st.lists(st.none() | words, min_size=len(batch),
                                         max_size=len(batch)))


def _columns_equal(got, expected) -> None:
    texts, pair_rows, groups = got
    assert texts == expected[0]
    assert (None if pair_rows is None else bytes(pair_rows)) == expected[1]
    assert bytes(groups) == expected[2]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_plain_batches_take_c_and_give_the_reference(data):
    batch = data.draw(rows)
    pairs = data.draw(_pairs_for(batch))
    items = backend.word_items(batch, pairs)
    assert items is not None
    assert items == call.reference_word_items(batch, pairs, True)
    assert all(type(words) is list for item in items for words in item if words is not None)
    assert items[0][0] is not batch[0]  # copied: a later change to the input is not seen
    _columns_equal(backend.words_columns(items), batches.reference_words_columns(items))


@pytest.mark.parametrize("batch, pairs", [
    ([["a", Word("b")]], None),
    ([["a", 3]], None),
    ([["a"], "b c"], None),
    ([["a"]], [["b"], ["c"]]),
    ([["a"]], ("b",)),
    ([["a"]], [[Word("b")]]),
    ([["a"]], [["b", None]]),
])
def test_anything_else_is_left_to_the_reference(batch, pairs):
    assert backend.word_items(batch, pairs) is None


def test_the_call_gives_the_reference_errors_and_items():
    with pytest.raises(TypeError, match=r"text\[1\]\[0\] must be a str"):
        call._word_items([["a"], [3]], None)
    items, batched = call._word_items([["a", Word("b")]], None)
    assert batched and items == [(["a", "b"], None)]


@pytest.mark.parametrize("items", [[("a", None)], [(["a"], ["b"], None)], [(["a"], "b")]])
def test_words_columns_leaves_other_shapes_to_the_reference(items):
    assert backend.words_columns(items) is None
