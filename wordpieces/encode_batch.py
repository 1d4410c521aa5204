"""Encode a batch of texts or pairs into ``Encoding`` objects, lazy where the lists can wait.

``encode_many`` is what ``Tokenizer.encode_batch`` (and ``encode``, ``tok(...)`` without
arrays) runs. Building an ``Encoding``'s seven lists costs several times the
tokenization itself, so the common cases return ``LazyEncoding``s that build each list
when first read (``encoding.lazy_encoding``):

- single texts without truncation: the word encoder's raw tokens in the
  post-processor's ``single_layout``;
- pairs that truncation leaves whole (or without truncation): both sequences' raw
  tokens in its ``pair_layout`` (``LazyPairEncoding``).

Padding a fresh lazy encoding only changes its layout. Everything else (inputs that
truncation cuts, texts holding a literal added token, post-processors without a layout)
takes the reference path: ``Finisher`` item by item, which builds every list and raises
the errors.

Not handled here: the encoding of each sequence (``sequences``), ids-only and array
batches (``batches``), the transformers-style dict (``encoding.batch_encoding``).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

from .batches import unzip_fast
from .encoding.encoding import Encoding
from .encoding.finishing import Finisher, pad, pad_batch
from .encoding.lazy_encoding import Layout, LazyEncoding, PairLayout, lazy_pair
from .encoding.padding import PaddingParams, TruncationParams
from .errors import check_thread_count
from .sequences import SequenceEncoder


def encode_many(seq: SequenceEncoder, post_processor, items: list, *, add_special_tokens: bool,
                truncation: TruncationParams | None, padding: PaddingParams | None,
                num_threads: int | None) -> list[Encoding]:
    """One finished ``Encoding`` per item (a text or a ``(text, pair)``), padded as set.

    ``truncation`` / ``padding`` None means none; ``post_processor`` None joins a pair
    without special tokens.
    """
    with _collector_paused():
        finisher = Finisher(post_processor, add_special_tokens, truncation, padding)
        out = _finished(seq, finisher, items, check_thread_count(num_threads))
        pad_batch(out, padding)
    return out


def _finished(seq: SequenceEncoder, finisher: Finisher, items: list,
              threads: int | None) -> list[Encoding]:
    """Each item encoded and finished, by the fastest path that gives the same result."""
    firsts, maybe_pairs = unzip_fast(items)
    single = _single_layout(finisher, seq.id_tokens)
    if maybe_pairs is None and single is not None and finisher.truncation is None:
        return _singles(seq, firsts, single, finisher, threads)
    pairs = [None] * len(firsts) if maybe_pairs is None else maybe_pairs
    seconds = [p for p in pairs if p is not None]
    flat = seq.encodings(firsts + seconds, [0] * len(firsts) + [1] * len(seconds), threads)
    rest = iter(flat[len(firsts):])
    pair_layout = _pair_layout(finisher, seq.id_tokens) if seconds else None
    if pair_layout is None:
        return [finisher.encoding(enc, None if p is None else next(rest), single)
                for enc, p in zip(flat[:len(firsts)], pairs, strict=True)]
    return _pairs(flat[:len(firsts)], pairs, rest, single, pair_layout, finisher)


def _single_layout(finisher: Finisher, id_tokens: list) -> Layout | None:
    processor = finisher.post_processor
    return None if processor is None else processor.single_layout(id_tokens,
                                                                  finisher.add_special_tokens)


def _pair_layout(finisher: Finisher, id_tokens: list) -> PairLayout | None:
    """The post-processor's layout of a pair, or None: ``process`` must run."""
    processor = finisher.post_processor
    if processor is None:  # Finisher joins the two sequences as encoded (type ids 0, 1)
        return PairLayout(id_tokens)
    layout_of = getattr(processor, "pair_layout", None)  # optional in the protocol
    return None if layout_of is None else layout_of(id_tokens, finisher.add_special_tokens)


def _singles(seq: SequenceEncoder, texts: list[str], layout: Layout, finisher: Finisher,
             threads: int | None) -> list[Encoding]:
    """The common case: single texts, no truncation; lazy encodings in their layout."""
    out = seq.encodings(texts, [0] * len(texts), threads, layout)
    plain = Finisher(finisher.post_processor, finisher.add_special_tokens, None, None)
    for i, enc in enumerate(out):
        if not isinstance(enc, LazyEncoding):  # a text with added tokens
            out[i] = plain.encoding(enc, None)
    _pad_each(out, finisher.padding)
    return out


def _pairs(firsts: list[Encoding], pairs: list, seconds: Iterator[Encoding],
           single: Layout | None, layout: PairLayout, finisher: Finisher) -> list[Encoding]:
    """Pairs: lazy pairs in ``layout`` where both sides are lazy and nothing is cut.

    A side holding a literal added token (an eager ``Encoding``), a pair that truncation
    cuts, and the items without a pair are finished by ``finisher``.
    """
    padding, truncation = finisher.padding, finisher.truncation
    out: list[Encoding] = []
    for enc, text in zip(firsts, pairs, strict=True):
        second = None if text is None else next(seconds)
        if (type(enc) is LazyEncoding and type(second) is LazyEncoding
                and (truncation is None or _keeps_all(finisher, truncation, enc, second))):
            lazy = lazy_pair(enc, second, layout)
            if padding is not None:
                pad(lazy, padding.target_length([len(lazy)]), padding)
            out.append(lazy)
        else:  # Finisher pads as it finishes
            out.append(finisher.encoding(enc, second, single))
    return out


def _keeps_all(finisher: Finisher, truncation: TruncationParams, first: Encoding,
               second: Encoding) -> bool:
    """Whether truncation keeps every token of the pair (its errors raised as Finisher's)."""
    n1, n2 = len(first), len(second)
    keep1, keep2 = finisher.keep(n1, n2, truncation)
    return keep1 >= n1 and keep2 is not None and keep2 >= n2


def _pad_each(encodings: list[Encoding], padding: PaddingParams | None) -> None:
    """Pad each encoding to its own target (fixed length, multiple of), as Finisher does."""
    if padding is not None:
        for enc in encodings:
            pad(enc, padding.target_length([len(enc)]), padding)


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector while a batch is built.

    A batch allocates a few lists per encoding and a tuple per offset, none of them in
    reference cycles; left running, the collector re-scans them again and again and
    takes almost half of the time of encode_batch.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
