"""HF's ``RobertaProcessing`` and the ``Sequence`` of post-processors.

``RobertaProcessing`` wraps ``<s> A </s>`` and ``</s> B </s>`` (every type id 0, with or
without the special tokens, as HF 0.23) and, with ``trim_offsets``, first moves each
token's offsets off the spaces it holds (``Ġ`` or whitespace at either end), as HF's
``ByteLevel::process_offsets``: the first token keeps one leading space when
``add_prefix_space``. ``ProcessorSequence`` passes the list of encodings through each
processor's ``process_encodings`` in turn, as HF's ``processors.Sequence``; its plan
chains its members' ``plan_encodings`` the same way.

Not handled here: ``TemplateProcessing`` and ``BertProcessing`` (``processors``), HF's
``ByteLevel`` post-processor (refused when read: byte-level models are not supported).
"""

from __future__ import annotations

from collections.abc import Hashable

from ..encoding.encoding import Encoding
from .char_tables import is_white_space
from .processor_plan import Part, is_sequence, special_part, with_type_id
from .processors import PostProcessorBase, unmarked

_BYTE_LEVEL_SPACE = "\u0120"  # "Ġ": how byte-level vocabularies write a space


def special_encoding(token: tuple[str, int], type_id: int) -> Encoding:
    """The encoding of one added special token ``(token, id)``: mask 1, offsets (0, 0)."""
    return Encoding(ids=[token[1]], tokens=[token[0]], offsets=[(0, 0)], word_ids=[None],
                    type_ids=[type_id], special_tokens_mask=[1])


def _space_run(token: str) -> int:
    n = 0
    while n < len(token) and (token[n] == _BYTE_LEVEL_SPACE or is_white_space(token[n])):
        n += 1
    return n


def trim_offsets(encoding: Encoding, add_prefix_space: bool) -> None:
    """Move offsets off leading/trailing spaces of each token, in place (HF's rules)."""
    for i, (token, (start, end)) in enumerate(zip(encoding.tokens, encoding.offsets,
                                                  strict=True)):
        lead, trail = _space_run(token), _space_run(token[::-1])
        if not lead and not trail:
            continue
        if lead and (i == 0 or start == 0) and add_prefix_space and lead == 1:
            lead = 0  # the space this processor's pre-tokenizer added: keep it
        if lead:
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        encoding.offsets[i] = (start, end)
    for window in encoding.overflowing:
        trim_offsets(window, add_prefix_space)


class RobertaProcessing(PostProcessorBase):
    """Add ``<s> A </s>`` and ``</s> B </s>`` (HF ``RobertaProcessing``).

    ``sep`` and ``cls`` are ``(token, id)`` pairs.

    >>> RobertaProcessing(("</s>", 2), ("<s>", 0)).plan(True).ids([7], [9])
    [0, 7, 2, 2, 9, 2]
    """

    def __init__(self, sep: tuple[str, int], cls: tuple[str, int], *,
                 trim_offsets: bool = True, add_prefix_space: bool = True):
        self.sep = (str(sep[0]), int(sep[1]))
        self.cls = (str(cls[0]), int(cls[1]))
        self.trim_offsets, self.add_prefix_space = bool(trim_offsets), bool(add_prefix_space)

    def added_tokens(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process_encodings(self, encodings: list[Encoding],
                          add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            for encoding in encodings:
                trim_offsets(encoding, self.add_prefix_space)
        for encoding in encodings:  # HF: not their overflowing windows
            encoding.set_type_ids(0)
        if not add_special_tokens:
            return encodings
        return [self._wrap(enc, i) for i, enc in enumerate(encodings)]

    def _wrap(self, enc: Encoding, index: int) -> Encoding:
        first = self.cls if index == 0 else self.sep
        body = unmarked(enc)
        body.set_type_ids(0)
        out = Encoding.merge([special_encoding(first, 0), body, special_encoding(self.sep, 0)],
                             growing_offsets=False)
        out.sequence_ranges = {index: (1, len(out) - 1)}
        out.overflowing = [self._wrap(o, index) for o in enc.overflowing]
        return out

    def plan_encodings(self, parts: list[Part], add_special_tokens: bool) -> list[Part] | None:
        parts = [with_type_id(part, 0) for part in parts]
        if not add_special_tokens:
            return parts
        if len(parts) not in (1, 2) or not all(is_sequence(p, i) for i, p in enumerate(parts)):
            return None
        cls_, sep = special_part([self.cls[::-1]], 0), special_part([self.sep[::-1]], 0)
        return [(cls_ if i == 0 else sep) + part + sep for i, part in enumerate(parts)]

    def moves_offsets(self) -> bool:
        return self.trim_offsets

    def to_config(self) -> dict:
        return {"type": "RobertaProcessing", "sep": list(self.sep), "cls": list(self.cls),
                "trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}

    def __repr__(self) -> str:
        return (f"RobertaProcessing(sep={self.sep!r}, cls={self.cls!r}, "
                f"trim_offsets={self.trim_offsets!r}, "
                f"add_prefix_space={self.add_prefix_space!r})")


class ProcessorSequence(PostProcessorBase):
    """Run several post-processors one after the other (HF ``processors.Sequence``)."""

    def __init__(self, processors):
        self.processors = list(processors)
        for processor in self.processors:
            if not hasattr(processor, "process_encodings"):
                raise TypeError(f"{type(processor).__name__} has no process_encodings: it "
                                "cannot be part of a post-processor Sequence")

    def __getitem__(self, index: int):
        """The post-processor at ``index`` (HF's ``seq[0]``)."""
        return self.processors[index]

    def options_stamp(self) -> Hashable:
        """``PostProcessorBase.options_stamp`` of this and of each processor in it."""
        return (super().options_stamp(),
                tuple((id(p), p.options_stamp()) for p in self.processors))

    def added_tokens(self, is_pair: bool) -> int:
        return sum(p.added_tokens(is_pair) for p in self.processors)

    def process_encodings(self, encodings: list[Encoding],
                          add_special_tokens: bool) -> list[Encoding]:
        for processor in self.processors:
            encodings = processor.process_encodings(encodings, add_special_tokens)
        return encodings

    def plan_encodings(self, parts: list[Part], add_special_tokens: bool) -> list[Part] | None:
        """Each member's ``plan_encodings`` in turn: None when one has none."""
        for processor in self.processors:
            step = getattr(processor, "plan_encodings", None)
            out = None if step is None else step(parts, add_special_tokens)
            if out is None:
                return None
            parts = out
        return parts

    def moves_offsets(self) -> bool:
        return any(getattr(p, "moves_offsets", lambda: True)() for p in self.processors)

    def to_config(self) -> dict:
        return {"type": "Sequence", "processors": [p.to_config() for p in self.processors]}

    def __repr__(self) -> str:
        return f"ProcessorSequence({self.processors!r})"
