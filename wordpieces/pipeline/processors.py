"""Add special tokens around encoded sequences: ``[CLS] $A [SEP]`` and friends.

``TemplateProcessing`` follows HF ``tokenizers``' template syntax: whitespace-separated
pieces, ``$A``/``$B`` (also ``$``, ``$a``, ``$b``, ``$<type id>``) for the input
sequences and any other word for a special token, each optionally followed by
``:<type id>``. ``BertProcessing`` is HF's fixed ``[CLS] A [SEP] (B [SEP])`` processor.
Both produce exactly HF's encodings, including type ids, offsets ``(0, 0)`` for added
tokens, sequence ids and how overflowing windows are wrapped.

``PostProcessor`` is the contract any post-processor meets; ``default_processor`` is the
one ``Tokenizer.from_vocab`` and ``train`` build for a vocabulary.

Not handled here: HF's ``RobertaProcessing`` and ``Sequence`` post-processors
(``extra_processors``), HF's ``ByteLevel`` post-processor.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..encoding.encoding import Encoding
from ..errors import VocabError
from ..vocab import Vocab
from .processor_plan import Part, ProcessorPlan, is_sequence, plan_of, special_part, with_type_id


def _special(ids: list[int], tokens: list[str], type_id: int) -> Encoding:
    """An encoding of added special tokens (mask 1, offsets (0, 0), no word)."""
    n = len(ids)
    return Encoding(ids=ids, tokens=tokens, offsets=[(0, 0)] * n, word_ids=[None] * n,
                    type_ids=[type_id] * n, special_tokens_mask=[1] * n)


def unmarked(enc: Encoding) -> Encoding:
    """A copy of ``enc`` without sequence ranges, none of its tokens marked special.

    What HF's Bert and Roberta processors wrap: the tokens between their special tokens
    get mask 0, even those another processor of a ``Sequence`` added.
    """
    body = enc.slice(0, len(enc))
    body.special_tokens_mask = [0] * len(body)
    return body


@runtime_checkable
class PostProcessor(Protocol):
    """What the tokenizer needs from a post-processor: any object with these methods is one.

    - ``process(encoding, pair, add_special_tokens)``: the model input of one input
      (HF's ``process``), after truncation;
    - ``added_tokens(is_pair)``: how many tokens it adds (truncation leaves room);
    - ``to_config()``: HF's JSON form, written when the tokenizer is saved.

    Optionally ``plan(add_special_tokens)``: what it puts around each sequence, as a
    ``ProcessorPlan`` (``processor_plan``), or None. The processors here all have one;
    with it, the batch paths (ids, lists, arrays, lazy Encodings, the C finisher) run
    the plan instead of ``process``. An object without ``plan`` (or whose plan is None)
    runs on the pure-Python reference path: ``process`` for each input, by design.
    """

    def process(self, encoding: Encoding, pair: Encoding | None = None,
                add_special_tokens: bool = True) -> Encoding:
        """Combine one or two sequence encodings into the model input."""
        ...

    def added_tokens(self, is_pair: bool) -> int:
        """How many special tokens one input (or a pair) gets."""
        ...

    def to_config(self) -> dict:
        """HF's JSON form of this post-processor."""
        ...


class PostProcessorBase:
    """Base of the post-processors here: ``process`` and ``plan`` for subclasses.

    Subclasses implement ``process_encodings``, ``added_tokens``, ``to_config`` and
    ``plan_encodings`` (``process_encodings`` on a plan's parts, which ``plan`` runs).
    """

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        object.__setattr__(self, "_changes", self.__dict__.get("_changes", 0) + 1)

    def options_stamp(self) -> Hashable:
        """A value that changes whenever an option is set: a cheap key for caches.

        It counts the attribute assignments.

        What a processor adds is remembered per processor (the native finisher's plans)
        and learnt again when this changes. Options are set by assignment, as in HF
        (``proc.sep = ("[SEP]", 3)``); a container changed in place is not seen.
        """
        return self.__dict__.get("_changes", 0)

    def process(self, encoding: Encoding, pair: Encoding | None = None,
                add_special_tokens: bool = True) -> Encoding:
        """Combine one or two sequence encodings into the model input (HF ``process``)."""
        encodings = [encoding] if pair is None else [encoding, pair]
        for i, enc in enumerate(encodings):
            enc.set_sequence_id(i)
        parts = self.process_encodings(encodings, add_special_tokens)
        if any(part.overflowing for part in parts):
            return Encoding.merge(parts, growing_offsets=False)
        return Encoding.join(parts)  # the common case: nothing to combine

    def process_encodings(self, encodings: list[Encoding],
                          add_special_tokens: bool) -> list[Encoding]:
        raise NotImplementedError

    def added_tokens(self, is_pair: bool) -> int:
        raise NotImplementedError

    def plan(self, add_special_tokens: bool = True) -> ProcessorPlan | None:
        """What this processor puts around one sequence and a pair, from its settings.

        Every fast path runs it instead of ``process``; None (``plan_encodings`` says its
        output is not fixed pieces around each sequence) leaves them to ``process``.
        Remembered until ``options_stamp`` moves: making it costs more than encoding a
        short text.
        """
        key = (bool(add_special_tokens), self.options_stamp())
        kept: tuple[Hashable, dict[bool, ProcessorPlan | None]] | None
        kept = self.__dict__.get("_plans")
        if kept is None or kept[0] != key[1]:
            kept = (key[1], {})
            object.__setattr__(self, "_plans", kept)  # not an option: no stamp change
        if key[0] not in kept[1]:
            kept[1][key[0]] = plan_of(self.plan_encodings, key[0], self.moves_offsets())
        return kept[1][key[0]]

    def plan_encodings(self, parts: list[Part], add_special_tokens: bool) -> list[Part] | None:
        """``process_encodings`` on a plan's parts (one per encoding), or None: no plan."""
        return None

    def moves_offsets(self) -> bool:
        """Whether ``process`` changes the sequences' offsets (not in the plan's pieces)."""
        return False

    def to_config(self) -> dict:
        raise NotImplementedError


# ---------------------------------------------------------------- templates


@dataclass(frozen=True)
class Piece:
    """One template element: a sequence (``"A"``/``"B"``) or a special token name."""

    name: str
    type_id: int = 0
    is_sequence: bool = False

    def to_config(self) -> dict:
        key = "Sequence" if self.is_sequence else "SpecialToken"
        return {key: {"id": self.name, "type_id": self.type_id}}


def parse_piece(text: str) -> Piece:
    """Parse one template piece such as ``$A``, ``$B:1``, ``[SEP]:1`` or ``$1``."""
    name, _, type_text = text.partition(":")
    if ":" in type_text or (_ and not type_text.isdigit()) or not name:
        raise ValueError(f"cannot parse template piece {text!r}: expected NAME or NAME:TYPE_ID")
    type_id = int(type_text) if _ else 0
    if not name.startswith("$"):
        return Piece(name, type_id)
    rest = name[1:]
    if rest in ("", "A", "a"):
        return Piece("A", type_id, True)
    if rest in ("B", "b"):
        return Piece("B", type_id, True)
    if rest.isdigit():
        return Piece("A", type_id if _ else int(rest), True)
    raise ValueError(f"cannot parse template piece {text!r}: a sequence is $A or $B")


def parse_template(template: str | Iterable[str | Piece]) -> tuple[Piece, ...]:
    """Parse a template string (or a list of piece strings or ``Piece``) into pieces."""
    parts = template.split() if isinstance(template, str) else list(template)
    return tuple(p if isinstance(p, Piece) else parse_piece(p) for p in parts)


def template_text(pieces: Iterable[Piece]) -> str:
    """Write pieces back as a template string."""
    return " ".join(("$" + p.name if p.is_sequence else p.name) + f":{p.type_id}"
                    for p in pieces)


@dataclass(frozen=True)
class SpecialTokenSpec:
    """What a template's special token name expands to (usually one token)."""

    name: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]

    def to_config(self) -> dict:
        return {"id": self.name, "ids": list(self.ids), "tokens": list(self.tokens)}


