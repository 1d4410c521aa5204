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

A pair (``LazyPairEncoding``) holds both sequences' raw tokens and a ``PairLayout``
(what goes before, between and after them); each list is built in one call
(``ids_with``… of the first raw tokens, given the second).

An input that truncation cut (``LazyCutEncoding``, ``LazyCutPairEncoding``) holds the
kept part of its raw tokens (``window``); its overflowing windows are made by the
reference path when first read (``PendingWindows``), padded as the encoding was.

Not handled here: the windows themselves (``Encoding.truncate``, ``processors``),
deciding when the fast path applies (``encode_batch``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

from .encoding import Encoding, check_direction

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

    # A pair's lists: this sequence, then ``second`` (raw tokens of the same kind), with
    # ``middle`` between them. Built from the one-sequence methods of both.

    def ids_with(self, second, before: tuple, middle: tuple, after: tuple) -> list[int]:
        out = self.ids(before, middle)
        out += second.ids((), after)
        return out

    def tokens_with(self, names: list, second, before: tuple, middle: tuple,
                    after: tuple) -> list[str]:
        out = self.tokens(names, before, middle)
        out += second.tokens(names, (), after)
        return out

    def offsets_with(self, second, before: tuple, middle: tuple,
                     after: tuple) -> list[tuple[int, int]]:
        out = self.offsets(before, middle)
        out += second.offsets((), after)
        return out

    def word_ids_with(self, second, before: tuple, middle: tuple,
                      after: tuple) -> list[int | None]:
        out = self.word_ids(before, middle)
        out += second.word_ids((), after)
        return out

    def window(self, start: int, stop: int) -> ListTokens:
        """Tokens ``[start, stop)`` (the part truncation keeps) as raw tokens of their own."""
        return ListTokens(self.ids()[start:stop], self.offsets()[start:stop],
                          self.word_ids()[start:stop])  # type: ignore[arg-type]

    def offsets(self, before: tuple = (), after: tuple = ()) -> list[tuple[int, int]]:
        raise NotImplementedError(f"{type(self).__name__} holds ids only")

    def word_ids(self, before: tuple = (), after: tuple = ()) -> list[int | None]:
        raise NotImplementedError(f"{type(self).__name__} holds ids only")


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

    def window(self, start: int, stop: int) -> ListTokens:
        return ListTokens(self._ids[start:stop], self._offsets[start:stop],
                          self._word_ids[start:stop])


# The lists of an Encoding, in the order LazyEncoding keeps them. The first four come
# from the raw tokens; the last three are one value per token (see Layout.frames).
FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
          "attention_mask")


def _extra_frames(extras: tuple[tuple[Extra, ...], ...]) -> tuple[tuple, ...]:
    """Per field of ``FIELDS``, the items of each group of extras (no per-token values)."""
    columns = [_transpose(group) for group in extras]
    return (tuple(c[0] for c in columns), tuple(c[1] for c in columns),
            tuple(((0, 0),) * len(group) for group in extras),
            tuple((None,) * len(group) for group in extras),
            tuple(c[2] for c in columns), tuple((1,) * len(group) for group in extras),
            tuple(c[3] for c in columns))


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
        frames = _extra_frames((self.prefix, self.suffix))
        values = (self.type_id, 0, 1)
        return frames[:4] + tuple((*frames[4 + i], values[i]) for i in range(3))

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


