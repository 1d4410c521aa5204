"""The stages' API as HF ``tokenizers`` offers it: every stage pickles, Sequences index,
models build without a vocabulary, Metaspace refuses an empty replacement; each checked
against the live HF class where it has one."""

from __future__ import annotations

import inspect
import pickle

import pytest

from wordpieces.errors import VocabError
from wordpieces.pipeline import (
    decoders,
    edit_normalizers,
    extra_processors,
    models,
    normalizers,
    pre_tokenizers,
    processors,
)
from wordpieces.tokenizer import Tokenizer

hf = pytest.importorskip("tokenizers")

VOCAB = ["[UNK]", "[CLS]", "[SEP]", "hel", "##lo", "a", "##b", "▁a"]
TEXT = "Héllo, WORLD 12 ab  \u2581a 你好"
SPECIALS = {"[CLS]": 1, "[SEP]": 2}

# One instance of every stage class of the pipeline modules, with options set.
STAGES = {
    "BertNormalizer": lambda: normalizers.BertNormalizer(lowercase=False, flavor="tensorflow"),
    "Lowercase": normalizers.Lowercase, "StripAccents": normalizers.StripAccents,
    "NFC": normalizers.NFC, "NFD": normalizers.NFD, "NFKC": normalizers.NFKC,
    "NFKD": normalizers.NFKD,
    "Sequence": lambda: normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()]),
    "Strip": lambda: edit_normalizers.Strip(left=False),
    "Replace": lambda: edit_normalizers.Replace(r"\d+", "#", regex=True),
    "Prepend": lambda: edit_normalizers.Prepend("\u2581"),
    "BertPreTokenizer": lambda: pre_tokenizers.BertPreTokenizer(flavor="huggingface"),
    "Whitespace": pre_tokenizers.Whitespace, "WhitespaceSplit": pre_tokenizers.WhitespaceSplit,
    "Split": lambda: pre_tokenizers.Split(r"\s+", "merged_with_next"),
    "Punctuation": lambda: pre_tokenizers.Punctuation("merged_with_previous"),
    "Digits": lambda: pre_tokenizers.Digits(individual_digits=True),
    "CharDelimiterSplit": lambda: pre_tokenizers.CharDelimiterSplit(" "),
    "Metaspace": lambda: pre_tokenizers.Metaspace(prepend_scheme="first"),
    "pre_tokenizers.Sequence": lambda: pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Digits()]),
    "WordPiece": lambda: models.WordPiece(VOCAB, max_input_chars_per_word=7),
    "WordLevel": lambda: models.WordLevel(VOCAB),
    "TemplateProcessing": lambda: processors.TemplateProcessing(
        "[CLS] $A [SEP]", special_tokens=SPECIALS),
    "BertProcessing": lambda: processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1)),
    "RobertaProcessing": lambda: extra_processors.RobertaProcessing(("[SEP]", 2), ("[CLS]", 1)),
    "ProcessorSequence": lambda: extra_processors.ProcessorSequence(
        [processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))]),
    "WordPieceDecoder": lambda: decoders.WordPieceDecoder(cleanup=False),
    "MetaspaceDecoder": lambda: decoders.MetaspaceDecoder(prepend_scheme="never"),
    "ReplaceDecoder": lambda: decoders.ReplaceDecoder("\u2581", " "),
    "StripDecoder": lambda: decoders.StripDecoder("\u2581", 1, 0),
    "DecoderSequence": lambda: decoders.DecoderSequence([decoders.ReplaceDecoder("#", "")]),
}


def _output(stage):
    """What the stage makes of a fixed input (its kind's main call)."""
    if hasattr(stage, "normalize_str"):
        return stage.normalize_str(TEXT)
    if hasattr(stage, "pre_tokenize_str"):
        return stage.pre_tokenize_str(TEXT)
    if hasattr(stage, "tokenize"):
        return [stage.tokenize(w) for w in ("hello", "ab", "zzz", "hellohello")]
    if hasattr(stage, "plan"):
        return stage.plan(True), stage.to_config()
    return stage.decode(["\u2581a", "##b", "#c", " d"])


def _stage_classes() -> set[str]:
    """The concrete stage classes the pipeline modules define (those with a to_config)."""
    found = set()
    for module in (normalizers, edit_normalizers, pre_tokenizers, models, processors,
                   extra_processors, decoders):
        for name, cls in vars(module).items():
            if (inspect.isclass(cls) and cls.__module__ == module.__name__
                    and "to_config" in dir(cls) and not name.endswith("Base")
                    and not getattr(cls, "_is_protocol", False)
                    and name not in ("UnicodeNormalizer", "CharMapNormalizer",
                                     "PatternPreTokenizer", "ChainDecoder", "VocabModel",
                                     "Piece", "SpecialTokenSpec")):  # parts of templates
                found.add("pre_tokenizers.Sequence" if module is pre_tokenizers
                          and name == "Sequence" else name)
    return found


def test_every_stage_class_is_listed():
    """The pickling test below covers every stage class (a new one must be added)."""
    assert _stage_classes() <= set(STAGES), _stage_classes() - set(STAGES)


