"""Run normalizer, pre-tokenizer and model over a text fast: the pure-Python hot path.

``WordEncoder.encode(text)`` gives the same ids and offsets as running the stages one
after the other (``pre_tokenizer.split(normalizer.normalize(text))`` then the model on
each word), but for a *fused* pipeline it never builds the normalized text. A pipeline is
fused when its normalizer is a function of each character and its pre-tokenizer a
matter of character classes (``pipeline.char_forms``: BERT's pair, and HF's charwise
normalizers and class pre-tokenizers, alone or in sequences, with the edit stages that
read as characters: ``Strip``, a guarded multi-character ``Replace``; and ``Metaspace``,
whose edit step ``fast.metaspace_words`` runs): each *original*
character then has a class (space, isolated, one of the pre-tokenizer's run classes,
"glue" for a deleted one, or "complex"), the text is translated into a string of class
letters and split by one regex at C speed. Each original word then maps, through a
bounded cache, straight to its ids and offsets. Texts holding a "complex" character (one
that expands into several classes, that the normalizer treats with its neighbours, or a
``Replace`` guard) take the general path, as do pipelines that are not fused
(``why_general`` says why).

Not handled here: special tokens, pairs, padding (``tokenizer``, ``processors``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import cast

from ..encoding.lazy_encoding import ListTokens
from ..pipeline.char_forms import char_class_form, charwise_form, run_classes_of
from ..pipeline.metaspace_form import BEGIN, MetaspaceForm, metaspace_form
from ..pipeline.models import Model, Pieces
from ..pipeline.normalizers import (
    BertNormalizer,
    CharwiseNormalizer,
    NormalizedString,
    Normalizer,
)
from ..pipeline.pre_tokenizers import (
    ISOLATE,
    SPACE,
    WORD,
    BertPreTokenizer,
    CharClasses,
    CharClassPreTokenizer,
    PreTokenizer,
    split_pieces,
)
from .chunks import Chunk, ChunkTokens, Generations, chunk_offsets, chunk_word_ids, word_chunk
from .metaspace_words import FirstWord, MetaspaceText, metaspace_split

COMPLEX = "c"
GLUE = "g"  # deleted by the normalizer, in a pipeline of several run classes
CACHE_SIZE = 200_000
_WORDS_AND_ISOLATED = re.compile(ISOLATE + "|" + WORD + "+")
_ASCII_WORDS = re.compile(r"[0-9A-Za-z]+|[^0-9A-Za-z]")  # "(don't)" -> ( don ' t )



class WordEncoder:
    """Encode text to ids and original-text offsets, with a word cache.

    ``model`` is any ``models.Model`` (the fast path calls its ``split``, the general
    path its ``pieces``). The normalizer and pre-tokenizer may be ``None`` (no
    normalization; the whole text is one word).

    ``fused`` tells whether the pipeline reads as per-character facts (``fast_forms``;
    ``why_general`` names the stage when it does not). Only then does ``char_facts``
    answer, and only then can the native extension run the pipeline (``backend``).
    """

    def __init__(self, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None,
                 model: Model, *, prefix: bool = False):
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self._cache: dict[str, Pieces] = {}
        forms = fast_forms(normalizer, pre_tokenizer, prefix=prefix)
        self.prefix = ""  # a Prepend's text, written before each non-empty text
        self.metaspace: tuple[str, str, bool] | None = None  # MetaspaceForm.settings()
        self._text_encoder: MetaspaceText | FirstWord | None = None  # the text's encoder
        self.fused = not isinstance(forms, str)
        self.why_general = forms if isinstance(forms, str) else ""
        if not isinstance(forms, str):
            # Fused: the pipeline read through the contracts the per-character tables
            # are built from (pipeline.char_forms).
            self._charwise, self._pre_form = forms
            meta = self._pre_form if isinstance(self._pre_form, MetaspaceForm) else None
            self._space_as = meta.replacement if meta else " "  # Metaspace writes spaces so
            self.run_classes = run_classes_of(self._pre_form)
            self._pre_classes = self._pre_form.classes
            self._classes = original_classes(self._charwise, self._pre_form)
            self._word_pattern = _word_pattern(self.run_classes, bool(meta))
            self._word_map = CharClasses(self._word_char)
            self._reshaped = CharClasses(self._reshaped_char)
            # Ids alone for the hot loop (a tuple per chunk: little for the collector to
            # track), whole entries for texts whose offsets are read.
            self._chunk_ids_cache = Generations(CACHE_SIZE // 2)
            self._chunks = Generations(CACHE_SIZE // 2)
            self._false_spaces = self._false_space_pattern()
            self._ascii_fold, self._ascii_words = self._plain_ascii()
            # ASCII letters and digits make one word (one run class): a chunk of them is
            # one word without a look at the words regex
            self._alnum_fold = self._ascii_fold if self._one_word(
                "".join(self._classes[c] for c in range(0x21, 0x7F) if chr(c).isalnum())
            ) else None
            self._split: Callable[[str], Pieces] = model.split
            self.prefix = getattr(self._charwise, "prefix", "")
            # a word's own normalization (a Prepend's prefix is the text's, not a word's)
            self._normalize_word = getattr(self._charwise, "word_normalizer",
                                           self._charwise).normalize
            if any(self._classes[ord(ch)] == COMPLEX for ch in self.prefix):
                self.fused, self.prefix = False, ""
                self.why_general = ("normalizer Prepend: the prefix needs the general path "
                                    "(a context character)")
            if self.prefix:
                self._kept = CharClasses(lambda ch: "k" if self._charwise.mapped(ch) else "")
            if meta:
                self._metaspace(meta)

    # ------------------------------------------------------------ public

    def char_facts(self, cp: int) -> tuple[str, str]:
        """Return the class of original code point ``cp`` and the word text it becomes.

        The class is ``SPACE``, ``ISOLATE``, one of ``run_classes`` (``WORD`` first),
        ``GLUE`` (deleted, with several run classes) or ``COMPLEX`` (the character
        needs the general path: it expands into several classes, or its case depends
        on its neighbours); the word text is what the normalizer maps it to, outer
        spaces stripped. Only a fused pipeline has them (``fused``). This is the
        whole of what the native extension learns about a character
        (``_native/core/wp_chartable.h``), so the two backends cannot disagree.
        """
        if not self.fused:
            raise ValueError(f"char_facts needs a fused pipeline: {self.why_general}")
        return self._classes[cp], self._word_map[cp]

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        """Return ids, offsets into ``text`` and the index of the word of each token."""
        if self.prefix and text:
            return self._prefixed(text)
        if self._text_encoder:
            return self._text_encoder.encode(text)
        return self._encode_plain(text)

    def _encode_plain(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        if not self._chunkable(text):
            return _collect(self._words(text))
        parts = text.split()
        entries = self.chunk_entries(parts)  # once for all three lists
        ids: list[int] = []
        for entry in entries:
            ids += entry[0]
        return ids, chunk_offsets(text, parts, entries), chunk_word_ids(entries)

    def encode_raw(self, text: str):
        """Return the tokens of ``text``: ids now, offsets and word ids when asked for.

        What ``lazy_encoding.LazyEncoding`` holds; the ids are what every caller reads.
        """
        if (self.prefix and text) or self._text_encoder:
            return ListTokens(*self.encode(text))
        if not self.fused or self._false_spaces.search(text):  # not _chunkable
            return ListTokens(*_collect(self._words(text)))
        return ChunkTokens(self, text, self._chunk_ids(text))

    def chunk_entries(self, parts: list[str]) -> list[Chunk]:
        """The cached tokens of each whitespace-free chunk (encoded if not cached)."""
        known, encode_chunk = self._chunks.young.get, self._chunk
        return [known(chunk) or encode_chunk(chunk) for chunk in parts]

    def encode_ids(self, text: str) -> list[int]:
        """Return only the ids (no offsets are built)."""
        if self.prefix and text:
            if not self._prefix_applies(text):
                return [id_ for _, pieces in self._words(text) for id_, _, _ in pieces]
            text = self.prefix + text
        elif self._text_encoder:
            return self._text_encoder.encode_ids(text)
        if not self._chunkable(text):
            return [id_ for _, pieces in self._words(text) for id_, _, _ in pieces]
        return self._chunk_ids(text)

    def _prefixed(self, text: str) -> tuple[list[int], list[tuple[int, int]], list[int]]:
        """Encode ``prefix + text``, the prefix's offsets moved to its anchor.

        The anchor is the first character the normalizer keeps (``char_forms._prefix_of``:
        HF aligns the prefix to the first character of the text at its stage); a text
        it keeps nothing of gets no prefix. A text needing the general path takes it
        whole (the real normalizer prepends).
        """
        if not self._prefix_applies(text):
            return _collect(self._words(text))
        anchor = self._anchor(text)
        k = len(self.prefix)
        ids, offsets, word_ids = self._encode_plain(self.prefix + text)
        moved = [(s - k if s >= k else anchor, e - k if e > k else anchor + 1)
                 for s, e in offsets]
        return ids, moved, word_ids

    def _prefix_applies(self, text: str) -> bool:
        """Whether the fast path writes the prefix: ``text`` keeps a character and needs
        no general path (which runs the real normalizer, Prepend and all)."""
        return self._anchor(text) < len(text) and COMPLEX not in text.translate(self._classes)

    def _anchor(self, text: str) -> int:
        """The index of the first character of ``text`` the normalizer keeps."""
        kept = self._kept
        for i, ch in enumerate(text):
            if kept[ord(ch)]:
                return i
        return len(text)

    def _chunk_ids(self, text: str) -> list[int]:
        ids: list[int] = []
        known, encode_chunk = self._chunk_ids_cache.young.get, self._new_chunk_ids
        for chunk in text.split():
            ids += known(chunk) or encode_chunk(chunk)
        return ids

    def _new_chunk_ids(self, chunk: str) -> tuple[int, ...]:
        """The ids of a chunk missing from the young generation of the ids cache."""
        ids = self._chunk_ids_cache.old.get(chunk)
        if ids is None:
            fold = self._alnum_fold
            if fold and chunk.isascii() and chunk.isalnum():  # one ASCII word: most chunks
                pieces = self._split(fold(chunk))
                ids = (pieces[0][0],) if len(pieces) == 1 else tuple(i for i, _, _ in pieces)
            elif self._ascii_fold and chunk.isascii() and chunk.isprintable():
                ids = self._ascii_words_ids(chunk)
            else:
                ids = self._new_chunk(chunk)[0]  # the entry is kept only if offsets are read
        return self._chunk_ids_cache.keep(chunk, ids)

    def _ascii_words_ids(self, chunk: str) -> tuple[int, ...]:
        """The ids of a printable ASCII chunk of several words (``_ascii_words_chunk``)."""
        ids = []
        cache = self._cache
        for word in self._ascii_words.findall(chunk):
            for piece in cache.get(word) or self._word_pieces(word):
                ids.append(piece[0])
        return tuple(ids)

    # ------------------------------------------------------------ chunks

    def _chunkable(self, text: str) -> bool:
        """Tell whether ``str.split()`` cuts ``text`` only where the pipeline does."""
        return self.fused and not self._false_spaces.search(text)

    def _chunk(self, chunk: str) -> Chunk:
        """Encode one whitespace-free chunk (e.g. ``"world!"``) and cache the result."""
        return self._chunks.keep(chunk, self._chunks.old.get(chunk) or self._new_chunk(chunk))

    def _new_chunk(self, chunk: str) -> Chunk:
        if self._ascii_fold and chunk.isascii() and chunk.isprintable():
            if not (self._alnum_fold and chunk.isalnum()):  # "world!", "(don't)"
                return self._ascii_words_chunk(chunk)  # ASCII words are easy to find
            return word_chunk(self._split(self._ascii_fold(chunk)))
        elif not self._one_word(chunk.translate(self._classes)):  # punctuation, CJK...
            ids, offsets, word_ids = _collect(self._words(chunk))
            pieces = tuple((i, s, e) for i, (s, e) in zip(ids, offsets, strict=True))
            return tuple(ids), pieces, tuple(word_ids), word_ids[-1] + 1 if word_ids else 0
        return word_chunk(self._cache.get(chunk) or self._word_pieces(chunk))  # one word

    def _ascii_words_chunk(self, chunk: str) -> Chunk:
        """Encode a printable ASCII chunk of several words: letters and digits, or one sign."""
        ids: list[int] = []
        pieces: list[tuple[int, int, int]] = []
        word_ids: list[int] = []
        cache, start = self._cache, 0
        for index, word in enumerate(self._ascii_words.findall(chunk)):
            for i, s, e in cache.get(word) or self._word_pieces(word):
                ids.append(i)
                pieces.append((i, start + s, start + e))
                word_ids.append(index)
            start += len(word)
        return tuple(ids), tuple(pieces), tuple(word_ids), index + 1

    def _plain_ascii(self) -> tuple[Callable[[str], str] | None, re.Pattern]:
        """``(fold, words)``: what the pipeline does to printable ASCII, if that is plain.

        ``fold`` is ``str.lower`` or ``str`` when every printable ASCII character is
        normalized by it alone and is an isolate or of a run class (no space, nothing
        deleted or complex): true of every BERT flavor, lowercasing or not, and of most
        HF pipelines. Such chunks skip the class table (``_new_chunk``) and ``words``,
        one character class per class of the pipeline, finds their words (BERT's:
        ``[0-9A-Za-z]+|[!-/...]``). ``fold`` is None otherwise.
        """
        printable = [chr(c) for c in range(0x21, 0x7F)]
        groups: dict[str, list[str]] = {}
        for ch in printable:
            groups.setdefault(self._classes[ord(ch)], []).append(ch)
        if not set(groups) <= {ISOLATE, *self.run_classes}:
            return None, _ASCII_WORDS
        words = re.compile("|".join(
            "[" + "".join(map(re.escape, chars)) + "]" + ("" if cls == ISOLATE else "+")
            for cls, chars in groups.items()))
        space = self._classes[0x20]  # printable too: in a word where it is no space
        if space != SPACE and (space not in groups or self._word_char(" ") != " "):
            return None, _ASCII_WORDS
        for fold in (str, str.lower):
            if all(self._word_char(c) == fold(c) for c in printable):
                return fold, words
        return None, _ASCII_WORDS

    def _false_space_pattern(self) -> re.Pattern:
        # Characters str.split() cuts on but the pipeline does not treat as spaces
        # (e.g. U+001C, which BERT deletes, gluing its neighbours).
        false = [ch for ch in _python_spaces() if self._classes[ord(ch)] != SPACE]
        return re.compile("[" + "".join(re.escape(ch) for ch in false) + "]" if false else "(?!)")

    # ------------------------------------------------------------ words

    def _words(self, text: str):
        """Yield (start in text, pieces) for each word of ``text``."""
        if self.fused:
            classes = text.translate(self._classes)
            if COMPLEX not in classes:
                cache = self._cache
                for m in self._word_pattern.finditer(classes):
                    s, e = m.span()
                    w = text[s:e]
                    pieces = cache.get(w) or self._word_pieces(w)
                    if pieces:
                        yield s, pieces
                return
        yield from self._general_words(text)

    def _word_pieces(self, word: str) -> Pieces:
        """Normalize one original word, tokenize it, map pieces to original offsets."""
        pieces = self._pieces_of(word, self._split)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[word] = pieces
        return pieces

    def _pieces_of(self, word: str, split: Callable[[str], Pieces]) -> Pieces:
        """``_word_pieces`` with this ``split`` of the normalized word, not cached."""
        fold = self._ascii_fold
        if fold and word.isascii() and word.isprintable():
            return split(fold(word))
        if not (normalized := word.translate(self._word_map)):
            return ()
        if not word.translate(self._reshaped):  # each character gives one: same offsets
            return split(normalized)
        ns = self._normalize_word(word)
        shift, end = self._inner_span(ns.normalized)
        return tuple((i, *ns.span(shift + s, shift + e))
                     for i, s, e in split(ns.normalized[shift:end]))

    def _metaspace(self, meta: MetaspaceForm) -> None:
        """Run ``Metaspace``'s edit step (``fast.metaspace_words``): alone, the text's
        encoder; after other members, the word split (and the first word's prefix)."""
        self.metaspace = meta.settings()
        split = self.model.split
        if not meta.each_word:
            self._text_encoder = MetaspaceText(meta, self._classes, self._word_map, split,
                                               self._general_words, _python_spaces(), COMPLEX)
            return
        self._split = metaspace_split(meta, split, meta.prepend_scheme == "always")
        if meta.prepend_scheme == "first":
            first = metaspace_split(meta, split, True)
            self._text_encoder = FirstWord(
                self._classes, self._word_map, self._word_pattern, self._encode_plain,
                lambda word: self._pieces_of(word, first),
                lambda text: _collect(self._general_words(text)), COMPLEX)

    def _general_words(self, text: str):
        ns = (self.normalizer.normalize(text) if self.normalizer
              else NormalizedString.identity(text))
        for word in split_pieces(self.pre_tokenizer, ns):
            pieces = self.model.pieces(word.normalized)
            mapped = [(i, *word.span(a, b)) for i, a, b in pieces]
            start = mapped[0][1]
            yield start, tuple((i, a - start, b - start) for i, a, b in mapped)

    # ------------------------------------------------------------ classes

    def _word_char(self, ch: str) -> str:
        mapped = self._charwise.mapped(ch)
        start, end = self._inner_span(mapped)
        return mapped[start:end].replace(" ", self._space_as)  # Metaspace's replacement

    def _reshaped_char(self, ch: str) -> str:
        """``ch`` if it normalizes to anything but one (non-space) character, else ``""``."""
        mapped = self._charwise.mapped(ch)
        return "" if len(mapped) == 1 and self._pre_classes[ord(mapped)] != SPACE else ch

    def _inner_span(self, text: str) -> tuple[int, int]:
        """Where ``text`` starts and ends once its outer spaces (pre-tokenizer's) are cut."""
        classes = text.translate(self._pre_classes)
        if SPACE not in classes:
            return 0, len(text)
        start = len(classes) - len(classes.lstrip(SPACE))
        return start, max(start, len(classes.rstrip(SPACE)))

    def _one_word(self, classes: str) -> bool:
        """Whether a text of these classes (original characters) is at most one word."""
        if self.run_classes == WORD:
            return not classes.strip(WORD)
        core = classes.replace(GLUE, "")
        return not core or (core[0] in self.run_classes and not core.strip(core[0]))


def original_classes(normalizer: CharwiseNormalizer,
                     pre_tokenizer: CharClassPreTokenizer) -> CharClasses:
    """The class of each original character (code point -> class letter, filled on use)."""
    return CharClasses(functools.partial(
        _classify_original, normalizer, pre_tokenizer.classes, run_classes_of(pre_tokenizer),
        getattr(pre_tokenizer, "each_word", False)))  # Metaspace after other members


def _classify_original(norm: CharwiseNormalizer, pre_classes: Mapping[int, str],
                       runs: str, after: bool, ch: str) -> str:
    """Class of an original character, from what it normalizes to."""
    if ch in norm.context_chars:
        return COMPLEX
    mapped = norm.mapped(ch)
    if not mapped:
        # deleted: glues its neighbours into one word, as the references do (with one
        # run class, a word character does that; with several, GLUE joins the run
        # around it, whatever its class)
        return WORD if runs == WORD else GLUE
    classes = mapped.translate(pre_classes)
    if set(classes) == {SPACE}:
        return SPACE
    if BEGIN in classes:  # starts a word at each replacement its text holds (Metaspace):
        # alone, anywhere in it; after other members, the words' regex needs it first
        lone = classes[0] == BEGIN and not classes[1:].strip(WORD)
        return BEGIN if lone or (not after and not classes.strip(BEGIN + WORD)) else COMPLEX
    inner = classes.strip(SPACE)
    # A lone word character is cut off only if spaced on both sides (a CJK char);
    # " x" (TF folds U+037A to " ι") starts a word that goes on.
    if len(inner) == 1 and (inner == ISOLATE or classes[0] == classes[-1] == SPACE):
        return ISOLATE
    if len(set(classes)) == 1 and classes[0] in runs:
        return classes[0]
    return COMPLEX


def _word_pattern(runs: str, begins: bool = False) -> re.Pattern:
    """The regex finding words in a text's class letters: one isolate or one run
    (``begins``: of one run class, also starting at each ``BEGIN``)."""
    if runs == WORD:
        return re.compile(f"{ISOLATE}|{BEGIN}{WORD}*|{WORD}+") if begins else _WORDS_AND_ISOLATED
    return re.compile("|".join([ISOLATE, *(f"{r}(?:{GLUE}*{r})*" for r in runs)]))


def fast_forms(normalizer, pre_tokenizer, *, prefix: bool = False
               ) -> tuple[CharwiseNormalizer, CharClassPreTokenizer] | str:
    """The pipeline read through the fast path's contracts, or why it cannot be.

    ``(charwise normalizer, class pre-tokenizer)`` (``pipeline.char_forms``), or a
    string naming the stage that keeps the pipeline on the staged general path.
    """
    if pre_tokenizer is None:
        return "no pre-tokenizer (the whole text is one word)"
    meta = metaspace_form(pre_tokenizer)
    pre = char_class_form(pre_tokenizer) if meta is None else meta
    if isinstance(pre, str):
        return pre
    charwise = charwise_form(normalizer, pre.classes, prefix=prefix)  # edits need classes
    if isinstance(charwise, str):
        return charwise
    text_prefix: str = getattr(charwise, "prefix", "")
    if meta is not None and text_prefix:
        return "normalizer Prepend: with a Metaspace pre-tokenizer (two edit steps)"
    if (type(normalizer) is BertNormalizer and type(pre_tokenizer) is BertPreTokenizer
            and normalizer.flavor != pre_tokenizer.flavor):
        return (f"BertNormalizer of flavor {normalizer.flavor!r} with a BertPreTokenizer "
                f"of flavor {pre_tokenizer.flavor!r}")
    return charwise, pre


@functools.cache
def _python_spaces() -> tuple[str, ...]:
    """Every character ``str.split()`` cuts on (computed once: it scans all code points)."""
    return tuple(ch for ch in map(chr, range(0x110000)) if ch.isspace())


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
        return [word.normalized for word in split_pieces(pre_tokenizer, ns)]

    if not _is_fused_bert(normalizer, pre_tokenizer):
        return general
    charwise = cast(CharwiseNormalizer, normalizer)  # fused: an exact BertNormalizer
    classes = original_classes(charwise, cast(CharClassPreTokenizer, pre_tokenizer))
    table = CharClasses(lambda ch: _word_form(classes[ord(ch)], charwise.mapped(ch)))
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
