"""The chunk caches of the pure-Python fast path: whitespace-free chunks to their tokens.

``word_encoder.WordEncoder`` splits a text at whitespace (``str.split()``, where its
pipeline cuts too) and looks each chunk up: ``Chunk`` entries (ids, pieces, word
indices, number of words) in a ``Generations`` cache. ``ChunkTokens`` keeps a text's ids
only and puts its offsets and word ids together from the cache when asked.

Not handled here: encoding a chunk (``word_encoder``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate
from typing import Protocol, cast

from ..encoding.lazy_encoding import IdTokens
from ..pipeline.models import Pieces

_NON_SPACE = re.compile(r"\S+")  # \s is str.isspace(), where str.split() cuts

# A chunk's ids, (id, start, end) per token, word index per token, number of words; all
# tuples, which the garbage collector stops tracking (a cold cache fills with thousands)
Chunk = tuple[tuple[int, ...], Pieces, tuple[int, ...], int]


class ChunkSource(Protocol):
    """What ``ChunkTokens`` asks its encoder: the cached entry of each chunk."""

    def chunk_entries(self, parts: list[str]) -> Sequence[Chunk]: ...


class Generations:
    """A bounded cache in two generations, the cheap cousin of LRU.

    Hot loops look keys up in ``young`` and call ``keep`` on a miss, after a look in
    ``old``. When ``young`` fills up it becomes ``old`` (the previous ``old`` is
    dropped), and keys still in use move back to ``young`` on their next miss.
    """

    __slots__ = ("young", "old", "limit")

    def __init__(self, limit: int):
        self.young: dict = {}
        self.old: dict = {}
        self.limit = limit

    def keep(self, key, value):
        """Store ``value`` under ``key`` in the young generation; return ``value``."""
        if len(self.young) >= self.limit:
            self.old, self.young = self.young, {}
        self.young[key] = value
        return value

    def __len__(self) -> int:
        return len(self.young) + len(self.old)


class ChunkTokens(IdTokens):
    """Raw tokens of a chunkable text: its ids, and its chunks looked up again when asked.

    Only the ids are kept (fewer objects per text for the garbage collector to walk);
    offsets and word ids are put together from the chunk cache when first asked for.
    Methods as ``lazy_encoding.ListTokens``.
    """

    __slots__ = ("_encoder", "_text")

    def __init__(self, encoder: ChunkSource, text: str, ids: list[int]):
        self._ids, self._encoder, self._text = ids, encoder, text  # one per text: no super()

    def offsets(self, before: tuple = (), after: tuple = ()) -> list[tuple[int, int]]:
        parts = self._text.split()
        body = chunk_offsets(self._text, parts, self._encoder.chunk_entries(parts))
        return [*before, *body, *after] if before or after else body

    def word_ids(self, before: tuple = (), after: tuple = ()) -> list[int | None]:
        body = chunk_word_ids(self._encoder.chunk_entries(self._text.split()))
        if before or after:
            return [*before, *body, *after]
        return cast("list[int | None]", body)  # a list of ints is one of ints or None


def word_chunk(pieces: Pieces) -> Chunk:
    """The cache entry of a chunk that is one word (or none: all its characters deleted)."""
    if len(pieces) == 1:
        return (pieces[0][0],), pieces, (0,), 1
    return tuple(i for i, _, _ in pieces), pieces, (0,) * len(pieces), 1 if pieces else 0


def chunk_offsets(text: str, parts: list[str], entries: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Offsets into ``text`` of the tokens of its chunks (``parts``, their ``entries``)."""
    return [(p + s, p + e) for p, entry in zip(chunk_starts(text, parts), entries, strict=True)
            for _, s, e in entry[1]]


def chunk_word_ids(entries: Sequence[Chunk]) -> list[int]:
    """The word index in the text of each token of its chunks."""
    firsts = accumulate((entry[3] for entry in entries), initial=0)
    return [first + w for first, entry in zip(firsts, entries, strict=False) for w in entry[2]]


def chunk_starts(text: str, parts: list[str]) -> list[int]:
    """Where each of ``text.split()``'s parts starts in ``text``."""
    body = text.lstrip()
    if " ".join(parts) != body.rstrip():  # not single spaces: look for each part
        return [m.start() for m in _NON_SPACE.finditer(text)]
    lead = len(text) - len(body)
    # single spaces between parts (most texts): their starts add up
    return [lead + i + before for i, before in enumerate(accumulate(map(len, parts),
                                                                    initial=0))][:len(parts)]


__all__ = ["Chunk", "ChunkSource", "ChunkTokens", "Generations", "word_chunk", "chunk_offsets",
           "chunk_word_ids"]
