"""Split normalized text into words, each with its offsets in the original text.

Every pre-tokenizer has ``split(ns) -> [(start, end), ...]`` (spans of the normalized
text) and ``pre_tokenize(ns) -> [(word, (start, end)), ...]`` (offsets in the original,
as HF ``tokenizers`` reports them).

``BertPreTokenizer`` drops whitespace and isolates punctuation with the character rules
of its flavor (``flavors``). ``Whitespace``, ``WhitespaceSplit``, ``Split``,
``Punctuation``, ``Digits``, ``CharDelimiterSplit``, ``Metaspace`` and ``Sequence`` follow
HF's pre-tokenizers of the same names, character tables and split behaviours included.

A pre-tokenizer that edits the text (``Metaspace`` writes ``▁`` for spaces) cannot give
its words as spans of its input: it has ``split_strings(ns)``, the words as
``NormalizedString`` pieces still aligned to the original. ``split_pieces`` asks any
pre-tokenizer for those pieces (from ``split`` when it has no ``split_strings``); the
general path of the tokenizer uses it.

``PreTokenizer`` is the contract any pre-tokenizer meets; ``CharClassPreTokenizer`` is
the narrower one the fast fused path reads from a ``BertPreTokenizer``.

Not handled here: normalization (``normalizers``), the fused fast path
(``fast.word_encoder``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from ..flavors.rules import FLAVORS, get_flavor
from ..flavors.tables import hf_is_punctuation
from .char_tables import char_set, is_numeric, is_white_space
from .live_settings import settings_changed
from .normalizers import NormalizedString
from .patterns import Matcher, Pieces, char_pieces

WORD, SPACE, ISOLATE = "w", "s", "i"


class CharClasses(dict):
    """Map code point -> class letter, computing each on first use (for ``str.translate``).

    Translating a text through this table gives a same-length string of class letters
    that a regex can split at C speed.
    """

    def __init__(self, classify):
        super().__init__()
        self.classify = classify

    def __missing__(self, cp: int) -> str:
        cls = self[cp] = self.classify(chr(cp))
        return cls


_WORDS_AND_ISOLATED = re.compile(ISOLATE + "|" + WORD + "+")


@runtime_checkable
class PreTokenizer(Protocol):
    """What the tokenizer needs from a pre-tokenizer: any object with these methods is one.

    - ``split(ns)``: the words of a normalized text, as ``(start, end)`` spans of
      ``ns.normalized`` (the general path, added-token segments, ``explain``);
    - ``to_config()``: HF's JSON form, written when the tokenizer is saved and hashed
      into the fingerprint of word counts.

    The fast path fuses only an exact ``BertPreTokenizer`` (not a subclass: TF's
    ``BasicPreTokenizer`` splits differently) with an exact ``BertNormalizer`` of the same
    flavor; from that one it also reads ``CharClassPreTokenizer``'s members.
    """

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        """Spans of ``ns.normalized``, one per word, in order."""
        ...

    def to_config(self) -> dict:
        """HF's JSON form of this pre-tokenizer."""
        ...


@runtime_checkable
class CharClassPreTokenizer(PreTokenizer, Protocol):
    """A pre-tokenizer decided by each character's class: what the fused fast path reads.

    ``classes`` maps a code point to ``WORD``, ``SPACE`` or ``ISOLATE``: a word is a
    maximal run of ``WORD`` characters or one ``ISOLATE`` character, ``SPACE``
    characters separate words and are dropped. The fast path classifies each original
    character by translating what the normalizer maps it to through this table
    (``fast.word_encoder.WordEncoder.char_facts``).
    """

    flavor: str
    classes: Mapping[int, str]


