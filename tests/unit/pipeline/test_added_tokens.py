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


# ------------------------------------------------ defaults as HF's (issue 11, item 3)


@pytest.mark.parametrize("kwargs", [dict(), dict(special=True), dict(special=False),
                                    dict(normalized=False), dict(special=True, normalized=True),
                                    dict(lstrip=True, single_word=True)])
def test_defaults_match_tokenizers(kwargs):
    """AddedToken(...) has the flags tokenizers.AddedToken(...) has, for the same arguments."""
    ours, theirs = AddedToken("<x>", **kwargs), hf.AddedToken("<x>", **kwargs)
    for flag in ("special", "normalized", "lstrip", "rstrip", "single_word"):
        assert getattr(ours, flag) == getattr(theirs, flag), flag


def _with_added(add: str, token_kwargs: dict):
    ours, theirs = minilm_pair()
    for tok in (ours, theirs):
        tok.no_padding()
        tok.no_truncation()
    getattr(ours, add)([AddedToken("<x>", **token_kwargs)])
    getattr(theirs, add)([hf.AddedToken("<x>", **token_kwargs)])
    return ours, theirs


ADD_CASES = [("add_tokens", {}), ("add_special_tokens", {}),
             ("add_tokens", {"special": True}), ("add_special_tokens", {"normalized": True})]


@pytest.mark.shared_data
@pytest.mark.parametrize("add,token_kwargs", ADD_CASES)
def test_added_token_flags_as_hf(add, token_kwargs):
    """add_tokens keeps an AddedToken's flags; add_special_tokens makes it special, as HF."""
    ours, theirs = _with_added(add, token_kwargs)
    [entry] = [t for t in ours.added_tokens if t.content == "<x>"]
    [hf_entry] = [t for t in theirs.get_added_tokens_decoder().values() if t.content == "<x>"]
    assert (entry.special, entry.normalized) == (hf_entry.special, hf_entry.normalized)


@pytest.mark.shared_data
@pytest.mark.parametrize("add,token_kwargs", ADD_CASES)
def test_decode_keeps_plain_added_tokens(add, token_kwargs):
    """'hello <x> done' decodes as HF does: a plain added token stays, a special one goes."""
    ours, theirs = _with_added(add, token_kwargs)
    for text in ("hello <x> done", "HELLO <X> done"):
        ids = ours.encode(text).ids
        assert ids == theirs.encode(text).ids
        assert ours.decode(ids) == theirs.decode(ids)


@pytest.mark.shared_data
@pytest.mark.parametrize("add,token_kwargs", ADD_CASES)
def test_saved_and_reloaded_added_tokens_as_hf(tmp_path, add, token_kwargs):
    """Saved: the entry is HF's; reloaded (by us and by HF): same encodings and decoding."""
    import json

    from tests.hf_reference import fields, sample_lines
    from wordpieces.formats.load import load

    ours, theirs = _with_added(add, token_kwargs)
    ours.save(tmp_path / "ours")
    theirs.save(str(tmp_path / "theirs.json"))
    saved = json.loads((tmp_path / "ours" / "tokenizer.json").read_text())["added_tokens"]
    expected = json.loads((tmp_path / "theirs.json").read_text())["added_tokens"]
    assert saved == expected
    reloaded = load(tmp_path / "ours")
    hf_reloaded = hf.Tokenizer.from_file(str(tmp_path / "ours" / "tokenizer.json"))
    for line in sample_lines("english", 20, seed=2):
        text = line.replace(" the ", " <x> ").replace(" a ", " <X> ")
        assert fields(reloaded.encode(text)) == fields(hf_reloaded.encode(text))
        ids = reloaded.encode(text).ids
        assert reloaded.decode(ids) == hf_reloaded.decode(ids)
