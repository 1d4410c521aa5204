"""Learn a WordPiece vocabulary top-down, exactly as TF Text's learner does, only faster.

``learn_top_down`` returns, token for token and in order, what
``tensorflow_text.tools.wordpiece_vocab.wordpiece_tokenizer_learner_lib.learn`` returns for
the same counts and parameters: a binary
search over a count threshold, each step running ``num_iterations`` rounds of "count every
substring from each piece start to the end of the word, then subtract each token's count
from its proper prefixes, longest first".

Why it is fast. In that counting, every prefix of a counted substring is counted too, and
each token subtracts its (already reduced) count from *all* its proper prefixes. By
induction from the longest tokens down, a token's reduced count is therefore exactly the
weight of the piece-start suffixes that *equal* it: ``W[(joined, w[s:])] += count(w)`` for
each piece start ``s`` of each word. So one dictionary update per piece start replaces the
quadratic substring counting, and the first round (every position is a piece start) does
not depend on the threshold at all: it is computed once for the whole binary search. With
integer counts this identity is exact; fractional counts take ``_exact_round``, a plain
implementation of the reference procedure, so that float rounding matches too.

Not handled here: counting words in text (``counting``), building a tokenizer.
"""

from __future__ import annotations

import itertools
import numbers
from array import array
from collections.abc import Iterable

from ..progress import ProgressOption, accepts_progress
from .common import checked_table, ordered_pairs

__all__ = ["learn_top_down"]


@accepts_progress  # progress= takes what train() takes
def learn_top_down(counts, vocab_size: int, reserved_tokens: Iterable[str], *,
                   upper_thresh: int | None = 10_000_000, lower_thresh: int | None = 10,
                   num_iterations: int = 4, max_input_tokens: int | None = 5_000_000,
                   max_token_length: int = 50, max_unique_chars: int = 1000,
                   slack_ratio: float = 0.05, include_joiner_token: bool = True,
                   continuing_subword_prefix: str = "##", joiner: str | None = None,
                   progress: ProgressOption = None) -> list[str]:
    """Learn a vocabulary of about ``vocab_size`` tokens the way BERT's TF Text tool does.

    ``counts`` is a ``WordCounts``, a dict or an iterable of ``(word, count)`` pairs. A
    dict or ``WordCounts`` is taken in canonical order (count descending, then word), so
    the result does not depend on insertion order; a list keeps its order, which TF's
    learner uses to break ties when ``max_input_tokens`` cuts the word list. As in TF
    the result may be larger or much smaller than ``vocab_size``: the binary search stops
    when it runs out of thresholds. ``continuing_subword_prefix`` (HF's name; the one
    ``train()`` and the CLI use) marks continuation pieces; ``joiner``, TF Text's name
    for it, is its alias.

    >>> learn_top_down([("apple", 2), ("peach", 1), ("pear", 1)], 10, [], lower_thresh=1,
    ...                include_joiner_token=False)
    ['a', 'c', 'e', 'h', 'l', 'p', 'r', 'apple', 'peach', 'pear']
    """
    reserved = list(reserved_tokens)
    if joiner is not None and joiner != continuing_subword_prefix != "##":
        raise ValueError(f"joiner={joiner!r} and continuing_subword_prefix="
                         f"{continuing_subword_prefix!r} are one option under two names "
                         "(joiner is TF Text's): give one")
    prefix = continuing_subword_prefix if joiner is None else joiner
    joiner = prefix if include_joiner_token else ""
    table = checked_table(counts)
    if table is not None and all(isinstance(c, numbers.Integral) for c in table.values()):
        if not table:
            raise ValueError("learn_top_down: no word counts to learn from")
        upper, lower = _search_bounds(table.values(), upper_thresh, lower_thresh)
        words = _table_words(table, set(reserved), max_token_length, max_unique_chars,
                             max_input_tokens)
    else:
        pairs = ordered_pairs(counts)
        if not pairs:
            raise ValueError("learn_top_down: no word counts to learn from")
        upper, lower = _search_bounds((count for _, count in pairs), upper_thresh,
                                      lower_thresh)
        pairs = _input_words(pairs, set(reserved), max_token_length)
        allowed = _allowed_chars(pairs, max_unique_chars)
        pairs = _filter_words(pairs, allowed, max_input_tokens)
        if not all(isinstance(c, numbers.Integral) for _, c in pairs):
            learner: ThresholdLearner | ExactLearner = ExactLearner(
                pairs, reserved, num_iterations=num_iterations, joiner=joiner)
            return _binary_search(learner, lower, upper, vocab_size, slack_ratio, progress)
        table = _merge_duplicates(pairs)
        del pairs
        words = sorted(table)
    counts_of = [int(table[word]) for word in words]
    del table  # ours (merged pairs) or the caller's: either way no longer read here
    learner = ThresholdLearner(words, counts_of, reserved, num_iterations=num_iterations,
                               joiner=joiner, floor=min(lower, upper) - 1)
    return _binary_search(learner, lower, upper, vocab_size, slack_ratio, progress)