@dataclass(frozen=True, eq=False)
class PairLayout:
    """What surrounds the two sequences of a pair: extras before, between and after them.

    The sequences are named in the order they appear: ``sequence_indices`` is what
    ``sequence_ranges`` records for each (``(0, 1)``, or ``(1, 0)`` for a template that
    puts ``$B`` first), ``type_ids`` the type id of each one's tokens.
    """

    id_tokens: list
    type_ids: tuple[int, int] = (0, 1)
    prefix: tuple[Extra, ...] = ()
    middle: tuple[Extra, ...] = ()
    suffix: tuple[Extra, ...] = ()
    sequence_indices: tuple[int, int] = (0, 1)

    @functools.cached_property
    def frames(self) -> tuple[tuple, ...]:
        """Per list of ``FIELDS``: (before, middle, after), plus each sequence's value
        in the last three lists."""
        frames = _extra_frames((self.prefix, self.middle, self.suffix))
        values = (self.type_ids, (0, 0), (1, 1))
        return frames[:4] + tuple((*frames[4 + i], *values[i]) for i in range(3))

    def ranges(self, n1: int, n2: int) -> dict[int, tuple[int, int]]:
        """``sequence_ranges`` of sequences of ``n1`` then ``n2`` tokens (in that order)."""
        start1 = len(self.prefix)
        start2 = start1 + n1 + len(self.middle)
        first, second = self.sequence_indices
        return {first: (start1, start1 + n1), second: (start2, start2 + n2)}

    def padded(self, n: int, direction: str, pad: Extra) -> PairLayout:
        """This layout with ``n`` padding tokens added on one side."""
        if direction == "left":
            return replace(self, prefix=(pad,) * n + self.prefix)
        return replace(self, suffix=self.suffix + (pad,) * n)


def _transpose(extras: tuple[Extra, ...]) -> tuple[tuple, ...]:
    return tuple(zip(*extras, strict=True)) if extras else ((), (), (), ())


# The builders of each list of FIELDS, from a lazy encoding's raw tokens and layout.

def _ids(enc) -> list:
    return enc._raw.ids(*enc._layout.frames[0])


def _tokens(enc) -> list:
    layout = enc._layout
    return enc._raw.tokens(layout.id_tokens, *layout.frames[1])


def _offsets(enc) -> list:
    return enc._raw.offsets(*enc._layout.frames[2])


def _word_ids(enc) -> list:
    return enc._raw.word_ids(*enc._layout.frames[3])


def _per_token(index: int):
    """The builder of list ``FIELDS[index]`` that holds one value per sequence token."""
    def build(enc) -> list:
        before, after, value = enc._layout.frames[index]
        return [*before, *(value,) * len(enc._raw), *after]
    return build


_BUILDERS = (_ids, _tokens, _offsets, _word_ids, _per_token(4), _per_token(5), _per_token(6))


def _pair_ids(enc) -> list:
    return enc._raw.ids_with(enc._second, *enc._layout.frames[0])


def _pair_tokens(enc) -> list:
    layout = enc._layout
    return enc._raw.tokens_with(layout.id_tokens, enc._second, *layout.frames[1])


def _pair_offsets(enc) -> list:
    return enc._raw.offsets_with(enc._second, *enc._layout.frames[2])


def _pair_word_ids(enc) -> list:
    return enc._raw.word_ids_with(enc._second, *enc._layout.frames[3])


def _pair_per_token(index: int):
    """``_per_token`` for a pair: each sequence's value, extras around and between."""
    def build(enc) -> list:
        before, middle, after, first, second = enc._layout.frames[index]
        out = [*before, *(first,) * len(enc._raw), *middle]
        out += [second] * len(enc._second)
        out += after
        return out
    return build


_PAIR_BUILDERS = (_pair_ids, _pair_tokens, _pair_offsets, _pair_word_ids, _pair_per_token(4),
                  _pair_per_token(5), _pair_per_token(6))


# LazyEncoding._state bits: one per FIELDS entry (set: that list is in its slot), and
# TOUCHED (something was read or set: the encoding is no longer fresh).
TOUCHED = 1 << len(FIELDS)


def _lazy_field(index: int, build) -> property:
    """A property for ``FIELDS[index]``: the list is ``build(self)`` on first read, then kept.

    It lives in Encoding's own slot; a bit of ``_state`` says it is there (no extra
    container per encoding, which the garbage collector would scan again and again).
    """
    slot = Encoding.__dict__[FIELDS[index]]
    load, store = slot.__get__, slot.__set__
    bit = 1 << index

    def get(self):
        if self._state & bit:
            return load(self)
        value = build(self)
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
    ids = _lazy_field(0, _BUILDERS[0])
    tokens = _lazy_field(1, _BUILDERS[1])
    offsets = _lazy_field(2, _BUILDERS[2])
    word_ids = _lazy_field(3, _BUILDERS[3])
    type_ids = _lazy_field(4, _BUILDERS[4])
    special_tokens_mask = _lazy_field(5, _BUILDERS[5])
    attention_mask = _lazy_field(6, _BUILDERS[6])
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
        check_direction(direction, "padding")
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


