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

import numbers
from collections.abc import Iterable

from ..progress import ProgressOption, accepts_progress
from .common import ordered_pairs

__all__ = ["learn_top_down"]


@accepts_progress  # progress= takes what train() takes
def learn_top_down(counts, vocab_size: int, reserved_tokens: Iterable[str], *,
                   upper_thresh: int | None = 10_000_000, lower_thresh: int | None = 10,
                   num_iterations: int = 4, max_input_tokens: int | None = 5_000_000,
                   max_token_length: int = 50, max_unique_chars: int = 1000,
                   slack_ratio: float = 0.05, include_joiner_token: bool = True,
                   joiner: str = "##", progress: ProgressOption = None) -> list[str]:
    """Learn a vocabulary of about ``vocab_size`` tokens the way BERT's TF Text tool does.

    ``counts`` is a ``WordCounts``, a dict or an iterable of ``(word, count)`` pairs. A
    dict or ``WordCounts`` is taken in canonical order (count descending, then word), so
    the result does not depend on insertion order; a list keeps its order, which TF's
    learner uses to break ties when ``max_input_tokens`` cuts the word list. As in TF
    the result may be larger or much smaller than ``vocab_size``: the binary search stops
    when it runs out of thresholds.

    >>> learn_top_down([("apple", 2), ("peach", 1), ("pear", 1)], 10, [], lower_thresh=1,
    ...                include_joiner_token=False)
    ['a', 'c', 'e', 'h', 'l', 'p', 'r', 'apple', 'peach', 'pear']
    """
    pairs = ordered_pairs(counts)
    if not pairs:
        raise ValueError("learn_top_down: no word counts to learn from")
    upper, lower = _search_bounds(pairs, upper_thresh, lower_thresh)
    reserved = list(reserved_tokens)
    words = _input_words(pairs, set(reserved), max_token_length)
    allowed = _allowed_chars(words, max_unique_chars)
    words = _filter_words(words, allowed, max_input_tokens)
    joiner = joiner if include_joiner_token else ""
    learner = ThresholdLearner(words, reserved, num_iterations=num_iterations, joiner=joiner)
    return _binary_search(learner, lower, upper, vocab_size, slack_ratio, progress)


# ---------------------------------------------------------------- input preparation


def _search_bounds(pairs, upper_thresh, lower_thresh):
    """Clip the thresholds to the largest and smallest raw count (None: use them)."""
    values = [count for _, count in pairs]
    top, bottom = max(values), min(values)
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


