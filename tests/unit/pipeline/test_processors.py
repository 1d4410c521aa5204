"""Post-processors: template parsing, HF JSON forms, and encodings equal to HF's."""

from __future__ import annotations

import json

import pytest

from tests.hf_reference import fields, minilm_pair, sample_lines
from wordpieces.errors import VocabError
from wordpieces.pipeline.processors import (
    BertProcessing,
    Piece,
    TemplateProcessing,
    default_processor,
    parse_piece,
    parse_template,
)
from wordpieces.vocab import Vocab

hf_processors = pytest.importorskip("tokenizers.processors")

SPECIALS = {"[CLS]": 101, "[SEP]": 102}


def _hf_post_processor_json(processor) -> dict:
    from tokenizers import Tokenizer, models
    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.post_processor = processor
    return json.loads(tok.to_str())["post_processor"]


def test_parse_piece_forms():
    """$A, $b, $, $1, [SEP]:1 and $B:1 parse as HF parses them."""
    assert parse_piece("$A") == Piece("A", 0, True)
    assert parse_piece("$b") == Piece("B", 0, True)
    assert parse_piece("$") == Piece("A", 0, True)
    assert parse_piece("$1") == Piece("A", 1, True)
    assert parse_piece("$B:1") == Piece("B", 1, True)
    assert parse_piece("[SEP]:1") == Piece("[SEP]", 1)


@pytest.mark.parametrize("bad", ["[SEP]:x", "$C", "a:1:2", ":1", "[SEP]:"])
def test_bad_pieces_are_reported(bad):
    """A malformed piece is a ValueError quoting it."""
    with pytest.raises(ValueError, match="template piece"):
        parse_piece(bad)


@pytest.mark.parametrize("single, pair", [
    ("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"),
    ("[CLS]:2 $A:3 [SEP]:4", "[CLS] $B:5 [SEP]:6 $A:7 [SEP]:1"),
    ("$A [SEP]", "$A [SEP] $B:1"),
])
def test_template_config_equals_hf_json(single, pair):
    """to_config writes exactly HF's tokenizer.json post_processor block."""
    ours = TemplateProcessing(single, pair, special_tokens=SPECIALS)
    theirs = hf_processors.TemplateProcessing(single=single, pair=pair,
                                              special_tokens=list(SPECIALS.items()))
    assert ours.to_config() == _hf_post_processor_json(theirs)


def test_bert_processing_config_equals_hf_json():
    """BertProcessing writes HF's block."""
    ours = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    theirs = hf_processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    assert ours.to_config() == _hf_post_processor_json(theirs)


def test_default_pair_repeats_closing_tokens():
    """Without a pair template, X $A Y gives X $A Y $B:1 Y:1."""
    tp = TemplateProcessing("[START] $A [END]", special_tokens={"[START]": 2, "[END]": 3})
    assert tp.pair == parse_template("[START] $A [END] $B:1 [END]:1")


def test_template_errors():
    """Unknown special tokens and templates without exactly one $A are refused."""
    with pytest.raises(ValueError, match=r"\[X\]"):
        TemplateProcessing("[X] $A", special_tokens=SPECIALS)
    with pytest.raises(ValueError, match="exactly once"):
        TemplateProcessing("[CLS] $A $A", special_tokens=SPECIALS)


@pytest.mark.shared_data
@pytest.mark.parametrize("kind", ["template", "bert"])
@pytest.mark.parametrize("special", [True, False])
def test_processed_encodings_match_hf(kind, special):
    """With truncation windows, both processors give HF's encodings and their plans agree."""
    ours, theirs = minilm_pair()
    if kind == "bert":
        ours.post_processor = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
        theirs.post_processor = hf_processors.BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    else:
        ours.post_processor = TemplateProcessing("[CLS]:1 $A:2 [SEP]", "$B:1 [SEP] $A [CLS]:3",
                                                 special_tokens=SPECIALS)
        theirs.post_processor = hf_processors.TemplateProcessing(
            single="[CLS]:1 $A:2 [SEP]", pair="$B:1 [SEP] $A [CLS]:3",
            special_tokens=list(SPECIALS.items()))
    for tok in (ours, theirs):
        tok.no_padding()
        tok.enable_truncation(24, stride=4)
    lines = sample_lines("english", 30, seed=2)
    for a, b in zip(lines, lines[1:], strict=False):
        for args in ((a,), (a, b)):
            mine = ours.encode(*args, add_special_tokens=special)
            assert fields(mine) == fields(theirs.encode(*args, add_special_tokens=special))
            assert ours.encode_ids(*args, add_special_tokens=special) == mine.ids


def test_default_processor_follows_the_vocabulary():
    """template="auto": [CLS] $A [SEP], else [START] $A [END], else no post-processor."""
    cls_sep = default_processor(Vocab(["[UNK]", "[CLS]", "[SEP]"]))
    assert cls_sep.plan(True).ids([7], [8]) == [1, 7, 2, 8, 2]
    assert default_processor(Vocab(["[START]", "[END]"])).plan(True).ids([7], None) == [0, 7, 1]
    assert default_processor(Vocab(["a"])) is None
    assert default_processor(Vocab(["[CLS]", "[SEP]"]), None) is None


def test_default_processor_names_tokens_missing_from_the_vocabulary():
    """A template using a token the vocabulary lacks is a VocabError naming it."""
    with pytest.raises(VocabError, match=r"\[X\]"):
        default_processor(Vocab(["a"]), "[X] $A")
