"""What a post-processor adds around each sequence, as a plan the C finisher runs.

A plan is a tuple of ``(sequence, type_id, special_ids)`` pieces: ``sequence`` -1 for a
run of special ids, 0 or 1 for the first or second sequence. ``plans_of`` gives a
processor's two plans (one sequence, a pair), or None when the processor is not fixed
tokens around each sequence (the Python reference path then runs ``process``).

Not handled here: running a plan (``batches``, ``fast/_native/core/wp_finish.c``).
"""

from __future__ import annotations

from ..encoding.encoding import Encoding

# what a plan may hold in C (wp_finish_glue.h's plan_store)
MAX_PIECES, MAX_SPECIAL_IDS = 16, 64
_A, _B = -1, -2  # probe ids of the first and second sequence (no vocabulary id is < 0)


# probe_plans' answers: (id of the processor, add_special_tokens) -> (the processor, its
# options stamp then (``PostProcessorBase.options_stamp``, else its configuration), the
# plans). Checked against both on every use: a processor changed, or a new object at a
# recycled id, is probed again.
_PLANS_SEEN: dict[tuple[int, bool], tuple] = {}
_PLANS_KEPT = 64


def plans_of(processor, add_special_tokens: bool) -> tuple[tuple, tuple] | None:
    """``probe_plans``, remembered per processor while its configuration is unchanged.

    Probing runs the processor a dozen times (~50 µs): more than encoding one short
    text costs, so ``encode_ids(text)`` and small batches would pay it on every call.
    """
    stamp = getattr(processor, "options_stamp", None)
    config = stamp() if callable(stamp) else _config_of(processor)
    if config is None:  # no comparable configuration: probe every time
        return probe_plans(processor, add_special_tokens)
    key = (id(processor), add_special_tokens)
    seen = _PLANS_SEEN.get(key)
    if seen is not None and seen[0] is processor and seen[1] == config:
        return seen[2]
    plans = probe_plans(processor, add_special_tokens)
    if len(_PLANS_SEEN) >= _PLANS_KEPT:
        _PLANS_SEEN.clear()
    _PLANS_SEEN[key] = (processor, config, plans)
    return plans


def _config_of(processor) -> dict | None:
    if processor is None:
        return {}
    to_config = getattr(processor, "to_config", None)
    try:
        return to_config() if callable(to_config) else None
    except Exception:  # a user's processor whose configuration cannot be read
        return None


def probe_plans(processor, add_special_tokens: bool) -> tuple[tuple, tuple] | None:
    """The pieces ``processor`` puts around one sequence and around a pair, or None.

    A plan is a tuple of ``(sequence, type_id, special_ids)``: ``sequence`` -1 for a run
    of special ids, 0 or 1 for the first or second sequence. Learnt from what
    ``process`` gives for probe sequences of several lengths, and kept only when it
    reproduces every one of them (and ``apply_ids``): None means "not fixed tokens
    around each sequence", and the reference path runs.
    """
    if processor is None:  # Finisher joins a pair as it was encoded (type ids 0 and 1)
        return ((0, 0, ()),), ((0, 0, ()), (1, 1, ()))
    plans = []
    for is_pair in (False, True):
        plan = _plan_of(_probe(processor, add_special_tokens, 1, 1 if is_pair else None))
        sizes = [(0, 0), (2, 3), (3, 1)]
        if plan is None or not all(_fits(plan, processor, add_special_tokens, n1,
                                         n2 if is_pair else None) for n1, n2 in sizes):
            return None
        if [p[0] for p in plan if p[0] >= 0] != ([0, 1] if is_pair else [0]):
            return None
        if len(plan) > MAX_PIECES or sum(len(p[2]) for p in plan) > MAX_SPECIAL_IDS:
            return None
        plans.append(plan)
    return plans[0], plans[1]


def _probe(processor, add_special_tokens: bool, n1: int, n2: int | None) -> Encoding:
    def sequence(id_: int, n: int, type_id: int) -> Encoding:
        return Encoding.build([id_] * n, ["x"] * n, [(1, 2)] * n, list(range(n)), type_id)
    pair = None if n2 is None else sequence(_B, n2, 1)
    return processor.process(sequence(_A, n1, 0), pair, add_special_tokens)


def _plan_of(out: Encoding) -> tuple | None:
    """Group ``out`` into runs: a probe sequence, or special ids of one type id."""
    plan: list = []
    for id_, type_id, special in zip(out.ids, out.type_ids, out.special_tokens_mask,
                                     strict=True):
        seq = {_A: 0, _B: 1}.get(id_, -1)
        if seq < 0 and (id_ < 0 or special != 1):
            return None
        last = plan[-1] if plan else None
        if last is not None and last[0] == seq and last[1] == type_id:
            if seq < 0:
                plan[-1] = (seq, type_id, last[2] + (id_,))
            continue
        plan.append((seq, type_id, (id_,) if seq < 0 else ()))
    return tuple(plan)


def _fits(plan: tuple, processor, add_special_tokens: bool, n1: int, n2: int | None) -> bool:
    """Whether ``plan`` gives exactly what the processor does for these lengths."""
    out = _probe(processor, add_special_tokens, n1, n2)
    ids, types, special = [], [], []
    for seq, type_id, extra in plan:
        n = len(extra) if seq < 0 else (n1 if seq == 0 else n2 or 0)
        ids += list(extra) if seq < 0 else [_A if seq == 0 else _B] * n
        types += [type_id] * n
        special += [1 if seq < 0 else 0] * n
    offsets = [(0, 0) if s else (1, 2) for s in special]
    b = None if n2 is None else [_B] * n2
    return (out.ids == ids and out.type_ids == types and out.special_tokens_mask == special
            and out.attention_mask == [1] * len(ids) and out.offsets == offsets
            and processor.apply_ids([_A] * n1, b, add_special_tokens) == ids)
