"""strict_json: nesting depth and lone surrogates are refused by JSON path."""

from __future__ import annotations

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats.strict_json import MAX_DEPTH, parse_json


def _nested(depth: int) -> str:
    return '{"a": ' * (depth - 1) + "[1]" + "}" * (depth - 1)


def test_nesting_up_to_the_limit_is_read():
    value = parse_json(_nested(MAX_DEPTH), "f.json")
    for _ in range(MAX_DEPTH - 1):
        value = value["a"]
    assert value == [1]


def test_nesting_past_the_limit_names_the_deepest_path():
    with pytest.raises(FormatError, match=r"f\.json: a\.a\.a.*: arrays and objects nested "
                                          r"more than 64 deep"):
        parse_json(_nested(MAX_DEPTH + 1), "f.json")


def test_brackets_past_the_stack_are_a_format_error():
    with pytest.raises(FormatError, match=r"f\.json: invalid JSON: nested more than 64"):
        parse_json("[" * 100000, "f.json")


@pytest.mark.parametrize("text, where", [
    ('{"a": ["x", "\\ud800"]}', r"a\[1\]: the string"),
    ('{"m": {"k\\udfff": 1}}', r"m\['k\\udfff'\]: the key"),
    ('"\\udc00"', r"\(top\): the string"),
])
def test_a_lone_surrogate_is_named_by_path(text, where):
    with pytest.raises(FormatError, match=rf"f\.json: {where} .* lone surrogate"):
        parse_json(text, "f.json")


def test_an_escaped_surrogate_pair_is_one_character():
    assert parse_json('{"\\ud83d\\ude00": "\\ud83d\\ude00"}', "f.json") == {"😀": "😀"}
