"""pipeline.char_forms: stages read as per-character facts, or the reason they cannot be."""

from __future__ import annotations

import pytest

from wordpieces.pipeline import normalizers as n
from wordpieces.pipeline import pre_tokenizers as p
from wordpieces.pipeline.char_forms import MAX_CHAR_GROWTH, char_class_form, charwise_form
from wordpieces.pipeline.edit_normalizers import Prepend, Replace, Strip
from wordpieces.pipeline.normalizers import CharwiseNormalizer
from wordpieces.pipeline.pre_tokenizers import ISOLATE, SPACE, WORD, CharClassPreTokenizer


def test_generic_stages_meet_the_fused_contracts_through_their_forms():
    """The forms are what the fast paths read: they meet the narrow protocols."""
    assert isinstance(charwise_form(n.Lowercase()), CharwiseNormalizer)
    assert isinstance(char_class_form(p.Whitespace()), CharClassPreTokenizer)


def test_a_sequence_maps_a_character_through_each_stage_in_order():
    """NFD then StripAccents then Lowercase, as HF runs them, one character at a time."""
    form = charwise_form(n.Sequence([n.NFD(), n.StripAccents(), n.Lowercase()]))
    assert [form.mapped(c) for c in "ÉñA\u212b"] == ["e", "n", "a", "a"]
    assert "É" not in form.context_chars


@pytest.mark.parametrize("normalizer, ch", [
    (n.NFD(), "\u0301"),           # a non-starter: NFD reorders it with the marks before
    (n.NFC(), "\u1161"),           # a Hangul vowel: composes with the consonant before
    (n.NFKC(), "\u0308"),          # composes with the letter before
    (n.Sequence([n.Lowercase(), n.NFC()]), "\u0130"),  # İ -> i + U+0307, then NFC
    (n.BertNormalizer(), "\u03a3"),  # final sigma (BERT's own context rule)
    (n.Sequence([n.BertNormalizer(), n.NFD()]), "\u03a3"),
])
def test_characters_treated_with_their_neighbours_are_context(normalizer, ch):
    """Such a character sends its texts to the general path."""
    form = charwise_form(normalizer)
    assert ch in form.context_chars


def test_a_starter_that_composes_with_nothing_before_it_is_not_context():
    """é, ﬁ and a Hangul syllable map alone under NFC/NFKC (they start with a starter)."""
    form = charwise_form(n.Sequence([n.NFKC()]))
    assert not any(c in form.context_chars for c in "é\ufb01\uac00a")
    assert form.mapped("\ufb01") == "fi"


def test_a_character_growing_past_the_cap_factor_is_context():
    """The general path keeps raising the growth cap's error."""
    form = charwise_form(n.Sequence([Replace("a", "b" * (MAX_CHAR_GROWTH + 1))]))
    assert "a" in form.context_chars and "b" not in form.context_chars


@pytest.mark.parametrize("normalizer, words", [
    (Strip(), "normalizer Strip"),
    (n.Sequence([n.NFC(), Prepend("_")]), "normalizer Prepend"),
    (Replace("ab", "c"), "normalizer Replace"),
    (Replace(r"\s", " ", regex=True), "normalizer Replace"),
])
def test_other_normalizers_say_which_stage(normalizer, words):
    """The reason names the stage that is not a function of one character."""
    why = charwise_form(normalizer)
    assert isinstance(why, str) and words in why


def test_whitespace_has_word_and_symbol_runs():
    """HF's \\w+|[^\\w\\s]+: two run classes, spaces dropped."""
    form = char_class_form(p.Whitespace())
    classes = [form.classes[ord(c)] for c in "a_1!? "]
    assert classes[:3] == [WORD] * 3 and classes[3] == classes[4] != WORD
    assert classes[5] == SPACE


def test_a_sequence_refines_the_first_members_classes():
    """BertPreTokenizer then Digits: digits become a run class of their own."""
    form = char_class_form(p.Sequence([p.BertPreTokenizer(flavor="huggingface"),
                                       p.Digits()]))
    classes = [form.classes[ord(c)] for c in "a1!\t"]
    assert classes[0] == WORD and classes[1] not in (WORD, SPACE, ISOLATE)
    assert classes[2:] == [ISOLATE, SPACE]
    individual = char_class_form(p.Sequence([p.BertPreTokenizer(), p.Digits(True)]))
    assert individual.classes[ord("7")] == ISOLATE


@pytest.mark.parametrize("pre, cls", [
    (p.Punctuation("isolated"), ISOLATE), (p.Punctuation("removed"), SPACE),
    (p.Split("-", "isolated", regex=False), ISOLATE), (p.Split(r"\p{P}", "removed"), SPACE),
    (p.CharDelimiterSplit("-"), SPACE),
])
def test_single_character_splits_are_classes(pre, cls):
    """Each match is a class: isolated, removed (a space) — the rest word runs."""
    form = char_class_form(pre)
    assert form.classes[ord("-")] == cls and form.classes[ord("a")] == WORD


@pytest.mark.parametrize("pre, words", [
    (p.Metaspace(), "pre_tokenizer Metaspace"),
    (p.Split(r"\w+|\d", "isolated"), "is a general regex"),
    (p.Punctuation("merged_with_next"), "merged_with_next"),
    (p.Split(r"\w", "removed", invert=True), "invert"),
    (p.Sequence([p.WhitespaceSplit(), p.Metaspace()]), "pre_tokenizer Metaspace"),
])
def test_other_pre_tokenizers_say_which_stage(pre, words):
    """The reason names the stage that is not a matter of character classes."""
    why = char_class_form(pre)
    assert isinstance(why, str) and words in why
