"""Build an ``Encoding``'s lists on first read: the fast path of ``encode_batch``.

An ``Encoding`` holds seven lists per text (ids, tokens, offsets, word ids, type ids and
two masks). Building them all for every text of a batch costs several times what the
tokenization itself costs, and most callers read two or three of them. A
``LazyEncoding`` keeps the tokenizer's raw output (raw tokens: ids now, offsets and word
ids when asked) and a ``Layout`` (the special and padding tokens around it), and builds
each list the first time it is read; after that it is an ordinary attribute. Hugging
Face's ``Encoding`` does the same in effect: its lists become Python objects when read.

Every field is independent, exactly as on a plain ``Encoding``: assigning ``ids`` does
not change ``tokens``. Any operation that needs the lists (``truncate``, ``merge``,
``==``, pickling) reads them, so it behaves as on a plain ``Encoding``.

Raw tokens are any object with ``len()`` and the methods of ``ListTokens`` here (each
builds a new list, with given items before and after the row): ``ListTokens`` (lists
at hand), ``splitting.ChunkTokens`` (pure Python), ``backend.ColumnTokens`` (native
batches, built in C).

Not handled here: pairs and overflowing windows (built eagerly by ``processors``),
deciding when the fast path applies (``tokenizer``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .encoding import Encoding

# A token put around the sequence (special or padding): (id, token, type id, attention).
# Its offsets are (0, 0), its word id None and its special_tokens_mask 1, as in HF.
Extra = tuple[int, str, int, int]


class ListTokens:
    """Raw tokens already held as lists (the general paths).

    Each method returns a new list: ``before`` + the row + ``after`` (the layout's extra
    items), so that no two encodings ever share a list.
    """

    __slots__ = ("_ids", "_offsets", "_word_ids")

    def __init__(self, ids: list[int], offsets: list[tuple[int, int]], word_ids: list[int]):
        self._ids, self._offsets, self._word_ids = ids, offsets, word_ids

    def __len__(self) -> int:
        return len(self._ids)

    def ids(self, before: tuple = (), after: tuple = ()) -> list[int]:
        return [*before, *self._ids, *after]

    def tokens(self, names: list, before: tuple = (), after: tuple = ()) -> list[str]:
        return [*before, *map(names.__getitem__, self._ids), *after]

    def offsets(self, before: tuple = (), after: tuple = ()) -> list[tuple[int, int]]:
        return [*before, *self._offsets, *after]

    def word_ids(self, before: tuple = (), after: tuple = ()) -> list[int | None]:
        return [*before, *self._word_ids, *after]


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

    def ranges(self, n: int) -> dict[int, tuple[int, int]]:
        """``sequence_ranges`` of a sequence of ``n`` tokens in this layout."""
        if self.sequence_index is None:
            return {}
        start = len(self.prefix)
        return {self.sequence_index: (start, start + n)}

    def __post_init__(self):
        # The extras by column, read once per list built: transposed once here.
        object.__setattr__(self, "_columns", (_transpose(self.prefix), _transpose(self.suffix)))

    def extras(self, column: int) -> tuple[tuple, tuple]:
        """One column of the extras before and after the sequence (0 ids, 1 tokens,
        2 type ids, 3 attention)."""
        before, after = self._columns
        return before[column], after[column]

    def filler(self, value) -> tuple[tuple, tuple]:
        """``value`` for each extra before and after the sequence."""
        return (value,) * len(self.prefix), (value,) * len(self.suffix)

    def around(self, n: int, value, column: int) -> list:
        """``value`` for each of the ``n`` tokens, with one column of the extras around."""
        before, after = self.extras(column)
        return [*before, *(value,) * n, *after]

    def padded(self, n: int, direction: str, pad: Extra) -> Layout:
        """This layout with ``n`` padding tokens added on one side."""
        if direction == "left":
            return replace(self, prefix=(pad,) * n + self.prefix)
        return replace(self, suffix=self.suffix + (pad,) * n)


def _transpose(extras: tuple[Extra, ...]) -> tuple[tuple, ...]:
    return tuple(zip(*extras, strict=True)) if extras else ((), (), (), ())


def _lazy_field(name: str) -> property:
    """A property over ``Encoding``'s slot ``name`` that builds the list on first read."""
    slot = Encoding.__dict__[name]

    def get(self):
        try:
            return slot.__get__(self)
        except AttributeError:  # first read
            value = _BUILDERS[name](self._raw, self._layout)
            slot.__set__(self, value)
            self._touched = True
            return value

    def put(self, value) -> None:
        slot.__set__(self, value)
        self._touched = True

    return property(get, put, doc=f"{name} (built on first read)")


