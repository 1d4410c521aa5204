"""Encode a batch of texts or pairs into ``Encoding`` objects, lazy where the lists can wait.

``encode_many`` is what ``Tokenizer.encode_batch`` (and ``encode``, ``tok(...)`` without
arrays) runs. Building an ``Encoding``'s seven lists costs several times the
tokenization itself, so the common cases return ``LazyEncoding``s that build each list
when first read (``encoding.lazy_encoding``):

- single texts: the word encoder's raw tokens in the ``Layout`` of the post-processor's
  plan (``layouts``);
- pairs: both sequences' raw tokens in the plan's ``PairLayout`` (``LazyPairEncoding``);
- inputs and pairs that truncation cuts: the kept part of the raw tokens, their
  overflowing windows made by ``Finisher`` when first read (``LazyCutEncoding``…).

Padding a fresh lazy encoding only changes its layout. Texts holding a literal added
token and post-processors without a plan take the reference path: ``Finisher`` item
by item, which builds every list. Both paths check truncation with the same rule
(``Finisher.keep``), so both raise the same errors.

Not handled here: the encoding of each sequence (``sequences``), ids-only and array
batches (``batches``), the transformers-style dict (``encoding.batch_encoding``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from itertools import repeat

from ..encoding.encoding import Encoding
from ..encoding.lazy_encoding import (
    Layout,
    LazyEncoding,
    PairLayout,
    PendingWindows,
    lazy_cut,
    lazy_pair,
    use_fields,
)
from ..encoding.padding import PaddingParams, TruncationParams
from ..errors import check_thread_count
from ..fast.backend import ColumnTokens, unzip_items
from ..pipeline.processor_plan import SPECIALS, PlanPiece, ProcessorPlan
from .batches import unzip
from .finishing import Finisher, pad, pad_batch
from .sequences import SequenceEncoder

if ColumnTokens is not None:  # the lazy lists' first reads in C (lazy_encoding.use_fields)
    use_fields(ColumnTokens.lazy_field)


def encode_many(seq: SequenceEncoder, post_processor, items: list, *, add_special_tokens: bool,
                truncation: TruncationParams | None, padding: PaddingParams | None,
                num_threads: int | None) -> list[Encoding]:
    """One finished ``Encoding`` per item (a text or a ``(text, pair)``), padded as set.

    ``truncation`` / ``padding`` None means none; ``post_processor`` None joins a pair
    without special tokens.
    """
    if padding is not None:  # before any row is padded (each may be, as it is finished)
        padding.check_rows(len(items))
    # The cyclic collector paused while the batch is built (inline, not a context manager:
    # a one-text call pays for every Python call). A batch allocates a few objects per
    # encoding, none in a cycle; left running, the collector re-scans them again and
    # again and takes almost half of the time of encode_batch.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        finisher = Finisher(post_processor, add_special_tokens, truncation, padding)
        out = _finished(seq, finisher, items, check_thread_count(num_threads))
        pad_batch(out, padding)
        # read while paused: the objects reading the counts makes would start the due
        # collection first
        promote = was_enabled and len(out) > _FEW_FOR_PROMOTION and _promotes(len(out))
    finally:
        if was_enabled:
            gc.enable()
    if promote:
        gc.collect(1)
    return out


# Below this many encodings a batch is never promoted (nor the thresholds read).
_FEW_FOR_PROMOTION = 1000


def _promotes(n: int) -> bool:
    """Whether to run the collection now due as one of generation 1, after ``n`` encodings.

    Why: the paused collector counted every encoding, so its next allocation starts a
    young collection; that one would scan the batch, and the next generation-1
    collection scan it again, as the reads' lists come in. Collecting generation 1 now
    scans it once and moves it to the old generation. Only for batches bigger than
    generation 1 can grow (young x threshold 1 objects), so that the scan saved
    outweighs scanning generation 1's own objects early.
    """
    young, middle, _ = gc.get_threshold()
    return 0 < young * middle < n and gc.get_count()[0] > young


def _finished(seq: SequenceEncoder, finisher: Finisher, items: list,
              threads: int | None) -> list[Encoding]:
    """Each item encoded and finished, by the fastest path that gives the same result."""
    texts, pair_of = _split(items)
    n = len(items)
    single, paired = layouts(finisher, seq.id_tokens)
    if pair_of is None and single is not None and finisher.truncation is None:
        return _singles(seq, texts, single, finisher, threads)
    # each side in one call of its own: one type id per call keeps sequences' fast path
    firsts = seq.encodings(texts[:n], [0] * n, threads)
    seconds = [] if pair_of is None else seq.encodings(texts[n:], [1] * (len(texts) - n),
                                                        threads)
    pair_layout = paired if seconds else None
    if single is None and pair_layout is None:
        return [finisher.encoding(enc, None if k < 0 else seconds[k], None)
                for enc, k in zip(firsts, pair_of or repeat(-1, n), strict=True)]
    return _items(firsts, seconds, pair_of or repeat(-1, n), (single, pair_layout), finisher)


def _split(items: list) -> tuple[list[str], list[int] | None]:
    """The items' texts, first sequences then pairs, and where each item's pair is.

    ``pair_of[i]`` is the index of item ``i``'s pair among the pairs, or -1; None when
    no item has a pair. Split in C when the extension is built; a bad item is left to
    ``batches.unzip``, which raises its error.
    """
    split = unzip_items(items)
    if split is not None:
        texts, pair_rows = split
        if pair_rows is None:
            return texts, None
        n = len(items)
        return texts, [row - n if row >= 0 else -1 for row in memoryview(pair_rows).cast("q")]
    firsts, pairs = unzip(items)
    seconds = [p for p in pairs if p is not None]
    if not seconds:
        return firsts, None
    index = iter(range(len(seconds)))
    return firsts + seconds, [-1 if p is None else next(index) for p in pairs]


def layouts(finisher: Finisher, id_tokens: list) -> tuple[Layout | None, PairLayout | None]:
    """The layouts of one sequence and of a pair in the post-processor's plan.

    None where ``process`` must run: no plan, or one that also moves offsets. Without a
    post-processor, single texts stay as encoded and pairs are joined (type ids 0, 1).
    """
    if finisher.post_processor is None:
        return None, PairLayout(id_tokens)
    plan = finisher.plan
    if plan is None or plan.trims_offsets:
        return None, None
    key = (id(plan), id(id_tokens))
    known = _KNOWN_LAYOUTS.get(key)
    if known is not None and known[0] is plan and known[1] is id_tokens:
        return known[2]
    made = plan_layouts(plan, id_tokens)
    if len(_KNOWN_LAYOUTS) >= _KNOWN_MAX:
        _KNOWN_LAYOUTS.clear()
    _KNOWN_LAYOUTS[key] = (plan, id_tokens, made)
    return made


# The layouts of the last plans seen, by identity (plan and id_tokens kept alive with
# them, so an id is never reused while cached). Why: making them, and their frames on
# first read, cost more than encoding one short text; plans are immutable, and a
# processor whose options change gives a new plan.
_KNOWN_LAYOUTS: dict[tuple[int, int], tuple] = {}
_KNOWN_MAX = 16


def plan_layouts(plan: ProcessorPlan, id_tokens: list) -> tuple[Layout, PairLayout]:
    """``plan``'s pieces as lazy Encodings' layouts: one sequence, a pair (offsets kept)."""
    single, pair = (_split_pieces(pieces) for pieces in (plan.single, plan.pair))
    (first,), (before, after) = single
    (one, two), (prefix, middle, suffix) = pair
    return (Layout(id_tokens, first.type_id, before, after, first.sequence),
            PairLayout(id_tokens, (one.type_id, two.type_id), prefix, middle, suffix,
                       (one.sequence, two.sequence)))


def _split_pieces(pieces: tuple[PlanPiece, ...]) -> tuple[list[PlanPiece], list[tuple]]:
    """A plan's sequence pieces, and the extras (``lazy_encoding.Extra``) around them."""
    sequences: list[PlanPiece] = []
    runs: list[tuple] = [()]
    for piece in pieces:
        if piece.sequence == SPECIALS:
            runs[-1] += tuple((id_, token, piece.type_id, 1) for id_, token in piece.specials)
        else:
            sequences.append(piece)
            runs.append(())
    return sequences, runs


