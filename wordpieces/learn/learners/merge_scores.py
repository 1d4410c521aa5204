"""Scores of a bottom-up merge ``(u, v) -> uv``, and the total order among merges.

Three criteria, all computed from integer counts:

- ``"count"`` (the default): ``m``, the occurrences the merge replaces, left to right
  (BPE's criterion: the tokens the merge saves); it gave the best held-out vocabularies
  (``benchmarks/learn_quality.py``).

- ``"likelihood"``: the increase of the training corpus's log-likelihood under a unigram
  model of its current tokens. With ``c(s)`` the count of token ``s``, ``N`` the total
  token count and ``f(x) = x·ln x`` (``f(0) = 0``), the corpus log-likelihood is
  ``L = Σ_s c(s)·ln(c(s)/N) = Σ_s f(c(s)) - f(N)``. Merging ``u, v`` into ``w = uv``
  replaces ``m`` occurrences (left to right: ``##a ##a ##a`` holds one), so ``c(u)`` and
  ``c(v)`` lose ``m`` each (``2m`` when ``u = v``), ``c(w)`` gains ``m`` (``w`` may
  already be a token) and ``N`` loses ``m``::

      gain = Σ_{s in {u, v, w}} [f(c'(s)) - f(c(s))] - [f(N - m) - f(N)]
           = Δf(c(u), -m) + Δf(c(v), -m) + Δf(c(w), +m) - Δf(N, -m)   (u, v, w distinct)

  with ``Δf(c, d) = f(c + d) - f(c) = d·ln c + (c + d)·ln(1 + d/c)``, the form
  computed here (``log1p``: no cancellation between two large ``x·ln x``).
  For ``m`` small against the counts it is about ``m·ln(m·N / (c(u)·c(v)))``: the
  tutorials' ratio, weighted by how many tokens the merge saves.
- ``"pmi"``: ``count(uv) / (count(u)·count(v))`` (``count(uv)`` counts every adjacent
  pair, overlapping ones included), the tutorials' formula, compared exactly as fractions.

The order: the best score first. Likelihood scores within a relative ``1e-12`` of the
best are a tie (floats of one formula computed two ways may differ in the last bits), and
ties go to the higher count, then to the smaller pair ``(u, v)`` as strings. PMI scores
tie only when equal as fractions, then the same; counts are integers, then the pair.

Not handled here: keeping counts up to date and finding the best pair (``bottom_up``).
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["SCORES", "DEFAULT_SCORE", "TIE_TOLERANCE", "xlogx_change", "likelihood_gain",
           "likelihood_gain_of", "tie_cut", "Likelihood", "Pmi", "Count", "scorer"]

SCORES = ("count", "likelihood", "pmi")
DEFAULT_SCORE = "count"  # the best held-out vocabularies (benchmarks/learn_quality.py)
TIE_TOLERANCE = 1e-12


def xlogx_change(count: int, delta: int) -> float:
    """``f(count + delta) - f(count)`` for ``f(x) = x·ln x``, without cancellation."""
    after = count + delta
    if count == 0:
        return after * math.log(after) if after else 0.0
    if after == 0:
        return -count * math.log(count)
    ratio = delta / count
    if ratio <= -1.0:  # after ≪ count beyond 2**53: the ratio rounded to -1; no cancellation
        return after * math.log(after) - count * math.log(count)
    return delta * math.log(count) + after * math.log1p(ratio)


def likelihood_gain(merged: int, count_u: int, count_v: int, count_w: int,
                    total: int) -> float:
    """Log-likelihood gain of merging ``merged`` occurrences of distinct ``u``, ``v`` into ``w``."""
    return (xlogx_change(count_u, -merged) + xlogx_change(count_v, -merged)
            + xlogx_change(count_w, merged) - xlogx_change(total, -merged))


def likelihood_gain_of(merged: int, changes, total: int) -> float:
    """The same gain for any overlap of ``u``, ``v``, ``w``: ``changes`` = (count, delta) each."""
    return (math.fsum(xlogx_change(count, delta) for count, delta in changes)
            - xlogx_change(total, -merged))


def tie_cut(best: float) -> float:
    """The lowest likelihood score that ties with ``best``."""
    return best - TIE_TOLERANCE * abs(best)


class Likelihood:
    """The unigram log-likelihood gain; ``count`` = occurrences the merge replaces."""

    name = "likelihood"
    contextual = True  # the score reads c(w) and N, not only the pair's own counts
    replaced = True  # count = occurrences a merge replaces (runs of one symbol halved)
    reads_symbols = True  # the score reads c(u), c(v)
    heap_ordered = False  # ties are decided by a key the heap does not order by

    @staticmethod
    def cut(best: float) -> float:
        return tie_cut(best)

    @staticmethod
    def tie_key(count: int, count_u: int, count_v: int, name_u: str, name_v: str):
        """Among tied scores: the higher count, then the smaller pair."""
        return (-count, name_u, name_v)


class Pmi:
    """``count(uv) / (count(u)·count(v))``; ``count`` = every adjacent pair."""

    name = "pmi"
    contextual = False
    replaced = False
    reads_symbols = True
    heap_ordered = False

    @staticmethod
    def cut(best: float) -> float:
        # Correctly rounded division never inverts two fractions: only equal floats
        # may hide an order, which the exact key settles.
        return best

    @staticmethod
    def tie_key(count: int, count_u: int, count_v: int, name_u: str, name_v: str):
        """The exact fraction, then the higher count, then the smaller pair."""
        return (-Fraction(count, count_u * count_v), -count, name_u, name_v)


class Count:
    """The occurrences a merge replaces (BPE's criterion): the tokens it saves."""

    name = "count"
    contextual = False
    replaced = True
    reads_symbols = False
    heap_ordered = True  # (-count, u, v): the heap's own tuple order

    @staticmethod
    def cut(best: float) -> float:
        return best  # integer scores: exact as floats

    @staticmethod
    def tie_key(count: int, count_u: int, count_v: int, name_u: str, name_v: str):
        """Among equal counts: the smaller pair."""
        return (-count, name_u, name_v)


def scorer(name: str):
    """The criterion called ``name``, or ValueError naming the choices."""
    if name == "likelihood":
        return Likelihood
    if name == "pmi":
        return Pmi
    if name == "count":
        return Count
    raise ValueError(f"unknown score {name!r}: expected one of {', '.join(SCORES)}")
