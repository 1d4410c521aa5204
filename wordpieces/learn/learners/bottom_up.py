"""Learn a WordPiece vocabulary bottom-up, by likelihood: true WordPiece, not BPE.

Every word starts as characters, the first bare and the others behind the continuing
prefix (``w ##o ##r ##d``). Each step merges the adjacent pair ``(u, v)`` with the
highest score ``count(uv) / (count(u) * count(v))`` (counts weighted by word frequency)
into the token ``u + v`` without ``v``'s prefix. Ties go to the higher pair count, then
to the smaller pair ``(u, v)`` as strings. The vocabulary is the special tokens, the
alphabet (sorted), then the merged tokens in merge order.

Why it is fast: pair counts, the words holding each pair and symbol counts are updated
only for the words a merge touches, and the best pair comes from a heap with lazy
invalidation: an entry records the counts it was scored with and is skipped when popped
if they changed. Pairs whose count changed get a fresh entry. A merge also changes
``count(u)`` and ``count(v)``, hence the score of every pair holding ``u`` or ``v``;
rather than re-scoring them all, the symbol is "deferred" with the best score among its
pairs as a bound, and its pairs are pushed again only if that bound reaches the best
entry. The bound holds: a pair's score moves only with its own count (which gives it a
fresh entry) or with a symbol's count (which defers that symbol with a new bound).
Scores are ordered exactly: the heap orders by the correctly rounded float (which never
inverts two fractions), and entries sharing the top float are compared as fractions.

Not handled here: counting words (``counting``); HF's BPE-style ``WordPieceTrainer``
(which merges by count) — this is the likelihood version the WordPiece paper describes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from fractions import Fraction

from ..progress import ProgressCallback
from .common import integer_pairs

__all__ = ["learn_bottom_up"]


def learn_bottom_up(counts, vocab_size: int, *, special_tokens: Iterable[str] = ("[UNK]",),
                    min_frequency: int = 0, limit_alphabet: int | None = None,
                    initial_alphabet: Iterable[str] = (), continuing_subword_prefix: str = "##",
                    progress: ProgressCallback | None = None) -> list[str]:
    """Learn up to ``vocab_size`` tokens by merging the pairs of highest likelihood score.

    ``counts``: a ``WordCounts``, a dict or ``(word, count)`` pairs (integer counts).
    ``min_frequency``: pairs seen fewer times are never merged. ``limit_alphabet``: keep
    only the most frequent characters (those of ``initial_alphabet`` first); words with
    any other character are left out, since WordPiece would map them to the unknown token
    whole. Every character of ``initial_alphabet`` is in the vocabulary in both forms.
    The alphabet is never cut to fit ``vocab_size``.

    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> learn_bottom_up(counts, 13, special_tokens=[])[7:]
    ['##gs', 'pu', 'hu', 'bu', 'hugs', 'hug']
    """
    specials = list(dict.fromkeys(special_tokens))
    words = integer_pairs(counts)
    chars = _alphabet_chars(words, limit_alphabet, list(initial_alphabet))
    words = [(w, c) for w, c in words if w and c > 0 and all(ch in chars for ch in w)]
    state = MergeState(words, continuing_subword_prefix, initial_alphabet, chars,
                       min_frequency=min_frequency)
    vocab = list(dict.fromkeys([*specials, *state.alphabet()]))
    seen = set(vocab)
    while len(vocab) < vocab_size:
        token = state.merge_best()
        if token is None:
            break
        if token not in seen:
            seen.add(token)
            vocab.append(token)
        if progress is not None:
            progress("merge", done=len(vocab), total=vocab_size, token=token)
    return vocab


def _alphabet_chars(words, limit: int | None, initial: list[str]) -> set[str]:
    """Characters kept: those of ``initial``, then the most frequent (count, then char)."""
    totals: dict[str, int] = {}
    for word, count in words:
        for ch in word:
            totals[ch] = totals.get(ch, 0) + count
    for ch in initial:
        if len(ch) != 1:
            raise ValueError(f"initial_alphabet holds {ch!r}: each item must be one character")
    ranked = list(dict.fromkeys([*initial, *sorted(totals, key=lambda c: (-totals[c], c))]))
    return set(ranked if limit is None else ranked[:max(limit, len(initial))])


class MergeState:
    """Words as symbol ids, with pair and symbol counts kept up to date across merges."""

    def __init__(self, words, prefix: str, initial_alphabet, chars, *, min_frequency: int):
        self.prefix = prefix
        self.min_frequency = min_frequency
        spelled = [[w[0], *(prefix + ch for ch in w[1:])] for w, _ in words]
        initial = [f for ch in initial_alphabet if ch in chars for f in (ch, prefix + ch)]
        names = sorted({s for symbols in spelled for s in symbols} | set(initial))
        self.names: list[str] = names
        self.ids = {name: i for i, name in enumerate(names)}
        self.symbol_count = [0] * len(names)
        self.words = [[self.ids[s] for s in symbols] for symbols in spelled]
        self.word_count = [c for _, c in words]
        self.pair_count: dict[tuple[int, int], int] = {}
        self.pair_words: dict[tuple[int, int], set[int]] = {}
        self.pairs_of: list[set[tuple[int, int]]] = [set() for _ in names]
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
        """Count one word's symbols and adjacent pairs."""
        count = self.word_count[index]
        for s in symbols:
            self.symbol_count[s] += count
        for pair in zip(symbols, symbols[1:], strict=False):
            self.pair_count[pair] = self.pair_count.get(pair, 0) + count
            self._link(pair, index)

    def _link(self, pair, index: int) -> None:
        holders = self.pair_words.get(pair)
        if holders is None:
            holders = self.pair_words[pair] = set()
            self.pairs_of[pair[0]].add(pair)
            self.pairs_of[pair[1]].add(pair)
        holders.add(index)

    def _unlink(self, pair) -> None:
        self.pair_count.pop(pair, None)
        del self.pair_words[pair]
        self.pairs_of[pair[0]].discard(pair)
        self.pairs_of[pair[1]].discard(pair)

    # ------------------------------------------------------------ the heap

    def _push_all(self, pairs) -> None:
        """Give each pair a heap entry recording its current counts."""
        heap, push, counts, names = self.heap, heapq.heappush, self.symbol_count, self.names
        pair_count, floor = self.pair_count, max(1, self.min_frequency)
        for pair in pairs:
            pc = pair_count.get(pair, 0)
            if pc >= floor:
                a, b = pair
                ca, cb = counts[a], counts[b]
                push(heap, (-(pc / (ca * cb)), -pc, names[a], names[b], a, b, ca, cb))

    def _valid(self, entry) -> bool:
        _, neg_pc, _, _, a, b, ca, cb = entry
        return (self.pair_count.get((a, b)) == -neg_pc and self.symbol_count[a] == ca
                and self.symbol_count[b] == cb)

    def _defer(self, symbol: int) -> None:
        """Note that ``symbol``'s count changed: its pairs' entries are now stale.

        Rather than re-pushing them all, remember the best score among them now. It
        stays an upper bound until ``symbol``'s count changes again (then it is deferred
        again) or a pair count changes (then that pair is pushed afresh); a change of the
        other symbol's count defers that symbol, bounding the pair there.
        """
        counts, pair_count = self.symbol_count, self.pair_count
        floor = max(1, self.min_frequency)
        bound = 0.0
        for pair in self.pairs_of[symbol]:
            pc = pair_count[pair]
            score = pc / (counts[pair[0]] * counts[pair[1]])
            if score > bound and pc >= floor:
                bound = score
        self._set_bound(symbol, bound)

    def _set_bound(self, symbol: int, bound: float) -> None:
        if bound > 0.0:
            self.version += 1
            self.deferred[symbol] = self.version
            heapq.heappush(self.deferred_heap, (-bound, self.version, symbol))
        else:
            self.deferred.pop(symbol, None)

    def _push_above(self, symbol: int, cut: float) -> None:
        """Push the pairs of ``symbol`` scoring ``cut`` or more; defer the others."""
        counts, pair_count, heap, names = self.symbol_count, self.pair_count, self.heap, self.names
        floor = max(1, self.min_frequency)
        bound = 0.0
        for pair in self.pairs_of[symbol]:
            pc = pair_count[pair]
            if pc < floor:
                continue
            a, b = pair
            ca, cb = counts[a], counts[b]
            score = pc / (ca * cb)
            if score >= cut:
                heapq.heappush(heap, (-score, -pc, names[a], names[b], a, b, ca, cb))
            elif score > bound:
                bound = score
        self._set_bound(symbol, bound)

    def _flush_deferred(self, best) -> bool:
        """Push the pairs of the deferred symbol of highest bound, if it may beat ``best``.

        Floats never invert two exact scores (division is correctly rounded), so
        flushing whenever the bound's float reaches ``best``'s is exact, if cautious.
        Only pairs scoring at least half of ``best`` are pushed; the symbol stays
        deferred for the others, with their best score as its bound.
        """
        queue = self.deferred_heap
        while queue and self.deferred.get(queue[0][2]) != queue[0][1]:
            heapq.heappop(queue)
        if not queue or (best is not None and -queue[0][0] < -best[0]):
            return False
        _, _, symbol = heapq.heappop(queue)
        del self.deferred[symbol]
        self._push_above(symbol, 0.0 if best is None else -best[0] / 2)
        return True

    def _pop_best(self):
        """Pop the valid entry of highest exact score (then count, then smaller pair)."""
        heap = self.heap
        while True:
            while heap and not self._valid(heap[0]):
                heapq.heappop(heap)
            if not self._flush_deferred(heap[0] if heap else None):
                break
        if not heap:
            return None
        group = [heapq.heappop(heap)]
        while heap and heap[0][0] == group[0][0]:
            entry = heapq.heappop(heap)
            if self._valid(entry):
                group.append(entry)
        if len(group) > 1:
            group.sort(key=lambda e: (-Fraction(-e[1], e[6] * e[7]), e[1], e[2], e[3]))
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
        for index in list(self.pair_words[(a, b)]):
            self._merge_in_word(index, a, b, new, delta)
        for pair, change in delta.items():
            count = self.pair_count.get(pair, 0) + change
            if count:
                self.pair_count[pair] = count
            elif pair in self.pair_words:  # gone (or linked in passing, then cancelled)
                self._unlink(pair)
        self._push_all(delta)
        for symbol in {a, b, new} if existed else {a, b}:
            self._defer(symbol)
        self._compact()
        return token

    def _merge_in_word(self, index: int, a: int, b: int, new: int, delta: dict) -> None:
        """Merge (a, b) in one word, recording pair count changes in ``delta``.

        For each occurrence, the pair before it ``(p, a)`` becomes ``(p, new)`` and the
        pair after it ``(b, q)`` becomes ``(new, q)``; ``p`` is read from the merged
        output, so back-to-back occurrences (``a b a b``) cancel out correctly.
        """
        symbols, count = self.words[index], self.word_count[index]
        out: list[int] = []
        i, n, merged = 0, len(symbols), 0
        while i < n:
            if i + 1 < n and symbols[i] == a and symbols[i + 1] == b:
                delta[(a, b)] = delta.get((a, b), 0) - count
                if out:
                    self._shift(delta, (out[-1], a), (out[-1], new), count, index)
                if i + 2 < n:
                    self._shift(delta, (b, symbols[i + 2]), (new, symbols[i + 2]), count, index)
                out.append(new)
                merged += 1
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        if merged:
            self.words[index] = out
            self.symbol_count[a] -= merged * count
            self.symbol_count[b] -= merged * count
            self.symbol_count[new] += merged * count

    def _shift(self, delta: dict, old, new, count: int, index: int) -> None:
        delta[old] = delta.get(old, 0) - count
        delta[new] = delta.get(new, 0) + count
        self._link(new, index)

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