def _singles(seq: SequenceEncoder, texts: list[str], layout: Layout, finisher: Finisher,
             threads: int | None) -> list[Encoding]:
    """The common case: single texts, no truncation; lazy encodings in their layout."""
    out, eager = seq.encodings_in(texts, layout, 0, threads)
    if eager:  # the texts with added tokens
        plain = Finisher(finisher.post_processor, finisher.add_special_tokens, None, None)
        for i in eager:
            out[i] = plain.encoding(out[i], None)
    _pad_each(out, finisher.padding)
    return out


def _items(firsts: list[Encoding], seconds: list[Encoding], pair_of: Iterable[int],
           layouts: tuple[Layout | None, PairLayout | None],
           finisher: Finisher) -> list[Encoding]:
    """Each item lazy where its sides are lazy and its layout known, else by ``finisher``.

    ``pair_of``: each item's pair in ``seconds``, or -1. A side holding a literal added
    token is an eager ``Encoding``: that item, and any item without a layout, is
    finished by ``finisher`` (which pads as it finishes).
    """
    single, paired = layouts
    padding = finisher.padding
    windows = Finisher(finisher.post_processor, finisher.add_special_tokens,
                       finisher.truncation, None, padding)  # the reference for cut inputs' windows
    out: list[Encoding] = []
    for enc, k in zip(firsts, pair_of, strict=True):
        second = None if k < 0 else seconds[k]
        lazy: LazyEncoding
        if type(enc) is not LazyEncoding:
            out.append(finisher.encoding(enc, second, single))
            continue
        if second is None and single is not None:
            lazy = _lazy_single(enc, single, windows)
        elif type(second) is LazyEncoding and paired is not None:
            lazy = _lazy_pair(enc, second, paired, windows)
        else:
            out.append(finisher.encoding(enc, second, single))
            continue
        if padding is not None:
            pad(lazy, padding.target_length([len(lazy)]), padding)
        out.append(lazy)
    return out


