"""The ``transformers`` tokenizer interface of ``Tokenizer``, as a mixin.

What a user of ``transformers``' ``PreTrainedTokenizerFast`` reaches for beside calling
the tokenizer: ``model_max_length``, ``padding_side``, ``truncation_side``, the
special-token attributes (``pad_token``, ``pad_token_id`` — both settable —,
``cls_token`` …, ``additional_special_tokens``, ``all_special_tokens``,
``all_special_ids``), ``max_len_single_sentence``/``max_len_sentences_pair``, the added
tokens (``get_added_vocab``, ``added_tokens_decoder``), ``batch_decode``,
``convert_ids_to_tokens``, ``convert_tokens_to_ids``, ``convert_tokens_to_string``,
``pad``, ``len(tok)`` and ``from_pretrained``/``save_pretrained``. The settings live in a
``TransformersConfig`` (``formats.transformers_config``), saved as
``tokenizer_config.json``. Also here: what a save tells HF users (``hf_differences``, the
warning) and what ``==`` compares (``identity_text``).

``TransformersMixin`` relies on the host class for what its ``TYPE_CHECKING`` block
declares (``token_to_id``, ``decode``, ``model``, ``padding_params`` …) and the attribute
``_transformers`` (its ``TransformersConfig``).

``tok(...)`` itself is here too: ``__call__`` keeps one compiled call per options
(``encode.call.one_text_lane``) for a single text, while the stages and settings it was
made from stand, and otherwise runs ``encode.call.call_tokenizer``.

Not handled here: resolving the call's options (``encode.call``), the padding of
encodings (``encode.finishing``), reading files (``formats``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .encode.call import CallDefaults, call_tokenizer, one_text_lane
from .encode.engine import Pipeline
from .encode.sequences import SequenceEncoder
from .encoding.batch_encoding import BatchEncoding, pad_inputs
from .encoding.padding import PaddingParams, TruncationParams
from .errors import FormatError
from .formats.tokenizer_json import (
    TOKENIZER_JSON,
    VOCAB_TXT,
    TokenizerParts,
    parts_state,
    tokenizer_files,
)
from .formats.transformers_config import (
    NO_LIMIT,
    SPECIAL_TOKEN_NAMES,
    TOKENIZER_CONFIG_JSON,
    TransformersConfig,
    additional_special_tokens_of,
    hf_differences,
    read_config,
    side,
    slow_options,
    special_tokens_of,
)
from .pipeline.live_settings import settings_generation


def _as_list(ids) -> list:
    """Plain Python ints from a list, a numpy array or a torch tensor."""
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


def _token_id(token) -> int:
    return token.id


def _role_token(name: str) -> property:
    def get(self) -> str | None:
        return self.special_tokens_map.get(name)

    def put(self, token: str | None) -> None:
        if token is not None and not isinstance(token, str):
            raise TypeError(f"{name} must be a str or None, got {type(token).__name__}")
        self._transformers = self._transformers.with_special_token(
            name, token, self.special_tokens_map)

    return property(get, put, doc=f"The {name.replace('_', ' ')} (transformers' "
                                  f"``{name}``), or None.")


def _role_id(name: str) -> property:
    def get(self) -> int | None:
        token = self.special_tokens_map.get(name)
        return None if token is None else self.convert_tokens_to_ids(token)

    def put(self, id_: int | None) -> None:
        setattr(self, name, None if id_ is None else self.token_of_id(id_, name + "_id"))

    return property(get, put, doc=f"The id of ``{name}`` (the unknown token's id if it is "
                                  f"not in the vocabulary, as transformers), or None; "
                                  f"setting an id sets ``{name}`` to its token.")


def _fixed_length(name: str, pair: bool) -> property:
    def get(self) -> int:
        limit = self.model_max_length
        return (NO_LIMIT if limit is None else limit) - self.num_special_tokens_to_add(pair)

    def put(self, value: int) -> None:
        if value != get(self):  # transformers accepts only the value it has (a no-op)
            raise ValueError(f"{name} is computed (model_max_length minus the special "
                             f"tokens, {get(self)}), it cannot be set to {value!r}")

    return property(get, put, doc=f"The longest {'pair' if pair else 'single input'} the "
                                  f"model takes without its special tokens (transformers' "
                                  f"``{name}``; no limit counts as its {NO_LIMIT}).")


class TransformersMixin:
    """``transformers``' tokenizer attributes and methods, for ``Tokenizer``."""

    _transformers: TransformersConfig

    if TYPE_CHECKING:  # what the host class (Tokenizer) provides
        _post_processor: Any  # the stages and settings the call's lane is kept by
        _built: Any
        _padding: PaddingParams | None
        _truncation: TruncationParams | None

        @property
        def pipeline(self) -> Pipeline: ...
        flavor: str
        model: Any
        normalizer: Any
        decoder: Any

        @property
        def padding_params(self) -> PaddingParams | None: ...
        @property
        def truncation_params(self) -> TruncationParams | None: ...
        def token_to_id(self, token: str) -> int | None: ...
        def id_to_token(self, id_: int) -> str | None: ...
        def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str: ...
        def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...
        def num_special_tokens_to_add(self, is_pair: bool) -> int: ...
        def add_special_tokens(self, tokens: Iterable[Any]) -> int: ...
        @property
        def special_tokens(self) -> list[str]: ...
        @property
        def added_tokens(self) -> list[Any]: ...
        def save(self, path: str | os.PathLike) -> None: ...
        def to_parts(self) -> TokenizerParts: ...
        @classmethod
        def from_file(cls, path: str | os.PathLike) -> Any: ...
        from_vocab: Any  # a classmethod with many keyword options

    # ------------------------------------------------------------ lengths and sides

    @property
    def model_max_length(self) -> int | None:
        """The longest input the model takes (None: no limit): ``truncation=True`` cuts here."""
        return self._transformers.model_max_length

    @model_max_length.setter
    def model_max_length(self, value: int | None) -> None:
        self._transformers = dataclasses.replace(self._transformers, model_max_length=value)

    @property
    def padding_side(self) -> str:
        """Where calls pad: the configured side, else ``enable_padding``'s, else right."""
        return side(self._transformers.padding_side, self.padding_params)

    @padding_side.setter
    def padding_side(self, value: str) -> None:
        self._transformers = dataclasses.replace(self._transformers, padding_side=value)

    @property
    def truncation_side(self) -> str:
        """Where calls cut: the configured side, else ``enable_truncation``'s, else right."""
        return side(self._transformers.truncation_side,
                    self.truncation_params)

    @truncation_side.setter
    def truncation_side(self, value: str) -> None:
        self._transformers = dataclasses.replace(self._transformers, truncation_side=value)

    # ------------------------------------------------------------ the call

    def __call__(self, text, text_pair=None, **options) -> BatchEncoding:
        """Encode like a ``transformers`` tokenizer, returning a dict of model inputs.

        See ``encode.call.call_tokenizer`` for the options (``padding``,
        ``truncation``, ``max_length``, ``return_tensors`` …).
        """
        if text_pair is None and type(text) is str:
            lane = self._one_text_lane(options)
            done = None if lane is None else lane(text)
            if done is not None:
                return done
        pipeline = self.pipeline
        return call_tokenizer(pipeline, self._call_defaults(pipeline.sequences), text,
                              text_pair, **options)

    def _one_text_lane(self, options: dict):
        """``tok(text, **options)``'s compiled call (``call.one_text_lane``), or None.

        Kept per options (with their types: ``128.0`` is still refused) while what it
        was made from stands: the stages (``settings_generation``), the sequence
        encoder, the post-processor and its options, the transformers settings,
        padding and truncation: one comparison per call instead of reading them all.
        """
        processor = self._post_processor
        stamp = getattr(processor, "options_stamp", None)
        state = (settings_generation(), self._built, processor, stamp and stamp(),
                 self._transformers, self._padding, self._truncation)
        lanes = self.__dict__.setdefault("_lanes", {})
        try:
            key = (tuple(options.items()), tuple(map(type, options.values())))
            kept = lanes.get(key)
        except TypeError:  # an unhashable option value: the general call says what
            return None
        if kept is None or kept[0] != state:
            if len(lanes) >= 16:
                lanes.clear()
            pipeline = self.pipeline
            lane = one_text_lane(pipeline, self._call_defaults(pipeline.sequences), options)
            kept = lanes[key] = (state, lane)
        return kept[1]

    def _call_defaults(self, seq: SequenceEncoder) -> CallDefaults:
        """What ``tok(...)``'s options default to, kept while nothing it reads is replaced.

        Reading them (the pad token's role and id...) costs more than encoding a short
        text. They depend on the transformers settings, padding, truncation and the
        vocabulary with its added tokens; each change replaces one of these objects (the
        sequence encoder ``seq`` is built again when tokens are added or a stage changes).
        """
        kept = self.__dict__.get("_kept_defaults")
        if (kept is not None and kept[0] is seq and kept[1] is self._transformers
                and kept[2] is self._padding and kept[3] is self._truncation):
            return kept[4]
        defaults = CallDefaults(self.pad_token, self.pad_token_id, self._padding,
                                self.model_max_length, self.padding_side,
                                self.truncation_side)
        self._kept_defaults = (seq, self._transformers, self._padding, self._truncation,
                               defaults)
        return defaults

    # ------------------------------------------------------------ special tokens

    @property
    def special_tokens_map(self) -> dict[str, str]:
        """Role -> token (``{"pad_token": "[PAD]", …}``), in transformers' order."""
        padding = self.padding_params
        return special_tokens_of(self._transformers, self.model,
                                 lambda t: self.token_to_id(t) is not None,
                                 None if padding is None else padding.pad_token)

    bos_token = _role_token("bos_token")
    eos_token = _role_token("eos_token")
    unk_token = _role_token("unk_token")
    sep_token = _role_token("sep_token")
    pad_token = _role_token("pad_token")
    cls_token = _role_token("cls_token")
    mask_token = _role_token("mask_token")
    bos_token_id = _role_id("bos_token")
    eos_token_id = _role_id("eos_token")
    unk_token_id = _role_id("unk_token")
    sep_token_id = _role_id("sep_token")
    pad_token_id = _role_id("pad_token")
    cls_token_id = _role_id("cls_token")
    mask_token_id = _role_id("mask_token")

    max_len_single_sentence = _fixed_length("max_len_single_sentence", False)
    max_len_sentences_pair = _fixed_length("max_len_sentences_pair", True)

    def token_of_id(self, id_: int, field: str = "id") -> str:
        """The token of ``id_``; an id that names none is a ValueError naming ``field``."""
        if isinstance(id_, bool) or not isinstance(id_, int):
            raise TypeError(f"{field} must be an int, got {type(id_).__name__}: {id_!r:.40}")
        token = self.id_to_token(id_)
        if token is None:
            raise ValueError(f"{field}: id {id_} is no token (vocabulary size "
                             f"{self.get_vocab_size(True)})")
        return token

    @property
    def additional_special_tokens(self) -> list[str]:
        """The special tokens that play no named role (transformers' list of that name).

        Unless set (or read from ``tokenizer_config.json``), the special added tokens that
        are not in ``special_tokens_map``; setting it adds the tokens as special ones
        (kept whole in text) and lists exactly those. Saved in ``tokenizer_config.json``
        as transformers saves it. transformers 5 calls it ``extra_special_tokens`` (an
        alias here).
        """
        return additional_special_tokens_of(self._transformers, self.added_tokens,
                                            self.special_tokens_map)

    @additional_special_tokens.setter
    def additional_special_tokens(self, tokens: Iterable[str] | None) -> None:
        if isinstance(tokens, str):
            raise TypeError("additional_special_tokens must be a list of tokens, got a str")
        listed = [] if tokens is None else [str(t) for t in tokens]
        self.add_special_tokens(listed)
        self._transformers = dataclasses.replace(self._transformers,
                                                 additional_special_tokens=tuple(listed))

    @property
    def additional_special_tokens_ids(self) -> list[int]:
        """The ids of ``additional_special_tokens``."""
        return [self.convert_tokens_to_ids(t) for t in self.additional_special_tokens]

    @additional_special_tokens_ids.setter
    def additional_special_tokens_ids(self, ids: Iterable[int] | None) -> None:
        self.additional_special_tokens = (
            None if ids is None
            else [self.token_of_id(i, "additional_special_tokens_ids") for i in ids])

    extra_special_tokens = additional_special_tokens
    extra_special_tokens_ids = additional_special_tokens_ids

    @property
    def pad_token_type_id(self) -> int:
        """The type id of padding (``enable_padding``'s, else 0)."""
        padding = self.padding_params
        return 0 if padding is None else padding.pad_type_id

    @property
    def all_special_tokens(self) -> list[str]:
        """The tokens of ``special_tokens_map``, then the additional ones, each once.

        transformers' order (the roles in its order, then ``additional_special_tokens``).
        """
        roles = self.special_tokens_map
        named = [roles[k] for k in SPECIAL_TOKEN_NAMES if k in roles]
        return list(dict.fromkeys(named + self.additional_special_tokens))

    @property
    def all_special_ids(self) -> list[int]:
        """The ids of ``all_special_tokens``."""
        return [self.convert_tokens_to_ids(t) for t in self.all_special_tokens]

    # ------------------------------------------------------------ ids and tokens

    def convert_tokens_to_ids(self, tokens: str | Iterable[str]):
        """Id of a token (or ids of tokens); unknown tokens give the unknown token's id."""
        if isinstance(tokens, str):
            return self._id_or_unk(tokens)
        return [self._id_or_unk(t) for t in tokens]

    def _id_or_unk(self, token: str) -> int | None:
        id_ = self.token_to_id(token)
        if id_ is not None:
            return id_
        unk = self.special_tokens_map.get("unk_token")
        return None if unk is None else self.token_to_id(unk)

    def convert_ids_to_tokens(self, ids, skip_special_tokens: bool = False):
        """Token of an id (or tokens of ids); ``skip_special_tokens`` drops special ones."""
        if isinstance(ids, int) or (hasattr(ids, "ndim") and ids.ndim == 0):
            return self.id_to_token(int(ids))
        special = set(self.all_special_ids) if skip_special_tokens else set()
        return [self.id_to_token(i) for i in map(int, _as_list(ids))
                if i not in special]

    def convert_tokens_to_string(self, tokens: Iterable[str]) -> str:
        """Join tokens into text with the decoder (``##`` pieces glued), as transformers."""
        tokens = list(tokens)
        decoder = self.decoder
        return " ".join(tokens) if decoder is None else decoder.decode(tokens)

    def get_added_vocab(self) -> dict[str, int]:
        """Added token -> id, special ones included (transformers' ``get_added_vocab``)."""
        return {t.content: t.id for t in sorted(self.added_tokens, key=_token_id)}

    def get_added_tokens_decoder(self) -> dict[int, Any]:
        """Id -> ``AddedToken``, by id (HF ``tokenizers``' ``get_added_tokens_decoder``)."""
        return {t.id: t for t in sorted(self.added_tokens, key=_token_id)}

    @property
    def added_tokens_decoder(self) -> dict[int, Any]:
        """Id -> ``AddedToken``, by id (transformers' ``added_tokens_decoder``)."""
        return self.get_added_tokens_decoder()

    def __len__(self) -> int:
        """The vocabulary size with the added tokens (transformers' ``len(tok)``)."""
        return self.get_vocab_size(True)

    def batch_decode(self, sequences, skip_special_tokens: bool = False) -> list[str]:
        """Decode each row (lists, a numpy array or a tensor), keeping special tokens by default.

        transformers' default; ``decode`` keeps HF ``tokenizers``' (skip them).
        """
        return [self.decode(_as_list(ids), skip_special_tokens)
                for ids in _as_list(sequences)]

    # ------------------------------------------------------------ padding model inputs

    def pad(self, encoded_inputs, padding=True, max_length: int | None = None,
            pad_to_multiple_of: int | None = None, padding_side: str | None = None,
            return_attention_mask: bool | None = None,
            return_tensors: str | None = None) -> BatchEncoding:
        """Pad already-encoded inputs (a dict of rows, a list of dicts, or one row) as transformers.

        ``input_ids`` get the pad id, ``token_type_ids`` the pad type id,
        ``special_tokens_mask`` 1, ``attention_mask`` 0 (made when missing); other keys
        are left as they are.
        """
        pad_id = self.pad_token_id
        return pad_inputs(encoded_inputs, padding=padding,
                          max_length=max_length if max_length is not None
                          else self.model_max_length,
                          pad_to_multiple_of=pad_to_multiple_of,
                          side=padding_side or self.padding_side, pad_id=pad_id,
                          pad_type_id=self.pad_token_type_id,
                          return_attention_mask=return_attention_mask is not False,
                          return_tensors=return_tensors)

    # ------------------------------------------------------------ files

    def hf_differences(self) -> list[str]:
        """Where HF reading this tokenizer's saved ``tokenizer.json`` gives other ids (flavor)."""
        return hf_differences(self.flavor, self.normalizer, self.model)

    def warn_hf_differences(self, path: str | os.PathLike) -> None:
        """Warn (``UserWarning``) that a save to ``path`` will not read the same in HF, and why."""
        differences = self.hf_differences()
        if differences:
            warnings.warn(f"{os.fspath(path)}: Hugging Face will not read this tokenizer "
                          f"exactly (flavor {self.flavor!r}, kept in wordpieces.json; pick "
                          f"flavor='huggingface' to match it): " + "; ".join(differences),
                          UserWarning, stacklevel=3)

    def identity_text(self) -> str:
        """The configuration and vocabulary as text (defaults resolved, no file path).

        What ``==`` and ``hash`` compare: two tokenizers built from the same files are equal,
        and so are two that tokenize alike whatever options trained them
        (``training_options``, provenance only, are left out).
        """
        resolved = TransformersConfig(self.model_max_length, self.padding_side,
                                      self.truncation_side,
                                      tuple(self.special_tokens_map.items()))
        parts = dataclasses.replace(self.to_parts(), vocab_path=None, training=None,
                                    transformers=resolved)
        return json.dumps(parts_state(parts), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_pretrained(cls, directory: str | os.PathLike):
        """Load a directory ``save_pretrained`` (or ``save``) wrote, no network.

        ``tokenizer.json`` (with ``tokenizer_config.json`` beside it) is read as is; a
        slow-only save (``vocab.txt`` + ``tokenizer_config.json``) builds the
        ``huggingface`` flavor with the config's ``do_lower_case``, ``strip_accents``,
        ``tokenize_chinese_chars``, unknown token and ``additional_special_tokens``, as
        transformers converts it.
        """
        directory = os.fspath(directory)
        if os.path.isfile(os.path.join(directory, TOKENIZER_JSON)):
            return cls.from_file(os.path.join(directory, TOKENIZER_JSON))
        vocab = os.path.join(directory, VOCAB_TXT)
        read = read_config(directory)
        if read is None or not os.path.isfile(vocab):
            raise FormatError(f"{directory}: neither {TOKENIZER_JSON} nor {VOCAB_TXT} with "
                              f"{TOKENIZER_CONFIG_JSON}: not a saved tokenizer")
        config, raw = read
        tok = cls.from_vocab(vocab, flavor="huggingface", **slow_options(raw, config))
        tok._transformers = config
        if config.additional_special_tokens:  # as transformers adds them
            tok.add_special_tokens(list(config.additional_special_tokens))
        return tok

    def save_pretrained(self, directory: str | os.PathLike) -> tuple[str, ...]:
        """``save(directory)``; returns the files written, as transformers does."""
        self.save(directory)
        names = tokenizer_files(self.to_parts())
        return tuple(os.path.join(os.fspath(directory), n) for n in names)
