"""Read a normalizer and a pre-tokenizer as per-character facts, when they are that.

The fast paths (``fast.word_encoder``, and through it the C extension) run a pipeline
from two contracts: ``normalizers.CharwiseNormalizer`` (what one original character
becomes, wherever it stands, except for its ``context_chars``) and
``pre_tokenizers.CharClassPreTokenizer`` (the class of each normalized character).
``charwise_form`` and ``char_class_form`` give a pipeline's stages in that form, or
the reason they cannot be (a string naming the stage).

Normalizers: ``BertNormalizer`` (any options), ``Lowercase``, ``StripAccents``,
``NFD``/``NFKD``/``NFC``/``NFKC``, a literal one-character ``Replace``, and a
``Sequence`` of these; given the pre-tokenizer's classes (``space_classes``), also
``Strip`` and a multi-character literal ``Replace`` (*edit stages*, see
``_edit_stage``). A sequence maps one character by running each stage over what
the stages before made of it. A character is a *context* character (the general path
takes texts holding one) when a stage would not treat one of its intermediate
characters as a function of itself alone: a ``BertNormalizer`` context character (final
sigma...), a character whose decomposition starts with a non-starter (NFD reorders it
with the marks before it; NFC also composes it), or one NFC/NFKC composes with the
character before it (a second of a composition pair, a Hangul vowel or final); or when
a stage makes more than ``MAX_CHAR_GROWTH`` characters of it (the general path then
checks the growth cap of ``growth``).

Pre-tokenizers: a class is ``SPACE`` (separates, dropped), ``ISOLATE`` (a word of its
own) or a *run class* (a word is a maximal run of characters of the same run class).
``BertPreTokenizer``, ``Whitespace`` (word / symbol runs), ``WhitespaceSplit``,
``Punctuation`` (isolated, contiguous, removed), ``Digits`` (both ways),
``CharDelimiterSplit``, ``Split`` with a literal character or a one-character-class
pattern (``[...]``, ``\\s``, ``\\p{L}``..., optionally ``+``; isolated, contiguous,
removed; not inverted), and a ``Sequence`` of these: a character's class in a
sequence is ``SPACE`` if one member says so, else ``ISOLATE`` if one says so, else its
members' run classes taken together (a later member splits the words of an earlier
one where its own class changes).

Not handled here: ``Prepend`` and regex ``Replace`` (not functions of one character),
``Strip`` whose whitespace the pre-tokenizer keeps, a multi-character ``Replace`` whose
pattern can span words, ``Metaspace`` (it edits the text: ``metaspace_form`` reads it),
``Split`` with a general regex, ``merged_with_previous``/``merged_with_next``
behaviours, inverted patterns: those pipelines keep the staged Python path.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from ..flavors.tables import hf_ccc, hf_is_punctuation
from . import normalizers as norms
from . import pre_tokenizers as pres
from .char_tables import decompose, is_numeric, is_white_space
from .edit_normalizers import Prepend, Replace, Strip
from .normalizers import CharwiseNormalizer, NormalizedString
from .pre_tokenizers import ISOLATE, SPACE, WORD, CharClasses, CharClassPreTokenizer

MAX_CHAR_GROWTH = 64  # growth.py's factor: below it per character, no stage can pass the cap
MAX_PREFIX = 16  # the longest Prepend the C table walk takes (wp_encode.h WP_MAX_PREFIX)

# Run classes of the pre-tokenizers here; a Sequence names its combinations with capitals.
SYMBOL, DIGIT, MATCH = "p", "d", "m"
COMBINED = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
RUN_LETTERS = WORD + SYMBOL + DIGIT + MATCH + COMBINED  # what the C table takes, in order

Stage = tuple[Callable[[str], str], Callable[[str], bool]]  # (map one char, is context)


# ---------------------------------------------------------------- normalizers


def charwise_form(normalizer, space_classes: Mapping[int, str] | None = None, *,
                  prefix: bool = False) -> CharwiseNormalizer | str:
    """``normalizer`` read as a ``CharwiseNormalizer``, or why it cannot be (a string).

    ``space_classes``: the pre-tokenizer's classes of normalized characters; without
    them the edit stages (``Strip``, multi-character ``Replace``) are refused, since
    whether they read as characters depends on what the pre-tokenizer drops.
    ``prefix``: read a ``Prepend`` as the form's ``prefix`` (``_prefix_of``), for a
    fast path that writes it before each text.

    >>> charwise_form(norms.Sequence([norms.NFD(), norms.StripAccents()])).mapped("é")
    'e'
    >>> from wordpieces.pipeline.edit_normalizers import Prepend
    >>> charwise_form(norms.Sequence([norms.NFC(), Prepend("_")]))
    'normalizer Prepend: adds text at the start, not a function of one character'
    """
    if type(normalizer) is norms.BertNormalizer:
        return normalizer  # the contract's own reader, final sigma and all
    stages = _stages(normalizer)
    if isinstance(stages, str):
        return stages
    plain: list[Stage] = []
    text_prefix = ""
    for k, stage in enumerate(stages):
        if isinstance(stage, _Edit) and type(stage.normalizer) is Prepend:
            made_prefix = _prefix_of(normalizer, stage.normalizer, plain, prefix)
            if not isinstance(made_prefix, tuple):
                return made_prefix
            text_prefix = made_prefix[0]
        elif isinstance(stage, _Edit):
            after = [s for s in stages[k + 1:] if not isinstance(s, _Edit)]
            made = _edit_stage(stage.normalizer, plain, after, space_classes)
            if isinstance(made, str):
                return made
            plain += made
        else:
            plain.append(stage)
    form = ComposedCharwise(normalizer, plain)
    if text_prefix:
        form.prefix = text_prefix
        form.word_normalizer = _without_prepend(normalizer)
    return form


def _without_prepend(normalizer):
    """``normalizer`` without its ``Prepend``: what one word of a text goes through."""
    members = [m for m in _members(normalizer) if type(m) is not Prepend]
    return norms.Sequence(members)


# Stages that never delete a character: after a Prepend, they keep its anchor (below).
_KEEPING = (norms.Lowercase, norms.NFD, norms.NFKD, norms.NFC, norms.NFKC)


def _prefix_of(normalizer, stage, before: list[Stage], wanted: bool) -> tuple[str] | str:
    """``(prefix,)``: what a ``Prepend`` writes before each text, or why it cannot be read.

    The fast paths write the prefix's characters before the text's and read them
    through the same per-character facts, all at the *anchor*: the first original
    character the normalizer keeps (HF aligns the prefix to the first character of the
    text at its stage). That holds when the stages before it leave the prefix's
    characters as they are and delete nothing Prepend would see first (no ``Strip``),
    and no stage after it deletes a character (so the first character it saw is the
    first one kept); an empty text gets no prefix.
    """
    why = "normalizer Prepend: adds text at the start, not a function of one character"
    if not wanted:
        return why
    members = _members(normalizer)
    at = next(i for i, m in enumerate(members) if m is stage)
    if any(type(m) is Prepend for m in members[at + 1:]):
        return "normalizer Prepend: more than one"
    if any(type(m) is Strip for m in members[:at]):
        return "normalizer Prepend: after a Strip (its anchor moves with the whitespace)"
    for m in members[at + 1:]:
        keeps = type(m) in _KEEPING or (type(m) is Replace and m.content)
        if not keeps:
            return (f"normalizer Prepend: followed by {type(m).__name__}, which may delete "
                    "the character the prefix is aligned to")
    prior = ComposedCharwise(None, before)
    text = stage.prepend
    if len(text) > MAX_PREFIX:
        return f"normalizer Prepend: a prefix of over {MAX_PREFIX} characters"
    if not text or any(ch.isspace() or is_white_space(ch) or prior.facts(ch) != (ch, False)
                       for ch in text):
        return (f"normalizer Prepend({text!r}): the prefix is empty, holds a space, or is "
                "changed by the stages before it")
    return (text,)


def _members(normalizer) -> list:
    """The stages of a normalizer, nested ``Sequence``s flattened."""
    if type(normalizer) is norms.Sequence:
        return [m for member in normalizer.normalizers for m in _members(member)]
    return [normalizer]


class _Edit:
    """An edit stage (``Strip``, multi-character ``Replace``) in ``_stages``' list."""

    __slots__ = ("normalizer",)

    def __init__(self, normalizer):
        self.normalizer = normalizer


