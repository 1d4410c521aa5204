"""Read and write tokenizer files: HF ``tokenizer.json`` and ``wordpieces.json``.

A saved tokenizer is a directory holding ``tokenizer.json`` (Hugging Face's format, so
``tokenizers.Tokenizer.from_file`` loads it and gives the same ids), ``vocab.txt``, and
``wordpieces.json``: what HF's format cannot hold (the flavor, reserved tokens, a byte
limit per word, the format version). Reading is strict: files are untrusted input,
parsed (never executed or unpickled) and checked field by field, and a problem is a
``FormatError`` naming the file and the JSON path.

This module knows nothing of ``Tokenizer``: it turns files into ``TokenizerParts`` (the
stages and settings a tokenizer is built from) and parts into files;
``Tokenizer.from_parts`` and ``Tokenizer.to_parts`` do the rest.

Not handled here: HF components other than those listed in ``NORMALIZERS``,
``PRE_TOKENIZERS``, ``PROCESSORS``, ``DECODERS`` and ``MODELS`` (they are reported
by name); telling a tokenizer from a bundle (``load``); bundles (``bundle``).
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from ..encoding.padding import PaddingParams, TruncationParams
from ..errors import FormatError, VocabError
from ..flavors.rules import FLAVORS
from ..pipeline import models, normalizers, pre_tokenizers
from ..pipeline.added_tokens import AddedToken
from ..pipeline.decoders import Decoder, WordPieceDecoder
from ..pipeline.processors import (
    BertProcessing,
    Piece,
    PostProcessor,
    SpecialTokenSpec,
    TemplateProcessing,
)
from ..vocab import Vocab
from .atomic import atomic_write_text
from .strict_json import Node, parse_json
from .transformers_config import (
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
    ``transformers`` what ``transformers`` reads from ``tokenizer_config.json``.
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


# ---------------------------------------------------------------- writing


def model_config(model, *, with_vocab: bool = True) -> dict:
    """HF's ``model`` block for a WordPiece or WordLevel model."""
    vocab = {"vocab": model.get_vocab()} if with_vocab else {}
    if isinstance(model, models.WordPiece):
        return {"type": "WordPiece", "unk_token": model.unk_token,
                "continuing_subword_prefix": model.continuing_subword_prefix,
                "max_input_chars_per_word": model.max_input_chars_per_word, **vocab}
    if isinstance(model, models.WordLevel):
        return {"type": "WordLevel", **vocab, "unk_token": model.unk_token}
    raise TypeError(f"cannot save a model of type {type(model).__name__}")


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
    return {"format": FORMAT, "flavor": parts.flavor, "reserved_tokens": reserved,
            "max_input_bytes_per_word": getattr(parts.model, "max_input_bytes_per_word",
                                                None),
            "transformers": config_json(parts.transformers)}


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
            VOCAB_TXT: "".join(t + "\n" for t in parts.model.vocab.tokens),
            WORDPIECES_JSON: dumps(extras_dict(parts), True),
            **parts_config_files(parts)}


def save_parts(parts: TokenizerParts, path: str | os.PathLike) -> None:
    """Write ``tokenizer.json``, ``vocab.txt`` and ``wordpieces.json`` into directory ``path``.

    A ``path`` ending in ``.json`` writes only that HF file. Each file is written
    atomically.
    """
    path = os.fspath(path)
    if path.endswith(".json"):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        atomic_write_text(path, parts_to_str(parts, pretty=True))
        return
    os.makedirs(path, exist_ok=True)
    for name, text in tokenizer_files(parts).items():
        atomic_write_text(os.path.join(path, name), text)


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
            "transformers": config}


def parts_from_dict(root: Node, *, extras: Node | None = None,
                    vocab_tokens: list[str] | None = None) -> TokenizerParts:
    """The parts of a parsed ``tokenizer.json`` (and ``wordpieces.json``)."""
    root.expect("an object")
    settings: dict[str, Any] = (read_extras(extras) if extras is not None
                                else {"flavor": "huggingface", "reserved_tokens": None,
                                      "max_input_bytes_per_word": None,
                                      "transformers": TransformersConfig()})
    flavor = settings["flavor"]
    model = model_from(root.child("model"), settings, vocab_tokens)
    added = added_tokens_from(root.child("added_tokens", default=[]), model.vocab_size)
    reserved = settings["reserved_tokens"]
    return TokenizerParts(
        model,
        normalizer=normalizer_from(root.child("normalizer", default=None), flavor),
        pre_tokenizer=pre_tokenizer_from(root.child("pre_tokenizer", default=None), flavor),
        post_processor=processor_from(root.child("post_processor", default=None)),
        decoder=decoder_from(root.child("decoder", default=None)),
        added_tokens=tuple(added),
        reserved_tokens=None if reserved is None else tuple(reserved), flavor=flavor,
        truncation=truncation_from(root.child("truncation", default=None)),
        padding=padding_from(root.child("padding", default=None)),
        transformers=settings["transformers"])


