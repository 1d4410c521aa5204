"""``bert_vocab_from_dataset`` with TF Text's call shape and result, without TensorFlow.

TF Text splits each text with its ``BasicTokenizer``, counts the words in a ``Counter``
(first-seen order) and hands them to its learner. Here the words come from
``BertNormalizer(flavor="tensorflow")`` + ``BertPreTokenizer(flavor="tensorflow")`` (plus
the ``normalization_form``, ``keep_whitespace`` and ``preserve_unused_token`` options),
counted in first-seen order too, and ``learn_top_down`` learns the vocabulary.

Not handled here: ``tf.data`` pipelines as such — any iterable of texts or of batches of
texts works (a TF dataset too: its tensors are read with ``.numpy()``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ...fast.word_encoder import word_splitter
from ...pipeline.normalizers import NFC, NFD, NFKC, NFKD, BertNormalizer, Normalizer, Sequence
from ...pipeline.pre_tokenizers import ISOLATE, SPACE, WORD, BertPreTokenizer
from ..sources import iter_texts
from .top_down import learn_top_down

__all__ = ["bert_vocab_from_dataset", "basic_tokenizer_pipeline"]

_FORMS = {"NFC": NFC, "NFD": NFD, "NFKC": NFKC, "NFKD": NFKD}


def bert_vocab_from_dataset(dataset, vocab_size: int, reserved_tokens: list[str],
                            bert_tokenizer_params: dict | None = None,
                            learn_params: dict | None = None) -> list[str]:
    """Learn a BERT WordPiece vocabulary from texts, as TF Text's function of this name.

    ``dataset``: an iterable of texts (``str`` or UTF-8 ``bytes``) or of batches of texts,
    or files as every reader takes them (a path, glob, directory, URL or ``"-"``).
    ``bert_tokenizer_params``: TF's ``BasicTokenizer`` options (``lower_case``,
    ``keep_whitespace``, ``normalization_form``, ``preserve_unused_token``).
    ``learn_params``: options of ``learn_top_down``.

    >>> texts = ["the cat sat", "the cat ran"] * 10
    >>> bert_vocab_from_dataset(texts, 20, ["[UNK]"], learn_params={"lower_thresh": 1})[:4]
    ['[UNK]', 'a', 'c', 'e']
    """
    normalizer, pre_tokenizer = basic_tokenizer_pipeline(**(bert_tokenizer_params or {}))
    words = word_splitter(normalizer, pre_tokenizer)
    counts: dict[str, int] = {}
    for text in _texts(dataset):
        for word in words(text):
            counts[word] = counts.get(word, 0) + 1
    return learn_top_down(list(counts.items()), vocab_size, reserved_tokens,
                          **(learn_params or {}))


def basic_tokenizer_pipeline(*, lower_case: bool = False, keep_whitespace: bool = False,
                             normalization_form: str | None = None,
                             preserve_unused_token: bool = False):
    """Return the (normalizer, pre-tokenizer) that split text as TF's ``BasicTokenizer``."""
    if lower_case and normalization_form not in (None, "NFD"):
        raise ValueError("normalization_form must be None or 'NFD' when lower_case is true "
                         f"(as in TF Text), not {normalization_form!r}")
    if normalization_form is not None and normalization_form not in _FORMS:
        raise ValueError(f"unknown normalization_form {normalization_form!r}: expected one "
                         f"of {', '.join(_FORMS)}")
    normalizer: Normalizer = BertNormalizer(lowercase=lower_case, flavor="tensorflow")
    if normalization_form is not None and not lower_case:
        normalizer = Sequence([_FORMS[normalization_form](), normalizer])
    if keep_whitespace or preserve_unused_token:
        return normalizer, BasicPreTokenizer(keep_whitespace=keep_whitespace,
                                             preserve_unused_token=preserve_unused_token)
    return normalizer, BertPreTokenizer(flavor="tensorflow")


class BasicPreTokenizer(BertPreTokenizer):
    """TF's splitting with its two extra options: whitespace kept, ``[unusedN]`` kept whole."""

    _UNUSED = re.compile(r"\[unused\d+\]")

    def __init__(self, *, keep_whitespace: bool = False, preserve_unused_token: bool = False):
        super().__init__(flavor="tensorflow")
        self.keep_whitespace = keep_whitespace
        self.preserve_unused_token = preserve_unused_token
        kept = f"{ISOLATE}|{WORD}+" + (f"|{SPACE}+" if keep_whitespace else "")
        self._pieces = re.compile(kept)

    def split(self, ns) -> list[tuple[int, int]]:
        text = ns.normalized
        classes = text.translate(self.classes)
        if self.preserve_unused_token:
            # An [unusedN] match is one token; mark it as a single isolated run.
            for m in self._UNUSED.finditer(text):
                s, e = m.span()
                classes = classes[:s] + "U" * (e - s) + classes[e:]
            pattern = re.compile("U+|" + self._pieces.pattern)
        else:
            pattern = self._pieces
        return [m.span() for m in pattern.finditer(classes)]

    def to_config(self) -> dict:
        return {"type": "BertPreTokenizer", "keep_whitespace": self.keep_whitespace,
                "preserve_unused_token": self.preserve_unused_token}


def _texts(dataset) -> Iterator[str]:
    """Yield each text of an iterable of texts or of batches, or of any ``sources`` source.

    A list of strings holds texts here, as in TF (``iter`` keeps ``sources`` from reading
    it as a list of paths); a single path, glob, directory, URL or ``"-"`` is read as files.
    """
    if isinstance(dataset, bytes):
        raise TypeError("dataset must be an iterable of texts (or a path), not bytes")
    return iter_texts(dataset if isinstance(dataset, (str, os.PathLike)) else iter(dataset))
