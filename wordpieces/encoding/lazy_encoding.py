"""Build an ``Encoding``'s lists on first read: the fast path of ``encode_batch``.

An ``Encoding`` holds seven lists per text (ids, tokens, offsets, word ids, type ids and
two masks). Building them all for every text of a batch costs several times what the
tokenization itself costs, and most callers read two or three of them. A
``LazyEncoding`` keeps the tokenizer's raw output (raw tokens: ids now, offsets and word
ids when asked) and a ``Layout`` (the special and padding tokens around it), and builds
each list the first time it is read, then keeps it. Hugging Face's ``Encoding`` does
the same in effect: its lists become Python objects when read.

Every field is independent, exactly as on a plain ``Encoding``: assigning ``ids`` does
not change ``tokens``. Any operation that needs the lists (``truncate``, ``merge``,
``==``, pickling) reads them, so it behaves as on a plain ``Encoding``.

An encoding from a native batch keeps that batch's flat output (about 20 bytes per
token of the whole batch) alive until it is dropped, as a numpy view keeps its base.

Raw tokens are any object with ``len()`` and the methods of ``ListTokens`` here (each
builds a new list, with given items before and after the row): ``ListTokens`` (lists
at hand), ``fast.word_encoder.ChunkTokens`` (pure Python), ``fast.backend.ColumnTokens``
(native batches, built in C).

Not handled here: pairs and overflowing windows (built eagerly by ``processors``),
deciding when the fast path applies (``tokenizer``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from .encoding import Encoding

# A token put around the sequence (special or padding): (id, token, type id, attention).
# Its offsets are (0, 0), its word id None and its special_tokens_mask 1, as in HF.
Extra = tuple[int, str, int, int]


class IdTokens:
    """Raw tokens' ids, and what comes from them alone (length, token names).

    Each method returns a new list: ``before`` + the row + ``after`` (the layout's extra
    items), so that no two encodings ever share a list.
    """

    __slots__ = ("_ids",)

    def __init__(self, ids: list[int]):
        self._ids = ids

    def __len__(self) -> int:
        return len(self._ids)

    def ids(self, before: tuple = (), after: tuple = ()) -> list[int]:
        return [*before, *self._ids, *after]

    def tokens(self, names: list, before: tuple = (), after: tuple = ()) -> list[str]:
        return [*before, *map(names.__getitem__, self._ids), *after]


class ListTokens(IdTokens):
    """Raw tokens already held as lists (the general paths)."""

    __slots__ = ("_offsets", "_word_ids")

    def __init__(self, ids: list[int], offsets: list[tuple[int, int]], word_ids: list[int]):
        super().__init__(ids)
        self._offsets, self._word_ids = offsets, word_ids

    def offsets(self, before: tuple = (), after: tuple = ()) -> list[tuple[int, int]]:
        return [*before, *self._offsets, *after]

    def word_ids(self, before: tuple = (), after: tuple = ()) -> list[int | None]:
        return [*before, *self._word_ids, *after]


# The lists of an Encoding, in the order LazyEncoding keeps them. The first four come
# from the raw tokens; the last three are one value per token (see Layout.frames).
FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
          "attention_mask")


@dataclass(frozen=True, eq=False)
class Layout:
    """What surrounds one sequence: extra tokens before and after it, and its type id.

    ``id_tokens`` names each id. ``sequence_index`` is what ``sequence_ranges`` records
    for the sequence (``None``: nothing, as for an encoding without a post-processor).
    """

    id_tokens: list
    type_id: int = 0
    prefix: tuple[Extra, ...] = ()
    suffix: tuple[Extra, ...] = ()
    sequence_index: int | None = None

    @functools.cached_property
    def frames(self) -> tuple[tuple, ...]:
        """What goes before and after the sequence in each of ``FIELDS``' lists.

        For the last three, also the value of each sequence token. Worked out once per
        layout (on first use), not once per list.
        """
        p, s = len(self.prefix), len(self.suffix)
        before, after = _transpose(self.prefix), _transpose(self.suffix)
        return ((before[0], after[0]), (before[1], after[1]),
                (((0, 0),) * p, ((0, 0),) * s), ((None,) * p, (None,) * s),
                (before[2], after[2], self.type_id), ((1,) * p, (1,) * s, 0),
                (before[3], after[3], 1))

    def ranges(self, n: int) -> dict[int, tuple[int, int]]:
        """``sequence_ranges`` of a sequence of ``n`` tokens in this layout."""
        if self.sequence_index is None:
            return {}
        start = len(self.prefix)
        return {self.sequence_index: (start, start + n)}

    def padded(self, n: int, direction: str, pad: Extra) -> Layout:
        """This layout with ``n`` padding tokens added on one side."""
        if direction == "left":
            return replace(self, prefix=(pad,) * n + self.prefix)
        return replace(self, suffix=self.suffix + (pad,) * n)


def _transpose(extras: tuple[Extra, ...]) -> tuple[tuple, ...]:
    return tuple(zip(*extras, strict=True)) if extras else ((), (), (), ())


def _ids(raw, layout: Layout) -> list:
    return raw.ids(*layout.frames[0])


def _tokens(raw, layout: Layout) -> list:
    return raw.tokens(layout.id_tokens, *layout.frames[1])


def _offsets(raw, layout: Layout) -> list:
    return raw.offsets(*layout.frames[2])


def _word_ids(raw, layout: Layout) -> list:
    return raw.word_ids(*layout.frames[3])


def _per_token(index: int):
    """The builder of list ``FIELDS[index]`` that holds one value per sequence token."""
    def build(raw, layout: Layout) -> list:
        before, after, value = layout.frames[index]
        return [*before, *(value,) * len(raw), *after]
    return build


# The builder of each list of FIELDS, from the raw tokens and the layout.
_BUILDERS = (_ids, _tokens, _offsets, _word_ids, _per_token(4), _per_token(5), _per_token(6))


# LazyEncoding._state bits: one per FIELDS entry (set: that list is in its slot), and
# TOUCHED (something was read or set: the encoding is no longer fresh).
TOUCHED = 1 << len(FIELDS)


def _lazy_field(index: int) -> property:
    """A property for ``FIELDS[index]``: the list is built on first read, then kept.

    It lives in Encoding's own slot; a bit of ``_state`` says it is there (no extra
    container per encoding, which the garbage collector would scan again and again).
    """
    build = _BUILDERS[index]
    slot = Encoding.__dict__[FIELDS[index]]
    load, store = slot.__get__, slot.__set__
    bit = 1 << index

    def get(self):
        if self._state & bit:
            return load(self)
        value = build(self._raw, self._layout)
        store(self, value)
        self._state |= bit | TOUCHED
        return value

    def put(self, value) -> None:
        store(self, value)
        self._state |= bit | TOUCHED

    return property(get, put, doc=f"{FIELDS[index]} (built on first read)")


def _window_field(name: str, build) -> property:
    """A property over Encoding's slot ``name``, set from ``build(self)`` on first read."""
    slot = Encoding.__dict__[name]

    def get(self):
        self._state |= TOUCHED
        try:
            return slot.__get__(self)
        except AttributeError:  # first read
            value = build(self)
            slot.__set__(self, value)
            return value

    def put(self, value) -> None:
        self._state |= TOUCHED
        slot.__set__(self, value)

    return property(get, put, doc=f"{name} (set on first read)")