def _lazy_single(enc: LazyEncoding, layout: Layout, windows: Finisher) -> LazyEncoding:
    """One fresh lazy input in ``layout``, truncated as ``windows`` says, unpadded."""
    truncation = windows.truncation
    if truncation is None:
        return enc.relayout(layout)
    n = len(enc)
    keep = windows.keep(n, None, truncation)[0]
    if keep >= n:
        return enc.relayout(layout)
    return _cut(enc, None, layout, (keep, None), windows)


def _lazy_pair(enc: LazyEncoding, second: LazyEncoding, layout: PairLayout,
               windows: Finisher) -> LazyEncoding:
    """``_lazy_single`` for a pair (truncation's errors raised as ``Finisher`` raises them)."""
    truncation = windows.truncation
    if truncation is None:
        return lazy_pair(enc, second, layout)
    n1, n2 = len(enc), len(second)
    keep1, keep2 = windows.keep(n1, n2, truncation)
    if keep1 >= n1 and (keep2 is None or keep2 >= n2):
        return lazy_pair(enc, second, layout)
    return _cut(enc, second, layout, (keep1, keep2), windows)


def _cut(enc: LazyEncoding, second: LazyEncoding | None, layout: Layout | PairLayout,
         keeps: tuple[int, int | None], windows: Finisher) -> LazyEncoding:
    """The kept part of an input (or pair) truncation cuts; its windows made when read."""
    left = windows.truncation is not None and windows.truncation.direction == "left"
    kept = (_kept(len(enc), keeps[0], left),
            None if second is None else _kept(len(second), keeps[1], left))
    pending = PendingWindows(lambda: windows.encoding(
        enc.copy(), None if second is None else second.copy(), None))
    return lazy_cut(enc, second, layout, kept, pending)


def _kept(n: int, keep: int | None, left: bool) -> tuple[int, int]:
    """The token range of a sequence of ``n`` that truncation to ``keep`` keeps."""
    keep = n if keep is None else min(keep, n)
    return (n - keep, n) if left else (0, keep)


def _pad_each(encodings: list[Encoding], padding: PaddingParams | None) -> None:
    """Pad each encoding to its own target (fixed length, multiple of), as Finisher does."""
    if padding is not None:
        for enc in encodings:
            pad(enc, padding.target_length([len(enc)]), padding)