def parts_from_str(text: str | bytes, source: str = TOKENIZER_JSON,
                   extras: Node | None = None) -> TokenizerParts:
    """The parts of ``tokenizer.json`` text; errors name ``source``."""
    return parts_from_dict(Node(parse_json(text, source), source), extras=extras)


def read_bytes(path: str) -> bytes:
    """The bytes of file ``path``; an unreadable file is a ``FormatError`` naming it."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FormatError(f"{path}: cannot read: {e.strerror}") from None


def parts_from_file(path: str | os.PathLike) -> TokenizerParts:
    """Read ``tokenizer.json``; a ``wordpieces.json`` in the same directory sets the flavor.

    ``path`` may be the directory holding it.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, TOKENIZER_JSON)
    directory = os.path.dirname(path)
    extras_path = os.path.join(directory, WORDPIECES_JSON)
    extras = None
    if os.path.isfile(extras_path):
        extras = Node(parse_json(read_bytes(extras_path), extras_path), extras_path)
    parts = parts_from_str(read_bytes(path), path, extras)
    vocab_txt = os.path.join(directory, VOCAB_TXT)
    return dataclasses.replace(parts,
                               vocab_path=vocab_txt if os.path.isfile(vocab_txt) else None)


# ---------------------------------------------------------------- components


def model_from(node: Node, settings: dict, vocab_tokens: list[str] | None = None):
    """Build the WordPiece or WordLevel model of a ``model`` block."""
    node.expect("an object")
    kind = node.get("type", "a string", default=None)
    if kind is None:  # older files: untagged; WordPiece is the one with a prefix
        kind = "WordPiece" if "continuing_subword_prefix" in node.value else "WordLevel"
    vocab = _vocab_from(node, vocab_tokens)
    unk = node.get("unk_token", "a string", default="[UNK]" if kind == "WordPiece" else "<unk>")
    try:
        if kind == "WordPiece":
            return models.WordPiece(
                vocab, unk_token=unk,
                continuing_subword_prefix=node.get("continuing_subword_prefix", "a string",
                                                   default="##"),
                max_input_chars_per_word=node.get("max_input_chars_per_word",
                                                  "a non-negative integer", default=100),
                max_input_bytes_per_word=settings["max_input_bytes_per_word"])
        if kind == "WordLevel":
            return models.WordLevel(vocab, unk_token=unk)
    except VocabError as e:
        node.fail(str(e))
    node.fail(f"unsupported model type {kind!r} (supported: WordPiece, WordLevel)",
              node.path + ".type")


def _vocab_from(node: Node, vocab_tokens: list[str] | None) -> Vocab:
    if vocab_tokens is not None:
        return Vocab(vocab_tokens)
    vocab = node.child("vocab")
    mapping = vocab.expect("an object")
    for token, id_ in mapping.items():
        if isinstance(id_, bool) or not isinstance(id_, int):
            vocab.child(token).expect("a non-negative integer")
    try:
        return Vocab.from_mapping(mapping)
    except VocabError as e:
        vocab.fail(str(e))


NORMALIZERS = ("BertNormalizer", "Lowercase", "StripAccents", "NFC", "NFD", "NFKC", "NFKD",
               "Sequence")


def normalizer_from(node: Node, flavor: str):
    """Build a normalizer from its JSON block (None for null)."""
    if node.value is None:
        return None
    kind = node.choice("type", {k: k for k in NORMALIZERS})
    if kind == "BertNormalizer":
        return normalizers.BertNormalizer(
            clean_text=node.get("clean_text", "a boolean", default=True),
            handle_chinese_chars=node.get("handle_chinese_chars", "a boolean", default=True),
            strip_accents=node.get("strip_accents", "a boolean", default=None, nullable=True),
            lowercase=node.get("lowercase", "a boolean", default=True), flavor=flavor)
    if kind == "Sequence":
        return normalizers.Sequence([normalizer_from(n, flavor)
                                     for n in node.child("normalizers").elements()])
    return getattr(normalizers, kind)()


