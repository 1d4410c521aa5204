"""Export a tokenizer (or a bundle) as a TensorFlow SavedModel with the tutorial's methods.

The TensorFlow Text subword tutorial saves a ``tf.Module`` whose methods are
``tokenize`` (strings -> ragged ids, wrapped in ``[START]``/``[END]``), ``detokenize``,
``lookup``, ``get_vocab_size``, ``get_vocab_path`` and ``get_reserved_tokens``; serving
code and notebooks expect exactly that. ``export_tensorflow`` writes such a module so
that ``tf.saved_model.load`` gives it back with no wordpieces installed (only
``import tensorflow_text``, which registers the ops). A bundle becomes one module with
one such member per tokenizer (``model.en.tokenize(...)``), as the tutorial's
``converter``.

How the graph tokenizes. A ``tensorflow``-flavor tokenizer in a configuration TF Text
has (lowercase with accent stripping, or neither) is TF Text's own ``BertTokenizer``:
exact by construction. Every other configuration (flavors ``bert`` and ``huggingface``,
other option mixes) is rebuilt from this tokenizer's own character tables: each
character's normalization (deleted, a space, spaced-out CJK, or a mapping such as
lowercase-and-strip) and each character's pre-tokenizer class (space, punctuation) are
read off the tokenizer for every code point and written into the graph as a lookup
table and RE2 character classes, followed by the word limit in characters and TF
Text's ``WordpieceTokenizer``. What stays inexact is listed by ``plan_export`` and
warned about: characters whose normalization depends on their neighbours (final sigma
for ``bert``; a few marks for ``huggingface``) and, for ``huggingface``, literal special
tokens typed in the text.

``tokenize`` adds the tokenizer's own template tokens (``[START]``/``[END]`` for a
tutorial-style vocabulary, ``[CLS]``/``[SEP]`` for a BERT one, none without a template),
so it gives the same ids as ``Tokenizer.encode_batch_ids``. Truncation and padding
settings are not exported.

Not handled here: pairs of sequences, offsets, WordLevel models, normalizers and
pre-tokenizers other than BERT's, added tokens whose ids are outside the vocabulary.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any

from ..errors import WordpiecesError, require
from .atomic import atomic_directory, check_replaceable

EXPORT_KIND = "tensorflow-export"  # the manifest's kind: what an earlier export is
MAX_CODE_POINT = 0x10FFFF
UNMAPPED = "\U0010ffff\U0010ffff"  # the lookup table's default: "keep the character"


class ExportError(WordpiecesError, ValueError):
    """The tokenizer cannot be expressed as a TensorFlow graph."""


@dataclass
class CharTables:
    """A tokenizer's per-character behaviour, as TF ops can apply it."""

    mapping: dict[str, str]  # character -> its normalization (when not one of the below)
    deleted: str | None  # RE2 class of characters the normalizer deletes
    spaces: str | None  # ... turns into a space
    spaced_out: str | None  # ... surrounds with spaces (CJK)
    split_spaces: str | None  # RE2 class the pre-tokenizer splits on (dropped)
    split_isolated: str | None  # ... splits out as one-character words


@dataclass
class ExportPlan:
    """What the SavedModel of one tokenizer is built from (no TensorFlow needed)."""

    vocab: list[str]
    reserved_tokens: list[str]
    unk_token: str
    suffix_indicator: str
    max_bytes_per_word: int
    max_chars_per_word: int | None = None  # a character limit, checked by explicit ops
    tf_lower_case: bool | None = None  # set: TF Text's BertTokenizer(lower_case=...) is exact
    tables: CharTables | None = None  # else: this tokenizer's own tables
    start_id: int | None = None
    end_id: int | None = None
    differences: list[str] = field(default_factory=list)


def plan_export(tokenizer) -> ExportPlan:
    """Decide how to express ``tokenizer`` in TF ops, listing any inexactness."""
    model = tokenizer.model
    if not hasattr(model, "continuing_subword_prefix"):
        raise ExportError(f"only WordPiece tokenizers can be exported to TensorFlow, not "
                          f"{type(model).__name__}")
    plan = ExportPlan(vocab=list(model.vocab.tokens),
                      reserved_tokens=list(tokenizer.reserved_tokens),
                      unk_token=model.unk_token, suffix_indicator=model.continuing_subword_prefix,
                      max_bytes_per_word=100)
    _plan_limit(plan, model)
    plan.start_id, plan.end_id = _wrapping_ids(tokenizer)
    plan.tf_lower_case = _native_lower_case(tokenizer)
    if plan.tf_lower_case is None:
        plan.tables = char_tables(tokenizer.normalizer, tokenizer.pre_tokenizer)
    plan.differences = _differences(tokenizer, plan)
    return plan