def _edit_stage(stage, before: list[Stage], after: list[Stage],
                space_classes: Mapping[int, str] | None) -> list[Stage] | str:
    """The per-character stages an edit stage reads as, or why it does not.

    ``Strip`` reads as no stage when every whitespace character it may remove ends a
    word anyway: the stages ``after`` it make it spaces of the pre-tokenizer or delete
    it (a deleted character at a text's end glues to nothing), so removing it changes
    no word and no offset. A literal ``Replace`` of several
    characters reads as the identity with a *guard*: a character whose form at this
    stage holds the pattern's guard character (``_guard``) is a context character, so
    only texts that may hold a match take the general path, and the others are
    unchanged by it. A pattern holding what a space of the text becomes here could
    match across words (the fast paths cut texts at spaces first): refused.
    """
    name = type(stage).__name__
    if space_classes is None:
        return f"normalizer {name}: an edit stage, read only with the pre-tokenizer's classes"
    if type(stage) is Strip:
        rest = ComposedCharwise(None, after)
        for ch in filter(is_white_space, _spaces()):
            out, context = rest.facts(ch)
            if context or any(space_classes[ord(c)] != SPACE for c in out):
                return (f"normalizer Strip: the whitespace it removes ({ch!r}) is not a "
                        "space of the pre-tokenizer, so removing it changes the words")
        return []
    pattern = stage.matcher.pattern
    prior = ComposedCharwise(None, before)
    for ch in _spaces():
        if not set(prior.mapped(ch)).isdisjoint(pattern):
            return (f"normalizer Replace: the pattern {pattern!r} holds what a space "
                    f"({ch!r}) becomes, so it can match across words")
    return [(_same, _guard(pattern).__eq__)]


