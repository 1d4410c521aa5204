"""Refine a merge vocabulary for the reader WordPiece uses: greedy longest match (MaxMatch).

A merge learner keeps tokens that MaxMatch rarely or never emits (steps shadowed by
longer tokens, pieces a longer match skips past). ``refine`` swaps such tokens for ones
that save more: it scores each learned token by the exact MaxMatch tokens the training
words would cost without it (``removal_losses``), scores candidates (the join of two
adjacent greedy pieces, ``candidate_gains``) by the exact tokens they would save, and
swaps the least useful tokens for the most useful candidates in batches. A batch is kept
only if the training words' total greedy cost goes down, re-segmenting only the words the
batch touches (token -> words whose segmentation uses it; a candidate -> words
segmented through one of its prefixes that contain it). The special tokens and the
alphabet (every character bare, and behind the prefix those seen inside a word) are never
removed, and the size stays the same.

The cost of a word is its count times its number of MaxMatch tokens (a word MaxMatch
cannot segment costs one ``[UNK]``, whatever the vocabulary).

``refine`` runs the loop in C (``native/wp_refine*.c``, the learner extension) when it
is built; ``refine_python`` is the reference it follows step for step, ties included
(``tests/unit/learn/test_refine_native.py``). ``WORDPIECES_BACKEND=python`` forces the
reference, ``=native`` makes a missing extension an error (``native_merge_error``).

Not handled here: the merges themselves (``bottom_up``), tokenizing with the result
(``pipeline.models.WordPiece``).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise

from ...errors import MissingDependencyError
from . import native_merge
from .common import greedy_pieces

__all__ = ["refine_vocabulary", "refine", "refine_python", "refine_native", "greedy_cost",
           "Segmenter", "adjacent_joins", "update_joins", "removal_losses"]

# Swaps tried per batch at first; halved when a batch does not lower the cost.
FIRST_BATCH = 1024
# Candidates whose exact gain is computed per round (the best by adjacent-pair count).
CANDIDATES_PER_ROUND = 1000
# Rounds of (score, swap): measured on ../shared, the held-out gain stops after ~4
# (English 8k: 1.3118 tokens per word after 2, 1.3097 after 4, 1.3101 after 12).
ROUNDS = 4
# Tokens used more than HEAVY times the best candidate's gain keep their use count as
# their loss, unmeasured (``removal_losses``).
HEAVY = 1


def refine_vocabulary(words, vocab: list[str], specials: list[str], chars: Iterable[str],
                      prefix: str = "##", both: Iterable[str] = ()) -> list[str]:
    """``vocab`` refined for MaxMatch, with every character of ``chars`` kept.

    ``words``: the training words (``WordList``: ``.words``, ``.counts``). The result
    is the special tokens, the alphabet (sorted), then the kept merged tokens in merge
    order and the new ones; as long as ``vocab`` (or the alphabet, when that alone is
    longer). The alphabet is HF's trainer's: every character bare, and behind the prefix
    each one a training word holds after its first character, and those of ``both``
    (an ``initial_alphabet``). A character seen only inside words still gets its bare
    form, so no held-out word starting with it is ``[UNK]``; one never seen inside a word
    (punctuation and CJK, which a BERT pre-tokenizer makes words of their own) gets no
    continuation form, which no training word would use (its slot goes to a merge: 0.1 %
    fewer held-out tokens per word, English 8k). The last merges make room.
    """
    inside = {ch for word in words.words for ch in word[1:]}
    inside.update(both)
    base = list(dict.fromkeys([*specials, *sorted({*chars, *(prefix + ch for ch in chars
                                                             if ch in inside)})]))
    taken = set(base)
    merged = [t for t in vocab if t not in taken]
    room = max(0, len(vocab) - len(base))
    refined = refine(list(words.words), list(words.counts), base + merged[:room], base,
                     prefix)
    return base + [t for t in refined if t not in taken]


class Segmenter:
    """MaxMatch over a changing vocabulary, with each word's current pieces and users."""

    def __init__(self, words: list[str], counts: list[int], vocab: Iterable[str], prefix: str):
        self.words, self.counts, self.prefix = words, counts, prefix
        self.vocab: set[str] = set()
        # bare strings of first pieces and of continuations, and every prefix of them
        # (a superset once tokens leave: a match only grows while it can still be a token)
        self.tables: tuple[tuple[set[str], set[str]], ...] = ((set(), set()), (set(), set()))
        for token in vocab:
            self.add(token)
        self.pieces: list[tuple[str, ...] | None] = [self.segment(w) for w in words]
        self.users: dict[str, set[int]] = defaultdict(set)
        for index, pieces in enumerate(self.pieces):
            for piece in pieces or ():
                self.users[piece].add(index)

    def _split(self, token: str) -> tuple[int, str]:
        """(0, bare) for a first piece, (1, bare) for a continuation."""
        if self.prefix and token.startswith(self.prefix) and len(token) > len(self.prefix):
            return 1, token[len(self.prefix):]
        return 0, token

    def _tables(self, token: str):
        """The tables ``token`` belongs to (both when there is no prefix) and its bare form."""
        rest, bare = self._split(token)
        return (self.tables if not self.prefix else self.tables[rest:rest + 1]), bare

    def add(self, token: str) -> None:
        self.vocab.add(token)
        tables, bare = self._tables(token)
        for tokens, prefixes in tables:
            tokens.add(bare)
            prefixes.update(bare[:end] for end in range(1, len(bare) + 1))

    def discard(self, token: str) -> None:
        self.vocab.discard(token)
        tables, bare = self._tables(token)
        for tokens, _ in tables:
            tokens.discard(bare)

    def segment(self, word: str, start: int = 0) -> tuple[str, ...] | None:
        """``word[start:]``'s MaxMatch pieces (a continuation if ``start``); None: [UNK]."""
        pieces = greedy_pieces(word, self.tables, start)
        if pieces is None:
            return None
        prefix = self.prefix
        return tuple(prefix + piece if i or start else piece for i, piece in enumerate(pieces))

    def length(self, word: str, start: int = 0) -> int | None:
        """How many pieces ``segment(word, start)`` has (None: [UNK]), without making them."""
        pieces = greedy_pieces(word, self.tables, start)
        return None if pieces is None else len(pieces)

    def tail_without(self, index: int, token: str, memo: dict | None = None) -> int | None:
        """How many pieces word ``index`` has with ``token`` out of the tables (None: [UNK]).

        Only the rest from the token's first use is split again. ``memo`` (one per
        removed token) keeps each rest's length: the words ending in the same rest (a
        suffix token's users) split it once.
        """
        pieces = self.pieces[index]
        assert pieces is not None
        at = pieces.index(token)
        cut = len(self.prefix)
        start = sum(len(p) - cut for p in pieces[:at]) + (cut if at else 0)
        if memo is None:
            tail = self.length(self.words[index], start)
        else:
            key = (start > 0, self.words[index][start:])  # all a split from start reads
            if key not in memo:
                memo[key] = self.length(self.words[index], start)
            tail = memo[key]
        return None if tail is None else at + tail

    def cost(self, index: int, pieces: tuple[str, ...] | None) -> int:
        """The tokens word ``index`` costs in all its occurrences, split as ``pieces``."""
        return self.counts[index] * (1 if pieces is None else len(pieces))

    def cost_of(self, index: int, length: int | None) -> int:
        """The tokens word ``index`` costs in all its occurrences in ``length`` pieces."""
        return self.counts[index] * (1 if length is None else length)

    def total(self) -> int:
        """The training words' total greedy cost."""
        return sum(self.cost(i, p) for i, p in enumerate(self.pieces))

    def reassign(self, index: int, pieces: tuple[str, ...] | None) -> None:
        """Record word ``index``'s new segmentation in the users index."""
        for piece in self.pieces[index] or ():
            self.users[piece].discard(index)
        self.pieces[index] = pieces
        for piece in pieces or ():
            self.users[piece].add(index)

    def touched_by(self, token: str) -> set[int]:
        """Words whose MaxMatch may change when ``token`` joins the vocabulary."""
        rest, bare = self._split(token)
        head = self.prefix if rest else ""
        anywhere = rest or not self.prefix  # a continuation, or every piece without a prefix
        found: set[int] = set()
        for end in range(1, len(bare)):  # the current piece there is a prefix of token
            for index in self.users.get(head + bare[:end], ()):
                word = self.words[index]
                if (bare in word) if anywhere else word.startswith(bare):
                    found.add(index)
        return found


