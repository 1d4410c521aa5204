"""The bottom-up learner's merge loop by count or likelihood in C, when the extension is built.

``NativeMergeState`` has ``MergeState``'s interface (``alphabet``, ``merge_best``) and
gives the same merges, by ``score="count"`` or ``"likelihood"``
(``tests/unit/learn/test_native_merge.py`` and ``test_native_likelihood.py`` check them
against the pure-Python ``MergeState`` on real corpora and on generated counts). The
extension ``_merge_native`` is built by ``setup.py`` from ``native/*.c`` next to this file;
without it, with ``WORDPIECES_BACKEND=python``, or with counts too large for its integers
(or, for the likelihood, for exact doubles: a total of 2**53 tokens), the learner runs in
Python.

``native_used_tokens`` is ``bottom_up.used_tokens`` (the tokens WordPiece's greedy
segmentation of the training words uses, for ``drop_unused``) in C.

Not handled here: the score "pmi" (pure Python), the vocabulary and what ``drop_unused``
keeps (``bottom_up``).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from ...errors import MissingDependencyError, WordpiecesError
from .common import WordList

__all__ = ["NATIVE_SCORES", "native_merge_error", "NativeMergeState", "native_used_tokens"]

_merge_native: Any  # the extension module (no type stubs), or None when it is missing
try:
    _merge_native = importlib.import_module(__name__.rpartition(".")[0] + "._merge_native")
    _MISSING = ""
except ImportError as e:  # not built (no compiler, WORDPIECES_NO_NATIVE=1), or another Python
    _merge_native, _MISSING = None, f"the merge extension is not available ({e})"

# The scores the C loop ranks by ("pmi" stays in Python).
NATIVE_SCORES = ("count", "likelihood")
# Counts and their sums are int64 in C; bigger ones stay in Python (exact integers). The
# likelihood converts counts to doubles as Python does: exact only below 2**53.
_ROOM = {"count": 2**62, "likelihood": 2**53}


def extension() -> Any:
    """The learner extension module (``refine``'s C loop lives there too), or None."""
    return _merge_native


def native_merge_error(words, score: str = "count") -> str:
    """Why ``words`` cannot be merged natively by ``score`` ("" when they can).

    ``WORDPIECES_BACKEND=python`` forces Python; ``=native`` makes a missing extension
    an error, as for encoding (``wordpieces.backend()``), and so are counts too large for
    the C loop: the strict mode never falls back to Python silently.
    """
    choice = os.environ.get("WORDPIECES_BACKEND", "auto").strip().lower() or "auto"
    if choice == "python":
        return "WORDPIECES_BACKEND=python"
    if _merge_native is None:
        if choice == "native":
            raise MissingDependencyError(f"WORDPIECES_BACKEND=native but {_MISSING}; reinstall "
                                         "wordpieces where a C compiler is available")
        return _MISSING or "the merge extension is not available"
    total = sum(c * len(w) for w, c in words)
    if total >= _ROOM[score]:
        reason = (f"a total of {total:,} characters is too large for the C loop by {score} "
                  f"(below 2**{_ROOM[score].bit_length() - 1})")
        if choice == "native":
            raise WordpiecesError(f"WORDPIECES_BACKEND=native but {reason}; unset it to "
                                  "learn in Python")
        return reason
    return ""


class NativeMergeState:
    """Words merged in C by count or likelihood: ``MergeState``'s interface.

    Symbols are named and numbered as ``MergeState`` does (the initial ones sorted), so
    ids and the tie order by name agree.
    """

    def __init__(self, words, prefix: str, initial_alphabet, chars, *, min_frequency: int,
                 score: str = "count"):
        self.prefix = prefix
        words = WordList.of(words)
        firsts = {w[0] for w in words.words}
        rests = set("".join(w[1:] for w in words.words))
        initial = [f for ch in initial_alphabet if ch in chars for f in (ch, prefix + ch)]
        self.names: list[str] = sorted({*firsts, *(prefix + ch for ch in rests), *initial})
        self.ids = {name: i for i, name in enumerate(self.names)}
        self._alphabet = list(self.names)
        table = sorted(firsts | rests)
        # A character never seen first (or never after it) needs no id there: no word
        # spells it that way.
        self.merger = _merge_native.Merger(
            words.words, words.counts, [ord(ch) for ch in table],
            [self.ids.get(ch, 0) for ch in table],
            [self.ids.get(prefix + ch, 0) for ch in table],
            self.names, min_frequency, score, prefix)

    def alphabet(self) -> list[str]:
        """The initial symbols, sorted by code point (``##x`` before letters)."""
        return list(self._alphabet)

    def merge_best(self) -> str | None:
        """Merge the pair first in the score's order; return the new token (None: none left)."""
        pair = self.merger.pop_best()
        if pair is None:
            return None
        a, b = pair
        token = self.names[a] + self.names[b][len(self.prefix):]
        new = self.ids.get(token)
        if new is None:
            new = self.ids[token] = self.merger.add_symbol(token)
            self.names.append(token)
        self.merger.merge(a, b, new)
        return token


def native_used_tokens(words, vocab: set[str], prefix: str) -> set[str]:
    """The tokens of ``vocab`` the greedy longest-match-first segmentation of ``words`` uses."""
    tokens = list(vocab)
    flags = _merge_native.used_tokens(WordList.of(words).words, tokens, prefix)
    return {token for token, used in zip(tokens, flags, strict=True) if used}