class ThresholdLearner:
    """Produce the vocabulary for one threshold; the first round is shared by all.

    ``joiner`` is ``""`` when no joiner tokens are wanted (TF's learner behaves the same
    with ``include_joiner_token=False`` and with an empty joiner).
    """

    def __init__(self, words, reserved: list[str], *, num_iterations: int, joiner: str):
        self.reserved = reserved
        self.num_iterations = num_iterations
        self.joiner = joiner
        self.chars = {ch for word, _ in words for ch in word}
        self.integral = all(isinstance(c, numbers.Integral) for _, c in words)
        if not self.integral:
            self.words = list(words)
            return
        self.words = _merge_duplicates(words)
        self.counts = dict(self.words)
        self.max_length = max((len(w) for w in self.counts), default=0)
        self.first_round = _suffix_weights(self.words, None, joiner)
        # With a joiner, and no word starting with it, the plain tokens of every later
        # round are exactly the characters and the words whose count reaches the
        # threshold: a word's first piece is its longest such prefix, known in advance.
        self.fast = bool(joiner) and not any(w.startswith(joiner) for w in self.counts)
        self.prefixes = _word_prefixes(self.counts) if self.fast else {}
        self._remainders_of: tuple | None = None

    def vocab(self, thresh) -> list[str]:
        """Return the vocabulary TF's ``learn_with_thresh`` gives for ``thresh``."""
        tokens = self._with_chars({})
        for iteration in range(self.num_iterations):
            if not self.integral:
                kept = _exact_round(self.words, tokens, thresh, self.joiner, iteration == 0)
            elif iteration == 0:
                kept = _kept_tokens(self.first_round, thresh, self.joiner)
            elif self.fast and thresh > 0:
                kept = _kept_tokens((self.counts, self._joined_weights(tokens, thresh)),
                                    thresh, self.joiner)
            else:
                kept = _kept_tokens(_suffix_weights(self.words, tokens, self.joiner),
                                    thresh, self.joiner)
            tokens = self._with_chars(kept)
        return _final_vocabulary(self.reserved, self.chars, tokens)

    def _with_chars(self, tokens: dict) -> dict:
        """Add every character (and joiner + character) missing from ``tokens``, count 1."""
        for ch in self.chars:
            tokens.setdefault(ch, 1)
            if self.joiner:
                tokens.setdefault(self.joiner + ch, 1)
        return tokens

    def _joined_weights(self, tokens: dict, thresh) -> dict[str, int]:
        """Weights of the joined suffixes (keyed bare) for the fast case.

        Words whose count reaches ``thresh`` are whole tokens and add no suffix. For the
        others the first piece is their longest kept-word prefix (or first character);
        what follows is split greedily among the joined tokens. That split depends only
        on the remaining suffix, so weights are pooled per suffix and each distinct
        suffix is split once, longest first (a suffix only feeds shorter ones).
        """
        jl = len(self.joiner)
        bare = {tok[jl:] for tok in tokens if tok.startswith(self.joiner)}
        longest = max(map(len, bare), default=1)
        pending = [dict(bucket) for bucket in self._remainders(thresh)]
        for length in range(len(pending) - 1, 1, -1):
            for suffix, weight in pending[length].items():
                if suffix in bare:
                    continue  # one piece: nothing follows
                end = length - 1 if length <= longest else longest
                while end > 1 and suffix[:end] not in bare:
                    end -= 1
                bucket = pending[length - end]
                rest = suffix[end:]
                bucket[rest] = bucket.get(rest, 0) + weight
        joined: dict[str, int] = {}
        for bucket in pending:
            joined.update(bucket)  # each suffix sits in the bucket of its length only
        return joined

    def _remainders(self, thresh) -> list[dict[str, int]]:
        """What follows the first piece of each word below ``thresh``, pooled by length.

        The same for every round of one threshold, so it is computed once per threshold.
        """
        if self._remainders_of and self._remainders_of[0] == thresh:
            return self._remainders_of[1]
        buckets: list[dict[str, int]] = [{} for _ in range(self.max_length + 1)]
        for word, count in self.words:
            if count < thresh:
                start = self._first_piece_end(word, thresh)
                if start < len(word):
                    rest = word[start:]
                    bucket = buckets[len(rest)]
                    bucket[rest] = bucket.get(rest, 0) + count
        self._remainders_of = (thresh, buckets)
        return buckets

    def _first_piece_end(self, word: str, thresh) -> int:
        """End of the longest proper prefix of ``word`` that is a kept word (else 1)."""
        for end, count in self.prefixes.get(word, ()):
            if count >= thresh:
                return end
        return 1


def _word_prefixes(counts: dict[str, int]) -> dict[str, list[tuple[int, int]]]:
    """For each word, its proper prefixes (2+ characters) that are words: (end, count)."""
    out = {}
    for word in counts:
        found = [(end, counts[word[:end]]) for end in range(len(word) - 1, 1, -1)
                 if word[:end] in counts]
        if found:
            out[word] = found
    return out


def _merge_duplicates(words):
    """Sum the counts of repeated words (integer sums do not depend on order); drop ""."""
    merged: dict[str, int] = {}
    for word, count in words:
        if not word:
            continue  # an empty word has no substring: TF counts nothing for it
        merged[word] = merged.get(word, 0) + int(count)
    return list(merged.items())


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


def _kept_tokens(weights, thresh, joiner: str) -> dict:
    """Tokens whose reduced count reaches ``thresh``, with that count.

    A joined token can equal a plain one only when a word starts with the joiner; TF
    then keeps the joined token's count (it is shorter, so it is written last).
    """
    plain, joined = weights
    if thresh <= 0:
        plain, joined = _with_zero_prefixes(plain), _with_zero_prefixes(joined)
    kept = {tok: c for tok, c in plain.items() if c >= thresh}
    if joiner:
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