class LazyPairEncoding(LazyEncoding):
    """A ``LazyEncoding`` of a pair: two sequences' raw tokens in a ``PairLayout``.

    ``raw`` and ``second`` are in the order the layout puts them; both are raw tokens
    of the same kind (two ``Row``s, or two Python ones).

    >>> names = ["[CLS]", "[SEP]", "hi", "yo"]
    >>> enc = LazyPairEncoding(ListTokens([2], [(0, 2)], [0]), ListTokens([3], [(0, 2)], [0]),
    ...                        PairLayout(names, middle=((1, "[SEP]", 0, 1),)))
    >>> enc.tokens, enc.type_ids, enc.word_ids, enc.sequence_ranges
    (['hi', '[SEP]', 'yo'], [0, 0, 1], [0, None, 0], {0: (0, 1), 1: (2, 3)})
    """

    __slots__ = ("_second",)
    _layout: PairLayout  # type: ignore[assignment]  # the slot holds a pair layout here

    def __init__(self, raw, second, layout: PairLayout):
        self._raw, self._second, self._layout, self._state = raw, second, layout, 0

    ids = _lazy_field(0, _PAIR_BUILDERS[0])
    tokens = _lazy_field(1, _PAIR_BUILDERS[1])
    offsets = _lazy_field(2, _PAIR_BUILDERS[2])
    word_ids = _lazy_field(3, _PAIR_BUILDERS[3])
    type_ids = _lazy_field(4, _PAIR_BUILDERS[4])
    special_tokens_mask = _lazy_field(5, _PAIR_BUILDERS[5])
    attention_mask = _lazy_field(6, _PAIR_BUILDERS[6])
    sequence_ranges = _window_field("sequence_ranges", lambda self: self._layout.ranges(
        len(self._raw), len(self._second)))

    def relayout(self, layout) -> LazyEncoding:
        raise TypeError("a pair encoding keeps its PairLayout")

    def __len__(self) -> int:
        if not self._state:
            layout = self._layout
            return (len(layout.prefix) + len(self._raw) + len(layout.middle)
                    + len(self._second) + len(layout.suffix))
        return len(self.ids)


def lazy_encodings(raws: list, layout: Layout) -> list[Encoding]:
    """One fresh ``LazyEncoding`` per raw tokens of ``raws``, all in ``layout``.

    The reference of the native ``Row.lazy_encodings(LazyEncoding, raws, layout)``,
    which makes the same objects in one call (``encode.sequences.make_lazy``).
    """
    return [LazyEncoding(raw, layout) for raw in raws]


def lazy_pair(first: LazyEncoding, second: LazyEncoding, layout: PairLayout) -> LazyEncoding:
    """The pair of two fresh one-sequence lazy encodings in ``layout``.

    ``first`` and ``second`` are the pair's sequences 0 and 1 (input order); the layout
    says in which order they appear.
    """
    if first._state or second._state:
        raise ValueError("lazy_pair takes fresh encodings: these were already read")
    if layout.sequence_indices[0]:  # (1, 0): the template puts $B first
        first, second = second, first
    return LazyPairEncoding(first._raw, second._raw, layout)


# How each list of FIELDS is built, for a C form of the properties (``use_fields``):
# (kind, method of the raw tokens) for one sequence and for a pair. "names" passes the
# layout's id_tokens first; "fill" is one value per token (no method).
_FIELD_KINDS = (("call", "ids"), ("names", "tokens"), ("call", "offsets"), ("call", "word_ids"),
                ("fill", ""), ("fill", ""), ("fill", ""))

# The Python properties, kept when ``use_fields`` replaces them (the reference).
PYTHON_FIELDS: dict[tuple[type, str], property] = {}


