"""Turn one pre-tokenized word into vocabulary pieces: WordPiece and WordLevel.

``WordPiece`` is the greedy longest-match-first algorithm of BERT: take the longest
vocabulary entry that starts the word, then the longest ``##``-prefixed entry that
starts the rest, and so on; if some rest matches nothing, the *whole* word becomes the
unknown token. This is the readable reference; the native extension computes the same
pieces in linear time.

``Model`` is the contract any model meets; ``SubwordModel`` is what the native fast
path and ``explain`` read from a ``WordPiece``.

Not handled here: normalization and splitting text into words (``normalizers``,
``pre_tokenizers``), special tokens (``processors``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

from ..errors import MAX_WORD_LENGTH, VocabError, check_size
from ..vocab import Vocab
from .live_settings import settings_changed

CACHE_SIZE = 100_000

# The pieces of one word: (id, start, end) per piece, spans in code points of the word.
Pieces = tuple[tuple[int, int, int], ...]


@runtime_checkable
class Model(Protocol):
    """What the tokenizer needs from a model: any object with these members is one.

    - ``pieces(word)``: the general path's split of one normalized word (may cache);
    - ``split(word)``: the same pieces without the model's cache, for the fast path,
      which caches whole chunks of text itself;
    - ``vocab`` (``tokens`` names each id), ``unk_token``/``unk_id``, ``token_to_id``,
      ``id_to_token``, ``get_vocab``, ``vocab_size``: lookups, saving, decoding.

    The native extension runs only an exact ``WordPiece`` (``SubwordModel``'s members);
    any other model is run by the pure-Python fast path through ``split``.
    """

    vocab: Vocab
    unk_token: str
    unk_id: int

    def pieces(self, word: str) -> Pieces:
        """``(id, start, end)`` per piece of one normalized, pre-tokenized word."""
        ...

    def split(self, word: str) -> Pieces:
        """``pieces(word)`` without the model's cache (for callers that cache)."""
        ...

    def token_to_id(self, token: str) -> int | None: ...

    def id_to_token(self, id_: int) -> str | None: ...

    def get_vocab(self) -> dict[str, int]: ...

    @property
    def vocab_size(self) -> int: ...


@runtime_checkable
class SubwordModel(Model, Protocol):
    """A greedy longest-match subword model: what the native path and ``explain`` read.

    The native extension builds its LinMaxMatch tables from ``vocab.tokens``,
    ``continuing_subword_prefix``, ``unk_id`` and the two word limits (chars, or UTF-8
    bytes when ``max_input_bytes_per_word`` is set); ``tools.explain`` replays the
    search with the same members and ``longest_piece``.
    """

    @property
    def continuing_subword_prefix(self) -> str: ...

    max_input_chars_per_word: int
    max_input_bytes_per_word: int | None

    @property
    def longest_piece(self) -> int: ...


def as_vocab(vocab: Vocab | Mapping[str, int] | Iterable[str]) -> Vocab:
    """Accept a ``Vocab``, a ``{token: id}`` mapping or a list of tokens."""
    if isinstance(vocab, Vocab):
        return vocab
    if isinstance(vocab, Mapping):
        return Vocab.from_mapping(vocab)
    return Vocab(vocab)


def greedy_spans(word: str, vocab: Mapping[str, int] | Vocab, prefix: str = "##",
                 max_token_chars: int | None = None) -> list[tuple[int, int]] | None:
    """Return the (start, end) char spans of the greedy longest-match split, or None.

    ``None`` means some remainder of the word matches no vocabulary entry.

    >>> greedy_spans("playing", {"play": 0, "##ing": 1})
    [(0, 4), (4, 7)]
    """
    spans = []
    start, n = 0, len(word)
    longest = n if max_token_chars is None else max_token_chars
    while start < n:
        end = min(n, start + longest)
        while end > start:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return None
        spans.append((start, end))
        start = end
    return spans


def wordpiece_tokenize(word: str, vocab: Mapping[str, int] | Iterable[str] | Vocab,
                       unk_token: str = "[UNK]", *, continuing_subword_prefix: str = "##",
                       max_input_chars_per_word: int = 100) -> list[str]:
    """Split one word with greedy longest-match-first; an unmatched rest gives ``[unk_token]``.

    >>> vocab = ["play", "player", "##ing", "##er", "##s", "##ed", "##ly"]
    >>> wordpiece_tokenize("players", vocab), wordpiece_tokenize("unknown", vocab)
    (['player', '##s'], ['[UNK]'])
    """
    if not isinstance(vocab, Mapping | Vocab):
        vocab = set(vocab)
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    spans = greedy_spans(word, vocab, continuing_subword_prefix)  # type: ignore[arg-type]
    if spans is None:
        return [unk_token]
    return [word[s:e] if s == 0 else continuing_subword_prefix + word[s:e] for s, e in spans]


class VocabModel:
    """The vocabulary lookups of the ``Model`` protocol (as HF's ``Model``), for subclasses.

    It also holds the unknown token: settable (as in HF), it must be a token of the
    vocabulary unless the vocabulary is empty (``WordPiece()``, as HF allows: such a
    model can be filled later, and encoding with it is an error naming the token).
    """

    vocab: Vocab
    _unk_token: str
    unk_id: int

    def _use_unk(self, token: str) -> None:
        if not isinstance(token, str):
            raise TypeError(f"the unknown token must be a str, got {type(token).__name__}")
        if len(self.vocab) and token not in self.vocab:
            raise VocabError(f"the unknown token {token!r} is not in the vocabulary "
                             f"({len(self.vocab)} tokens)")
        self._unk_token = token
        self.unk_id = self.vocab.ids.get(token, -1)
        self._forget()

    def _forget(self) -> None:
        """Drop what was cached with the old unknown token (subclasses that cache)."""

    @property
    def unk_token(self) -> str:
        """The token a word (or rest of one) the vocabulary cannot spell becomes."""
        return self._unk_token

    @unk_token.setter
    def unk_token(self, token: str) -> None:
        self._use_unk(token)
        settings_changed()

    def _check_unk(self) -> None:
        """Refuse to encode with an unknown token the vocabulary lacks (empty vocabulary)."""
        if self.unk_id < 0:
            raise VocabError(f"{type(self).__name__}: the unknown token {self._unk_token!r} "
                             f"is not in the vocabulary (it is empty)")

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, id_: int) -> str | None:
        return self.vocab.tokens[id_] if 0 <= id_ < len(self.vocab) else None

    def get_vocab(self) -> dict[str, int]:
        return self.vocab.as_dict()

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)


