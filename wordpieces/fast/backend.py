"""Pick the encoding backend: the native extension when it is built, else pure Python.

``make_word_encoder(normalizer, pre_tokenizer, model)`` returns an object with the
interface of ``word_encoder.WordEncoder`` (``encode``, ``encode_ids``) plus batch methods
(``encode_batch``, ``encode_batch_ids``, with ``num_threads`` and numpy output). For
a fused pipeline (``WordEncoder.fused``: BERT's, or any of HF's charwise normalizers and
class pre-tokenizers, ``pipeline.char_forms``) with an exact ``WordPiece`` model it runs
in C (``_native``): the extension releases the GIL, so batches scale across cores with
threads. The C code holds no Unicode data: it learns each character from the Python
reference (``WordEncoder.char_facts``), so both backends give the same ids and offsets;
a text holding a character the fused path cannot do ("complex") is encoded by the
Python reference.

``WORDPIECES_BACKEND=python`` forces the pure-Python reference, ``=native`` makes a
missing extension an error; ``backend()`` tells which one runs, and why;
``explain_backend(tokenizer)`` which path a tokenizer's pipeline takes, naming the stage
that keeps it off the native one.

Not handled here: special tokens, pairs, padding, truncation (``tokenizer``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, cast

from ..errors import MissingDependencyError, check_batch, check_thread_count, require
from ..pipeline.char_forms import RUN_LETTERS
from ..pipeline.models import SubwordModel, WordPiece
from .word_encoder import WordEncoder

_core: Any  # the extension module (it has no type stubs), or None when it is missing
try:
    _core = importlib.import_module(__name__.rpartition(".")[0] + "._native._core")
    _NATIVE_ERROR = ""
except ModuleNotFoundError:  # no compiler at install time, or WORDPIECES_NO_NATIVE=1
    _core, _NATIVE_ERROR = None, "native extension not built"
except ImportError as e:  # e.g. built for another Python
    _core, _NATIVE_ERROR = None, f"native extension failed to load: {e}"

BACKENDS = ("auto", "native", "python")


class IdsArrays(NamedTuple):
    """Ids of a batch, flat: text ``i`` has ``ids[row_splits[i]:row_splits[i + 1]]``."""

    ids: Any  # numpy int32
    row_splits: Any  # numpy int64, len(texts) + 1


class EncodingArrays(NamedTuple):
    """Ids, offsets (``(n, 2)``, code points) and word indices of a batch, flat."""

    ids: Any  # numpy int32
    offsets: Any  # numpy int64, shape (n, 2)
    word_ids: Any  # numpy int32
    row_splits: Any  # numpy int64, len(texts) + 1


def backend() -> str:
    """Say which backend ``make_word_encoder`` uses: ``"native"`` or ``"python (why)"``.

    >>> backend() in ("native",) or backend().startswith("python (")
    True
    """
    choice = _choice()
    if choice == "python":
        return "python (WORDPIECES_BACKEND=python)"
    if _core is None:
        return f"python ({_NATIVE_ERROR})"
    return "native"


def make_word_encoder(normalizer, pre_tokenizer, model):
    """Return the fastest encoder of this pipeline that gives the reference's results.

    >>> from wordpieces.pipeline.normalizers import BertNormalizer
    >>> from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
    >>> enc = make_word_encoder(BertNormalizer(), BertPreTokenizer(),
    ...                         WordPiece(["[UNK]", "hello", "##s", "!"]))
    >>> enc.encode("Hellos!")
    ([1, 2, 3], [(0, 5), (5, 6), (6, 7)], [0, 0, 1])
    """
    reference = PythonWordEncoder(normalizer, pre_tokenizer, model, prefix=True)
    choice = _choice()
    if choice == "python":
        return reference
    if _core is None:
        if choice == "native":
            raise MissingDependencyError(
                f"WORDPIECES_BACKEND=native but the {_NATIVE_ERROR}; reinstall wordpieces "
                "where a C compiler is available")
        return reference
    if not _native_can_run(reference):
        return reference
    try:
        return NativeWordEncoder(reference)
    except MemoryError:  # a pathological vocabulary: its LinMaxMatch tables are too big
        if choice == "native":
            raise
        return reference


def _choice() -> str:
    choice = os.environ.get("WORDPIECES_BACKEND", "auto").strip().lower() or "auto"
    if choice not in BACKENDS:
        raise ValueError(f"WORDPIECES_BACKEND={choice!r} is not one of {', '.join(BACKENDS)}")
    return choice


def _native_can_run(reference: WordEncoder) -> bool:
    """The C path covers every fused pipeline with an exact WordPiece model."""
    return not _why_not_native(reference)


def _why_not_native(reference: WordEncoder) -> str:
    """Why the C path cannot run this reference's pipeline ("" when it can)."""
    if not reference.fused:
        return reference.why_general
    if type(reference.model) is not WordPiece:
        return f"model {type(reference.model).__name__}: the C path runs WordPiece only"
    if reference.model.unk_id < 0:  # an empty WordPiece(): the reference raises the error
        return "model WordPiece has no unknown token"
    if len(reference.run_classes) > len(RUN_LETTERS):
        return "pre_tokenizer: more run classes than the C table holds"
    return ""


