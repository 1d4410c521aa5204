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

Why it is fast: pair counts, the words holding each pair and symbol counts are updated
only for the words a merge touches, and the best pair comes from a heap of upper bounds
with lazy invalidation: an entry records the counts it was scored with. Each count moves
a score one way, which says what a change does to an entry:

- the pair's own count (``count(uv)``, ``m``) changes: the entry is dropped, the pair
  pushed afresh;
- ``c(u)`` or ``c(v)`` changes (u or v was merged, or is the new token): the symbol is
  "deferred" with the best score among its pairs as a bound, and its pairs are pushed
  again only when that bound reaches the top;
- ``c(w)`` grows (another merge made the same string): the score rises, so the pair is
  pushed afresh (pairs making a string are found by splitting it);
- ``c(w)`` shrinks, or ``N`` shrinks (every merge): the likelihood gain only falls, so
  the entry stays an upper bound; it is "stale", re-scored when it reaches the top.

So every live pair is bounded by an entry or a deferred bound; the top entry, once valid,
current and above every bound, is the best score, and everything within the tie window
of it is settled the same way before the tie is broken.

With ``score="count"`` the same loop runs in C when the optional extension is built
(``native_merge``; ``MergeState`` here is its reference, ``WORDPIECES_BACKEND=python``
forces it), and so does ``drop_unused``'s segmentation (``used_tokens`` is its reference).

