"""The ``transformers``-style dict a tokenizer call returns, and ``tok.pad`` on it.

``BatchEncoding`` holds the model inputs (``input_ids``, ``token_type_ids``,
``attention_mask``, ``offset_mapping`` …) as lists, numpy arrays or torch tensors, plus
what they were made from (the rows' ``Encoding`` objects, or the native columns).
``pad_inputs`` is ``transformers``' ``tok.pad``: padding rows that are already ids.

Not handled here: encoding text into it (``encode.call``), ``return_tensors="tf"`` /
``"jax"``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

from ..errors import require
from .padding import (
    DIRECTIONS,
    PaddingParams,
    pad_ids,
)
from .token_columns import TokenColumns

# transformers' padding= and truncation= values -> the strategy they mean (None: none)
PADDING_VALUES = {False: None, None: None, "do_not_pad": None, True: "longest",
                  "longest": "longest", "max_length": "max_length"}
TRUNCATION_VALUES = {False: None, None: None, "do_not_truncate": None, True: "longest_first",
                     "longest_first": "longest_first", "only_first": "only_first",
                     "only_second": "only_second"}
TENSOR_TYPES = (None, "np", "pt")
def no_length_warning(asked: str, done: str) -> None:
    """Warn that a call asked for a length it was not given: transformers then goes on."""
    warnings.warn(f"asked to {asked} but no max_length is given and the tokenizer has no "
                  f"model_max_length: nothing is {done} (as in transformers); pass max_length "
                  f"or set tok.model_max_length", UserWarning, stacklevel=4)


# Rows that are not one value per token: never padded, never checked for equal lengths.
_PER_ROW = ("length", "overflow_to_sample_mapping")


class BatchEncoding(dict):
    """The model inputs (a dict), plus the ``Encoding`` objects they were made from.

    Keys are also readable as attributes (``batch.input_ids``).
    """

    # made once per tok(text) call: slots and update() halve what making one costs
    __slots__ = ("_rows", "_made_columns")

    def __init__(self, data: dict, encodings: list | Callable[[], list] | None = None,
                 columns: TokenColumns | Callable[[], TokenColumns] | None = None):
        """``encodings``: the rows' ``Encoding`` objects, or a function that builds them
        when first asked (the arrays of ``tok(...)`` are made without them); ``columns``:
        what the native path's columns tell of the tokens (``tokens``, ``word_ids``,
        ``sequence_ids`` read them, building no Encoding), or a function making them."""
        self.update(data)
        self._rows = encodings
        self._made_columns = columns

    def __reduce__(self):
        """Pickle the inputs and the Encodings (made now if they were not), as
        transformers' BatchEncoding pickles (a DataLoader worker returns one)."""
        return (type(self), (dict(self), self.encodings))

    @property
    def _columns(self) -> TokenColumns | None:
        if callable(self._made_columns):
            self._made_columns = self._made_columns()
        return self._made_columns

    @property
    def encodings(self) -> list | None:
        """The ``Encoding`` of each row (None: made by ``tok.pad``, not from text)."""
        if callable(self._rows):
            self._rows = self._rows()
        return self._rows

    @encodings.setter
    def encodings(self, value: list | None) -> None:
        self._rows = value

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def _encoding(self, batch_index: int):
        if not self.encodings:
            raise ValueError("this BatchEncoding was not made by encoding text (tok.pad): it "
                             "has no tokens, word ids or offsets")
        return self.encodings[batch_index]

    def tokens(self, batch_index: int = 0) -> list[str]:
        """The tokens of row ``batch_index``."""
        if self._columns is not None:
            return self._columns.tokens(batch_index)
        return self._encoding(batch_index).tokens

    def word_ids(self, batch_index: int = 0) -> list[int | None]:
        """The word index of each token of row ``batch_index``."""
        if self._columns is not None and self._columns.has_words:
            return self._columns.word_ids(batch_index)
        return self._encoding(batch_index).word_ids

    def sequence_ids(self, batch_index: int = 0) -> list[int | None]:
        """The input sequence (0, 1 or None) of each token of row ``batch_index``."""
        if self._columns is not None and self._columns.has_sequences:
            return self._columns.sequence_ids(batch_index)
        return self._encoding(batch_index).sequence_ids

    def _ask(self, name: str, batch_or_index: int, index: int | None, *sequence) -> object:
        """Ask row ``i``'s ``Encoding``: ``(x)`` asks row 0 about ``x``, ``(i, x)`` row ``i``."""
        batch, index = (0, batch_or_index) if index is None else (batch_or_index, index)
        return getattr(self._encoding(batch), name)(index, *sequence)

    def char_to_token(self, batch_or_char_index: int, char_index: int | None = None,
                      sequence_index: int = 0):
        """The token holding a character: ``(char)`` of row 0, or ``(row, char)``."""
        return self._ask("char_to_token", batch_or_char_index, char_index, sequence_index)

    def char_to_word(self, batch_or_char_index: int, char_index: int | None = None,
                     sequence_index: int = 0):
        """The word holding a character: ``(char)`` of row 0, or ``(row, char)``."""
        return self._ask("char_to_word", batch_or_char_index, char_index, sequence_index)

    def word_to_tokens(self, batch_or_word_index: int, word_index: int | None = None,
                       sequence_index: int = 0):
        """The token span ``(start, end)`` of a word: ``(word)`` of row 0, or ``(row, word)``."""
        return self._ask("word_to_tokens", batch_or_word_index, word_index, sequence_index)

    def word_to_chars(self, batch_or_word_index: int, word_index: int | None = None,
                      sequence_index: int = 0):
        """The character span of a word: ``(word)`` of row 0, or ``(row, word)``."""
        return self._ask("word_to_chars", batch_or_word_index, word_index, sequence_index)

    def token_to_chars(self, batch_or_token_index: int, token_index: int | None = None):
        """The character span of a token: ``(token)`` of row 0, or ``(row, token)``."""
        return self._ask("token_to_chars", batch_or_token_index, token_index)

    def token_to_word(self, batch_or_token_index: int, token_index: int | None = None):
        """The word index of a token: ``(token)`` of row 0, or ``(row, token)``."""
        return self._ask("token_to_word", batch_or_token_index, token_index)

    def token_to_sequence(self, batch_or_token_index: int, token_index: int | None = None):
        """The input sequence of a token: ``(token)`` of row 0, or ``(row, token)``."""
        return self._ask("token_to_sequence", batch_or_token_index, token_index)

    def to(self, device) -> BatchEncoding:
        """Move the torch tensors to ``device`` (``"cpu"``, ``"cuda"`` …), in place."""
        for key, value in self.items():
            if hasattr(value, "to") and hasattr(value, "device"):
                self[key] = value.to(device)
        return self


