"""Answer per-code-point questions exactly as HF tokenizers and TF Text do.

The answers are not computed from Python's ``unicodedata`` (another Unicode version):
they come from tables probed from the references themselves over every code point,
shipped in ``wordpieces/flavors/data/`` next to the scripts that made them
(``probes/make_hf_tables.py``, ``probes/make_tf_tables.py``), and loaded lazily, once.

Both references decompose (NFD) and then drop nonspacing marks, and NFD reorders
combining marks *across* characters; so next to each character's own result the tables
give its decomposition and the combining classes, and ``*_context_chars`` lists the
characters whose result can depend on a neighbour (``flavors`` handles those).

Not handled here: applying the rules to text (``flavors``, ``normalizers``). Surrogate
code points, which neither reference accepts, are plain characters left unchanged.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cache, lru_cache
from importlib import resources

from .table_file import decode_result, parse_table


class RangeSet:
    """A set of code points stored as sorted inclusive ranges."""

    def __init__(self, ranges):
        ranges = sorted(ranges)
        self.starts = [a for a, _ in ranges]
        self.ends = [b for _, b in ranges]

    def __contains__(self, cp: int) -> bool:
        i = bisect_right(self.starts, cp) - 1
        return i >= 0 and cp <= self.ends[i]

    def ranges(self) -> tuple[tuple[int, int], ...]:
        return tuple(zip(self.starts, self.ends, strict=True))


class CharTable:
    """One reference's probed tables: sets, per-character results, combining classes."""

    def __init__(self, sections: dict[str, list[tuple]], *, decomposition: str):
        self.sections = sections
        self.decomposition = self._results(decomposition)
        self.ccc = {cp: int(v) for a, b, v in sections["ccc"] for cp in range(a, b + 1)}
        self.marks = self.set("mark_nonspacing")
        self.lowercase = self._results("lowercase") if "lowercase" in sections else {}

    @classmethod
    def load(cls, filename: str, *, decomposition: str) -> CharTable:
        text = resources.files("wordpieces.flavors.data").joinpath(filename).read_text("ascii")
        return cls(parse_table(text, filename), decomposition=decomposition)

    def set(self, name: str) -> RangeSet:
        return RangeSet((a, b) for a, b in self.sections[name])

    def _results(self, name: str) -> dict[int, str]:
        return {cp: decode_result(v, cp) for a, b, v in self.sections[name]
                for cp in range(a, b + 1)}

    def decompose(self, ch: str) -> str:
        """The character's decomposition, before marks are dropped."""
        return self.decomposition.get(ord(ch), ch)

    def strip(self, ch: str) -> str:
        """The character's own decomposition without nonspacing marks."""
        marks = self.marks
        return "".join(c for c in self.decompose(ch) if ord(c) not in marks)

    def context_chars(self) -> frozenset[str]:
        """Characters leaving a mark that NFD may move past a neighbour's mark."""
        movable = {cp for cp, cls in self.ccc.items() if cls and cp not in self.marks}
        found = {chr(cp) for cp in movable}
        found.update(chr(cp) for cp, d in self.decomposition.items()
                     if any(ord(c) in movable for c in d))
        return frozenset(found)


@cache
def hf_table() -> CharTable:
    """HF tokenizers' tables (``data/huggingface.txt``)."""
    return CharTable.load("huggingface.txt", decomposition="nfd")


@cache
def tf_table() -> CharTable:
    """TF Text's tables (``data/tensorflow.txt``)."""
    return CharTable.load("tensorflow.txt", decomposition="casefold_nfd")


@cache
def _set(table: str, name: str) -> RangeSet:
    return (hf_table() if table == "hf" else tf_table()).set(name)


# ---------------------------------------------------------------- Hugging Face


def hf_is_control(cp: int) -> bool:
    """True if HF's ``clean_text`` deletes ``cp`` (controls, format, private use, 0, FFFD)."""
    return cp in _set("hf", "removed")