# ---------------------------------------------------------------- input preparation


def _search_bounds(values, upper_thresh, lower_thresh):
    """Clip the thresholds to the largest and smallest raw count (None: use them)."""
    top = bottom = None
    for value in values:
        if top is None or value > top:
            top = value
        if bottom is None or value < bottom:
            bottom = value
    upper = top if upper_thresh is None or top < upper_thresh else upper_thresh
    lower = bottom if lower_thresh is None or bottom > lower_thresh else lower_thresh
    return upper, lower


def _input_words(pairs, reserved: set[str], max_token_length: int):
    """Drop words longer than ``max_token_length`` characters and reserved tokens."""
    return [(w, c) for w, c in pairs if len(w) <= max_token_length and w not in reserved]


def _allowed_chars(words, max_unique_chars: int) -> set[str]:
    """Keep the ``max_unique_chars`` characters of highest total count (ties: by char)."""
    totals: dict[str, int] = {}
    for word, count in words:
        for ch in word:
            totals[ch] = totals.get(ch, 0) + count
    ranked = sorted(sorted(totals.items()), key=lambda item: item[1], reverse=True)
    return {ch for ch, _ in ranked[:max(0, max_unique_chars)]}


def _filter_words(words, allowed: set[str], max_input_tokens: int | None):
    """Keep words made of allowed characters, most frequent first, up to the limit."""
    if max_input_tokens is None:
        if words:  # TF's learner compares len(kept) >= None here and raises TypeError.
            raise TypeError("max_input_tokens=None is rejected by TF Text's learner "
                            "(it raises TypeError); use -1 for no maximum")
        return []
    kept: list[tuple[str, numbers.Real]] = []
    for word, count in sorted(words, key=lambda pair: pair[1], reverse=True):
        if max_input_tokens != -1 and len(kept) >= max_input_tokens:
            break
        if all(ch in allowed for ch in word):
            kept.append((word, count))
    return kept


def _table_words(table, reserved: set[str], max_token_length: int, max_unique_chars: int,
                 max_input_tokens: int | None) -> list[str]:
    """``_input_words``, ``_allowed_chars`` and ``_filter_words`` for a mapping: sorted words.

    The same words as those three on the canonical pairs, without a pair per word: the
    canonical order only matters when ``max_input_tokens`` cuts, and only then is it made.
    """
    words = [w for w in table if len(w) <= max_token_length and w not in reserved]
    allowed = _allowed_chars(((w, table[w]) for w in words), max_unique_chars)
    if max_input_tokens is None:
        if words:  # as _filter_words
            raise TypeError("max_input_tokens=None is rejected by TF Text's learner "
                            "(it raises TypeError); use -1 for no maximum")
        return []
    if len(allowed) < len(set("".join(words))):
        words = [w for w in words if all(ch in allowed for ch in w)]
    limit = len(words) if max_input_tokens == -1 else max(0, max_input_tokens)
    if len(words) > limit:
        words.sort(key=lambda w: (-table[w], w))  # canonical: the most frequent first
        del words[limit:]
    words.sort()
    if words and not words[0]:
        del words[0]  # an empty word takes its place in the cut, then counts nothing (TF)
    return words


# ---------------------------------------------------------------- the search


def _binary_search(learner, lower, upper, vocab_size, slack_ratio, progress):
    """Search the threshold whose vocabulary fits ``vocab_size`` within the slack."""
    slack = max(0, slack_ratio * vocab_size)
    step = 0
    while True:
        thresh = (upper + lower) // 2
        vocab = learner.vocab(thresh)
        step += 1
        if progress is not None:
            progress("search", step=step, thresh=thresh, size=len(vocab), target=vocab_size)
        size = len(vocab)
        fits = size <= vocab_size and vocab_size - size <= slack
        if fits or lower >= upper or thresh <= 1:
            return vocab
        if size > vocab_size:
            lower = thresh + 1
        else:
            upper = thresh - 1