class TemplateProcessing(PostProcessorBase):
    """Wrap sequences in special tokens following a template (HF ``TemplateProcessing``).

    ``special_tokens`` maps each special token name to its id (``{"[CLS]": 101}``), or is
    a list of ``(name, id)`` pairs or of ``SpecialTokenSpec``.

    >>> tp = TemplateProcessing("[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
    ...                         special_tokens={"[CLS]": 101, "[SEP]": 102})
    >>> tp.plan(True).ids([7, 8], [9])
    [101, 7, 8, 102, 9, 102]
    """

    def __init__(self, single: str | Iterable[str | Piece] = "$A",
                 pair: str | Iterable[str | Piece] | None = None, *, special_tokens=()):
        self.single = parse_template(single)
        self.pair = parse_template(pair) if pair is not None else default_pair(self.single)
        self.special_tokens = _special_specs(special_tokens)
        self._specials: dict[tuple[str, int], Encoding] = {}
        self._check()

    def _check(self) -> None:
        for name, pieces in (("single", self.single), ("pair", self.pair)):
            missing = [p.name for p in pieces
                       if not p.is_sequence and p.name not in self.special_tokens]
            if missing:
                raise ValueError(f"{name} template uses special tokens {missing} that are not "
                                 f"given in special_tokens")
        seqs = [p.name for p in self.single if p.is_sequence]
        if seqs != ["A"]:
            raise ValueError(f"the single template must use $A exactly once, got "
                             f"{template_text(self.single)!r}")
        if sorted(p.name for p in self.pair if p.is_sequence) != ["A", "B"]:
            raise ValueError(f"the pair template must use $A and $B exactly once each, got "
                             f"{template_text(self.pair)!r}")

    def added_tokens(self, is_pair: bool) -> int:
        pieces = self.pair if is_pair else self.single
        return sum(len(self.special_tokens[p.name].ids) for p in pieces if not p.is_sequence)

    def process_encodings(self, encodings: list[Encoding],
                          add_special_tokens: bool) -> list[Encoding]:
        pieces = self.pair if len(encodings) == 2 else self.single
        out = []
        for piece in pieces:
            if piece.is_sequence:
                i = 0 if piece.name == "A" else 1
                enc = encodings[i]
                enc.set_type_ids(piece.type_id)
                enc.sequence_ranges[i] = (0, len(enc))  # not its windows: as HF
                out.append(enc)  # merging builds new lists: no copy needed
            elif add_special_tokens:
                out.append(self._special_encoding(piece))
        return out

    def _special_encoding(self, piece: Piece) -> Encoding:
        # Shared between calls: merging copies it, nothing mutates it.
        key = (piece.name, piece.type_id)
        enc = self._specials.get(key)
        if enc is None:
            spec = self.special_tokens[piece.name]
            enc = self._specials[key] = _special(list(spec.ids), list(spec.tokens),
                                                 piece.type_id)
        return enc

    def plan_encodings(self, parts: list[Part], add_special_tokens: bool) -> list[Part] | None:
        if len(parts) not in (1, 2):
            return None
        out = []
        for piece in self.pair if len(parts) == 2 else self.single:
            if piece.is_sequence:
                i = 0 if piece.name == "A" else 1
                if not is_sequence(parts[i], i):  # its range would cover what was added
                    return None
                out.append(with_type_id(parts[i], piece.type_id))
            elif add_special_tokens:
                spec = self.special_tokens[piece.name]
                out.append(special_part(zip(spec.ids, spec.tokens, strict=True),
                                        piece.type_id))
        return out

    def to_config(self) -> dict:
        return {"type": "TemplateProcessing",
                "single": [p.to_config() for p in self.single],
                "pair": [p.to_config() for p in self.pair],
                "special_tokens": {k: v.to_config() for k, v in self.special_tokens.items()}}

    def __repr__(self) -> str:
        return (f"TemplateProcessing({template_text(self.single)!r}, "
                f"pair={template_text(self.pair)!r})")


