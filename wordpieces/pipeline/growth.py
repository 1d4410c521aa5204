"""Cap how much normalization may grow a text: a multiple of its length plus a constant.

A normalizer read from a file can grow a text without bound: ``Replace("a", "a" * 100)``
three times in a ``Sequence`` turns one character into a million, a thousand-fold
replacement three times into a billion. So every normalized text is held to at most
``MAX_GROWTH_FACTOR`` times the length of the text it came from plus
``MAX_GROWTH_CHARS`` (64 x n + 65,536 characters); a stage that would pass the cap raises
``TokenizeError`` naming itself. ``Replace`` and ``Prepend``, whose growth a file sets,
check before they build anything; ``Sequence`` checks after each of its stages, whose
growth is bounded by a small factor otherwise.

Real normalizers stay far below the cap: NFKD/NFKC expand one character to at most 18
(U+FDFA), a BERT normalizer spaces a CJK character out to 3, ``Prepend`` adds its text
once (the constant leaves room for a long one), and a ``Replace`` growing a word a
hundredfold still fits on short texts.

Decoders are held to the same cap: a ``Replace`` decoder checks its tokens before
joining, and a decoder ``Sequence`` checks after each stage against the tokens it was given.

Not handled here: the stages themselves (``normalizers``, ``edit_normalizers``,
``decoders``).
"""

from __future__ import annotations

from ..errors import TokenizeError

MAX_GROWTH_FACTOR = 64
"""A normalized text may be this many times as long as the text it came from…"""

MAX_GROWTH_CHARS = 1 << 16
"""…plus this many characters (65,536)."""


def growth_limit(original_length: int) -> int:
    """The most characters normalizing a text of ``original_length`` may give."""
    return MAX_GROWTH_FACTOR * original_length + MAX_GROWTH_CHARS


def check_growth(new_length: int, original_length: int, stage: object, *,
                 kind: str = "normalizer") -> None:
    """Refuse, naming ``stage``, a normalized length over the cap for its original text.

    ``kind="decoder"``: the same cap on what decoding makes of the tokens' text (a
    ``Replace`` decoder grows it as a ``Replace`` normalizer does).
    """
    limit = growth_limit(original_length)
    if new_length > limit:
        what = "normalization" if kind == "normalizer" else "decoding"
        raise TokenizeError(
            f"the {kind} {_shown(stage)} would grow a text of {_chars(original_length)} "
            f"to {_chars(new_length)}, over the cap of {limit:,} ({what} may "
            f"make a text at most {MAX_GROWTH_FACTOR} times as long plus "
            f"{MAX_GROWTH_CHARS:,} characters)")


def _chars(n: int) -> str:
    return f"{n:,} character" + ("" if n == 1 else "s")


def _shown(stage: object) -> str:
    """``repr`` of a stage, cut short: a Replace content may be long."""
    text = repr(stage)
    return text if len(text) <= 80 else text[:77] + "..."
