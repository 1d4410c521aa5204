"""Hold a token <-> id mapping and read and write it as ``vocab.txt``.

``vocab.txt`` is one token per line, the id being the line number (from 0), UTF-8.
Reading is strict: a bad file is reported with its path and line number rather than
silently producing different ids than the model was trained with.

Not handled here: special-token semantics (see ``processors``) and the JSON formats
(see ``formats.tokenizer_json``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from .errors import VocabError
from .formats.atomic import atomic_write_text


class Vocab:
    """Map tokens to ids and back; ids are dense, 0 .. len-1.

    >>> v = Vocab(["[UNK]", "a", "##b"])
    >>> v["##b"], v.token(1), len(v)
    (2, 'a', 3)
    """

    __slots__ = ("tokens", "ids")

    def __init__(self, tokens: Iterable[str]):
        self.tokens: list[str] = list(tokens)
        self.ids: dict[str, int] = {}
        for i, tok in enumerate(self.tokens):
            if tok in self.ids:
                raise VocabError(f"duplicate token {tok!r} at ids {self.ids[tok]} and {i}")
            self.ids[tok] = i

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, int]) -> Vocab:
        """Build from ``{token: id}``; the ids must be exactly 0 .. len-1."""
        tokens: list[str | None] = [None] * len(mapping)
        for tok, i in mapping.items():
            if not isinstance(i, int) or not 0 <= i < len(mapping) or tokens[i] is not None:
                raise VocabError(f"vocabulary ids must be 0..{len(mapping) - 1}, each once: "
                                 f"bad id {i!r} for token {tok!r}")
            tokens[i] = tok
        return cls(tokens)  # type: ignore[arg-type]

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Vocab:
        """Read ``vocab.txt``, rejecting duplicates, inner empty lines and bad UTF-8."""
        with open(path, "rb") as f:
            raw = f.read()
        return cls(parse_vocab_lines(raw, str(path)))

    def save(self, path: str | os.PathLike) -> None:
        """Write ``vocab.txt`` atomically."""
        atomic_write_text(path, "".join(tok + "\n" for tok in self.tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        return token in self.ids

    def __getitem__(self, token: str) -> int:
        return self.ids[token]

    def __iter__(self):
        return iter(self.tokens)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.tokens == other.tokens

    def get(self, token: str, default: int | None = None) -> int | None:
        return self.ids.get(token, default)

    def token(self, id_: int) -> str:
        return self.tokens[id_]

    def as_dict(self) -> dict[str, int]:
        return dict(self.ids)


def parse_vocab_lines(raw: bytes, source: str = "<vocab>") -> list[str]:
    """Split the bytes of a vocab.txt into tokens, naming the line of any problem.

    Trailing ``\\r`` and a final newline are tolerated (files written on Windows, or
    with a trailing newline); a token keeps every other character, including inner
    spaces, since BERT vocabularies hold tokens such as ``[unused0]`` and the
    references (BERT's ``strip()``, HF's ``trim_end``) differ only on whitespace that
    no real vocabulary contains.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    tokens: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        try:
            tok = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise VocabError(f"{source}:{number}: not valid UTF-8 ({e.reason} at byte "
                             f"{e.start})") from None
        if tok == "":
            raise VocabError(f"{source}:{number}: empty line inside the vocabulary")
        if tok in seen:
            raise VocabError(f"{source}:{number}: duplicate token {tok!r} "
                             f"(first seen on line {seen[tok]})")
        seen[tok] = number
        tokens.append(tok)
    if not tokens:
        raise VocabError(f"{source}: the vocabulary is empty")
    return tokens