def special_token_ids(config: dict) -> list[tuple[str, int]]:
    """The ``(name, id)`` of every special token a post-processor's config names.

    Read from ``to_config()`` (HF's JSON layout), so that a tokenizer can check every
    processor kind the same way it checks one read from a file.

    >>> special_token_ids(BertProcessing(("[SEP]", 3), ("[CLS]", 2)).to_config())
    [('[SEP]', 3), ('[CLS]', 2)]
    """
    if config.get("type") == "Sequence":
        return [pair for child in config.get("processors", [])
                for pair in special_token_ids(child)]
    if "special_tokens" in config:
        return [(name, id_) for name, spec in config["special_tokens"].items()
                for id_ in spec.get("ids", [])]
    return [tuple(config[key]) for key in ("sep", "cls") if key in config]


def check_special_ids(processor, id_tokens: list) -> None:
    """Refuse ``processor`` (None passes) if a special-token id of it is not in ``id_tokens``.

    ``id_tokens`` is a tokenizer's id -> token list (None for an unused id): a processor
    emitting another id would give ids that no token, decoder or array type can take.
    """
    pairs = [] if processor is None else special_token_ids(processor.to_config())
    for name, id_ in pairs:
        if not (isinstance(id_, int) and 0 <= id_ < len(id_tokens)) or id_tokens[id_] is None:
            raise VocabError(f"post_processor: special token {name!r} has id {id_!r}, not a "
                             f"token of this tokenizer (ids 0..{len(id_tokens) - 1})")


