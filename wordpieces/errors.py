"""Name the errors a user can meet; each message says what, where and which value.

Also the documented caps on sizes and the one checker of each kind of value, used where
the value enters (a file or an argument) so that both backends and every entry point
refuse the same values with the same words:

=============================================  ===============  =========================
value                                          cap              checked by
=============================================  ===============  =========================
``num_threads``, ``num_proc``                  1 .. 1024        ``check_thread_count``
padding ``length``, ``pad_to_multiple_of``     2**20 tokens     ``check_size``
truncation ``max_length``, ``stride``          2**24 tokens     ``check_size``
``max_input_chars_per_word`` (and ``_bytes_``) 0 .. 2**30       ``check_size``
a learner's ``vocab_size``                     reserved+1 ..    ``check_size``
                                               2**24
a count in a counts file                       19 digits        ``learn.counting``
a count in a checkpoint block                  19 digits        ``learn.count_lines``
a file's padding ``pad_id``, ``pad_type_id``,  2**31 - 1        ``check_size``
template ``type_id``
``model_max_length`` (tokenizer_config.json)   2**24 tokens,    ``formats.transformers_``
                                               or >= 10**18:    ``config``
                                               no limit
nesting of JSON arrays and objects in a file   64 levels        ``formats.strict_json``
nesting of stage ``Sequence`` blocks           16 levels        ``formats.stage_json``
a compressed input, decompressed               100 x its size   ``formats.lines``
                                               (>= 256 MiB)
a padded batch: rows x padded length           2**24 tokens     ``encoding.padding.``
                                                                ``check_padded_batch``
a normalized text                              64 x its length  ``pipeline.growth``
                                               + 65,536 chars
=============================================  ===============  =========================

Every message is non-empty (``describe_error``; a bare ``MemoryError`` included).
"""

from __future__ import annotations

import os


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


class UnsafePatternError(WordpiecesError, ValueError):
    """A regular expression from a file could take exponential time (see ``safe_regex``)."""


class MissingDependencyError(WordpiecesError, ImportError):
    """An optional extra is needed; the message says which one to install."""


class NativeFallbackError(WordpiecesError, RuntimeError):
    """A call the native path should run fell back to Python (``WORDPIECES_STRICT_NATIVE``)."""


STRICT_NATIVE_VARIABLE = "WORDPIECES_STRICT_NATIVE"


def strict_native() -> bool:
    """Whether a fallback from the native path to Python is an error (the variable is set).

    Tests set it so that a fast path that stopped running fails them instead of passing
    on the reference path: a fallback is a call the native path takes (native backend, a
    pipeline and post-processor it compiles) run in Python instead. What is Python by
    design (the pure-Python backend, stages or processors it does not compile, a text's
    literal added tokens) is not one.
    """
    return os.environ.get(STRICT_NATIVE_VARIABLE, "").strip() not in ("", "0")


def native_fallback(what: str) -> None:
    """Raise ``NativeFallbackError`` naming ``what`` in strict mode; else do nothing."""
    if strict_native():
        raise NativeFallbackError(f"{what} fell back to the pure-Python path "
                                  f"({STRICT_NATIVE_VARIABLE} is set)")


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
    """Return ``value`` if it is None or an int in 1..MAX_THREADS, else raise naming it.

    The one rule for every count of threads or processes (``num_threads``, ``num_proc``),
    so that zero, a bool or a float is refused the same way everywhere.
    """
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise ValueError(f"{name} must be a positive integer or None, got {_shown(value)}")
    if value is not None and value > MAX_THREADS:
        raise ValueError(f"{name} must be at most {MAX_THREADS} (the documented cap; the "
                         f"native encoder's limit), got {_shown(value)}")
    return value


# ---------------------------------------------------------------- caps on sizes
#
# Every size that comes from a file or an argument is checked where it enters, against
# one of these caps, so that a hostile or mistyped configuration is refused with the
# field's name instead of exhausting memory or time later (the table above).

MAX_THREADS = 1024
"""``num_threads`` / ``num_proc``: the native batch encoder's own limit, for both backends."""

MAX_PADDED_LENGTH = 1 << 20
"""Padding ``length`` and ``pad_to_multiple_of`` (1,048,576 tokens): padding allocates
every token of every sequence, ~100 bytes each, so this bounds one padded sequence to
about 100 MB; no model's context is longer."""

MAX_SEQUENCE_LENGTH = 1 << 24
"""Truncation ``max_length`` and ``stride`` (16,777,216 tokens): they allocate nothing,
but a larger value is a mistake (use no truncation instead)."""

MAX_WORD_LENGTH = 1 << 30
"""``max_input_chars_per_word`` / ``max_input_bytes_per_word``: a limit larger than any
text is no limit; the cap keeps the value inside the native code's integers."""

MAX_VOCAB_SIZE = 1 << 24
"""A learner's ``vocab_size`` (16,777,216 tokens, 50 times BERT's largest)."""

MAX_TOKEN_ID = (1 << 31) - 1
"""An id or type id a file sets (``pad_id``, ``pad_type_id``, a template's ``type_id``):
what an int32 array holds, so that both backends return the same value (a larger one
overflowed the native path and came back whole from the Python one)."""

def check_size(value, *, field: str, cap: int, minimum: int = 0,
               optional: bool = False):
    """Return ``value`` if it is an int in ``[minimum, cap]``, else raise naming ``field``.

    The one check of every size read from a file or given as an argument (padding,
    truncation, word limits, vocabulary sizes), so that a bool, a float, a negative
    number or an absurd size is refused the same way wherever it enters. ``optional``
    lets None through (no limit, or the default).
    """
    if optional and value is None:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field} must be an integer, got {_shown(value)}")
    if value < minimum:
        raise ValueError(f"{field} must be >= {minimum}, got {_shown(value)}")
    if value > cap:
        raise ValueError(f"{field} must be <= {cap:,} (the documented cap), "
                         f"got {_shown(value)}")
    return value


def _shown(value) -> str:
    """``repr`` of a value, shortened: a 5000-digit integer is not echoed whole."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_batch(texts, what: str = "texts"):
    """Return ``texts`` unless it is one ``str``/``bytes``, which a batch call refuses.

    ``encode_batch("hello")`` would otherwise encode five one-character texts; HF
    ``tokenizers`` raises ``TypeError`` too.
    """
    if isinstance(texts, (str, bytes, bytearray)):
        raise TypeError(f"{what} must be a list of texts (or of (text, pair) pairs), not "
                        f"one {type(texts).__name__}: use encode() for a single text")
    return texts


def describe_error(error: BaseException) -> str:
    """Return a message for ``error`` that is never empty.

    ``MemoryError()`` and some ``OSError``s carry no text; a report must still say what
    happened.
    """
    text = str(error)
    if isinstance(error, MemoryError):
        return "out of memory" + (f" ({text})" if text else
                                  ": the input or a size in the configuration is too large "
                                  "for this machine's memory")
    return text or f"{type(error).__name__} (no message)"
