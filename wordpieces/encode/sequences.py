"""Encode one input sequence (no special tokens yet): the word encoder plus added tokens.

``SequenceEncoder`` turns texts into per-sequence ``Encoding`` objects (or id lists),
which ``Tokenizer`` then truncates, wraps in special tokens and pads. Texts go through
the hot path (``fast.backend.make_word_encoder``: the native extension when built, else
``fast.word_encoder.WordEncoder``), in batches so that the native backend can use its threads.
Only texts that contain a literal added token (``[MASK]`` written in the text, for the
``huggingface`` flavor; a token the user added, in every flavor) take the slower
segment-by-segment path, which reproduces HF's AddedVocabulary: raw added tokens are
cut out of the original text, the rest is normalized, normalized added tokens are cut
out of that, and the remainder is split into words.

Not handled here: truncation, special tokens, padding (``tokenizer``, ``processors``).
"""

from __future__ import annotations

from typing import cast

from ..encoding.encoding import Encoding
from ..encoding.lazy_encoding import Layout, LazyEncoding, lazy_encodings
from ..fast.backend import ColumnTokens, make_word_encoder, texts_with_chars
from ..pipeline.added_tokens import AddedVocabulary
from ..pipeline.normalizers import NormalizedString
from ..pipeline.pre_tokenizers import split_pieces

# Up to this many texts, ``_candidates`` scans in Python (the single-text call's case).
_FEW_TEXTS = 4

# ``make_lazy(raws, layout)``: one fresh LazyEncoding per raw tokens, all in ``layout``;
# in one C call when the extension is built (``Row.lazy_encodings``, any raw tokens),
# else ``lazy_encodings``, its reference.
if ColumnTokens is None:
    make_lazy = lazy_encodings
else:
    def make_lazy(raws: list, layout: Layout, _many=ColumnTokens.lazy_encodings
                  ) -> list[Encoding]:
        return _many(LazyEncoding, raws, layout)


class TokenAccumulator:
    """Accumulate the tokens of one text segment by segment, numbering words across them."""

    __slots__ = ("ids", "offsets", "word_ids", "surfaces")

    def __init__(self, ids=None, offsets=None, word_ids=None):
        self.ids: list[int] = [] if ids is None else ids
        self.offsets: list[tuple[int, int]] = [] if offsets is None else offsets
        self.word_ids: list[int] = [] if word_ids is None else word_ids
        self.surfaces: dict[int, str] = {}  # position -> matched text of an added token

    def add_token(self, id_: int, span: tuple[int, int], surface: str) -> None:
        """Append one added token as a word of its own."""
        self.surfaces[len(self.ids)] = surface
        self.word_ids.append(self.word_ids[-1] + 1 if self.word_ids else 0)
        self.ids.append(id_)
        self.offsets.append(span)

    def extend(self, more: TokenAccumulator, shift: int) -> None:
        """Append ``more`` (offsets moved by ``shift``, words numbered after ours)."""
        first_word = self.word_ids[-1] + 1 if self.word_ids else 0
        base = len(self.ids)
        self.surfaces.update((base + k, v) for k, v in more.surfaces.items())
        self.ids.extend(more.ids)
        self.offsets.extend([(s + shift, e + shift) for s, e in more.offsets])
        self.word_ids.extend(w + first_word for w in more.word_ids)


def check_text(text) -> str:
    """Return ``text`` if it is a str, else raise a TypeError naming what it is."""
    if not isinstance(text, str):
        raise TypeError(f"expected a str to encode, got {type(text).__name__}: {text!r:.80}")
    return text


