"""Name the errors a user can meet; each message says what, where and which value."""

from __future__ import annotations


class WordpiecesError(Exception):
    """Base of every error this package raises on purpose."""


class VocabError(WordpiecesError, ValueError):
    """A vocabulary is malformed (duplicate token, empty line, bad encoding, missing unk)."""


class FormatError(WordpiecesError, ValueError):
    """A saved file (tokenizer.json, wordpieces.json, bundle, counts) cannot be understood."""


class TokenizeError(WordpiecesError, ValueError):
    """Text cannot be tokenized as asked (e.g. a piece missing from a closed vocabulary)."""


class PipelineMismatchError(WordpiecesError, ValueError):
    """Word counts were made with another normalizer or pre-tokenizer than expected."""


class MissingDependencyError(WordpiecesError, ImportError):
    """An optional extra is needed; the message says which one to install."""


def require(module: str, extra: str):
    """Import an optional dependency or raise a friendly error naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"this needs the optional dependency {module!r}: "
            f"pip install 'wordpieces[{extra}]'") from None


def check_thread_count(value, name: str = "num_threads"):
    """Return ``value`` if it is None or an int >= 1, else raise ``ValueError`` naming it.

    The one rule for every count of threads or processes (``num_threads``, ``num_proc``),
    so that zero, a bool or a float is refused the same way everywhere.
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
    return value