def default_processor(vocab: Vocab | Mapping[str, int], template: str | None = "auto",
                      pair_template: str | None = None) -> TemplateProcessing | None:
    """The post-processor of ``template``/``pair_template`` with ``vocab``'s ids.

    ``template="auto"`` gives ``[CLS] $A [SEP]`` when the vocab has those tokens, else
    ``[START] $A [END]`` when it has those, else None (no special tokens), as
    ``Tokenizer.from_vocab`` documents. A template naming a token the vocabulary lacks
    is a ``VocabError``.
    """
    if template == "auto":
        if "[CLS]" in vocab and "[SEP]" in vocab:
            template = "[CLS] $A [SEP]"
        elif "[START]" in vocab and "[END]" in vocab:
            template = "[START] $A [END]"
        else:
            return None
    if template is None:
        return None
    single = parse_template(template)
    pair = default_pair(single) if pair_template is None else parse_template(pair_template)
    # in template order, not a set's: saved files must not change between runs
    names = list(dict.fromkeys(p.name for p in single + pair if not p.is_sequence))
    missing = sorted(n for n in names if n not in vocab)
    if missing:
        raise VocabError(f"the template {template!r} uses {missing}, which the vocabulary "
                         f"does not hold")
    return TemplateProcessing(single, pair, special_tokens={n: vocab[n] for n in names})


def default_pair(single: tuple[Piece, ...]) -> tuple[Piece, ...]:
    """``X $A Y`` -> ``X $A Y $B:1 Y:1``: the BERT convention for a second sequence."""
    tail: list[Piece] = []
    for piece in reversed(single):
        if piece.is_sequence:
            break
        tail.insert(0, Piece(piece.name, 1))
    return single + (Piece("B", 1, True), *tail)


def _special_specs(special_tokens) -> dict[str, SpecialTokenSpec]:
    """Normalize the accepted ``special_tokens`` forms to ``{name: SpecialTokenSpec}``."""
    items = special_tokens.items() if isinstance(special_tokens, Mapping) else special_tokens
    specs = {}
    for item in items:
        if isinstance(item, SpecialTokenSpec):
            spec = item
        else:
            name, id_ = item
            spec = SpecialTokenSpec(name, (id_,), (name,))
        specs[spec.name] = spec
    return specs


class BertProcessing(PostProcessorBase):
    """Add ``[CLS] A [SEP]`` and ``B [SEP]`` (HF ``BertProcessing``).

    ``sep`` and ``cls`` are ``(token, id)`` pairs.

    >>> BertProcessing(("[SEP]", 102), ("[CLS]", 101)).plan(True).ids([7], [9])
    [101, 7, 102, 9, 102]
    """

    def __init__(self, sep: tuple[str, int], cls: tuple[str, int]):
        self.sep = (str(sep[0]), int(sep[1]))
        self.cls = (str(cls[0]), int(cls[1]))

    def added_tokens(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def process_encodings(self, encodings: list[Encoding],
                          add_special_tokens: bool) -> list[Encoding]:
        if not add_special_tokens:
            return encodings
        out = [self._wrap_first(encodings[0])]
        if len(encodings) == 2:
            out.append(self._wrap_second(encodings[1]))
        return out

    def _wrap_first(self, enc: Encoding) -> Encoding:
        cls_, sep = _special([self.cls[1]], [self.cls[0]], 0), _special([self.sep[1]],
                                                                        [self.sep[0]], 0)
        body = unmarked(enc)
        out = Encoding.merge([cls_, body, sep], growing_offsets=False)
        out.sequence_ranges = {0: (1, len(out) - 1)}
        out.overflowing = [self._wrap_first(o) for o in enc.overflowing]
        return out

    def _wrap_second(self, enc: Encoding) -> Encoding:
        body = unmarked(enc)
        out = Encoding.merge([body, _special([self.sep[1]], [self.sep[0]], 1)],
                             growing_offsets=False)
        out.sequence_ranges = {1: (0, len(out) - 1)}
        out.overflowing = [self._wrap_second(o) for o in enc.overflowing]
        return out

    def plan_encodings(self, parts: list[Part], add_special_tokens: bool) -> list[Part] | None:
        if not add_special_tokens:
            return parts
        if len(parts) not in (1, 2) or not all(is_sequence(p, i) for i, p in enumerate(parts)):
            return None
        cls_, sep = (self.cls[1], self.cls[0]), (self.sep[1], self.sep[0])
        out = [special_part([cls_], 0) + parts[0] + special_part([sep], 0)]
        if len(parts) == 2:  # the second keeps the type id it was encoded with, as in HF
            out.append(parts[1] + special_part([sep], 1))
        return out

    def to_config(self) -> dict:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}

    def __repr__(self) -> str:
        return f"BertProcessing(sep={self.sep!r}, cls={self.cls!r})"
