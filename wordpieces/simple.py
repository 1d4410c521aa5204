"""Two teaching tokenizers: a whitespace word tokenizer and the regex split tokenizer.

- ``SimpleTokenizer``: lowercase, split on whitespace, one id per word; ``<PAD>``,
  ``<UNK>``, ``<BOS>``, ``<EOS>`` take ids 0-3 and the sorted words follow from 4.
- ``RegexTokenizer``: the "simple tokenizer" of *Build a Large Language Model (From
  Scratch)*: split on ``([,.:;?_!"()']|--|\\s)`` keeping the delimiters, drop blanks,
  look the pieces up; decoding joins with spaces and removes the space before
  ``, . ? ! " ( ) '``.

Both are word-level: every word not in the vocabulary is unknown. Use ``Tokenizer``
(WordPiece) for open vocabularies.

Not handled here: offsets, batching, padding, saving (see ``Tokenizer``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .errors import TokenizeError, VocabError
from .pipeline.decoders import join_words
from .vocab import Vocab


def _texts(texts: str | Iterable[str]) -> Iterable[str]:
    """Accept one text or an iterable of texts (a str is one text, not its characters)."""
    return [texts] if isinstance(texts, str) else texts


def _decode_error(i, position: int, size: int) -> TokenizeError:
    return TokenizeError(f"id {i!r} at position {position} is not in the vocabulary "
                         f"(ids are 0..{size - 1})")


class SimpleTokenizer:
    """Lowercased whitespace words to ids, with ``<PAD>``=0 ``<UNK>``=1 ``<BOS>``=2 ``<EOS>``=3.

    >>> tok = SimpleTokenizer().build_vocab(["The cat sat on the mat",
    ...                                      "The dog sat on the log"])
    >>> tok.vocab_size, tok.encode("The bird sat on the log")
    (11, [10, 1, 9, 8, 10, 6])
    >>> tok.decode([10, 1, 9, 8, 10, 6])
    'the <UNK> sat on the log'
    """

    pad_token = "<PAD>"
    unk_token = "<UNK>"
    bos_token = "<BOS>"
    eos_token = "<EOS>"
    special_tokens = (pad_token, unk_token, bos_token, eos_token)

    def __init__(self):
        self.word_to_id: dict[str, int] = {t: i for i, t in enumerate(self.special_tokens)}
        self.id_to_word: dict[int, str] = dict(enumerate(self.special_tokens))

    def _words(self, text: str) -> list[str]:
        # A literal special token ("<EOS>") is itself, not the lowercase word "<eos>".
        return [w if w in self.special_tokens else w.lower() for w in text.split()]

    def build_vocab(self, texts: str | Iterable[str]) -> SimpleTokenizer:
        """Number the distinct words of ``texts`` from 4, in sorted order; return self."""
        words = {w for text in _texts(texts) for w in self._words(text)}
        tokens = [*self.special_tokens, *sorted(words - set(self.special_tokens))]
        self.word_to_id = {t: i for i, t in enumerate(tokens)}
        self.id_to_word = dict(enumerate(tokens))
        return self

    @property
    def vocab_size(self) -> int:
        return len(self.word_to_id)

    @property
    def pad_id(self) -> int:
        return self.word_to_id[self.pad_token]

    @property
    def unk_id(self) -> int:
        return self.word_to_id[self.unk_token]

    @property
    def bos_id(self) -> int:
        return self.word_to_id[self.bos_token]

    @property
    def eos_id(self) -> int:
        return self.word_to_id[self.eos_token]

    def encode(self, text: str, *, add_bos: bool = False, add_eos: bool = False) -> list[int]:
        """Ids of the words of ``text``; an unknown word is ``<UNK>`` (1)."""
        unk = self.unk_id
        ids = [self.word_to_id.get(w, unk) for w in self._words(text)]
        return [self.bos_id] * add_bos + ids + [self.eos_id] * add_eos

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> str:
        """Words of ``ids`` joined by single spaces."""
        words = []
        for position, i in enumerate(ids):
            word = self.id_to_word.get(i)
            if word is None:
                raise _decode_error(i, position, self.vocab_size)
            if not (skip_special_tokens and word in self.special_tokens):
                words.append(word)
        return " ".join(words)


_SPLIT = re.compile(r"""([,.:;?_!"()']|--|\s)""")


def split_pieces(text: str) -> list[tuple[str, int]]:
    """Split like the book's tokenizer; return each non-blank piece with its start.

    >>> split_pieces("Hello, world--ok")
    [('Hello', 0), (',', 5), ('world', 7), ('--', 12), ('ok', 14)]
    """
    out, pos = [], 0
    for part in _SPLIT.split(text):
        piece = part.strip()
        if piece:
            out.append((piece, pos + len(part) - len(part.lstrip())))
        pos += len(part)
    return out


class RegexTokenizer:
    """Look up regex-split pieces in a closed vocabulary (``str_to_int`` / ``int_to_str``).

    ``vocab`` is ``{piece: id}``, a list of pieces (id = position) or a ``Vocab``. An
    unknown piece is an error naming it and its position, unless ``unk_token`` is
    given (and in the vocabulary).

    >>> tok = RegexTokenizer({"the": 0, "cat": 1, "sat": 2, ".": 3})
    >>> tok.encode("the cat sat."), tok.decode([0, 1, 2, 3])
    ([0, 1, 2, 3], 'the cat sat.')
    """

    def __init__(self, vocab: Mapping[str, int] | Iterable[str] | Vocab, *,
                 unk_token: str | None = None):
        if isinstance(vocab, Mapping):
            self.str_to_int = dict(vocab)
        else:
            self.str_to_int = {t: i for i, t in enumerate(vocab)}
        self.int_to_str = {i: s for s, i in self.str_to_int.items()}
        if len(self.int_to_str) != len(self.str_to_int):
            raise VocabError("vocabulary ids must be distinct")
        if unk_token is not None and unk_token not in self.str_to_int:
            raise VocabError(f"the unknown token {unk_token!r} is not in the vocabulary")
        self.unk_token = unk_token

    @classmethod
    def from_texts(cls, texts: str | Iterable[str], *, special_tokens: Iterable[str] = (),
                   unk_token: str | None = None) -> RegexTokenizer:
        """Build the vocabulary of ``texts``: sorted pieces, then ``special_tokens``, then unk.

        This is the book's recipe (``sorted(set(pieces))``; its second version appends
        ``<|endoftext|>`` and ``<|unk|>``).
        """
        pieces = {p for text in _texts(texts) for p, _ in split_pieces(text)}
        tokens = sorted(pieces)
        for token in [*special_tokens, *([unk_token] if unk_token else [])]:
            if token not in pieces and token not in tokens:
                tokens.append(token)
        return cls(tokens, unk_token=unk_token)

    @property
    def vocab_size(self) -> int:
        return len(self.str_to_int)

    def encode(self, text: str) -> list[int]:
        """Ids of the pieces of ``text``."""
        ids = []
        for number, (piece, start) in enumerate(split_pieces(text)):
            id_ = self.str_to_int.get(piece)
            if id_ is None:
                if self.unk_token is None:
                    raise TokenizeError(
                        f"piece {piece!r} (piece {number}, at character {start}) is not in "
                        f"the vocabulary; pass unk_token=... to map unknown pieces")
                id_ = self.str_to_int[self.unk_token]
            ids.append(id_)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """Pieces of ``ids`` joined by spaces, without the space before punctuation."""
        pieces = []
        for position, i in enumerate(ids):
            piece = self.int_to_str.get(i)
            if piece is None:
                raise _decode_error(i, position, self.vocab_size)
            pieces.append(piece)
        return join_words(pieces)
