"""Read and write tokenizer files: HF ``tokenizer.json`` and ``wordpieces.json``.

A saved tokenizer is a directory holding ``tokenizer.json`` (Hugging Face's format, so
``tokenizers.Tokenizer.from_file`` loads it and gives the same ids), ``vocab.txt``, and
``wordpieces.json``: what HF's format cannot hold (the flavor, reserved tokens, the
vocabulary's tokens a user added by hand, a byte limit per word, the format version).
Reading is strict: files are untrusted input, parsed (never executed or unpickled) and
checked field by field, and a problem is a ``FormatError`` naming the file and the JSON
path.

This module knows nothing of ``Tokenizer``: it turns files into ``TokenizerParts`` (the
stages and settings a tokenizer is built from) and parts into files;
``Tokenizer.from_parts`` and ``Tokenizer.to_parts`` do the rest.

Not handled here: the stages' JSON blocks (``stage_json``, which also refuses the HF
components this package does not implement, by name); telling a tokenizer from a
bundle (``load``); bundles (``bundle``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from typing import Any

from ..encoding.padding import PaddingParams, TruncationParams
from ..errors import MAX_PADDED_LENGTH, FormatError
from ..flavors.rules import FLAVORS
from ..pipeline import models, normalizers, pre_tokenizers
from ..pipeline.added_tokens import AddedToken
from ..pipeline.decoders import Decoder
from ..pipeline.processors import PostProcessor
from ..vocab import vocab_txt_text
from .atomic import FileSet, atomic_write_text, read_file_set
from .stage_json import (
    decoder_from,
    model_config,
    model_from,
    normalizer_from,
    pre_tokenizer_from,
    processor_from,
    processor_id_nodes,
    token_id,
)
from .strict_json import Node, describe, parse_json, read_bytes
from .transformers_config import (
    SPECIAL_TOKENS_MAP_JSON,
    TOKENIZER_CONFIG_JSON,
    TransformersConfig,
    config_from_json,
    config_json,
    parts_config_files,
)

FORMAT = "wordpieces/1"
TOKENIZER_JSON = "tokenizer.json"
WORDPIECES_JSON = "wordpieces.json"
VOCAB_TXT = "vocab.txt"


@dataclasses.dataclass(frozen=True)
class TokenizerParts:
    """The stages and settings a ``Tokenizer`` is built from: what its files hold.

    ``added_tokens`` carry their ids; ``reserved_tokens`` None means "the special
    tokens"; ``vocab_path`` is where the vocabulary file is, if there is one;
    ``transformers`` what ``transformers`` reads from ``tokenizer_config.json``;
    ``training`` the options ``train()`` learned with (``learn.options``' names).
    ``user_added``: contents of added tokens that are also in the vocabulary and that
    the user added (``add_tokens``/``add_special_tokens``), which the ``bert`` and
    ``tensorflow`` flavors match whole in text as HF does (their own reserved tokens
    they split); the others are matched whole anyway (``Tokenizer._matches``).
    """

    model: models.Model
    normalizer: normalizers.Normalizer | None = None
    pre_tokenizer: pre_tokenizers.PreTokenizer | None = None
    post_processor: PostProcessor | None = None
    decoder: Decoder | None = None
    added_tokens: tuple[AddedToken, ...] = ()
    reserved_tokens: tuple[str, ...] | None = None
    flavor: str = "huggingface"
    truncation: TruncationParams | None = None
    padding: PaddingParams | None = None
    vocab_path: str | None = None
    transformers: TransformersConfig = TransformersConfig()
    user_added: tuple[str, ...] = ()
    training: dict | None = None


# ---------------------------------------------------------------- writing


def parts_to_dict(parts: TokenizerParts, *, with_vocab: bool = True) -> dict:
    """The HF ``tokenizer.json`` content, in HF's key order."""
    def config(stage):
        return None if stage is None else stage.to_config()

    return {
        "version": "1.0",
        "truncation": None if parts.truncation is None else parts.truncation.to_json(),
        "padding": None if parts.padding is None else parts.padding.to_json(),
        "added_tokens": [_added_token_json(t) for t in parts.added_tokens],
        "normalizer": config(parts.normalizer),
        "pre_tokenizer": config(parts.pre_tokenizer),
        "post_processor": config(parts.post_processor),
        "decoder": config(parts.decoder),
        "model": model_config(parts.model, with_vocab=with_vocab),
    }


def _added_token_json(token: AddedToken) -> dict:
    if token.id is None:  # a Tokenizer gives every added token its id
        raise ValueError(f"cannot save added token {token.content!r}: it has no id")
    return token.to_json(token.id)


def extras_dict(parts: TokenizerParts) -> dict:
    """The ``wordpieces.json`` content."""
    reserved = None if parts.reserved_tokens is None else list(parts.reserved_tokens)
    user = {"user_added_tokens": list(parts.user_added)} if parts.user_added else {}
    return {"format": FORMAT, "flavor": parts.flavor, "reserved_tokens": reserved,
            **user,  # absent when empty, as older versions wrote it
            "max_input_bytes_per_word": getattr(parts.model, "max_input_bytes_per_word",
                                                None),
            "transformers": config_json(parts.transformers),
            **({} if parts.training is None else {"training": dict(parts.training)})}


def parts_to_str(parts: TokenizerParts, *, pretty: bool = False) -> str:
    """The HF ``tokenizer.json`` text (indented when ``pretty``)."""
    return dumps(parts_to_dict(parts), pretty)


def dumps(data, pretty: bool) -> str:
    """JSON text as this package writes it: UTF-8 kept, indented when ``pretty``."""
    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def tokenizer_files(parts: TokenizerParts) -> dict[str, str]:
    """File name -> text of a saved tokenizer.

    tokenizer.json, vocab.txt, wordpieces.json, and what ``transformers`` reads beside
    them: tokenizer_config.json and special_tokens_map.json.
    """
    return {TOKENIZER_JSON: parts_to_str(parts, pretty=True),
            VOCAB_TXT: vocab_txt_text(parts.model.vocab.tokens),  # refuses unwritable tokens
            WORDPIECES_JSON: dumps(extras_dict(parts), True),
            **parts_config_files(parts)}


def save_parts(parts: TokenizerParts, path: str | os.PathLike) -> None:
    """Write the files of ``tokenizer_files`` into directory ``path``, as one unit.

    A ``path`` ending in ``.json`` writes only that HF file, with a warning:
    ``AutoTokenizer.from_pretrained`` reads folders (given a file path it looks for the
    name on the hub), ``PreTrainedTokenizerFast(tokenizer_file=path)`` reads the file. A
    directory is written
    through ``formats.atomic.FileSet``: a reader sees the previous save or this one
    (checked against ``wordpieces-manifest.json``), never a mix, and files other tools
    put in the folder (model weights) are left alone.
    """
    path = os.fspath(path)
    if path.endswith(".json"):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        atomic_write_text(path, parts_to_str(parts, pretty=True))
        warnings.warn(f"{path}: saved as one tokenizer.json file: transformers reads it with "
                      f"PreTrainedTokenizerFast(tokenizer_file={path!r}), not "
                      f"AutoTokenizer.from_pretrained (which needs a folder: save to a path "
                      f"without .json)", UserWarning, stacklevel=3)
        return
    files = tokenizer_files(parts)  # before touching the folder: it may refuse a token
    with FileSet(path, kind="tokenizer") as saved:
        for name, text in files.items():
            saved.write(name, text)


def parts_state(parts: TokenizerParts) -> dict:
    """What a pickle holds: the configuration and the vocabulary list, no caches."""
    return {"format": FORMAT, "tokenizer": parts_to_dict(parts, with_vocab=False),
            "vocab": list(parts.model.vocab.tokens), "wordpieces": extras_dict(parts),
            "vocab_path": parts.vocab_path}


def parts_from_state(state: dict) -> TokenizerParts:
    """The parts a ``parts_state`` dict was made from (unpickling)."""
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise FormatError("cannot unpickle this tokenizer: unknown state format")
    parts = parts_from_dict(Node(state["tokenizer"], "<pickle>"),
                            extras=Node(state["wordpieces"], "<pickle>"),
                            vocab_tokens=state["vocab"])
    return dataclasses.replace(parts, vocab_path=state.get("vocab_path"))


# ---------------------------------------------------------------- reading


def read_extras(node: Node) -> dict[str, Any]:
    """Check a ``wordpieces.json`` and return its settings."""
    fmt = node.get("format", "a string")
    if fmt != FORMAT:
        node.fail(f"unsupported format {fmt!r} (this version reads {FORMAT!r})", "format")
    flavor = node.choice("flavor", {f: f for f in FLAVORS})
    listed = node.child("reserved_tokens", default=None)
    reserved = (None if listed.value is None
                else [e.expect("a string") for e in listed.elements()])
    limit = node.get("max_input_bytes_per_word", "a non-negative integer", default=None)
    block = node.child("transformers", default=None)  # absent from older files
    config = TransformersConfig() if block.value is None else config_from_json(block)
    return {"flavor": flavor, "reserved_tokens": reserved, "max_input_bytes_per_word": limit,
            "transformers": config, "user_added": node.child("user_added_tokens", default=[]),
            "training": training_from(node.child("training", default=None))}


def training_from(node: Node) -> dict[str, Any] | None:
    """Read ``wordpieces.json``'s ``training``: option name -> a JSON scalar or string list."""
    if node.value is None:
        return None
    out: dict[str, Any] = {}
    for name, child in node.members():
        value = child.value
        if isinstance(value, list):
            value = [element.expect("a string") for element in child.elements()]
        elif value is not None and not isinstance(value, (bool, int, float, str)):
            child.fail(f"expected a number, string, boolean, null or list of strings, got "
                       f"{describe(value)}")
        out[name] = value
    return out


def parts_from_dict(root: Node, *, extras: Node | None = None,
                    vocab_tokens: list[str] | None = None) -> TokenizerParts:
    """The parts of a parsed ``tokenizer.json`` (and ``wordpieces.json``)."""
    root.expect("an object")
    settings: dict[str, Any] = (read_extras(extras) if extras is not None
                                else {"flavor": "huggingface", "reserved_tokens": None,
                                      "max_input_bytes_per_word": None,
                                      "transformers": TransformersConfig(), "user_added": None,
                                      "training": None})
    flavor = settings["flavor"]
    model = model_from(root.child("model"), settings, vocab_tokens)
    added = added_tokens_from(root.child("added_tokens", default=[]), model.vocab_size)
    reserved = settings["reserved_tokens"]
    processor_node = root.child("post_processor", default=None)
    processor = processor_from(processor_node)
    check_processor_ids(processor_node, model.vocab_size, added)
    return TokenizerParts(
        model,
        normalizer=normalizer_from(root.child("normalizer", default=None), flavor),
        pre_tokenizer=pre_tokenizer_from(root.child("pre_tokenizer", default=None), flavor),
        post_processor=processor,
        decoder=decoder_from(root.child("decoder", default=None)),
        added_tokens=tuple(added),
        reserved_tokens=None if reserved is None else tuple(reserved), flavor=flavor,
        truncation=truncation_from(root.child("truncation", default=None)),
        padding=padding_from(root.child("padding", default=None)),
        transformers=settings["transformers"],
        user_added=user_added_from(settings["user_added"], added),
        training=settings["training"])


def parts_from_str(text: str | bytes, source: str = TOKENIZER_JSON,
                   extras: Node | None = None) -> TokenizerParts:
    """The parts of ``tokenizer.json`` text; errors name ``source``."""
    return parts_from_dict(Node(parse_json(text, source), source), extras=extras)


def parts_from_file(path: str | os.PathLike) -> TokenizerParts:
    """Read ``tokenizer.json``; a ``wordpieces.json`` in the same directory sets the flavor.

    ``path`` may be the directory holding it. When the directory has a
    ``wordpieces-manifest.json`` listing the file, every file of that save is first
    checked against it, so a folder mixing two saves is an error, never a silent mix.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, TOKENIZER_JSON)
    directory = os.path.dirname(path)
    name = os.path.basename(path)
    saved = read_file_set(directory or os.curdir, keep=[name, WORDPIECES_JSON],
                          reads=[VOCAB_TXT, TOKENIZER_CONFIG_JSON, SPECIAL_TOKENS_MAP_JSON])
    if saved is None or name not in saved:
        saved = {}

    def data(file_path: str) -> bytes:
        checked = saved.get(os.path.basename(file_path))
        return read_bytes(file_path) if checked is None else checked

    extras_path = os.path.join(directory, WORDPIECES_JSON)
    extras = None
    if WORDPIECES_JSON in saved or os.path.isfile(extras_path):
        extras = Node(parse_json(data(extras_path), extras_path), extras_path)
    parts = parts_from_str(data(path), path, extras)
    vocab_txt = os.path.join(directory, VOCAB_TXT)
    return dataclasses.replace(parts,
                               vocab_path=vocab_txt if os.path.isfile(vocab_txt) else None)


# ---------------------------------------------------------------- components


def check_processor_ids(node: Node, vocab_size: int, added: list[AddedToken]) -> None:
    """Refuse a post-processor special-token id that is no token of this tokenizer.

    Such an id would be added to every encoding and fail only later, far from the file
    (no token to show for it, no room in an int32 array).
    """
    if node.value is None:
        return
    added_ids = {token.id for token in added}
    for id_node in processor_id_nodes(node):  # every processor kind: stage_json knows them
        if not (id_node.value < vocab_size or id_node.value in added_ids):
            id_node.fail(f"special-token id {id_node.value} is not a token of this tokenizer "
                         f"(the vocabulary has ids 0..{vocab_size - 1}, and there are "
                         f"{len(added_ids)} added tokens)")


def user_added_from(node: Node | None, added: list[AddedToken]) -> tuple[str, ...]:
    """Read ``wordpieces.json``'s ``user_added_tokens``: each one of the added tokens."""
    if node is None:
        return ()
    contents = {token.content for token in added}
    node.expect("an array")
    out = []
    for element in node.elements():
        content = element.expect("a string")
        if content not in contents:
            element.fail(f"{content!r} is not one of the added tokens of tokenizer.json")
        out.append(content)
    return tuple(out)


def added_tokens_from(node: Node, vocab_size: int) -> list[AddedToken]:
    """Read the ``added_tokens`` array (ids must stay near the vocabulary: no huge gaps)."""
    out = []
    limit = vocab_size + len(node.expect("an array"))
    for element in node.elements():
        element.expect("an object")
        flags = {k: element.get(k, "a boolean", default=d)
                 for k, d in (("single_word", False), ("lstrip", False), ("rstrip", False),
                              ("normalized", True), ("special", False))}
        id_ = element.get("id", "a non-negative integer")
        if id_ >= limit:
            element.fail(f"id {id_} is out of range: the vocabulary has {vocab_size} tokens "
                         f"and there are {limit - vocab_size} added tokens", element.path + ".id")
        out.append(AddedToken(element.get("content", "a string"), **flags, id=id_))
    return out


_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first",
               "OnlySecond": "only_second"}
