"""Turn tokens back into text, three ways users already know.

- ``WordPieceDecoder``: HF ``tokenizers``' WordPiece decoder, exactly: a token that
  starts with the prefix is glued to the previous one, any other gets a leading space,
  and the English ``cleanup`` rewrites each token on its own (so `` .`` loses its space
  but ``do not`` inside one token is the only ``don't`` it ever makes).
- ``detokenize``: TensorFlow Text's tutorial detokenizer: glue ``##`` pieces into words,
  drop reserved tokens except the unknown token, join words with single spaces.
- ``join_words``: the "simple tokenizer" tutorial decoder: join with spaces, then
  remove the space before ``, . ? ! " ( ) '``.

HF's ``Metaspace``, ``Replace``, ``Strip`` and ``Sequence`` decoders are here too
(``MetaspaceDecoder`` …), each with HF's ``decode_chain`` (tokens in, tokens out), which
``DecoderSequence`` chains before joining.

``Decoder`` is the contract any decoder meets.

Not handled here: HF's byte-level, byte-fallback, CTC and BPE decoders. Decoding is lossy by
nature: normalization (case, accents) and whitespace are not recoverable from ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from .growth import check_growth
from .patterns import Matcher
from .pre_tokenizers import check_metaspace

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


class ChainDecoder:
    """Base of HF's token-to-token decoders: ``decode`` joins what ``decode_chain`` gives."""

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        raise NotImplementedError

    def decode(self, tokens: Iterable[str]) -> str:
        """Join ``tokens`` into one string."""
        return "".join(self.decode_chain(tokens))


class MetaspaceDecoder(ChainDecoder):
    """Turn ``▁`` back into spaces; the first token's are dropped (HF ``decoders.Metaspace``).

    >>> MetaspaceDecoder().decode(["▁Hey", "▁friend", "!"])
    'Hey friend!'
    """

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always",
                 split: bool = True):
        check_metaspace(replacement, prepend_scheme)
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        drop_first = self.prepend_scheme != "never"
        return [token.replace(self.replacement, "" if i == 0 and drop_first else " ")
                for i, token in enumerate(tokens)]

    def to_config(self) -> dict:
        return {"type": "Metaspace", "replacement": self.replacement,
                "prepend_scheme": self.prepend_scheme, "split": self.split}

    def __repr__(self) -> str:
        return (f"MetaspaceDecoder(replacement={self.replacement!r}, "
                f"prepend_scheme={self.prepend_scheme!r})")


class ReplaceDecoder(ChainDecoder):
    """Replace a pattern by ``content`` in each token (HF ``decoders.Replace``).

    >>> ReplaceDecoder("▁", " ").decode(["▁a", "▁b"])
    ' a b'
    """

    def __init__(self, pattern: str, content: str, *, regex: bool = False):
        self.matcher = Matcher(pattern, regex=regex, field="Replace decoder pattern")
        self.content = content

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        tokens = list(tokens)
        pieces = [self.matcher.pieces(token) for token in tokens]
        grown = sum(len(self.content) if is_match else e - s
                    for found in pieces for s, e, is_match in found)
        check_growth(grown, sum(map(len, tokens)), self, kind="decoder")  # before building
        return ["".join(self.content if is_match else token[s:e] for s, e, is_match in found)
                for token, found in zip(tokens, pieces, strict=True)]

    def to_config(self) -> dict:
        return {"type": "Replace", "pattern": self.matcher.to_config(), "content": self.content}

    def __repr__(self) -> str:
        return f"ReplaceDecoder({self.matcher!r}, content={self.content!r})"


class StripDecoder(ChainDecoder):
    """Remove up to ``start`` leading and ``stop`` trailing ``content`` characters per token.

    >>> StripDecoder(" ", 1, 0).decode([" a", "  b"])
    'a b'
    """

    def __init__(self, content: str = " ", start: int = 0, stop: int = 0):
        if len(content) != 1:
            raise ValueError(f"Strip's content is one character, got {content!r}")
        self.content, self.start, self.stop = content, start, stop

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        return [self._strip(token) for token in tokens]

    def _strip(self, token: str) -> str:
        lead = 0
        while lead < min(self.start, len(token)) and token[lead] == self.content:
            lead += 1
        end = len(token)
        while len(token) - end < self.stop and end > lead and token[end - 1] == self.content:
            end -= 1
        return token[lead:end]

    def to_config(self) -> dict:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}

    def __repr__(self) -> str:
        return f"StripDecoder({self.content!r}, start={self.start}, stop={self.stop})"


class DecoderSequence(ChainDecoder):
    """Run several decoders' ``decode_chain`` in order, then join (HF ``decoders.Sequence``)."""

    def __init__(self, decoders):
        self.decoders = list(decoders)
        for decoder in self.decoders:
            if not hasattr(decoder, "decode_chain"):
                raise TypeError(f"{type(decoder).__name__} has no decode_chain: it cannot "
                                "be part of a decoder Sequence")

    def __getitem__(self, index: int):
        """The decoder at ``index`` (HF's ``seq[0]``)."""
        return self.decoders[index]

    def decode_chain(self, tokens: Iterable[str]) -> list[str]:
        out = list(tokens)
        given = sum(map(len, out))
        for decoder in self.decoders:
            out = decoder.decode_chain(out)
            check_growth(sum(map(len, out)), given, decoder, kind="decoder")
        return out

    def to_config(self) -> dict:
        return {"type": "Sequence", "decoders": [d.to_config() for d in self.decoders]}

    def __repr__(self) -> str:
        return f"DecoderSequence({self.decoders!r})"


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