class LazyEncoding(Encoding):
    """An ``Encoding`` whose lists are built from raw tokens when first read.

    >>> names = ["[CLS]", "hi", "##s"]
    >>> enc = LazyEncoding(ListTokens([1, 2], [(0, 2), (2, 3)], [0, 0]),
    ...                    Layout(names, prefix=((0, "[CLS]", 0, 1),), sequence_index=0))
    >>> enc.tokens, enc.offsets, enc.sequence_ranges
    (['[CLS]', 'hi', '##s'], [(0, 0), (0, 2), (2, 3)], {0: (1, 3)})
    """

    # _state: 0 while fresh (nothing read or set), then bits (see TOUCHED). The lists,
    # windows and ranges live in Encoding's own slots, set when first read.
    __slots__ = ("_raw", "_layout", "_state")

    def __init__(self, raw, layout: Layout):
        self._raw, self._layout, self._state = raw, layout, 0

    # Encoding's lists, one property each over the slot list (order of FIELDS).
    ids = _lazy_field(0)
    tokens = _lazy_field(1)
    offsets = _lazy_field(2)
    word_ids = _lazy_field(3)
    type_ids = _lazy_field(4)
    special_tokens_mask = _lazy_field(5)
    attention_mask = _lazy_field(6)
    # No windows until truncation makes some; ranges from the layout.
    overflowing = _window_field("overflowing", lambda self: [])
    sequence_ranges = _window_field("sequence_ranges",
                                    lambda self: self._layout.ranges(len(self._raw)))

    @property
    def fresh(self) -> bool:
        """True while nothing has been read from it or set on it."""
        return not self._state

    def relayout(self, layout: Layout) -> LazyEncoding:
        """Put the raw tokens in another layout (only while ``fresh``); return self."""
        assert not self._state, "relayout of an encoding already read"
        self._layout = layout
        return self

    def pad(self, length: int, *, direction: str = "right", pad_id: int = 0,
            pad_type_id: int = 0, pad_token: str = "[PAD]") -> None:
        """Pad as ``Encoding.pad`` does; while fresh, only the layout changes."""
        n = length - len(self)
        if n <= 0 or self._state:
            super().pad(length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id,
                        pad_token=pad_token)
            return
        self._layout = self._layout.padded(n, direction, (pad_id, pad_token, pad_type_id, 0))

    def __len__(self) -> int:
        if not self._state:
            return len(self._layout.prefix) + len(self._raw) + len(self._layout.suffix)
        return len(self.ids)

    def __reduce_ex__(self, protocol):
        return _plain, (self.copy(),)  # pickled (and deep-copied) as a plain Encoding


def _plain(encoding: Encoding) -> Encoding:
    return encoding