def greedy_cost(words: list[str], counts: list[int], vocab: Iterable[str], prefix: str) -> int:
    """The MaxMatch tokens ``words`` cost over ``vocab`` (each [UNK] word: one)."""
    return Segmenter(words, counts, vocab, prefix).total()


def removal_losses(seg: Segmenter, tokens: Iterable[str], ceiling: float) -> dict[str, int]:
    """Each token's exact loss: the extra tokens its users would cost without it.

    A token whose uses weigh more than ``ceiling`` (all its users' counts) gets that
    weight instead, unsegmented: no candidate would replace it (a removal costs about a
    token per use), and the heavy tokens hold most of the segmentation work.
    """
    losses = {}
    for token in tokens:
        users = seg.users.get(token, ())
        if not users:
            losses[token] = 0
            continue
        weight = sum(seg.counts[i] for i in users)
        if weight > ceiling:
            losses[token] = weight
            continue
        seg.discard(token)
        memo: dict[tuple[bool, str], int | None] = {}
        losses[token] = sum(seg.cost_of(i, seg.tail_without(i, token, memo))
                            - seg.cost(i, seg.pieces[i]) for i in users)
        seg.add(token)
    return losses


def adjacent_joins(seg: Segmenter) -> dict[str, int]:
    """The joins of adjacent greedy pieces (candidate tokens), with their counts."""
    cut = len(seg.prefix)
    pairs: dict[str, int] = defaultdict(int)
    for index, pieces in enumerate(seg.pieces):
        if pieces is None or len(pieces) < 2:
            continue
        count = seg.counts[index]
        for left, right in pairwise(pieces):
            pairs[left + right[cut:]] += count
    return pairs


