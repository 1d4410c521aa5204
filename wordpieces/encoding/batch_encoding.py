"""Encode like a ``transformers`` tokenizer: ``tok(texts, padding=True, ...)`` -> dict.

``call_tokenizer`` is what ``Tokenizer.__call__`` runs. It takes the options of
``transformers``' ``PreTrainedTokenizerFast.__call__`` and returns the same keys
(``input_ids``, ``token_type_ids``, ``attention_mask``, ``offset_mapping`` …) as lists,
numpy arrays (``return_tensors="np"``) or torch tensors (``"pt"``). As in
``transformers``, the call's own ``padding``/``truncation`` options decide, not the
tokenizer's ``enable_padding`` / ``enable_truncation`` settings; ``max_length`` defaults
to the tokenizer's ``model_max_length`` (then to ``enable_truncation``'s), the pad token
is its ``pad_token``, and ``padding_side``/``truncation_side`` default to its attributes.
``pad_inputs`` is ``transformers``' ``tok.pad``: padding rows that are already ids.

It reads only ``Tokenizer``'s public interface (``padding_params``, ``pad_token`` …,
``encode_batch_with``), so it does not import it.

Not handled here: ``return_tensors="tf"``/``"jax"``, the truncation and padding of one
encoding (``finishing``), pre-tokenized words (``pretokenized``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import require
from .padding import (
    DIRECTIONS,
    PaddingParams,
    TruncationParams,
    check_multiple_fits,
    pad_ids,
)
from .pretokenized import check_words, encode_words_with
from .token_columns import TokenColumns

_PADDING = {False: None, None: None, "do_not_pad": None, True: "longest", "longest": "longest",
            "max_length": "max_length"}
_TRUNCATION = {False: None, None: None, "do_not_truncate": None, True: "longest_first",
               "longest_first": "longest_first", "only_first": "only_first",
               "only_second": "only_second"}
TENSOR_TYPES = (None, "np", "pt")
# Rows that are not one value per token: never padded, never checked for equal lengths.
_PER_ROW = ("length", "overflow_to_sample_mapping")


class BatchEncoding(dict):
    """The model inputs (a dict), plus the ``Encoding`` objects they were made from.

    Keys are also readable as attributes (``batch.input_ids``).
    """

    def __init__(self, data: dict, encodings: list | Callable[[], list] | None = None,
                 columns: TokenColumns | None = None):
        """``encodings``: the rows' ``Encoding`` objects, or a function that builds them
        when first asked (the arrays of ``tok(...)`` are made without them); ``columns``:
        what the native path's columns tell of the tokens (``tokens``, ``word_ids``,
        ``sequence_ids`` read them, building no Encoding)."""
        super().__init__(data)
        self._rows = encodings
        self._columns = columns

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


def _option(name: str, value, table: dict) -> str | None:
    try:
        return table[value]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}") from None


def _side(name: str, value: str | None, default: str) -> str:
    if value is None:
        return default
    if value not in DIRECTIONS:
        raise ValueError(f"{name} must be 'right' or 'left', got {value!r}")
    return value


def _items(text, text_pair) -> tuple[list, bool]:
    """The batch items and whether the input was a batch (``transformers``' rule)."""
    batched = isinstance(text, list | tuple)
    if not batched:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str or a list of str, got {type(text).__name__}")
        if text_pair is not None and not isinstance(text_pair, str):
            raise TypeError("text_pair must be a str when text is a str")
        return [text if text_pair is None else (text, text_pair)], False
    if text_pair is None:
        return list(text), True
    if not isinstance(text_pair, list | tuple) or len(text_pair) != len(text):
        raise ValueError("text_pair must be a list as long as text when text is a list")
    return list(zip(text, text_pair, strict=True)), True


def _word_items(text, text_pair) -> tuple[list, bool]:
    """``_items`` for ``is_split_into_words``: a list of words, or a batch of them."""
    batched = isinstance(text, list | tuple) and bool(text) and isinstance(text[0], list | tuple)
    if not batched:
        pair = None if text_pair is None else check_words(text_pair, "text_pair")
        return [(check_words(text, "text"), pair)], False
    if text_pair is not None and (not isinstance(text_pair, list | tuple)
                                  or len(text_pair) != len(text)):
        raise ValueError("text_pair must be a list of word lists as long as text")
    pairs = [None] * len(text) if text_pair is None else text_pair
    return [(check_words(w, f"text[{i}]"),
             None if p is None else check_words(p, f"text_pair[{i}]"))
            for i, (w, p) in enumerate(zip(text, pairs, strict=True))], True


def _padding_params(tok, strategy, max_length, pad_to_multiple_of,
                    side: str) -> PaddingParams | None:
    if strategy is None:
        return None
    if strategy == "max_length" and max_length is None:
        max_length = tok.model_max_length
        if max_length is None:
            raise ValueError("padding='max_length' needs max_length (this tokenizer has no "
                             "model_max_length)")
    base = tok.padding_params
    pad_token = tok.pad_token
    if pad_token is None:
        raise ValueError("cannot pad: this tokenizer has no pad token; set tok.pad_token "
                         "(e.g. tok.pad_token = '[PAD]') or call enable_padding(pad_token=...)")
    same = base is not None and base.pad_token == pad_token
    pad_id = base.pad_id if same else tok.pad_token_id
    return PaddingParams(direction=side, pad_id=pad_id,
                         pad_type_id=base.pad_type_id if base else 0, pad_token=pad_token,
                         length=max_length if strategy == "max_length" else None,
                         pad_to_multiple_of=pad_to_multiple_of)


def _truncation_params(tok, strategy, max_length, stride, side: str) -> TruncationParams | None:
    if strategy is None:
        return None
    if max_length is None:
        base = tok.truncation_params
        max_length = tok.model_max_length
        if max_length is None and base is not None:
            max_length = base.max_length
        if max_length is None:
            raise ValueError("truncation needs max_length (this tokenizer has no "
                             "model_max_length and no enable_truncation)")
    return TruncationParams(max_length, stride, strategy, side)


def call_tokenizer(tok, text, text_pair=None, *, add_special_tokens: bool = True,
                   padding=False, truncation=None, max_length: int | None = None,
                   stride: int = 0, is_split_into_words: bool = False,
                   pad_to_multiple_of: int | None = None, padding_side: str | None = None,
                   truncation_side: str | None = None, return_tensors: str | None = None,
                   return_token_type_ids: bool | None = None,
                   return_attention_mask: bool | None = None,
                   return_offsets_mapping: bool = False,
                   return_special_tokens_mask: bool = False,
                   return_overflowing_tokens: bool = False, return_length: bool = False,
                   num_threads: int | None = None) -> BatchEncoding:
    """Encode ``text`` (str or list) and ``text_pair`` into a ``transformers``-style dict.

    With ``is_split_into_words``, ``text`` is a list of words (or a batch of them).
    """
    if return_tensors not in TENSOR_TYPES:
        raise ValueError(f"return_tensors={return_tensors!r} is not supported; use None "
                         f"(lists), 'np' (numpy arrays) or 'pt' (torch tensors)")
    if truncation is None:  # transformers: max_length without padding truncates
        truncation = max_length is not None and padding is False
    items, batched = (_word_items if is_split_into_words else _items)(text, text_pair)
    pad = _padding_params(tok, _option("padding", padding, _PADDING), max_length,
                          pad_to_multiple_of, _side("padding_side", padding_side,
                                                    tok.padding_side))
    trunc = _truncation_params(tok, _option("truncation", truncation, _TRUNCATION),
                               max_length, stride,
                               _side("truncation_side", truncation_side, tok.truncation_side))
    check_multiple_fits(pad, trunc)
    options: dict[str, Any] = {"truncation": trunc, "padding": pad,
                               "add_special_tokens": add_special_tokens,
                               "num_threads": num_threads}
    encode = encode_words_with if is_split_into_words else _encode_texts
    keys = {"input_ids", "offset_mapping" if return_offsets_mapping else "",
            "token_type_ids" if return_token_type_ids is not False else "",
            "attention_mask" if return_attention_mask is not False else "",
            "special_tokens_mask" if return_special_tokens_mask else ""}
    windows = return_overflowing_tokens and trunc is not None
    finished = tok.encode_arrays(items, keys=keys, words=is_split_into_words, windows=windows,
                                 lists=return_tensors is None, **options)
    if finished is not None:  # straight from the native columns; rows built if asked
        columns = finished.data
        facts = TokenColumns(columns["input_ids"], tok.id_to_token, finished.splits,
                             finished.words, finished.sequences)
        if return_length:
            columns["length"] = _lengths(columns["input_ids"], return_tensors)
        return _from_columns(columns, facts, lambda: encode(tok, items, **options),
                             len(items), batched, return_overflowing_tokens, return_tensors)
    encodings = encode(tok, items, **options)
    rows, mapping = [], []
    for i, enc in enumerate(encodings):
        for row in [enc, *enc.overflowing] if return_overflowing_tokens else [enc]:
            rows.append(row)
            mapping.append(i)
    wanted = [("input_ids", True, lambda e: e.ids),
              ("token_type_ids", return_token_type_ids is not False, lambda e: e.type_ids),
              ("attention_mask", return_attention_mask is not False,
               lambda e: e.attention_mask),
              ("special_tokens_mask", return_special_tokens_mask,
               lambda e: e.special_tokens_mask),
              ("offset_mapping", return_offsets_mapping, lambda e: e.offsets),
              ("length", return_length, len)]
    data = {key: [get(r) for r in rows] for key, on, get in wanted if on}
    if return_overflowing_tokens:
        data["overflow_to_sample_mapping"] = mapping
    if not batched and not return_overflowing_tokens and return_tensors is None:
        # transformers unwraps the rows of one input; per-row numbers (length) stay lists
        data = {key: value[0] if value and isinstance(value[0], list) else value
                for key, value in data.items()}
    return BatchEncoding(to_tensors(data, return_tensors), rows)


def _from_columns(columns: dict, facts: TokenColumns, encodings: Callable[[], list], n: int,
                  batched: bool, overflowing: bool,
                  return_tensors: str | None) -> BatchEncoding:
    """The ``BatchEncoding`` of the native path's columns (lists, or numpy arrays) of ``n``
    inputs; ``encodings`` makes their ``Encoding`` objects when first asked."""
    if overflowing:  # no truncation here: one row per input
        columns["overflow_to_sample_mapping"] = (
            list(range(n)) if return_tensors is None else _np().arange(n))
    if return_tensors is None:
        if not batched and not overflowing:  # transformers unwraps the rows of one input;
            columns = {key: value if key == "length" else value[0]  # lengths stay a list
                       for key, value in columns.items()}
    else:
        columns = _from_numpy(columns, return_tensors)
    return BatchEncoding(columns, encodings, facts)


def _lengths(ids, return_tensors: str | None):
    """``return_length``'s column: each row's length, padding included (as transformers)."""
    if return_tensors is None:
        return [len(row) for row in ids]
    return _np().full(ids.shape[0], ids.shape[1], dtype=ids.dtype)


def _encode_texts(tok, items, **options):
    return tok.encode_batch_with(items, **options)


def _np():
    return require("numpy", "numpy")


def _from_numpy(arrays: dict, kind: str) -> dict:
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
    strategy = _option("padding", padding, _PADDING)
    side = _side("padding_side", side, "right")
    if "input_ids" not in columns:
        raise ValueError(f"tok.pad needs 'input_ids' among the inputs, got keys "
                         f"{sorted(columns)}")
    if return_attention_mask and "attention_mask" not in columns:
        columns["attention_mask"] = [[1] * len(row) for row in columns["input_ids"]]
    if strategy is not None:
        if pad_id is None:
            raise ValueError("cannot pad: this tokenizer has no pad token; set tok.pad_token")
        if strategy == "max_length" and max_length is None:
            raise ValueError("padding='max_length' needs max_length")
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