@pytest.mark.parametrize("name", sorted(STAGES))
def test_every_stage_round_trips_through_pickle(name):
    """pickle.loads(pickle.dumps(stage)) gives a stage with the same output (HF's pickle)."""
    stage = STAGES[name]()
    before = _output(stage)
    copy = pickle.loads(pickle.dumps(stage))
    assert type(copy) is type(stage)
    assert _output(copy) == before
    assert _output(stage) == before  # and the original still works


def test_bert_pre_tokenizer_pickles_like_hf():
    """A BertPreTokenizer of each flavor pickles (HF's does), splitting as before."""
    text = "Hi, you!  [MASK]\u00a0x\u3000y"
    for flavor in ("bert", "huggingface", "tensorflow"):
        ours = pre_tokenizers.BertPreTokenizer(flavor=flavor)
        assert pickle.loads(pickle.dumps(ours)).pre_tokenize_str(text) == \
            ours.pre_tokenize_str(text)
    theirs = pickle.loads(pickle.dumps(hf.pre_tokenizers.BertPreTokenizer()))
    assert theirs.pre_tokenize_str(text) == pre_tokenizers.BertPreTokenizer(
        flavor="huggingface").pre_tokenize_str(text)


@pytest.mark.parametrize("kwargs", [dict(replacement=""), dict(replacement="ab"),
                                    dict(prepend_scheme="sometimes")])
def test_metaspace_refuses_what_hf_refuses(kwargs):
    """An empty (or long) replacement or an unknown scheme is a ValueError, as in HF."""
    with pytest.raises(ValueError):
        hf.decoders.Metaspace(**kwargs)
    with pytest.raises(ValueError, match="replacement|prepend_scheme"):
        decoders.MetaspaceDecoder(**kwargs)
    with pytest.raises(ValueError, match="replacement|prepend_scheme"):
        pre_tokenizers.Metaspace(**kwargs)


def test_metaspace_decoder_still_decodes_as_hf():
    """The default Metaspace decoder decodes as HF's."""
    tokens = ["\u2581My", "\u2581name", "\u2581is"]
    assert decoders.MetaspaceDecoder().decode(tokens) == hf.decoders.Metaspace().decode(tokens)


def test_sequences_index_as_hf():
    """seq[i] gives the i-th stage of a normalizer, pre-tokenizer or processor Sequence."""
    pairs = [
        (normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()]),
         hf.normalizers.Sequence([hf.normalizers.NFD(), hf.normalizers.Lowercase()])),
        (pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits(True)]),
         hf.pre_tokenizers.Sequence([hf.pre_tokenizers.Whitespace(),
                                     hf.pre_tokenizers.Digits(True)])),
        (extra_processors.ProcessorSequence([processors.BertProcessing(("[SEP]", 2),
                                                                       ("[CLS]", 1))]),
         hf.processors.Sequence([hf.processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))])),
    ]
    for ours, theirs in pairs:
        assert type(ours[0]).__name__.replace("Processing", "") == \
            type(theirs[0]).__name__.replace("Processing", "")
        with pytest.raises(IndexError):
            theirs[5]
        with pytest.raises(IndexError):
            ours[5]
    assert len(pairs[0][0]) == len(pairs[0][1]) == 2
    assert pairs[1][0][1].individual_digits is pairs[1][1][1].individual_digits is True
    decoder = decoders.DecoderSequence([decoders.ReplaceDecoder("#", ""),
                                        decoders.WordPieceDecoder()])
    assert isinstance(decoder[1], decoders.WordPieceDecoder)  # beyond HF: its has no []


def test_an_indexed_stage_is_live():
    """Setting an option on seq[0] changes what the Sequence does (HF shares the object)."""
    seq = pre_tokenizers.Sequence([pre_tokenizers.Digits()])
    seq[0].individual_digits = True
    theirs = hf.pre_tokenizers.Sequence([hf.pre_tokenizers.Digits()])
    theirs[0].individual_digits = True
    assert seq.pre_tokenize_str("a12") == theirs.pre_tokenize_str("a12")


@pytest.mark.parametrize(("ours", "theirs"), [(models.WordPiece, hf.models.WordPiece),
                                              (models.WordLevel, hf.models.WordLevel)])
def test_models_build_without_a_vocabulary_as_hf(ours, theirs):
    """WordPiece() / WordLevel() build empty; encoding with them is an error, as in HF."""
    model = ours()
    assert model.get_vocab() == hf.Tokenizer(theirs()).get_vocab() == {}
    assert model.vocab_size == 0
    tok = Tokenizer(model)
    assert tok.get_vocab_size() == hf.Tokenizer(theirs()).get_vocab_size() == 0
    with pytest.raises(Exception, match="Missing"):
        hf.Tokenizer(theirs()).encode("abc")
    with pytest.raises(VocabError, match=r"unknown token '\[UNK\]' is not in the vocabulary"):
        tok.encode("abc")
    model.unk_token = "<unk>"  # any token while the vocabulary is empty, as HF
    assert model.unk_token == "<unk>"