def _same(ch: str) -> str:
    return ch


def _guard(pattern: str) -> str:
    """The character of ``pattern`` whose texts take the general path: likely the rarest.

    Any one will do (a text without it holds no match): not a letter or digit if the
    pattern has one, then the highest code point.
    """
    return max(pattern, key=lambda ch: (not ch.isalnum(), ord(ch)))


@functools.cache
def _spaces() -> tuple[str, ...]:
    """Every character that may separate the fast paths' chunks or words.

    Python's ``str.isspace`` (where ``str.split`` cuts) and Rust's whitespace (HF's);
    none is above U+3000.
    """
    return tuple(ch for ch in map(chr, range(0x3001)) if ch.isspace() or is_white_space(ch))


_NOT_CHARWISE: dict[str, str] = {}


def _stages(normalizer) -> list[Stage | _Edit] | str:
    """The per-character stages of ``normalizer`` (its edit stages marked), or why not."""
    kind = type(normalizer)
    never = _never
    if normalizer is None:
        return []
    if kind is norms.Sequence:
        out: list[Stage | _Edit] = []
        for member in normalizer.normalizers:
            stages = _stages(member)
            if isinstance(stages, str):
                return stages
            out += stages
        return out
    if kind is norms.BertNormalizer:
        return [(normalizer.mapped, normalizer.context_chars.__contains__)]
    if kind in (norms.Lowercase, norms.StripAccents):
        return [(normalizer.mapped, never)]
    if kind in (norms.NFD, norms.NFKD, norms.NFC, norms.NFKC):
        return [(functools.lru_cache(maxsize=None)(normalizer.normalize_str),
                 functools.partial(_unicode_context, normalizer.form))]
    if kind in (Strip, Prepend):
        return [_Edit(normalizer)]
    if kind is Replace:
        if normalizer.matcher.is_regex or not normalizer.matcher.pattern:
            return ("normalizer Replace: the pattern is not a literal string "
                    f"({normalizer.matcher!r})")
        if len(normalizer.matcher.pattern) != 1:
            return [_Edit(normalizer)]
        pattern, content = normalizer.matcher.pattern, normalizer.content
        return [(lambda ch: content if ch == pattern else ch, never)]
    name = kind.__name__
    why = _NOT_CHARWISE.get(name, "not one of the per-character normalizers")
    return f"normalizer {name}: {why}, not a function of one character"


def _never(ch: str) -> bool:
    return False


def _unicode_context(form: str, ch: str) -> bool:
    """Whether ``form`` may treat ``ch`` with its neighbours (reorder or compose it)."""
    first = decompose(ch, form in ("NFKC", "NFKD"))[0]
    if hf_ccc(ord(first)) or unicodedata.combining(first):
        return True
    return form in ("NFC", "NFKC") and first in _second_of_pairs()


_LAST_DECOMPOSED = 0x2FA1D  # the last code point with a decomposition (CJK compatibility)


@functools.cache
def _second_of_pairs() -> frozenset[str]:
    """Every character that composes with one before it (a superset of HF's Unicode 9).

    Second characters of two-character canonical decompositions, and Hangul vowels and
    finals (which compose algorithmically).
    """
    out = {chr(cp) for cp in itertools.chain(range(0x1161, 0x1176), range(0x11A8, 0x11C3))}
    for cp in range(_LAST_DECOMPOSED + 1):
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            out.add(chr(int(parts[1], 16)))
    return frozenset(out)