def explain_backend(tokenizer=None, *, normalizer=None, pre_tokenizer=None,
                    model=None) -> str:
    """Say which path a tokenizer's (or these stages') words take, and why.

    ``"native"``; ``"python (fused)"``: the pure-Python fast path (the extension is not
    there, or ``WORDPIECES_BACKEND=python``); ``"python: <stage and reason>"``: the staged
    general path, naming the stage that keeps the pipeline off the fast paths.

    >>> from wordpieces.pipeline import normalizers, pre_tokenizers
    >>> explain_backend(normalizer=normalizers.Lowercase(), model=WordPiece(["[UNK]"]),
    ...                 pre_tokenizer=pre_tokenizers.Sequence([pre_tokenizers.Metaspace(),
    ...                                                        pre_tokenizers.Digits()]))
    'python: pre_tokenizer Metaspace: before another member of a Sequence, or in a nested one'
    """
    if tokenizer is not None:
        normalizer, pre_tokenizer = tokenizer.normalizer, tokenizer.pre_tokenizer
        model = tokenizer.model
    reference = WordEncoder(normalizer, pre_tokenizer, model, prefix=True)
    why = _why_not_native(reference)
    if why:
        return f"python: {why}" if not reference.fused else f"python (fused): {why}"
    where = backend()
    return "native" if where == "native" else f"python (fused): {where[len('python '):]}"


# ---------------------------------------------------------------- batching


class _Batching:
    """Batch methods shared by both backends; subclasses implement ``_encode_texts``."""

    releases_gil = False

    def encode_batch_ids(self, texts: Iterable[str], num_threads: int | None = None, *,
                         as_numpy: bool = False):
        """Return the ids of each text, or ``IdsArrays`` when ``as_numpy``."""
        return self._encode_many(texts, num_threads, offsets=False, arrays=as_numpy)

    def encode_batch(self, texts: Iterable[str], num_threads: int | None = None, *,
                     as_numpy: bool = False):
        """Return ``(ids, offsets, word_ids)`` per text, or ``EncodingArrays``."""
        return self._encode_many(texts, num_threads, offsets=True, arrays=as_numpy)

    def encode_batch_raw(self, texts: Iterable[str], num_threads: int | None = None) -> list:
        """Return each text's raw tokens for a ``LazyEncoding`` (offsets built on request)."""
        texts = texts if isinstance(texts, list | tuple) else list(texts)
        threads = _thread_count(num_threads) if self.releases_gil else 1
        return self._raw_texts(texts, threads)

    def _encode_many(self, texts, num_threads, *, offsets: bool, arrays: bool):
        texts = texts if isinstance(texts, list | tuple) else list(texts)
        threads = _thread_count(num_threads)
        if not self.releases_gil:
            threads = 1  # threads would only take turns holding the GIL
        if arrays:
            np = require("numpy", "numpy")
            return self._as_numpy(self._encode_texts(texts, offsets, True, threads), offsets, np)
        return self._encode_texts(texts, offsets, False, threads)

    def _encode_texts(self, texts: Sequence[str], offsets: bool, arrays: bool, threads: int):
        raise NotImplementedError

    def _raw_texts(self, texts: Sequence[str], threads: int) -> list:
        raise NotImplementedError

    @staticmethod
    def _as_numpy(columns: tuple, offsets: bool, np):
        """Wrap flat columns (bytearrays from C, arrays from Python) as numpy arrays."""
        dtypes = (np.int32, np.int64, np.int32, np.int64) if offsets else (np.int32, np.int64)
        ids, *rest = [np.frombuffer(c, dtype=dt) if isinstance(c, bytearray) else c
                      for c, dt in zip(columns, dtypes, strict=True)]
        if not offsets:
            return IdsArrays(ids, rest[0])
        return EncodingArrays(ids, rest[0].reshape(-1, 2), rest[1], rest[2])


