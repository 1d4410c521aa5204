"""What a post-processor puts around each sequence, as data: its ``ProcessorPlan``.

A plan lists, for one sequence and for a pair, the pieces of the model input in order:
a sequence (its tokens, with one type id) or a run of special tokens (ids, tokens, one
type id; special-token mask 1, offsets ``(0, 0)``). Every path reads it: the pure-Python
ids path (``encode.finishing.Finisher.ids``), the lazy Encodings' layouts
(``encode.encodings``) and the C finisher (``encode.plans``).

A processor makes its plan from its own settings by running its ``process_encodings``
on *parts* (one tuple of pieces per encoding, see ``plan_of``) instead of encodings:
``ProcessorSequence`` chains its members that way, so a sequence of processors has a
plan when each member has one. A processor whose output is not fixed pieces around each
sequence has none, and runs ``process``.

Not handled here: running a plan over tokens (``encode/``), the processors themselves
(``processors``, ``extra_processors``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

SPECIALS = -1  # a piece's ``sequence`` for a run of special tokens


@dataclass(frozen=True)
class PlanPiece:
    """One piece of a model input: a sequence (0: first, 1: second) or special tokens.

    ``specials`` holds the ``(id, token)`` of each special token of a ``SPECIALS`` run.
    """

    sequence: int
    type_id: int = 0
    specials: tuple[tuple[int, str], ...] = ()

    @property
    def ids(self) -> tuple[int, ...]:
        """The special ids of this run (none for a sequence)."""
        return tuple(id_ for id_, _ in self.specials)


Part = tuple[PlanPiece, ...]  # what stands for one encoding while a plan is made


@dataclass(frozen=True)
class ProcessorPlan:
    """The pieces around one sequence (``single``) and around a pair (``pair``).

    ``trims_offsets``: the processor also moves tokens' offsets (RobertaProcessing's
    ``trim_offsets``), which the pieces do not say: paths that build offsets from the
    plan alone (the lazy layouts) leave it to ``process``.
    """

    single: tuple[PlanPiece, ...]
    pair: tuple[PlanPiece, ...]
    trims_offsets: bool = False

    def __post_init__(self) -> None:
        for name, pieces, want in (("single", self.single, [0]), ("pair", self.pair, [0, 1])):
            got = sorted(p.sequence for p in pieces if p.sequence != SPECIALS)
            if got != want:
                raise ValueError(f"a ProcessorPlan's {name} pieces must hold sequence(s) "
                                 f"{want} once each, got {got}")

    def pieces(self, is_pair: bool) -> tuple[PlanPiece, ...]:
        """``pair`` or ``single``."""
        return self.pair if is_pair else self.single

    def ids(self, a: list[int], b: list[int] | None) -> list[int]:
        """The ids of the model input of ``a`` (and ``b``): what ``process`` gives."""
        out: list[int] = []
        for piece in self.pair if b is not None else self.single:
            if piece.sequence == SPECIALS:
                out.extend(piece.ids)
            else:
                out.extend(a if piece.sequence == 0 else b)  # type: ignore[arg-type]
        return out


def special_part(specials: Iterable[tuple[int, str]], type_id: int) -> Part:
    """The part of one added special token (or several): a run of specials."""
    return (PlanPiece(SPECIALS, type_id, tuple(specials)),)


def with_type_id(part: Part, type_id: int) -> Part:
    """``part`` with every token's type id set to ``type_id`` (``Encoding.set_type_ids``)."""
    return tuple(replace(piece, type_id=type_id) for piece in part)


def is_sequence(part: Part, index: int) -> bool:
    """Whether ``part`` is sequence ``index`` alone, as encoded (nothing added yet).

    Processors that wrap a part or record its sequence range need this: wrapping
    what another processor made gives what no plan states (a range over added tokens,
    special tokens whose mask becomes 0), so such a chain has no plan.
    """
    return len(part) == 1 and part[0].sequence == index


PlanStep = Callable[[list[Part], bool], "list[Part] | None"]


def plan_of(step: PlanStep, add_special_tokens: bool,
            trims_offsets: bool = False) -> ProcessorPlan | None:
    """The plan of a processor whose ``process_encodings`` on parts is ``step``.

    ``step(parts, add_special_tokens)`` gets one part per sequence (sequence 0 with type
    id 0, sequence 1 with type id 1, as the encoder makes them) and returns the parts
    of the model input, or None when its output is not fixed pieces around them.
    """
    plans = []
    for initial in ([(PlanPiece(0, 0),)], [(PlanPiece(0, 0),), (PlanPiece(1, 1),)]):
        parts = step(list(initial), add_special_tokens)
        pieces = None if parts is None else flatten(parts, len(initial))
        if pieces is None:
            return None
        plans.append(pieces)
    return ProcessorPlan(plans[0], plans[1], trims_offsets)


def flatten(parts: list[Part], sequences: int) -> tuple[PlanPiece, ...] | None:
    """The parts joined into one input's pieces, runs of specials of one type id merged.

    None unless each of the ``sequences`` sequences appears exactly once.
    """
    out: list[PlanPiece] = []
    for piece in (piece for part in parts for piece in part):
        if piece.sequence == SPECIALS and not piece.specials:
            continue
        last = out[-1] if out else None
        if (last is not None and piece.sequence == SPECIALS == last.sequence
                and last.type_id == piece.type_id):
            out[-1] = replace(last, specials=last.specials + piece.specials)
        else:
            out.append(piece)
    seen = sorted(piece.sequence for piece in out if piece.sequence != SPECIALS)
    return tuple(out) if seen == list(range(sequences)) else None