class WordPiece(VocabModel):
    """Map a word to WordPiece ids, with a bounded cache of words already seen.

    ``max_input_chars_per_word`` counts code points (BERT, Hugging Face);
    ``max_input_bytes_per_word``, when set, counts UTF-8 bytes instead (TensorFlow
    Text's ``max_bytes_per_word``). A word over the limit is one unknown token.

    >>> wp = WordPiece(["[UNK]", "un", "##happy", "##ness", "happy"])
    >>> wp.tokenize("unhappiness")
    [('[UNK]', 0)]
    >>> wp.tokenize("unhappyness")
    [('un', 1), ('##happy', 2), ('##ness', 3)]
    """

    def __init__(self, vocab: Vocab | Mapping[str, int] | Iterable[str] | None = None, *,
                 unk_token: str = "[UNK]", continuing_subword_prefix: str = "##",
                 max_input_chars_per_word: int = 100,
                 max_input_bytes_per_word: int | None = None):
        self.vocab = as_vocab(() if vocab is None else vocab)
        self._cache: dict[str, Pieces] = {}
        self._use_unk(unk_token)
        self._prefix = continuing_subword_prefix
        self.max_input_chars_per_word = check_size(  # checked here: every way in passes
            max_input_chars_per_word, field="max_input_chars_per_word", cap=MAX_WORD_LENGTH)
        self.max_input_bytes_per_word = check_size(
            max_input_bytes_per_word, field="max_input_bytes_per_word", cap=MAX_WORD_LENGTH,
            optional=True)
        # The greedy search looks continuation pieces up without their prefix: one
        # slice per probe instead of a slice and a concatenation.
        self._continuations = _without_prefix(self.vocab.ids, continuing_subword_prefix)
        self._longest_start = max(map(len, self.vocab.ids), default=0)
        self._longest_continuation = max(map(len, self._continuations), default=0)

    def _forget(self) -> None:
        self._cache.clear()

    @property
    def continuing_subword_prefix(self) -> str:
        """The prefix of continuation pieces (``"##"``); fixed at construction."""
        return self._prefix  # the continuation table below is keyed without it

    @functools.cached_property
    def longest_piece(self) -> int:
        """Length of the longest vocabulary piece in characters, its prefix not counted.

        No longer candidate can match, so a search need not try one (``tools.explain``
        reports them as skipped). Computed on first read: only tracing needs it.
        """
        prefix = self._prefix
        return max((len(t) - len(prefix) if prefix and t.startswith(prefix) else len(t)
                    for t in self.vocab.tokens), default=0)

    def _too_long(self, word: str) -> bool:
        if self.max_input_bytes_per_word is not None:
            return len(word.encode("utf-8", "surrogatepass")) > self.max_input_bytes_per_word
        return len(word) > self.max_input_chars_per_word

    def split(self, word: str) -> Pieces:
        """Return ``(id, start, end)`` per piece, without the cache (for callers that cache).

        The same pieces as ``greedy_spans`` (a test keeps them so), found faster: a word
        that is itself a vocabulary entry costs one lookup, and each later probe one
        slice.
        """
        if not word:
            return ()
        if self.unk_id < 0:
            self._check_unk()
        if self._too_long(word):
            return ((self.unk_id, 0, len(word)),)
        found = self.vocab.ids.get(word)  # the first probe of the search
        if found is not None:
            return ((found, 0, len(word)),)
        return self._greedy(word)

    def _greedy(self, word: str) -> Pieces:
        pieces = []
        table, longest = self.vocab.ids, self._longest_start
        start, n = 0, len(word)
        while start < n:
            for end in range(min(n, start + longest), start, -1):
                found = table.get(word[start:end])
                if found is not None:
                    break
            else:
                return ((self.unk_id, 0, n),)
            pieces.append((found, start, end))
            start, table, longest = end, self._continuations, self._longest_continuation
        return tuple(pieces)

    def pieces(self, word: str) -> Pieces:
        """Return ``(id, start, end)`` per piece, spans in code points of ``word``."""
        cached = self._cache.get(word)
        if cached is None:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            cached = self._cache[word] = self.split(word)
        return cached

    def tokenize(self, word: str) -> list[tuple[str, int]]:
        """Return ``(token, id)`` per piece of ``word``."""
        tokens = self.vocab.tokens
        return [(tokens[i], i) for i, _, _ in self.pieces(word)]

    def __repr__(self) -> str:
        limit = (f"max_input_bytes_per_word={self.max_input_bytes_per_word}"
                 if self.max_input_bytes_per_word is not None
                 else f"max_input_chars_per_word={self.max_input_chars_per_word}")
        return (f"WordPiece(vocab_size={self.vocab_size}, unk_token={self.unk_token!r}, "
                f"continuing_subword_prefix={self._prefix!r}, {limit})")


