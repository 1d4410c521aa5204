"""Turn items into tokens: the one entry point every encode call of ``Tokenizer`` runs.

``run(pipeline, items, settings, form)`` takes the items (texts or ``(text, pair)``
tuples; with ``settings.words``, ``(words, pair_words or None)``), one immutable
``EncodeSettings`` (truncation, padding, special tokens, what to return) and an output
form:

- ``"encodings"``: one finished ``Encoding`` per item (``encodings.encode_many``;
  pre-split words: ``pretokenized.encode_words``);
- ``"ids"``: each item's finished ids (``batches.BatchFinisher.ids``);
- ``"lists"`` / ``"arrays"``: ``tok(...)``'s columns as Python lists of rows or numpy
  arrays (``Columns``).

Each form runs native when the batch allows it (``batches``: items split, encoded and
finished in C) and otherwise the pure-Python reference, which gives the same result
and raises the errors. The engine never calls back into ``Tokenizer``: what it needs
of one is the ``Pipeline``.

Example (what ``tok.encode_batch_ids(["hello world"])`` runs)::

    run(tok.pipeline, ["hello world"], EncodeSettings(), "ids")

Not handled here: ``transformers``' call options (``call``), the dict it returns
(``encoding.batch_encoding``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..encoding.padding import PaddingParams, TruncationParams
from ..encoding.token_columns import TokenColumns
from ..errors import check_thread_count
from ..pipeline.processors import PostProcessor
from .batches import BatchFinisher, lists_finished, one_text_call, want_of
from .encodings import encode_many
from .pretokenized import encode_words
from .sequences import SequenceEncoder

FORMS = ("encodings", "ids", "lists", "arrays")


class Pipeline(NamedTuple):
    """What the engine needs of a tokenizer: its sequence encoder and post-processor."""

    sequences: SequenceEncoder
    post_processor: PostProcessor | None
    id_to_token: Callable[[int], str | None]


class EncodeSettings(NamedTuple):
    """One call's options, fixed for the call (None: no truncation / padding).

    ``keys``: the columns the ``"lists"`` and ``"arrays"`` forms return;
    ``overflowing``: truncation's overflowing windows are returned as rows of their own.
    """

    add_special_tokens: bool = True
    truncation: TruncationParams | None = None
    padding: PaddingParams | None = None
    num_threads: int | None = None
    keys: frozenset[str] = frozenset({"input_ids"})
    words: bool = False
    overflowing: bool = False


class Columns(NamedTuple):
    """``tok(...)``'s columns: ``data`` (key -> lists of rows, or numpy arrays when
    ``native`` and asked), the rows' Encodings (or a function making them when first
    read), what the native columns tell of the tokens (``facts``, None on the reference
    path) and, with overflowing windows, the input of each row."""

    data: dict
    encodings: list | Callable[[], list]
    facts: TokenColumns | None
    sample_mapping: list[int] | None


def run(pipeline: Pipeline, items: list, settings: EncodeSettings, form: str) -> Any:
    """Encode ``items`` into ``form`` (see the module docstring), native when it can."""
    if form == "encodings":
        return _encodings(pipeline, items, settings)
    if len(items) == 1 and type(items[0]) is str:
        if settings.num_threads is not None:  # the lane runs on one thread: still checked
            check_thread_count(settings.num_threads)
        call = _one_text_call(pipeline, settings, form)
        out = None if call is None else call(items[0])
        if out is not None:
            return out
    finisher = BatchFinisher(pipeline.sequences, pipeline.post_processor,
                             settings.add_special_tokens, settings.truncation,
                             settings.padding)
    if form == "ids":
        return finisher.ids(items, settings.num_threads)
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(map(repr, FORMS))}, got {form!r}")
    windows = settings.overflowing and settings.truncation is not None
    finish = finisher.lists if form == "lists" else finisher.arrays
    finished = finish(items, settings.keys, settings.num_threads, settings.words, windows)
    if finished is None:
        return reference_columns(pipeline, items, settings)
    facts = TokenColumns(finished.data["input_ids"], pipeline.id_to_token, finished.splits,
                         finished.words, finished.sequences)
    if windows:
        return Columns(finished.data, lambda: _window_rows(pipeline, items, settings), facts,
                       finished.mapping)
    return Columns(finished.data, lambda: _encodings(pipeline, items, settings), facts, None)


def _window_rows(pipeline: Pipeline, items: list, settings: EncodeSettings) -> list:
    """The Encodings of every row truncation's windows make, in the columns' order."""
    return [row for enc in _encodings(pipeline, items, settings)
            for row in [enc, *enc.overflowing]]


# How many compiled one-text calls a pipeline keeps (``SequenceEncoder.one_text_calls``:
# (form, settings, processor) -> (the processor's options stamp, the call or None); a
# sequence encoder is built again when a stage changes, and its calls go with it).
_ONE_TEXT_KEPT = 16


def _one_text_call(pipeline: Pipeline, settings: EncodeSettings, form: str):
    """``run`` for one text as one C call (a function giving None where it cannot), or None.

    Compiled once per pipeline and settings; compiled again when the post-processor's
    ``options_stamp`` moves (a processor without one is never compiled).
    """
    if form not in ("ids", "lists"):
        return None
    processor = pipeline.post_processor
    stamp_of = getattr(processor, "options_stamp", None)
    if processor is not None and stamp_of is None:
        return None
    stamp = None if stamp_of is None else stamp_of()
    calls = pipeline.sequences.one_text_calls
    key = (form, settings, processor)
    seen = calls.get(key)
    if seen is not None and seen[0] == stamp:
        return seen[1]
    if len(calls) >= _ONE_TEXT_KEPT:
        calls.clear()
    call = _compile_one_text(pipeline, settings, form)
    calls[key] = (stamp, call)
    return call


def one_text_native(pipeline: Pipeline, settings: EncodeSettings, form: str = "lists"):
    """The C call ``run`` makes for one text in ``form`` ("ids" or "lists": C's raw
    lists, see ``batches.lists_finished``), or None where these settings take the batch
    path. It gives None for a text it leaves to the batch path.

    Not cached: ``run`` keeps what it compiles, and so does ``call.one_text_lane``.
    """
    if (form not in ("ids", "lists") or settings.padding is not None or settings.overflowing
            or settings.words):
        return None
    processor = pipeline.post_processor
    if processor is not None and getattr(processor, "options_stamp", None) is None:
        return None  # a change to it could not be seen
    return one_text_call(pipeline.sequences, processor, settings.add_special_tokens,
                         settings.truncation,
                         want_of(frozenset() if form == "ids" else settings.keys))


def _compile_one_text(pipeline: Pipeline, settings: EncodeSettings, form: str):
    keys = settings.keys
    native = one_text_native(pipeline, settings, form)
    if native is None or form == "ids":
        return native

    def lists(text: str):
        out = native(text)
        if out is None:
            return None
        finished = lists_finished(out, keys)
        facts = TokenColumns(finished.data["input_ids"], pipeline.id_to_token,
                             finished.splits, finished.words, finished.sequences)
        return Columns(finished.data, lambda: _encodings(pipeline, [text], settings), facts,
                       None)
    return lists


def _encodings(pipeline: Pipeline, items: list, settings: EncodeSettings) -> list:
    encode = encode_words if settings.words else encode_many
    return encode(pipeline.sequences, pipeline.post_processor, items,
                  add_special_tokens=settings.add_special_tokens,
                  truncation=settings.truncation, padding=settings.padding,
                  num_threads=settings.num_threads)


# each column's getter on an Encoding, in transformers' order
_GETTERS = (("input_ids", lambda e: e.ids), ("token_type_ids", lambda e: e.type_ids),
            ("attention_mask", lambda e: e.attention_mask),
            ("special_tokens_mask", lambda e: e.special_tokens_mask),
            ("offset_mapping", lambda e: e.offsets))


def reference_columns(pipeline: Pipeline, items: list, settings: EncodeSettings) -> Columns:
    """``Columns`` by the pure-Python reference: Encodings, then their lists."""
    encodings = _encodings(pipeline, items, settings)
    rows, mapping = [], []
    for i, enc in enumerate(encodings):
        for row in [enc, *enc.overflowing] if settings.overflowing else [enc]:
            rows.append(row)
            mapping.append(i)
    data = {key: [get(row) for row in rows] for key, get in _GETTERS if key in settings.keys}
    return Columns(data, rows, None, mapping if settings.overflowing else None)