class LazyEncoding(Encoding):
    """An ``Encoding`` whose lists are built from raw tokens when first read.

    >>> names = ["[CLS]", "hi", "##s"]
    >>> enc = LazyEncoding(ListTokens([1, 2], [(0, 2), (2, 3)], [0, 0]),
    ...                    Layout(names, prefix=((0, "[CLS]", 0, 1),), sequence_index=0))
    >>> enc.tokens, enc.offsets, enc.sequence_ranges
    (['[CLS]', 'hi', '##s'], [(0, 0), (0, 2), (2, 3)], {0: (1, 3)})
    """

    __slots__ = ("_raw", "_layout", "_touched")

    def __init__(self, raw, layout: Layout):
        self._raw, self._layout, self._touched = raw, layout, False
        self.overflowing = []
        self.sequence_ranges = layout.ranges(len(raw))

    @property
    def fresh(self) -> bool:
        """True while no list has been read or set, and no window cut off."""
        return not self._touched and not self.overflowing

    def relayout(self, layout: Layout) -> LazyEncoding:
        """Put the raw tokens in another layout; return self.

        Only for a ``fresh`` encoding (the caller checks: lists already built would
        keep the old layout).
        """
        self._layout = layout
        self.sequence_ranges = layout.ranges(len(self._raw))
        return self

    def pad(self, length: int, *, direction: str = "right", pad_id: int = 0,
            pad_type_id: int = 0, pad_token: str = "[PAD]") -> None:
        """Pad as ``Encoding.pad`` does; while fresh, only the layout changes."""
        n = length - len(self)
        if n <= 0 or not self.fresh:
            super().pad(length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id,
                        pad_token=pad_token)
            return
        self._layout = self._layout.padded(n, direction, (pad_id, pad_token, pad_type_id, 0))
        if direction == "left":
            self.sequence_ranges = {k: (s + n, e + n) for k, (s, e) in self.sequence_ranges.items()}

    def __len__(self) -> int:
        if self._touched:
            return len(self.ids)
        return len(self._layout.prefix) + len(self._raw) + len(self._layout.suffix)

    def __reduce_ex__(self, protocol):
        return _plain, (self.copy(),)  # pickled (and deep-copied) as a plain Encoding


def _plain(encoding: Encoding) -> Encoding:
    return encoding


def _ids(raw, layout: Layout) -> list[int]:
    return raw.ids(*layout.extras(0))


def _tokens(raw, layout: Layout) -> list[str]:
    return raw.tokens(layout.id_tokens, *layout.extras(1))


def _offsets(raw, layout: Layout) -> list[tuple[int, int]]:
    return raw.offsets(*layout.filler((0, 0)))


def _word_ids(raw, layout: Layout) -> list[int | None]:
    return raw.word_ids(*layout.filler(None))


def _type_ids(raw, layout: Layout) -> list[int]:
    return layout.around(len(raw), layout.type_id, 2)


def _special_tokens_mask(raw, layout: Layout) -> list[int]:
    before, after = layout.filler(1)
    return [*before, *(0,) * len(raw), *after]


def _attention_mask(raw, layout: Layout) -> list[int]:
    return layout.around(len(raw), 1, 3)


_BUILDERS = {"ids": _ids, "tokens": _tokens, "offsets": _offsets, "word_ids": _word_ids,
             "type_ids": _type_ids, "special_tokens_mask": _special_tokens_mask,
             "attention_mask": _attention_mask}

for _name in _BUILDERS:
    setattr(LazyEncoding, _name, _lazy_field(_name))
