"""Added tokens kept whole in text: HF's matching rules (leftmost-longest, strip flags,
single_word, normalized) against HF's AddedVocabulary through a live tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hf_reference import fields, minilm_pair
from wordpieces.pipeline.added_tokens import AddedToken, AddedVocabulary

hf = pytest.importorskip("tokenizers")

FLAG_SETS = [dict(), dict(lstrip=True), dict(rstrip=True), dict(lstrip=True, rstrip=True),
             dict(single_word=True), dict(normalized=True, special=False),
             dict(normalized=True, single_word=True, special=False)]
CONTENTS = ["<mask>", "<m>", "Xy", "tok en", "ab"]


class _Cases(list):
    def __repr__(self) -> str:  # keep hypothesis' falsifying-example report short
        return f"<{len(self)} tokenizer pairs>"


@pytest.fixture(scope="module")
def tokenizers_with_added():
    out = _Cases()
    for flags in FLAG_SETS:
        ours, theirs = minilm_pair()
        for tok in (ours, theirs):
            tok.no_padding()
            tok.no_truncation()
        ours.add_special_tokens([AddedToken(c, **flags) for c in CONTENTS])
        theirs.add_special_tokens([hf.AddedToken(c, **flags) for c in CONTENTS])
        out.append((flags, ours, theirs))
    return out


_pieces = st.sampled_from(["<mask>", "<m>", "<mask", "XY", "Xy", "xy", "tok en", "TOK EN", "ab",
                           "abab", "cab", " ", "  ", "\t", "hello", "Wörld", "[MASK]", "_",
                           "é", "!"])
_texts = st.lists(_pieces, max_size=10).map("".join)


@pytest.mark.shared_data
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts)
def test_added_tokens_match_hf(tokenizers_with_added, text):
    """Encodings of text full of added tokens equal HF's, for every flag combination."""
    for flags, ours, theirs in tokenizers_with_added:
        assert fields(ours.encode(text)) == fields(theirs.encode(text)), flags


def _raw(content: str) -> AddedToken:
    """A token matched in the original text (``split``), as special tokens are."""
    return AddedToken(content, special=True)


def test_leftmost_longest():
    """At one position the longest token wins; an earlier start wins over a longer one."""
    vocab = AddedVocabulary([(_raw("ab"), 1), (_raw("abc"), 2), (_raw("bcd"), 3)])
    assert vocab.split("xabcd") == [(0, 1, None), (1, 4, 2), (4, 5, None)]


def test_no_tokens_means_one_segment():
    """Without added tokens the text is one plain segment."""
    assert AddedVocabulary([]).split("abc") == [(0, 3, None)]


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(st.sampled_from("[MASK]x \x00"), max_size=12), max_size=6),
       contents=st.sampled_from([["[MASK]"], ["[MASK]", "a\x00b"], []]))
def test_batch_search_agrees_with_each_text(texts, contents):
    """appears_in_any is True whenever a token is written in one of the texts."""
    vocab = AddedVocabulary([(_raw(c), i) for i, c in enumerate(contents)])
    if any(vocab.appears_in(t) for t in texts):
        assert vocab.appears_in_any(texts)
    if not contents:
        assert not vocab.appears_in_any(texts)
