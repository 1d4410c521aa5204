"""Normalize text while remembering where each normalized character came from.

A normalizer turns a ``str`` into a ``NormalizedString``: the normalized text plus, for
every normalized character, the ``(start, end)`` span of the original characters it came
from. Offsets of tokens are read through that alignment, so they always point into the
text the user gave.

``BertNormalizer`` reproduces the three references (``flavor="bert"|"huggingface"|
"tensorflow"``, see ``flavors``) exactly. The generic normalizers (``Lowercase``, ``NFD``
…, ``Sequence``) follow HF ``tokenizers``' names and JSON forms.

``Normalizer`` is the contract any normalizer meets; ``CharwiseNormalizer`` is the
narrower one the fast fused path reads from a ``BertNormalizer``.

Not handled here: splitting into words (``pre_tokenizers``); the fast fused path used by
``Tokenizer`` (``fast.word_encoder``), which must agree with this module.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ..flavors.rules import FLAVORS, get_flavor
from ..flavors.tables import hf_lowercase
from .char_tables import is_combining_mark
from .growth import check_growth
from .live_settings import settings_changed
from .unicode_forms import normalization_stream


@dataclass(frozen=True)
class NormalizedString:
    """Text after normalization, aligned character by character to the original.

    ``alignments[i]`` is the ``(start, end)`` span in ``original`` that produced
    ``normalized[i]``.

    >>> ns = BertNormalizer().normalize("Héllo")
    >>> ns.normalized, ns.alignments[1]
    ('hello', (1, 2))
    """

    original: str
    normalized: str
    alignments: tuple[tuple[int, int], ...]

    @classmethod
    def identity(cls, text: str) -> NormalizedString:
        """Wrap ``text`` unchanged, each character aligned to itself."""
        return cls(text, text, tuple((i, i + 1) for i in range(len(text))))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map normalized span ``[start, end)`` to a span of the original text."""
        if start >= end:
            pos = self.alignments[start][0] if start < len(self.alignments) else len(self.original)
            return (pos, pos)
        return (self.alignments[start][0], self.alignments[end - 1][1])

    def transform(self, parts: list[str]) -> NormalizedString:
        """Replace normalized character ``i`` by ``parts[i]``, keeping its alignment."""
        aligns = self.alignments
        new_aligns = tuple(aligns[i] for i, part in enumerate(parts) for _ in part)
        return NormalizedString(self.original, "".join(parts), new_aligns)

    def apply_changes(self, changes: Iterable[tuple[str, int]], initial_offset: int = 0,
                      start: int = 0, end: int | None = None) -> NormalizedString:
        """Replace ``normalized[start:end]`` by a change stream, aligned as HF's ``transform``.

        Each ``(char, change)`` says: ``0`` the char takes the place of the next old
        one (and its alignment), ``1`` it is inserted (aligned as the char before it),
        ``-n`` it takes the place of the next old one and the ``n`` after it are
        removed. ``initial_offset`` old chars are removed first.
        """
        end = len(self.normalized) if end is None else end
        aligns = self.alignments
        offset = start + initial_offset
        chars, new_aligns = [], []
        for ch, change in changes:
            if change > 0:
                new_aligns.append(aligns[offset - 1] if offset >= 1 else (0, 0))
            else:
                new_aligns.append(aligns[offset])
                offset += 1 - change
            chars.append(ch)
        return NormalizedString(self.original,
                                self.normalized[:start] + "".join(chars) + self.normalized[end:],
                                aligns[:start] + tuple(new_aligns) + aligns[end:])

    def slice(self, start: int, end: int) -> NormalizedString:
        """The normalized characters ``[start, end)``, still aligned to the whole original."""
        return NormalizedString(self.original, self.normalized[start:end],
                                self.alignments[start:end])


