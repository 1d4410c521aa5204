"""Decide how long encodings become: truncation and padding settings, as in HF.

``TruncationParams`` and ``PaddingParams`` are the settings behind
``Tokenizer.enable_truncation`` / ``enable_padding``; their ``as_dict`` is what HF's
``.truncation`` / ``.padding`` properties return, and ``to_json`` / ``from_json`` are
HF's ``tokenizer.json`` blocks. ``truncation_lengths`` is HF's rule for how many tokens
of each sequence of a pair to keep; it is shared by the full and the ids-only paths so
that both cut at the same place.

Padding is bounded per batch as well as per sequence: ``MAX_PADDED_LENGTH`` caps one
padded length, and ``MAX_PADDED_BATCH`` caps a whole batch's rows times its padded
length (``check_padded_batch``, on both backends, before the padding is made), so a
fixed length at the cap cannot be multiplied by the batch size.

Not handled here: the windows a truncation produces (``Encoding.truncate``; the
overflowing windows of one input are padded too, and not counted as rows here).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import MAX_PADDED_LENGTH, MAX_SEQUENCE_LENGTH, TokenizeError, check_size

STRATEGIES = ("longest_first", "only_first", "only_second")
MAX_PADDED_BATCH = 1 << 24
"""Rows x padded length of one padded batch (16,777,216 tokens: 32,768 rows of 512, 2,048
of 8,192). A padded token costs ~24-40 bytes as arrays and ~75 as ``Encoding`` lists, so
this bounds a batch to about 0.7-1.3 GB; encode more in several batches."""
DIRECTIONS = ("right", "left")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                         f"got {value!r}")


def _check_int(name: str, value: object, *, minimum: int = 0, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


@dataclass(frozen=True)
class TruncationParams:
    """How to cut encodings that are too long (HF ``enable_truncation`` options)."""

    max_length: int
    stride: int = 0
    strategy: str = "longest_first"
    direction: str = "right"

    def __post_init__(self):
        _check_int("max_length", self.max_length)
        _check_int("stride", self.stride)
        check_size(self.max_length, field="truncation max_length", cap=MAX_SEQUENCE_LENGTH)
        check_size(self.stride, field="truncation stride", cap=MAX_SEQUENCE_LENGTH)
        _check_choice("strategy", self.strategy, STRATEGIES)
        _check_choice("direction", self.direction, DIRECTIONS)

    def as_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> dict:
        """HF's tokenizer.json ``truncation`` block."""
        return {"direction": self.direction.title(), "max_length": self.max_length,
                "strategy": "".join(p.title() for p in self.strategy.split("_")),
                "stride": self.stride}


@dataclass(frozen=True)
class PaddingParams:
    """How to pad encodings (HF ``enable_padding`` options; ``length=None``: batch longest)."""

    direction: str = "right"
    pad_id: int = 0
    pad_type_id: int = 0
    pad_token: str = "[PAD]"
    length: int | None = None
    pad_to_multiple_of: int | None = None

    def __post_init__(self):
        _check_choice("direction", self.direction, DIRECTIONS)
        _check_int("pad_id", self.pad_id)
        _check_int("pad_type_id", self.pad_type_id)
        _check_int("length", self.length, optional=True)
        _check_int("pad_to_multiple_of", self.pad_to_multiple_of, optional=True)
        check_size(self.length, field="padding length", cap=MAX_PADDED_LENGTH, optional=True)
        check_size(self.pad_to_multiple_of, field="pad_to_multiple_of", cap=MAX_PADDED_LENGTH,
                   optional=True)
        if not isinstance(self.pad_token, str):
            raise ValueError(f"pad_token must be a string, got {self.pad_token!r}")

    def as_dict(self) -> dict:
        return {"length": self.length, "pad_to_multiple_of": self.pad_to_multiple_of,
                "pad_id": self.pad_id, "pad_token": self.pad_token,
                "pad_type_id": self.pad_type_id, "direction": self.direction}

    def to_json(self) -> dict:
        """HF's tokenizer.json ``padding`` block."""
        strategy = "BatchLongest" if self.length is None else {"Fixed": self.length}
        return {"strategy": strategy, "direction": self.direction.title(),
                "pad_to_multiple_of": self.pad_to_multiple_of, "pad_id": self.pad_id,
                "pad_type_id": self.pad_type_id, "pad_token": self.pad_token}

    def target_length(self, lengths: list[int]) -> int:
        """Length to pad a batch with these ``lengths`` to."""
        target = self.length if self.length is not None else max(lengths, default=0)
        multiple = self.pad_to_multiple_of
        if multiple and target % multiple:
            target += multiple - target % multiple
        return target

    def batch_length(self, lengths: list[int]) -> int:
        """``target_length`` of a batch, refused when the padded batch is over the cap."""
        target = self.target_length(lengths)
        check_padded_batch(len(lengths), target)
        return target

    def padded_bound(self, longest: int) -> int:
        """The padded length of a batch whose rows hold at most ``longest`` tokens."""
        n = max(longest, self.length or 0)
        multiple = self.pad_to_multiple_of
        return n + (multiple - n % multiple) % multiple if multiple else n

    def check_rows(self, rows: int) -> None:
        """Refuse, before encoding, a batch of ``rows`` that padding surely takes over the cap.

        Each row holding a token is padded to at least the fixed length, or the
        multiple, so this holds before any length is known.
        """
        check_padded_batch(rows, self.target_length([1]))


