"""Turn per-sequence encodings into model inputs: truncate, add special tokens, pad.

``Finisher`` applies, in HF's order, what ``Tokenizer`` does after the word encoder: cut
each input (or pair) to the truncation length, let the post-processor add its special
tokens, and pad. The full path (``Encoding``) and the ids-only path share the length
rule (``padding.truncation_lengths``), so both cut at the same place.

Not handled here: encoding the sequences (``sequences``), the truncation windows
themselves (``Encoding.truncate``), the batch dict (``batch_encoding``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..encoding.encoding import Encoding
from ..encoding.lazy_encoding import Layout, LazyEncoding
from ..encoding.padding import (
    PaddingParams,
    TruncationParams,
    check_padded_batch,
    cut_ids,
    pad_ids,
    truncation_lengths,
)
from ..errors import TokenizeError
from .plans import processor_plan

if TYPE_CHECKING:  # the stage's protocol, for annotations only
    from ..pipeline.processor_plan import ProcessorPlan
    from ..pipeline.processors import PostProcessor


class Finisher:
    """Truncate, add special tokens and pad one batch's inputs with fixed settings.

    ``truncation`` / ``padding`` None means none; ``post_processor`` None joins a pair
    without special tokens.
    """

    def __init__(self, post_processor: PostProcessor | None, add_special_tokens: bool,
                 truncation: TruncationParams | None, padding: PaddingParams | None,
                 padded_later: PaddingParams | None = None) -> None:
        self.post_processor = post_processor
        self.add_special_tokens = add_special_tokens
        self.truncation = truncation
        self.padding = padding
        # the padding the caller applies to what this finisher makes (its windows included)
        self.padded_later = padded_later

    def special_count(self, is_pair: bool) -> int:
        """How many special tokens this finisher adds to one input (or a pair)."""
        if self.post_processor is None or not self.add_special_tokens:
            return 0
        return self.post_processor.added_tokens(is_pair)

    def keep(self, n1: int, n2: int | None, params: TruncationParams) -> tuple[int, int | None]:
        """How many tokens of each sequence truncation keeps (strides checked)."""
        keep1, keep2 = truncation_lengths(n1, n2, params, self.special_count(n2 is not None))
        check_stride(n1, keep1, params.stride)
        if n2 is not None and keep2 is not None:
            check_stride(n2, keep2, params.stride)
        padding = self.padding or self.padded_later
        if padding is not None:  # every window is padded: they count as rows of a batch
            rows = window_count(n1, keep1, params.stride)
            if n2 is not None:  # a pair's windows: each of the first's with each of the second's
                rows *= window_count(n2, keep2, params.stride)
            check_padded_batch(rows, padding.padded_bound(params.max_length))
        return keep1, keep2

    def encoding(self, enc: Encoding, pair: Encoding | None,
                 layout: Layout | None = None) -> Encoding:
        """Truncate, add special tokens and pad one input, in HF's order.

        ``layout`` is the post-processor's shortcut for one sequence: a lazy encoding
        that truncation left whole only changes its layout.
        """
        params = self.truncation
        if params is not None:
            keep1, keep2 = self.keep(len(enc), None if pair is None else len(pair), params)
            enc.truncate(keep1, params.stride, params.direction)
            if pair is not None and keep2 is not None:
                pair.truncate(keep2, params.stride, params.direction)
        out = self._with_special_tokens(enc, pair, layout)
        if self.padding is not None:
            pad(out, self.padding.target_length([len(out)]), self.padding)
        return out

    def _with_special_tokens(self, enc: Encoding, pair: Encoding | None,
                             layout: Layout | None) -> Encoding:
        if layout is not None and pair is None and isinstance(enc, LazyEncoding) and enc.fresh:
            return enc.relayout(layout)
        if self.post_processor is not None:
            return self.post_processor.process(enc, pair, self.add_special_tokens)
        if pair is None:
            return enc
        enc.set_sequence_id(0)
        pair.set_sequence_id(1)
        return Encoding.merge([enc, pair], growing_offsets=False)

    def ids(self, a: list[int], b: list[int] | None) -> list[int]:
        """``encoding`` for ids only: the first truncation window, no padding."""
        params = self.truncation
        if params is not None:
            keep1, keep2 = self.keep(len(a), None if b is None else len(b), params)
            a = cut_ids(a, keep1, params.direction)
            if b is not None and keep2 is not None:
                b = cut_ids(b, keep2, params.direction)
        plan = self.plan
        if plan is not None:
            return plan.ids(a, b)
        return self._processed_ids(a, b)

    @functools.cached_property
    def plan(self) -> ProcessorPlan | None:
        """The post-processor's plan with these settings (None: ``process`` runs)."""
        return processor_plan(self.post_processor, self.add_special_tokens)

    def _processed_ids(self, a: list[int], b: list[int] | None) -> list[int]:
        """``process``'s ids, for a post-processor without a plan (the reference path)."""
        def plain(ids: list[int], type_id: int) -> Encoding:
            n = len(ids)
            return Encoding.build(list(ids), [""] * n, [(0, 0)] * n, [None] * n, type_id)
        pair = None if b is None else plain(b, 1)
        processor = self.post_processor
        assert processor is not None  # without one, the plan joins the sequences
        return processor.process(plain(a, 0), pair, self.add_special_tokens).ids


def pad_batch(encodings: list[Encoding], padding: PaddingParams | None) -> None:
    """Pad a batch's encodings to the length its padding settings ask for, in place.

    A batch padded over ``padding.MAX_PADDED_BATCH`` tokens is refused before any row
    grows (``PaddingParams.check_rows`` refuses what is sure to be, before encoding).
    """
    if padding is not None and len(encodings) > 1:
        target = padding.batch_length([len(e) for e in encodings])
        for enc in encodings:
            pad(enc, target, padding)


def pad_batch_ids(batch: list[list[int]], padding: PaddingParams | None) -> list[list[int]]:
    """``pad_batch`` for lists of ids (a new list)."""
    if padding is None:
        return batch
    target = padding.batch_length([len(ids) for ids in batch])
    return [pad_ids(ids, target, padding) for ids in batch]


def pad(enc: Encoding, length: int, params: PaddingParams) -> None:
    """Pad one encoding to ``length`` with these settings, in place."""
    enc.pad(length, direction=params.direction, pad_id=params.pad_id,
            pad_type_id=params.pad_type_id, pad_token=params.pad_token)


def window_count(n: int, keep: int | None, stride: int) -> int:
    """How many rows truncating ``n`` tokens to ``keep`` makes: the kept part and its windows.

    Each window after the first starts ``keep - stride`` tokens later (either direction).
    """
    if keep is None or keep >= n:
        return 1
    if keep == 0:  # everything moves to one overflowing window
        return 2
    return 1 + -(-(n - keep) // (keep - stride))


def check_stride(n: int, keep: int, stride: int) -> None:
    """Refuse a stride that would not move a truncation window forward."""
    if 0 < keep < n and stride >= keep:
        raise TokenizeError(f"truncation stride {stride} must be smaller than the {keep} "
                            f"tokens kept of this sequence (max_length minus special tokens, "
                            f"shared between the two sequences of a pair)")
