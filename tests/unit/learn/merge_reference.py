"""Readable references for the bottom-up learner: every pair rescanned at every step.

Slow on purpose: each step recounts every pair of the segmented corpus and merges the
best by the criterion's definition, so the learner's incremental updates, heap and
deferred re-scoring are checked against the plain statement of each score.
"""

import math
from fractions import Fraction


def initial_splits(counts, prefix="##"):
    """Each word as its first character and its prefixed continuation characters."""
    return {w: [w[0], *(prefix + c for c in w[1:])] for w in counts if w}


def alphabet_of(counts, prefix="##"):
    """The initial symbols of ``counts`` (what the vocabulary holds before any merge)."""
    return {w[0] for w in counts} | {prefix + c for w in counts for c in w[1:]}


def apply_merge(parts, pair, merged):
    """``parts`` with every ``pair`` replaced, left to right; and how many were replaced."""
    out, i, replaced = [], 0, 0
    while i < len(parts):
        if i + 1 < len(parts) and (parts[i], parts[i + 1]) == pair:
            out.append(merged)
            replaced += 1
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return out, replaced


def log_likelihood(splits, counts):
    """Σ c(s)·ln(c(s)/N) over the tokens of the segmented corpus, summed exactly-rounded."""
    tokens = {}
    for word, parts in splits.items():
        for s in parts:
            tokens[s] = tokens.get(s, 0) + counts[word]
    total = sum(tokens.values())
    return math.fsum(c * math.log(c / total) for c in tokens.values())


def naive_merges(counts, steps, prefix="##", min_frequency=0):
    """The algorithm as the HF course states it, rescanning every pair each step.

    Scores are Fractions; ties go to the higher pair count, then the smaller pair.
    """
    splits = initial_splits(counts, prefix)
    merges = []
    for _ in range(steps):
        symbols, pairs = {}, {}
        for word, parts in splits.items():
            for s in parts:
                symbols[s] = symbols.get(s, 0) + counts[word]
            for pair in zip(parts, parts[1:], strict=False):
                pairs[pair] = pairs.get(pair, 0) + counts[word]
        pairs = {p: c for p, c in pairs.items() if c >= max(1, min_frequency)}
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-Fraction(pairs[p], symbols[p[0]] * symbols[p[1]]),
                                         -pairs[p], p))
        merged = best[0] + best[1][len(prefix):]
        merges.append(merged)
        splits = {w: apply_merge(parts, best, merged)[0] for w, parts in splits.items()}
    return merges


def brute_force_merges(counts, steps, prefix="##", min_frequency=0, score="likelihood"):
    """Each step, try every pair: recompute the log-likelihood after merging it.

    The order: the best gain; gains within a relative 1e-12 of it tie; ties go to more
    occurrences replaced, then to the smaller pair. ``score="count"``: the most
    occurrences replaced, then the smaller pair.
    """
    splits = initial_splits(counts, prefix)
    merges = []
    for _ in range(steps):
        pairs = {}
        for word, parts in splits.items():
            for pair in zip(parts, parts[1:], strict=False):
                pairs[pair] = pairs.get(pair, 0) + counts[word]
        pairs = [p for p, c in pairs.items() if c >= max(1, min_frequency)]
        if not pairs:
            break
        before = log_likelihood(splits, counts)
        scored = []
        for pair in pairs:
            merged = pair[0] + pair[1][len(prefix):]
            after, replaced = {}, 0
            for word, parts in splits.items():
                after[word], n = apply_merge(parts, pair, merged)
                replaced += n * counts[word]
            gain = log_likelihood(after, counts) - before if score == "likelihood" else replaced
            scored.append((gain, replaced, pair))
        best = max(gain for gain, _, _ in scored)
        tied = [(-replaced, pair) for gain, replaced, pair in scored
                if gain >= best - 1e-12 * abs(best)]
        pair = min(tied)[1]
        merged = pair[0] + pair[1][len(prefix):]
        merges.append(merged)
        splits = {w: apply_merge(parts, pair, merged)[0] for w, parts in splits.items()}
    return merges