def _plan_limit(plan: ExportPlan, model) -> None:
    """TF Text limits words in bytes; a character limit becomes an explicit check."""
    limit = getattr(model, "max_input_bytes_per_word", None)
    if limit is not None:
        plan.max_bytes_per_word = limit
        return
    plan.max_chars_per_word = model.max_input_chars_per_word
    # Never reached by a word within the character limit (4 bytes per character at most).
    plan.max_bytes_per_word = 4 * model.max_input_chars_per_word


def _native_lower_case(tokenizer) -> bool | None:
    """TF Text's ``lower_case`` when its BertTokenizer is this tokenizer, else None."""
    from ..pipeline.normalizers import BertNormalizer
    from ..pipeline.pre_tokenizers import BertPreTokenizer

    normalizer = tokenizer.normalizer
    if tokenizer.flavor != "tensorflow" or not isinstance(normalizer, BertNormalizer):
        return None
    if not isinstance(tokenizer.pre_tokenizer, BertPreTokenizer):
        return None
    strip = normalizer.lowercase if normalizer.strip_accents is None else normalizer.strip_accents
    if normalizer.lowercase != strip or not normalizer.clean_text:
        return None
    if not normalizer.handle_chinese_chars:
        return None
    return bool(normalizer.lowercase)


def _wrapping_ids(tokenizer) -> tuple[int | None, int | None]:
    """The ids the tokenizer puts around one sequence (e.g. [CLS] … [SEP])."""
    ids = tokenizer.encode_ids("", add_special_tokens=True)
    if not ids:
        return None, None
    if len(ids) != 2:
        raise ExportError(f"the tokenizer's template adds {len(ids)} tokens to one sequence "
                          f"({tokenizer.lookup(ids)}); the export supports one before and "
                          f"one after")
    return ids[0], ids[1]


def _differences(tokenizer, plan: ExportPlan) -> list[str]:
    """Where the graph can tokenize differently from ``tokenizer``."""
    if plan.tf_lower_case is not None:
        return []
    out = []
    context = sorted(getattr(tokenizer.normalizer, "context_chars", ()) or ())
    if context:
        shown = " ".join(f"U+{ord(c):04X}" for c in context[:6])
        more = f" and {len(context) - 6} more" if len(context) > 6 else ""
        out.append(f"characters whose normalization depends on their neighbours ({shown}"
                   f"{more}) are normalized as if alone")
    if tokenizer.flavor == "huggingface" and tokenizer.special_tokens:
        out.append("flavor 'huggingface': special tokens typed literally in the text "
                   "('[CLS]') are split like ordinary text, not kept whole")
    return out


# ---------------------------------------------------------------- character tables


def char_tables(normalizer, pre_tokenizer) -> CharTables:
    """Read a BERT normalizer and pre-tokenizer off, character by character.

    Scanning every code point takes seconds, so tables are kept per configuration
    for the life of the process.
    """
    key = json.dumps([_stage_key(normalizer), _stage_key(pre_tokenizer)], sort_keys=True)
    if key not in _TABLES:
        _TABLES[key] = _scan_tables(normalizer, pre_tokenizer)
    return _TABLES[key]


_TABLES: dict[str, CharTables] = {}


def _stage_key(stage) -> list | None:
    if stage is None:
        return None
    return [type(stage).__name__, stage.to_config(), getattr(stage, "flavor", None)]