class ExactLearner:
    """Produce the vocabulary for one threshold with the reference procedure (any numbers)."""

    def __init__(self, words, reserved: list[str], *, num_iterations: int, joiner: str):
        self.words = list(words)
        self.reserved = reserved
        self.num_iterations = num_iterations
        self.joiner = joiner
        self.chars = {ch for word, _ in words for ch in word}

    def vocab(self, thresh) -> list[str]:
        """Return the vocabulary TF's ``learn_with_thresh`` gives for ``thresh``."""
        tokens = _with_chars({}, self.chars, self.joiner)
        for iteration in range(self.num_iterations):
            kept = _exact_round(self.words, tokens, thresh, self.joiner, iteration == 0)
            tokens = _with_chars(kept, self.chars, self.joiner)
        return _final_vocabulary(self.reserved, self.chars, tokens)


class ThresholdLearner:
    """Produce the vocabulary for one threshold (integer counts); the first round is shared.

    ``words``: distinct non-empty words in code point order, ``counts`` theirs. No
    threshold below ``floor`` is ever asked for (the binary search's bounds), so the
    first round keeps only the suffixes weighing ``floor`` or more: most suffixes are
    rare, and holding them all was most of this learner's memory. ``joiner`` is ``""``
    when no joiner tokens are wanted (TF's learner behaves the same with
    ``include_joiner_token=False`` and with an empty joiner).
    """

    def __init__(self, words: list[str], counts: list[int], reserved: list[str], *,
                 num_iterations: int, joiner: str, floor=None):
        self.words, self.counts = words, counts
        self.reserved = reserved
        self.num_iterations = num_iterations
        self.joiner = joiner
        self.chars = set("".join(words))
        self.max_length = max(map(len, words), default=0)
        self.floor = floor if floor is not None and floor > 0 else None
        self.first_round = _first_round(words, counts, joiner, self.floor)
        # With a joiner, and no word starting with it, the plain tokens of every later
        # round are exactly the characters and the words whose count reaches the
        # threshold: a word's first piece is its longest such prefix, known in advance.
        self.fast = bool(joiner) and not any(w.startswith(joiner) for w in words)
        self._rests_of: tuple | None = None

    def vocab(self, thresh) -> list[str]:
        """Return the vocabulary TF's ``learn_with_thresh`` gives for ``thresh``."""
        tokens = _with_chars({}, self.chars, self.joiner)
        for iteration in range(self.num_iterations):
            if iteration == 0:
                kept = self._first_kept(thresh)
            elif self.fast and thresh > 0:
                kept = self._fast_round(tokens, thresh)
            else:
                plain, joined = _suffix_weights(zip(self.words, self.counts, strict=True), tokens,
                                                self.joiner)
                kept = _kept_tokens(plain.items(), joined, thresh, self.joiner)
            tokens = _with_chars(kept, self.chars, self.joiner)
        return _final_vocabulary(self.reserved, self.chars, tokens)

    def _first_kept(self, thresh) -> dict:
        """The first round's tokens (every position starts a piece)."""
        joined = self.first_round
        if self.floor is not None and thresh < self.floor:  # not asked by the search
            joined = _first_round(self.words, self.counts, self.joiner, None)
        if not self.joiner:
            return _kept_tokens(joined.items(), None, thresh, "")
        return _kept_tokens(zip(self.words, self.counts, strict=True), joined, thresh, self.joiner)

    def _fast_round(self, tokens: dict, thresh) -> dict:
        """A later round's tokens in the fast case: kept words, then joined suffixes.

        Words whose count reaches ``thresh`` are whole tokens and add no suffix. For the
        others the first piece is their longest kept-word prefix (or first character);
        what follows is split greedily among the joined tokens. That split depends only
        on the remaining suffix, so weights are pooled per suffix and each distinct
        suffix is split once, longest first (a suffix only feeds shorter ones). Only the
        suffixes of one length, and those the longer ones fed to shorter lengths, are
        held at a time; a length once split gives its kept tokens and is dropped.
        """
        joiner, words, counts = self.joiner, self.words, self.counts
        jl = len(joiner)
        bare = {tok[jl:] for tok in tokens if tok.startswith(joiner)}
        longest = max(map(len, bare), default=1)
        kept = {word: count for word, count in zip(words, counts, strict=True) if count >= thresh}
        starts, order, ends = self._rests(thresh)
        pending: dict[int, dict[str, int]] = {}
        for length in range(self.max_length, 0, -1):
            bucket = pending.pop(length, {})
            for i in order[ends[length - 1]:ends[length]]:
                rest = words[i][starts[i]:]
                bucket[rest] = bucket.get(rest, 0) + counts[i]
            if length > 1:
                _split_suffixes(bucket, length, bare, longest, pending)
            kept.update((joiner + suffix, weight) for suffix, weight in bucket.items()
                        if weight >= thresh)
        return kept

    def _rests(self, thresh):
        """Where each word below ``thresh`` goes on after its first piece, by what is left.

        ``starts[i]``: the first piece's end in word ``i``; ``order``: the indices of the
        words with something left, grouped by the length left (``ends[n - 1]`` to
        ``ends[n]`` for length ``n``). The same for every round of one threshold, so it
        is made once per threshold, a few bytes per word.
        """
        if self._rests_of is not None and self._rests_of[0] == thresh:
            return self._rests_of[1]
        self._rests_of = None  # the previous threshold's layout: freed before this one
        words, counts = self.words, self.counts
        starts = array("B" if self.max_length < 256 else "l", [0]) * len(words)
        sizes = [0] * (self.max_length + 1)
        # Words in code point order: the kept words that are prefixes of a word are on a
        # stack of prefixes of one another, the longest on top.
        stack: list[str] = []
        for i, (word, count) in enumerate(zip(words, counts, strict=True)):
            while stack and not word.startswith(stack[-1]):
                stack.pop()
            if count >= thresh:
                stack.append(word)
                starts[i] = len(word)
            else:
                starts[i] = len(stack[-1]) if stack else 1
            sizes[len(word) - starts[i]] += 1
        ends = list(itertools.accumulate(sizes[1:], initial=0))
        slots = ends[:-1]
        order = array("l", [0]) * ends[-1]
        for i, word in enumerate(words):
            left = len(word) - starts[i]
            if left:
                order[slots[left - 1]] = i
                slots[left - 1] += 1
        self._rests_of = (thresh, (starts, order, ends))
        return self._rests_of[1]


