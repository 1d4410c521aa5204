"""Run normalizer, pre-tokenizer and model over a text fast: the pure-Python hot path.

``WordEncoder.encode(text)`` gives the same ids and offsets as running the stages one
after the other (``pre_tokenizer.split(normalizer.normalize(text))`` then the model on
each word), but for the BERT pipeline it never builds the normalized text: because every
BERT rule is a function of one character (``flavors``), each *original* character can be
given a class (space, isolated, word, or "complex"), the text translated into a string
of class letters and split by one regex at C speed. Each original word then maps, through
a bounded cache, straight to its ids and offsets. Texts holding a "complex" character
(one that expands into several classes, or whose case depends on its neighbours) take
the general path.

Not handled here: special tokens, pairs, padding (``tokenizer``, ``processors``).
"""

from __future__ import annotations

import functools
import re
from itertools import accumulate

from .lazy_encoding import IdTokens, ListTokens
from .normalizers import BertNormalizer, NormalizedString, Normalizer
from .pre_tokenizers import ISOLATE, SPACE, WORD, BertPreTokenizer, CharClasses, PreTokenizer

COMPLEX = "c"
CACHE_SIZE = 200_000
_WORDS_AND_ISOLATED = re.compile(ISOLATE + "|" + WORD + "+")
_NON_SPACE = re.compile(r"\S+")  # \s is str.isspace(), where str.split() cuts

Pieces = tuple[tuple[int, int, int], ...]  # (id, start, end), offsets relative to the word
Chunk = tuple[list[int], list[tuple[int, int]], list[int], int]  # ids, offsets, word ids, words


