"""The user-facing tokenizer: text to model-ready ids and back.

``Tokenizer`` holds one object per pipeline stage (normalizer, pre-tokenizer, model,
post-processor, decoder; docs/architecture.md) and offers the calls users know from Hugging Face
``tokenizers`` (``encode``, ``encode_batch``, padding and truncation, ``decode``),
``transformers`` (calling the tokenizer) and TensorFlow Text (``tokenize``,
``detokenize``, ``lookup``). Every encode call runs the one engine
(``encode.engine.run``: items, one settings snapshot, an output form; native when it
can, else the pure-Python reference) on this tokenizer's ``pipeline``; everything after
the word encoder (truncation, special tokens, padding) reproduces HF's ``Encoding``
semantics exactly. Each stage is any object meeting its protocol (``pipeline``'s
``Normalizer``, ``PreTokenizer``, ``Model``, ``PostProcessor``, ``Decoder``).

Not handled here: the file formats (``formats.tokenizer_json``: files to and from
``TokenizerParts``), the transformers-style call (``encode.call``) and the
rest of the ``transformers`` interface (``transformers_api.TransformersMixin``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable

from .encode.engine import EncodeSettings, Pipeline, run
from .encode.plans import plans_of
from .encode.sequences import SequenceEncoder
from .encoding.encoding import Encoding
from .encoding.padding import PaddingParams, TruncationParams
from .errors import TokenizeError, VocabError, check_batch
from .fast.backend import explain_backend
from .flavors.rules import FLAVORS, get_flavor
from .formats.tokenizer_json import (
    TokenizerParts,
    parts_from_file,
    parts_from_state,
    parts_from_str,
    parts_state,
    parts_to_str,
    save_parts,
)
from .formats.transformers_config import TransformersConfig, with_config_file
from .pipeline import models
from .pipeline.added_tokens import AddedToken, AddedVocabulary, as_added_token
from .pipeline.decoders import Decoder, WordPieceDecoder, detokenize
from .pipeline.live_settings import settings_generation
from .pipeline.normalizers import BertNormalizer, Normalizer
from .pipeline.pre_tokenizers import BertPreTokenizer, PreTokenizer
from .pipeline.processors import PostProcessor, check_special_ids, default_processor
from .transformers_api import TransformersMixin
from .vocab import Vocab

# A batch item: a text, or a (text, pair) tuple whose pair may be None (no pair).
TextOrPair = str | tuple[str, str | None]

# Bracketed upper-case tokens ([PAD], [UNK], [CLS], [SEP], [MASK], [START], [END]) are
# what BERT-style vocabularies reserve; [unused0]… are deliberately not matched.
_RESERVED_LOOK = re.compile(r"\[[A-Z][A-Z0-9_]*\]\Z")

def _flavor_of(normalizer, pre_tokenizer) -> str:
    for stage in (normalizer, pre_tokenizer):
        flavor = getattr(stage, "flavor", None)
        if flavor in FLAVORS:
            return flavor
    return "huggingface"


class Tokenizer(TransformersMixin):
    """Tokenize text into ids, offsets and model inputs, and ids back into text.

    >>> tok = Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world",
    ...                             "!"], flavor="huggingface")
    >>> enc = tok.encode("Hello world!")
    >>> enc.tokens, enc.offsets[1]
    (['[CLS]', 'hello', 'world', '!', '[SEP]'], (0, 5))
    >>> tok.decode(enc.ids)
    'hello world!'
    """

    def __init__(self, model: models.Model, *, normalizer: Normalizer | None = None,
                 pre_tokenizer: PreTokenizer | None = None,
                 post_processor: PostProcessor | None = None, decoder: Decoder | None = None,
                 added_tokens: Iterable[AddedToken | str] = (),
                 reserved_tokens: Iterable[str] | None = None, flavor: str | None = None,
                 truncation: TruncationParams | None = None,
                 padding: PaddingParams | None = None,
                 transformers: TransformersConfig | None = None):
        """Assemble a tokenizer from its stages (each meets its ``pipeline`` protocol).

        ``truncation`` and ``padding`` are taken as given (as read from a file);
        ``enable_truncation`` and ``enable_padding`` build and check them from options.
        ``transformers``: ``model_max_length``, sides and special-token roles.
        """
        self._model = model
        self._normalizer = normalizer
        self._pre_tokenizer = pre_tokenizer
        self._post_processor = post_processor
        self.decoder = decoder
        self.flavor = flavor or _flavor_of(normalizer, pre_tokenizer)
        if self.flavor not in FLAVORS:
            raise ValueError(f"unknown flavor {self.flavor!r}: expected one of "
                             f"{', '.join(FLAVORS)}")
        self._added: list[tuple[AddedToken, int]] = []  # each with its id (also on it)
        self._user_added: set[str] = set()  # contents given to add_tokens/add_special_tokens
        self._reserved = None if reserved_tokens is None else list(reserved_tokens)
        self._truncation = truncation
        self._padding = padding
        self._transformers = transformers or TransformersConfig()
        self.vocab_path: str | None = None
        self.training_options: dict | None = None  # what train() learned with (saved)
        self._rebuild()
        self._add(added_tokens, special=True)
        check_special_ids(post_processor, self._seq.id_tokens)

    # ------------------------------------------------------------ construction

    @classmethod
    def from_vocab(cls, vocab, *, lowercase: bool = True, flavor: str = "bert",
                   strip_accents: bool | None = None, clean_text: bool = True,
                   handle_chinese_chars: bool = True, unk_token: str = "[UNK]",
                   continuing_subword_prefix: str = "##",
                   max_input_chars_per_word: int | None = None,
                   special_tokens: Iterable[str] | None = None,
                   reserved_tokens: Iterable[str] | None = None,
                   template: str | None = "auto", pair_template: str | None = None) -> Tokenizer:
        """Build a BERT tokenizer from a vocabulary (``vocab.txt`` path, list, dict or Vocab).

        ``flavor`` picks whose edge cases to reproduce (``bert``, ``huggingface``,
        ``tensorflow``; docs/architecture.md, "The three flavors") and the word length limit when
        ``max_input_chars_per_word`` is None. ``special_tokens`` default to the vocab's
        bracketed upper-case tokens (``[PAD]``, ``[CLS]`` …) plus ``unk_token``.
        ``template="auto"`` gives ``[CLS] $A [SEP]`` when the vocab has those tokens,
        else ``[START] $A [END]`` when it has those, else no special tokens; pass a
        template string (HF syntax) or None. ``pair_template=None`` repeats the
        template's closing tokens after ``$B:1`` with type id 1.
        """
        vocab_obj, path = _read_vocab(vocab)
        rules = get_flavor(flavor)
        if max_input_chars_per_word is None:  # the flavor's own limit (bytes for TF Text)
            limit_chars, limit_bytes = (rules.max_input_chars_per_word,
                                        rules.max_input_bytes_per_word)
        else:
            limit_chars, limit_bytes = max_input_chars_per_word, None
        try:
            model = models.WordPiece(vocab_obj, unk_token=unk_token,
                                     continuing_subword_prefix=continuing_subword_prefix,
                                     max_input_chars_per_word=limit_chars,
                                     max_input_bytes_per_word=limit_bytes)
        except VocabError as e:  # the file a user named, not only the token at fault
            raise VocabError(f"{path}: {e}" if path else str(e)) from None
        normalizer = BertNormalizer(clean_text=clean_text,
                                    handle_chinese_chars=handle_chinese_chars,
                                    strip_accents=strip_accents, lowercase=lowercase, flavor=flavor)
        processor = default_processor(vocab_obj, template, pair_template)
        specials = _default_specials(vocab_obj, special_tokens, unk_token, processor)
        tok = cls(model, normalizer=normalizer, pre_tokenizer=BertPreTokenizer(flavor=flavor),
                  post_processor=processor, decoder=WordPieceDecoder(continuing_subword_prefix),
                  added_tokens=specials, flavor=flavor, reserved_tokens=reserved_tokens)
        tok.vocab_path = path
        return tok

    @classmethod
    def from_parts(cls, parts: TokenizerParts) -> Tokenizer:
        """Build the tokenizer that ``parts`` (read from files, or ``to_parts``) describe."""
        tok = cls(parts.model, normalizer=parts.normalizer, pre_tokenizer=parts.pre_tokenizer,
                  post_processor=parts.post_processor, decoder=parts.decoder,
                  added_tokens=parts.added_tokens, reserved_tokens=parts.reserved_tokens,
                  flavor=parts.flavor, truncation=parts.truncation, padding=parts.padding,
                  transformers=parts.transformers)
        tok.vocab_path, tok.training_options = parts.vocab_path, parts.training
        if parts.user_added:  # matched whole in bert/tensorflow, as when they were added
            tok._user_added = set(parts.user_added)
            tok._rebuild()
        return tok

    def to_parts(self) -> TokenizerParts:
        """The stages and settings of this tokenizer: what its saved files hold."""
        return TokenizerParts(
            self._model, normalizer=self._normalizer, pre_tokenizer=self._pre_tokenizer,
            post_processor=self.post_processor, decoder=self.decoder,
            added_tokens=tuple(t for t, _ in self._added),
            reserved_tokens=tuple(self.reserved_tokens), flavor=self.flavor,
            truncation=self._truncation, padding=self._padding, vocab_path=self.vocab_path,
            training=self.training_options,
            transformers=self._transformers, user_added=self._user_added_in_vocab())

    def _user_added_in_vocab(self) -> tuple[str, ...]:
        """The tokens of the vocabulary the user added: what ``_matches`` needs saved.

        Empty for ``huggingface`` (it matches every added token whole).
        """
        if self.flavor == "huggingface":
            return ()
        return tuple(sorted(t.content for t, id_ in self._added
                            if id_ < self._model.vocab_size and t.content in self._user_added))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Tokenizer:
        """Read an HF ``tokenizer.json`` (a ``wordpieces.json`` beside it sets the flavor).

        A ``tokenizer_config.json`` beside it (``transformers``' file) sets
        ``model_max_length``, the padding and truncation sides and the special-token roles.
        """
        return cls.from_parts(with_config_file(parts_from_file(path), path))

    @classmethod
    def from_str(cls, json_text: str) -> Tokenizer:
        """Read an HF ``tokenizer.json`` given as a string (flavor ``huggingface``)."""
        return cls.from_parts(parts_from_str(json_text))

    def to_str(self, pretty: bool = False) -> str:
        """Write this tokenizer as HF ``tokenizer.json`` text."""
        return parts_to_str(self.to_parts(), pretty=pretty)

    def save(self, path: str | os.PathLike) -> None:
        """Save to directory ``path``, atomically: what HF and ``transformers`` load.

        tokenizer.json, vocab.txt, wordpieces.json (the flavor…), tokenizer_config.json
        and special_tokens_map.json. A path ending in ``.json`` writes only that HF
        ``tokenizer.json`` file. A flavor HF cannot reproduce is a warning naming the
        differences (``hf_differences``).
        """
        self.warn_hf_differences(path)
        save_parts(self.to_parts(), path)

    def __eq__(self, other: object) -> bool:
        """Equal when the configuration and vocabulary are (not where they were read from)."""
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return self is other or self.identity_text() == other.identity_text()

    def __hash__(self) -> int:
        """A hash of the configuration and vocabulary: do not change a tokenizer used as key."""
        return hash(self.identity_text())

    def __getstate__(self) -> dict:
        return {"parts": parts_state(self.to_parts()), "user_added": sorted(self._user_added)}

    def __setstate__(self, state: dict) -> None:
        has_parts = isinstance(state, dict) and "parts" in state
        parts = state["parts"] if has_parts else state  # bare: pickled by older versions
        tok = type(self).from_parts(parts_from_state(parts))
        self.__dict__.update(tok.__dict__)
        for kept in ("_kept_pipeline", "_kept_defaults", "_lanes"):  # bound to tok
            self.__dict__.pop(kept, None)
        if has_parts:
            self._user_added = set(state.get("user_added", ()))
            listed = state.get("additional_special_tokens")  # pickled by older versions
            if listed is not None:
                self._transformers = dataclasses.replace(
                    self._transformers, additional_special_tokens=tuple(listed))
            self._rebuild()

    # ------------------------------------------------------------ pipeline stages

    @property
    def model(self):
        return self._model

    @model.setter
    def model(self, value) -> None:
        self._model = value
        self._rebuild()

    @property
    def post_processor(self):
        return self._post_processor

    @post_processor.setter
    def post_processor(self, value) -> None:
        check_special_ids(value, self._seq.id_tokens)
        self._post_processor = value

    @property
    def normalizer(self):
        return self._normalizer

    @normalizer.setter
    def normalizer(self, value) -> None:
        self._normalizer = value
        self._rebuild()

    @property
    def pre_tokenizer(self):
        return self._pre_tokenizer

    @pre_tokenizer.setter
    def pre_tokenizer(self, value) -> None:
        self._pre_tokenizer = value
        self._rebuild()

    @property
    def _seq(self) -> SequenceEncoder:
        """The sequence encoder, built again if a stage's option was set since it was built."""
        if self._built_at != settings_generation():
            self._rebuild()
        return self._built

    def _rebuild(self) -> None:
        """Rebuild the sequence encoder (and added-token matcher) after a stage changed."""
        self._built_at = settings_generation()
        norm = self._normalizer.normalize_str if self._normalizer is not None else None
        added = AddedVocabulary(self._added, norm)
        # id -> token as one list (added tokens win, as in HF): the per-token lookup is hot.
        tokens: list[str | None] = list(self._model.vocab.tokens)
        for token, id_ in self._added:
            tokens.extend([None] * (id_ + 1 - len(tokens)))
            tokens[id_] = token.content
        matched = (added if self.flavor == "huggingface" or len(added) == 0
                   else AddedVocabulary([(t, i) for t, i in self._added if self._matches(t, i)],
                                        norm))
        self._built = SequenceEncoder(self._normalizer, self._pre_tokenizer, self._model,
                                      added, matched=matched, id_tokens=tokens)

    def _matches(self, token: AddedToken, id_: int) -> bool:
        """Whether a ``bert``/``tensorflow`` tokenizer keeps ``token`` whole in text.

        Those references split a reserved token typed in the text (``[MASK]``) as any
        other word; tokens the user adds (``add_tokens``, ``add_special_tokens``) and
        tokens the vocabulary does not have are matched whole, as in every flavor.
        """
        return id_ >= self._model.vocab_size or token.content in self._user_added

    def _new_id(self, content: str) -> int:
        """The model's id of ``content``, else the next id after every id in use (as HF)."""
        id_ = self._model.token_to_id(content)
        if id_ is not None:
            return id_
        return max([self._model.vocab_size - 1, *(id_ for _, id_ in self._added)]) + 1

    def _add(self, tokens: Iterable[AddedToken | str], *, special: bool,
             make_special: bool = False, by_user: bool = False) -> int:
        """Add tokens (strings get ``special``; ``make_special`` turns objects special).

        ``by_user``: from ``add_tokens``/``add_special_tokens``, so matched whole in
        text in every flavor (``_matches``), those already added included.
        """
        known = {t.content for t, _ in self._added}
        added = 0
        for given in tokens:
            token = as_added_token(given, special=special, make_special=make_special)
            if by_user and token.content:
                self._user_added.add(token.content)
            if not token.content or token.content in known:
                continue
            known.add(token.content)
            id_ = self._new_id(token.content) if token.id is None else token.id
            self._added.append((dataclasses.replace(token, id=id_), id_))
            added += id_ >= self._model.vocab_size  # HF counts only new vocabulary entries
        self._rebuild()
        return added

    def add_special_tokens(self, tokens: Iterable[AddedToken | str]) -> int:
        """Add special tokens: kept whole in text (every flavor), skipped by decode.

        Returns how many got a new id, as HF does.
        """
        return self._add(tokens, special=True, make_special=True, by_user=True)

    def add_tokens(self, tokens: Iterable[AddedToken | str]) -> int:
        """Add ordinary tokens matched whole in text (HF ``add_tokens``).

        Returns how many got a new id (tokens already in the vocabulary keep theirs).
        """
        return self._add(tokens, special=False, by_user=True)

    @property
    def added_tokens(self) -> list[AddedToken]:
        """The added tokens with their ids, in the order they were added."""
        return [t for t, _ in self._added]

    # ------------------------------------------------------------ vocabulary

    def token_to_id(self, token: str) -> int | None:
        """Id of ``token`` (added tokens first, as HF), or None."""
        id_ = self._seq.added.ids.get(token)
        return self._model.token_to_id(token) if id_ is None else id_

    def id_to_token(self, id_: int) -> str | None:
        """Token of id ``id_``, or None."""
        tokens = self._seq.id_tokens
        return tokens[id_] if 0 <= id_ < len(tokens) else None

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        vocab = self._model.get_vocab()
        if with_added_tokens:
            vocab.update(self._seq.added.ids)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        if not with_added_tokens:
            return self._model.vocab_size
        return len(self.get_vocab(True))

    @property
    def vocab_size(self) -> int:
        return self.get_vocab_size()

    @property
    def special_tokens(self) -> list[str]:
        """Contents of the special added tokens, in order."""
        return [t.content for t, _ in self._added if t.special]

    @property
    def reserved_tokens(self) -> list[str]:
        """Tokens ``detokenize`` drops (all but the unknown token); defaults to the specials."""
        return list(self.special_tokens if self._reserved is None else self._reserved)

    def get_vocab_path(self) -> str | None:
        """Where this tokenizer's vocabulary file is (TF Text's exported name)."""
        return self.vocab_path

    def get_reserved_tokens(self) -> list[str]:
        """The reserved tokens (TF Text's exported name)."""
        return self.reserved_tokens

    def lookup(self, ids: Iterable[int]) -> list[str]:
        """Tokens of ``ids``; an unknown id is an error naming it."""
        out = []
        for i in ids:
            token = self.id_to_token(int(i))
            if token is None:
                raise TokenizeError(f"id {i} is not in the vocabulary (size {self.vocab_size})")
            out.append(token)
        return out

    # ------------------------------------------------------------ padding / truncation

    def enable_padding(self, *, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
                       pad_token: str = "[PAD]", length: int | None = None,
                       pad_to_multiple_of: int | None = None) -> None:
        """Pad every encoding (to ``length``, or to the longest of the batch)."""
        self._padding = PaddingParams(direction=direction, pad_id=pad_id,
                                      pad_type_id=pad_type_id, pad_token=pad_token,
                                      length=length, pad_to_multiple_of=pad_to_multiple_of)

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> dict | None:
        """The padding settings as HF reports them, or None."""
        return None if self._padding is None else self._padding.as_dict()

    @property
    def padding_params(self) -> PaddingParams | None:
        """The padding settings as ``enable_padding`` stored them, or None."""
        return self._padding

    def enable_truncation(self, max_length: int, *, stride: int = 0,
                          strategy: str = "longest_first", direction: str = "right") -> None:
        """Cut encodings to ``max_length`` tokens, special tokens included."""
        params = TruncationParams(max_length, stride, strategy, direction)
        room = max_length - self.num_special_tokens_to_add(False)
        if 0 <= room < stride:  # HF's check; windows need stride < room (checked at encode)
            raise ValueError(f"tokenizer stride set to {stride}, which is greater than or "
                             f"equal to its effective max length of {room} (= {max_length} "
                             f"original max length - {max_length - room} added special tokens)")
        self._truncation = params

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> dict | None:
        """The truncation settings as HF reports them, or None."""
        return None if self._truncation is None else self._truncation.as_dict()

    @property
    def truncation_params(self) -> TruncationParams | None:
        """The truncation settings as ``enable_truncation`` stored them, or None."""
        return self._truncation

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many tokens the post-processor adds to one input (or a pair)."""
        return 0 if self.post_processor is None else self.post_processor.added_tokens(is_pair)

    # ------------------------------------------------------------ encoding

    @property
    def pipeline(self) -> Pipeline:
        """What the encode engine runs (``encode.engine``): sequences and post-processor."""
        seq = self._seq
        kept = self.__dict__.get("_kept_pipeline")
        if (kept is not None and kept.sequences is seq
                and kept.post_processor is self._post_processor):
            return kept
        self._kept_pipeline = Pipeline(seq, self._post_processor, self.id_to_token)
        return self._kept_pipeline

    def _settings(self, add_special_tokens: bool, num_threads: int | None = None,
                  ) -> EncodeSettings:
        """This tokenizer's own truncation and padding (``enable_truncation``...)."""
        return EncodeSettings(add_special_tokens, self._truncation, self._padding, num_threads)

    def encode(self, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoding:
        """Encode one text (or a pair) into an ``Encoding``, truncated and padded as set."""
        return run(self.pipeline, [(text, pair)], self._settings(add_special_tokens),
                   "encodings")[0]

    def encode_batch(self, texts: Iterable[TextOrPair], *,
                     add_special_tokens: bool = True,
                     num_threads: int | None = None) -> list[Encoding]:
        """Encode many texts or ``(text, pair)`` items; padding spans the whole batch.

        ``num_threads`` (default: all cores) is used by the native backend, which
        releases the GIL; the pure-Python backend encodes on the calling thread.
        """
        return run(self.pipeline, list(check_batch(texts)),
                   self._settings(add_special_tokens, num_threads), "encodings")

    def encode_ids(self, text: str, pair: str | None = None, *,
                   add_special_tokens: bool = True) -> list[int]:
        """Return ``encode(...).ids`` without building offsets or tokens (the fast path)."""
        item = text if pair is None else (text, pair)
        return run(self.pipeline, [item], self._settings(add_special_tokens), "ids")[0]

    def encode_batch_ids(self, texts: Iterable[TextOrPair], *,
                         add_special_tokens: bool = True,
                         num_threads: int | None = None) -> list[list[int]]:
        """Return ``[e.ids for e in encode_batch(...)]`` by the fast path (no Encodings)."""
        items = texts if isinstance(texts, list) else list(check_batch(texts))
        return run(self.pipeline, items, self._settings(add_special_tokens, num_threads),
                   "ids")

    def explain_backend(self) -> str:
        """Say which path this tokenizer's encode calls take, and what keeps them off C.

        ``"native"``; ``"python (fused): <why>"`` (the extension is missing, or
        ``WORDPIECES_BACKEND=python``); ``"python: <stage>: <reason>"``: the stage whose
        form the C code cannot run (``fast.backend.explain_backend``), or a
        post-processor without a plan the C finisher can run.

        >>> from wordpieces.pipeline.pre_tokenizers import Digits, Metaspace, Sequence
        >>> tok = Tokenizer.from_vocab(["[UNK]", "[CLS]", "[SEP]", "a"])
        >>> tok.pre_tokenizer = Sequence([Metaspace(), Digits()])
        >>> tok.explain_backend()
        'python: pre_tokenizer Metaspace: before another member of a Sequence, or in a nested one'
        """
        why = explain_backend(self)
        processor = self.post_processor
        if why == "native" and plans_of(processor, True) is None:
            return (f"python: post_processor {type(processor).__name__}: no plan the C "
                    f"finisher can run (it has no plan(), or one C cannot hold)")
        return why

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text``, without special tokens, truncation or padding."""
        return self._seq.encodings([text], [0])[0].tokens

    def encode_batch_with(self, texts: Iterable[TextOrPair], *,
                          truncation: TruncationParams | None, padding: PaddingParams | None,
                          add_special_tokens: bool = True,
                          num_threads: int | None = None) -> list[Encoding]:
        """``encode_batch`` with these truncation and padding settings, not the tokenizer's.

        None means none; the tokenizer's own settings are left unchanged.
        """
        items = texts if isinstance(texts, list) else list(check_batch(texts))
        settings = EncodeSettings(add_special_tokens, truncation, padding, num_threads)
        return run(self.pipeline, items, settings, "encodings")

    # ------------------------------------------------------------ decoding

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """Turn ids (a list, array or tensor) into text with the decoder (unknown ids skipped)."""
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        special = self._seq.added.special
        tokens = [t for t in map(self.id_to_token, ids) if t is not None
                  and not (skip_special_tokens and t in special)]
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, sequences: Iterable[Iterable[int]],
                     skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    def detokenize(self, ids: Iterable[int]) -> str:
        """Words joined by single spaces, reserved tokens dropped except the unknown token."""
        prefix = getattr(self._model, "continuing_subword_prefix", "")
        return detokenize(self.lookup(ids), reserved_tokens=self.reserved_tokens,
                          unk_token=getattr(self._model, "unk_token", None), prefix=prefix)

    def __repr__(self) -> str:
        return (f"Tokenizer(model={type(self._model).__name__}, vocab_size={self.vocab_size}, "
                f"flavor={self.flavor!r})")


# ---------------------------------------------------------------- helpers


def _read_vocab(vocab) -> tuple[Vocab, str | None]:
    if isinstance(vocab, str | os.PathLike):
        return Vocab.from_file(vocab), os.fspath(vocab)
    return models.as_vocab(vocab), None


def _default_specials(vocab: Vocab, special_tokens, unk_token: str, processor) -> list[str]:
    if special_tokens is not None:
        specials = list(special_tokens)
        missing = [t for t in specials if t not in vocab]
        if missing:
            raise VocabError(f"special tokens {missing} are not in the vocabulary")
    else:
        specials = [t for t in vocab.tokens if _RESERVED_LOOK.match(t)]
    extra = [unk_token]
    if processor is not None:
        extra += [p.name for p in processor.single + processor.pair if not p.is_sequence]
    for token in extra:
        if token not in specials and token in vocab:
            specials.append(token)
    return sorted(specials, key=vocab.ids.__getitem__)

