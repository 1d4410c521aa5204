"""State, per reference implementation, the character facts BERT tokenization depends on.

Three references disagree on edge cases ("flavors", see DESIGN.md §2):

- ``bert``: google-research/bert ``tokenization.py``, on Python's ``unicodedata``;
- ``huggingface``: HF ``tokenizers`` (Rust), whose character tables are older than
  Python's; the exact sets come from probing ``tokenizers`` itself (``wordpieces/tables.py``);
- ``tensorflow``: TF Text ``BertTokenizer``, which lowercases with ICU's NFKC_Casefold
  and classifies with RE2's Unicode tables (also probed, ``wordpieces/tables.py``).

Every rule here is a function of one character, so that the pure-Python pipeline and the
native extension can build identical lookup tables from it. The few context-dependent
behaviours (Python's final-sigma rule in ``str.lower``) are flagged by
``Flavor.context_chars`` and handled by the normalizer's slow path.

Not handled here: applying the rules to text (``normalizers``, ``pre_tokenizers``).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cache

from . import tables

FLAVORS = ("bert", "huggingface", "tensorflow")

# BERT's CJK ranges (google-research/bert, TF Text). The fifth range starts at 0x2B820.
BERT_CJK_RANGES = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)
# HF tokenizers starts the fifth range at 0x2B920, a typo it keeps (tokenizers#2395);
# reproduced on purpose so that ids match HF.
HF_CJK_RANGES = BERT_CJK_RANGES[:5] + ((0x2B920, 0x2CEAF),) + BERT_CJK_RANGES[6:]


def in_ranges(cp: int, ranges) -> bool:
    """Tell whether code point ``cp`` lies in one of the inclusive ``ranges``."""
    return any(lo <= cp <= hi for lo, hi in ranges)


def is_ascii_punctuation(cp: int) -> bool:
    """ASCII 33-47, 58-64, 91-96, 123-126: punctuation for every reference."""
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126


def strip_marks(text: str, marks: frozenset[int] | None = None) -> str:
    """Decompose (NFD) and drop nonspacing marks (Mn, or the given set)."""
    decomposed = unicodedata.normalize("NFD", text)
    if marks is None:
        return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")
    return "".join(c for c in decomposed if ord(c) not in marks)


# ---------------------------------------------------------------- per-flavor rules


@dataclass(frozen=True)
class Flavor:
    """One reference's character rules, each a pure function of one character.

    The normalizer applies, per character, in the reference's order: ``removed``
    (deleted by clean_text), ``to_space`` (turned into a space by clean_text), CJK
    spacing, then ``fold`` (lowercase and/or accent stripping, as configured). The
    pre-tokenizer then splits the result on ``is_space`` and isolates ``is_punct``.
    """

    name: str
    cjk_ranges: tuple
    max_input_chars_per_word: int = 100
    max_input_bytes_per_word: int | None = None
    context_chars: frozenset[str] = field(default_factory=frozenset)

    def removed(self, ch: str) -> bool:
        raise NotImplementedError

    def to_space(self, ch: str) -> bool:
        raise NotImplementedError

    def fold(self, ch: str, lowercase: bool, strip_accents: bool) -> str:
        raise NotImplementedError

    def is_space(self, ch: str) -> bool:
        raise NotImplementedError

    def is_punct(self, ch: str) -> bool:
        raise NotImplementedError

    def is_cjk(self, ch: str) -> bool:
        return in_ranges(ord(ch), self.cjk_ranges)

    def cleans_after_fold(self) -> bool:
        """TF folds case first and cleans controls afterwards; the others clean first."""
        return False


class BertFlavor(Flavor):
    """google-research/bert ``tokenization.py`` on this Python's ``unicodedata``."""

    def removed(self, ch: str) -> bool:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            return True
        return ch not in "\t\n\r" and unicodedata.category(ch) in ("Cc", "Cf")

    def to_space(self, ch: str) -> bool:
        return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"

    def fold(self, ch: str, lowercase: bool, strip_accents: bool) -> str:
        # BERT lowercases, then strips accents (only when lowercasing, but we allow the
        # HF-style independent switch); the order matters for a few characters.
        if lowercase:
            ch = ch.lower()
        if strip_accents:
            ch = strip_marks(ch)
        return ch

    def is_space(self, ch: str) -> bool:
        # BERT splits with str.split(), whose whitespace is str.isspace().
        return ch.isspace()

    def is_punct(self, ch: str) -> bool:
        return is_ascii_punctuation(ord(ch)) or unicodedata.category(ch).startswith("P")


class HuggingFaceFlavor(Flavor):
    """HF ``tokenizers``' BertNormalizer/BertPreTokenizer, on tables probed from it."""

    def removed(self, ch: str) -> bool:
        cp = ord(ch)
        return cp == 0 or cp == 0xFFFD or (ch not in "\t\n\r" and tables.hf_is_control(cp))

    def to_space(self, ch: str) -> bool:
        return ch in "\t\n\r" or tables.hf_is_whitespace(ord(ch))

    def fold(self, ch: str, lowercase: bool, strip_accents: bool) -> str:
        # HF strips accents first, then lowercases (normalizers/bert.rs).
        if strip_accents:
            ch = tables.hf_strip_accents(ch)
        if lowercase:
            ch = tables.hf_lowercase(ch)
        return ch

    def is_space(self, ch: str) -> bool:
        return tables.hf_is_whitespace(ord(ch))

    def is_punct(self, ch: str) -> bool:
        cp = ord(ch)
        return is_ascii_punctuation(cp) or tables.hf_is_punctuation(cp)


class TensorFlowFlavor(Flavor):
    """TF Text ``BasicTokenizer``: NFKC_Casefold + NFD - Mn, then controls to spaces."""

    def removed(self, ch: str) -> bool:
        return False

    def to_space(self, ch: str) -> bool:
        return tables.tf_is_control(ord(ch))

    def fold(self, ch: str, lowercase: bool, strip_accents: bool) -> str:
        # TF's lower_case is one fused step (case_fold_utf8, NFD, drop Mn); it has no
        # separate accent switch, so strip_accents only matters together with lowercase.
        return tables.tf_casefold_strip(ch) if lowercase else ch

    def is_space(self, ch: str) -> bool:
        # RE2's \s is ASCII only.
        return ch in " \t\n\f\r"

    def is_punct(self, ch: str) -> bool:
        cp = ord(ch)
        return is_ascii_punctuation(cp) or tables.tf_is_punctuation(cp)

    def cleans_after_fold(self) -> bool:
        return True


@cache
def get_flavor(name: str) -> Flavor:
    """Return the rules of flavor ``name`` (``bert``, ``huggingface`` or ``tensorflow``)."""
    if name == "bert":
        # str.lower() turns a capital sigma into a final sigma depending on its
        # neighbours; that one rule is not a function of one character.
        return BertFlavor("bert", BERT_CJK_RANGES, max_input_chars_per_word=200,
                          context_chars=frozenset("\u03a3"))
    if name == "huggingface":
        return HuggingFaceFlavor("huggingface", HF_CJK_RANGES)
    if name == "tensorflow":
        return TensorFlowFlavor("tensorflow", BERT_CJK_RANGES, max_input_bytes_per_word=100)
    raise ValueError(f"unknown flavor {name!r}: expected one of {', '.join(FLAVORS)}")
