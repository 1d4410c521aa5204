"""State, per reference implementation, the character facts BERT tokenization depends on.

Three references disagree on edge cases ("flavors", see docs/architecture.md):

- ``bert``: google-research/bert ``tokenization.py``, on Python's ``unicodedata``;
- ``huggingface``: HF ``tokenizers`` (Rust), whose character tables are older than
  Python's; the exact sets come from probing ``tokenizers`` itself (``wordpieces/tables.py``);
- ``tensorflow``: TF Text ``BertTokenizer``, which lowercases with ICU's NFKC_Casefold
  and classifies with RE2's Unicode tables (also probed, ``wordpieces/tables.py``).

Every rule here is a function of one character, so that the pure-Python pipeline and the
native extension can build identical lookup tables from it. The few context-dependent
behaviours are flagged by ``Flavor.context_chars`` and handled by the normalizer's slow
path: Python's final-sigma rule in ``str.lower`` (``bert``), and NFD's reordering of
combining marks across characters (``huggingface`` when stripping accents,
``tensorflow`` when lowercasing), which ``Flavor.fix_context`` applies.

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


def reorder_marks(streams: list[str | None], parts: list[str], ccc, is_mark, finish) -> None:
    """Reorder combining marks across characters as the references' NFD of the text does.

    ``streams[i]`` is character i's decomposition before marks are dropped (``""`` if
    it was deleted earlier, ``None`` if it became a space or a spaced-out CJK character:
    a boundary); ``parts[i]`` is what it became on its own. Characters whose content
    changed get their part rebuilt: ``finish(c)`` of each character not dropped
    (``is_mark(cp)``) that now aligns to them.
    """
    final, changed = _canonical_order(streams, ccc)
    rebuilt: dict[int, list[str]] = {i: [] for i in changed if streams[i] is not None}
    for c, owner in final:
        if owner in rebuilt and not is_mark(ord(c)):
            rebuilt[owner].append(finish(c))
    for i, chars in rebuilt.items():
        parts[i] = "".join(chars)


def _canonical_order(streams: list[str | None], ccc) -> tuple[list[tuple[str, int]], set[int]]:
    """Return every decomposed character in NFD order with the character it aligns to.

    NFD sorts each run of nonzero-class characters (``ccc(cp)``), ended by any starter,
    stably by class. Alignment follows HF's NFD: the first character of a decomposition
    takes the next original character's span, the others the previous one's, and that
    flag travels with the character when it is sorted, so a kept mark can land on a
    neighbour whose own marks are dropped. Also returns the characters that changed.
    """
    final: list[tuple[str, int]] = []
    changed: set[int] = set()
    run: list[tuple[str, bool, int]] = []  # (character, first of its decomposition, owner)
    last_first = run_prev = -1
    for i, stream in enumerate(streams):
        for j, c in enumerate(" " if stream is None else stream):
            if ccc(ord(c)):
                if not run:
                    run_prev = last_first
                run.append((c, j == 0, i))
            else:
                _sort_run(run, run_prev, ccc, final, changed)
                final.append((c, i))
            if j == 0:
                last_first = i
    _sort_run(run, run_prev, ccc, final, changed)
    return final, changed


def _sort_run(run: list, run_prev: int, ccc, final: list, changed: set[int]) -> None:
    """Append one run of marks to ``final`` in class order, re-aligned; empty ``run``."""
    ordered = sorted(run, key=lambda item: ccc(ord(item[0])))
    if ordered == run:
        final.extend((c, owner) for c, _, owner in run)
    else:
        firsts = iter([owner for _, first, owner in run if first])
        owner = run_prev if run_prev >= 0 else run[0][2]
        for c, first, old in ordered:
            owner = next(firsts) if first else owner
            final.append((c, owner))
            changed.update((old, owner))
    run.clear()


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

    def active_context(self, lowercase: bool, strip_accents: bool) -> frozenset[str]:
        """The ``context_chars`` that matter with these options (lowercasing, here)."""
        return self.context_chars if lowercase else frozenset()

    def fix_context(self, text: str, parts: list[str], *, clean_text: bool,
                    handle_chinese_chars: bool, lowercase: bool) -> None:
        """Correct ``parts`` (per-character results) where neighbours matter; default: none."""

    def mark_streams(self, text: str, decompose, clean_text: bool,
                     handle_chinese_chars: bool) -> list[str | None]:
        """Each character as NFD sees it after cleaning: its decomposition, "" if deleted,
        None if it became a space or a spaced-out CJK character (a boundary)."""
        streams: list[str | None] = []
        for ch in text:
            if clean_text and self.removed(ch):
                streams.append("")
            elif (clean_text and self.to_space(ch)) or (handle_chinese_chars and self.is_cjk(ch)):
                streams.append(None)
            else:
                streams.append(decompose(ch))
        return streams


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

    def active_context(self, lowercase: bool, strip_accents: bool) -> frozenset[str]:
        # Final sigma needs lowercasing; mark reordering needs NFD (accent stripping).
        active = frozenset("\u03a3") if lowercase else frozenset()
        return active | (_bert_kept_mark_chars() if strip_accents else frozenset())

    def fix_context(self, text: str, parts: list[str], *, clean_text: bool,
                    handle_chinese_chars: bool, lowercase: bool) -> None:
        # BERT runs NFD over the whole lowercased token, so canonical reordering can
        # move a kept mark (a spacing mark with a combining class) across characters.
        if _bert_kept_mark_chars().isdisjoint(text):
            return
        def decompose(ch: str) -> str:
            return unicodedata.normalize("NFD", ch.lower() if lowercase else ch)

        streams = self.mark_streams(text, decompose, clean_text, handle_chinese_chars)
        reorder_marks(streams, parts, lambda cp: unicodedata.combining(chr(cp)),
                      lambda cp: unicodedata.category(chr(cp)) == "Mn", str)


@cache
def _bert_kept_mark_chars() -> frozenset[str]:
    """Characters whose NFD holds a mark that has a combining class but is not Mn."""
    return frozenset(
        ch for ch in map(chr, range(0x110000))
        if unicodedata.decomposition(ch) or unicodedata.combining(ch)
        if any(unicodedata.combining(d) and unicodedata.category(d) != "Mn"
               for d in unicodedata.normalize("NFD", ch)))


class HuggingFaceFlavor(Flavor):
    """HF ``tokenizers``' BertNormalizer/BertPreTokenizer, on tables probed from it.

    Clean deletes controls, format and private-use characters (not unassigned ones)
    and turns whitespace into spaces; strip accents is HF's NFD then "drop Mn" on its
    own (older) tables; lowercase is Rust's per-character ``to_lowercase``.
    """

    def removed(self, ch: str) -> bool:
        return tables.hf_is_control(ord(ch))

    def to_space(self, ch: str) -> bool:
        return tables.hf_clean_to_space(ord(ch))

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
        return tables.hf_is_punctuation(ord(ch))

    def active_context(self, lowercase: bool, strip_accents: bool) -> frozenset[str]:
        # Only strip accents decomposes; HF's lowercase is per character.
        return self.context_chars if strip_accents else frozenset()

    def fix_context(self, text: str, parts: list[str], *, clean_text: bool,
                    handle_chinese_chars: bool, lowercase: bool) -> None:
        # HF cleans and spaces out CJK before stripping accents: deleted characters
        # vanish from NFD's view, spaces and CJK characters end a run of marks.
        streams = self.mark_streams(text, tables.hf_decompose, clean_text,
                                    handle_chinese_chars)
        finish = tables.hf_lowercase if lowercase else str
        reorder_marks(streams, parts, tables.hf_ccc, tables.hf_is_mark_nonspacing, finish)


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
        return tables.tf_is_whitespace(ord(ch))

    def is_punct(self, ch: str) -> bool:
        return tables.tf_is_punctuation(ord(ch))

    def cleans_after_fold(self) -> bool:
        return True

    def fix_context(self, text: str, parts: list[str], *, clean_text: bool,
                    handle_chinese_chars: bool, lowercase: bool) -> None:
        # TF folds and decomposes the whole text before it replaces controls; the
        # rebuilt parts get that replacement (and CJK spacing) as in the normalizer.
        def finish(c: str) -> str:
            if clean_text and self.to_space(c):
                return " "
            return f" {c} " if handle_chinese_chars and self.is_cjk(c) else c

        streams: list[str | None] = [tables.tf_decompose(ch) for ch in text]
        reorder_marks(streams, parts, tables.tf_ccc, tables.tf_is_mark_nonspacing, finish)


@cache
def get_flavor(name: str) -> Flavor:
    """Return the rules of flavor ``name`` (``bert``, ``huggingface`` or ``tensorflow``)."""
    if name == "bert":
        # str.lower() turns a capital sigma into a final sigma depending on its
        # neighbours; that one rule is not a function of one character.
        return BertFlavor("bert", BERT_CJK_RANGES, max_input_chars_per_word=200,
                          context_chars=frozenset("\u03a3"))
    if name == "huggingface":
        return HuggingFaceFlavor("huggingface", HF_CJK_RANGES,
                                 context_chars=tables.hf_context_chars())
    if name == "tensorflow":
        return TensorFlowFlavor("tensorflow", BERT_CJK_RANGES, max_input_bytes_per_word=100,
                                context_chars=tables.tf_context_chars())
    raise ValueError(f"unknown flavor {name!r}: expected one of {', '.join(FLAVORS)}")