def option_value(name: str, value, table: dict) -> str | None:
    """``table[value]`` (``PADDING_VALUES``...), or a ValueError listing what is allowed."""
    try:
        return table[value]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}") from None


def side_value(name: str, value: str | None, default: str) -> str:
    """``value`` ('right' or 'left'), ``default`` when None; anything else a ValueError."""
    if value is None:
        return default
    if value not in DIRECTIONS:
        raise ValueError(f"{name} must be 'right' or 'left', got {value!r}")
    return value


def from_numpy(arrays: dict, kind: str) -> dict:
    """Numpy arrays as they are ("np") or as torch tensors sharing their memory ("pt")."""
    if kind == "np":
        return arrays
    torch = require("torch", "torch")
    return {key: torch.from_numpy(value) for key, value in arrays.items()}


def to_tensors(data: dict, kind: str | None) -> dict:
    """The rows of ``data`` as lists (None), numpy arrays ("np") or torch tensors ("pt")."""
    if kind is None:
        return data
    for key, value in data.items():
        rows = value if value and isinstance(value[0], list) else [value]
        if key not in _PER_ROW and len({len(v) for v in rows}) > 1:
            raise ValueError(f"cannot make one tensor of {key!r}: the rows have different "
                             f"lengths; pass padding=True (or padding='max_length')")
    if kind == "np":
        np = require("numpy", "numpy")
        return {key: np.asarray(value, dtype=np.int64) for key, value in data.items()}
    torch = require("torch", "torch")
    return {key: torch.tensor(value, dtype=torch.long) for key, value in data.items()}