class PythonWordEncoder(_Batching, WordEncoder):
    """The pure-Python reference ``WordEncoder`` with the batch interface."""

    releases_gil = False  # threads would only take turns

    def _encode_texts(self, texts, offsets: bool, arrays: bool, threads: int):
        _check_texts(texts)
        if offsets:
            encoded = [self.encode(t) for t in texts]
            return _arrays_from_lists(encoded) if arrays else encoded
        ids = [self.encode_ids(t) for t in texts]
        return _ids_arrays_from_lists(ids) if arrays else ids

    def _raw_texts(self, texts, threads: int) -> list:
        _check_texts(texts)
        return [self.encode_raw(t) for t in texts]


class NativeWordEncoder(_Batching):
    """The fused BERT pipeline in C, with the Python reference for complex texts."""

    releases_gil = True  # batches run on native threads; texts of 2048+ characters too

    def __init__(self, reference: WordEncoder):
        self.reference = reference
        self.normalizer = reference.normalizer
        self.pre_tokenizer = reference.pre_tokenizer
        # _native_can_run: an exact WordPiece, read through the native contract
        self.model = model = cast(SubwordModel, reference.model)
        tokens = [t.encode("utf-8", "surrogatepass") for t in model.vocab.tokens]
        max_bytes = model.max_input_bytes_per_word
        max_chars = model.max_input_chars_per_word
        self._core = _core.Encoder(
            tokens, model.continuing_subword_prefix.encode("utf-8", "surrogatepass"),
            model.unk_id, -1 if max_chars is None else max_chars,
            -1 if max_bytes is None else max_bytes, self._lookup, self._fallback,
            reference.prefix, reference.metaspace)

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        """Return ids, offsets into ``text`` and the index of the word of each token."""
        return self._core.encode(text)

    def encode_ids(self, text: str) -> list[int]:
        """Return only the ids (no offsets are built)."""
        return self._core.encode_ids(text)

    def _encode_texts(self, texts, offsets: bool, arrays: bool, threads: int):
        return self._core.encode_batch(texts, offsets, arrays, threads)

    def encode_finished(self, texts: list[str], pair_rows, n_inputs: int, plans: tuple,
                        truncation: tuple | None, padding: tuple | None, want: int,
                        num_threads: int | None, alloc=None, groups=None):
        """Encode ``texts`` and finish them in one C call: id lists, or int64 columns.

        The texts are encoded, then truncated, given special tokens by the ``plans`` and
        padded (``core/wp_finish.c``) without columns between: unpadded id lists are
        built while other threads still encode, and columns are copied and written on
        every thread. Returns the index of the first input truncation refuses (an int:
        the reference path raises its error). ``alloc(nbytes)``, when
        given, makes each int64 column: a writable buffer of at least ``nbytes`` bytes
        with any contents (``encoding.array_pool`` reuses memory), every value of which
        the C code writes. ``groups`` (int64 bytes, sequence boundaries over ``texts``):
        sequence ``j`` is ``texts[groups[j]:groups[j + 1]]``, their tokens joined (words
        given pre-split, each encoded on its own); ``pair_rows`` then index sequences.
        """
        return self._core.encode_finish(texts, pair_rows, n_inputs, plans[0], plans[1],
                                        truncation, padding, want, _thread_count(num_threads),
                                        alloc, groups)

    def finish_call(self):
        """``encode_finished`` without its Python layer: the C method, arguments as there
        (``threads`` an int). For callers that fix every argument but the texts once."""
        return self._core.encode_finish

    def _raw_texts(self, texts, threads: int) -> list:
        """One ``ColumnTokens`` (the C type ``Row``) per text, made in one call."""
        return _core.rows(*self._core.encode_batch(texts, True, True, threads))

    def _lookup(self, cp: int) -> tuple[str, bytes]:
        """Teach the C table one character: its class and what it normalizes to."""
        cls, word_text = self.reference.char_facts(cp)
        return cls, word_text.encode("utf-8", "surrogatepass")

    def _fallback(self, text: str, offsets: bool):
        return self.reference.encode(text) if offsets else self.reference.encode_ids(text)


