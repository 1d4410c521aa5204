"""Encode like a ``transformers`` tokenizer: ``tok(texts, padding=True, ...)`` -> dict.

``call_tokenizer`` is what ``Tokenizer.__call__`` runs. It takes the options of
``transformers``' ``PreTrainedTokenizerFast.__call__``, resolves them once into the
engine's ``EncodeSettings``, runs the engine (``engine.run``: lists or numpy columns,
native when it can) and returns the same keys as ``transformers`` (``input_ids``,
``token_type_ids``, ``attention_mask``, ``offset_mapping`` …) as lists, numpy arrays
(``return_tensors="np"``) or torch tensors (``"pt"``). As in ``transformers``, the
call's own ``padding``/``truncation`` options decide, not the tokenizer's
``enable_padding`` / ``enable_truncation`` settings; ``max_length`` defaults to the
tokenizer's ``model_max_length`` (none: nothing is cut or padded to a length, with a
warning, as transformers does; ``enable_truncation``'s length is not used, as in
transformers), the pad token is its ``pad_token``, and ``padding_side`` /
``truncation_side`` default to its attributes: those come in as ``CallDefaults``, so
this module never reads a ``Tokenizer``.

Not handled here: ``return_tensors="tf"``/``"jax"``, finishing one encoding
(``finishing``), encoding pre-split words (``pretokenized``).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from ..encoding.batch_encoding import (
    PADDING_VALUES,
    TENSOR_TYPES,
    TRUNCATION_VALUES,
    BatchEncoding,
    from_numpy,
    no_length_warning,
    option_value,
    side_value,
    to_tensors,
)
from ..encoding.padding import PaddingParams, TruncationParams, check_multiple_fits
from ..encoding.token_columns import TokenColumns
from ..errors import check_thread_count, require
from ..fast.backend import word_items
from .batches import column_positions
from .engine import Columns, EncodeSettings, Pipeline, one_text_native, run
from .pretokenized import check_words


class CallDefaults(NamedTuple):
    """What a call's options default to: the tokenizer's settings and special tokens."""

    pad_token: str | None
    pad_token_id: int | None
    padding_params: PaddingParams | None  # enable_padding's
    model_max_length: int | None
    padding_side: str
    truncation_side: str


class Resolved(NamedTuple):
    """A call's options resolved: the engine's settings and output form, and the shape."""

    settings: EncodeSettings
    form: str
    return_tensors: str | None
    return_length: bool


# Resolved options by (the defaults' id, options, their types) -> (the defaults, what they
# resolve to): the serving case repeats one call's options text after text, and
# resolving them costs more than encoding a short text. The defaults object is kept, so
# its id is not reused while the entry stands.
_RESOLVED: dict[tuple, tuple[CallDefaults, Resolved]] = {}
_RESOLVED_KEPT = 256


def call_tokenizer(pipeline: Pipeline, defaults: CallDefaults, text, text_pair=None,
                   **options) -> BatchEncoding:
    """Encode ``text`` (str or list) and ``text_pair`` into a ``transformers``-style dict.

    With ``is_split_into_words``, ``text`` is a list of words (or a batch of them). The
    options are ``resolve_options``'.
    """
    resolved = _resolved(defaults, options)
    settings = resolved.settings
    items, batched = (_word_items if settings.words else _items)(text, text_pair)
    columns = run(pipeline, items, settings, resolved.form)
    return _batch_encoding(columns, len(items), batched, settings.overflowing,
                           resolved.return_length, resolved.return_tensors)


def one_text_lane(pipeline: Pipeline, defaults: CallDefaults, options: dict):
    """``call_tokenizer(pipeline, defaults, text, **options)`` for one ``str`` text, as
    one C call and one dict; None where the options need the general call.

    The serving case (``tok(text)`` text after text): the options are resolved once,
    and a call costs the C encoding plus the ``BatchEncoding``; its Encodings and token
    columns are made when first read. The lane gives None for a text it leaves to the
    general call (a literal added token, a truncation that cannot fit). Valid while
    ``pipeline`` and ``defaults`` are (the caller keeps it so: ``Tokenizer.__call__``).
    Options the general call refuses raise the same error here.
    """
    resolved = _resolved(defaults, options)
    settings = resolved.settings
    if resolved.form != "lists" or resolved.return_length:
        return None
    if settings.num_threads is not None:  # the lane runs on one thread: still checked
        check_thread_count(settings.num_threads)
    native = one_text_native(pipeline, settings)
    if native is None:
        return None
    positions = column_positions(settings.keys)
    id_to_token = pipeline.id_to_token

    def lane(text: str) -> BatchEncoding | None:
        out = native(text)
        if out is None:
            return None
        encodings = partial(run, pipeline, [text], settings, "encodings")
        if type(out) is list:  # ids alone: C gives the bare rows
            return BatchEncoding({"input_ids": out[0]}, encodings,
                                 partial(TokenColumns, out, id_to_token, None))
        lists, words, sequences, splits = out
        return BatchEncoding({key: lists[at][0] for key, at in positions}, encodings,
                             partial(TokenColumns, lists[0], id_to_token, splits, words,
                                     sequences))
    return lane


def _resolved(defaults: CallDefaults, options: dict) -> Resolved:
    """``resolve_options``, remembered for options that are all hashable values."""
    # the value types too: 128.0 == 128, but only 128 is a valid max_length
    key = (id(defaults), tuple(options.items()), tuple(map(type, options.values())))
    try:
        kept = _RESOLVED.get(key)
    except TypeError:  # an unhashable value (a list...): resolve says what is wrong
        return resolve_options(defaults, **options)
    if kept is not None and kept[0] is defaults:
        return kept[1]
    resolved = resolve_options(defaults, **options)
    if len(_RESOLVED) >= _RESOLVED_KEPT:
        _RESOLVED.clear()
    _RESOLVED[key] = (defaults, resolved)
    return resolved


def resolve_options(defaults: CallDefaults, *, add_special_tokens: bool = True,
                    padding=False, truncation=None, max_length: int | None = None,
                    stride: int = 0, is_split_into_words: bool = False,
                    pad_to_multiple_of: int | None = None, padding_side: str | None = None,
                    truncation_side: str | None = None, return_tensors: str | None = None,
                    return_token_type_ids: bool | None = None,
                    return_attention_mask: bool | None = None,
                    return_offsets_mapping: bool = False,
                    return_special_tokens_mask: bool = False,
                    return_overflowing_tokens: bool = False, return_length: bool = False,
                    num_threads: int | None = None) -> Resolved:
    """Resolve ``transformers``' call options (its names and defaults) into the engine's."""
    if return_tensors not in TENSOR_TYPES:
        raise ValueError(f"return_tensors={return_tensors!r} is not supported; use None "
                         f"(lists), 'np' (numpy arrays) or 'pt' (torch tensors)")
    if truncation is None:  # transformers: max_length without padding truncates
        truncation = max_length is not None and padding is False
    pad = _padding_params(defaults, option_value("padding", padding, PADDING_VALUES),
                          max_length, pad_to_multiple_of,
                          side_value("padding_side", padding_side, defaults.padding_side))
    trunc = _truncation_params(defaults, option_value("truncation", truncation,
                                                      TRUNCATION_VALUES),
                               max_length, stride,
                               side_value("truncation_side", truncation_side,
                                          defaults.truncation_side))
    check_multiple_fits(pad, trunc)
    keys = {"input_ids", "offset_mapping" if return_offsets_mapping else "",
            "token_type_ids" if return_token_type_ids is not False else "",
            "attention_mask" if return_attention_mask is not False else "",
            "special_tokens_mask" if return_special_tokens_mask else ""}
    settings = EncodeSettings(add_special_tokens, trunc, pad, num_threads,
                              frozenset(keys - {""}), bool(is_split_into_words),
                              bool(return_overflowing_tokens))
    return Resolved(settings, "lists" if return_tensors is None else "arrays", return_tensors,
                    bool(return_length))


def _batch_encoding(columns: Columns, n: int, batched: bool, overflowing: bool,
                    return_length: bool, return_tensors: str | None) -> BatchEncoding:
    """The ``BatchEncoding`` of the engine's columns for ``n`` inputs, as transformers
    shapes it: one unbatched input loses its row dimension (lists only)."""
    data = columns.data
    native = columns.facts is not None
    if return_length:
        data["length"] = _lengths(data["input_ids"], return_tensors if native else None)
    if overflowing:
        mapping = columns.sample_mapping
        if mapping is None:  # the native path: no truncation windows, one row per input
            mapping = list(range(n)) if return_tensors is None else _np().arange(n)
        data["overflow_to_sample_mapping"] = mapping
    if not native:
        if not batched and not overflowing and return_tensors is None:
            data = _unbatched(data)
        return BatchEncoding(to_tensors(data, return_tensors), columns.encodings)
    if return_tensors is None:
        if not batched and not overflowing:
            data = _unbatched(data)
    else:
        data = from_numpy(data, return_tensors)
    return BatchEncoding(data, columns.encodings, columns.facts)


def _unbatched(data: dict) -> dict:
    """transformers unwraps the rows of one input; per-row numbers (length) stay lists."""
    return {key: value[0] if value and isinstance(value[0], list) else value
            for key, value in data.items()}


def _lengths(ids, return_tensors: str | None):
    """``return_length``'s column: each row's length, padding included (as transformers)."""
    if return_tensors is None:
        return [len(row) for row in ids]
    return _np().full(ids.shape[0], ids.shape[1], dtype=ids.dtype)


def _np():
    return require("numpy", "numpy")


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
    """``_items`` for ``is_split_into_words``: a list of words, or a batch of them.

    A batch of plain lists of str is checked and copied in C (``backend.word_items``);
    anything else takes ``reference_word_items``, which raises the errors.
    """
    batched = isinstance(text, list | tuple) and bool(text) and isinstance(text[0], list | tuple)
    if batched:
        fast = word_items(text, text_pair)
        if fast is not None:
            return fast, True
    return reference_word_items(text, text_pair, batched), batched


def reference_word_items(text, text_pair, batched: bool) -> list:
    """``_word_items``' items in Python (and the C one's twin)."""
    if not batched:
        pair = None if text_pair is None else check_words(text_pair, "text_pair")
        return [(check_words(text, "text"), pair)]
    if text_pair is not None and (not isinstance(text_pair, list | tuple)
                                  or len(text_pair) != len(text)):
        raise ValueError("text_pair must be a list of word lists as long as text")
    if text_pair is None:
        return [(check_words(w, "text", i), None) for i, w in enumerate(text)]
    return [(check_words(w, "text", i), None if p is None else check_words(p, "text_pair", i))
            for i, (w, p) in enumerate(zip(text, text_pair, strict=True))]


def _padding_params(defaults: CallDefaults, strategy, max_length, pad_to_multiple_of,
                    side: str) -> PaddingParams | None:
    if strategy is None:
        return None
    if strategy == "max_length" and max_length is None:
        max_length = defaults.model_max_length
        if max_length is None:
            no_length_warning("pad to max_length", "padded")
            return None
    base = defaults.padding_params
    pad_token = defaults.pad_token
    if pad_token is None:
        raise ValueError("cannot pad: this tokenizer has no pad token; set tok.pad_token "
                         "(e.g. tok.pad_token = '[PAD]') or call enable_padding(pad_token=...)")
    same = base is not None and base.pad_token == pad_token
    pad_id = base.pad_id if base is not None and same else defaults.pad_token_id
    if pad_id is None:
        raise ValueError(f"cannot pad: the pad token {pad_token!r} is not in the vocabulary")
    return PaddingParams(direction=side, pad_id=pad_id,
                         pad_type_id=base.pad_type_id if base else 0, pad_token=pad_token,
                         length=max_length if strategy == "max_length" else None,
                         pad_to_multiple_of=pad_to_multiple_of)


def _truncation_params(defaults: CallDefaults, strategy, max_length, stride,
                       side: str) -> TruncationParams | None:
    if strategy is None:
        return None
    if max_length is None:
        max_length = defaults.model_max_length
        if max_length is None:
            no_length_warning("truncate", "truncated")
            return None
    return TruncationParams(max_length, stride, strategy, side)