class WordEncoder:
    """Encode text to ids and original-text offsets, with a word cache.

    ``model`` is a ``models.WordPiece`` or ``models.WordLevel``. The normalizer and
    pre-tokenizer may be ``None`` (no normalization; the whole text is one word).
    """

    def __init__(self, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None,
                 model):
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self._cache: dict[str, Pieces] = {}
        self._fused = _is_fused_bert(normalizer, pre_tokenizer)
        if self._fused:
            self._classes = CharClasses(self._classify_original)
            self._word_map = CharClasses(self._word_char)
            self._chunks: dict[str, Chunk] = {}
            self._older_chunks: dict[str, Chunk] = {}
            self._false_spaces = self._false_space_pattern()

    # ------------------------------------------------------------ public

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        """Return ids, offsets into ``text`` and the index of the word of each token."""
        if not self._chunkable(text):
            return _collect(self._words(text))
        parts = text.split()
        entries = self.chunk_entries(parts)  # once for all three lists
        ids: list[int] = []
        for entry in entries:
            ids += entry[0]
        return ids, _chunk_offsets(text, parts, entries), _chunk_word_ids(entries)

    def encode_raw(self, text: str):
        """Return the tokens of ``text``: ids now, offsets and word ids when asked for.

        What ``lazy_encoding.LazyEncoding`` holds; the ids are what every caller reads.
        """
        if not self._fused or self._false_spaces.search(text):  # not _chunkable
            return ListTokens(*_collect(self._words(text)))
        return ChunkTokens(self, text, self._chunk_ids(text))

    def chunk_entries(self, parts: list[str]) -> list[Chunk]:
        """The cached tokens of each whitespace-free chunk (encoded if not cached)."""
        chunks, encode_chunk = self._chunks, self._chunk
        return [chunks.get(chunk) or encode_chunk(chunk) for chunk in parts]

    def encode_ids(self, text: str) -> list[int]:
        """Return only the ids (no offsets are built)."""
        if not self._chunkable(text):
            return [id_ for _, pieces in self._words(text) for id_, _, _ in pieces]
        return self._chunk_ids(text)

    def _chunk_ids(self, text: str) -> list[int]:
        ids: list[int] = []
        chunks, encode_chunk = self._chunks, self._chunk
        for chunk in text.split():
            ids += (chunks.get(chunk) or encode_chunk(chunk))[0]
        return ids

    # ------------------------------------------------------------ chunks

    def _chunkable(self, text: str) -> bool:
        """Tell whether ``str.split()`` cuts ``text`` only where the pipeline does."""
        return self._fused and not self._false_spaces.search(text)

    def _chunk(self, chunk: str) -> Chunk:
        """Encode one whitespace-free chunk (e.g. ``"world!"``) and cache the result."""
        result = self._older_chunks.get(chunk) or self._new_chunk(chunk)
        if len(self._chunks) >= CACHE_SIZE // 2:
            # Two generations, the cheap cousin of LRU: when the young one fills up it
            # becomes the old one, and chunks still in use move back on their next use.
            self._older_chunks, self._chunks = self._chunks, {}
        self._chunks[chunk] = result
        return result

    def _new_chunk(self, chunk: str) -> Chunk:
        if chunk.translate(self._classes).strip(WORD):  # punctuation, CJK...: several words
            ids, offsets, word_ids = _collect(self._words(chunk))
            return ids, offsets, word_ids, word_ids[-1] + 1 if word_ids else 0
        pieces = self._cache.get(chunk) or self._word_pieces(chunk)  # one word (most chunks)
        return ([i for i, _, _ in pieces], [(s, e) for _, s, e in pieces], [0] * len(pieces),
                1 if pieces else 0)

    def _false_space_pattern(self) -> re.Pattern:
        # Characters str.split() cuts on but the pipeline does not treat as spaces
        # (e.g. U+001C, which BERT deletes, gluing its neighbours).
        false = [ch for ch in _python_spaces() if self._classes[ord(ch)] != SPACE]
        return re.compile("[" + "".join(re.escape(ch) for ch in false) + "]" if false else "(?!)")

    # ------------------------------------------------------------ words

    def _words(self, text: str):
        """Yield (start in text, pieces) for each word of ``text``."""
        if self._fused:
            classes = text.translate(self._classes)
            if COMPLEX not in classes:
                cache = self._cache
                for m in _WORDS_AND_ISOLATED.finditer(classes):
                    s, e = m.span()
                    w = text[s:e]
                    pieces = cache.get(w) or self._word_pieces(w)
                    if pieces:
                        yield s, pieces
                return
        yield from self._general_words(text)

    def _word_pieces(self, word: str) -> Pieces:
        """Normalize one original word, tokenize it, map pieces to original offsets."""
        normalized = word.translate(self._word_map)
        if not normalized:
            pieces: Pieces = ()
        elif len(normalized) == len(word) and normalized.isascii() and word.isascii():
            pieces = self.model.pieces(normalized)
        else:
            ns = self.normalizer.normalize(word)
            inner = ns.normalized.strip(" ")
            shift = ns.normalized.index(inner[0]) if inner else 0
            pieces = tuple((i, *ns.span(shift + s, shift + e))
                           for i, s, e in self.model.pieces(inner))
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[word] = pieces
        return pieces

    def _general_words(self, text: str):
        ns = (self.normalizer.normalize(text) if self.normalizer
              else NormalizedString.identity(text))
        spans = self.pre_tokenizer.split(ns) if self.pre_tokenizer else [(0, len(ns.normalized))]
        for s, e in spans:
            if e <= s:
                continue
            pieces = self.model.pieces(ns.normalized[s:e])
            mapped = [(i, *ns.span(s + a, s + b)) for i, a, b in pieces]
            start = mapped[0][1]
            yield start, tuple((i, a - start, b - start) for i, a, b in mapped)

    # ------------------------------------------------------------ classes

    def _classify_original(self, ch: str) -> str:
        """Class of an original character, from what it normalizes to."""
        norm: BertNormalizer = self.normalizer  # type: ignore[assignment]
        if ch in norm.context_chars:
            return COMPLEX
        mapped = norm.mapped(ch)
        if not mapped:
            return WORD  # deleted: glues its neighbours into one word, as the references do
        classes = mapped.translate(self.pre_tokenizer.classes)  # type: ignore[union-attr]
        if set(classes) == {SPACE}:
            return SPACE
        inner = classes.strip(SPACE)
        # A lone word character is cut off only if spaced on both sides (a CJK char);
        # " x" (TF folds U+037A to " ι") starts a word that goes on.
        if len(inner) == 1 and (inner == ISOLATE or classes[0] == classes[-1] == SPACE):
            return ISOLATE
        if set(classes) == {WORD}:
            return WORD
        return COMPLEX

    def _word_char(self, ch: str) -> str:
        return self.normalizer.mapped(ch).strip(" ")  # type: ignore[union-attr]


@functools.cache
def _python_spaces() -> tuple[str, ...]:
    """Every character ``str.split()`` cuts on (computed once: it scans all code points)."""
    return tuple(ch for ch in map(chr, range(0x110000)) if ch.isspace())


