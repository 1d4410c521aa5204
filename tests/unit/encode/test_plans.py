"""The C finisher's plans come from the processor's own plan, within what C can hold."""

from __future__ import annotations

import pytest

from wordpieces.encode.plans import MAX_PIECES, MAX_SPECIAL_IDS, plans_of
from wordpieces.pipeline.processor_plan import PlanPiece, ProcessorPlan
from wordpieces.pipeline.processors import BertProcessing, TemplateProcessing

SPECIALS = {"[CLS]": 1, "[SEP]": 2}


def test_bert_plans_are_cls_and_sep_around_each_sequence():
    """BertProcessing's C plans: [CLS] A [SEP] and B [SEP] of type id 1; none without."""
    bert = BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    assert plans_of(bert, True) == (((-1, 0, (1,)), (0, 0, ()), (-1, 0, (2,))),
                                    ((-1, 0, (1,)), (0, 0, ()), (-1, 0, (2,)), (1, 1, ()),
                                     (-1, 1, (2,))))
    assert plans_of(bert, False) == (((0, 0, ()),), ((0, 0, ()), (1, 1, ())))
    assert plans_of(None, True) == (((0, 0, ()),), ((0, 0, ()), (1, 1, ())))


def test_plans_follow_an_option_set_later():
    """Setting an option (options_stamp moves) gives the new plan, not the remembered one."""
    bert = BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    assert plans_of(bert, True)[0][-1] == (-1, 0, (2,))
    bert.sep = ("[SEP]", 7)
    assert plans_of(bert, True)[0][-1] == (-1, 0, (7,))


def test_what_c_cannot_hold_has_no_c_plan():
    """$B before $A, more pieces or special ids than C holds: None (the Python path)."""
    b_first = TemplateProcessing("$A", "$B:1 [SEP] $A", special_tokens=SPECIALS)
    assert b_first.plan(True) is not None and plans_of(b_first, True) is None
    many = " ".join(["[CLS]:0 [SEP]:1"] * (MAX_PIECES // 2)) + " $A"
    assert plans_of(TemplateProcessing(many, special_tokens=SPECIALS), True) is None
    assert plans_of(TemplateProcessing(many, special_tokens=SPECIALS), False) is not None
    long_run = " ".join(["[CLS]"] * (MAX_SPECIAL_IDS + 1)) + " $A"
    assert plans_of(TemplateProcessing(long_run, special_tokens=SPECIALS), True) is None


def test_a_processor_without_plan_has_no_c_plan():
    """An object with ``process`` but no ``plan``: None, so batches run ``process``."""
    class Own:
        def process(self, encoding, pair=None, add_special_tokens=True):
            return encoding

    assert plans_of(Own(), True) is None


def test_a_plan_must_hold_each_sequence_once():
    """A hand-made plan missing a sequence is refused by name."""
    with pytest.raises(ValueError, match="pair pieces must hold"):
        ProcessorPlan((PlanPiece(0),), (PlanPiece(0),))


def test_offsets_a_processor_trims_take_the_python_path():
    """RobertaProcessing(trim_offsets=True): C runs its ids, never its offsets."""
    from wordpieces.encode.batches import BatchFinisher
    from wordpieces.encode.plans import trims_offsets
    from wordpieces.pipeline.extra_processors import RobertaProcessing
    from wordpieces.tokenizer import Tokenizer

    tok = Tokenizer.from_vocab(["[UNK]", "[CLS]", "[SEP]", "a", "b"])
    roberta = RobertaProcessing(("[SEP]", 2), ("[CLS]", 1), trim_offsets=True)
    assert trims_offsets(roberta, True)
    assert not trims_offsets(RobertaProcessing(("[SEP]", 2), ("[CLS]", 1),
                                               trim_offsets=False), True)
    finisher = BatchFinisher(tok.pipeline.sequences, roberta, True, None, None)
    if finisher.lists(["a b"], {"input_ids"}, 1) is None:
        pytest.skip("needs the native extension")
    assert finisher.lists(["a b"], {"input_ids", "offset_mapping"}, 1) is None
    assert "trim_offsets" in finisher.python_reason
    tok.post_processor = roberta
    expected = [e.offsets for e in tok.encode_batch(["a b", "b"])]
    assert tok(["a b", "b"], return_offsets_mapping=True)["offset_mapping"] == expected
    assert tok("a b", return_offsets_mapping=True)["offset_mapping"] == expected[0]
