"""Answer the playground's questions about named tokenizers, as JSON-ready data.

Each request names a loaded tokenizer and carries a text; ``Playground`` encodes it
(pieces with ids, offsets and a kind: word start, ``##`` continuation, special, unknown;
without the tokenizer's own padding and truncation, as ``inspect`` measures: a
``tokenizer.json`` padding every text to 128 would show a row of ``[PAD]`` and hide how
long the text really is; the listing names both settings, so the page can show what
truncation would cut),
traces it (``tools.explain``: the same trace as ``wordpieces explain``), compares two
tokenizers on it, and describes a vocabulary (``tools.inspect_vocab``: size, share of
``##`` pieces, plus the longest entries and the words of a text that split into 4+
pieces). Every failure a client can cause is an ``ApiError`` carrying an HTTP status and a
one-line message naming the field or value at fault.

The work of one request is bounded before it starts: a text is at most ``MAX_TEXT_CHARS``,
a request holds only the fields its route reads, ``compare`` names each loaded tokenizer at
most once (a name twice is refused, not merged) and encodes at most ``MAX_WORK_CHARS``
characters in all (text length x names), and no string may hold a lone surrogate (JSON's
``"\\ud800"`` escape without its pair decodes to one; it is not text and cannot be encoded:
``formats.strict_json`` refuses it, naming its JSON path).

Not handled here: HTTP itself (``server``), loading tokenizers from files (the CLI).
"""

from __future__ import annotations

import dataclasses

from ...errors import FormatError
from ...formats.strict_json import describe, parse_json
from ..explain import explain
from ..inspect_vocab import CorpusStats, left_out_settings, vocab_facts

MAX_TEXT_CHARS = 5000  # a playground text: a paragraph, not a corpus
MAX_WORK_CHARS = 4 * MAX_TEXT_CHARS  # characters one compare encodes in all (text x names)
LONGEST_ENTRIES = 10
MANY_PIECES = 4  # a word split into this many pieces or more is listed