class PreTokenizerBase:
    """Base of the pre-tokenizers here: subclasses implement ``split``.

    It gives ``pre_tokenize`` and ``pre_tokenize_str`` (HF's names) from it.
    """

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        raise NotImplementedError

    def pre_tokenize(self, ns: NormalizedString) -> list[tuple[str, tuple[int, int]]]:
        """Return each word with its offsets in the original text."""
        return [(p.normalized, p.span(0, len(p.normalized))) for p in split_pieces(self, ns)]

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Pre-tokenize raw text (as HF's ``pre_tokenize_str``)."""
        return self.pre_tokenize(NormalizedString.identity(text))

    uses_position = False  # True: the start of the text is treated apart (split_pieces)

    def split_strings(self, ns: NormalizedString, *, whole: bool = True
                      ) -> list[NormalizedString]:
        """The words of ``ns`` as pieces aligned to the original (``split_pieces``)."""
        return [ns.slice(s, e) for s, e in self.split(ns) if e > s]

    def to_config(self) -> dict:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def split_pieces(pre_tokenizer, ns: NormalizedString, *, whole: bool = True
                 ) -> list[NormalizedString]:
    """The non-empty words of ``ns`` as ``NormalizedString`` pieces, for any pre-tokenizer.

    ``None`` gives the whole text as one word. ``whole`` says ``ns`` is a whole text,
    not a piece of one (HF's ``Metaspace(prepend_scheme="first")`` looks at it: a
    pre-tokenizer with ``uses_position`` true does; pieces of a text keep alignments
    into the whole text, so it can tell one that starts the text).
    """
    if pre_tokenizer is None:
        return [ns] if ns.normalized else []
    split_strings = getattr(pre_tokenizer, "split_strings", None)
    if split_strings is not None:
        return [p for p in split_strings(ns, whole=whole) if p.normalized]
    return [ns.slice(s, e) for s, e in pre_tokenizer.split(ns) if e > s]


class FlavorClassifier:
    """The class (``SPACE``, ``ISOLATE``, ``WORD``) of a character under a flavor's rules.

    A class, not a closure, so that a ``BertPreTokenizer`` pickles.
    """

    def __init__(self, flavor: str):
        self.rules = get_flavor(flavor)

    def __call__(self, ch: str) -> str:
        rules = self.rules
        return SPACE if rules.is_space(ch) else ISOLATE if rules.is_punct(ch) else WORD


class BertPreTokenizer(PreTokenizerBase):
    """Split on whitespace (dropped) and punctuation (kept, one character per word).

    >>> BertPreTokenizer().pre_tokenize_str("Hey friend!  How?")
    [('Hey', (0, 3)), ('friend', (4, 10)), ('!', (10, 11)), ('How', (13, 16)), ('?', (16, 17))]
    """

    def __init__(self, *, flavor: str = "bert"):
        if flavor not in FLAVORS:
            raise ValueError(f"unknown flavor {flavor!r}: expected one of {', '.join(FLAVORS)}")
        self.flavor = flavor
        self.classes = CharClasses(FlavorClassifier(flavor))

    def __getstate__(self) -> dict:
        """Everything but the class table, which is rebuilt from the flavor (subclasses too)."""
        return {k: v for k, v in self.__dict__.items() if k != "classes"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.classes = CharClasses(FlavorClassifier(self.flavor))

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        classes = ns.normalized.translate(self.classes)
        return [m.span() for m in _WORDS_AND_ISOLATED.finditer(classes)]

    def to_config(self) -> dict:
        return {"type": "BertPreTokenizer"}

    def __repr__(self) -> str:
        return f"BertPreTokenizer(flavor={self.flavor!r})"


BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")


def check_behavior(behavior: str) -> str:
    """Return ``behavior`` if it is one of ``BEHAVIORS``, else raise a ValueError."""
    if behavior not in BEHAVIORS:
        raise ValueError(f"unknown split behavior {behavior!r}: expected one of "
                         f"{', '.join(BEHAVIORS)}")
    return behavior


def behavior_name(behavior: str) -> str:
    """HF's JSON name of a behavior: ``merged_with_next`` -> ``MergedWithNext``."""
    return "".join(p.title() for p in behavior.split("_"))


def apply_behavior(pieces: Pieces, behavior: str) -> list[tuple[int, int]]:
    """Turn match/gap pieces into word spans as HF's ``NormalizedString::split`` does.

    Only the first of consecutive matches merges with its neighbour, as in HF
    (``a--b`` split on ``-`` merged with the previous: ``a-``, ``-``, ``b``).
    """
    if behavior == "removed":
        return [(s, e) for s, e, m in pieces if not m]
    if behavior == "isolated":
        return [(s, e) for s, e, _ in pieces]
    if behavior == "merged_with_next":
        flipped = [(-e, -s, m) for s, e, m in reversed(pieces)]
        return [(-e, -s) for s, e in reversed(_merge_matches(flipped, contiguous=False))]
    return _merge_matches(pieces, contiguous=behavior == "contiguous")


def _merge_matches(pieces: Pieces, *, contiguous: bool) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    previous = False
    for s, e, is_match in pieces:
        merge = (is_match == previous) if contiguous else (is_match and not previous)
        if merge and out:
            out[-1][1] = e
        else:
            out.append([s, e])
        previous = is_match
    return [(s, e) for s, e in out]


class PatternPreTokenizer(PreTokenizerBase):
    """Split where ``_pieces`` finds matches, doing with them what ``behavior`` says."""

    behavior = "removed"
    invert = False

    def _pieces(self, text: str) -> Pieces:
        raise NotImplementedError

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        pieces = self._pieces(ns.normalized)
        if self.invert:
            pieces = [(s, e, not m) for s, e, m in pieces]
        return [(s, e) for s, e in apply_behavior(pieces, self.behavior) if e > s]


class WhitespaceSplit(PatternPreTokenizer):
    """Split on whitespace only (Rust's ``char::is_whitespace``), as HF.

    >>> WhitespaceSplit().pre_tokenize_str("a b,c")
    [('a', (0, 1)), ('b,c', (2, 5))]
    """

    def _pieces(self, text: str) -> Pieces:
        return char_pieces(text, is_white_space)

    def to_config(self) -> dict:
        return {"type": "WhitespaceSplit"}


_SYMBOL = "p"
_WORD_RUNS = re.compile(f"{WORD}+|{_SYMBOL}+")


def _whitespace_class(ch: str) -> str:
    if is_white_space(ch):
        return SPACE
    return WORD if ord(ch) in char_set("whitespace_word") else _SYMBOL


class Whitespace(PreTokenizerBase):
    """Keep runs of word characters and runs of other non-space characters, as HF.

    HF classifies each character as whitespace (dropped), word (letters, digits, marks,
    connectors, U+200C/U+200D) or symbol; its sets are probed (``char_tables``).

    >>> [w for w, _ in Whitespace().pre_tokenize_str("Hi, you!!")]
    ['Hi', ',', 'you', '!!']
    """

    classes = CharClasses(_whitespace_class)

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        return [m.span() for m in _WORD_RUNS.finditer(ns.normalized.translate(self.classes))]

    def to_config(self) -> dict:
        return {"type": "Whitespace"}


class Split(PatternPreTokenizer):
    """Split on a pattern, doing with each match what ``behavior`` says (as HF's Split).

    ``regex=False`` matches ``pattern`` literally (HF's ``String`` pattern); ``invert``
    splits on what does *not* match. A regex must be in the subset ``patterns``
    translates exactly (a ``ValueError`` names what is not).

    >>> [w for w, _ in Split(r"--|\\s", "removed").pre_tokenize_str("a--b c")]
    ['a', 'b', 'c']
    """

    def __init__(self, pattern: str, behavior: str = "isolated", *, invert: bool = False,
                 regex: bool = True):
        self.behavior = check_behavior(behavior)
        try:
            self.matcher = Matcher(pattern, regex=regex, field="Split pattern")
        except ValueError as e:
            raise ValueError(f"bad split pattern {pattern!r}: {e}") from None
        self.pattern, self.invert, self.is_regex = pattern, invert, regex

    def _pieces(self, text: str) -> Pieces:
        return self.matcher.pieces(text)

    def to_config(self) -> dict:
        return {"type": "Split", "pattern": self.matcher.to_config(),
                "behavior": behavior_name(self.behavior), "invert": self.invert}

    def __repr__(self) -> str:
        return (f"Split({self.matcher!r}, behavior={self.behavior!r}, "
                f"invert={self.invert!r})")


class Punctuation(PatternPreTokenizer):
    """Split on each punctuation character (HF's set: ASCII and Unicode P*).

    >>> [w for w, _ in Punctuation().pre_tokenize_str("Hi, you!!")]
    ['Hi', ',', ' you', '!', '!']
    """

    def __init__(self, behavior: str = "isolated"):
        self.behavior = check_behavior(behavior)

    def _pieces(self, text: str) -> Pieces:
        return char_pieces(text, lambda ch: hf_is_punctuation(ord(ch)))

    def to_config(self) -> dict:
        return {"type": "Punctuation", "behavior": behavior_name(self.behavior)}

    def __repr__(self) -> str:
        return f"Punctuation(behavior={self.behavior!r})"


class Digits(PatternPreTokenizer):
    """Split numbers off: each digit alone (``individual_digits``) or runs of them.

    >>> [w for w, _ in Digits(individual_digits=True).pre_tokenize_str("a12b")]
    ['a', '1', '2', 'b']
    """

    def __init__(self, individual_digits: bool = False):
        self._individual = bool(individual_digits)

    @property
    def individual_digits(self) -> bool:
        """Each digit a word of its own (else runs of digits); settable, as in HF."""
        return self._individual

    @individual_digits.setter
    def individual_digits(self, value: bool) -> None:
        self._individual = bool(value)
        settings_changed()

    @property
    def behavior(self) -> str:  # type: ignore[override]  # decided by individual_digits
        return "isolated" if self._individual else "contiguous"

    def _pieces(self, text: str) -> Pieces:
        return char_pieces(text, is_numeric)

    def to_config(self) -> dict:
        return {"type": "Digits", "individual_digits": self.individual_digits}

    def __repr__(self) -> str:
        return f"Digits(individual_digits={self.individual_digits!r})"


class CharDelimiterSplit(PatternPreTokenizer):
    """Split on one delimiter character, which is dropped.

    >>> [w for w, _ in CharDelimiterSplit("|").pre_tokenize_str("a|b||c")]
    ['a', 'b', 'c']
    """

    def __init__(self, delimiter: str):
        if len(delimiter) != 1:
            raise ValueError(f"a delimiter is one character, got {delimiter!r}")
        self.delimiter = delimiter

    def _pieces(self, text: str) -> Pieces:
        return char_pieces(text, self.delimiter.__eq__)

    def to_config(self) -> dict:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}

    def __repr__(self) -> str:
        return f"CharDelimiterSplit({self.delimiter!r})"


PREPEND_SCHEMES = ("always", "never", "first")


def check_metaspace(replacement: str, prepend_scheme: str) -> None:
    """Refuse what HF's ``Metaspace`` (pre-tokenizer and decoder) refuses, by value."""
    if not isinstance(replacement, str) or len(replacement) != 1:
        raise ValueError(f"a Metaspace replacement is one character, got {replacement!r}")
    if prepend_scheme not in PREPEND_SCHEMES:
        raise ValueError(f"unknown prepend_scheme {prepend_scheme!r}: expected one of "
                         f"{', '.join(PREPEND_SCHEMES)}")


class Metaspace(PreTokenizerBase):
    """Write spaces as ``replacement`` (``▁``), prepend one, split before each (HF Metaspace).

    ``prepend_scheme``: ``"always"`` prepends to every word not starting with the
    replacement, ``"first"`` only to the start of the text, ``"never"`` not at all;
    ``split=False`` keeps the text whole.

    >>> [w for w, _ in Metaspace().pre_tokenize_str("Hey friend")]
    ['▁Hey', '▁friend']
    """

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always",
                 split: bool = True):
        check_metaspace(replacement, prepend_scheme)
        self._settings = (replacement, prepend_scheme, bool(split))

    # Settable, as in HF (the fast paths compile them: a change rebuilds them).
    @property
    def replacement(self) -> str:
        """The character spaces are written as (one character)."""
        return self._settings[0]

    @replacement.setter
    def replacement(self, value: str) -> None:
        self._set(value, self.prepend_scheme, self.split_words)

    @property
    def prepend_scheme(self) -> str:
        """``"always"``, ``"first"`` or ``"never"``."""
        return self._settings[1]

    @prepend_scheme.setter
    def prepend_scheme(self, value: str) -> None:
        self._set(self.replacement, value, self.split_words)

    @property
    def split_words(self) -> bool:
        """Start a word at each replacement (HF's ``split``)."""
        return self._settings[2]

    @split_words.setter
    def split_words(self, value: bool) -> None:
        self._set(self.replacement, self.prepend_scheme, value)

    def _set(self, replacement: str, prepend_scheme: str, split: bool) -> None:
        check_metaspace(replacement, prepend_scheme)
        self._settings = (replacement, prepend_scheme, bool(split))
        settings_changed()

    @property
    def uses_position(self) -> bool:  # type: ignore[override]  # decided by prepend_scheme
        """Whether where a piece stands matters (``"first"``: only at the text's start)."""
        return self.prepend_scheme == "first"

    def split_strings(self, ns: NormalizedString, *, whole: bool = True
                      ) -> list[NormalizedString]:
        if not ns.normalized:
            return []
        ns = self._replaced(ns)
        if self._prepends(ns):
            changes = [(self.replacement, 0), (ns.normalized[0], 1)]
            ns = ns.apply_changes(changes, start=0, end=1)
        if not self.split_words:
            return [ns]
        pieces = char_pieces(ns.normalized, self.replacement.__eq__)
        return [ns.slice(s, e) for s, e in apply_behavior(pieces, "merged_with_next") if e > s]

    def _replaced(self, ns: NormalizedString) -> NormalizedString:
        text = ns.normalized
        if " " not in text:
            return ns
        changes = [(self.replacement, 0) if ch == " " else (ch, 0) for ch in text]
        return ns.apply_changes(changes)  # one for one: alignments unchanged

    def _prepends(self, ns: NormalizedString) -> bool:
        if ns.normalized.startswith(self.replacement) or self.prepend_scheme == "never":
            return False
        # HF's "first": the piece starts the text: its first character is the original's
        # 0 (not when the normalizer deleted what was there: "\x00hi" gets none, live)
        return self.prepend_scheme == "always" or ns.alignments[0][0] == 0

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        raise TypeError("Metaspace edits the text: ask it for split_strings(ns)")

    def to_config(self) -> dict:
        return {"type": "Metaspace", "replacement": self.replacement,
                "prepend_scheme": self.prepend_scheme, "split": self.split_words}

    def __repr__(self) -> str:
        return (f"Metaspace(replacement={self.replacement!r}, "
                f"prepend_scheme={self.prepend_scheme!r}, split={self.split_words!r})")