Not handled here: counting words (``counting``); the scores' formulas and order
(``merge_scores``); the C loop (``native_merge``, ``native/``); tokenizing with the result
(``pipeline.models.WordPiece``).
"""

from __future__ import annotations

import gc
import heapq
import itertools
import math
from collections.abc import Iterable
from contextlib import contextmanager

from ..progress import ProgressOption, accepts_progress
from .common import WordList, integer_words
from .merge_scores import (
    DEFAULT_SCORE,
    Count,
    Pmi,
    likelihood_gain,
    likelihood_gain_of,
    scorer,
    xlogx_change,
)
from .native_merge import NativeCountState, native_merge_error, native_used_tokens

__all__ = ["learn_bottom_up", "merge_state", "used_tokens", "MergeState"]


@accepts_progress  # progress= takes what train() takes
def learn_bottom_up(counts, vocab_size: int, *, special_tokens: Iterable[str] = ("[UNK]",),
                    min_frequency: int = 0, limit_alphabet: int | None = None,
                    initial_alphabet: Iterable[str] = (), continuing_subword_prefix: str = "##",
                    score: str = DEFAULT_SCORE, drop_unused: bool | None = None,
                    progress: ProgressOption = None) -> list[str]:
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
        return _learn(state, words, specials, vocab_size, continuing_subword_prefix,
                      drop_unused, progress)


def merge_state(words, prefix: str, initial_alphabet, chars, *, min_frequency: int, criterion):
    """The merge loop for ``words``: in C for ``"count"`` when it can (``native_merge``)."""
    if criterion is Count and not native_merge_error(words):
        return NativeCountState(words, prefix, initial_alphabet, chars,
                                min_frequency=min_frequency)
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
    tables = (vocab, _prefixes(vocab)), (tails, _prefixes(tails))
    used: set[str] = set()
    for word, _ in words:
        pieces = _greedy_pieces(word, tables)
        if pieces is not None:
            used.update(pieces[0:1])
            used.update(prefix + piece for piece in pieces[1:])
    return used


def _prefixes(tokens: set[str]) -> set[str]:
    """Every non-empty prefix of every token (where a longest match can still grow)."""
    return {token[:end] for token in tokens for end in range(1, len(token) + 1)}


def _greedy_pieces(word: str, tables) -> list[str] | None:
    """``word``'s longest-match-first pieces, continuations without their prefix (None: [UNK]).

    ``tables``: (tokens, their prefixes) for the first piece, then for continuations. A
    match grows one character at a time while it is a prefix of some token, so an
    unknown stretch costs a probe or two, not one per possible length.
    """
    start, n, pieces = 0, len(word), []
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


class MergeState:
    """Words as symbol ids, with pair and symbol counts kept up to date across merges.

    Heap entries are ``(-score, -count, name_u, name_v, u, v, pair_count, count,
    count_u, count_v, count_w, total)``: the counts an entry was scored with.
    """

    def __init__(self, words, prefix: str, initial_alphabet, chars, *, min_frequency: int,
                 criterion=Pmi):
        self.prefix = prefix
        self.min_frequency = min_frequency
        self.criterion = criterion
        self.contextual = criterion.contextual
        self.replaced = criterion.replaced
        self.reads_symbols = criterion.reads_symbols
        words = WordList.of(words)
        firsts = {w[0] for w in words.words}
        rests = set("".join(w[1:] for w in words.words))
        initial = [f for ch in initial_alphabet if ch in chars for f in (ch, prefix + ch)]
        names = sorted({*firsts, *(prefix + ch for ch in rests), *initial})
        self.names: list[str] = names
        self.ids = {name: i for i, name in enumerate(names)}
        self.symbol_count = [0] * len(names)
        self.total = 0
        first_id = {ch: self.ids[ch] for ch in firsts}
        rest_id = {ch: self.ids[prefix + ch] for ch in rests}.__getitem__
        # ids straight from the characters: no "##x" string per character of every word
        self.words = [[first_id[w[0]], *map(rest_id, w[1:])] for w in words.words]
        self.word_count = words.counts
        self.pair_count: dict[tuple[int, int], int] = {}
        # pair -> the words that gained it, in order (a word may be listed twice, or no
        # longer hold the pair: merging skips those). A list, not a set: a quarter of
        # the memory, and most of the learner's memory is these lists.
        self.pair_words: dict[tuple[int, int], list[int]] = {}
        # symbol -> its live pairs, read when a deferred symbol's bound is reached: kept
        # only for scores that read symbol counts (empty for "count": memory)
        self.pairs_of: list[set[tuple[int, int]]] = [set() for _ in names]
        self.product: dict[tuple[int, int], int] = {}  # pair -> id of u+v, if a symbol
        self.self_merges: dict[int, int] = {}  # s -> occurrences a merge (s, s) replaces
        for index, symbols in enumerate(self.words):
            self._add_word(index, symbols)
        self.heap: list = []
        self.deferred: dict[int, int] = {}  # symbol -> version of its live bound entry
        self.deferred_heap: list[tuple[float, int, int]] = []
        self.version = 0
        self._push_all(self.pair_count)

    def alphabet(self) -> list[str]:
        """The initial symbols, sorted by code point (``##x`` before letters)."""
        return list(self.names)

    # ------------------------------------------------------------ counts

    def _add_word(self, index: int, symbols: list[int]) -> None:
        """Count one word's symbols, adjacent pairs and runs of one symbol."""
        count = self.word_count[index]
        for s in symbols:
            self.symbol_count[s] += count
        self.total += count * len(symbols)
        for pair in zip(symbols, symbols[1:], strict=False):
            self.pair_count[pair] = self.pair_count.get(pair, 0) + count
            self._link(pair, index)
        if self.replaced:
            for s in {u for u, v in zip(symbols, symbols[1:], strict=False) if u == v}:
                self.self_merges[s] = self.self_merges.get(s, 0) + count * _run_halves(symbols, s)

    def _link(self, pair, index: int) -> None:
        holders = self.pair_words.get(pair)
        if holders is None:
            holders = self.pair_words[pair] = []
            if self.reads_symbols:  # only deferred symbols read their pairs
                self.pairs_of[pair[0]].add(pair)
                self.pairs_of[pair[1]].add(pair)
            if self.contextual:
                product = self.ids.get(self.names[pair[0]] + self.names[pair[1]][len(self.prefix):])
                if product is not None:
                    self.product[pair] = product
        if not holders or holders[-1] != index:
            holders.append(index)

    def _unlink(self, pair) -> None:
        self.pair_count.pop(pair, None)
        del self.pair_words[pair]
        if self.reads_symbols:
            self.pairs_of[pair[0]].discard(pair)
            self.pairs_of[pair[1]].discard(pair)
        self.product.pop(pair, None)

    def _merged_count(self, pair, pc: int) -> int:
        """Occurrences merging ``pair`` replaces: its count, less overlaps of ``(s, s)``."""
        if pair[0] == pair[1] and self.replaced:
            return self.self_merges.get(pair[0], 0)
        return pc

    # ------------------------------------------------------------ scores

    def _entry(self, pair, pc: int):
        """A heap entry for ``pair`` scored with the current counts."""
        a, b = pair
        counts = self.symbol_count
        ca, cb = counts[a], counts[b]
        merged = self._merged_count(pair, pc)
        if not self.contextual:
            score = pc / (ca * cb) if self.reads_symbols else float(merged)
            return (-score, -merged, self.names[a], self.names[b], a, b, pc, merged, ca, cb,
                    0, 0)
        w = self.product.get(pair)
        score = self._gain(pair, merged, w)
        return (-score, -merged, self.names[a], self.names[b], a, b, pc, merged, ca, cb,
                0 if w is None else counts[w], self.total)

    def _gain(self, pair, merged: int, w: int | None) -> float:
        """The likelihood gain of merging ``pair`` (``merged`` occurrences) into ``w``."""
        a, b = pair
        counts, total = self.symbol_count, self.total
        if a != b and w != a and w != b:
            return likelihood_gain(merged, counts[a], counts[b], 0 if w is None else counts[w],
                                   total)
        change = dict.fromkeys((a, b), 0)
        change[a] -= merged
        change[b] -= merged
        changes = [(counts[s], d) for s, d in change.items() if d]
        if w is None:
            changes.append((0, merged))
        else:
            changes = [(counts[s], d) for s, d in
                       {**change, w: change.get(w, 0) + merged}.items() if d]
        return likelihood_gain_of(merged, changes, total)

    def _push_all(self, pairs) -> None:
        """Give each pair a heap entry recording its current counts."""
        heap, push, pair_count = self.heap, heapq.heappush, self.pair_count
        floor = max(1, self.min_frequency)
        for pair in pairs:
            pc = pair_count.get(pair, 0)
            if pc >= floor:
                push(heap, self._entry(pair, pc))

    def _valid(self, entry) -> bool:
        """Whether ``entry`` still bounds its pair's score from above.

        It does while the pair's own counts are those it was scored with and ``c(w)``
        has not grown (a grown ``c(w)`` raises the score; that pair got a fresh entry).
        A smaller ``c(w)`` or ``N`` only lowers the likelihood gain: such an entry is
        stale, still a bound, and is re-scored when it reaches the top.
        """
        a, b = entry[4], entry[5]
        counts = self.symbol_count
        if self.pair_count.get((a, b)) != entry[6] or (
                self.reads_symbols and (counts[a] != entry[8] or counts[b] != entry[9])):
            return False
        if not self.contextual:
            return self._merged_count((a, b), entry[6]) == entry[7]
        w = self.product.get((a, b))
        return (0 if w is None else counts[w]) <= entry[10] and (
            self._merged_count((a, b), entry[6]) == entry[7])

    def _stale(self, entry) -> bool:
        """Whether a valid entry was scored with another ``c(w)`` or ``N`` than now."""
        if not self.contextual:
            return False
        w = self.product.get((entry[4], entry[5]))
        return entry[11] != self.total or (0 if w is None else self.symbol_count[w]) != entry[10]

    def _defer(self, symbol: int) -> None:
        """Note that ``symbol``'s count changed: its pairs' entries are now stale.

        Rather than re-pushing them all, remember the best score among them now. It
        stays an upper bound until ``symbol``'s count changes again (then it is deferred
        again) or a pair count changes (then that pair is pushed afresh); a change of the
        other symbol's count defers that symbol, bounding the pair there; a grown
        ``c(w)`` gives the pair a fresh entry; ``N`` only shrinks, which only lowers
        likelihood gains.
        """
        self._push_above(symbol, None)

    def _set_bound(self, symbol: int, bound: float | None) -> None:
        if bound is not None:
            self.version += 1
            self.deferred[symbol] = self.version
            heapq.heappush(self.deferred_heap, (-bound, self.version, symbol))
        else:
            self.deferred.pop(symbol, None)

    def _push_above(self, symbol: int, cut: float | None) -> None:
        """Push the pairs of ``symbol`` scoring ``cut`` or more (None: none); defer the others.

        For the likelihood, a pair ``(s, x)`` or ``(x, s)`` whose ``w`` is not a token
        scores at most ``U(m) = Δf(c(s), -m) - Δf(N, -m)``: ``Δf(c(x), -m) + f(m) ≤ 0``
        since ``f`` is superadditive (likewise ``Δf(c(s) - m, -m) + f(m) ≤ 0`` when
        ``x = s``). ``U`` depends on ``m`` alone, so most pairs are bounded without
        being scored: a pair is scored only when ``U(m)`` could push it or raise the bound.
        """
        pair_count, heap, floor = self.pair_count, self.heap, max(1, self.min_frequency)
        bound = None
        contextual, product, counts = self.contextual, self.product, self.symbol_count
        if contextual:
            own, total, self_merges = counts[symbol], self.total, self.self_merges
            ceiling: dict[int, float] = {}
        for pair in self.pairs_of[symbol]:
            pc = pair_count[pair]
            if pc < floor:
                continue
            # The entry's score is computed here; its tuple only when it is pushed.
            if not contextual:  # PMI (only scores reading symbol counts are deferred)
                score = pc / (counts[pair[0]] * counts[pair[1]])
            else:
                merged = pc if pair[0] != pair[1] else self_merges.get(symbol, 0)
                w = product.get(pair)
                if w is None:
                    most = ceiling.get(merged)
                    if most is None:
                        most = ceiling[merged] = (xlogx_change(own, -merged)
                                                  - xlogx_change(total, -merged))
                    if (cut is None or most < cut) and bound is not None and most <= bound:
                        continue
                score = self._gain(pair, merged, w)
            if cut is not None and score >= cut:
                heapq.heappush(heap, self._entry(pair, pc))
            elif bound is None or score > bound:
                bound = score
        self._set_bound(symbol, bound)

    def _flush_deferred(self, level: float | None) -> bool:
        """Push the pairs of the deferred symbol of highest bound, if it reaches ``level``.

        Floats never invert two exact PMI scores (division is correctly rounded) and a
        likelihood tie is decided within a tolerance, so flushing whenever the bound
        reaches ``level`` is exact, if cautious. Only pairs scoring at least
        ``level - |level|/2`` are pushed; the symbol stays deferred for the others.
        """
        queue = self.deferred_heap
        while queue and self.deferred.get(queue[0][2]) != queue[0][1]:
            heapq.heappop(queue)
        if not queue or (level is not None and -queue[0][0] < level):
            return False
        _, _, symbol = heapq.heappop(queue)
        del self.deferred[symbol]
        self._push_above(symbol, -math.inf if level is None else level - abs(level) / 2)
        return True

    def _pop_best(self):
        """Pop the valid entry first in the criterion's order (see ``merge_scores``).

        First the best score: the top entry, once valid, current (re-scored if stale:
        stale entries only overestimate) and above every deferred bound, is the maximum.
        Then every entry or bound that may tie with it is settled the same way, and the
        tied group is ordered by the criterion's key.
        """
        heap = self.heap
        while True:
            while heap and not self._valid(heap[0]):
                heapq.heappop(heap)
            if self._flush_deferred(-heap[0][0] if heap else None):
                continue
            if not heap:
                return None
            if self._stale(heap[0]):
                top = heap[0]
                heapq.heapreplace(heap, self._entry((top[4], top[5]), top[6]))
                continue
            break
        cut = self.criterion.cut(-heap[0][0])
        group = []
        while True:
            if heap and -heap[0][0] >= cut:
                entry = heapq.heappop(heap)
                if not self._valid(entry):
                    continue
                if self._stale(entry):
                    heapq.heappush(heap, self._entry((entry[4], entry[5]), entry[6]))
                    continue
                group.append(entry)
                if self.criterion.heap_ordered:  # the heap's order is the criterion's
                    return entry
            elif not self._flush_deferred(cut):
                break
        key = self.criterion.tie_key
        group.sort(key=lambda e: key(e[7], e[8], e[9], e[2], e[3]))
        for entry in group[1:]:
            heapq.heappush(heap, entry)
        return group[0]

    # ------------------------------------------------------------ merging

    def merge_best(self) -> str | None:
        """Merge the best pair everywhere; return the new token (None: nothing to merge)."""
        entry = self._pop_best()
        if entry is None:
            return None
        a, b = entry[4], entry[5]
        token = self.names[a] + self.names[b][len(self.prefix):]
        existed = token in self.ids
        new = self._symbol(token)
        delta: dict[tuple[int, int], int] = {}
        runs: set[int] = set()
        # Symbols whose runs this merge may change: a or b already in one, or new if it
        # existed (a word with two occurrences adds new itself).
        repeated = ({s for s in (a, b) if (s, s) in self.pair_words} | ({new} if existed else set())
                    if self.replaced else None)
        for index in list(self.pair_words[(a, b)]):
            self._merge_in_word(index, a, b, new, delta, runs, repeated)
        for pair, change in delta.items():
            count = self.pair_count.get(pair, 0) + change
            if count:
                self.pair_count[pair] = count
            elif pair in self.pair_words:  # gone (or linked in passing, then cancelled)
                self._unlink(pair)
        fresh = set(delta)
        fresh.update((s, s) for s in runs)
        if self.contextual:
            fresh.update(self._producers(token, new, (a, b)))
        self._push_all(fresh)
        if self.reads_symbols:
            for symbol in {a, b, new} if existed else {a, b}:
                self._defer(symbol)
        self._compact()
        return token

    def _producers(self, token: str, new: int, merged) -> list[tuple[int, int]]:
        """Live pairs other than ``merged`` that would also make ``token`` (now counted more)."""
        ids, prefix, found = self.ids, self.prefix, []
        for k in range(1, len(token)):
            u, v = ids.get(token[:k]), ids.get(prefix + token[k:])
            if u is not None and v is not None and (u, v) != merged and (
                    (u, v) in self.pair_words):
                self.product[(u, v)] = new
                found.append((u, v))
        return found

    def _merge_in_word(self, index: int, a: int, b: int, new: int, delta: dict,
                       runs: set, repeated: set | None) -> None:
        """Merge (a, b) in one word, recording pair count changes in ``delta``.

        For each occurrence, the pair before it ``(p, a)`` becomes ``(p, new)`` and the
        pair after it ``(b, q)`` becomes ``(new, q)``; ``p`` is read from the merged
        output, so back-to-back occurrences (``a b a b``) cancel out correctly. Runs of
        one symbol change only for ``a``, ``b`` and ``new``: those are recounted
        (``runs`` collects the symbols whose ``self_merges`` changed).
        """
        symbols, count = self.words[index], self.word_count[index]
        out: list[int] = []
        i, n, merged = 0, len(symbols), 0
        while True:  # jump from one ``a`` to the next (list.index runs in C)
            try:
                j = symbols.index(a, i, n - 1)
            except ValueError:
                break
            if symbols[j + 1] != b:
                out.extend(symbols[i:j + 1])
                i = j + 1
                continue
            out.extend(symbols[i:j])
            delta[(a, b)] = delta.get((a, b), 0) - count
            if out:
                self._shift(delta, (out[-1], a), (out[-1], new), count, index)
            if j + 2 < n:
                self._shift(delta, (b, symbols[j + 2]), (new, symbols[j + 2]), count, index)
            out.append(new)
            merged += 1
            i = j + 2
        out.extend(symbols[i:])
        if merged:
            self.words[index] = out
            self.symbol_count[a] -= merged * count
            self.symbol_count[b] -= merged * count
            self.symbol_count[new] += merged * count
            self.total -= merged * count
            if repeated is not None and (repeated or merged > 1):
                self._recount_runs(index, symbols, out,
                                   repeated | {new} if merged > 1 else repeated, runs)

    def _recount_runs(self, index: int, before: list[int], after: list[int], symbols,
                      runs: set) -> None:
        for s in symbols:  # a word without a run of s before or after changes nothing
            change = _run_halves(after, s) - _run_halves(before, s)
            if change:
                self.self_merges[s] = (self.self_merges.get(s, 0)
                                       + change * self.word_count[index])
                runs.add(s)

    def _shift(self, delta: dict, old, new, count: int, index: int) -> None:
        delta[old] = delta.get(old, 0) - count
        delta[new] = delta.get(new, 0) + count
        holders = self.pair_words.get(new)
        if holders is None:
            self._link(new, index)
        elif holders[-1] != index:
            holders.append(index)

    def _compact(self) -> None:
        """Rebuild the heap from live pairs once stale entries dominate it (memory)."""
        if len(self.heap) > 4 * len(self.pair_count) + 100_000:
            self.heap, self.deferred, self.deferred_heap = [], {}, []
            self._push_all(self.pair_count)

    def _symbol(self, name: str) -> int:
        """Id of symbol ``name``, created if new."""
        sid = self.ids.get(name)
        if sid is None:
            sid = self.ids[name] = len(self.names)
            self.names.append(name)
            self.symbol_count.append(0)
            self.pairs_of.append(set())
        return sid


def _run_halves(symbols: list[int], s: int) -> int:
    """Occurrences of ``(s, s)`` a left-to-right merge replaces: half of each run, rounded down."""
    halves = run = 0
    for x in symbols:
        if x == s:
            run += 1
        else:
            halves += run // 2
            run = 0
    return halves + run // 2
