"""Read and write what ``transformers`` keeps beside ``tokenizer.json``.

``transformers`` reads a tokenizer's maximum length, its padding and truncation sides and
the names of its special tokens (``pad_token``, ``cls_token`` …) from
``tokenizer_config.json`` (older versions also from ``special_tokens_map.json``), not
from ``tokenizer.json``. ``TransformersConfig`` holds those settings;
``special_tokens_of`` is the one rule for which token plays which role when no file said
so; ``config_files`` writes both files so that ``AutoTokenizer.from_pretrained(dir)``
loads the saved ``tokenizer.json`` as it is (class ``PreTrainedTokenizerFast``) and pads
and truncates as wordpieces does; ``read_config`` reads a directory that
``save_pretrained`` wrote. ``hf_differences`` says where Hugging Face's reading of a
saved ``tokenizer.json`` differs from a tokenizer of another flavor.

Not handled here: ``tokenizer.json`` itself (``tokenizer_json``); the slow tokenizers'
other options (``do_lower_case`` … are read by ``load`` for a ``vocab.txt``-only save).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any

from ..errors import MAX_SEQUENCE_LENGTH, FormatError
from ..pipeline import models
from ..pipeline.added_tokens import AddedToken
from .strict_json import Node, parse_json, read_bytes

TOKENIZER_CONFIG_JSON = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_JSON = "special_tokens_map.json"
# transformers' VERY_LARGE_INTEGER (int(1e30)): its "no maximum length"; any value this
# large (some files hold 1e30 as a float, or other huge numbers) means no limit.
NO_LIMIT = int(1e30)
NO_LIMIT_FROM = 10**18
# transformers' SPECIAL_TOKENS_ATTRIBUTES, in its order (all_special_tokens follows it).
SPECIAL_TOKEN_NAMES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token",
                       "cls_token", "mask_token")
SIDES = ("right", "left")
MODEL_INPUT_NAMES = ("input_ids", "token_type_ids", "attention_mask")
# Tokens BERT-style vocabularies use for each role, taken when the vocabulary has them.
_USUAL_TOKENS = {"sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                 "mask_token": "[MASK]"}


@dataclasses.dataclass(frozen=True)
class TransformersConfig:
    """The settings ``transformers`` keeps in ``tokenizer_config.json``.

    ``model_max_length`` None: no limit. A side None follows ``tokenizer.json``'s padding
    (truncation) direction, else right. ``special_tokens`` None: ``special_tokens_of``'s
    defaults; else the roles given, as ``(name, token)`` pairs (a missing role: none).
    ``additional_special_tokens``: the file's list of that name (special tokens with no
    role), added to the tokenizer as special tokens when it is read (``with_config_file``),
    or the list a user set; None: none given, ``additional_special_tokens_of`` derives it.
    """

    model_max_length: int | None = None
    padding_side: str | None = None
    truncation_side: str | None = None
    special_tokens: tuple[tuple[str, str], ...] | None = None
    additional_special_tokens: tuple[str, ...] | None = None

    def __post_init__(self):
        limit = self.model_max_length
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 0):
            raise ValueError(f"model_max_length must be None or an integer >= 0, got {limit!r}")
        for name in ("padding_side", "truncation_side"):
            value = getattr(self, name)
            if value is not None and value not in SIDES:
                raise ValueError(f"{name} must be 'right' or 'left', got {value!r}")
        for name, _token in self.special_tokens or ():
            if name not in SPECIAL_TOKEN_NAMES:
                raise ValueError(f"unknown special token role {name!r}: expected one of "
                                 f"{', '.join(SPECIAL_TOKEN_NAMES)}")

    def with_special_token(self, name: str, token: str | None,
                           current: dict[str, str]) -> TransformersConfig:
        """A copy where role ``name`` is ``token`` (None: no token), others as ``current``."""
        roles = {k: v for k, v in current.items() if k != name}
        if token is not None:
            roles[name] = token
        ordered = tuple((k, roles[k]) for k in SPECIAL_TOKEN_NAMES if k in roles)
        return dataclasses.replace(self, special_tokens=ordered)


def special_tokens_of(config: TransformersConfig, model, knows: Callable[[str], bool],
                      pad_token: str | None) -> dict[str, str]:
    """Which token plays each role (``pad_token`` → ``"[PAD]"`` …), in transformers' order.

    Roles set in ``config`` win. Otherwise: the model's unknown token; the padding
    settings' pad token (``pad_token``), else ``[PAD]``; ``[CLS]``, ``[SEP]``, ``[MASK]``
    when the tokenizer ``knows`` them (vocabulary or added tokens).
    """
    if config.special_tokens is not None:
        return dict(config.special_tokens)
    roles: dict[str, str] = {}
    unk = getattr(model, "unk_token", None)
    if unk is not None and knows(unk):
        roles["unk_token"] = unk
    for name, usual in _USUAL_TOKENS.items():
        token = pad_token if name == "pad_token" and pad_token is not None else usual
        if knows(token):
            roles[name] = token
    return {k: roles[k] for k in SPECIAL_TOKEN_NAMES if k in roles}


def additional_special_tokens_of(config: TransformersConfig, added,
                                 roles: dict[str, str]) -> list[str]:
    """The special tokens that play no role (transformers' ``additional_special_tokens``).

    As ``config`` lists them, else the special ones of ``added`` (``AddedToken``s) that
    are not among ``roles``' tokens, in order: what transformers lists after
    ``add_special_tokens({"additional_special_tokens": [...]})``.
    """
    if config.additional_special_tokens is not None:
        return list(config.additional_special_tokens)
    role_tokens = set(roles.values())
    return [t.content for t in added if t.special and t.content not in role_tokens]


def side(configured: str | None, params) -> str:
    """A padding (truncation) side: as configured, else the settings' direction, else right."""
    if configured is not None:
        return configured
    return "right" if params is None else params.direction


def parts_config_files(parts) -> dict[str, str]:
    """``config_files`` for a tokenizer's ``TokenizerParts``."""
    known = {t.content for t in parts.added_tokens}
    vocab = parts.model.vocab

    def knows(token: str) -> bool:
        return token in known or token in vocab

    pad_token = None if parts.padding is None else parts.padding.pad_token
    config = parts.transformers
    roles = special_tokens_of(config, parts.model, knows, pad_token)
    listed = additional_special_tokens_of(config, parts.added_tokens, roles)
    if config.additional_special_tokens is None and listed:  # so transformers lists them
        config = dataclasses.replace(config, additional_special_tokens=tuple(listed))
    return config_files(config, roles, side(config.padding_side, parts.padding),
                        side(config.truncation_side, parts.truncation))


# ---------------------------------------------------------------- writing


def config_dict(config: TransformersConfig, roles: dict[str, str],
                padding_side: str, truncation_side: str) -> dict[str, Any]:
    """The ``tokenizer_config.json`` content (sides already resolved)."""
    out: dict[str, Any] = {"tokenizer_class": "PreTrainedTokenizerFast",
                           # the saved decoder already cleans up spaces as wordpieces does
                           "clean_up_tokenization_spaces": False,
                           # what tok(...) returns (transformers' default drops type ids)
                           "model_input_names": list(MODEL_INPUT_NAMES)}
    if config.model_max_length is not None:
        out["model_max_length"] = config.model_max_length
    out["padding_side"] = padding_side
    out["truncation_side"] = truncation_side
    out.update(roles)
    if config.additional_special_tokens is not None:  # transformers 5 reads this key too
        out["additional_special_tokens"] = list(config.additional_special_tokens)
    return out


def config_files(config: TransformersConfig, roles: dict[str, str], padding_side: str,
                 truncation_side: str) -> dict[str, str]:
    """File name -> text of ``tokenizer_config.json`` and ``special_tokens_map.json``."""
    def text(data: dict) -> str:
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

    extra = ({"additional_special_tokens": list(config.additional_special_tokens)}
             if config.additional_special_tokens is not None else {})
    return {TOKENIZER_CONFIG_JSON: text(config_dict(config, roles, padding_side,
                                                    truncation_side)),
            SPECIAL_TOKENS_MAP_JSON: text({**roles, **extra})}


def config_json(config: TransformersConfig) -> dict[str, Any]:
    """The settings as ``wordpieces.json`` keeps them (a bundle ``.zip`` has no config file)."""
    roles = None if config.special_tokens is None else dict(config.special_tokens)
    extra = ({"additional_special_tokens": list(config.additional_special_tokens)}
             if config.additional_special_tokens is not None else {})  # None: key absent
    return {"model_max_length": config.model_max_length, "padding_side": config.padding_side,
            "truncation_side": config.truncation_side, "special_tokens": roles, **extra}


# ---------------------------------------------------------------- reading


def config_from_json(node: Node) -> TransformersConfig:
    """Read the ``transformers`` block of ``wordpieces.json`` (as ``config_json`` wrote it)."""
    node.expect("an object")
    roles = node.child("special_tokens", default=None)
    return _config(node, "model_max_length",
                   None if roles.value is None else _roles(roles, SPECIAL_TOKEN_NAMES),
                   _additional(node))


def read_config(directory: str) -> tuple[TransformersConfig, dict[str, Any]] | None:
    """Read ``tokenizer_config.json`` (and ``special_tokens_map.json``) in ``directory``.

    Returns the settings and the whole parsed config (for the slow tokenizers' options),
    or None when there is no ``tokenizer_config.json``.
    """
    path = os.path.join(directory, TOKENIZER_CONFIG_JSON)
    if not os.path.isfile(path):
        return None
    node = Node(parse_json(read_bytes(path), path), path)
    node.expect("an object")
    roles = _roles(node, SPECIAL_TOKEN_NAMES)
    additional = _additional(node)
    map_path = os.path.join(directory, SPECIAL_TOKENS_MAP_JSON)
    if os.path.isfile(map_path):  # older saves keep the roles only here
        mapped = Node(parse_json(read_bytes(map_path), map_path), map_path)
        mapped.expect("an object")
        roles = {**_roles(mapped, SPECIAL_TOKEN_NAMES), **roles}
        additional = _additional(mapped) if additional is None else additional
    ordered = {k: roles[k] for k in SPECIAL_TOKEN_NAMES if k in roles}
    # no role named anywhere: infer them (special_tokens_of) rather than have none
    return _config(node, "model_max_length", ordered or None, additional), node.value


def with_config_file(parts, path: str | os.PathLike):
    """``parts`` (a ``TokenizerParts``) with the settings of a ``tokenizer_config.json``
    beside ``path`` (a ``tokenizer.json`` or its directory), if there is one."""
    path = os.fspath(path)
    read = read_config(path if os.path.isdir(path) else os.path.dirname(path) or ".")
    if read is None:
        return parts
    config = read[0]
    return dataclasses.replace(parts, transformers=config,
                               added_tokens=with_additional(parts.added_tokens, config))


def with_additional(added: tuple[AddedToken, ...],
                    config: TransformersConfig) -> tuple[AddedToken, ...]:
    """``added`` plus the config's ``additional_special_tokens`` not among them, as special
    tokens (an id is given when the tokenizer is built), as transformers adds them."""
    known = {token.content for token in added}
    extra = [AddedToken(t, special=True) for t in dict.fromkeys(
        config.additional_special_tokens or ()) if t not in known]
    return added + tuple(extra)


def slow_options(raw: dict[str, Any], config: TransformersConfig) -> dict[str, Any]:
    """``Tokenizer.from_vocab`` options from a slow BERT tokenizer's ``tokenizer_config.json``."""
    options: dict[str, Any] = {}
    for key, option in (("do_lower_case", "lowercase"), ("strip_accents", "strip_accents"),
                        ("tokenize_chinese_chars", "handle_chinese_chars")):
        value = raw.get(key)
        if value is not None:
            if not isinstance(value, bool):
                raise FormatError(f"{TOKENIZER_CONFIG_JSON}: {key}: expected a boolean or "
                                  f"null, got {value!r}")
            options[option] = value
    roles = dict(config.special_tokens or ())
    if "unk_token" in roles:
        options["unk_token"] = roles["unk_token"]
    return options


def _config(node: Node, limit_key: str, roles: dict[str, str] | None,
            additional: tuple[str, ...] | None = None) -> TransformersConfig:
    sides = {s: s for s in SIDES}
    return TransformersConfig(
        model_max_length=_limit(node.child(limit_key, default=None)),
        padding_side=node.choice("padding_side", sides, default=None),
        truncation_side=node.choice("truncation_side", sides, default=None),
        special_tokens=None if roles is None else tuple(roles.items()),
        additional_special_tokens=additional)


def _limit(node: Node) -> int | None:
    """A maximum length; null or transformers' huge "no limit" value reads as None.

    Between ``MAX_SEQUENCE_LENGTH`` (2**24, truncation's cap) and ``NO_LIMIT_FROM``
    (10**18) a value is refused here, naming the file and field: it would load and then
    fail the first ``tok(x, truncation=True)``.
    """
    value = node.value
    if value is None:
        return None
    if isinstance(value, float) and value >= NO_LIMIT_FROM:
        return None
    value = node.expect("a non-negative integer")
    if value >= NO_LIMIT_FROM:
        return None
    if value > MAX_SEQUENCE_LENGTH:
        node.fail(f"{value:,} is larger than {MAX_SEQUENCE_LENGTH:,}, the longest input "
                  f"truncation takes (for no limit, write transformers' {NO_LIMIT} or null)")
    return value


def _additional(node: Node) -> tuple[str, ...] | None:
    """A config's ``additional_special_tokens`` (transformers 5: ``extra_special_tokens``,
    a list, or an object of named tokens): strings or AddedToken objects; None: absent."""
    listed = node.child("additional_special_tokens", default=None)
    if listed.value is None:
        listed = node.child("extra_special_tokens", default=None)
    if listed.value is None:
        return None
    if isinstance(listed.value, dict):  # transformers 5: {"name": token, ...}
        return tuple(_token_content(child) for _, child in listed.members())
    return tuple(_token_content(element) for element in listed.elements())


def _token_content(node: Node) -> str:
    """A token as a config holds it: a string, or an AddedToken object's ``content``."""
    if isinstance(node.value, dict):
        return node.get("content", "a string")
    return node.expect("a string")


def _roles(node: Node, names: tuple[str, ...]) -> dict[str, str]:
    """The special-token roles of a config: strings, or AddedToken objects (``content``)."""
    roles = {}
    for name in names:
        child = node.child(name, default=None)
        if child.value is not None:
            roles[name] = _token_content(child)
    return roles


# ---------------------------------------------------------------- flavor differences


def _example_special_token(model) -> str | None:
    """A bracketed special token of the vocabulary, to name in a note (None: it has none)."""
    vocab = getattr(model, "vocab", None)
    tokens = getattr(vocab, "tokens", ())
    for token in ("[MASK]", "[CLS]", "[SEP]", "[PAD]"):
        if token in tokens:
            return token
    return None


def hf_differences(flavor: str, normalizer, model) -> list[str]:
    """Where HF ``tokenizers`` reading this tokenizer's ``tokenizer.json`` gives other ids.

    ``tokenizer.json`` cannot say which reference's character rules to follow: HF
    applies its own (the ``huggingface`` flavor). Empty for that flavor.
    """
    if flavor == "huggingface":
        return []
    lowercase = getattr(normalizer, "lowercase", False)
    notes = [f"flavor {flavor!r}: HF uses its own Unicode tables (controls, whitespace, "
             f"punctuation, accents, CJK)"]
    special = _example_special_token(model)
    if special is not None:
        notes.append(f"a literal {special!r} in the text is split like a word here; HF keeps "
                     f"it whole")
    if flavor == "bert" and lowercase:
        notes.append("str.lower() makes a final sigma 'ς' (HF: 'σ')")
    if flavor == "tensorflow":
        if lowercase:
            notes.append("lowercasing is ICU's NFKC_Casefold (HF: lowercase, NFD, no accents)")
        notes.append("controls become spaces; only ASCII whitespace splits words (HF: "
                     "Unicode whitespace)")
    limit = getattr(model, "max_input_bytes_per_word", None)
    if isinstance(model, models.WordPiece) and limit is not None:
        notes.append(f"words over {limit} UTF-8 bytes become the unknown token (HF counts "
                     f"{model.max_input_chars_per_word} characters)")
    return notes
