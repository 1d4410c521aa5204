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
        _check_encodable(self.tokens)

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
        """Write ``vocab.txt`` atomically; a token it cannot hold is refused first."""
        atomic_write_text(path, vocab_txt_text(self.tokens))

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


def _check_encodable(tokens: list[str]) -> None:
    """Refuse a token no UTF-8 file can hold (a lone surrogate, ``"\\ud800"``), naming it.

    Checked where a vocabulary is made, not when it is saved: such a token loaded, then
    ``save`` raised ``UnicodeEncodeError``. One join and encode for the whole list.
    """
    try:
        "".join(tokens).encode("utf-8")
    except TypeError:  # a token that is not a str: the model's checks say so
        return
    except UnicodeEncodeError:
        for id_, tok in enumerate(tokens):
            try:
                tok.encode("utf-8")
            except UnicodeEncodeError:
                raise VocabError(f"token {tok[:80]!r} (id {id_}) holds a lone surrogate "
                                 "(U+D800..U+DFFF without its pair): no UTF-8 file can hold "
                                 "it") from None


# What HF's ``WordPiece.read_file`` trims from the end of a line (Rust's
# ``char::is_whitespace``, the Unicode White_Space property).
LINE_END_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                  "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def parse_vocab_lines(raw: bytes, source: str = "<vocab>") -> list[str]:
    """Split the bytes of a vocab.txt into tokens, naming the line of any problem.

    Read as Hugging Face's ``WordPiece.read_file`` reads it, so that the ids are the
    references': lines end at ``\n``; whitespace at the end of a line is not part of
    the token (HF trims it, BERT strips it; a ``\r`` of Windows line ends goes with
    it), except on a line of whitespace only, which is that token (as transformers
    reads it); a byte-order mark stays part of the first token (BERT, HF and
    transformers all keep it); one blank last line is the empty token, as in all three. Stricter
    than they are: duplicates, an empty line inside the file, bytes that are not UTF-8
    and line ends of a lone ``\r`` (the whole file one token) are errors, since they
    would silently give other ids than the model's.
    """
    if b"\r" in raw and b"\n" not in raw:
        raise VocabError(f"{source}: its lines end with a carriage return only (old Mac line "
                         "ends): BERT and Hugging Face end lines at \\n, so they would read one "
                         "token; convert the line ends to \\n (or \\r\\n)")
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline
    tokens: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        tok = _token_of_line(_decoded(line, source, number))
        if tok == "" and number < len(lines):
            raise VocabError(f"{source}:{number}: empty line inside the vocabulary")
        if tok in seen:
            raise VocabError(f"{source}:{number}: duplicate token {tok!r} "
                             f"(first seen on line {seen[tok]})")
        seen[tok] = number
        tokens.append(tok)
    if not tokens or tokens == [""]:
        raise VocabError(f"{source}: the vocabulary is empty")
    return tokens


def _token_of_line(line: str) -> str:
    """The token a decoded line holds: trailing whitespace trimmed, unless that is all.

    A line of whitespace only (bert-base-chinese has U+2028 at id 343) is that token, as
    transformers reads it and HF's tokenizer.json holds it (HF's read_file would give '').
    """
    line = line[:-1] if line.endswith("\r") else line
    return line.rstrip(LINE_END_SPACE) or line


def _decoded(line: bytes, source: str, number: int) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VocabError(f"{source}:{number}: not valid UTF-8 ({e.reason} at byte "
                         f"{e.start})") from None


def vocab_txt_text(tokens: Iterable[str]) -> str:
    """Return the text of a ``vocab.txt`` holding ``tokens``, refusing what cannot be read back.

    A token that BERT, Hugging Face or this reader would read as another token, or as
    two lines, is a ``VocabError`` naming it and its id, raised before anything is
    written: one with a line break (every later id would shift), whitespace at either
    end of other characters (stripped by the readers), or empty anywhere but last (an
    empty line inside). A token of whitespace only (U+2028 in bert-base-chinese) is
    written: this reader and transformers read it back as it was.
    """
    tokens = list(tokens)
    for id_, tok in enumerate(tokens):
        problem = _unwritable(tok, last=id_ == len(tokens) - 1)
        if problem:
            raise VocabError(f"cannot write token {tok!r} (id {id_}) to vocab.txt: {problem}; "
                             "vocab.txt holds one token per line (tokenizer.json can hold it)")
    return "".join(tok + "\n" for tok in tokens)


def _unwritable(tok: str, last: bool) -> str | None:
    if "\n" in tok or "\r" in tok:
        return "it holds a line break"
    if tok == "" and not last:
        return "an empty token would be an empty line inside the file"
    # A token of whitespace only is kept as is, but only when this reader (Unicode
    # White_Space, as HF) reads its line back whole: Python's isspace counts more (\x1c).
    if (tok.strip() and tok != tok.strip()) or _token_of_line(tok) != tok:
        return "BERT and Hugging Face strip whitespace at the ends of a line"
    return None
