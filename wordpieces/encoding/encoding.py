"""Hold the output of encoding one text (or pair): ids, tokens, offsets and masks.

``Encoding`` mirrors Hugging Face ``tokenizers``' ``Encoding`` field for field and
operation for operation (``truncate`` with stride, ``pad``, ``merge``), including its
quirks (how overflowing windows of a pair are combined, what ``sequence_ids`` says on
an overflowing window), because models are fine-tuned on exactly what HF produced.

Offsets are character offsets into the text the user gave; special tokens added by a
post-processor and padding have ``(0, 0)``.

Not handled here: producing encodings from text (``tokenizer``), deciding how long to
truncate (``padding``), special-token templates (``processors``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

Offsets = tuple[int, int]

DIRECTIONS = ("left", "right")


class TokenSpan(NamedTuple):
    """A token range ``[start, end)``: transformers' ``TokenSpan``, still a tuple."""

    start: int
    end: int


class CharSpan(NamedTuple):
    """A character range ``[start, end)``: transformers' ``CharSpan``, still a tuple."""

    start: int
    end: int


def check_direction(direction: str, what: str) -> str:
    """Return ``direction`` if it is ``left`` or ``right``, else raise a ValueError (as HF)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"invalid {what} direction {direction!r}: expected 'left' or 'right'")
    return direction

_FIELDS = ("ids", "type_ids", "tokens", "word_ids", "offsets", "special_tokens_mask",
           "attention_mask")


class Encoding:
    """The ids of one encoded input, with everything needed to align them to the text.

    >>> e = Encoding(ids=[7, 8], tokens=["hi", "##s"], offsets=[(0, 2), (2, 3)],
    ...              word_ids=[0, 0])
    >>> len(e), e.word_to_tokens(0), e.char_to_token(2)
    (2, TokenSpan(start=0, end=2), 1)
    """

    __slots__ = (*_FIELDS, "overflowing", "sequence_ranges")

    def __init__(self, *, ids: Iterable[int] = (), tokens: Iterable[str] = (),
                 offsets: Iterable[Offsets] = (), word_ids: Iterable[int | None] = (),
                 type_ids: Iterable[int] | None = None,
                 special_tokens_mask: Iterable[int] | None = None,
                 attention_mask: Iterable[int] | None = None,
                 overflowing: list[Encoding] | None = None,
                 sequence_ranges: dict[int, tuple[int, int]] | None = None):
        self.ids: list[int] = list(ids)
        n = len(self.ids)
        self.tokens: list[str] = list(tokens)
        self.offsets: list[Offsets] = list(offsets)
        self.word_ids: list[int | None] = list(word_ids)
        self.type_ids: list[int] = [0] * n if type_ids is None else list(type_ids)
        self.special_tokens_mask: list[int] = (
            [0] * n if special_tokens_mask is None else list(special_tokens_mask))
        self.attention_mask: list[int] = [1] * n if attention_mask is None else list(attention_mask)
        self.overflowing: list[Encoding] = [] if overflowing is None else overflowing
        # sequence index -> [start, end) token range; empty means "one sequence, all of it"
        self.sequence_ranges: dict[int, tuple[int, int]] = dict(sequence_ranges or {})

    @classmethod
    def build(cls, ids: list[int], tokens: list[str], offsets: list[Offsets],
              word_ids: list[int | None], type_id: int = 0) -> Encoding:
        """Wrap fresh lists (taken, not copied) as the encoding of one sequence."""
        out = cls.__new__(cls)
        n = len(ids)
        out.ids, out.tokens, out.offsets, out.word_ids = ids, tokens, offsets, word_ids
        out.type_ids, out.special_tokens_mask, out.attention_mask = [type_id] * n, [0] * n, [1] * n
        out.overflowing, out.sequence_ranges = [], {}
        return out

    # ------------------------------------------------------------ basics

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (f"Encoding(num_tokens={len(self)}, attributes=[ids, type_ids, tokens, offsets, "
                f"attention_mask, special_tokens_mask, overflowing({len(self.overflowing)})])")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return (all(getattr(self, f) == getattr(other, f) for f in _FIELDS)
                and self.sequence_ranges == other.sequence_ranges
                and self.overflowing == other.overflowing)

    def copy(self) -> Encoding:
        """Return a deep copy (lists and overflowing windows are not shared)."""
        return Encoding(ids=self.ids, tokens=self.tokens, offsets=self.offsets,
                        word_ids=self.word_ids, type_ids=self.type_ids,
                        special_tokens_mask=self.special_tokens_mask,
                        attention_mask=self.attention_mask,
                        overflowing=[o.copy() for o in self.overflowing],
                        sequence_ranges=self.sequence_ranges)

    @property
    def words(self) -> list[int | None]:
        """Alias of ``word_ids`` (HF's older name)."""
        return self.word_ids

    @property
    def n_sequences(self) -> int:
        """How many input sequences this encoding holds (1, or 2 for a pair)."""
        return len(self.sequence_ranges) or 1

    @property
    def sequence_ids(self) -> list[int | None]:
        """The input sequence (0 or 1) of each token; None for added special tokens."""
        out: list[int | None] = [None] * len(self)
        for seq in range(self.n_sequences):
            start, end = self.sequence_range(seq)
            out[start:end] = [seq] * (end - start)
        return out

    def sequence_range(self, sequence_index: int) -> tuple[int, int]:
        """Token range of one input sequence (the whole encoding if unknown)."""
        return self.sequence_ranges.get(sequence_index, (0, len(self)))

    def set_sequence_id(self, sequence_index: int) -> None:
        """Mark every token (and overflowing window) as from input ``sequence_index``."""
        self.sequence_ranges[sequence_index] = (0, len(self))
        for o in self.overflowing:
            o.set_sequence_id(sequence_index)

    # ------------------------------------------------------------ alignment queries

    def token_to_sequence(self, token_index: int) -> int | None:
        """Index of the input sequence holding token ``token_index``."""
        if token_index > len(self):
            return None
        if not self.sequence_ranges:
            return 0
        for seq, (start, end) in self.sequence_ranges.items():
            if start <= token_index < end:
                return seq
        return None

    def token_to_chars(self, token_index: int) -> CharSpan | None:
        """Character offsets of token ``token_index`` in its input text."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self):
            return None
        return CharSpan(*self.offsets[token_index])

    def token_to_word(self, token_index: int) -> int | None:
        """Index of the word (in its input sequence) of token ``token_index``."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self):
            return None
        return self.word_ids[token_index]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """Index of the token covering character ``char_pos`` of input ``sequence_index``."""
        start, end = self.sequence_range(sequence_index)
        for i in range(start, min(end, len(self))):
            s, e = self.offsets[i]
            if s <= char_pos < e:
                return i
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """Index of the word covering character ``char_pos`` of input ``sequence_index``."""
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> TokenSpan | None:
        """Token range ``[start, end)`` of word ``word_index`` of input ``sequence_index``."""
        start, end = self.sequence_range(sequence_index)
        found = [i for i in range(start, min(end, len(self)))
                 if self.word_ids[i] == word_index]
        return TokenSpan(found[0], found[-1] + 1) if found else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> CharSpan | None:
        """Character span of word ``word_index`` of input ``sequence_index``."""
        tokens = self.word_to_tokens(word_index, sequence_index)
        if tokens is None:
            return None
        return CharSpan(self.offsets[tokens.start][0], self.offsets[tokens.end - 1][1])

    # ------------------------------------------------------------ edits (HF semantics)

    def set_type_ids(self, type_id: int) -> None:
        """Give every token type id ``type_id`` (overflowing windows are left as they are)."""
        self.type_ids = [type_id] * len(self)

    def slice(self, start: int, stop: int) -> Encoding:
        """Return tokens ``[start, stop)`` as a new encoding without sequence ranges."""
        out = Encoding.__new__(Encoding)
        for name in _FIELDS:
            setattr(out, name, getattr(self, name)[start:stop])
        out.overflowing, out.sequence_ranges = [], {}
        return out

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keep ``max_length`` tokens; the rest goes to ``overflowing`` in windows.

        Each overflowing window repeats the last ``stride`` tokens of the previous one,
        as in HF (``direction="left"`` keeps the end and windows backwards).
        """
        check_direction(direction, "truncation")
        n = len(self)
        if max_length >= n:
            return
        if max_length == 0:
            moved = self.copy()
            self._become(Encoding())
            self.overflowing.append(moved)
            return
        if stride >= max_length:
            raise ValueError(f"stride ({stride}) must be smaller than the length to truncate "
                             f"to ({max_length}, after room for special tokens)")
        parts = _window_ranges(n, max_length, max_length - stride, direction)
        first = self.slice(*parts[0])
        first.overflowing = [self.slice(s, e) for s, e in parts[1:]]
        self._become(first)

    def pad(self, length: int, *, direction: str = "right", pad_id: int = 0,
            pad_type_id: int = 0, pad_token: str = "[PAD]") -> None:
        """Pad to ``length`` tokens (overflowing windows too); never shortens."""
        check_direction(direction, "padding")
        for o in self.overflowing:
            o.pad(length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id,
                  pad_token=pad_token)
        n = length - len(self)
        if n <= 0:
            return
        fill = {"ids": [pad_id] * n, "type_ids": [pad_type_id] * n, "tokens": [pad_token] * n,
                "word_ids": [None] * n, "offsets": [(0, 0)] * n,
                "special_tokens_mask": [1] * n, "attention_mask": [0] * n}
        for name in _FIELDS:
            old = getattr(self, name)
            setattr(self, name, fill[name] + old if direction == "left" else old + fill[name])
        if direction == "left":
            self.sequence_ranges = {k: (s + n, e + n) for k, (s, e) in self.sequence_ranges.items()}

    def merge_with(self, other: Encoding, growing_offsets: bool = False) -> None:
        """Append ``other``; overflowing windows are combined as HF combines them."""
        self._become(concat(self, other, growing_offsets))

    @classmethod
    def merge(cls, encodings: Iterable[Encoding], growing_offsets: bool = True) -> Encoding:
        """Concatenate several encodings into one."""
        out = cls()
        for enc in encodings:
            out = concat(out, enc, growing_offsets)
        return out

    @classmethod
    def join(cls, parts: list[Encoding]) -> Encoding:
        """Concatenate encodings that have no overflowing windows (a fast ``merge``)."""
        out = cls.__new__(cls)
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[Offsets] = []
        word_ids: list[int | None] = []
        type_ids: list[int] = []
        special: list[int] = []
        attention: list[int] = []
        ranges: dict[int, tuple[int, int]] = {}
        for part in parts:
            if part.sequence_ranges:
                n = len(ids)
                for seq, (s, e) in part.sequence_ranges.items():
                    ranges[seq] = (n + s, n + e)
            ids += part.ids
            tokens += part.tokens
            offsets += part.offsets
            word_ids += part.word_ids
            type_ids += part.type_ids
            special += part.special_tokens_mask
            attention += part.attention_mask
        out.ids, out.tokens, out.offsets, out.word_ids = ids, tokens, offsets, word_ids
        out.type_ids, out.special_tokens_mask, out.attention_mask = type_ids, special, attention
        out.overflowing, out.sequence_ranges = [], ranges
        return out

    def _become(self, other: Encoding) -> None:
        for name in (*_FIELDS, "overflowing", "sequence_ranges"):
            setattr(self, name, getattr(other, name))


def concat(a: Encoding, b: Encoding, growing_offsets: bool = False) -> Encoding:
    """A new encoding: ``a`` then ``b``, overflowing windows paired up as HF does.

    Every overflowing window of ``a`` is followed by ``b`` and by each window of ``b``,
    and ``a`` itself by each window of ``b``; combinations nest exactly as HF's
    ``Encoding::merge_with`` nests them.
    """
    overflowing = []
    for mine in a.overflowing:
        overflowing.append(concat(mine, b, growing_offsets))
        overflowing.extend(concat(mine, theirs, growing_offsets) for theirs in b.overflowing)
    overflowing.extend(concat(a, theirs, growing_offsets) for theirs in b.overflowing)
    n = len(a)
    ranges = dict(a.sequence_ranges)
    ranges.update((seq, (n + s, n + e)) for seq, (s, e) in b.sequence_ranges.items())
    shift = a.offsets[-1][1] if growing_offsets and a.offsets else 0
    offsets = a.offsets + ([(s + shift, e + shift) for s, e in b.offsets] if shift else b.offsets)
    out = Encoding.__new__(Encoding)  # the lists are new already: skip the copying __init__
    out.ids, out.tokens, out.offsets = a.ids + b.ids, a.tokens + b.tokens, offsets
    out.word_ids, out.type_ids = a.word_ids + b.word_ids, a.type_ids + b.type_ids
    out.special_tokens_mask = a.special_tokens_mask + b.special_tokens_mask
    out.attention_mask = a.attention_mask + b.attention_mask
    out.overflowing, out.sequence_ranges = overflowing, ranges
    return out


def _window_ranges(n: int, max_length: int, step: int, direction: str) -> list[tuple[int, int]]:
    """Token ranges of the kept part and the overflowing windows, in HF's order."""
    parts = []
    if direction == "left":
        for stop in range(n, 0, -step):
            start = max(0, stop - max_length)
            parts.append((start, stop))
            if start == 0:
                break
        return parts
    for start in range(0, n, step):
        stop = min(start + max_length, n)
        parts.append((start, stop))
        if stop == n:
            break
    return parts
