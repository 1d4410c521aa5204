"""Added tokens with ``lstrip``/``rstrip``/``single_word`` are found in one scan, as before.

The reference is the old matcher, which searched from the text's start for every match
(``\\w\\Z`` and ``\\s*\\Z`` over ``text[:start]``: quadratic) and agrees with HF
``tokenizers`` (``test_added_tokens.py``); the one-scan code must cut the same segments.
Also ``str(AddedToken)``, as ``tokenizers.AddedToken`` gives it.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.pipeline.added_tokens import AddedToken, AddedVocabulary

hf = pytest.importorskip("tokenizers")

_WORD_AT_END, _WORD_AT_START = re.compile(r"\w\Z"), re.compile(r"\w")
_SPACES_AT_END, _SPACES_AT_START = re.compile(r"\s*\Z"), re.compile(r"\s*")


def _old_split(tokens: list[tuple[AddedToken, int]], text: str) -> list:
    """The old ``split``: each match stretched by searching ``text`` from its start."""
    by_text = {t.content: (t, i) for t, i in tokens}
    unique = sorted(by_text, key=lambda c: (-len(c), c))
    pattern = re.compile("|".join(map(re.escape, unique)))
    segments, pos = [], 0
    for m in pattern.finditer(text):
        token, id_ = by_text[m.group()]
        start, stop = m.start(), m.end()
        if token.single_word and (
                (start > 0 and _WORD_AT_END.search(text, 0, start) is not None)
                or (stop < len(text) and _WORD_AT_START.match(text, stop) is not None)):
            continue
        if token.lstrip:
            start = max(_SPACES_AT_END.search(text, 0, start).start(), pos)
        if token.rstrip:
            stop = _SPACES_AT_START.match(text, stop).end()
        if pos < start:
            segments.append((pos, start, None))
        segments.append((start, stop, id_))
        pos = stop
    if pos < len(text):
        segments.append((pos, len(text), None))
    return segments or [(0, len(text), None)]


FLAGS = st.fixed_dictionaries({"lstrip": st.booleans(), "rstrip": st.booleans(),
                               "single_word": st.booleans()})


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab x\t\u3000é.", max_size=50),
       first=FLAGS, second=FLAGS, contents=st.sampled_from([("ab", "x"), ("a", "b a"),
                                                            (" x", "b"), ("é", "ab ")]))
def test_one_scan_cuts_the_segments_the_old_search_cut(text, first, second, contents):
    """Every combination of strips and single_word, on two tokens: the same segments."""
    tokens = [(AddedToken(contents[0], normalized=False, **first), 10),
              (AddedToken(contents[1], normalized=False, **second), 11)]
    assert AddedVocabulary(tokens).split(text) == _old_split(tokens, text)


@pytest.mark.parametrize("kwargs", [{}, {"lstrip": True, "special": True}])
def test_str_of_an_added_token_is_its_content_as_in_tokenizers(kwargs):
    """str(AddedToken("<x>")) is '<x>', as tokenizers.AddedToken's."""
    assert str(AddedToken("<x>", **kwargs)) == str(hf.AddedToken("<x>", **kwargs)) == "<x>"
    assert f"{AddedToken('[MASK]', **kwargs)}" == "[MASK]"