@runtime_checkable
class Normalizer(Protocol):
    """What the tokenizer needs from a normalizer: any object with these methods is one.

    - ``normalize(text)``: the general path (and the fast path's words that need it);
    - ``normalize_str(text)``: added tokens declared ``normalized`` are matched on it;
    - ``normalize_string(ns)``: ``Sequence`` chains normalizers through it;
    - ``to_config()``: HF's JSON form, written when the tokenizer is saved.

    The fast path asks nothing more of a normalizer in general. It fuses only an exact
    ``BertNormalizer`` (not a subclass) with an exact ``BertPreTokenizer`` of the same
    flavor (``fast.word_encoder.WordEncoder.fused``), and from that one it also reads
    ``CharwiseNormalizer``'s members.
    """

    def normalize(self, text: str) -> NormalizedString:
        """Normalize ``text``, aligned to it."""
        ...

    def normalize_str(self, text: str) -> str:
        """Return only the normalized text (as HF's ``normalize_str``)."""
        ...

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        """Normalize an already normalized string further, keeping its alignment."""
        ...

    def to_config(self) -> dict:
        """HF's JSON form of this normalizer."""
        ...


@runtime_checkable
class CharwiseNormalizer(Normalizer, Protocol):
    """A normalizer that is a function of each character: what the fused fast path reads.

    ``mapped(ch)`` is what one original character becomes ("" when deleted, several
    characters when expanded, spaces included) wherever it stands, except for the
    characters of ``context_chars``, whose result depends on their neighbours (a
    final sigma, marks that NFD reorders): texts holding one take the general path.
    The fast path's per-character tables (``fast.word_encoder.WordEncoder.char_facts``,
    and through it the native extension's table) are built from ``mapped``,
    ``context_chars`` and the pre-tokenizer's ``CharClassPreTokenizer.classes``
    alone, so both backends follow any change to them.
    """

    flavor: str

    @property
    def context_chars(self) -> Container[str]:
        """Characters whose result depends on their neighbours (a set, or decided on use)."""
        ...

    def mapped(self, ch: str) -> str:
        """What the one character ``ch`` normalizes to, out of context."""
        ...


class NormalizerBase:
    """Base of the normalizers here: subclasses implement ``normalize_string``.

    It gives ``normalize`` and ``normalize_str`` (the ``Normalizer`` protocol) from it.
    """

    def normalize(self, text: str) -> NormalizedString:
        """Normalize ``text``, aligned to it."""
        return self.normalize_string(NormalizedString.identity(text))

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        raise NotImplementedError

    def normalize_str(self, text: str) -> str:
        """Return only the normalized text (as HF's ``normalize_str``)."""
        return self.normalize(text).normalized

    def to_config(self) -> dict:
        raise NotImplementedError


class CharMapNormalizer(NormalizerBase):
    """Normalize character by character through a cached ``map_char``."""

    def __init__(self):
        self._char_cache: dict[str, str] = {}

    def map_char(self, ch: str) -> str:
        raise NotImplementedError

    def mapped(self, ch: str) -> str:
        """Return ``map_char(ch)``, memoized (there are few distinct characters)."""
        out = self._char_cache.get(ch)
        if out is None:
            out = self._char_cache[ch] = self.map_char(ch)
        return out

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        return ns.transform([self.mapped(c) for c in ns.normalized])


# ---------------------------------------------------------------- BERT


def _option(name: str, doc: str) -> property:
    """A settable ``BertNormalizer`` option (``_set_option`` keeps what it decides in step)."""
    def get(self) -> bool | None:
        return self._options[name]

    def put(self, value: bool | None) -> None:
        self._set_option(name, value)

    return property(get, put, doc=doc)