class ChunkTokens(IdTokens):
    """Raw tokens of a chunkable text: its ids, and its chunks looked up again when asked.

    Only the ids are kept (fewer objects per text for the garbage collector to walk);
    offsets and word ids are put together from the chunk cache when first asked for.
    Methods as ``lazy_encoding.ListTokens``.
    """

    __slots__ = ("_encoder", "_text")

    def __init__(self, encoder: WordEncoder, text: str, ids: list[int]):
        self._ids, self._encoder, self._text = ids, encoder, text  # one per text: no super()

    def offsets(self, before: tuple = (), after: tuple = ()) -> list[tuple[int, int]]:
        parts = self._text.split()
        body = _chunk_offsets(self._text, parts, self._encoder.chunk_entries(parts))
        return [*before, *body, *after] if before or after else body

    def word_ids(self, before: tuple = (), after: tuple = ()) -> list[int | None]:
        body = _chunk_word_ids(self._encoder.chunk_entries(self._text.split()))
        return [*before, *body, *after] if before or after else body


def _chunk_offsets(text: str, parts: list[str], entries: list[Chunk]) -> list[tuple[int, int]]:
    """Offsets into ``text`` of the tokens of its chunks (``parts``, their ``entries``)."""
    return [(p + s, p + e) for p, entry in zip(_chunk_starts(text, parts), entries, strict=True)
            for s, e in entry[1]]


def _chunk_word_ids(entries: list[Chunk]) -> list[int]:
    """The word index in the text of each token of its chunks."""
    firsts = accumulate((entry[3] for entry in entries), initial=0)
    return [first + w for first, entry in zip(firsts, entries, strict=False) for w in entry[2]]


def _chunk_starts(text: str, parts: list[str]) -> list[int]:
    """Where each of ``text.split()``'s parts starts in ``text``."""
    body = text.lstrip()
    if " ".join(parts) != body.rstrip():  # not single spaces: look for each part
        return [m.start() for m in _NON_SPACE.finditer(text)]
    lead = len(text) - len(body)
    # single spaces between parts (most texts): their starts add up
    return [lead + i + before for i, before in enumerate(accumulate(map(len, parts),
                                                                    initial=0))][:len(parts)]


def _collect(words) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """Flatten (start, pieces) words into ids, absolute offsets and word indices."""
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    word_ids: list[int] = []
    for index, (start, pieces) in enumerate(words):
        for id_, s, e in pieces:
            ids.append(id_)
            offsets.append((start + s, start + e))
            word_ids.append(index)
    return ids, offsets, word_ids


def _is_fused_bert(normalizer, pre_tokenizer) -> bool:
    return (type(normalizer) is BertNormalizer and type(pre_tokenizer) is BertPreTokenizer
            and normalizer.flavor == pre_tokenizer.flavor)


# ---------------------------------------------------------------- words only (counting)

_SEP, _MARK = "\x00", "\ufffe"  # word boundary; "this text needs the general path"


def word_splitter(normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None):
    """Return ``words(text) -> list[str]``, the normalized words of a text, fast.

    Gives exactly ``[w for w, _ in pre_tokenizer.pre_tokenize(normalizer.normalize(text))]``
    (what vocabulary counting needs: no offsets, no model). For the BERT pipeline one
    ``str.translate`` writes each character's normalized form with a separator at word
    boundaries and one ``split`` cuts the words; a text holding a character that this
    table cannot express (see ``WordEncoder``'s "complex" class) takes the general path.
    """
    def general(text: str) -> list[str]:
        ns = normalizer.normalize(text) if normalizer else NormalizedString.identity(text)
        spans = pre_tokenizer.split(ns) if pre_tokenizer else [(0, len(ns.normalized))]
        return [ns.normalized[s:e] for s, e in spans if e > s]

    if not _is_fused_bert(normalizer, pre_tokenizer):
        return general
    classes = WordEncoder(normalizer, pre_tokenizer, None)._classes
    table = CharClasses(lambda ch: _word_form(classes[ord(ch)], normalizer.mapped(ch)))
    newline_splits = table[ord("\n")] == _SEP

    def words(text: str) -> list[str]:
        out = text.translate(table)
        if _MARK not in out:
            return [w for w in out.split(_SEP) if w]
        if newline_splits and "\n" in text:  # keep the slow path to the lines that need it
            return [w for line in text.split("\n") for w in words(line)]
        return general(text)

    return words


def _word_form(cls: str, mapped: str) -> str:
    """What one original character writes in ``word_splitter``'s translated text."""
    inner = mapped.strip(" ")
    if cls == COMPLEX or _SEP in mapped or _MARK in mapped:
        return _MARK
    if cls == SPACE:
        return _SEP
    if cls == ISOLATE and mapped in (inner, " " + inner + " "):
        return _SEP + inner + _SEP
    return mapped if cls == WORD else _MARK
