"""Finish whole batches at once: id lists, lists of rows and arrays without per-text Python.

``BatchFinisher`` runs the engine's ``"ids"``, ``"lists"`` and ``"arrays"`` forms
(``engine.run``). On the native backend a batch takes a constant number of Python steps:
the C code splits the items into texts and pairs, encodes them into flat columns, then
truncates, adds special tokens and pads every row (``fast/_native/core/wp_finish.c``, the
port of ``finishing.Finisher``). What the post-processor adds is its plan (``plans_of``,
from the processor's own ``plan``); a processor without one, or whose plan C cannot hold
or run (offsets it trims), and the pure-Python backend take the reference path:
``Finisher`` per text. Whatever the C code refuses (a bad item, a truncation that cannot
fit) is left to the reference path, which raises its own error. ``one_text_call`` is the
same C call for one text, its checks done once.

Truncation's overflowing windows (``return_overflowing_tokens`` with truncation) are
rows of their own, made in C too, with each row's input (``Finished.mapping``).

Not handled here: full ``Encoding`` objects (``encodings``), texts holding a literal
added token (the reference path, through ``sequences``).
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from itertools import accumulate
from typing import Any, NamedTuple

from ..encoding.array_pool import ArrayPool
from ..encoding.padding import (
    MAX_PADDED_BATCH,
    STRATEGIES,
    PaddingParams,
    TruncationParams,
    check_padded_batch,
)
from ..errors import check_thread_count, native_fallback, require
from ..fast.backend import NativeWordEncoder, unzip_items
from ..fast.backend import words_columns as native_words_columns  # the C twin
from .finishing import Finisher, pad_batch_ids
from .plans import MAX_SPECIAL_IDS, plans_of, trims_offsets
from .sequences import SequenceEncoder

# encode_finished's ``want`` flags (wp_finish_glue.h)
WANT_TYPES, WANT_SPECIAL, WANT_ATTENTION, WANT_OFFSETS, WANT_LISTS = 1, 2, 4, 8, 16
WANT_WORDS, WANT_SEQUENCES = 32, 64  # int64 columns kept beside the rows (TokenColumns)
WANT_WINDOWS = 128  # one row per truncation window, and each row's input
# tok(...) keys the C columns give, in transformers' order, with their flag
ARRAY_KEYS = (("input_ids", 0), ("token_type_ids", WANT_TYPES),
              ("attention_mask", WANT_ATTENTION), ("special_tokens_mask", WANT_SPECIAL),
              ("offset_mapping", WANT_OFFSETS))
# the order of encode_finished's columns, by flag
_COLUMN_ORDER = (0, WANT_TYPES, WANT_SPECIAL, WANT_ATTENTION, WANT_OFFSETS)
# the memory of tok(...)'s big columns, reused once the previous arrays are dropped
_ARRAYS = ArrayPool()
# the most tokens one character can give in C: its normalized form's characters (NFKC's
# longest expansion is 18, U+FDFA), each token holding at least one
_TOKENS_PER_CHAR = 18


def unzip(items: list) -> tuple[list[str], list[str | None]]:
    """Split batch items (a text, or a ``(text, pair)`` tuple/list) into two columns."""
    firsts: list[str] = []
    pairs: list[str | None] = []
    for item in items:
        if isinstance(item, str):
            firsts.append(item)
            pairs.append(None)
        elif isinstance(item, Sequence) and len(item) == 2:
            firsts.append(item[0])
            pairs.append(item[1])
        else:
            raise TypeError(f"a batch item must be a str or a (text, pair) pair, "
                            f"got {item!r:.80}")
    return firsts, pairs


# ---------------------------------------------------------------- the batch


class BatchFinisher:
    """Encode and finish one batch with fixed settings (None: no truncation / padding)."""

    def __init__(self, seq: SequenceEncoder, post_processor, add_special_tokens: bool,
                 truncation: TruncationParams | None, padding: PaddingParams | None):
        self.seq = seq
        self.finisher = Finisher(post_processor, add_special_tokens, truncation, padding)
        self.python_reason = ""  # why the last batch took the Python path by design

    def ids(self, items: list, num_threads: int | None) -> list[list[int]]:
        """The finished ids of each item (first truncation window), padded as set."""
        threads = check_thread_count(num_threads)
        out = self._native(items, threads, WANT_LISTS)
        if out is None:
            self._fell_back("encode_batch_ids")
            return self.reference_ids(items, threads)
        return out

    def arrays(self, items: list, keys: AbstractSet[str], num_threads: int | None,
               words: bool = False, windows: bool = False) -> Finished | None:
        """``tok(...)``'s columns as 2-D int64 numpy arrays (offsets 3-D), or None.

        None when the C path cannot give them (see the module docstring) or the rows
        have different lengths: the caller then takes the reference path.
        """
        np = require("numpy", "numpy")
        want = sum(flag for key, flag in ARRAY_KEYS if key in keys) | _id_columns(words)
        out = self._native(items, check_thread_count(num_threads), want,
                           _column_maker(self.finisher.padding, len(items)), words, windows)
        if out is None:
            self._fell_back("tok(..., return_tensors=...)")
            return None
        mapping = out[-1] if windows else None
        *columns, word_column, sequence_column, splits = out[:-1] if windows else out
        widths = np.diff(np.frombuffer(splits, dtype=np.int64))
        if len(widths) == 0 or (widths != widths[0]).any():
            return None
        shape = (len(widths), int(widths[0]))
        by_flag = dict(zip(_COLUMN_ORDER, columns, strict=True))
        data = {}
        for key, flag in ARRAY_KEYS:
            if key in keys:
                array = np.frombuffer(by_flag[flag], dtype=np.int64)
                pairs = flag == WANT_OFFSETS and shape[1] > 0  # [[]] stays 2-D, as in np
                data[key] = array.reshape(shape + ((2,) if pairs else ()))
        if mapping is not None:
            mapping = np.frombuffer(mapping, dtype=np.int64)
        return Finished(data, splits, word_column, sequence_column, mapping)

    def lists(self, items: list, keys: AbstractSet[str], num_threads: int | None,
              words: bool = False, windows: bool = False) -> Finished | None:
        """``tok(...)``'s columns ``keys`` as lists of rows built in C, or None (see ``arrays``).

        Offsets come as ``(start, end)`` tuples, as ``Encoding.offsets`` gives them.
        """
        want = want_of(keys) | _id_columns(words)
        padding = self.finisher.padding  # the columns the lists are read from: checked
        alloc = None if padding is None else _column_maker(padding, len(items))
        out = self._native(items, check_thread_count(num_threads), want, alloc, words,
                           windows)
        if out is None:
            self._fell_back("tok(...) (lists)")
            return None
        if windows:
            data, splits, words_column, sequences, _ = lists_finished(out[:-1], keys)
            return Finished(data, splits, words_column, sequences,
                            memoryview(out[-1]).cast("q").tolist())
        return lists_finished(out, keys)

    def _native(self, items: list, threads: int, want: int, alloc=None,
                words: bool = False, windows: bool = False):
        """The C path's output for ``want`` (``encode_finished``), or None: not taken.

        ``words``: the items are ``(words, pair_words or None)`` (``is_split_into_words``).
        ``windows``: truncation's overflowing windows are rows of their own; the output
        then ends with each row's input (int64 bytes).
        ``alloc``: makes the int64 columns (zeros), see ``encode_finished``; it checks
        the padded batch against its cap. Without it (id lists), C pads the lists only
        when ``_padding_bounded``; else they are padded here once their longest is known
        (``pad_batch_ids`` checks the cap).
        """
        padding = self.finisher.padding
        if padding is not None:  # the C code pads every row: refuse what is sure to be over
            padding.check_rows(len(items))
        self.python_reason = ""  # by design when set; a fallback (strict mode) when not
        if windows:
            want |= WANT_WINDOWS
        encoder = self.seq.word_encoder
        if not isinstance(encoder, NativeWordEncoder):
            return self._python("the pure-Python backend, or a pipeline C does not run")
        split = words_columns(items) if words else unzip_items(items)
        if split is None:
            return self._python("an item that is no text or pair: the reference says why")
        texts, pair_rows, groups = split if words else (*split, None)
        def longest() -> int:  # characters of the longest sequence
            if words:
                return max((sum(map(len, seq)) for item in items for seq in item if seq),
                           default=0)
            return max(map(len, texts), default=0)
        held_back = alloc is None and not self._padding_bounded(longest, len(items),
                                                                pair_rows is None)
        if held_back:  # id lists: padded below once their longest is known and checked
            padding = None
        processor, add = self.finisher.post_processor, self.finisher.add_special_tokens
        plans = plans_of(processor, add)
        if plans is None:
            return self._python("a post-processor without a plan C can run")
        if want & WANT_OFFSETS and trims_offsets(processor, add):
            return self._python("offsets of a post-processor that trims them (trim_offsets)")
        if self.seq.needs_added_matching(texts, threads):
            return self._python("texts holding a literal added token")
        out = encoder.encode_finished(texts, pair_rows, len(items), plans,
                                      _truncation_args(self.finisher.truncation),
                                      _padding_args(padding), want, threads,
                                      alloc, groups)
        if isinstance(out, int):  # refused: the reference raises
            return self._python(f"item {out}, which truncation cannot fit: the reference "
                                "raises")
        return pad_batch_ids(out, self.finisher.padding) if held_back else out

    def _python(self, reason: str) -> None:
        """Note why a batch takes the Python path by design; None (``_native``'s "not taken")."""
        self.python_reason = reason

    def _fell_back(self, what: str) -> None:
        """After ``_native`` gave None: under strict mode, an error unless that was by design."""
        if not self.python_reason:
            native_fallback(what)

    def _padding_bounded(self, longest_chars: Callable[[], int], rows: int,
                         single: bool) -> bool:
        """Whether this batch's padded rows are sure to stay under the batch cap.

        A row holds at most truncation's ``max_length`` tokens, or else
        ``_TOKENS_PER_CHAR`` per character of its texts plus the special tokens.
        """
        padding, truncation = self.finisher.padding, self.finisher.truncation
        if padding is None:
            return True
        if truncation is not None:
            longest = truncation.max_length
        else:
            sides = 1 if single else 2
            longest = sides * _TOKENS_PER_CHAR * longest_chars() + MAX_SPECIAL_IDS
        return rows * padding.padded_bound(longest) <= MAX_PADDED_BATCH

    def reference_ids(self, items: list, threads: int | None) -> list[list[int]]:
        """``ids`` by the pure-Python reference: ``Finisher.ids`` per item."""
        firsts, pairs = unzip(items)
        flat = self.seq.ids(firsts + [p for p in pairs if p is not None], threads)
        seconds = iter(flat[len(firsts):])
        finisher = Finisher(self.finisher.post_processor, self.finisher.add_special_tokens,
                            self.finisher.truncation, None)
        out = [finisher.ids(a, None if p is None else next(seconds))
               for a, p in zip(flat[:len(firsts)], pairs, strict=True)]
        return pad_batch_ids(out, self.finisher.padding)


def one_text_call(seq: SequenceEncoder, post_processor, add_special_tokens: bool,
                  truncation: TruncationParams | None, want: int) -> Callable | None:
    """A function giving ``encode_finished``'s output for one text, unpadded; None where
    these settings need ``BatchFinisher``. The function gives None for a text it leaves
    to ``BatchFinisher`` (one holding a literal added token, one truncation cannot fit).

    The serving case (``encode_ids(text)``, ``tok(text)``): everything a batch checks
    that does not depend on the text is checked here once, so a call costs little more
    than the C encoding. Its plans are fixed: it is valid while the processor's
    ``options_stamp`` is (``engine`` keeps it so).
    """
    encoder = seq.word_encoder
    if type(encoder) is not NativeWordEncoder or (seq.match and seq.matched.has_normalized):
        return None
    plans = plans_of(post_processor, add_special_tokens)
    if plans is None or (want & WANT_OFFSETS and trims_offsets(post_processor,
                                                               add_special_tokens)):
        return None
    single, pair = plans
    finish = encoder.finish_call()
    search = seq.matched.search if seq.match else None
    # one first character for every token written as is ("[" of [CLS], [SEP]...): a text
    # without it needs no search
    cue = seq.matched.first_chars if search is not None else ""
    cue = cue if len(cue) == 1 else ""
    cut = _truncation_args(truncation)

    def call(text: str):
        if search is not None and cue in text and search(text) is not None:
            return None
        out = finish([text], None, 1, single, pair, cut, None, want, 1, None, None)
        return None if type(out) is int else out
    return call


def lists_finished(out: tuple | list, keys: AbstractSet[str]) -> Finished:
    """``encode_finished``'s lists output (``WANT_LISTS``) as ``Finished``.

    Ids alone, unpadded (``want`` is ``WANT_LISTS``), come as the bare id lists.
    """
    if type(out) is list:
        return Finished({"input_ids": out}, None, None, None)
    lists, word_column, sequence_column, splits = out
    return Finished({key: lists[at] for key, at in column_positions(keys)},
                    splits, word_column, sequence_column)


def column_positions(keys: AbstractSet[str]) -> tuple[tuple[str, int], ...]:
    """Where each column of ``keys`` sits in ``encode_finished``'s lists, in
    transformers' key order (``input_ids`` first, at 0)."""
    return tuple((key, _COLUMN_ORDER.index(flag)) for key, flag in ARRAY_KEYS if key in keys)


def want_of(keys: AbstractSet[str]) -> int:
    """The ``want`` flags of the columns ``keys``, as lists."""
    return WANT_LISTS | sum(flag for key, flag in ARRAY_KEYS if key in keys)


class Finished(NamedTuple):
    """``tok(...)``'s columns from C: ``data`` (key -> rows), and beside it the row bounds
    (int64 bytes), the word and sequence id columns (int64 bytes, or None: not asked) and,
    with truncation windows, each row's input (a list, or an int64 array)."""

    data: dict
    splits: bytes | None
    words: bytes | None
    sequences: bytes | None
    mapping: Any = None


def _id_columns(words: bool) -> int:
    """The id columns to ask for: pre-split words' ``word_ids(i)`` is what their callers
    read (label alignment), so they get word and sequence ids; texts get none (their
    word ids need offsets, which would slow the plain call)."""
    return WANT_WORDS | WANT_SEQUENCES if words else 0


def words_columns(items: list
                  ) -> tuple[list[str], bytes | bytearray | None, bytes | bytearray]:
    """Pre-split items as ``encode_finished``'s texts, pair rows and groups.

    Every first sequence's words, then every pair's; ``groups`` the sequence boundaries
    over them; a pair row is the index of the item's pair among the sequences. In C
    when the extension is built (``backend.words_columns``); this is its reference.
    """
    fast = native_words_columns(items)
    return fast if fast is not None else reference_words_columns(items)


def reference_words_columns(items: list) -> tuple[list[str], bytes | None, bytes]:
    """``words_columns`` in Python (the pure-Python backend, and the C one's twin)."""
    firsts = [first for first, _ in items]
    seconds = [second for _, second in items if second is not None]
    texts = [word for words in firsts for word in words]
    texts += [word for words in seconds for word in words]
    bounds = list(accumulate(map(len, firsts + seconds), initial=0))
    pair_rows = None
    if seconds:
        next_pair = iter(range(len(items), len(items) + len(seconds)))
        pair_rows = array("q", [-1 if second is None else next(next_pair)
                                for _, second in items]).tobytes()
    return texts, pair_rows, array("q", bounds).tobytes()


def _column_maker(padding: PaddingParams | None, rows: int):
    """``alloc`` for the C columns: pooled memory, the padded batch checked against its cap.

    The C code asks for the ids column first, every row already padded: its size is
    the padded batch, refused (``check_padded_batch``) before any of it exists. With
    truncation windows C gives the number of rows too (``rows`` counts the inputs).
    """
    checked: list[bool] = []

    def make(nbytes: int, windows: int | None = None):
        count = rows if windows is None else windows
        if padding is not None and count and not checked:
            checked.append(True)
            check_padded_batch(count, nbytes // 8 // count)
        return _ARRAYS.take(nbytes // 8)
    return make


@functools.lru_cache(maxsize=64)
def _truncation_args(params: TruncationParams | None) -> tuple | None:
    if params is None:
        return None
    return (params.max_length, params.stride, STRATEGIES.index(params.strategy),
            int(params.direction == "left"))


def _padding_args(params: PaddingParams | None) -> tuple | None:
    if params is None:
        return None
    return (-1 if params.length is None else params.length, params.pad_to_multiple_of or 0,
            params.pad_id, params.pad_type_id, int(params.direction == "left"))