class BertNormalizer(CharMapNormalizer):
    """Clean, space out CJK characters, lowercase and strip accents as a reference does.

    ``strip_accents=None`` follows ``lowercase`` (as in HF and BERT). ``flavor`` picks
    whose rules to reproduce exactly: ``"bert"`` (google-research/bert),
    ``"huggingface"`` (HF tokenizers) or ``"tensorflow"`` (TF Text).

    >>> BertNormalizer(flavor="huggingface").normalize_str("Héllò 你好")
    'hello  你  好 '
    """

    def __init__(self, *, clean_text: bool = True, handle_chinese_chars: bool = True,
                 strip_accents: bool | None = None, lowercase: bool = True,
                 flavor: str = "bert"):
        super().__init__()
        if flavor not in FLAVORS:
            raise ValueError(f"unknown flavor {flavor!r}: expected one of {', '.join(FLAVORS)}")
        self._options = {"clean_text": bool(clean_text),
                         "handle_chinese_chars": bool(handle_chinese_chars),
                         "strip_accents": None if strip_accents is None else bool(strip_accents),
                         "lowercase": bool(lowercase)}
        self.flavor = flavor
        self.rules = get_flavor(flavor)
        self._derive()

    def _derive(self) -> None:
        """Recompute what the options decide (and forget characters mapped before)."""
        self._char_cache.clear()
        strip_accents = self._options["strip_accents"]
        self._strip = self.lowercase if strip_accents is None else bool(strip_accents)
        # Characters whose result depends on their neighbours with these options.
        self.context_chars = self.rules.active_context(self.lowercase, self._strip)

    def _set_option(self, name: str, value: bool | None) -> None:
        """Set an option as HF's setters do: it takes effect on every tokenizer holding it."""
        self._options[name] = None if value is None else bool(value)
        self._derive()
        settings_changed()

    clean_text = _option("clean_text", "Replace controls by spaces and drop NUL/U+FFFD.")
    handle_chinese_chars = _option("handle_chinese_chars", "Put spaces around CJK characters.")
    strip_accents = _option("strip_accents",
                            "Drop accents (None: when lowercasing, as HF and BERT).")
    lowercase = _option("lowercase", "Lowercase (as the flavor's reference does).")

    def map_char(self, ch: str) -> str:
        """Return what one character becomes (may be empty or several characters)."""
        rules = self.rules
        if rules.cleans_after_fold():
            return self._map_fold_first(ch)
        if self.clean_text:
            if rules.removed(ch):
                return ""
            if rules.to_space(ch):
                return " "
        if self.handle_chinese_chars and rules.is_cjk(ch):
            return " " + rules.fold(ch, self.lowercase, self._strip) + " "
        return rules.fold(ch, self.lowercase, self._strip)

    def _map_fold_first(self, ch: str) -> str:
        # TF Text: fold the case, then replace controls by spaces; CJK characters are
        # split out by its pre-tokenizer regex, so spacing the folded output is the same.
        rules = self.rules
        out = []
        for c in rules.fold(ch, self.lowercase, self._strip):
            if self.clean_text and rules.to_space(c):
                out.append(" ")
            elif self.handle_chinese_chars and rules.is_cjk(c):
                out.append(" " + c + " ")
            else:
                out.append(c)
        return "".join(out)

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        parts = [self.mapped(c) for c in ns.normalized]
        if self.context_chars and not self.context_chars.isdisjoint(ns.normalized):
            if "\u03a3" in self.context_chars:
                self._apply_final_sigma(ns.normalized, parts)
            self.rules.fix_context(ns.normalized, parts, clean_text=self.clean_text,
                                   handle_chinese_chars=self.handle_chinese_chars,
                                   lowercase=self.lowercase)
        return ns.transform(parts)

    def _apply_final_sigma(self, text: str, parts: list[str]) -> None:
        # BERT lowercases each whitespace token with str.lower(), which writes a capital
        # sigma as a final sigma depending on its neighbours within the token. Rebuild
        # each token with one stand-in letter per character class and let str.lower()
        # decide, so the rule is exactly Python's.
        if "\u03a3" not in text:
            return
        cleaned = [(i, p) for i, p in enumerate(parts) if p]
        for token in _whitespace_tokens(cleaned):
            if not any(text[i] == "\u03a3" for i, _ in token):
                continue
            stand_in = "".join("\u03a3" if text[i] == "\u03a3" else _sigma_class(text[i])
                               for i, _ in token).lower()
            for (i, _), low in zip(token, stand_in, strict=True):
                if text[i] == "\u03a3":
                    parts[i] = self.rules.fold(low, False, self._strip)

    def to_config(self) -> dict:
        return {"type": "BertNormalizer", "clean_text": self.clean_text,
                "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}

    def __repr__(self) -> str:
        return (f"BertNormalizer(clean_text={self.clean_text!r}, "
                f"handle_chinese_chars={self.handle_chinese_chars!r}, "
                f"strip_accents={self.strip_accents!r}, lowercase={self.lowercase!r}, "
                f"flavor={self.flavor!r})")


def _whitespace_tokens(cleaned: list[tuple[int, str]]):
    """Group (index, mapped) pairs into runs not broken by whitespace in the mapping."""
    token: list[tuple[int, str]] = []
    for i, part in cleaned:
        if part.isspace() or part.startswith(" "):  # a space, or a spaced-out CJK char
            if token:
                yield token
            token = []
            if not part.isspace():
                yield [(i, part)]
        else:
            token.append((i, part))
    if token:
        yield token


_SIGMA_CLASS: dict[str, str] = {}


def _sigma_class(ch: str) -> str:
    """Return 'a' (cased), "'" (case-ignorable) or '0' (neither), as str.lower sees ``ch``."""
    cls = _SIGMA_CLASS.get(ch)
    if cls is None:
        if (ch + "\u03a3").lower()[-1] == "\u03c2":
            cls = "a"
        elif ("a" + ch + "\u03a3").lower()[-1] == "\u03c2":
            cls = "'"
        else:
            cls = "0"
        _SIGMA_CLASS[ch] = cls
    return cls


# ---------------------------------------------------------------- generic


class Lowercase(CharMapNormalizer):
    """Lowercase each character as HF does (Rust's ``char::to_lowercase``: no final sigma)."""

    def map_char(self, ch: str) -> str:
        return hf_lowercase(ch)

    def to_config(self) -> dict:
        return {"type": "Lowercase"}

    def __repr__(self) -> str:
        return "Lowercase()"


class StripAccents(CharMapNormalizer):
    """Drop combining marks, HF's set of them (run after NFD to strip accents, as in HF).

    HF's ``StripAccents`` drops spacing marks too (Mc, such as the Devanagari vowel
    sign U+093E), unlike the ``BertNormalizer``'s accent stripping (Mn only).
    """

    def map_char(self, ch: str) -> str:
        return "" if is_combining_mark(ch) else ch

    def to_config(self) -> dict:
        return {"type": "StripAccents"}

    def __repr__(self) -> str:
        return "StripAccents()"


class UnicodeNormalizer(NormalizerBase):
    """Apply a Unicode normalization form with HF's data and HF's alignments.

    A composed character is aligned to the first character it was composed from, an
    expansion to the character it came from (``unicode_forms``).
    """

    form: Literal["NFC", "NFD", "NFKC", "NFKD"] = "NFC"

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        stream = normalization_stream(ns.normalized, self.form)
        return ns if stream is None else ns.apply_changes(stream)

    def to_config(self) -> dict:
        return {"type": self.form}

    def __repr__(self) -> str:
        return f"{self.form}()"


class NFC(UnicodeNormalizer):
    form = "NFC"


class NFD(UnicodeNormalizer):
    form = "NFD"


class NFKC(UnicodeNormalizer):
    form = "NFKC"


class NFKD(UnicodeNormalizer):
    form = "NFKD"


class Sequence(NormalizerBase):
    """Apply several normalizers in order.

    >>> Sequence([NFD(), StripAccents(), Lowercase()]).normalize_str("Élan")
    'elan'
    """

    def __init__(self, normalizers: list[Normalizer]):
        self.normalizers = list(normalizers)

    def __getitem__(self, index: int):
        """The normalizer at ``index`` (HF's ``seq[0]``)."""
        return self.normalizers[index]

    def __len__(self) -> int:
        return len(self.normalizers)

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        for normalizer in self.normalizers:
            ns = normalizer.normalize_string(ns)
            check_growth(len(ns.normalized), len(ns.original), normalizer)
        return ns

    def to_config(self) -> dict:
        return {"type": "Sequence", "normalizers": [n.to_config() for n in self.normalizers]}

    def __repr__(self) -> str:
        return f"Sequence({self.normalizers!r})"