def hf_clean_to_space(cp: int) -> bool:
    """True if HF's ``clean_text`` turns ``cp`` into a space (and does not delete it)."""
    return cp in _set("hf", "to_space")


def hf_is_whitespace(cp: int) -> bool:
    """True if HF's BertPreTokenizer splits on ``cp`` and drops it."""
    return cp in _set("hf", "whitespace")


def hf_is_punctuation(cp: int) -> bool:
    """True if HF's BertPreTokenizer isolates ``cp`` (ASCII punctuation included)."""
    return cp in _set("hf", "punctuation")


def hf_cjk_ranges() -> tuple[tuple[int, int], ...]:
    """The ranges HF's ``handle_chinese_chars`` spaces out, as probed."""
    return _set("hf", "cjk").ranges()


@lru_cache(maxsize=65536)
def hf_strip_accents(text: str) -> str:
    """HF's strip accents, character by character: NFD, then drop its Mn.

    Marks that NFD would reorder across characters are not moved here (see
    ``hf_context_chars``).
    """
    table = hf_table()
    return "".join(table.strip(c) for c in text)


@lru_cache(maxsize=65536)
def hf_lowercase(text: str) -> str:
    """HF's lowercase: Rust's ``char::to_lowercase`` on each character (no final sigma)."""
    lower = hf_table().lowercase
    return "".join(lower.get(ord(c), c) for c in text)


def hf_decompose(ch: str) -> str:
    """HF's NFD of one character."""
    return hf_table().decompose(ch)


def hf_ccc(cp: int) -> int:
    """HF's canonical combining class of ``cp`` (0 for starters)."""
    return hf_table().ccc.get(cp, 0)


def hf_is_mark_nonspacing(cp: int) -> bool:
    """True if HF's strip accents drops ``cp`` after NFD."""
    return cp in hf_table().marks


@cache
def hf_context_chars() -> frozenset[str]:
    """Characters whose stripped form can be reordered with a neighbour's by HF's NFD."""
    return hf_table().context_chars()


# ---------------------------------------------------------------- TensorFlow Text


def tf_is_control(cp: int) -> bool:
    """True if TF's ``\\p{Cc}|\\p{Cf}`` (RE2) matches ``cp``: it becomes a space."""
    return cp in _set("tf", "control")


def tf_is_whitespace(cp: int) -> bool:
    """True if RE2's ``\\s`` (ASCII only) matches ``cp``."""
    return cp in _set("tf", "whitespace")


def tf_is_punctuation(cp: int) -> bool:
    """True if TF's punctuation alternation (ASCII ranges and RE2 ``\\p{P}``) matches."""
    return cp in _set("tf", "punctuation")


def tf_cjk_ranges() -> tuple[tuple[int, int], ...]:
    """The ranges TF's split regex isolates as CJK characters, as probed."""
    return _set("tf", "cjk").ranges()


@lru_cache(maxsize=65536)
def tf_casefold_strip(text: str) -> str:
    """TF's ``lower_case`` character by character: NFKC_Casefold, NFD, drop RE2 Mn.

    Marks that NFD would reorder across characters are not moved here (see
    ``tf_context_chars``).
    """
    table = tf_table()
    return "".join(table.strip(c) for c in text)


def tf_decompose(ch: str) -> str:
    """TF's NFD(NFKC_Casefold(ch)), before marks are dropped."""
    return tf_table().decompose(ch)


def tf_ccc(cp: int) -> int:
    """ICU's canonical combining class of ``cp`` as TF's NFD uses it (0 for starters)."""
    return tf_table().ccc.get(cp, 0)


def tf_is_mark_nonspacing(cp: int) -> bool:
    """True if TF's ``\\p{Mn}`` (RE2) deletes ``cp`` after NFD."""
    return cp in tf_table().marks


@cache
def tf_context_chars() -> frozenset[str]:
    """Characters whose folded form can be reordered with a neighbour's by TF's NFD."""
    return tf_table().context_chars()