def check_padded_batch(rows: int, length: int) -> None:
    """Refuse to pad ``rows`` rows to ``length`` tokens when that is over the batch cap."""
    if rows > 1 and rows * length > MAX_PADDED_BATCH:
        raise TokenizeError(
            f"padding {rows:,} rows to {length:,} tokens makes {rows * length:,} tokens, over "
            f"the cap of {MAX_PADDED_BATCH:,} for one batch (rows x padded length): encode "
            f"in smaller batches, or pad to a shorter length")


def check_multiple_fits(padding: PaddingParams | None,
                        truncation: TruncationParams | None) -> None:
    """Refuse truncation to a length that padding to a multiple would pass (transformers).

    ``tok(..., truncation=True, max_length=12, pad_to_multiple_of=8)`` would return
    16 ids, more than ``max_length``: transformers raises this ``ValueError``.
    """
    if padding is None or truncation is None or not padding.pad_to_multiple_of:
        return
    if truncation.max_length % padding.pad_to_multiple_of:
        raise ValueError(f"Truncation and padding are both activated but truncation length "
                         f"({truncation.max_length}) is not a multiple of pad_to_multiple_of "
                         f"({padding.pad_to_multiple_of}).")


def truncation_lengths(n1: int, n2: int | None, params: TruncationParams,
                       n_added: int) -> tuple[int, int | None]:
    """Return how many tokens of the first and second sequence to keep (HF's rule).

    ``n_added`` special tokens are reserved first. ``longest_first`` shortens the longer
    sequence until both fit, splitting the room evenly (extra token to the second) when
    both are too long.

    >>> truncation_lengths(10, 4, TruncationParams(8), 3)
    (3, 2)
    """
    if params.max_length < n_added:
        raise TokenizeError(f"truncation max_length {params.max_length} leaves no room for the "
                            f"{n_added} special tokens the post-processor adds")
    room = params.max_length - n_added
    total = n1 + (n2 or 0)
    if room == 0:
        return 0, (None if n2 is None else 0)
    if total <= room:
        return n1, n2
    to_remove = total - room
    if params.strategy == "longest_first":
        if n2 is None:
            return n1 - to_remove, None
        return _longest_first(n1, n2, room)
    if params.strategy == "only_second" and n2 is None:
        raise TokenizeError("truncation strategy 'only_second' needs a pair of sequences, "
                            "but only one was given")
    target = n1 if params.strategy == "only_first" else n2
    if target <= to_remove:  # type: ignore[operator]
        raise TokenizeError(f"truncation strategy {params.strategy!r} cannot fit the input "
                            f"into max_length {params.max_length}: the sequence to cut has "
                            f"{target} tokens but {to_remove} must go")
    if params.strategy == "only_first":
        return n1 - to_remove, n2
    return n1, n2 - to_remove  # type: ignore[operator]


def _longest_first(n1: int, n2: int, room: int) -> tuple[int, int]:
    short, long_ = min(n1, n2), max(n1, n2)
    long_ = short if short > room else max(short, room - short)
    if short + long_ > room:
        short = room // 2
        long_ = short + room % 2
    return (long_, short) if n1 > n2 else (short, long_)


def cut_ids(ids: list[int], keep: int, direction: str) -> list[int]:
    """Keep ``keep`` ids from the right or left end, as truncation does (no windows)."""
    if keep >= len(ids):
        return ids
    return ids[:keep] if direction == "right" else ids[len(ids) - keep:]


def pad_ids(ids: list[int], length: int, params: PaddingParams) -> list[int]:
    """Pad an id list to ``length`` with ``params.pad_id``."""
    n = length - len(ids)
    if n <= 0:
        return ids
    fill = [params.pad_id] * n
    return fill + ids if params.direction == "left" else ids + fill
