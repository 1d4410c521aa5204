"""The reference libraries as ``encode.py`` runs them, one engine per process.

HF ``tokenizers`` (plain, with the call's padding and truncation, truncated at 128),
transformers' ``BertTokenizerFast``, TensorFlow Text, flash-tokenizer and blingfire.
Each ``engine_*`` function builds its library's tokenizer for a dataset and returns the
timed function: items in, number of tokens out. The constructors of the libraries
(``hf_tokenizer``, ``flash_tokenizer``, ``blingfire_encoder``) are shared with
``encode_forms.py``. A missing library raises ``ImportError`` (the table says "not
installed"); a dataset the library cannot take (pairs) raises ``NotImplementedError``.

flash-tokenizer 1.2 (``BertTokenizerFlash(vocab).tokenizer``): ``batch_encode(texts,
"longest", 128, False)``, the last argument ``parallel=False`` (one thread; the
``do_multiprocess`` of its ``__call__``), ids with ``[CLS]``/``[SEP]``, cut at 128, no
padding ("longest" pads nothing in a list); ``encode(text, "longest", 128)`` for one text.
blingfire 0.1.8 has no special tokens, no batch call and no vocabulary file: its
``text_to_ids(model, text, max_len, unk_id, no_padding=True)`` runs per text with the
model compiled for that vocabulary (``bert_base_tok.bin`` …); ``max_len`` 126 leaves
room for the two special tokens a 128 cut keeps.

Not handled here: wordpieces' own engines (``encode.py``), timing, tables.
"""

from __future__ import annotations

import os
from pathlib import Path

from encode_data import DATASETS, PAIRS, columns, lowercase, vocab_path

# The transformers-style call every "call" engine makes (the options users feed a model)
CALL = {"padding": True, "truncation": True, "max_length": 128, "return_tensors": "np"}
MAX_LENGTH = 128
# blingfire's compiled models, by the vocabulary they were built from
BLINGFIRE_MODELS = {"bert-base-uncased": "bert_base_tok.bin",
                    "bert-base-cased": "bert_base_cased_tok.bin",
                    "bert-base-multilingual-cased": "bert_multi_cased.bin",
                    "bert-base-chinese": "bert_chinese.bin"}


def one_thread_env() -> None:
    """Ask HF's Rust thread pool for one thread (before ``tokenizers`` is imported)."""
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def hf_tokenizer(vocab: str, lower: bool, *, specials: bool = False,
                 truncate: int | None = None, pad: bool = False):
    """An HF ``tokenizers`` BERT tokenizer: specials, truncation and padding as asked."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    from tokenizers.processors import BertProcessing

    tok = Tokenizer(models.WordPiece.from_file(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lower)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    ids = tok.get_vocab()
    if specials:
        tok.post_processor = BertProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"]))
    if truncate:
        tok.enable_truncation(max_length=truncate)
    if pad:
        tok.enable_padding(pad_id=ids["[PAD]"], pad_token="[PAD]")
    return tok


def transformers_tokenizer(vocab: str, lower: bool):
    """transformers' ``BertTokenizerFast`` holding the vocabulary of ``vocab``.

    transformers 5 takes the vocabulary as ``vocab=`` (a path or a dict); its old
    ``vocab_file=`` is swallowed by ``**kwargs`` and leaves a five-token vocabulary that
    encodes every word as ``[UNK]``, so the size is checked.
    """
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]  # lazy module

    tok = BertTokenizerFast(vocab=vocab, do_lower_case=lower)
    size = len(Path(vocab).read_text(encoding="utf-8").rstrip("\n").split("\n"))
    if len(tok) != size:
        raise RuntimeError(f"BertTokenizerFast holds {len(tok)} tokens, {vocab} has {size}")
    return tok


def flash_tokenizer(vocab: str, lower: bool):
    """flash-tokenizer's C++ ``FlashBertTokenizer`` (``BertTokenizerFlash(...).tokenizer``)."""
    from flash_tokenizer import BertTokenizerFlash

    return BertTokenizerFlash(vocab, do_lower_case=lower).tokenizer


def blingfire_encoder(vocab_name: str, vocab: str, max_len: int = MAX_LENGTH - 2):
    """blingfire's per-text ``text_to_ids`` for a vocabulary it ships a model of, as lists."""
    import blingfire

    if vocab_name not in BLINGFIRE_MODELS:
        raise NotImplementedError(f"blingfire ships no model for {vocab_name}")
    model = blingfire.load_model(str(Path(blingfire.__file__).parent /
                                     BLINGFIRE_MODELS[vocab_name]))
    unk = vocab_index(vocab, "[UNK]")
    to_ids = blingfire.text_to_ids

    def encode(text: str) -> list[int]:
        return to_ids(model, text, max_len, unk, True).tolist()

    return encode


