"""Turn tokens back into text, three ways users already know.

- ``WordPieceDecoder``: HF ``tokenizers``' WordPiece decoder, exactly: a token that
  starts with the prefix is glued to the previous one, any other gets a leading space,
  and the English ``cleanup`` rewrites each token on its own (so `` .`` loses its space
  but ``do not`` inside one token is the only ``don't`` it ever makes).
- ``detokenize``: TensorFlow Text's tutorial detokenizer: glue ``##`` pieces into words,
  drop reserved tokens except the unknown token, join words with single spaces.
- ``join_words``: the "simple tokenizer" tutorial decoder: join with spaces, then
  remove the space before ``, . ? ! " ( ) '``.

``Decoder`` is the contract any decoder meets.

Not handled here: HF's byte-level, Metaspace and BPE decoders. Decoding is lossy by
nature: normalization (case, accents) and whitespace are not recoverable from ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

# HF's cleanup list, applied in this order to each token separately.
_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
            (" n't", "n't"), (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"),
            (" 've", "'ve"), (" 're", "'re"))


def cleanup(text: str) -> str:
    """Apply HF's English clean-up replacements (``" ."`` -> ``"."`` …) to ``text``."""
    for dirty, clean in _CLEANUP:
        text = text.replace(dirty, clean)
    return text


@runtime_checkable
class Decoder(Protocol):
    """What the tokenizer needs from a decoder: any object with these methods is one.

    ``decode(tokens)`` joins the tokens ``Tokenizer.decode`` kept (special tokens
    already dropped when asked); ``to_config()`` is HF's JSON form, written when the
    tokenizer is saved.
    """

    def decode(self, tokens: Iterable[str]) -> str:
        """Join ``tokens`` into one string."""
        ...

    def to_config(self) -> dict:
        """HF's JSON form of this decoder."""
        ...


class WordPieceDecoder:
    """Join WordPiece tokens into text as HF ``decoders.WordPiece`` does.

    >>> WordPieceDecoder().decode(["I", "'m", "Jo", "##hn"])
    "I'm John"
    >>> WordPieceDecoder().decode(["hello", "world", "!"])
    'hello world!'
    """

    def __init__(self, prefix: str = "##", cleanup: bool = True):
        self.prefix = prefix
        self.cleanup = cleanup

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        """Return each token as it appears in the output (prefix stripped, space added)."""
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = (token.replace(self.prefix, "", 1) if token.startswith(self.prefix)
                         else " " + token)
            out.append(cleanup(token) if self.cleanup else token)
        return out

    def decode(self, tokens: Iterable[str]) -> str:
        """Join ``tokens`` into one string."""
        return "".join(self.decode_chain(tokens))

    def to_config(self) -> dict:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}

    def __repr__(self) -> str:
        return f"WordPieceDecoder(prefix={self.prefix!r}, cleanup={self.cleanup!r})"


def detokenize(tokens: Iterable[str], *, reserved_tokens: Iterable[str] = (),
               unk_token: str | None = "[UNK]", prefix: str = "##") -> str:
    """Glue ``##`` pieces into words, drop reserved tokens but ``unk_token``, join with spaces.

    This is what TensorFlow Text's ``BertTokenizer.detokenize`` followed by the subword
    tutorial's ``cleanup_text`` gives: pieces are joined first, then whole words equal
    to a reserved token are dropped.

    >>> detokenize("[START] hello tens ##or ##f ##low ! [END]".split(),
    ...            reserved_tokens=["[PAD]", "[UNK]", "[START]", "[END]"])
    'hello tensorflow !'
    """
    drop = set(reserved_tokens) - {unk_token}
    words = " ".join(tokens).replace(" " + prefix, "").split(" ") if prefix else list(tokens)
    return " ".join(w for w in words if w and w not in drop)


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.?!\"()'])")


def join_words(words: Iterable[str]) -> str:
    """Join with single spaces, then remove the spaces before ``, . ? ! " ( ) '``.

    >>> join_words(["the", "cat", "sat", "."])
    'the cat sat.'
    """
    return _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(words))
