"""Words as symbol ids with their pair and symbol counts, merged pair by pair: the
pure-Python merge loop of ``learn_bottom_up`` (``bottom_up``) and the reference of its C loop.

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

Not handled here: choosing the vocabulary from the merges (``bottom_up``); the scores'
formulas and order (``merge_scores``); the C loop (``native_merge``, ``native/``).
"""

from __future__ import annotations

import heapq
import math

from .common import WordList
from .merge_scores import Pmi, likelihood_gain, likelihood_gain_of, xlogx_change

__all__ = ["MergeState"]


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
