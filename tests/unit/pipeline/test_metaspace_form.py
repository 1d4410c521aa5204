"""pipeline.metaspace_form: Metaspace read as classes and an edit step, or why it is not."""

from __future__ import annotations

import pytest

from wordpieces.pipeline import pre_tokenizers as p
from wordpieces.pipeline.metaspace_form import BEGIN, MetaspaceForm, metaspace_form
from wordpieces.pipeline.pre_tokenizers import ISOLATE, SPACE, WORD, CharClassPreTokenizer

BAR = "\u2581"


def _classes(form, text: str) -> list[str]:
    return [form.classes[ord(c)] for c in text]


def test_alone_the_space_and_the_replacement_begin_words():
    """split=True: both start a word; the form meets the class pre-tokenizer contract."""
    form = metaspace_form(p.Metaspace())
    assert isinstance(form, MetaspaceForm) and isinstance(form, CharClassPreTokenizer)
    assert _classes(form, f"a {BAR}\t_") == [WORD, BEGIN, BEGIN, WORD, WORD]
    assert form.settings() == (BAR, "always", False)


def test_alone_and_whole_there_is_no_class_of_its_own():
    """split=False: the text is one word (its spaces become the replacement, not cuts)."""
    form = metaspace_form(p.Metaspace(prepend_scheme="first", split=False))
    assert isinstance(form, MetaspaceForm)
    assert _classes(form, f"a {BAR}") == [WORD, WORD, WORD]
    assert form.settings() == (BAR, "first", False)


def test_after_bert_its_words_keep_their_classes_and_the_replacement_begins():
    """After another member: its spaces and isolates stay; the replacement starts a word."""
    form = metaspace_form(p.Sequence([p.BertPreTokenizer(), p.Metaspace(replacement="x")]))
    assert isinstance(form, MetaspaceForm) and form.each_word
    assert _classes(form, "a x,") == [WORD, SPACE, BEGIN, ISOLATE]
    assert form.settings() == ("x", "always", True)


def test_an_isolated_replacement_stays_isolated():
    """BERT isolates "_": Metaspace sees it alone, so it is no begin there."""
    form = metaspace_form(p.Sequence([p.BertPreTokenizer(), p.Metaspace(replacement="_")]))
    assert isinstance(form, MetaspaceForm)
    assert _classes(form, "_") == [ISOLATE]


def test_a_pre_tokenizer_without_metaspace_is_left_to_char_forms():
    """None: char_forms.char_class_form reads it."""
    assert metaspace_form(p.Sequence([p.BertPreTokenizer(), p.Digits()])) is None
    assert metaspace_form(p.Whitespace()) is None


@pytest.mark.parametrize("pre_tokenizer, words", [
    (p.Sequence([p.Metaspace(), p.Digits()]), "before another member"),
    (p.Sequence([p.Sequence([p.Metaspace()]), p.Metaspace()]), "before another member"),
    (p.Sequence([p.Punctuation(), p.Metaspace()]), "keep the space"),
    (p.Sequence([p.Whitespace(), p.Metaspace()]), "several run classes"),
    (p.Sequence([p.Split(r"a+b", "isolated"), p.Metaspace()]), "general regex"),
    (p.Metaspace(replacement="\u3000"), "the replacement is whitespace"),
    (p.Metaspace(replacement="\ud800"), "the replacement is a surrogate"),
])
def test_what_is_not_read_names_why(pre_tokenizer, words):
    """A reason naming the stage, for explain_backend."""
    why = metaspace_form(pre_tokenizer)
    assert isinstance(why, str) and why.startswith("pre_tokenizer ") and words in why, why
