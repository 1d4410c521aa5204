"""HF's normalizers that edit the text: ``Strip``, ``Replace``, ``Prepend``.

Each reproduces HF ``tokenizers``' change stream, so offsets into the original text are
HF's: characters ``Strip`` removes leave no trace, ``Replace``'s content is aligned to
the *last* character of what it replaced, ``Prepend``'s text to the first character.

Each runs in one pass over the text, its alignments built in the same pass; ``Replace``
and ``Prepend`` refuse to grow a text past the cap of ``growth`` (checked before they
build it).

Not handled here: the character-mapping and Unicode normalizers (``normalizers``),
patterns (``patterns``: ``Replace`` takes a literal string or a regex of its subset).
"""

from __future__ import annotations

from itertools import repeat

from .char_tables import is_white_space
from .growth import check_growth
from .normalizers import NormalizedString, NormalizerBase
from .patterns import Matcher, Pieces


class Strip(NormalizerBase):
    """Remove whitespace (Rust's ``char::is_whitespace``) from the left and/or right end.

    >>> Strip().normalize_str("  hi \\n")
    'hi'
    """

    def __init__(self, left: bool = True, right: bool = True):
        self.left, self.right = bool(left), bool(right)

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        text = ns.normalized
        lead = _run_length(text, self.left)
        trail = _run_length(text[::-1], self.right)
        if not lead and not trail:
            return ns
        return ns.slice(lead, max(lead, len(text) - trail))  # HF: removed chars leave no trace

    def to_config(self) -> dict:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    def __repr__(self) -> str:
        return f"Strip(left={self.left!r}, right={self.right!r})"


def _run_length(text: str, enabled: bool) -> int:
    """How many whitespace characters ``text`` starts with (0 when not ``enabled``)."""
    if not enabled:
        return 0
    n = 0
    while n < len(text) and is_white_space(text[n]):
        n += 1
    return n


class Replace(NormalizerBase):
    """Replace every match of a pattern by ``content`` (HF ``normalizers.Replace``).

    ``regex=False`` matches ``pattern`` literally (HF's ``String`` pattern); a regex
    must be in the subset ``patterns`` translates exactly.

    >>> Replace("``", '"').normalize_str("``hi''")
    '"hi\\'\\''
    """

    def __init__(self, pattern: str, content: str, *, regex: bool = False):
        self.matcher = Matcher(pattern, regex=regex, field="Replace pattern")
        self.content = content

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        pieces = self.matcher.pieces(ns.normalized)
        removed = [end - start for start, end, is_match in pieces if is_match]
        if not removed:
            return ns
        grown = len(ns.normalized) + len(self.content) * len(removed) - sum(removed)
        check_growth(grown, len(ns.original), self)
        return _replaced(ns, pieces, self.content)

    def to_config(self) -> dict:
        return {"type": "Replace", "pattern": self.matcher.to_config(), "content": self.content}

    def __repr__(self) -> str:
        return f"Replace({self.matcher!r}, content={self.content!r})"


def _replaced(ns: NormalizedString, pieces: Pieces, content: str) -> NormalizedString:
    """``ns`` with each matched piece replaced by ``content``, in one pass.

    HF aligns every character of ``content`` to the last character of the match it
    replaces (its change stream: the match removed, then ``content`` inserted after it).
    """
    text, aligns = ns.normalized, ns.alignments
    parts: list[str] = []
    new_aligns: list[tuple[int, int]] = []
    for start, end, is_match in pieces:
        if is_match:
            parts.append(content)
            new_aligns.extend(repeat(aligns[end - 1], len(content)))
        else:
            parts.append(text[start:end])
            new_aligns.extend(aligns[start:end])
    return NormalizedString(ns.original, "".join(parts), tuple(new_aligns))


class Prepend(NormalizerBase):
    """Put ``prepend`` before a non-empty text, aligned to its first character.

    >>> Prepend("\\u2581").normalize_str("hey")
    '\\u2581hey'
    """

    def __init__(self, prepend: str):
        self.prepend = prepend

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        if not ns.normalized:
            return ns
        check_growth(len(ns.normalized) + len(self.prepend), len(ns.original), self)
        changes = [(ch, 1 if i else 0) for i, ch in enumerate(self.prepend)]
        changes.append((ns.normalized[0], 1))
        return ns.apply_changes(changes, start=0, end=1)

    def to_config(self) -> dict:
        return {"type": "Prepend", "prepend": self.prepend}

    def __repr__(self) -> str:
        return f"Prepend({self.prepend!r})"