PRE_TOKENIZERS = ("BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Split", "Sequence")
_BEHAVIORS = {"".join(p.title() for p in b.split("_")): b for b in pre_tokenizers.BEHAVIORS}


def pre_tokenizer_from(node: Node, flavor: str):
    """Build a pre-tokenizer from its JSON block (None for null)."""
    if node.value is None:
        return None
    kind = node.choice("type", {k: k for k in PRE_TOKENIZERS})
    if kind == "BertPreTokenizer":
        return pre_tokenizers.BertPreTokenizer(flavor=flavor)
    if kind == "Sequence":
        return pre_tokenizers.Sequence([pre_tokenizer_from(n, flavor)
                                     for n in node.child("pretokenizers").elements()])
    if kind == "Split":
        pattern = node.child("pattern")
        pattern.expect("an object")
        if len(pattern.value) != 1 or next(iter(pattern.value)) not in ("Regex", "String"):
            pattern.fail("expected {\"Regex\": ...} or {\"String\": ...}")
        key = next(iter(pattern.value))
        try:
            return pre_tokenizers.Split(pattern.get(key, "a string"),
                                        node.choice("behavior", _BEHAVIORS),
                                        invert=node.get("invert", "a boolean", default=False),
                                        regex=key == "Regex")
        except ValueError as e:
            pattern.fail(str(e))
    return getattr(pre_tokenizers, kind)()


def processor_from(node: Node):
    """Build a TemplateProcessing or BertProcessing from its JSON block (None for null)."""
    if node.value is None:
        return None
    kind = node.choice("type", {"TemplateProcessing": 0, "BertProcessing": 1})
    if kind == 1:
        return BertProcessing(_token_pair(node.child("sep")), _token_pair(node.child("cls")))
    specs = [_special_spec(name, spec) for name, spec in node.child("special_tokens").members()]
    try:
        return TemplateProcessing(_pieces(node.child("single")), _pieces(node.child("pair")),
                                  special_tokens=specs)
    except ValueError as e:
        node.fail(str(e))


def _token_pair(node: Node) -> tuple[str, int]:
    if len(node.expect("an array")) != 2:
        node.fail("expected [token, id]")
    return node.child(0).expect("a string"), node.child(1).expect("a non-negative integer")


def _special_spec(name: str, node: Node) -> SpecialTokenSpec:
    ids = tuple(e.expect("a non-negative integer") for e in node.child("ids").elements())
    tokens = tuple(e.expect("a string") for e in node.child("tokens").elements())
    if len(ids) != len(tokens):
        node.fail(f"'ids' has {len(ids)} entries but 'tokens' has {len(tokens)}")
    return SpecialTokenSpec(node.get("id", "a string", default=name), ids, tokens)


def _pieces(node: Node) -> list[Piece]:
    pieces = []
    for element in node.elements():
        element.expect("an object")
        if len(element.value) != 1 or next(iter(element.value)) not in ("Sequence",
                                                                          "SpecialToken"):
            element.fail('expected {"Sequence": ...} or {"SpecialToken": ...}')
        key = next(iter(element.value))
        body = element.child(key)
        name = body.get("id", "a string")
        if key == "Sequence" and name not in ("A", "B"):
            body.fail(f"a sequence id is 'A' or 'B', got {name!r}", body.path + ".id")
        pieces.append(Piece(name, body.get("type_id", "a non-negative integer", default=0),
                            key == "Sequence"))
    return pieces


def decoder_from(node: Node):
    """Build the WordPiece decoder from its JSON block (None for null)."""
    if node.value is None:
        return None
    node.choice("type", {"WordPiece": 0})
    return WordPieceDecoder(node.get("prefix", "a string", default="##"),
                            node.get("cleanup", "a boolean", default=True))


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
    return TruncationParams(node.get("max_length", "a non-negative integer"),
                            node.get("stride", "a non-negative integer", default=0),
                            node.choice("strategy", _STRATEGIES, default="longest_first"),
                            node.choice("direction", _DIRECTIONS, default="right"))


MAX_PAD_LENGTH = 1 << 24  # far above any model's context; stops absurd allocations


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
    return PaddingParams(direction=node.choice("direction", _DIRECTIONS, default="right"),
                         pad_id=node.get("pad_id", "a non-negative integer", default=0),
                         pad_type_id=node.get("pad_type_id", "a non-negative integer", default=0),
                         pad_token=node.get("pad_token", "a string", default="[PAD]"),
                         length=length,
                         pad_to_multiple_of=node.get("pad_to_multiple_of",
                                                     "a non-negative integer", default=None,
                                                     nullable=True))
