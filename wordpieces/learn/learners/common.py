"""Accept word counts in every form the learners take.

Not handled here: counting text (``counting``) or any learning algorithm.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Mapping


def ordered_pairs(counts) -> list[tuple[str, numbers.Real]]:
    """Return ``counts`` as a list of ``(word, count)`` pairs, validated.

    A mapping (dict, Counter, ``WordCounts``) comes out in canonical order, count
    descending then word, so that insertion order never changes a result; any other
    iterable of pairs keeps its order (TF's learner breaks some ties by it).
    """
    if isinstance(counts, (str, bytes)):
        raise TypeError("counts must be a WordCounts, a dict or (word, count) pairs, "
                        f"not a {type(counts).__name__}")
    if isinstance(counts, Mapping):
        pairs = [checked_word_count(i, item) for i, item in enumerate(counts.items())]
        return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))
    if not isinstance(counts, Iterable):
        raise TypeError("counts must be a WordCounts, a dict or (word, count) pairs, "
                        f"not a {type(counts).__name__}")
    return [checked_word_count(i, item) for i, item in enumerate(counts)]


def checked_word_count(index: int, item) -> tuple[str, numbers.Real]:
    """Unpack one ``(word, count)`` item, naming its position when it is wrong.

    The one check of a counts item, shared by ``WordCounts`` and the learners, so that
    every way in refuses the same items with the same message.
    """
    try:
        word, count = item
    except (TypeError, ValueError):
        raise TypeError(f"counts item {index} is {item!r}, not a (word, count) pair") from None
    if not isinstance(word, str):
        raise TypeError(f"counts item {index}: word {word!r} is not a str")
    if not isinstance(count, numbers.Real) or isinstance(count, bool):
        raise TypeError(f"counts item {index}: count {count!r} of {word!r} is not a number")
    return word, count


def checked_table(counts) -> Mapping | None:
    """``counts`` as a checked ``word -> count`` mapping read in place (None: not a mapping).

    No pair per word and no sorted copy: a learner whose result does not depend on the
    order reads the caller's mapping as it is (a ``WordCounts`` through its unordered
    view, checked when it was made). Items are checked as ``ordered_pairs`` checks them.
    """
    if not isinstance(counts, Mapping):
        return None
    unordered = getattr(counts, "unordered", None)
    if callable(unordered):
        return unordered()
    for index, item in enumerate(counts.items()):
        checked_word_count(index, item)
    return counts


class WordList:
    """Words and their counts as two parallel lists: no ``(word, count)`` tuple per word.

    A tuple per word costs 64 bytes, more than the word itself for most words. Iterating
    gives ``(word, count)`` pairs, made one at a time, so code written for a list of
    pairs reads it unchanged.
    """

    __slots__ = ("words", "counts")

    def __init__(self, words: list[str], counts: list[int]):
        self.words, self.counts = words, counts

    @classmethod
    def of(cls, pairs) -> WordList:
        """``pairs`` (a ``WordList`` or ``(word, count)`` pairs) as a ``WordList``."""
        if isinstance(pairs, WordList):
            return pairs
        pairs = pairs if isinstance(pairs, list) else list(pairs)
        return cls([word for word, _ in pairs], [count for _, count in pairs])

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return zip(self.words, self.counts, strict=True)

    def __len__(self) -> int:
        return len(self.words)


def integer_words(counts) -> WordList:
    """``integer_pairs(counts, canonical_order=False)`` as a ``WordList``.

    A mapping is read in place (``checked_table``): no pair per word, no sorted copy.
    """
    table = checked_table(counts)
    if table is None:
        return WordList.of(integer_pairs(counts, canonical_order=False))
    words = list(table)
    values = [table[word] for word in words]
    for word, count in zip(words, values, strict=True):
        if type(count) is not int:
            if not isinstance(count, numbers.Integral):
                raise TypeError(f"count {count!r} of {word!r} is not an integer")
            values = [int(value) for value in values]
            break
    return WordList(words, values)


def integer_pairs(counts, *, canonical_order: bool = True) -> list[tuple[str, int]]:
    """Like ``ordered_pairs`` but requiring integer counts (for exact score arithmetic).

    ``canonical_order=False``: a mapping keeps its own order (for learners whose result
    does not depend on it), and one of ``str -> int`` is taken in bulk, without sorting.
    """
    if not canonical_order and isinstance(counts, Mapping):
        # WordCounts and Counter hand out all their pairs in one call; a generic
        # Mapping's items() looks each word up again.
        most_common = getattr(counts, "most_common", None)
        items = most_common() if callable(most_common) else list(counts.items())
        if all(type(word) is str and type(count) is int for word, count in items):
            return items  # the checks below would pass: nothing to convert
    pairs = []
    for word, count in ordered_pairs(counts):
        if not isinstance(count, numbers.Integral):
            raise TypeError(f"count {count!r} of {word!r} is not an integer")
        pairs.append((word, int(count)))
    return pairs


def token_prefixes(tokens: set[str]) -> set[str]:
    """Every non-empty prefix of every token (where a longest match can still grow)."""
    return {token[:end] for token in tokens for end in range(1, len(token) + 1)}


def greedy_pieces(word: str, tables, start: int = 0) -> list[str] | None:
    """``word[start:]``'s longest-match-first pieces, continuations without their prefix.

    None: the word is ``[UNK]``. ``start`` > 0 splits the rest of a word (its first piece
    a continuation), as a learner re-splitting a word from one of its pieces does.

    ``tables``: (tokens, their prefixes) for the first piece, then for continuations. A
    match grows one character at a time while it is a prefix of some token, so an
    unknown stretch costs a probe or two, not one per possible length.
    """
    n, pieces = len(word), []
    while start < n:
        tokens, prefixes = tables[start > 0]
        if word[start:] in tokens:  # most words end with (or are) one whole token
            pieces.append(word[start:])
            return pieces
        best, end = 0, start + 1
        while end <= n and word[start:end] in prefixes:
            if word[start:end] in tokens:
                best = end
            end += 1
        if not best:
            return None
        pieces.append(word[start:best])
        start = best
    return pieces