def _split_suffixes(bucket: dict[str, int], length: int, bare: set[str], longest: int,
                    pending: dict[int, dict[str, int]]) -> None:
    """Split each suffix of ``bucket`` (all ``length`` long) at its first joined piece.

    What follows that piece is a piece start too: its weight goes to ``pending`` under
    its length. A suffix that is itself a joined token is one piece: nothing follows.
    """
    for suffix, weight in bucket.items():
        if suffix in bare:
            continue
        end = length - 1 if length <= longest else longest
        while end > 1 and suffix[:end] not in bare:
            end -= 1
        shorter = pending.get(length - end)
        if shorter is None:
            shorter = pending[length - end] = {}
        rest = suffix[end:]
        shorter[rest] = shorter.get(rest, 0) + weight


def _with_chars(tokens: dict, chars, joiner: str) -> dict:
    """Add every character (and joiner + character) missing from ``tokens``, count 1."""
    for ch in chars:
        tokens.setdefault(ch, 1)
        if joiner:
            tokens.setdefault(joiner + ch, 1)
    return tokens


def _merge_duplicates(words) -> dict[str, int]:
    """Sum the counts of repeated words (integer sums do not depend on order); drop ""."""
    merged: dict[str, int] = {}
    for word, count in words:
        if not word:
            continue  # an empty word has no substring: TF counts nothing for it
        merged[word] = merged.get(word, 0) + int(count)
    return merged


def _first_round(words: list[str], counts: list[int], joiner: str, floor) -> dict[str, int]:
    """The first round's suffix weights of ``floor`` or more (None: all), keyed bare.

    With a joiner these are the suffixes after the first character (the whole words
    weigh their counts); without one, words and suffixes pooled. Made one suffix
    length at a time, each pruned to ``floor`` before the next: the rare suffixes are
    never all held at once.
    """
    longest_first = sorted(range(len(words)), key=lambda i: len(words[i]), reverse=True)
    by_length = [words[i] for i in longest_first]
    weights = [counts[i] for i in longest_first]
    del longest_first
    out: dict[str, int] = {}
    reach = len(by_length)
    for length in range(1, (len(by_length[0]) if by_length else 0) + 1):
        # words long enough for a suffix of this length after their first character
        # (without a joiner, from their first: the whole word counts too)
        while reach and len(by_length[reach - 1]) < length + (1 if joiner else 0):
            reach -= 1
        table: dict[str, int] = {}
        for word, count in zip(by_length[:reach], weights[:reach], strict=True):
            suffix = word[-length:]
            table[suffix] = table.get(suffix, 0) + count
        if floor is None:
            out.update(table)
        else:
            out.update((s, w) for s, w in table.items() if w >= floor)
    return out


