"""Find literal added tokens (``[CLS]``, ``[MASK]`` …) in text, as HF's AddedVocabulary does.

Hugging Face ``tokenizers`` keeps the text of its added tokens whole: before the
normalizer runs, the original text is cut at every occurrence of an added token with
``normalized=False`` (leftmost-longest match), and each remaining segment is normalized,
then searched for the added tokens with ``normalized=True`` (their content normalized the
same way). ``lstrip``/``rstrip`` make a match swallow the whitespace beside it;
``single_word`` refuses matches glued to word characters. This module reproduces that
matching; ``Tokenizer`` decides when to use it (the ``huggingface`` flavor).

Not handled here: HF's ``encode_special_tokens`` switch (literal special tokens are
always kept whole here).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

Segment = tuple[int, int, "int | None"]  # (start, end, added token id or None)

_WORD_CHAR = re.compile(r"\w")
_SPACE_CHAR = re.compile(r"\s")
_SPACES_AT_START = re.compile(r"\s*")


@dataclass(frozen=True)
class AddedToken:
    """A token matched literally in the text (HF ``AddedToken``; ``id`` None: assign one).

    Defaults as HF's: not special, and ``normalized`` (matched in the normalized text)
    unless special. ``Tokenizer.add_special_tokens`` makes a token special, and then
    also not normalized unless ``normalized`` was given, as HF does.

    >>> AddedToken("<x>").normalized, AddedToken("[MASK]", special=True).normalized
    (True, False)
    """

    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = None  # type: ignore[assignment]  # None: not special
    special: bool = False
    id: int | None = None
    normalized_given: bool = field(default=True, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.content, str):
            raise TypeError(f"AddedToken content must be a str, got "
                            f"{type(self.content).__name__}")
        if self.normalized is None:  # frozen: set the resolved default once, here
            object.__setattr__(self, "normalized", not self.special)
            object.__setattr__(self, "normalized_given", False)

    def __str__(self) -> str:
        """The token's content, as HF's ``str(AddedToken(...))`` gives."""
        return self.content

    def as_special(self) -> AddedToken:
        """This token made special (HF ``add_special_tokens``): normalized only if asked."""
        if self.special:
            return self
        normalized = self.normalized if self.normalized_given else False
        return replace(self, special=True, normalized=normalized)

    def to_json(self, id_: int) -> dict:
        """HF's ``added_tokens`` entry, in HF's key order."""
        return {"id": id_, "content": self.content, "single_word": self.single_word,
                "lstrip": self.lstrip, "rstrip": self.rstrip, "normalized": self.normalized,
                "special": self.special}


def as_added_token(token: AddedToken | str, *, special: bool,
                   make_special: bool = False) -> AddedToken:
    """The ``AddedToken`` HF's ``add_tokens`` / ``add_special_tokens`` would add for ``token``.

    A string becomes a token with ``special`` (normalized unless special); an
    ``AddedToken`` is kept, or made special (``make_special``: ``add_special_tokens``).
    """
    if isinstance(token, str):
        return AddedToken(token, special=special)
    if not isinstance(token, AddedToken):
        raise TypeError(f"an added token must be a str or an AddedToken, got "
                        f"{type(token).__name__}")
    return token.as_special() if make_special else token


def _pattern(contents: Iterable[str]) -> re.Pattern | None:
    """An alternation that finds the leftmost, then longest, of ``contents``."""
    unique = sorted({c for c in contents if c}, key=lambda c: (-len(c), c))
    return re.compile("|".join(map(re.escape, unique))) if unique else None


class AddedVocabulary:
    """The added tokens of a tokenizer with their ids, and the matcher that finds them.

    ``tokens`` are ``(AddedToken, id)`` pairs; ``normalize`` (a ``str -> str``) is the
    tokenizer's normalizer, used on the content of ``normalized=True`` tokens.
    """

    def __init__(self, tokens: Iterable[tuple[AddedToken, int]],
                 normalize: Callable[[str], str] | None = None):
        self.entries: list[tuple[AddedToken, int]] = list(tokens)
        self.ids: dict[str, int] = {t.content: i for t, i in self.entries}
        self.tokens: dict[int, str] = {i: t.content for t, i in self.entries}
        self.special: frozenset[str] = frozenset(t.content for t, _ in self.entries if t.special)
        raw = [(t, i) for t, i in self.entries if not t.normalized]
        norm = [(t, i) for t, i in self.entries if t.normalized]
        self._raw = _Matcher({t.content: (t, i) for t, i in raw})
        self._first_chars = "".join(sorted({c[0] for c in self._raw.by_text if c}))
        normalize = normalize or (lambda s: s)
        self._norm = _Matcher({normalize(t.content): (t, i) for t, i in norm})

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def has_normalized(self) -> bool:
        return self._norm.pattern is not None

    def appears_in(self, text: str) -> bool:
        """Tell whether a ``normalized=False`` token is written in ``text`` (one search)."""
        pattern = self._raw.pattern
        return pattern is not None and pattern.search(text) is not None

    @property
    def search(self) -> Callable[[str], object] | None:
        """``appears_in``'s search (a match or None), or None when no token is written
        as is: for a caller that binds it once (the one-text lane)."""
        pattern = self._raw.pattern
        return None if pattern is None else pattern.search

    @property
    def first_chars(self) -> str:
        """The first characters of the ``normalized=False`` tokens (sorted, each once).

        A text holding none of them holds no such token: a scan for these is a
        cheap filter before ``appears_in``.
        """
        return self._first_chars

    def appears_in_any(self, texts: list[str]) -> bool:
        """Tell whether a ``normalized=False`` token may be written in one of ``texts``.

        One search over the texts joined by NUL, which no match can cross unless a
        token holds a NUL itself (then the answer is a cautious True).
        """
        if self._raw.pattern is None:
            return False
        if any("\x00" in content for content in self._raw.by_text):
            return True
        return self.appears_in("\x00".join(texts))

    def split(self, text: str) -> list[Segment]:
        """Cut original text at added tokens with ``normalized=False``."""
        return self._raw.split(text)

    def split_normalized(self, text: str) -> list[Segment]:
        """Cut normalized text at added tokens with ``normalized=True``."""
        return self._norm.split(text)


class _Matcher:
    """Leftmost-longest matching of a fixed set of strings, with HF's strip rules."""

    def __init__(self, by_text: dict[str, tuple[AddedToken, int]]):
        self.by_text = by_text
        self.pattern = _pattern(by_text)

    def split(self, text: str) -> list[Segment]:
        if self.pattern is None or not text:
            return [(0, len(text), None)]
        segments: list[Segment] = []
        pos = 0
        for m in self.pattern.finditer(text):
            token, id_ = self.by_text[m.group()]
            span = _stretch(text, m.start(), m.end(), token, pos)
            if span is None:
                continue
            start, stop = span
            if pos < start:
                segments.append((pos, start, None))
            segments.append((start, stop, id_))
            pos = stop
        if pos < len(text):
            segments.append((pos, len(text), None))
        return segments or [(0, len(text), None)]


def _stretch(text: str, start: int, stop: int, token: AddedToken,
             pos: int) -> tuple[int, int] | None:
    """Apply ``single_word`` (None: rejected), ``lstrip`` and ``rstrip`` to one match.

    Each looks only at the characters beside the match (``lstrip`` walks back no
    further than ``pos``, the end of the previous segment), so one scan of the text
    finds every match: no search from the text's start per match.
    """
    if token.single_word:
        glued_left = start > 0 and _WORD_CHAR.match(text, start - 1) is not None
        glued_right = stop < len(text) and _WORD_CHAR.match(text, stop) is not None
        if glued_left or glued_right:
            return None
    if token.lstrip:
        while start > pos and _SPACE_CHAR.match(text, start - 1) is not None:
            start -= 1
        start = max(start, pos)  # a match inside what the previous one swallowed
    if token.rstrip:
        stop = _SPACES_AT_START.match(text, stop).end()  # type: ignore[union-attr]
    return start, stop
