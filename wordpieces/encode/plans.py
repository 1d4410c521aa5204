"""What a post-processor adds around each sequence, as the plans the C finisher runs.

A C plan is a tuple of ``(sequence, type_id, special_ids)`` pieces: ``sequence`` -1 for
a run of special ids, 0 or 1 for the first or second sequence. ``plans_of`` gives a
processor's two (one sequence, a pair) from its ``ProcessorPlan`` (``plan(...)``), or
None: a processor without a plan (an object meeting the ``PostProcessor`` protocol
without ``plan``), or one the C code cannot hold, takes the Python reference path,
which runs ``process``.

Not handled here: making a plan (the processor's ``plan``, ``pipeline/processor_plan``),
running it (``batches``, ``fast/_native/core/wp_finish.c``).
"""

from __future__ import annotations

from ..pipeline.processor_plan import SPECIALS, PlanPiece, ProcessorPlan

# what a plan may hold in C (wp_finish_glue.h's plan_store)
MAX_PIECES, MAX_SPECIAL_IDS = 16, 64
# the plans of no post-processor: Finisher joins a pair as encoded (type ids 0 and 1)
_NO_PROCESSOR = ProcessorPlan((PlanPiece(0, 0),), (PlanPiece(0, 0), PlanPiece(1, 1)))

# plans_of's answers: (id of the processor, add_special_tokens) -> (the processor, its
# options stamp then (``PostProcessorBase.options_stamp``), the C plans). Checked against
# both on every use: a processor changed, or a new object at a recycled id, is read again.
_PLANS_SEEN: dict[tuple[int, bool], tuple] = {}
_PLANS_KEPT = 64


def processor_plan(processor, add_special_tokens: bool) -> ProcessorPlan | None:
    """``processor``'s plan: None for a processor without ``plan`` (or without one)."""
    if processor is None:
        return _NO_PROCESSOR
    plan = getattr(processor, "plan", None)
    return plan(add_special_tokens) if callable(plan) else None


def trims_offsets(processor, add_special_tokens: bool) -> bool:
    """Whether ``processor`` also moves tokens' offsets (RobertaProcessing's
    ``trim_offsets``): the C plans do not, so offsets then take the Python path."""
    plan = processor_plan(processor, add_special_tokens)
    return plan is not None and plan.trims_offsets


def plans_of(processor, add_special_tokens: bool) -> tuple[tuple, tuple] | None:
    """The C plans of ``processor`` (one sequence, a pair), or None: the Python path.

    Remembered per processor while its ``options_stamp`` is unchanged: making a plan
    costs a few microseconds, which ``encode_ids(text)`` would pay on every call.
    """
    stamp = getattr(processor, "options_stamp", None)
    if not callable(stamp):
        return c_plans(processor_plan(processor, add_special_tokens))
    key = (id(processor), add_special_tokens)
    config = stamp()
    seen = _PLANS_SEEN.get(key)
    if seen is not None and seen[0] is processor and seen[1] == config:
        return seen[2]
    plans = c_plans(processor_plan(processor, add_special_tokens))
    if len(_PLANS_SEEN) >= _PLANS_KEPT:
        _PLANS_SEEN.clear()
    _PLANS_SEEN[key] = (processor, config, plans)
    return plans


def c_plans(plan: ProcessorPlan | None) -> tuple[tuple, tuple] | None:
    """``plan`` as the C finisher's two plans, or None when C cannot hold it.

    C puts the sequences in order (the first, then the second) and holds at most
    ``MAX_PIECES`` pieces and ``MAX_SPECIAL_IDS`` special ids per plan.
    """
    if plan is None:
        return None
    out = []
    for pieces, order in ((plan.single, [0]), (plan.pair, [0, 1])):
        if [p.sequence for p in pieces if p.sequence != SPECIALS] != order:
            return None
        if len(pieces) > MAX_PIECES or sum(len(p.specials) for p in pieces) > MAX_SPECIAL_IDS:
            return None
        out.append(tuple((p.sequence, p.type_id, p.ids) for p in pieces))
    return out[0], out[1]