def exact_gain(seg: Segmenter, token: str) -> int:
    """The tokens the training words would save with ``token`` added."""
    seg.add(token)
    gain = sum(seg.cost(i, seg.pieces[i]) - seg.cost_of(i, seg.length(seg.words[i]))
               for i in seg.touched_by(token))
    seg.discard(token)
    return gain


def refine(words: list[str], counts: list[int], vocab: list[str], protected: Iterable[str],
           prefix: str = "##", rounds: int = ROUNDS) -> list[str]:
    """``refine_python``'s result, computed in C when the learner extension is built.

    Why: the greedy re-splitting is most of a refined training's time in Python.
    """
    if native_merge.native_merge_error(zip(words, counts, strict=True), "count"):
        return refine_python(words, counts, vocab, protected, prefix, rounds)
    return refine_native(words, counts, vocab, protected, prefix, rounds)


def refine_native(words: list[str], counts: list[int], vocab: list[str],
                  protected: Iterable[str], prefix: str = "##", rounds: int = ROUNDS,
                  candidates: int = CANDIDATES_PER_ROUND) -> list[str]:
    """``refine_python`` in C (the extension must be built); the same vocabulary."""
    module = native_merge.extension()
    if module is None:
        raise MissingDependencyError("the merge extension is not built")
    return module.refine(list(words), list(counts), list(vocab), list(protected), prefix,
                         rounds, FIRST_BATCH, candidates, HEAVY)


