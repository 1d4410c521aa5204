"""Encode pre-tokenized input (lists of words), as ``transformers``' ``is_split_into_words``.

Each word goes through the whole pipeline on its own (it may still split, ``"world!"``
into ``world`` and ``!``); its tokens get the word's index in the list as word id and
offsets into the word itself, as HF ``tokenizers`` gives them for pre-tokenized
sequences. The words of a sequence are then joined and finished (truncation, special
tokens, padding) by the same ``Finisher`` as text.

Not handled here: splitting text into words (the caller did), the batch dict
(``call``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..encoding.encoding import Encoding
from ..encoding.padding import PaddingParams, TruncationParams
from .encodings import encode_many
from .finishing import Finisher, pad_batch
from .sequences import SequenceEncoder

WordsItem = tuple[Sequence[str], "Sequence[str] | None"]  # (words, pair words or None)


_STR = frozenset({str})


def check_words(words, what: str, index: int | None = None) -> list[str]:
    """``words`` as a list of str; anything else is a ``TypeError`` naming the bad item.

    ``what`` names ``words`` in the error (``what[index]`` when an index is given).

    Lists and tuples of plain str are checked in one pass in C (``map(type, ...)``): a
    batch of pre-split words holds as many words as a text holds tokens.
    """
    kind = type(words)
    if (kind is list or kind is tuple) and _STR.issuperset(map(type, words)):
        return list(words)
    if index is not None:
        what = f"{what}[{index}]"
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise TypeError(f"{what} must be a list of words (str) with is_split_into_words=True, "
                        f"got {type(words).__name__}")
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise TypeError(f"{what}[{i}] must be a str with is_split_into_words=True, "
                            f"got {type(word).__name__}: {word!r:.60}")
    return list(words)


def encode_words(seq: SequenceEncoder, post_processor, items: list[WordsItem], *,
                 truncation: TruncationParams | None, padding: PaddingParams | None,
                 add_special_tokens: bool, num_threads: int | None = None) -> list[Encoding]:
    """Encode ``(words, pair_words)`` items and finish them as text would be."""
    if padding is not None:  # before any row is padded (each is, as it is finished)
        padding.check_rows(len(items))
    sequences = [seq for first, second in items for seq in (first, second) if seq is not None]
    flat_words = [word for seq in sequences for word in seq]
    encoded = iter(encode_many(seq, post_processor, flat_words, add_special_tokens=False,
                               truncation=None, padding=None, num_threads=num_threads))
    joined = iter([_join([next(encoded) for _ in seq]) for seq in sequences])
    finisher = Finisher(post_processor, add_special_tokens, truncation, padding)
    out = []
    for _first, second in items:
        enc = next(joined)
        pair = None if second is None else next(joined)
        if pair is not None:
            pair.set_type_ids(1)
        out.append(finisher.encoding(enc, pair))
    pad_batch(out, padding)
    return out


def _join(words: list[Encoding]) -> Encoding:
    """One sequence of the encoded words, each token's word id the index of its word."""
    for index, enc in enumerate(words):
        enc.word_ids = [index] * len(enc)
    return Encoding.join(words)
