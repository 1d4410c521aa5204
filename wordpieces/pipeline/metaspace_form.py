"""Read HF's ``Metaspace`` pre-tokenizer as character classes and an edit step, when it is that.

``Metaspace`` writes each space of the normalized text as its replacement (``▁``),
prepends one (``prepend_scheme``) and, with ``split``, starts a word at each
replacement (HF's ``MergedWithNext``). The fast paths read it as:

- a class of its own, ``BEGIN``: the replacement and the space (which it becomes) end
  the word before them and start the next, the replacement first in it; a word text
  holding the replacement (an original character whose form holds a space or the
  replacement) starts a word at each one it holds;
- the *edit step*: the replacement written before the first character that has a word
  text (the anchor) of the text's first word, unless that text starts with the
  replacement (``always``; ``first`` only when the anchor is the text's character 0);
  after other members of a ``Sequence`` (``each_word``), ``always`` writes it before
  each of their words;
- with ``split=False`` no class of its own (the whole text, or each earlier word, is one
  word), spaces written as the replacement.

``metaspace_form`` gives that form (a ``char_forms.ClassForm`` with the settings), the
reason a ``Metaspace`` is not read (a string naming it), or ``None`` for a pre-tokenizer
without one (``char_forms.char_class_form`` reads it).

Not handled here: ``Metaspace`` before another ``Sequence`` member or in a nested one,
after members that keep the space in their words or have several run classes, a
replacement that is whitespace or a surrogate: those keep the staged Python path.
"""

from __future__ import annotations

from collections.abc import Callable

from . import pre_tokenizers as pres
from .char_forms import ClassForm, char_class_form, run_classes_of
from .char_tables import is_white_space
from .pre_tokenizers import SPACE, WORD

BEGIN = "b"  # starts a word, replacement first: Metaspace's split (fast/_native: WP_BEGIN)


class MetaspaceForm(ClassForm):
    """A pre-tokenizer ending with ``Metaspace``, read as classes plus its edit step.

    ``classes`` and ``run_classes`` as ``ClassForm`` (``BEGIN`` among the classes with
    ``split``); ``replacement``, ``prepend_scheme`` and ``split_words`` are the
    ``Metaspace``'s; ``each_word``: it follows other members, whose words it edits one
    by one.
    """

    def __init__(self, pre_tokenizer, classify: Callable[[str], str], meta: pres.Metaspace,
                 each_word: bool):
        super().__init__(pre_tokenizer, classify, WORD)
        self.replacement = meta.replacement
        self.prepend_scheme = meta.prepend_scheme
        self.split_words = meta.split_words
        self.each_word = each_word

    def split(self, ns):
        """The real pre-tokenizer's words (it edits the text: ``split_strings``)."""
        return self.pre_tokenizer.split(ns)

    def settings(self) -> tuple[str, str, bool]:
        """``(replacement, prepend_scheme, each_word)``: what the C encoder is given."""
        return self.replacement, self.prepend_scheme, self.each_word

    def __repr__(self) -> str:
        return f"MetaspaceForm({self.pre_tokenizer!r})"


def metaspace_form(pre_tokenizer) -> MetaspaceForm | str | None:
    """``pre_tokenizer`` read with its ``Metaspace``, why it cannot be, or None (none in it).

    >>> form = metaspace_form(pres.Metaspace())
    >>> [form.classes[ord(c)] for c in "a \u2581"], form.settings()
    (['w', 'b', 'b'], ('\u2581', 'always', False))
    >>> metaspace_form(pres.Sequence([pres.Metaspace(), pres.Digits()]))
    'pre_tokenizer Metaspace: before another member of a Sequence, or in a nested one'
    """
    kind = type(pre_tokenizer)
    if kind is pres.Metaspace:
        why = _replacement_refused(pre_tokenizer)
        return why or MetaspaceForm(pre_tokenizer, _alone(pre_tokenizer), pre_tokenizer, False)
    if kind is not pres.Sequence or not _holds_metaspace(pre_tokenizer):
        return None
    *before, last = pre_tokenizer.pretokenizers
    if type(last) is not pres.Metaspace or any(map(_holds_metaspace, before)):
        return "pre_tokenizer Metaspace: before another member of a Sequence, or in a nested one"
    why = _replacement_refused(last)
    if why:
        return why
    earlier = char_class_form(pres.Sequence(before))
    if isinstance(earlier, str):
        return earlier
    if run_classes_of(earlier) != WORD:
        return ("pre_tokenizer Metaspace: after members of several run classes (their words "
                "and its own do not nest as one class)")
    if earlier.classes[ord(" ")] != SPACE:
        return ("pre_tokenizer Metaspace: after members that keep the space in their words "
                "(it would split them there)")
    return MetaspaceForm(pre_tokenizer, _after(earlier.classes, last), last, True)


def _holds_metaspace(pre) -> bool:
    if type(pre) is pres.Sequence:
        return any(map(_holds_metaspace, pre.pretokenizers))
    return type(pre) is pres.Metaspace


def _replacement_refused(meta: pres.Metaspace) -> str:
    """Why the replacement cannot be read as a character of the text ("" when it can)."""
    rep = meta.replacement
    if rep.isspace() or is_white_space(rep):
        return f"pre_tokenizer Metaspace(replacement={rep!r}): the replacement is whitespace"
    if "\ud800" <= rep <= "\udfff":
        return f"pre_tokenizer Metaspace(replacement={rep!r}): the replacement is a surrogate"
    return ""


def _alone(meta: pres.Metaspace) -> Callable[[str], str]:
    """Classes of ``Metaspace`` on the whole text: ``BEGIN`` for what starts a word."""
    begins = (" ", meta.replacement) if meta.split_words else ()
    return lambda ch: BEGIN if ch in begins else WORD


def _after(classes, meta: pres.Metaspace) -> Callable[[str], str]:
    """Classes of ``Metaspace`` after members of these classes: the replacement inside
    their words starts one (``split``); their spaces and isolates stay theirs."""
    rep = meta.replacement if meta.split_words else None

    def classify(ch: str) -> str:
        cls = classes[ord(ch)]
        return BEGIN if ch == rep and cls == WORD else cls

    return classify


__all__ = ["BEGIN", "MetaspaceForm", "metaspace_form"]
