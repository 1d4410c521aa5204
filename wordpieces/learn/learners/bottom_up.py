"""Learn a WordPiece vocabulary bottom-up: merge adjacent pairs by count, likelihood or PMI.

Every word starts as characters, the first bare and the others behind the continuing
prefix (``w ##o ##r ##d``). Each step merges the adjacent pair ``(u, v)`` first in the
chosen criterion's order (``merge_scores``) into the token ``u + v`` without ``v``'s
prefix, everywhere, left to right. ``"count"`` (the default) scores the occurrences a
merge replaces, as BPE; ``"likelihood"`` scores the exact gain of the corpus's unigram
log-likelihood::

    gain = Δf(c(u), -m) + Δf(c(v), -m) + Δf(c(w), +m) - Δf(N, -m),
    Δf(c, d) = (c + d)·ln(c + d) - c·ln c

(``m`` the occurrences replaced, ``w = uv``, ``N`` the total token count; ``u = v`` or
``w`` an existing token combine their changes); ``"pmi"`` scores
``count(uv) / (count(u)·count(v))``. Likelihood scores within a relative 1e-12 tie;
ties go to the higher count, then to the smaller pair ``(u, v)`` as strings. The
vocabulary is the special tokens, the alphabet (sorted), then the merged tokens in
merge order (with ``drop_unused``, those WordPiece's greedy segmentation of the training
words uses).

How the merge loop stays exact and fast: ``merge_state``.

With ``score="count"`` or ``"likelihood"`` the same loop runs in C when the optional
extension is built (``native_merge``; ``merge_state.MergeState`` is its reference,
``WORDPIECES_BACKEND=python`` forces it), and so does ``drop_unused``'s segmentation
(``used_tokens`` is its reference).

Not handled here: counting words (``counting``); the scores' formulas and order
(``merge_scores``); the C loop (``native_merge``, ``native/``); tokenizing with the result
(``pipeline.models.WordPiece``).
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Iterable
from contextlib import contextmanager

from ..progress import ProgressOption, accepts_progress
from .common import WordList, greedy_pieces, integer_words, token_prefixes
from .merge_scores import DEFAULT_SCORE, scorer
from .merge_state import MergeState
from .native_merge import NATIVE_SCORES, NativeMergeState, native_merge_error, native_used_tokens
from .refine import refine_vocabulary

__all__ = ["learn_bottom_up", "merge_state", "used_tokens"]


@accepts_progress  # progress= takes what train() takes
def learn_bottom_up(counts, vocab_size: int, *, special_tokens: Iterable[str] = ("[UNK]",),
                    min_frequency: int = 0, limit_alphabet: int | None = None,
                    initial_alphabet: Iterable[str] = (), continuing_subword_prefix: str = "##",
                    score: str = DEFAULT_SCORE, drop_unused: bool | None = None,
                    refine: bool = False, progress: ProgressOption = None) -> list[str]:
    """Learn up to ``vocab_size`` tokens by merging the pairs first in ``score``'s order.

    ``counts``: a ``WordCounts``, a dict or ``(word, count)`` pairs (integer counts).
    ``score``: ``"count"`` (the default: the occurrences the merge replaces, i.e. the
    tokens it saves, as BPE; it gave the best held-out vocabularies,
    ``benchmarks/learn_quality.py``), ``"likelihood"`` (the gain of the corpus's unigram
    log-likelihood,
    ``Δf(c(u), -m) + Δf(c(v), -m) + Δf(c(w), +m) - Δf(N, -m)`` with
    ``Δf(c, d) = (c + d)·ln(c + d) - c·ln c``, ``m`` the occurrences the merge replaces
    left to right, ``N`` the total token count) or ``"pmi"``
    (``count(uv) / (count(u)·count(v))``, compared exactly).
    ``drop_unused``: leave out merged tokens that WordPiece's greedy longest-match
    segmentation of the training words never uses (steps like ``##ivi`` on the way to
    ``##ivity``), merging on until the vocabulary is full; ``None`` (the default): only
    with ``score="count"``, whose vocabularies it improves (``benchmarks/learn_quality.py``);
    the other scores keep every merge, in merge order.
    ``min_frequency``: pairs seen fewer times are never merged. ``limit_alphabet``: keep
    only the most frequent characters (those of ``initial_alphabet`` first); words with
    any other character are left out, since WordPiece would map them to the unknown token
    whole. Every character of ``initial_alphabet`` is in the vocabulary in both forms.
    The alphabet is never cut to fit ``vocab_size``.
    ``refine``: after merging, swap the tokens WordPiece's greedy segmentation of the
    training words gains least from for joins of adjacent greedy pieces that save more,
    same size, every character bare and, where a training word holds it after its first
    character, behind the prefix (HF's trainer's alphabet; ``refine.refine_vocabulary``);
    fewer tokens per word on held-out text
    (``benchmarks/learn_quality.py``), a few seconds more.

    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> learn_bottom_up(counts, 13, special_tokens=[], score="pmi")[7:]
    ['##gs', 'pu', 'hu', 'bu', 'hugs', 'hug']
    >>> learn_bottom_up(counts, 13, special_tokens=[], drop_unused=False)[7:]  # count
    ['##ug', '##un', 'hug', 'pun', 'hugs', 'pug']
    >>> learn_bottom_up(counts, 13, special_tokens=[])[7:]  # every word whole: ##ug unused
    ['hug', 'pun', 'hugs', 'pug', 'bun']
    >>> learn_bottom_up(counts, 13, special_tokens=[], score="likelihood")[7:]
    ['##ug', '##un', 'hug', 'pun', 'pug', 'bun']
    """
    criterion = scorer(score)
    if drop_unused is None:
        drop_unused = criterion.name == "count"
    specials = list(dict.fromkeys(special_tokens))
    words = integer_words(counts)  # in no set order: the result does not depend on it
    initial = list(initial_alphabet)  # read once: it may be an iterator
    chars = _alphabet_chars(words, limit_alphabet, initial)
    words = _usable(words, chars if limit_alphabet is not None else None)
    with _no_cycle_collection():
        state = merge_state(words, continuing_subword_prefix, initial, chars,
                            min_frequency=min_frequency, criterion=criterion)
        vocab = _learn(state, words, specials, vocab_size, continuing_subword_prefix,
                       drop_unused, progress)
        if refine:
            vocab = refine_vocabulary(words, vocab, specials, chars, continuing_subword_prefix,
                                      initial)
        return vocab


def merge_state(words, prefix: str, initial_alphabet, chars, *, min_frequency: int, criterion):
    """The merge loop for ``words``: in C for ``"count"`` and ``"likelihood"`` when it can."""
    if criterion.name in NATIVE_SCORES and not native_merge_error(words, criterion.name):
        return NativeMergeState(words, prefix, initial_alphabet, chars,
                                min_frequency=min_frequency, score=criterion.name)
    return MergeState(words, prefix, initial_alphabet, chars, min_frequency=min_frequency,
                      criterion=criterion)


@contextmanager
def _no_cycle_collection():
    """Pause the cyclic garbage collector while learning.

    The merge state holds millions of lists, sets and tuples and makes no reference
    cycles; the collector's full passes over them grew with each allocation, which made
    learning time grow faster than the word count (measured: 4x the words, 5x the time
    by "count" with the collector, 3.5x without).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _learn(state, words, specials: list[str], vocab_size: int, prefix: str, drop_unused: bool,
           progress) -> list[str]:
    """Merge until ``vocab_size`` (with ``drop_unused``: counting only tokens words use)."""
    base = list(dict.fromkeys([*specials, *state.alphabet()]))
    room = max(0, vocab_size - len(base))
    merged = _merge(state, set(base), room, [], len(base), vocab_size, progress)
    if not drop_unused:
        return base + merged
    find_used = used_tokens if native_merge_error(words) else native_used_tokens
    while True:
        used = find_used(words, set(base) | set(merged), prefix)
        kept = [t for t in merged if t in used]
        more = room - len(kept)
        if more <= 0:
            later = itertools.chain(kept[room:], _later_merges(state, set(base) | set(merged)))
            return base + _settle(kept[:room], later, set(base),
                                  lambda vocab: find_used(words, vocab, prefix))
        before = len(merged)
        # Ask for twice as many more as the share of used tokens so far suggests: longer
        # tokens shadow more as they come, and each pass re-segments every word.
        wanted = before + 2 * -(-more * before // max(1, len(kept)))
        merged = _merge(state, set(base) | set(merged), wanted, merged, len(base),
                        vocab_size, progress)
        if len(merged) == before:  # nothing left to merge
            return base + kept


def _settle(chosen: list[str], later, base: set[str], used_in) -> list[str]:
    """``chosen`` with every token used by the segmentation with ``base | chosen`` itself.

    Tokens used with more merges in the vocabulary can go unused once the list is cut to
    size (a longer token cut off changes how the words split). Those are dropped and
    their slots go to the ``later`` tokens, in merge order, until every token is used
    (dropping an unused token changes no segmentation). Usually the first check passes.
    """
    size = len(chosen)
    while True:
        used = used_in(base | set(chosen))
        if all(token in used for token in chosen):
            return chosen
        chosen = [token for token in chosen if token in used]
        chosen.extend(itertools.islice(later, size - len(chosen)))


def _later_merges(state, seen: set[str]):
    """Further merged tokens, new ones only, until nothing is left to merge."""
    while (token := state.merge_best()) is not None:
        if token not in seen:
            seen.add(token)
            yield token


def _merge(state, seen: set[str], until: int, merged: list[str], offset: int, total: int,
           progress) -> list[str]:
    """Merge on until ``merged`` holds ``until`` new tokens (or nothing is left)."""
    merged = list(merged)
    while len(merged) < until:
        token = state.merge_best()
        if token is None:
            break
        if token not in seen:
            seen.add(token)
            merged.append(token)
        if progress is not None:
            progress("merge", done=min(offset + len(merged), total), total=total, token=token)
    return merged


def used_tokens(words, vocab: set[str], prefix: str) -> set[str]:
    """Tokens the greedy longest-match-first segmentation of ``words`` uses (WordPiece's).

    A merged token that no word uses is an intermediate step shadowed by longer tokens:
    dropping it changes no training word's tokens and frees its slot. A word with a
    stretch no token matches (``[UNK]`` whole) uses none. The reference of
    ``native_merge.native_used_tokens``.
    """
    tails = {t[len(prefix):] for t in vocab if t.startswith(prefix)}
    tables = (vocab, token_prefixes(vocab)), (tails, token_prefixes(tails))
    used: set[str] = set()
    for word, _ in words:
        pieces = greedy_pieces(word, tables)
        if pieces is not None:
            used.update(pieces[0:1])
            used.update(prefix + piece for piece in pieces[1:])
    return used




def _usable(words: WordList, chars: set[str] | None) -> WordList:
    """The words with a count above 0 (and, given ``chars``, only those characters)."""
    if chars is None and all(words.words) and all(count > 0 for count in words.counts):
        return words  # the usual case: nothing to leave out, nothing to copy
    kept, counts = [], []
    for word, count in words:
        if word and count > 0 and (chars is None or all(ch in chars for ch in word)):
            kept.append(word)
            counts.append(count)
    return WordList(kept, counts)


def _alphabet_chars(words, limit: int | None, initial: list[str]) -> set[str]:
    """Characters kept: those of ``initial``, then the most frequent (count, then char)."""
    for ch in initial:
        if len(ch) != 1:
            raise ValueError(f"initial_alphabet holds {ch!r}: each item must be one character")
    if limit is None:  # every character: no need to rank them
        return set(initial).union("".join(w for w, c in words if c > 0))
    totals: dict[str, int] = {}
    for word, count in words:
        for ch in word:
            totals[ch] = totals.get(ch, 0) + count
    ranked = list(dict.fromkeys([*initial, *sorted(totals, key=lambda c: (-totals[c], c))]))
    return set(ranked if limit is None else ranked[:max(limit, len(initial))])
