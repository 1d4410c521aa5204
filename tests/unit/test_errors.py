"""The checks shared by every entry point refuse bad values by name."""

import pytest

from wordpieces.errors import check_thread_count


@pytest.mark.parametrize("value", [None, 1, 2, 64])
def test_thread_count_accepts_none_and_positive_ints(value):
    """None (the default: let the caller choose) and ints >= 1 pass through unchanged."""
    assert check_thread_count(value) is value


@pytest.mark.parametrize("value", [0, -3, True, False, 2.0, "2"], ids=repr)
def test_thread_count_refuses_everything_else_naming_it(value):
    """Zero, negatives, bools, floats and strings are refused, naming the option and value."""
    with pytest.raises(ValueError, match=rf"num_proc must be a positive integer or None, "
                                         rf"got {value!r}"):
        check_thread_count(value, "num_proc")