def _scan_tables(normalizer, pre_tokenizer) -> CharTables:
    map_char = _char_mapper(normalizer)
    classes = getattr(pre_tokenizer, "classes", None)
    if classes is None:
        raise ExportError(f"only the BERT pre-tokenizer can be exported to TensorFlow, not "
                          f"{type(pre_tokenizer).__name__}")
    from ..pipeline.pre_tokenizers import ISOLATE, SPACE

    kinds: dict[str, list[int]] = {"": [], " ": [], "cjk": [], SPACE: [], ISOLATE: []}
    mapping: dict[str, str] = {}
    for cp in range(MAX_CODE_POINT + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        _sort_char(ch, map_char(ch), kinds, mapping)
        if classes[cp] in (SPACE, ISOLATE):
            kinds[classes[cp]].append(cp)
    return CharTables(mapping, char_class(kinds[""]), char_class(kinds[" "]),
                      char_class(kinds["cjk"]), char_class(kinds[SPACE]),
                      char_class(kinds[ISOLATE]))


def _char_mapper(normalizer):
    if normalizer is None:
        return lambda ch: ch
    if not hasattr(normalizer, "map_char"):
        raise ExportError(f"only character-by-character normalizers (BERT's) can be exported "
                          f"to TensorFlow, not {type(normalizer).__name__}")
    return normalizer.map_char


def _sort_char(ch: str, mapped: str, kinds: dict, mapping: dict) -> None:
    if mapped == ch:
        return
    if mapped in ("", " "):
        kinds[mapped].append(ord(ch))
    elif mapped == f" {ch} ":
        kinds["cjk"].append(ord(ch))
    else:
        mapping[ch] = mapped


def char_class(code_points: list[int]) -> str | None:
    """An RE2 character class of sorted ``code_points`` (None when empty).

    >>> char_class([65, 66, 67, 97])
    '[\\\\x{41}-\\\\x{43}\\\\x{61}]'
    """
    if not code_points:
        return None
    parts, start, prev = [], code_points[0], code_points[0]
    for cp in code_points[1:] + [-1]:
        if cp == prev + 1:
            prev = cp
            continue
        parts.append(f"\\x{{{start:X}}}" if start == prev
                     else f"\\x{{{start:X}}}-\\x{{{prev:X}}}")
        start = prev = cp
    return "[" + "".join(parts) + "]"


# ---------------------------------------------------------------- exporting


def export_tensorflow(artifact, path: str | os.PathLike, *, warn: bool = True) -> list[str]:
    """Write ``artifact`` (Tokenizer or Bundle) as a SavedModel directory at ``path``.

    Returns where the graph may tokenize differently from wordpieces (empty when
    exact) and, with ``warn``, also reports that with ``warnings.warn``. The directory
    appears whole: it is built beside ``path`` and swapped into place. ``path`` must be
    new, empty, or an earlier export holding only what that export wrote: anything else
    (a file, a folder with other files) is refused before any work, so an export never
    deletes what it did not write.
    """
    path = os.fspath(path)
    check_replaceable(path, EXPORT_KIND)
    plans = {name: plan_export(tok) for name, tok in _members(artifact).items()}
    tf = require("tensorflow", "tensorflow")
    text = require("tensorflow_text", "tensorflow")
    differences = [f"{name}: {d}" if name else d
                   for name, plan in plans.items() for d in plan.differences]
    if warn:
        for difference in differences:
            warnings.warn(f"TensorFlow export may differ: {difference}", stacklevel=2)
    with tempfile.TemporaryDirectory(prefix="wordpieces-tf-vocab-") as scratch:
        root = _build_root(tf, text, plans, scratch)
        _save_atomically(tf, root, path)
    return differences


def _members(artifact) -> dict[str, object]:
    from .bundle import Bundle

    if isinstance(artifact, Bundle):
        return dict(artifact.items())
    return {"": artifact}


def _build_root(tf, text, plans: dict[str, ExportPlan], scratch: str):
    module_class = _module_class(tf, text)
    if list(plans) == [""]:
        return module_class(plans[""], _vocab_file(scratch, "vocab", plans[""]))
    root = tf.Module()
    for name, plan in plans.items():
        setattr(root, name, module_class(plan, _vocab_file(scratch, name, plan)))
    return root


def _vocab_file(scratch: str, name: str, plan: ExportPlan) -> str:
    path = os.path.join(scratch, f"{name}.txt" if name == "vocab" else f"{name}.vocab.txt")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(token + "\n" for token in plan.vocab))
    return path