class ComposedCharwise:
    """A normalizer's per-character stages composed: ``CharwiseNormalizer`` for the fast path.

    ``mapped(ch)`` runs each stage over what the stages before made of ``ch``;
    ``context_chars`` holds the characters for which that differs from the real
    normalizer (see the module docstring). ``normalize`` and the rest are the real
    normalizer's (the identity for ``None``).
    """

    flavor = "huggingface"

    def __init__(self, normalizer, stages: list[Stage]):
        self.normalizer = normalizer
        self._stages = stages
        self._cache: dict[str, tuple[str, bool]] = {}
        self.context_chars = _ContextChars(self)
        self.prefix = ""  # what a Prepend writes before each non-empty text (_prefix_of)
        self.word_normalizer = self  # what one word goes through: no prefix

    def facts(self, ch: str) -> tuple[str, bool]:
        """``(mapped, is context)`` of one character, memoized."""
        out = self._cache.get(ch)
        if out is None:
            out = self._cache[ch] = self._compose(ch)
        return out

    def _compose(self, ch: str) -> tuple[str, bool]:
        text = ch
        for map_char, is_context in self._stages:
            if any(map(is_context, text)):
                return text, True
            text = "".join(map(map_char, text))
            if len(text) > MAX_CHAR_GROWTH:
                return text, True
        return text, False

    def mapped(self, ch: str) -> str:
        """What the one character ``ch`` normalizes to, out of context."""
        return self.facts(ch)[0]

    def normalize(self, text: str) -> NormalizedString:
        """Normalize ``text`` with the real normalizer."""
        if self.normalizer is None:
            return NormalizedString.identity(text)
        return self.normalizer.normalize(text)

    def normalize_str(self, text: str) -> str:
        """Return only the normalized text."""
        return self.normalize(text).normalized

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        """Normalize further with the real normalizer."""
        return ns if self.normalizer is None else self.normalizer.normalize_string(ns)

    def to_config(self) -> dict:
        """The real normalizer's JSON form (``{}`` for none)."""
        return {} if self.normalizer is None else self.normalizer.to_config()

    def __repr__(self) -> str:
        return f"ComposedCharwise({self.normalizer!r})"


class _ContextChars:
    """The context characters of a ``ComposedCharwise``, decided one by one on use."""

    def __init__(self, owner: ComposedCharwise):
        self._owner = owner

    def __contains__(self, ch: object) -> bool:
        return isinstance(ch, str) and len(ch) == 1 and self._owner.facts(ch)[1]

    def isdisjoint(self, text) -> bool:
        """Whether no character of ``text`` is a context character."""
        return not any(ch in self for ch in text)


# ---------------------------------------------------------------- pre-tokenizers


class ClassForm:
    """A pre-tokenizer read as character classes: ``CharClassPreTokenizer``.

    ``classes`` maps a code point to ``SPACE``, ``ISOLATE`` or one of ``run_classes``;
    ``split`` and ``to_config`` are the real pre-tokenizer's.
    """

    flavor = "huggingface"

    def __init__(self, pre_tokenizer, classify: Callable[[str], str], run_classes: str):
        self.pre_tokenizer = pre_tokenizer
        self.classes: Mapping[int, str] = CharClasses(classify)
        self.run_classes = run_classes

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        """The real pre-tokenizer's words."""
        return self.pre_tokenizer.split(ns)

    def to_config(self) -> dict:
        """The real pre-tokenizer's JSON form."""
        return self.pre_tokenizer.to_config()

    def __repr__(self) -> str:
        return f"ClassForm({self.pre_tokenizer!r})"


def char_class_form(pre_tokenizer) -> CharClassPreTokenizer | str:
    """``pre_tokenizer`` read as character classes, or why it cannot be (a string).

    >>> form = char_class_form(pres.Sequence([pres.WhitespaceSplit(), pres.Digits()]))
    >>> [form.classes[ord(c)] for c in "a 1"], form.run_classes
    (['w', 's', 'A'], 'wA')
    """
    kind = type(pre_tokenizer)
    if kind is pres.BertPreTokenizer:
        return pre_tokenizer
    if kind is pres.Sequence:
        return _sequence_form(pre_tokenizer)
    made = _simple_form(pre_tokenizer)
    if isinstance(made, str):
        return made
    classify, runs = made
    return ClassForm(pre_tokenizer, classify, runs)


