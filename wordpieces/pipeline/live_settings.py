"""Count the changes made to stage options after construction, so caches can follow them.

HF ``tokenizers`` lets a user set a stage's options on a live tokenizer
(``tok.normalizer.lowercase = False``). A ``Tokenizer`` here caches what it built from
its stages (the word encoder: its character tables, the native extension's tables, its
chunk caches; the added-token matcher). Each settable option's setter calls
``settings_changed()``; a tokenizer remembers the ``settings_generation()`` it built
at and builds again when the number has moved (``Tokenizer._seq``). One number for
all stages: a change is rare, a check is one comparison, and a stage needs no link
back to the tokenizers that hold it (one stage may sit in several).

Constructors do not call it: building a stage changes no existing tokenizer.
"""

from __future__ import annotations

import itertools

_counter = itertools.count(1)  # next() is atomic in CPython: no lock needed
_state = {"generation": 0}


def settings_changed() -> None:
    """Record that an option of some stage changed: every tokenizer rebuilds on next use."""
    _state["generation"] = next(_counter)


def settings_generation() -> int:
    """The number of the latest change (compare with the one a cache was built at)."""
    return _state["generation"]