class Sequence(PreTokenizerBase):
    """Apply several pre-tokenizers, each splitting the words of the previous (HF Sequence)."""

    def __init__(self, pretokenizers):
        self.pretokenizers = list(pretokenizers)

    @property
    def uses_position(self) -> bool:  # type: ignore[override]  # its members say
        """Whether a member treats the start of the text apart (read live: settable)."""
        return any(getattr(p, "uses_position", False) for p in self.pretokenizers)

    def __getitem__(self, index: int):
        """The pre-tokenizer at ``index`` (HF's ``seq[0]``)."""
        return self.pretokenizers[index]

    def split_strings(self, ns: NormalizedString, *, whole: bool = True
                      ) -> list[NormalizedString]:
        pieces = [ns] if ns.normalized else []
        for pre in self.pretokenizers:
            pieces = [p for piece in pieces
                      for p in split_pieces(pre, piece, whole=whole and piece is ns)]
        return pieces

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        """Spans of ``ns.normalized``, when no member edits the text (else a TypeError)."""
        spans = [(0, len(ns.normalized))] if ns.normalized else []
        for pre in self.pretokenizers:
            spans = [(s + a, s + b) for s, e in spans
                     for a, b in pre.split(ns.slice(s, e)) if b > a]
        return spans

    def to_config(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [p.to_config() for p in self.pretokenizers]}

    def __repr__(self) -> str:
        return f"Sequence({self.pretokenizers!r})"
