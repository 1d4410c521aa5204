"""Show why a text split into the pieces it did: the greedy longest-match trace.

WordPiece splits a word by trying the longest candidate first and shortening it until
the vocabulary holds it; when nothing matches at some position the *whole* word becomes
the unknown token. ``explain`` replays that search for every word of a text, recording
each candidate tried, so a user can see why ``unaffable`` became ``una ##ffa ##ble`` and
why ``naïve☃`` became ``[UNK]``. ``render`` turns the trace into terminal text.

The trace follows the tokenizer's own stages (normalizer, pre-tokenizer, model) and the
pieces it reports are the ones ``Tokenizer.tokenize`` returns (tested).

The model is read through its public contract: ``models.SubwordModel`` for WordPiece
(vocabulary, prefix, word limits, ``longest_piece``), ``models.Model`` otherwise.

Not handled here: added tokens whose ``normalized`` flag is set (they are matched after
normalization by the tokenizer and are traced here as ordinary words), and models other
than ``WordPiece`` and ``WordLevel`` (reported as one opaque step).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..pipeline.added_tokens import AddedVocabulary
from ..pipeline.normalizers import NormalizedString
from ..pipeline.pre_tokenizers import split_pieces


@dataclass(frozen=True)
class Attempt:
    """One candidate piece looked up in the vocabulary."""

    candidate: str
    found: bool


@dataclass(frozen=True)
class Position:
    """All candidates tried at one character position of a word, longest first."""

    start: int
    attempts: tuple[Attempt, ...]
    skipped: int = 0  # longer candidates not tried: no vocabulary token is that long


@dataclass
class WordTrace:
    """How one word (as the model sees it) became its pieces."""

    original: str
    word: str
    span: tuple[int, int]
    positions: list[Position] = field(default_factory=list)
    pieces: list[tuple[str, int]] = field(default_factory=list)
    unk_reason: str | None = None
    note: str | None = None  # e.g. "added token, kept whole"


def explain(tokenizer, text: str) -> list[WordTrace]:
    """Trace how ``tokenizer`` splits every word of ``text``.

    >>> from wordpieces.tokenizer import Tokenizer
    >>> tok = Tokenizer.from_vocab(["[UNK]", "play", "##ing", "##ed"], template=None)
    >>> [p for p, _ in explain(tok, "Playing")[0].pieces]
    ['play', '##ing']
    """
    if not isinstance(text, str):
        raise TypeError(f"explain expects a str, got {type(text).__name__}")
    traces: list[WordTrace] = []
    for start, end, added_id in _segments(tokenizer, text):
        if added_id is not None:
            token = tokenizer.id_to_token(added_id)
            traces.append(WordTrace(text[start:end], token, (start, end),
                                    pieces=[(token, added_id)],
                                    note="added token: matched in the raw text, kept whole"))
            continue
        traces.extend(_trace_text(tokenizer, text[start:end], start))
    return traces


def _segments(tokenizer, text: str) -> list[tuple[int, int, int | None]]:
    """Cut the text at added tokens as the tokenizer does (HF flavor only)."""
    added = [(t, t.id) for t in getattr(tokenizer, "added_tokens", ())]
    if getattr(tokenizer, "flavor", None) != "huggingface" or not added:
        return [(0, len(text), None)]
    normalizer = tokenizer.normalizer
    vocabulary = AddedVocabulary(added, normalizer.normalize_str if normalizer else None)
    return vocabulary.split(text)


def _trace_text(tokenizer, text: str, shift: int) -> list[WordTrace]:
    """Normalize and pre-tokenize ``text``, then trace every word."""
    normalizer, pre_tokenizer = tokenizer.normalizer, tokenizer.pre_tokenizer
    ns = normalizer.normalize(text) if normalizer is not None else NormalizedString.identity(text)
    traces = []
    for piece in split_pieces(pre_tokenizer, ns):
        a, b = piece.span(0, len(piece.normalized))
        trace = trace_word(tokenizer.model, piece.normalized)
        trace.original, trace.span = text[a:b], (a + shift, b + shift)
        traces.append(trace)
    return traces


def trace_word(model, word: str) -> WordTrace:
    """Trace the model on one already normalized, pre-tokenized word."""
    trace = WordTrace(word, word, (0, len(word)))
    if not hasattr(model, "continuing_subword_prefix"):
        return _trace_lookup(model, trace)
    too_long = _length_problem(model, word)
    if too_long:
        return _unknown(model, trace, too_long)
    vocab, prefix = model.vocab, model.continuing_subword_prefix
    longest = model.longest_piece  # models.SubwordModel: no longer candidate can match
    start = 0
    while start < len(word):
        position = _try_position(word, start, vocab, prefix, longest)
        trace.positions.append(position)
        if not position.attempts or not position.attempts[-1].found:
            return _unknown(model, trace, _no_match_reason(word, start, vocab, prefix))
        piece = position.attempts[-1].candidate
        trace.pieces.append((piece, vocab[piece]))
        start += len(piece) - (len(prefix) if start else 0)
    return trace


def _try_position(word: str, start: int, vocab, prefix: str, longest: int) -> Position:
    """Try candidates at ``start`` from longest to shortest until one is in ``vocab``."""
    first_end = min(len(word), start + longest)
    attempts = []
    for end in range(first_end, start, -1):
        candidate = word[start:end] if start == 0 else prefix + word[start:end]
        found = candidate in vocab
        attempts.append(Attempt(candidate, found))
        if found:
            break
    return Position(start, tuple(attempts), skipped=len(word) - first_end)


def _trace_lookup(model, trace: WordTrace) -> WordTrace:
    """Word-level models: one lookup of the whole word."""
    found = trace.word in model.vocab
    trace.positions.append(Position(0, (Attempt(trace.word, found),)))
    if not found:
        return _unknown(model, trace, "the word is not in the vocabulary (a word-level "
                                      "model has no pieces to fall back on)")
    trace.pieces.append((trace.word, model.vocab[trace.word]))
    return trace


def _unknown(model, trace: WordTrace, reason: str) -> WordTrace:
    trace.pieces = [(model.unk_token, model.vocab[model.unk_token])]
    trace.unk_reason = reason
    return trace


def _length_problem(model, word: str) -> str | None:
    """Say why ``word`` is too long for the model, or None."""
    limit_bytes = getattr(model, "max_input_bytes_per_word", None)
    if limit_bytes is not None:
        size = len(word.encode("utf-8", "surrogatepass"))
        if size > limit_bytes:
            return (f"the word is {size} UTF-8 bytes long, over max_input_bytes_per_word="
                    f"{limit_bytes}: longer words are not split at all")
        return None
    limit = model.max_input_chars_per_word
    if len(word) > limit:
        return (f"the word is {len(word)} characters long, over max_input_chars_per_word="
                f"{limit}: longer words are not split at all")
    return None


def _no_match_reason(word: str, start: int, vocab, prefix: str) -> str:
    """Explain a dead end at ``start``, naming the character when it is the culprit."""
    ch = word[start]
    piece = ch if start == 0 else prefix + ch
    where = "at the start" if start == 0 else f"at character {start}"
    reason = f"nothing in the vocabulary starts the rest of the word {where} ({word[start:]!r})"
    if piece not in vocab:
        kind = "a word-start piece" if start == 0 else "a continuation piece"
        reason += f"; the character {ch!r} (U+{ord(ch):04X}) is not in the vocabulary as {kind}"
    return reason + ". WordPiece then makes the whole word unknown, not just this part."


# ---------------------------------------------------------------- rendering

# The playground's two colours (its style.css): amber word starts (#f5b041), blue ``##``
# continuations (#5dade2), as the 256-colour palette's nearest (214, 75).
_COLORS = {"start": "\033[38;5;214m", "cont": "\033[38;5;75m", "unk": "\033[1;31m",
           "added": "\033[35m", "dim": "\033[2m", "ok": "\033[32m", "reset": "\033[0m"}


class _Paint:
    """Wrap text in ANSI colours when enabled, else leave it plain."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, kind: str, text: str) -> str:
        return f"{_COLORS[kind]}{text}{_COLORS['reset']}" if self.enabled else text