class SequenceEncoder:
    """Encode texts into per-sequence encodings: ids, tokens, offsets, word ids.

    ``added`` holds every added token (lookups: ids, which are special); ``matched``
    those of them kept whole where the text holds them (all of them for the
    ``huggingface`` flavor, as HF; for ``bert`` and ``tensorflow`` those the user added,
    ``Tokenizer._matches``). ``id_tokens`` maps every id to its token.
    """

    def __init__(self, normalizer, pre_tokenizer, model, added: AddedVocabulary, *,
                 matched: AddedVocabulary, id_tokens: list[str | None]):
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.model = model
        self.added = added
        self.matched = matched
        self.match = len(matched) > 0
        self.id_tokens = id_tokens
        self._word_encoder = None
        # the engine's compiled one-text calls for this pipeline (``engine.run``)
        self.one_text_calls: dict = {}

    @property
    def word_encoder(self):
        """The hot-path encoder, built on first use (cheap pickles, fast loads)."""
        encoder = self._word_encoder
        if encoder is None:
            encoder = make_word_encoder(self.normalizer, self.pre_tokenizer, self.model)
            self._word_encoder = encoder
        return encoder

    # ------------------------------------------------------------ batches

    def encodings(self, texts: list[str], type_ids: list[int],
                  num_threads: int | None = None, layout: Layout | None = None
                  ) -> list[Encoding]:
        """One ``Encoding`` per text (type ids as given), without special tokens.

        Texts without added tokens give ``LazyEncoding``s: their lists are built when
        first read. With a ``layout`` (the post-processor's, for single texts) those
        come out finished, special tokens included; the others never do.
        """
        if len(set(type_ids)) == 1:  # the common case, one layout for the batch
            type_id = type_ids[0]
            return self.encodings_in(texts, layout or Layout(self.id_tokens, type_id), type_id,
                                     num_threads)[0]
        slow = self._slow(texts, num_threads)
        fast = self.word_encoder.encode_batch_raw(
            [t for i, t in enumerate(texts) if i not in slow] if slow else texts, num_threads)
        layouts = {t: layout or Layout(self.id_tokens, t) for t in set(type_ids)}
        done = iter(fast)
        out: list[Encoding] = []
        for i, (text, type_id) in enumerate(zip(texts, type_ids, strict=True)):
            if i in slow:
                out.append(self._eager(self.tokens_of(text), type_id))
            else:
                out.append(LazyEncoding(next(done), layouts[type_id]))
        return out

    def encodings_in(self, texts: list[str], layout: Layout, type_id: int = 0,
                     num_threads: int | None = None) -> tuple[list[Encoding], set[int]]:
        """``encodings(texts, [type_id] * len(texts), num_threads, layout)``, and the
        indices of the eager encodings in it (the texts holding an added token).

        The lazy encodings are made in one call (``make_lazy``).
        """
        slow = self._slow(texts, num_threads)
        if not slow:
            return make_lazy(self.word_encoder.encode_batch_raw(texts, num_threads), layout), slow
        fast = iter(self.word_encoder.encode_batch_raw(
            [t for i, t in enumerate(texts) if i not in slow], num_threads))
        return [self._eager(self.tokens_of(text), type_id) if i in slow
                else LazyEncoding(next(fast), layout) for i, text in enumerate(texts)], slow

    def _eager(self, acc: TokenAccumulator, type_id: int) -> Encoding:
        """The encoding of a text with added tokens (named by their text, as HF does)."""
        names = list(map(self.id_tokens.__getitem__, acc.ids))
        for position, surface in acc.surfaces.items():
            names[position] = surface
        # Every id here names a token (no holes), and word ids are ints: the casts say so.
        return Encoding.build(acc.ids, cast("list[str]", names), acc.offsets,
                              cast("list[int | None]", acc.word_ids), type_id)

    def ids(self, texts: list[str], num_threads: int | None = None) -> list[list[int]]:
        """The ids of each text, without special tokens (no offsets are built)."""
        slow = self._slow(texts, num_threads)
        done = iter(self.word_encoder.encode_batch_ids(
            [t for i, t in enumerate(texts) if i not in slow], num_threads))
        return [self.tokens_of(text).ids if i in slow else next(done)
                for i, text in enumerate(texts)]

    def needs_added_matching(self, texts: list[str], num_threads: int | None = 1) -> bool:
        """Whether some of ``texts`` (all str) may hold a literal added token.

        One search over the whole batch; False means every text takes the word encoder
        alone (what ``batches`` needs to finish the batch in C).
        """
        return self.match and (self.matched.has_normalized
                               or bool(self._candidates(texts, num_threads)))

    def may_hold_added(self, text: str) -> bool:
        """``needs_added_matching`` for one text: one search, no scan set up."""
        return self.match and (self.matched.has_normalized or self.matched.appears_in(text))

    def _candidates(self, texts: list[str], num_threads: int | None = 1) -> range | list[int]:
        """Indices of the texts that may hold a ``normalized=False`` added token.

        Few texts hold the first character of one (``[`` for BERT's), and a scan for
        those in C is much cheaper than a search for the tokens over the whole batch.
        """
        chars = self.matched.first_chars
        if len(texts) <= _FEW_TEXTS:  # a call into C costs more than a few `in` tests
            return [i for i, text in enumerate(texts)
                    if any(c in text for c in chars) and self.matched.appears_in(text)]
        found = texts_with_chars(texts, chars, num_threads)
        if found is None:  # no extension (or many first characters): one regex search
            return range(len(texts)) if self.matched.appears_in_any(texts) else []
        return [i for i in found if self.matched.appears_in(texts[i])]

    def _slow(self, texts: list[str], num_threads: int | None = 1) -> set[int]:
        """Indices of the texts holding a literal added token (checked to be str)."""
        if not set(map(type, texts)) <= {str}:  # one pass in C; subclasses checked below
            for text in texts:
                check_text(text)
        if not self.match:
            return set()
        if self.matched.has_normalized:
            return {i for i, t in enumerate(texts) if self._has_added(t)}
        return {i for i in self._candidates(texts, num_threads) if self._has_added(texts[i])}

    def _has_added(self, text: str) -> bool:
        if self.matched.has_normalized:
            return True
        if not self.matched.appears_in(text):
            return False  # most texts: one regex search
        segments = self.matched.split(text)
        return len(segments) > 1 or segments[0][2] is not None

    # ------------------------------------------------------------ one text with added tokens

    def tokens_of(self, text: str) -> TokenAccumulator:
        """Encode ``text`` keeping added tokens whole, as HF's AddedVocabulary does."""
        acc = TokenAccumulator()
        for start, end, added_id in self.matched.split(text):
            if added_id is not None:
                acc.add_token(added_id, (start, end), text[start:end])
            elif self.matched.has_normalized or (start and self._position_matters):
                acc.extend(self._normalized_segment(text, start, end), 0)
            else:
                acc.extend(TokenAccumulator(*self.word_encoder.encode(text[start:end])), start)
        return acc

    @property
    def _position_matters(self) -> bool:
        """Whether the pre-tokenizer treats the start of the text apart (``uses_position``)."""
        return bool(getattr(self.pre_tokenizer, "uses_position", False))

    def _normalized_segment(self, text: str, start: int, end: int) -> TokenAccumulator:
        """Encode ``text[start:end]`` (free of raw added tokens), finding the normalized
        added tokens; offsets are into ``text``, so pre-tokenizers see where it stands."""
        part = text[start:end]
        ns = (self.normalizer.normalize(part) if self.normalizer is not None
              else NormalizedString.identity(part))
        aligned = tuple((a + start, b + start) for a, b in ns.alignments)
        acc = TokenAccumulator()
        for s, e, added_id in self.matched.split_normalized(ns.normalized):
            if added_id is not None:
                acc.add_token(added_id, (aligned[s][0], aligned[e - 1][1]), ns.normalized[s:e])
            else:
                sub = NormalizedString(text, ns.normalized[s:e], aligned[s:e])
                acc.extend(self._words_of(sub, whole=start == 0 and s == 0), 0)
        return acc

    def _words_of(self, ns: NormalizedString, whole: bool) -> TokenAccumulator:
        """Pre-tokenize and tokenize an already normalized string (the general path).

        ``whole``: ``ns`` starts the text (HF's Metaspace "first" prepends only there).
        """
        acc = TokenAccumulator()
        for index, word in enumerate(split_pieces(self.pre_tokenizer, ns, whole=whole)):
            for id_, a, b in self.model.pieces(word.normalized):
                acc.ids.append(id_)
                acc.offsets.append(word.span(a, b))
                acc.word_ids.append(index)
        return acc