def vocab_index(vocab: str, token: str) -> int:
    """The id (line number) of ``token`` in a ``vocab.txt``."""
    lines = Path(vocab).read_text(encoding="utf-8").rstrip("\n").split("\n")
    try:
        return lines.index(token)
    except ValueError:
        raise ValueError(f"{token!r} is not in {vocab}") from None


def read_all(encodings) -> int:
    """Read what a training loop reads of every Encoding; return the number of tokens."""
    tokens = 0
    for e in encodings:
        ids, _, _ = e.ids, e.offsets, e.attention_mask
        tokens += len(ids)
    return tokens


def engine_trf(engine: str, dataset: str):
    """transformers' ``BertTokenizerFast`` called with ``CALL`` (its Rust core on 1 thread)."""
    one_thread_env()
    tok = transformers_tokenizer(vocab_path(dataset), lowercase(dataset))

    def run(items):
        texts, pairs = columns(items)
        return int(tok(texts, pairs, **CALL)["attention_mask"].sum())

    return run


def engine_hf(engine: str, dataset: str):
    """HF ``tokenizers``: ``encode_batch`` as each ``hf*`` engine of ``encode.ENGINES`` says."""
    if engine != "hf":
        one_thread_env()
    vocab, lower = vocab_path(dataset), lowercase(dataset)
    if engine == "hf-call-1":
        return hf_call(hf_tokenizer(vocab, lower, specials=True, truncate=MAX_LENGTH, pad=True))
    if engine == "hf-trunc-1":
        tok = hf_tokenizer(vocab, lower, specials=True, truncate=MAX_LENGTH)
        return lambda items: sum(len(e.ids) for e in tok.encode_batch(items))
    tok = hf_tokenizer(vocab, lower)
    if engine == "hf-fast-1":
        return lambda lines: sum(len(e.ids) for e in
                                 tok.encode_batch_fast(lines, add_special_tokens=False))
    count = read_all if engine.endswith("-read") else lambda encs: sum(map(len, encs))
    return lambda lines: count(tok.encode_batch(lines, add_special_tokens=False))


def hf_call(tok):
    """HF ``tokenizers`` with the call's padding and truncation, columns made numpy arrays."""
    import numpy as np

    def run(items):
        encodings = tok.encode_batch(items)
        arrays = {name: np.array([getattr(e, name) for e in encodings], dtype=np.int64)
                  for name in ("ids", "type_ids", "attention_mask")}
        return int(arrays["attention_mask"].sum())

    return run


def engine_flash(engine: str, dataset: str):
    """flash-tokenizer ``batch_encode(texts, "longest", 128, False)``: lists, one thread."""
    if dataset in PAIRS:
        raise NotImplementedError("flash-tokenizer takes no pairs")
    tok = flash_tokenizer(vocab_path(dataset), lowercase(dataset))
    return lambda lines: sum(map(len, tok.batch_encode(lines, "longest", MAX_LENGTH, False)))


def engine_blingfire(engine: str, dataset: str):
    """blingfire ``text_to_ids`` per text, 126 ids at most, no special tokens, lists."""
    if dataset in PAIRS:
        raise NotImplementedError("blingfire takes no pairs")
    encode = blingfire_encoder(DATASETS[dataset][1], vocab_path(dataset))
    return lambda lines: sum(len(encode(line)) for line in lines)


def engine_tf(engine: str, dataset: str):
    """TensorFlow Text's ``BertTokenizer`` or ``FastBertTokenizer``, one thread."""
    if dataset in PAIRS:
        raise NotImplementedError("TF Text's tokenizers take no pairs")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    import tensorflow_text as text

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    lower = lowercase(dataset)
    if engine == "tf-bert":
        tok = text.BertTokenizer(vocab_path(dataset), lower_case=lower, token_out_type=tf.int64)
        tokenize = tok.tokenize
    else:
        # split on "\n" only: some vocabularies hold U+0085 or U+2028 inside tokens
        vocab = Path(vocab_path(dataset)).read_text(encoding="utf-8").rstrip("\n").split("\n")
        tok = text.FastBertTokenizer(vocab=vocab, lower_case_nfd_strip_accents=lower,
                                     token_out_type=tf.int64)
        tokenize = tok.tokenize_with_offsets if engine == "tf-fast-offsets" else tok.tokenize

    def run(lines):
        n = 0
        for i in range(0, len(lines), 1024):
            out = tokenize(tf.constant(lines[i:i + 1024]))
            n += int((out[0] if isinstance(out, tuple) else out).flat_values.shape[0])
        return n

    return run