def render(traces: list[WordTrace], *, color: bool = False, steps: bool = True) -> str:
    """Format traces as text: one block per word, each position's tries on one line."""
    paint = _Paint(color)
    blocks = [_render_word(t, paint, steps) for t in traces]
    return "\n".join(blocks)


def _render_word(trace: WordTrace, paint: _Paint, steps: bool) -> str:
    pieces = " ".join(paint(_kind(trace, i), tok) for i, (tok, _) in enumerate(trace.pieces))
    ids = " ".join(str(i) for _, i in trace.pieces)
    head = f"{trace.original!r}"
    if trace.word != trace.original:
        head += f" -> normalized {trace.word!r}"
    lines = [f"{head}  =>  {pieces}   (ids {ids})"]
    if trace.note:
        lines.append("  " + paint("dim", trace.note))
    if steps:
        lines.extend(_render_position(p, paint) for p in trace.positions)
    if trace.unk_reason:
        lines.append("  " + paint("unk", "why [UNK]: ") + trace.unk_reason)
    return "\n".join(lines)


def _kind(trace: WordTrace, index: int) -> str:
    if trace.unk_reason is not None:
        return "unk"
    if trace.note is not None:
        return "added"
    return "start" if index == 0 else "cont"


def _render_position(position: Position, paint: _Paint) -> str:
    tries = []
    for attempt in position.attempts:
        verdict = paint("ok", "found") if attempt.found else "no"
        tries.append(f"try {attempt.candidate}: {verdict}")
    text = f"  at {position.start}: " + ", ".join(tries) if tries else "  nothing to try"
    if position.skipped:
        text += paint("dim", f"  ({position.skipped} longer candidates skipped: no vocabulary "
                             f"piece is that long)")
    return text