def _save_atomically(tf, root, path: str) -> None:
    """Save into a sibling staging directory that then replaces ``path`` whole."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_directory(path, kind=EXPORT_KIND) as staging:
        tf.saved_model.save(root, staging)


# ---------------------------------------------------------------- the graph


def _module_class(tf, text):
    """The tf.Module class (defined here because TensorFlow is imported lazily)."""

    module_base: Any = tf.Module  # known only once TensorFlow is imported

    class WordpiecesTokenizer(module_base):
        """A tokenizer with the TensorFlow Text subword tutorial's methods."""

        def __init__(self, plan: ExportPlan, vocab_file: str):
            super().__init__()
            self._start_end = (plan.start_id, plan.end_id)
            self._max_chars, self._unk = plan.max_chars_per_word, plan.unk_token
            options = dict(suffix_indicator=plan.suffix_indicator, token_out_type=tf.int64,
                           max_bytes_per_word=plan.max_bytes_per_word,
                           unknown_token=plan.unk_token)
            self._native = plan.tf_lower_case is not None
            if self._native:
                self.tokenizer = text.BertTokenizer(vocab_file, lower_case=plan.tf_lower_case,
                                                    **options)
            else:
                self.tokenizer = text.WordpieceTokenizer(vocab_file, **options)
                if plan.tables is None:
                    raise ValueError("an export through WordpieceTokenizer needs character tables")
                self._tables: CharTables = plan.tables
                self._mapping = _lookup_table(tf, plan.tables.mapping)
            self._reserved_tokens = plan.reserved_tokens
            self._drop = _drop_pattern(plan.reserved_tokens, plan.unk_token)
            self._vocab_path = tf.saved_model.Asset(vocab_file)
            self.vocab = tf.Variable(plan.vocab, trainable=False)
            self._trace_signatures()

        def _trace_signatures(self):
            ids, ragged = tf.TensorSpec([None, None], tf.int64), tf.RaggedTensorSpec(
                [None, None], tf.int64)
            self.tokenize.get_concrete_function(tf.TensorSpec([None], tf.string))
            for spec in (ids, ragged):
                self.detokenize.get_concrete_function(spec)
                self.lookup.get_concrete_function(spec)
            self.get_vocab_size.get_concrete_function()
            self.get_vocab_path.get_concrete_function()
            self.get_reserved_tokens.get_concrete_function()

        def _normalize(self, strings):
            """Apply the tokenizer's per-character normalization."""
            tables = self._tables
            chars = tf.strings.unicode_split(strings, "UTF-8")
            flat = chars.flat_values
            out = flat
            if self._mapping is not None:
                found = self._mapping.lookup(flat)
                out = tf.where(tf.equal(found, UNMAPPED), flat, found)
            for pattern, replace in ((tables.spaced_out, tf.strings.join([" ", flat, " "])),
                                     (tables.spaces, " "), (tables.deleted, "")):
                if pattern is not None:
                    out = tf.where(tf.strings.regex_full_match(flat, pattern), replace, out)
            return tf.strings.reduce_join(chars.with_flat_values(out), axis=-1)

        def _words(self, strings):
            """Normalize and pre-tokenize with the tokenizer's own character classes."""
            tables = self._tables
            spaces, isolated = tables.split_spaces, tables.split_isolated
            delimiters = "|".join(p for p in (spaces and spaces + "+", isolated) if p)
            words = text.regex_split(self._normalize(strings), delimiters, isolated or "")
            if self._max_chars is None:
                return words
            limit, unk = self._max_chars, self._unk

            def cap(flat):
                too_long = tf.strings.length(flat, unit="UTF8_CHAR") > limit
                return tf.where(too_long, unk, flat)

            return tf.ragged.map_flat_values(cap, words)

        @tf.function
        def tokenize(self, strings):
            if self._native:
                ids = self.tokenizer.tokenize(strings)
            else:
                ids = self.tokenizer.tokenize(self._words(strings))
            ids = ids.merge_dims(-2, -1)
            start, end = self._start_end
            if start is None:
                return ids
            rows = ids.nrows()
            starts = tf.fill([rows, 1], tf.constant(start, tf.int64))
            ends = tf.fill([rows, 1], tf.constant(end, tf.int64))
            return tf.concat([starts, ids, ends], axis=1)

        @tf.function
        def detokenize(self, tokenized):
            words = self.tokenizer.detokenize(tokenized)
            if self._drop is not None:
                keep = tf.logical_not(tf.strings.regex_full_match(words, self._drop))
                words = tf.ragged.boolean_mask(words, keep)
            return tf.strings.reduce_join(words, separator=" ", axis=-1)

        @tf.function
        def lookup(self, token_ids):
            return tf.gather(self.vocab, token_ids)

        @tf.function
        def get_vocab_size(self):
            return tf.shape(self.vocab)[0]

        @tf.function
        def get_vocab_path(self):
            return self._vocab_path

        @tf.function
        def get_reserved_tokens(self):
            return tf.constant(self._reserved_tokens, dtype=tf.string)

    return WordpiecesTokenizer


def _lookup_table(tf, mapping: dict[str, str]):
    """A string -> string hash table (None when there is nothing to map)."""
    if not mapping:
        return None
    keys = tf.constant(list(mapping))
    values = tf.constant(list(mapping.values()))
    initializer = tf.lookup.KeyValueTensorInitializer(keys, values)
    return tf.lookup.StaticHashTable(initializer, default_value=UNMAPPED)


def _drop_pattern(reserved: list[str], unk_token: str) -> str | None:
    """An RE2 pattern matching the words ``detokenize`` drops (reserved but not unknown)."""
    drop = [t for t in reserved if t != unk_token]
    return "|".join(re.escape(t) for t in drop) if drop else None