# ---------------------------------------------------------------- fast rounds (integers)


def _suffix_weights(words, tokens, joiner: str):
    """Weight of each piece-start suffix: ``(plain, joined)`` dicts, joined keyed bare.

    ``tokens=None`` is the first round (every position starts a piece); otherwise the
    pieces are the greedy longest-match split of each word over ``tokens``. With no
    joiner, suffixes are plain tokens like whole words.
    """
    plain: dict[str, int] = {}
    joined: dict[str, int] = plain if not joiner else {}
    for word, count in words:
        starts = range(len(word)) if tokens is None else _piece_starts(word, tokens, joiner)
        if not starts:
            continue
        plain[word] = plain.get(word, 0) + count
        for s in starts[1:]:
            suffix = word[s:]
            joined[suffix] = joined.get(suffix, 0) + count
    return plain, joined


def _piece_starts(word: str, tokens: dict, joiner: str) -> list[int]:
    """Start index of each greedy longest-match piece of ``word``; [] if it cannot split.

    Pieces after the first are looked up with the joiner in front, as in TF.
    """
    if word in tokens:
        return [0]
    starts = []
    start, n = 0, len(word)
    prefix = ""
    while start < n:
        end = n
        while end > start and prefix + word[start:end] not in tokens:
            end -= 1
        if end == start:
            return []
        starts.append(start)
        start, prefix = end, joiner
    return starts


def _kept_tokens(plain, joined: dict | None, thresh, joiner: str) -> dict:
    """Tokens whose reduced count reaches ``thresh``, with that count.

    ``plain``: ``(token, weight)`` pairs; ``joined``: weights keyed bare (None: none). A
    joined token can equal a plain one only when a word starts with the joiner; TF then
    keeps the joined token's count (it is shorter, so it is written last).
    """
    if thresh <= 0:
        plain = _with_zero_prefixes(dict(plain)).items()
        joined = None if joined is None else _with_zero_prefixes(joined)
    kept = {tok: c for tok, c in plain if c >= thresh}
    if joiner and joined is not None:
        kept.update((joiner + tok, c) for tok, c in joined.items() if c >= thresh)
    return kept


def _with_zero_prefixes(weights: dict) -> dict:
    """Add every proper prefix with reduced count 0 (kept only when thresh <= 0)."""
    out = dict(weights)
    for token in weights:
        for i in range(1, len(token)):
            out.setdefault(token[:i], 0)
    return out


def _final_vocabulary(reserved, chars, tokens: dict) -> list[str]:
    """Reserved tokens, sorted characters, then tokens by count desc, token asc; dedupe."""
    ranked = sorted(sorted(tokens.items()), key=lambda item: item[1], reverse=True)
    ordered = [*reserved, *sorted(chars), *(tok for tok, _ in ranked)]
    return list(dict.fromkeys(ordered))


# ---------------------------------------------------------------- exact round (any numbers)


def _exact_round(words, tokens: dict, thresh, joiner: str, first: bool) -> dict:
    """One round of the reference procedure, operation for operation (for float counts).

    Float sums depend on the order of additions, so this keeps TF's: substrings counted
    word by word, then reduced longest first in dictionary order.
    """
    by_length: dict[int, dict[str, float]] = {}
    for word, count in words:
        starts = range(len(word)) if first else _piece_starts(word, tokens, joiner)
        if not len(starts):
            continue
        for start in starts:
            head = joiner if start > 0 else ""
            for end in range(start + 1, len(word) + 1):
                table = by_length.setdefault(end - start, {})
                token = head + word[start:end]
                table[token] = table[token] + count if token in table else count
    return _reduce_exact(by_length, thresh, len(joiner))


def _reduce_exact(by_length, thresh, joiner_len: int) -> dict:
    """Keep counts >= thresh, subtracting each token's count from its proper prefixes."""
    kept = {}
    for length in sorted(by_length, reverse=True):
        for token, count in by_length[length].items():
            if count >= thresh:
                kept[token] = count
            shift = joiner_len if len(token) > length else 0
            for i in range(1, length):
                table = by_length.get(i)
                prefix = token[:i + shift]
                if table is not None and prefix in table:
                    table[prefix] -= count
    return kept