def refine_python(words: list[str], counts: list[int], vocab: list[str],
                  protected: Iterable[str], prefix: str = "##", rounds: int = ROUNDS,
                  candidates: int = CANDIDATES_PER_ROUND) -> list[str]:
    """``vocab`` with its least useful tokens swapped for better ones, same size.

    ``protected`` (special tokens, the alphabet) stay. Returns the tokens
    of ``vocab`` kept, in their order, then the new ones (sorted by when they came in,
    then by string). The training words' greedy cost never goes up.
    """
    keep = set(protected)
    seg = Segmenter(words, counts, vocab, prefix)
    batch = FIRST_BATCH
    losses: dict[str, int] = {}
    gains: dict[str, int] = {}
    stale = {t for t in seg.vocab if t not in keep}
    came_in: dict[str, int] = {}
    joins = adjacent_joins(seg)
    for round_ in range(rounds):
        if batch < 1:
            break
        ranked = heapq.nsmallest(candidates, (t for t in joins if t not in seg.vocab),
                                 key=lambda t: (-joins[t], t))
        gains = {t: gains[t] if t in gains else exact_gain(seg, t) for t in ranked}
        losses.update(removal_losses(seg, stale, ceiling=HEAVY * max(gains.values(), default=0)))
        victims = sorted(losses, key=lambda t: (losses[t], t))
        offers = sorted(gains, key=lambda t: (-gains[t], t))
        swaps = [(v, o) for v, o in zip(victims, offers, strict=False)
                 if gains[o] > losses[v]][:batch]
        if not swaps:
            break
        changed = _apply(seg, swaps)
        if changed is None:
            batch //= 2
            continue
        stale = {p for _, old, new in changed for p in (*(old or ()), *(new or ()))
                 if p not in keep and p in seg.vocab}
        update_joins(joins, seg, changed)
        for victim, offer in swaps:
            losses.pop(victim, None)
            stale.add(offer)
            came_in[offer] = round_
        moved = {t for _, old, new in changed for pieces in (old, new) if pieces
                 for t in _joins(pieces, len(prefix))}
        gains = {t: g for t, g in gains.items() if t not in moved and t not in seg.vocab}
    order = {t: i for i, t in enumerate(vocab)}
    return sorted(seg.vocab, key=lambda t: (order.get(t, len(order)), came_in.get(t, 0), t))


def _joins(pieces: tuple[str, ...], cut: int) -> list[str]:
    return [left + right[cut:] for left, right in pairwise(pieces)]


def update_joins(joins: dict[str, int], seg: Segmenter, changed) -> None:
    """Keep ``joins`` equal to ``adjacent_joins(seg)`` after the words in ``changed`` moved."""
    cut = len(seg.prefix)
    for index, old, new in changed:
        count = seg.counts[index]
        for join in _joins(old or (), cut):
            joins[join] -= count
            if not joins[join]:
                del joins[join]
        for join in _joins(new or (), cut):
            joins[join] = joins.get(join, 0) + count


def _apply(seg: Segmenter, swaps: list[tuple[str, str]]):
    """Make ``swaps`` (remove, add); keep them if the total cost drops, else undo.

    Returns (index, old pieces, new pieces) of the words that changed, or None when undone.
    """
    touched: set[int] = set()
    for victim, offer in swaps:
        touched |= seg.users.get(victim, set())
        seg.add(offer)
    for _, offer in swaps:
        touched |= seg.touched_by(offer)
    for victim, _ in swaps:
        seg.discard(victim)
    new = {i: seg.segment(seg.words[i]) for i in touched}
    delta = sum(seg.cost(i, p) - seg.cost(i, seg.pieces[i]) for i, p in new.items())
    if delta >= 0:
        for victim, offer in swaps:
            seg.discard(offer)
            seg.add(victim)
        return None
    changed = []
    for index, pieces in new.items():
        if pieces != seg.pieces[index]:
            changed.append((index, seg.pieces[index], pieces))
            seg.reassign(index, pieces)
    return changed
