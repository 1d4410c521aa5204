"""Encode like a ``transformers`` tokenizer: ``tok(texts, padding=True, ...)`` -> dict.

``call_tokenizer`` is what ``Tokenizer.__call__`` runs. It takes the options of
``transformers``' ``PreTrainedTokenizerFast.__call__`` and returns the same keys
(``input_ids``, ``token_type_ids``, ``attention_mask``, ``offset_mapping`` …) as lists,
or as numpy arrays with ``return_tensors="np"``. As in ``transformers``, the call's own
``padding``/``truncation`` options decide, not the tokenizer's ``enable_padding`` /
``enable_truncation`` settings (those only lend their pad token, direction and default
``max_length``), and the tokenizer is left unchanged.

It reads only ``Tokenizer``'s public interface (``padding_params``,
``truncation_params``, ``token_to_id``, ``encode_batch_with``), so it does not import it.

Not handled here: ``return_tensors="pt"``/``"tf"``, pre-tokenized input
(``is_split_into_words``), ``model_max_length`` (there is no model: ``max_length`` comes
from the call or from ``enable_truncation``).
"""

from __future__ import annotations

from ..errors import require
from .padding import PaddingParams, TruncationParams

_PADDING = {False: None, None: None, "do_not_pad": None, True: "longest", "longest": "longest",
            "max_length": "max_length"}
_TRUNCATION = {False: None, None: None, "do_not_truncate": None, True: "longest_first",
               "longest_first": "longest_first", "only_first": "only_first",
               "only_second": "only_second"}


class BatchEncoding(dict):
    """The model inputs (a dict), plus the ``Encoding`` objects they were made from.

    Keys are also readable as attributes (``batch.input_ids``).
    """

    def __init__(self, data: dict, encodings: list):
        super().__init__(data)
        self.encodings = encodings

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def word_ids(self, batch_index: int = 0) -> list[int | None]:
        """The word index of each token of row ``batch_index``."""
        return self.encodings[batch_index].word_ids

    def sequence_ids(self, batch_index: int = 0) -> list[int | None]:
        """The input sequence (0, 1 or None) of each token of row ``batch_index``."""
        return self.encodings[batch_index].sequence_ids


def _option(name: str, value, table: dict) -> str | None:
    try:
        return table[value]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}") from None


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


def _padding_params(tok, strategy, max_length, pad_to_multiple_of) -> PaddingParams | None:
    if strategy is None:
        return None
    base = tok.padding_params
    if strategy == "max_length" and max_length is None:
        raise ValueError("padding='max_length' needs max_length")
    pad_token = base.pad_token if base else "[PAD]"
    pad_id = base.pad_id if base else tok.token_to_id(pad_token)
    if pad_id is None:
        raise ValueError(f"cannot pad: the pad token {pad_token!r} is not in the vocabulary; "
                         f"call enable_padding(pad_token=..., pad_id=...) first")
    return PaddingParams(direction=base.direction if base else "right", pad_id=pad_id,
                         pad_type_id=base.pad_type_id if base else 0, pad_token=pad_token,
                         length=max_length if strategy == "max_length" else None,
                         pad_to_multiple_of=pad_to_multiple_of)


def _truncation_params(tok, strategy, max_length, stride) -> TruncationParams | None:
    if strategy is None:
        return None
    base = tok.truncation_params
    if max_length is None:
        if base is None:
            raise ValueError("truncation needs max_length (or enable_truncation beforehand)")
        max_length = base.max_length
    return TruncationParams(max_length, stride, strategy, base.direction if base else "right")


def call_tokenizer(tok, text, text_pair=None, *, add_special_tokens: bool = True,
                   padding=False, truncation=False, max_length: int | None = None,
                   stride: int = 0, pad_to_multiple_of: int | None = None,
                   return_tensors: str | None = None, return_token_type_ids: bool = True,
                   return_attention_mask: bool = True, return_offsets_mapping: bool = False,
                   return_special_tokens_mask: bool = False,
                   return_overflowing_tokens: bool = False, return_length: bool = False,
                   num_threads: int | None = None) -> BatchEncoding:
    """Encode ``text`` (str or list) and ``text_pair`` into a ``transformers``-style dict."""
    if return_tensors not in (None, "np"):
        raise ValueError(f"return_tensors={return_tensors!r} is not supported; use None "
                         f"(lists) or 'np' (numpy arrays)")
    items, batched = _items(text, text_pair)
    pad = _padding_params(tok, _option("padding", padding, _PADDING), max_length,
                          pad_to_multiple_of)
    trunc = _truncation_params(tok, _option("truncation", truncation, _TRUNCATION),
                               max_length, stride)
    encodings = tok.encode_batch_with(items, truncation=trunc, padding=pad,
                                      add_special_tokens=add_special_tokens,
                                      num_threads=num_threads)
    rows, mapping = [], []
    for i, enc in enumerate(encodings):
        for row in [enc, *enc.overflowing] if return_overflowing_tokens else [enc]:
            rows.append(row)
            mapping.append(i)
    wanted = [("input_ids", True, lambda e: e.ids),
              ("token_type_ids", return_token_type_ids, lambda e: e.type_ids),
              ("attention_mask", return_attention_mask, lambda e: e.attention_mask),
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
    if return_tensors == "np":
        data = _to_numpy(data)
    return BatchEncoding(data, rows)


def _to_numpy(data: dict) -> dict:
    np = require("numpy", "numpy")
    out = {}
    for key, value in data.items():
        if key not in ("length", "overflow_to_sample_mapping") and len({len(v) for v in value}) > 1:
            raise ValueError(f"cannot make one array of {key!r}: the rows have different "
                             f"lengths; pass padding=True (or padding='max_length')")
        out[key] = np.asarray(value, dtype=np.int64)
    return out
