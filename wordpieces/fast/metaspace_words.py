"""HF's ``Metaspace`` on the pure-Python fast path: its edit step, for ``word_encoder``.

``pipeline.metaspace_form`` reads a ``Metaspace`` as classes (``BEGIN``: the replacement,
and the space it writes as one, start a word) and an edit step (the replacement written
before a text's, or each earlier word's, first kept character). ``WordEncoder`` runs it
with the pieces here:

- ``MetaspaceText``: ``Metaspace`` alone, on the whole text. With ``split``, each
  whitespace character that is a *pure begin* (it normalizes to the replacement alone)
  starts a word, so a text is its ``str.split()`` chunks, each after one replacement
  (``R + chunk``, the replacement at the space's index) or, at the text's start, after
  the prefix (at the anchor) or none; the other whitespace characters make lone
  replacement words. Chunks are cached, so a line costs a split and a dict look-up per
  chunk, as on the other fused pipelines. ``split=False`` is one word per text.
- ``metaspace_split``: ``Metaspace`` after other members of a ``Sequence``: one of their
  (normalized) words given the prefix, for the word caches (the words regex already
  starts a word at each ``BEGIN``).
- ``FirstWord``: the ``first`` scheme after other members: only the word at the text's
  character 0 gets the prefix.

A text (or chunk) holding a *complex* character takes the staged general path. Offsets
follow HF: each normalized character is aligned to the original character it comes
from, the prefix to the anchor.

Not handled here: the pipelines that are not fused (``word_encoder.fast_forms``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..pipeline.metaspace_form import BEGIN, MetaspaceForm
from ..pipeline.models import Pieces
from ..pipeline.pre_tokenizers import SPACE, WORD

Encoded = tuple[list[int], list[tuple[int, int]], list[int]]  # ids, offsets, word ids
# A chunk's words: (id, start, end) per token, starts relative to the chunk, per word
Words = tuple[Pieces, ...]
CACHE_SIZE = 100_000
_NON_SPACE = re.compile(r"\S+")  # \s is str.isspace(), where str.split() cuts


class MetaspaceText:
    """``Metaspace`` alone after a fused normalizer: ``encode`` and ``encode_ids`` of a text.

    ``classes`` and ``word_map`` are the fused pipeline's per original character (class
    letter; word text, spaces written as the replacement: ``WordEncoder.char_facts``);
    ``split`` the model's; ``general(text)`` the staged path's ``(start, pieces)`` words;
    ``spaces`` every character ``str.split()`` cuts on; ``complex_class`` the class
    letter of a character needing the general path.
    """

    def __init__(self, form: MetaspaceForm, classes: Mapping[int, str],
                 word_map: Mapping[int, str], split: Callable[[str], Pieces],
                 general: Callable[[str], Iterable[tuple[int, Pieces]]],
                 spaces: Sequence[str], complex_class: str):
        self._rep, self._scheme = form.replacement, form.prepend_scheme
        self._split_words = form.split_words
        self._classes, self._word_map, self._split = classes, word_map, split
        self._general, self._complex = general, complex_class
        self._fold = _ascii_fold(classes, word_map)
        self._rep_re = re.compile(re.escape(self._rep))
        self._lone = split(self._rep)  # the word of one replacement: (id, 0, 1)
        pure = [ch for ch in spaces
                if classes[ord(ch)] == BEGIN and word_map[ord(ch)] == self._rep]
        false = [ch for ch in spaces if ch not in pure]
        self._false = re.compile("[" + "".join(map(re.escape, false)) + "]" if false else "(?!)")
        self._begin = " " if " " in pure else (pure[0] if pure else " ")
        self._spaced: dict[str, Words] = {}  # chunk -> words of R + chunk, R at -1
        self._spaced_ids: dict[str, tuple[int, ...]] = {}
        self._first: dict[str, Words] = {}  # chunk -> its words at the text's start
        self._first_ids: dict[str, tuple[int, ...]] = {}

    def encode(self, text: str) -> Encoded:
        """Ids, offsets into ``text`` and word index of each token."""
        if not self._split_words:
            return _flatten(self._text_words(text))
        if self._false.search(text):
            return _flatten(self._text_words(text))
        out: Encoded = ([], [], [])
        pos, lone, word = 0, self._lone, 0
        for m in _NON_SPACE.finditer(text):
            start, chunk = m.start(), m.group()
            if start:
                word = _add_lone(out, lone, pos, start - 1, word)
                word = _add(out, self._spaced.get(chunk) or self._new_spaced(chunk), start, word)
            else:
                word = _add(out, self._first.get(chunk) or self._new_first(chunk), 0, word)
            pos = start + len(chunk)
        _add_lone(out, lone, pos, len(text), word)
        return out

    def encode_ids(self, text: str) -> list[int]:
        """Only the ids: a dict look-up per chunk for most texts."""
        if not self._split_words:
            return [i for pieces in self._text_words(text) for i, _, _ in pieces]
        if self._false.search(text):
            return self.encode(text)[0]
        parts = text.split()
        if not parts:  # empty, or pure begins only: one replacement word each
            return [i for _ in text for i, _, _ in self._lone]
        if len(text) - sum(map(len, parts)) != len(parts) - 1:  # not single separators
            return self.encode(text)[0]
        first = parts[0]
        ids = list(self._first_ids.get(first) or self._new_first_ids(first))
        known, new = self._spaced_ids.get, self._new_spaced_ids
        for chunk in parts[1:]:
            ids += known(chunk) or new(chunk)
        return ids

    # ------------------------------------------------------------ chunks

    def _new_spaced_ids(self, chunk: str) -> tuple[int, ...]:
        fold = self._fold
        if fold and chunk.isascii() and chunk.isprintable():  # one word: R + chunk
            ids = tuple(i for i, _, _ in self._split(self._rep + fold(chunk)))
        else:
            ids = tuple(i for pieces in self._new_spaced(chunk) for i, _, _ in pieces)
        return _keep(self._spaced_ids, chunk, ids)

    def _new_spaced(self, chunk: str) -> Words:
        """The words of ``R + chunk`` (a pure begin before it), the replacement at -1."""
        fold = self._fold
        if fold and chunk.isascii() and chunk.isprintable():
            words: Words = (tuple((i, s - 1, e - 1)
                                  for i, s, e in self._split(self._rep + fold(chunk))),)
        elif self._complex in chunk.translate(self._classes):
            words = _shifted(self._general(self._begin + chunk), -1)
        else:
            words = self._stream(chunk, -1)
        return _keep(self._spaced, chunk, words)

    def _new_first_ids(self, chunk: str) -> tuple[int, ...]:
        if self._complex not in chunk.translate(self._classes) and self._lead(chunk) is not None:
            # after the prefix, the same text as after a space: the same ids
            ids = self._spaced_ids.get(chunk) or self._new_spaced_ids(chunk)
        else:
            ids = tuple(i for pieces in self._new_first(chunk) for i, _, _ in pieces)
        return _keep(self._first_ids, chunk, ids)

    def _new_first(self, chunk: str) -> Words:
        """The words of ``chunk`` starting the text: after the prefix, if it gets one."""
        return _keep(self._first, chunk, self._text_words(chunk))

    def _lead(self, text: str) -> int | None:
        """Where the prefix goes before ``text`` starting a text (its anchor), or None."""
        if self._scheme == "never":
            return None
        word_map = self._word_map
        anchor = next((i for i, ch in enumerate(text) if word_map[ord(ch)]), None)
        if anchor is None or word_map[ord(text[anchor])].startswith(self._rep):
            return None
        return anchor if self._scheme == "always" or anchor == 0 else None

    # ------------------------------------------------------------ any text

    def _text_words(self, text: str) -> Words:
        """The words of a whole text, through its characters' facts (or the general path);
        with ``split=False``, the one word of the text."""
        if self._complex in text.translate(self._classes):
            return _shifted(self._general(text), 0)  # the real Metaspace decides
        return self._stream(text, self._lead(text))

    def _stream(self, text: str, lead: int | None) -> Words:
        """The words of ``text`` (no complex character) with a replacement at ``lead``.

        Each normalized character is aligned to the original one it comes from (the
        prefix to ``lead``); a word starts at each replacement (``split``).
        """
        word_map = self._word_map
        forms = [word_map[cp] for cp in map(ord, text)]
        src = [i for i, form in enumerate(forms) for _ in form]
        norm = "".join(forms)
        if lead is not None:
            norm, src = self._rep + norm, [lead, *src]
        if not norm:
            return ()
        cuts = [0]
        if self._split_words:
            cuts += [m.start() for m in self._rep_re.finditer(norm, 1)]
        ends = [*cuts[1:], len(norm)]
        return tuple(tuple((i, src[a + s], src[a + e - 1] + 1)
                           for i, s, e in self._split(norm[a:b]))
                     for a, b in zip(cuts, ends, strict=True))


def metaspace_split(form: MetaspaceForm, split: Callable[[str], Pieces],
                    prefix: bool) -> Callable[[str], Pieces]:
    """``split`` of a normalized word after ``Metaspace`` edits it (after other members).

    ``prefix``: the replacement is written before the word (``always``) unless the word
    starts with it, aligned to its first character; offsets are into the word. (With
    ``split`` a word holds a replacement only first: ``BEGIN`` starts the words.)
    """
    rep = form.replacement
    if not prefix:
        return split

    def prefixed(word: str) -> Pieces:
        if not word or word.startswith(rep):
            return split(word)
        return tuple((i, max(s - 1, 0), max(e - 1, 1)) for i, s, e in split(rep + word))

    return prefixed


class FirstWord:
    """``Metaspace(prepend_scheme="first")`` after other members: the prefix on one word.

    ``plain(text)`` encodes a text with no prefix anywhere (``metaspace_split`` without
    it); the word starting at character 0, when that character is kept, is encoded again
    with it (``first_pieces(original word)``). A text holding a complex character takes
    ``general`` whole (a chunk's general path would see its first word as the text's).
    """

    def __init__(self, classes: Mapping[int, str], word_map: Mapping[int, str],
                 word_pattern: re.Pattern, plain: Callable[[str], Encoded],
                 first_pieces: Callable[[str], Pieces], general: Callable[[str], Encoded],
                 complex_class: str):
        self._classes, self._word_map, self._words = classes, word_map, word_pattern
        self._plain, self._first_pieces, self._general = plain, first_pieces, general
        self._complex = complex_class

    def encode_ids(self, text: str) -> list[int]:
        """Only the ids (``encode``'s)."""
        return self.encode(text)[0]

    def encode(self, text: str) -> Encoded:
        """Ids, offsets and word index of each token of ``text``."""
        classes = text.translate(self._classes)
        if self._complex in classes:
            return self._general(text)
        ids, offsets, word_ids = self._plain(text)
        if not text or classes[0] == SPACE or not self._word_map[ord(text[0])]:
            return ids, offsets, word_ids
        first = self._words.match(classes)
        assert first is not None  # a kept character at 0 starts a word
        pieces = self._first_pieces(text[:first.end()])
        n = next((k for k, w in enumerate(word_ids) if w), len(word_ids))
        ids[:n] = [i for i, _, _ in pieces]
        offsets[:n] = [(s, e) for _, s, e in pieces]
        word_ids[:n] = [0] * len(pieces)
        return ids, offsets, word_ids


def _ascii_fold(classes: Mapping[int, str], word_map: Mapping[int, str]
                ) -> Callable[[str], str] | None:
    """``str`` or ``str.lower`` when that is what the pipeline makes of every printable
    ASCII character but the space, each a word character (BERT's, HF's usual); else None."""
    printable = [chr(c) for c in range(0x21, 0x7F)]
    if any(classes[ord(c)] != WORD for c in printable):
        return None
    return next((fold for fold in (str, str.lower)
                 if all(word_map[ord(c)] == fold(c) for c in printable)), None)


def _keep(cache: dict, key: str, value):
    """Store ``value`` in a bounded cache (emptied when full); return it."""
    if len(cache) >= CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


def _shifted(words: Iterable[tuple[int, Pieces]], by: int) -> Words:
    """``(start, pieces)`` words as pieces with starts relative to the text, moved ``by``."""
    return tuple(tuple((i, start + s + by, start + e + by) for i, s, e in pieces)
                 for start, pieces in words)


def _add(out: Encoded, words: Words, at: int, word: int) -> int:
    """Append the tokens of ``words`` (relative to ``at``); return the next word index."""
    ids, offsets, word_ids = out
    for pieces in words:
        for i, s, e in pieces:
            ids.append(i)
            offsets.append((at + s, at + e))
            word_ids.append(word)
        word += 1
    return word


def _add_lone(out: Encoded, lone: Pieces, start: int, stop: int, word: int) -> int:
    """Append one replacement word per character index in ``[start, stop)``."""
    for at in range(start, stop):
        word = _add(out, (lone,), at, word)
    return word


def _flatten(words: Words) -> Encoded:
    out: Encoded = ([], [], [])
    _add(out, words, 0, 0)
    return out


__all__ = ["MetaspaceText", "FirstWord", "metaspace_split"]
