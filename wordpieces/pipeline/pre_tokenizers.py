"""Split normalized text into words, each with its offsets in the original text.

Every pre-tokenizer has ``split(ns) -> [(start, end), ...]`` (spans of the normalized
text) and ``pre_tokenize(ns) -> [(word, (start, end)), ...]`` (offsets in the original,
as HF ``tokenizers`` reports them).

``BertPreTokenizer`` drops whitespace and isolates punctuation with the character rules
of its flavor (``flavors``). ``Whitespace``, ``WhitespaceSplit`` and ``Split`` follow
HF's pre-tokenizers of the same names.

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
from .normalizers import NormalizedString

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
        text = ns.normalized
        return [(text[s:e], ns.span(s, e)) for s, e in self.split(ns)]

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Pre-tokenize raw text (as HF's ``pre_tokenize_str``)."""
        return self.pre_tokenize(NormalizedString.identity(text))

    def to_config(self) -> dict:
        raise NotImplementedError


class BertPreTokenizer(PreTokenizerBase):
    """Split on whitespace (dropped) and punctuation (kept, one character per word).

    >>> BertPreTokenizer().pre_tokenize_str("Hey friend!  How?")
    [('Hey', (0, 3)), ('friend', (4, 10)), ('!', (10, 11)), ('How', (13, 16)), ('?', (16, 17))]
    """

    def __init__(self, *, flavor: str = "bert"):
        if flavor not in FLAVORS:
            raise ValueError(f"unknown flavor {flavor!r}: expected one of {', '.join(FLAVORS)}")
        self.flavor = flavor
        rules = get_flavor(flavor)
        self.classes = CharClasses(
            lambda ch: SPACE if rules.is_space(ch) else ISOLATE if rules.is_punct(ch) else WORD)

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        classes = ns.normalized.translate(self.classes)
        return [m.span() for m in _WORDS_AND_ISOLATED.finditer(classes)]

    def to_config(self) -> dict:
        return {"type": "BertPreTokenizer"}


# Rust's char::is_whitespace (the White_Space property), used by HF's WhitespaceSplit.
_WHITE_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000")


class WhitespaceSplit(PreTokenizerBase):
    """Split on whitespace only.

    >>> WhitespaceSplit().pre_tokenize_str("a b,c")
    [('a', (0, 1)), ('b,c', (2, 5))]
    """

    _pattern = re.compile(f"[^{_WHITE_SPACE}]+")

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        return [m.span() for m in self._pattern.finditer(ns.normalized)]

    def to_config(self) -> dict:
        return {"type": "WhitespaceSplit"}


class Whitespace(PreTokenizerBase):
    """Split into runs of word characters and runs of other non-space characters.

    >>> [w for w, _ in Whitespace().pre_tokenize_str("Hi, you!!")]
    ['Hi', ',', 'you', '!!']
    """

    _pattern = re.compile(r"\w+|[^\w\s]+")

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        return [m.span() for m in self._pattern.finditer(ns.normalized)]

    def to_config(self) -> dict:
        return {"type": "Whitespace"}


class Sequence(PreTokenizerBase):
    """Apply several pre-tokenizers, each splitting the words of the previous (HF Sequence)."""

    def __init__(self, pretokenizers):
        self.pretokenizers = list(pretokenizers)

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        spans = [(0, len(ns.normalized))]
        for pre in self.pretokenizers:
            spans = [(s + a, s + b) for s, e in spans
                     for a, b in pre.split(NormalizedString(ns.original, ns.normalized[s:e],
                                                            ns.alignments[s:e]))
                     if b > a]
        return spans

    def to_config(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [p.to_config() for p in self.pretokenizers]}


BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")


class Split(PreTokenizerBase):
    """Split on a pattern, doing with each match what ``behavior`` says (as HF's Split).

    ``regex=False`` matches ``pattern`` literally (HF's ``String`` pattern); ``invert``
    splits on what does *not* match.

    >>> [w for w, _ in Split(r"--|\\s", "removed").pre_tokenize_str("a--b c")]
    ['a', 'b', 'c']
    """

    def __init__(self, pattern: str, behavior: str = "isolated", *, invert: bool = False,
                 regex: bool = True):
        if behavior not in BEHAVIORS:
            raise ValueError(f"unknown split behavior {behavior!r}: expected one of "
                             f"{', '.join(BEHAVIORS)}")
        try:
            self.regex = re.compile(pattern if regex else re.escape(pattern))
        except re.error as e:
            raise ValueError(f"bad split pattern {pattern!r}: {e}") from None
        self.pattern, self.behavior, self.invert, self.is_regex = pattern, behavior, invert, regex

    def split(self, ns: NormalizedString) -> list[tuple[int, int]]:
        text = ns.normalized
        pieces = _matches_and_gaps(self.regex, text)
        if self.invert:
            pieces = [(s, e, not is_match) for s, e, is_match in pieces]
        return [(s, e) for s, e in _apply_behavior(pieces, self.behavior) if e > s]

    def to_config(self) -> dict:
        key = "Regex" if self.is_regex else "String"
        names = {b: "".join(p.title() for p in b.split("_")) for b in BEHAVIORS}
        return {"type": "Split", "pattern": {key: self.pattern},
                "behavior": names[self.behavior], "invert": self.invert}


def _matches_and_gaps(regex: re.Pattern, text: str) -> list[tuple[int, int, bool]]:
    """Cut ``text`` into consecutive (start, end, is_match) pieces."""
    pieces, pos = [], 0
    for m in regex.finditer(text):
        if m.start() == m.end():
            continue
        if m.start() > pos:
            pieces.append((pos, m.start(), False))
        pieces.append((m.start(), m.end(), True))
        pos = m.end()
    if pos < len(text):
        pieces.append((pos, len(text), False))
    return pieces


def _apply_behavior(pieces, behavior: str) -> list[tuple[int, int]]:
    """Turn match/gap pieces into spans according to HF's split behaviors."""
    if behavior == "removed":
        return [(s, e) for s, e, m in pieces if not m]
    if behavior == "isolated":
        return [(s, e) for s, e, _ in pieces]
    out: list[list[int]] = []
    for s, e, is_match in pieces:
        if behavior == "merged_with_previous" and is_match and out:
            out[-1][1] = e
        elif behavior == "merged_with_next" and out and out[-1][2]:
            out[-1][1], out[-1][2] = e, is_match
        elif behavior == "contiguous" and is_match and out and out[-1][2]:
            out[-1][1] = e
        else:
            out.append([s, e, is_match])
    return [(s, e) for s, e, _ in out]
