"""Every stage meets its stage kind's protocol, and the protocols are all a tokenizer needs."""

from __future__ import annotations

import pytest

from wordpieces.pipeline.decoders import Decoder, WordPieceDecoder
from wordpieces.pipeline.models import Model, SubwordModel, WordLevel, WordPiece
from wordpieces.pipeline.normalizers import (
    NFC,
    NFD,
    NFKC,
    NFKD,
    BertNormalizer,
    CharwiseNormalizer,
    Lowercase,
    NormalizedString,
    Normalizer,
    Sequence,
    StripAccents,
)
from wordpieces.pipeline.pre_tokenizers import (
    BertPreTokenizer,
    CharClassPreTokenizer,
    PreTokenizer,
    Split,
    Whitespace,
    WhitespaceSplit,
)
from wordpieces.pipeline.pre_tokenizers import Sequence as PreSequence
from wordpieces.pipeline.processors import BertProcessing, PostProcessor, TemplateProcessing
from wordpieces.tokenizer import Tokenizer

STAGES = [
    *[(stage, Normalizer) for stage in (Lowercase(), StripAccents(), NFC(), NFD(), NFKC(),
                                        NFKD(), Sequence([NFD(), Lowercase()]))],
    *[(BertNormalizer(flavor=f), CharwiseNormalizer) for f in ("bert", "huggingface",
                                                               "tensorflow")],
    *[(stage, PreTokenizer) for stage in (Whitespace(), WhitespaceSplit(), Split("-"),
                                          PreSequence([WhitespaceSplit()]))],
    (BertPreTokenizer(), CharClassPreTokenizer),
    (WordPiece(["[UNK]", "a", "##b"]), SubwordModel),
    (WordLevel(["[UNK]", "a"]), Model),
    (TemplateProcessing("[CLS] $A", special_tokens={"[CLS]": 0}), PostProcessor),
    (BertProcessing(("[SEP]", 1), ("[CLS]", 0)), PostProcessor),
    (WordPieceDecoder(), Decoder),
]


@pytest.mark.parametrize("stage, protocol", STAGES, ids=lambda x: type(x).__name__)
def test_stage_meets_its_protocol(stage, protocol):
    """Each stage class of the package has every member its protocol documents."""
    assert isinstance(stage, protocol)


def test_fused_contracts_are_narrower():
    """Generic stages meet the general protocol only, not the fused path's."""
    assert not isinstance(Lowercase(), CharwiseNormalizer)
    assert not isinstance(Whitespace(), CharClassPreTokenizer)
    assert not isinstance(WordLevel(["[UNK]"]), SubwordModel)


def test_an_object_missing_a_member_does_not_meet_the_protocol():
    """A pre-tokenizer without ``to_config`` (it could not be saved) is not one."""
    class SplitOnly:
        def split(self, ns):
            return [(0, len(ns.normalized))]

    assert not isinstance(SplitOnly(), PreTokenizer)


class Upper:
    """A normalizer with no base class: only the ``Normalizer`` protocol's methods."""

    def normalize(self, text: str) -> NormalizedString:
        return self.normalize_string(NormalizedString.identity(text))

    def normalize_str(self, text: str) -> str:
        return text.upper()

    def normalize_string(self, ns: NormalizedString) -> NormalizedString:
        return NormalizedString(ns.original, ns.normalized.upper(), ns.alignments)

    def to_config(self) -> dict:
        return {"type": "Upper"}


def test_a_stage_meeting_only_the_protocol_runs_in_a_tokenizer():
    """The protocol is enough: a plain object normalizes text for encode and batches."""
    tok = Tokenizer(WordLevel(["<unk>", "HI", "THERE"], unk_token="<unk>"),
                    normalizer=Upper(), pre_tokenizer=WhitespaceSplit())
    enc = tok.encode("hi there you")
    assert (enc.ids, enc.offsets) == ([1, 2, 0], [(0, 2), (3, 8), (9, 12)])
    assert tok.encode_batch_ids(["there hi"]) == [[2, 1]]