# ---------------------------------------------------------------- tok.pad

# What each key is padded with (None: the pad id / pad type id given); other keys stay.
_PAD_VALUES = {"input_ids": None, "token_type_ids": None, "special_tokens_mask": 1,
               "attention_mask": 0}


def pad_inputs(inputs, *, padding, max_length: int | None, pad_to_multiple_of: int | None,
               side: str, pad_id: int | None, pad_type_id: int,
               return_attention_mask: bool, return_tensors: str | None) -> BatchEncoding:
    """Pad encoded rows as ``transformers``' ``tok.pad`` (the tokenizer's defaults given).

    ``inputs``: a dict of rows (or of one row), a list of such dicts, or a
    ``BatchEncoding``. ``max_length`` is used by ``padding="max_length"`` only.
    """
    columns, single = _columns(inputs)
    strategy = option_value("padding", padding, PADDING_VALUES)
    side = side_value("padding_side", side, "right")
    if "input_ids" not in columns:
        raise ValueError(f"tok.pad needs 'input_ids' among the inputs, got keys "
                         f"{sorted(columns)}")
    if return_attention_mask and "attention_mask" not in columns:
        columns["attention_mask"] = [[1] * len(row) for row in columns["input_ids"]]
    if strategy == "max_length" and max_length is None:
        no_length_warning("pad to max_length", "padded")
        strategy = None
    if strategy is not None:
        if pad_id is None:
            raise ValueError("cannot pad: this tokenizer has no pad token; set tok.pad_token")
        params = PaddingParams(direction=side, pad_id=pad_id, pad_type_id=pad_type_id,
                               length=max_length if strategy == "max_length" else None,
                               pad_to_multiple_of=pad_to_multiple_of)
        skip = () if return_attention_mask else ("attention_mask",)  # left as given
        columns = _pad_columns(columns, params, skip)
    if single:  # transformers adds no batch dimension to one row, even as tensors
        columns = {k: v[0] for k, v in columns.items()}
    return BatchEncoding(to_tensors(columns, return_tensors))


def _columns(inputs) -> tuple[dict[str, list], bool]:
    """Key -> list of rows (plain ints), and whether the input was one unbatched row."""
    if isinstance(inputs, list | tuple) and inputs and isinstance(inputs[0], Mapping):
        keys = list(inputs[0])
        return {k: [_plain(row[k]) for row in inputs] for k in keys}, False
    if not isinstance(inputs, Mapping):  # a dict, or transformers' BatchEncoding (UserDict)
        raise TypeError(f"tok.pad takes a dict of model inputs or a list of such dicts, "
                        f"got {type(inputs).__name__}")
    columns = {k: _plain(v) for k, v in inputs.items()}
    ids = columns.get("input_ids") or []
    single = bool(ids) and not isinstance(ids[0], list)
    if single or ids == []:
        columns = {k: [v] for k, v in columns.items()}
    return columns, single


def _plain(value) -> list:
    return value.tolist() if hasattr(value, "tolist") else list(value)


def _pad_columns(columns: dict[str, list], params: PaddingParams,
                 skip: tuple[str, ...]) -> dict[str, list]:
    target = params.batch_length([len(row) for row in columns["input_ids"]])
    out = {}
    for key, rows in columns.items():
        if key not in _PAD_VALUES or key in skip:
            out[key] = rows
            continue
        fill = _PAD_VALUES[key]
        if fill is None:
            fill = params.pad_id if key == "input_ids" else params.pad_type_id
        filled = PaddingParams(direction=params.direction, pad_id=fill)
        out[key] = [pad_ids(list(row), target, filled) for row in rows]
    return out