_DIRECTIONS = {"Right": "right", "Left": "left"}


def truncation_from(node: Node) -> TruncationParams | None:
    if node.value is None:
        return None
    try:  # sizes are capped where they enter (errors.check_size): name the file
        return TruncationParams(node.get("max_length", "a non-negative integer"),
                                node.get("stride", "a non-negative integer", default=0),
                                node.choice("strategy", _STRATEGIES, default="longest_first"),
                                node.choice("direction", _DIRECTIONS, default="right"))
    except ValueError as e:
        node.fail(str(e))


MAX_PAD_LENGTH = MAX_PADDED_LENGTH  # far above any model's context; stops absurd allocations


def padding_from(node: Node) -> PaddingParams | None:
    if node.value is None:
        return None
    strategy = node.child("strategy", default="BatchLongest")
    length = None
    if strategy.value != "BatchLongest":
        if not isinstance(strategy.value, dict) or list(strategy.value) != ["Fixed"]:
            strategy.fail('expected "BatchLongest" or {"Fixed": length}')
        length = strategy.get("Fixed", "a non-negative integer")
        if length > MAX_PAD_LENGTH:
            strategy.fail(f"padding length {length} is larger than {MAX_PAD_LENGTH}",
                          strategy.path + ".Fixed")
    multiple = node.get("pad_to_multiple_of", "a non-negative integer", default=None,
                        nullable=True)
    if multiple is not None and multiple > MAX_PAD_LENGTH:
        node.fail(f"pad_to_multiple_of {multiple} is larger than {MAX_PAD_LENGTH}",
                  node.path + ".pad_to_multiple_of")
    return PaddingParams(direction=node.choice("direction", _DIRECTIONS, default="right"),
                         pad_id=token_id(node, "pad_id", default=0),
                         pad_type_id=token_id(node, "pad_type_id", default=0),
                         pad_token=node.get("pad_token", "a string", default="[PAD]"),
                         length=length, pad_to_multiple_of=multiple)