# One text's tokens in a native batch's columns; C builds a list when one is asked
# (``wp_rows.c``). Methods as ``lazy_encoding.ListTokens``; never scanned by the
# collector (it holds only the batch's bytearrays).
ColumnTokens = None if _core is None else _core.Row


# ---------------------------------------------------------------- whole batches in C


def unzip_items(items: list) -> tuple[list[str], bytearray | None] | None:
    """Split batch items into ``(first texts + pair texts, pair_rows)`` in C, or None.

    ``pair_rows`` (int64, one per item) is the row of each item's pair in the texts, or
    -1; it is None when no item has a pair. None: an item is neither a str nor a
    ``(str, str | None)`` tuple or list (the caller's reference path raises its error),
    or the extension is not built.
    """
    return None if _core is None else _core.unzip(items)


def word_items(rows, pair_rows) -> list[tuple[list[str], list[str] | None]] | None:
    """Pre-split words (``is_split_into_words``) as batch items, copied, in C, or None.

    ``rows``: a list or tuple of word lists (or tuples); ``pair_rows``: None or as many,
    each None for no pair. None: anything that is not that (str subclasses included: the
    reference path checks and raises), or the extension is not built.
    """
    return None if _core is None else _core.word_items(rows, pair_rows)


def words_columns(items: list) -> tuple[list[str], bytearray | None, bytearray] | None:
    """``word_items``' items as ``(texts, pair_rows, groups)`` in C, or None.

    ``texts``: every first sequence's words, then every pair's; ``groups`` (int64) the
    sequence bounds over them; ``pair_rows`` (int64, one per item) the sequence of each
    item's pair, or -1 (None when no item has one). None: items of another shape, or the
    extension is not built.
    """
    return None if _core is None else _core.words_columns(items)


def texts_with_chars(texts: list[str], chars: str, num_threads: int | None = 1
                     ) -> list[int] | None:
    """Indices of the texts holding one of ``chars`` (one scan in C, on threads), or None.

    None: the extension is not built, or ``chars`` holds more than 16 characters (the
    caller then searches as it would without this filter).
    """
    if _core is None:
        return None
    return _core.texts_with_chars(texts, chars, _thread_count(num_threads))


# ---------------------------------------------------------------- threads and arrays


def _check_texts(texts: Sequence) -> None:
    check_batch(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be str, not {type(text).__name__}")


def _thread_count(num_threads: int | None) -> int:
    if num_threads is None:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return os.cpu_count() or 1
    return check_thread_count(num_threads)


def _ids_arrays_from_lists(results: list[list[int]]) -> tuple:
    np = require("numpy", "numpy")
    lengths = np.fromiter((len(r) for r in results), dtype=np.int64, count=len(results))
    row_splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    ids = np.fromiter((i for r in results for i in r), dtype=np.int32, count=int(row_splits[-1]))
    return ids, row_splits


def _arrays_from_lists(results: list[tuple]) -> tuple:
    np = require("numpy", "numpy")
    ids, row_splits = _ids_arrays_from_lists([r[0] for r in results])
    n = int(row_splits[-1])
    offsets = np.fromiter((x for r in results for pair in r[1] for x in pair), dtype=np.int64,
                          count=2 * n)
    word_ids = np.fromiter((w for r in results for w in r[2]), dtype=np.int32, count=n)
    return ids, offsets, word_ids, row_splits


__all__ = ["backend", "explain_backend", "make_word_encoder", "unzip_items",
           "texts_with_chars", "NativeWordEncoder", "PythonWordEncoder", "IdsArrays",
           "EncodingArrays"]