class ApiError(Exception):
    """A request the playground refuses: an HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def toy_vocabulary() -> list[str]:
    """The classic teaching vocabulary: ``play``/``player`` and six continuation pieces.

    >>> toy_vocabulary()[5:]
    ['play', 'player', '##ing', '##er', '##s', '##ed', '##ly']
    """
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
            "play", "player", "##ing", "##er", "##s", "##ed", "##ly"]


def parse_request(body: bytes, *fields: str) -> dict:
    """The JSON object of a request body holding only ``fields``, every string valid text (400
    for anything else: what a route does not read is refused rather than parsed for nothing)."""
    try:
        value = parse_json(body, "request body")
    except FormatError as error:
        raise ApiError(400, str(error)) from None
    if not isinstance(value, dict):
        raise ApiError(400, f"request body: expected a JSON object, got {describe(value)}")
    unknown = [name for name in value if name not in fields]
    if unknown:
        raise ApiError(400, f"request body: unknown field {unknown[0]!r} (expected: "
                            f"{', '.join(fields)})")
    return value


def field(request: dict, name: str, kind: type):
    """Read ``request[name]``, checking its JSON type (400 when wrong or missing)."""
    if name not in request:
        raise ApiError(400, f"request body: missing field {name!r}")
    value = request[name]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        expected = {str: "a string", list: "an array", bool: "a boolean"}[kind]
        raise ApiError(400, f"request body: {name}: expected {expected}, got "
                            f"{describe(value)}")
    return value


def checked_text(text: str) -> str:
    """Refuse a text over ``MAX_TEXT_CHARS`` (413), so one request cannot hog the server."""
    if len(text) > MAX_TEXT_CHARS:
        raise ApiError(413, f"text: {len(text)} characters, over the limit of "
                            f"{MAX_TEXT_CHARS}")
    return text


class Playground:
    """Named tokenizers and the questions the page asks about them."""

    def __init__(self, tokenizers: dict, *, default: str | None = None):
        if not tokenizers:
            raise ValueError("the playground needs at least one tokenizer")
        if default is not None and default not in tokenizers:
            raise ValueError(f"default tokenizer {default!r} is not among the loaded ones "
                             f"({', '.join(tokenizers)})")
        self.tokenizers = dict(tokenizers)
        self.default = default if default is not None else next(iter(self.tokenizers))

    def tokenizer(self, name: str):
        """The tokenizer called ``name`` (404 naming the ones there are)."""
        try:
            return self.tokenizers[name]
        except KeyError:
            raise ApiError(404, f"no tokenizer {name!r} (loaded: "
                                f"{', '.join(self.tokenizers)})") from None

    def list_tokenizers(self) -> dict:
        """Every loaded tokenizer in load order (vocabulary size, flavor, the padding and
        truncation ``encode`` leaves out), and the one the page starts with."""
        return {"tokenizers": [
            {"name": name, "vocab_size": tok.vocab_size, "flavor": tok.flavor,
             "special_tokens": tok.special_tokens, **left_out_settings(tok)}
            for name, tok in self.tokenizers.items()], "default": self.default}

    def encode(self, name: str, text: str) -> dict:
        """The pieces of ``text`` (special tokens added, no padding or truncation) with ids,
        offsets and kinds."""
        tok = self.tokenizer(name)
        enc = tok.encode_batch_with([(checked_text(text), None)], truncation=None,
                                    padding=None)[0]
        unk = getattr(tok.model, "unk_token", None)
        prefix = getattr(tok.model, "continuing_subword_prefix", None) or None
        pieces = [
            {"token": token, "id": id_, "start": start, "end": end, "word": word,
             "kind": piece_kind(token, special, unk, prefix)}
            for token, id_, (start, end), word, special in zip(
                enc.tokens, enc.ids, enc.offsets, enc.word_ids, enc.special_tokens_mask,
                strict=True)]
        return {"tokenizer": name, "text": text, "count": len(pieces), "pieces": pieces}

    def explain(self, name: str, text: str) -> dict:
        """The greedy longest-match trace of every word (``tools.explain.WordTrace`` fields)."""
        tok = self.tokenizer(name)
        traces = explain(tok, checked_text(text))
        return {"tokenizer": name, "text": text,
                "words": [dataclasses.asdict(trace) for trace in traces]}

    def compare(self, names: list, text: str) -> dict:
        """``encode`` of the same text by each named tokenizer, side by side."""
        self.check_compared(names)
        work = len(names) * len(checked_text(text))
        if work > MAX_WORK_CHARS:
            raise ApiError(413, f"request body: {len(names)} tokenizers x {len(text)} "
                                f"characters = {work}, over the limit of {MAX_WORK_CHARS} "
                                f"characters per request: compare fewer or a shorter text")
        return {"text": text, "results": [self.encode(name, text) for name in names]}

    def check_compared(self, names: list) -> None:
        """Refuse (400, 404) a ``tokenizers`` list that is not 2+ loaded names, each once."""
        loaded = len(self.tokenizers)
        if len(names) > loaded:
            raise ApiError(400, f"request body: tokenizers: {len(names)} names, more than the "
                                f"{loaded} tokenizers loaded (name each at most once)")
        if len(names) < 2 or not all(isinstance(n, str) for n in names):
            raise ApiError(400, "request body: tokenizers: expected an array of at least two "
                                "tokenizer names")
        for i, name in enumerate(names):
            if name in names[:i]:
                raise ApiError(400, f"request body: tokenizers[{i}]: {name!r} is named twice "
                                    f"(name each tokenizer once)")
            self.tokenizer(name)

    def vocab(self, name: str, text: str = "") -> dict:
        """``inspect``'s vocabulary figures, the longest entries (special tokens left out),
        and the words of ``text`` that split into ``MANY_PIECES`` or more."""
        tok = self.tokenizer(name)
        facts = vocab_facts(tok)
        specials = set(tok.special_tokens) | set(tok.reserved_tokens)
        entries = sorted((t for t in tok.model.vocab.tokens if t not in specials),
                         key=lambda t: (-len(t), t))
        return {"tokenizer": name, "vocab_size": facts["vocab_size"],
                "continuation_share": facts["continuation_share"],
                "continuation_pieces": facts["continuation_pieces"],
                "word_start_pieces": facts["word_start_pieces"],
                "continuing_subword_prefix": facts["continuing_subword_prefix"],
                "longest_entries": entries[:LONGEST_ENTRIES],
                "many_piece_words": many_piece_words(tok, checked_text(text))}


def piece_kind(token: str, special: int, unk: str | None, prefix: str | None) -> str:
    """How the page colours a piece: ``special``, ``unk``, ``continuation`` or ``start``."""
    if token == unk:
        return "unk"
    if special:
        return "special"
    if prefix and token.startswith(prefix):
        return "continuation"
    return "start"


def many_piece_words(tok, text: str) -> list[dict]:
    """Words of ``text`` split into ``MANY_PIECES``+ pieces (``inspect``'s most split words)."""
    if not text.strip():
        return []
    stats = CorpusStats(tok)
    stats.add(text.splitlines() or [text])
    return [{"word": word, "pieces": pieces}
            for word, pieces, _ in stats.report()["most_split_words"]
            if pieces >= MANY_PIECES]
