"""Read and write the stages of an HF ``tokenizer.json``: model, normalizer, pre-tokenizer,
post-processor, decoder.

Each ``*_from(node)`` builds one stage from its JSON block, checking every field (a
problem is a ``FormatError`` naming the file and the JSON path). A component HF has but
this package does not implement is refused by name at its path, with the reason
(``UNSUPPORTED``): byte-level, SentencePiece and BPE/Unigram components belong to
models other than WordPiece and WordLevel. Writing is each stage's ``to_config``, plus
``model_config`` here.

Not handled here: the file as a whole, added tokens, truncation and padding
(``tokenizer_json``); regex translation (``pipeline.patterns``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import MAX_TOKEN_ID, VocabError, check_size
from ..pipeline import decoders, edit_normalizers, extra_processors, models, normalizers
from ..pipeline import pre_tokenizers as pre
from ..pipeline.processors import BertProcessing, Piece, SpecialTokenSpec, TemplateProcessing
from ..vocab import Vocab
from .strict_json import Node

_BYTE_LEVEL = "byte-level BPE components are not implemented (wordpieces runs WordPiece " \
              "and WordLevel models)"
UNSUPPORTED = {
    "model": {"BPE": "BPE models are not implemented (only WordPiece and WordLevel)",
              "Unigram": "Unigram models are not implemented (only WordPiece and WordLevel)"},
    "normalizer": {"Precompiled": "SentencePiece's precompiled charsmap (used by Unigram "
                                  "models) is not implemented",
                   "ByteLevel": _BYTE_LEVEL, "Nmt": "the Nmt normalizer is not implemented"},
    "pre_tokenizer": {"ByteLevel": _BYTE_LEVEL,
                      "UnicodeScripts": "the UnicodeScripts pre-tokenizer is not implemented"},
    "post_processor": {"ByteLevel": _BYTE_LEVEL},
    "decoder": {"ByteLevel": _BYTE_LEVEL,
                "ByteFallback": "byte fallback (<0x..> tokens of BPE/Unigram models) is not "
                                "implemented",
                "Fuse": "the Fuse decoder is not implemented", "CTC": "CTC is not implemented",
                "BPEDecoder": "BPE models are not implemented"},
}


def _kind(node: Node, stage: str, readers: dict) -> str:
    """The ``type`` of a stage block, refused with the reason when it is not read here."""
    node.expect("an object")
    kind = node.get("type", "a string")
    if kind in readers:
        return kind
    reason = UNSUPPORTED[stage].get(kind, f"it is not an HF {stage.replace('_', '-')} this "
                                          f"package knows")
    node.fail(f"{kind} is not supported: {reason} (supported: {', '.join(readers)})")


# ---------------------------------------------------------------- models


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


def model_from(node: Node, settings: dict, vocab_tokens: list[str] | None = None):
    """Build the WordPiece or WordLevel model of a ``model`` block."""
    node.expect("an object")
    kind = node.get("type", "a string", default=None)
    if kind is None:  # older files: untagged; WordPiece is the one with a prefix
        kind = "WordPiece" if "continuing_subword_prefix" in node.value else (
            "BPE" if "merges" in node.value else "WordLevel")
    if kind not in ("WordPiece", "WordLevel"):
        reason = UNSUPPORTED["model"].get(kind, "only WordPiece and WordLevel are read")
        node.fail(f"{kind} is not supported: {reason}")
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
        return models.WordLevel(vocab, unk_token=unk)
    except ValueError as e:  # VocabError, or a size over its cap (errors.check_size)
        node.fail(str(e))


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


# ---------------------------------------------------------------- shared fields

MAX_SEQUENCE_NESTING = 16
"""A ``Sequence`` stage inside ``Sequence`` stages: at most this many levels (HF files
use one or two); deeper is refused by path before anything recursive walks it."""


def _sequence(node: Node, key: str) -> list[Node]:
    """The child blocks of a ``Sequence`` at ``node`` (key ``key``), its nesting bounded."""
    depth = node.path.count(f".{key}[") + 1  # this Sequence's level among Sequences
    if depth > MAX_SEQUENCE_NESTING:
        node.fail(f"Sequence stages nested {depth} deep (at most {MAX_SEQUENCE_NESTING})")
    return list(node.child(key).elements())


def token_id(node: Node, key: str, *, default: int) -> int:
    """An id or type id at ``key``: an integer in 0 .. ``MAX_TOKEN_ID`` (int32), else named."""
    value = node.get(key, "a non-negative integer", default=default)
    try:
        return check_size(value, field="an id or type id", cap=MAX_TOKEN_ID)
    except ValueError as e:
        node.fail(str(e), node.child_path(key))



def _pattern(node: Node) -> tuple[str, bool]:
    """An HF pattern block: ``{"String": s}`` or ``{"Regex": r}`` -> (text, is_regex)."""
    node.expect("an object")
    if len(node.value) != 1 or next(iter(node.value)) not in ("Regex", "String"):
        node.fail('expected {"Regex": ...} or {"String": ...}')
    key = next(iter(node.value))
    return node.get(key, "a string"), key == "Regex"


def _built(node: Node, build: Callable[[], object], path: str | None = None):
    """``build()``, its ValueError (a refused regex, a bad value) named at ``node``."""
    try:
        return build()
    except ValueError as e:
        node.fail(str(e), path)


def _char(node: Node, key: str, default: str) -> str:
    value = node.get(key, "a string", default=default)
    if len(value) != 1:
        node.fail(f"expected one character, got {value!r}", node.child(key).path)
    return value


_BEHAVIORS = {pre.behavior_name(b): b for b in pre.BEHAVIORS}
_SCHEMES = {s: s for s in pre.PREPEND_SCHEMES}


def _prepend_scheme(node: Node) -> str:
    if "prepend_scheme" in node.value or "add_prefix_space" not in node.value:
        return node.choice("prepend_scheme", _SCHEMES, default="always")
    # files older than prepend_scheme
    return "always" if node.get("add_prefix_space", "a boolean") else "never"


# ---------------------------------------------------------------- normalizers


def _bert_normalizer(node: Node, flavor: str):
    return normalizers.BertNormalizer(
        clean_text=node.get("clean_text", "a boolean", default=True),
        handle_chinese_chars=node.get("handle_chinese_chars", "a boolean", default=True),
        strip_accents=node.get("strip_accents", "a boolean", default=None, nullable=True),
        lowercase=node.get("lowercase", "a boolean", default=True), flavor=flavor)


def _replace_normalizer(node: Node, flavor: str):
    text, regex = _pattern(node.child("pattern"))
    content = node.get("content", "a string")
    return _built(node.child("pattern"),
                  lambda: edit_normalizers.Replace(text, content, regex=regex))


NORMALIZERS: dict[str, Callable[[Node, str], object]] = {
    "BertNormalizer": _bert_normalizer,
    "Lowercase": lambda node, flavor: normalizers.Lowercase(),
    "StripAccents": lambda node, flavor: normalizers.StripAccents(),
    "NFC": lambda node, flavor: normalizers.NFC(),
    "NFD": lambda node, flavor: normalizers.NFD(),
    "NFKC": lambda node, flavor: normalizers.NFKC(),
    "NFKD": lambda node, flavor: normalizers.NFKD(),
    "Strip": lambda node, flavor: edit_normalizers.Strip(
        node.get("strip_left", "a boolean", default=True),
        node.get("strip_right", "a boolean", default=True)),
    "Replace": _replace_normalizer,
    "Prepend": lambda node, flavor: edit_normalizers.Prepend(node.get("prepend", "a string")),
    "Sequence": lambda node, flavor: normalizers.Sequence(
        [normalizer_from(n, flavor) for n in _sequence(node, "normalizers")]),
}


def normalizer_from(node: Node, flavor: str):
    """Build a normalizer from its JSON block (None for null)."""
    if node.value is None:
        return None
    return NORMALIZERS[_kind(node, "normalizer", NORMALIZERS)](node, flavor)


# ---------------------------------------------------------------- pre-tokenizers


def _split(node: Node, flavor: str):
    text, regex = _pattern(node.child("pattern"))
    behavior = node.choice("behavior", _BEHAVIORS)
    invert = node.get("invert", "a boolean", default=False)
    return _built(node.child("pattern"),
                  lambda: pre.Split(text, behavior, invert=invert, regex=regex))


PRE_TOKENIZERS: dict[str, Callable[[Node, str], object]] = {
    "BertPreTokenizer": lambda node, flavor: pre.BertPreTokenizer(flavor=flavor),
    "Whitespace": lambda node, flavor: pre.Whitespace(),
    "WhitespaceSplit": lambda node, flavor: pre.WhitespaceSplit(),
    "Split": _split,
    "Punctuation": lambda node, flavor: pre.Punctuation(
        node.choice("behavior", _BEHAVIORS, default="isolated")),
    "Digits": lambda node, flavor: pre.Digits(
        node.get("individual_digits", "a boolean", default=False)),
    "CharDelimiterSplit": lambda node, flavor: pre.CharDelimiterSplit(
        _char(node, "delimiter", " ")),
    "Metaspace": lambda node, flavor: pre.Metaspace(
        _char(node, "replacement", "\u2581"), _prepend_scheme(node),
        node.get("split", "a boolean", default=True)),
    "Sequence": lambda node, flavor: pre.Sequence(
        [pre_tokenizer_from(n, flavor) for n in _sequence(node, "pretokenizers")]),
}


def pre_tokenizer_from(node: Node, flavor: str):
    """Build a pre-tokenizer from its JSON block (None for null)."""
    if node.value is None:
        return None
    return PRE_TOKENIZERS[_kind(node, "pre_tokenizer", PRE_TOKENIZERS)](node, flavor)


# ---------------------------------------------------------------- post-processors


def _template(node: Node):
    specs = [_special_spec(name, spec) for name, spec in node.child("special_tokens").members()]
    single, pair = _pieces(node.child("single")), _pieces(node.child("pair"))
    return _built(node, lambda: TemplateProcessing(single, pair, special_tokens=specs))


PROCESSORS: dict[str, Callable[[Node], object]] = {
    "TemplateProcessing": _template,
    "BertProcessing": lambda node: BertProcessing(_token_pair(node.child("sep")),
                                                  _token_pair(node.child("cls"))),
    "RobertaProcessing": lambda node: extra_processors.RobertaProcessing(
        _token_pair(node.child("sep")), _token_pair(node.child("cls")),
        trim_offsets=node.get("trim_offsets", "a boolean", default=True),
        add_prefix_space=node.get("add_prefix_space", "a boolean", default=True)),
    "Sequence": lambda node: extra_processors.ProcessorSequence(
        [processor_from(n) for n in _sequence(node, "processors")]),
}


def processor_from(node: Node):
    """Build a post-processor from its JSON block (None for null)."""
    if node.value is None:
        return None
    return PROCESSORS[_kind(node, "post_processor", PROCESSORS)](node)


def processor_id_nodes(node: Node) -> list[Node]:
    """The nodes of every special-token id a post-processor block names (for checks)."""
    kind = node.value.get("type")
    if kind == "Sequence":
        return [n for child in node.child("processors").elements()
                for n in processor_id_nodes(child)]
    if "special_tokens" not in node.value:  # BertProcessing/RobertaProcessing: [token, id]
        return [node.child("sep").child(1), node.child("cls").child(1)]
    return [id_node for _, spec in node.child("special_tokens").members()
            for id_node in spec.child("ids").elements()]


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
        pieces.append(Piece(name, token_id(body, "type_id", default=0), key == "Sequence"))
    return pieces


# ---------------------------------------------------------------- decoders


def _replace_decoder(node: Node):
    text, regex = _pattern(node.child("pattern"))
    content = node.get("content", "a string")
    return _built(node.child("pattern"),
                  lambda: decoders.ReplaceDecoder(text, content, regex=regex))


DECODERS: dict[str, Callable[[Node], object]] = {
    "WordPiece": lambda node: decoders.WordPieceDecoder(
        node.get("prefix", "a string", default="##"),
        node.get("cleanup", "a boolean", default=True)),
    "Metaspace": lambda node: decoders.MetaspaceDecoder(
        _char(node, "replacement", "\u2581"), _prepend_scheme(node),
        node.get("split", "a boolean", default=True)),
    "Replace": _replace_decoder,
    "Strip": lambda node: decoders.StripDecoder(
        _char(node, "content", " "), node.get("start", "a non-negative integer", default=0),
        node.get("stop", "a non-negative integer", default=0)),
    "Sequence": lambda node: decoders.DecoderSequence(
        [_chain_decoder(n) for n in _sequence(node, "decoders")]),
}


def _chain_decoder(node: Node):
    decoder = decoder_from(node)
    if decoder is None:
        node.fail("expected a decoder, got null")
    return decoder


def decoder_from(node: Node):
    """Build a decoder from its JSON block (None for null)."""
    if node.value is None:
        return None
    return DECODERS[_kind(node, "decoder", DECODERS)](node)