def _without_prefix(ids: dict[str, int], prefix: str) -> dict[str, int]:
    """The continuation pieces (``##ing``) keyed without their prefix (``ing``)."""
    if not prefix:
        return ids
    return {token[len(prefix):]: i for token, i in ids.items() if token.startswith(prefix)}


class WordLevel(VocabModel):
    """Map a whole word to its id, or to the unknown token's id.

    >>> WordLevel(["<unk>", "cat"], unk_token="<unk>").tokenize("dog")
    [('<unk>', 0)]
    """

    def __init__(self, vocab: Vocab | Mapping[str, int] | Iterable[str] | None = None, *,
                 unk_token: str = "[UNK]"):
        self.vocab = as_vocab(() if vocab is None else vocab)
        self._use_unk(unk_token)

    def pieces(self, word: str) -> Pieces:
        """Return one ``(id, 0, len(word))`` piece."""
        id_ = self.vocab.ids.get(word, self.unk_id)
        if id_ < 0:
            self._check_unk()
        return ((id_, 0, len(word)),)

    split = pieces  # nothing to cache

    def tokenize(self, word: str) -> list[tuple[str, int]]:
        i = self.pieces(word)[0][0]
        return [(self.vocab.tokens[i], i)]

    def __repr__(self) -> str:
        return f"WordLevel(vocab_size={self.vocab_size}, unk_token={self.unk_token!r})"