def _simple_form(pre) -> tuple[Callable[[str], str], str] | str:
    """``(classify, run classes)`` of one pre-tokenizer (not a Sequence), or why not."""
    kind = type(pre)
    if kind is pres.Whitespace:
        return _table_classifier(pre.classes), WORD + SYMBOL
    if kind is pres.WhitespaceSplit:
        return _predicate_classes(is_white_space, "removed", WORD)
    if kind is pres.CharDelimiterSplit:
        return _predicate_classes(pre.delimiter.__eq__, "removed", WORD)
    if kind is pres.Punctuation:
        return _predicate_classes(_is_punctuation, pre.behavior, SYMBOL, "Punctuation")
    if kind is pres.Digits:
        return _predicate_classes(is_numeric, pre.behavior, DIGIT)
    if kind is pres.Split:
        return _split_form(pre)
    name = kind.__name__
    if kind is pres.Metaspace:
        return "pre_tokenizer Metaspace: edits the text (writes its replacement for spaces)"
    return f"pre_tokenizer {name}: not one of the character-class pre-tokenizers"


def _is_punctuation(ch: str) -> bool:
    return hf_is_punctuation(ord(ch))


def _table_classifier(table: Mapping[int, str]) -> Callable[[str], str]:
    return lambda ch: table[ord(ch)]


def _predicate_classes(matches: Callable[[str], bool], behavior: str, run: str,
                       name: str = "Split") -> tuple[Callable[[str], str], str] | str:
    """Classes of a pre-tokenizer splitting on single characters meeting ``matches``.

    ``removed``: they are spaces; ``isolated``: each a word; ``contiguous``: runs of
    them are words (run class ``run``); the rest are ``WORD`` runs.
    """
    cls = {"removed": SPACE, "isolated": ISOLATE, "contiguous": run}.get(behavior)
    if cls is None:
        return (f"pre_tokenizer {name}(behavior={behavior!r}): merges matches with their "
                "neighbours, not a class of one character")
    runs = WORD + run if cls == run else WORD
    return (lambda ch: cls if matches(ch) else WORD), runs


_ONE_CLASS = re.compile(r"(?:\[(?:\\.|[^\\\]])+\]|\\[sSdDwW]|\\[pP]\{\w+\}|\\[pP]\w|\.)"
                        r"(\+?)")


def _split_form(pre) -> tuple[Callable[[str], str], str] | str:
    """Classes of a ``Split`` on one literal character or one character class."""
    matcher = pre.matcher
    if pre.invert:
        return "pre_tokenizer Split(invert=True): not read as character classes"
    if not matcher.is_regex:
        if len(matcher.pattern) != 1:
            return f"pre_tokenizer Split: the literal {matcher.pattern!r} is not one character"
        return _predicate_classes(matcher.pattern.__eq__, pre.behavior, MATCH)
    whole = _ONE_CLASS.fullmatch(matcher.pattern)
    if not whole:
        return (f"pre_tokenizer Split(pattern={matcher.pattern!r}) is a general regex "
                "(only one character class, optionally with +, is read as classes)")
    behavior = pre.behavior
    if whole.group(1) and behavior == "isolated":
        behavior = "contiguous"  # a run of matches is one match, so one word

    def matches(ch: str, pieces=matcher.pieces) -> bool:
        return pieces(ch) == [(0, 1, True)]

    return _predicate_classes(matches, behavior, MATCH)


def _sequence_form(seq) -> CharClassPreTokenizer | str:
    """Classes of a pre-tokenizer ``Sequence``: its members' classes taken together."""
    forms: list[Any] = []
    for member in seq.pretokenizers:
        form = char_class_form(member)
        if isinstance(form, str):
            return form
        forms.append(form)
    if not forms:
        return ClassForm(seq, lambda ch: WORD, WORD)
    combos = list(itertools.product(*(getattr(f, "run_classes", WORD) for f in forms)))
    if len(combos) > 1 + len(COMBINED):
        return "pre_tokenizer Sequence: too many combinations of run classes"
    letters = {combo: WORD if i == 0 else COMBINED[i - 1] for i, combo in enumerate(combos)}
    tables = [f.classes for f in forms]

    def classify(ch: str) -> str:
        cp = ord(ch)
        found = tuple(table[cp] for table in tables)
        if SPACE in found:
            return SPACE
        if ISOLATE in found:
            return ISOLATE
        return letters[found]

    return ClassForm(seq, classify, "".join(letters.values()))


def run_classes_of(form: CharClassPreTokenizer) -> str:
    """The run classes of a class pre-tokenizer (``WORD`` alone for ``BertPreTokenizer``)."""
    return getattr(form, "run_classes", WORD)


__all__ = ["charwise_form", "char_class_form", "run_classes_of", "ComposedCharwise",
           "ClassForm", "RUN_LETTERS", "MAX_CHAR_GROWTH"]