def use_fields(lazy_field: Callable) -> None:
    """Replace the lazy lists' Python properties by descriptors ``lazy_field`` makes.

    Why: a first read through a property runs two Python frames, several times what
    building the list costs in C; the engine passes the native ``Row.lazy_field``,
    whose descriptors build the same lists from the same raw tokens and layouts (any
    kind of raw tokens; Rows read directly). ``lazy_field(owner, name, slot, index,
    kind, method, pair, touched)``: see ``_FIELD_KINDS``.
    """
    for cls, pair in ((LazyEncoding, False), (LazyPairEncoding, True)):
        for index, (name, (kind, method)) in enumerate(zip(FIELDS, _FIELD_KINDS, strict=True)):
            PYTHON_FIELDS.setdefault((cls, name), cls.__dict__[name])
            if pair and method:
                method += "_with"
            setattr(cls, name, lazy_field(cls, name, Encoding.__dict__[name], index, kind,
                                          method, pair, TOUCHED))


class PendingWindows:
    """The overflowing windows of an encoding truncation cut, made when first read.

    ``make`` runs the reference path (``Finisher``) on the whole sequences; the pads
    the encoding got while fresh are recorded and replayed on its windows, in order,
    as ``Encoding.pad`` would have padded them.
    """

    __slots__ = ("_make", "_pads")

    def __init__(self, make: Callable[[], Encoding]):
        self._make = make
        self._pads: list[tuple[int, dict]] = []

    def record_pad(self, length: int, options: dict) -> None:
        self._pads.append((length, options))

    def build(self) -> list[Encoding]:
        full = self._make()
        for length, options in self._pads:
            full.pad(length, **options)
        return full.overflowing


def _cut_pad(self, length: int, *, direction: str = "right", pad_id: int = 0,
             pad_type_id: int = 0, pad_token: str = "[PAD]") -> None:
    """Pad as ``Encoding.pad`` does; while fresh, the layout changes and the windows'
    pad is recorded (they are not built)."""
    if self._state:  # reading the windows builds them, with the pads recorded so far
        Encoding.pad(self, length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id,
                     pad_token=pad_token)
        return
    self._windows.record_pad(length, {"direction": direction, "pad_id": pad_id,
                                      "pad_type_id": pad_type_id, "pad_token": pad_token})
    n = length - len(self)
    if n > 0:
        self._layout = self._layout.padded(n, direction, (pad_id, pad_token, pad_type_id, 0))


class LazyCutEncoding(LazyEncoding):
    """A ``LazyEncoding`` of the part of a sequence that truncation kept.

    Its overflowing windows are made on first read (``PendingWindows``).
    """

    __slots__ = ("_windows",)

    def __init__(self, raw, layout: Layout, windows: PendingWindows):
        self._raw, self._layout, self._state, self._windows = raw, layout, 0, windows

    overflowing = _window_field("overflowing", lambda self: self._windows.build())
    pad = _cut_pad


class LazyCutPairEncoding(LazyPairEncoding):
    """A ``LazyPairEncoding`` of the parts of a pair that truncation kept (windows
    made on first read, as ``LazyCutEncoding``)."""

    __slots__ = ("_windows",)

    def __init__(self, raw, second, layout: PairLayout, windows: PendingWindows):
        self._raw, self._second, self._layout, self._state = raw, second, layout, 0
        self._windows = windows

    overflowing = _window_field("overflowing", lambda self: self._windows.build())
    pad = _cut_pad


def lazy_cut(first: LazyEncoding, second: LazyEncoding | None, layout: Layout | PairLayout,
             kept: tuple[tuple[int, int], tuple[int, int] | None],
             windows: PendingWindows) -> LazyEncoding:
    """The encoding of the tokens ``kept`` (a range per sequence) of fresh lazy ``first``
    (and ``second``: a pair, in input order) in ``layout``; ``windows`` the rest."""
    assert first.fresh and (second is None or second.fresh), "cutting encodings already read"
    raw = first._raw.window(*kept[0])
    if second is None:
        assert isinstance(layout, Layout)
        return LazyCutEncoding(raw, layout, windows)
    assert isinstance(layout, PairLayout) and kept[1] is not None
    other = second._raw.window(*kept[1])
    if layout.sequence_indices == (1, 0):
        raw, other = other, raw
    return LazyCutPairEncoding(raw, other, layout, windows)


def _plain(encoding: Encoding) -> Encoding:
    return encoding
