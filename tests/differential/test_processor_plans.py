"""Each post-processor's plan is what HF ``tokenizers`` adds, and every path runs it.

Each processor kind is built on HF's side with HF's constructors and read back by
wordpieces from the ``tokenizer.json``. Its ``plan(add_special_tokens)`` spelled out over
the sequences' own ids must give HF's ids, type ids and special-tokens mask for one
sequence and a pair; the tokenizer's paths (Encodings, lazy or not; ids; the C finisher,
strict mode on) must give HF's encodings. A post-processor written by a user without a
``plan`` runs on the Python reference path, by design (no strict-mode error).
"""

from __future__ import annotations

import pytest

from tests.hf_reference import fields
from wordpieces.encode import batches
from wordpieces.pipeline.processor_plan import SPECIALS
from wordpieces.tokenizer import Tokenizer

hf = pytest.importorskip("tokenizers")
pr = hf.processors

VOCAB = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "<s>": 3, "</s>": 4, "the": 5, "cat": 6,
         "sat": 7, "on": 8, "mat": 9, "##s": 10, ",": 11}
TEXTS = ["the cats sat", "on the mat", "", "cat , cats", "the"]
BERT = ("[SEP]", 2), ("[CLS]", 1)
ROBERTA = ("</s>", 4), ("<s>", 3)


def _template(single, pair, **extra):
    return lambda: pr.TemplateProcessing(single=single, pair=pair,
                                         special_tokens=[("[CLS]", 1), ("[SEP]", 2)], **extra)


# name -> (HF processor maker, with which add_special_tokens it has a plan, and C runs it)
BOTH = (True, False)
PROCESSORS = {
    "template": (_template("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"), BOTH, BOTH),
    "template-types": (_template("$A:1", "$A:2 [SEP] $B:0"), BOTH, BOTH),
    "template-b-first": (_template("[CLS]:1 $A:2 [SEP]", "$B:1 [SEP] $A [CLS]:3"), BOTH,
                         ()),
    "template-multi-id": (lambda: pr.TemplateProcessing(
        single="[BOTH] $A", pair="[BOTH]:1 $A $B [BOTH]",
        special_tokens=[{"id": "[BOTH]", "ids": [1, 2], "tokens": ["[CLS]", "[SEP]"]}]),
        BOTH, BOTH),
    "bert": (lambda: pr.BertProcessing(*BERT), BOTH, BOTH),
    "roberta": (lambda: pr.RobertaProcessing(*ROBERTA, trim_offsets=False), BOTH, BOTH),
    "roberta-trim": (lambda: pr.RobertaProcessing(*ROBERTA), BOTH, BOTH),
    "sequence-bert": (lambda: pr.Sequence([pr.BertProcessing(*BERT)]), BOTH, BOTH),
    "sequence-types-bert": (lambda: pr.Sequence([
        pr.TemplateProcessing(single="$A:1", pair="$A:1 $B:0"), pr.BertProcessing(*BERT)]),
        BOTH, BOTH),
    "sequence-bert-roberta": (lambda: pr.Sequence([
        pr.BertProcessing(*BERT), pr.RobertaProcessing(*ROBERTA, trim_offsets=False)]),
        (False,), (False,)),
}


def _pair(processor):
    """HF's tokenizer with ``processor``, and wordpieces' read from its JSON."""
    theirs = hf.Tokenizer(hf.models.WordPiece(VOCAB, unk_token="[UNK]"))
    theirs.normalizer = hf.normalizers.BertNormalizer()
    theirs.pre_tokenizer = hf.pre_tokenizers.BertPreTokenizer()
    theirs.post_processor = processor
    return Tokenizer.from_str(theirs.to_str()), theirs


def _items():
    return [*TEXTS, *zip(TEXTS, TEXTS[1:] + TEXTS[:1], strict=True)]


def _spelled_out(plan, a: list[int], b: list[int] | None) -> dict:
    """What ``plan`` makes of sequences ``a`` (and ``b``): ids, type ids, special mask."""
    ids, type_ids, special = [], [], []
    for piece in plan.pieces(b is not None):
        n = len(piece.specials) if piece.sequence == SPECIALS else len(
            a if piece.sequence == 0 else b)
        ids += list(piece.ids) if piece.sequence == SPECIALS else (a if piece.sequence == 0
                                                                   else b)
        type_ids += [piece.type_id] * n
        special += [int(piece.sequence == SPECIALS)] * n
    return {"ids": ids, "type_ids": type_ids, "special_tokens_mask": special}


@pytest.mark.parametrize("add", [True, False])
@pytest.mark.parametrize("name", PROCESSORS)
def test_plan_is_what_hf_adds(name, add):
    """The plan over each sequence's ids gives HF's ids, type ids and special mask."""
    make, has_plan, _ = PROCESSORS[name]
    ours, theirs = _pair(make())
    plan = ours.post_processor.plan(add)
    assert (plan is not None) == (add in has_plan)
    if plan is None:
        return
    bare = hf.Tokenizer.from_str(theirs.to_str())
    bare.post_processor = None
    for item in _items():
        first, second = (item, None) if isinstance(item, str) else item
        a = bare.encode(first, add_special_tokens=False).ids
        b = None if second is None else bare.encode(second, add_special_tokens=False).ids
        want = theirs.encode(first, second, add_special_tokens=add)
        assert _spelled_out(plan, a, b) == {
            "ids": want.ids, "type_ids": want.type_ids,
            "special_tokens_mask": want.special_tokens_mask}, item


@pytest.fixture
def reasons(monkeypatch) -> list[str]:
    """Each reason a batch gave for taking the Python path (``BatchFinisher._python``)."""
    seen: list[str] = []
    take = batches.BatchFinisher._python
    monkeypatch.setattr(batches.BatchFinisher, "_python",
                        lambda self, reason: (seen.append(reason), take(self, reason))[1])
    return seen


@pytest.mark.parametrize("add", [True, False])
@pytest.mark.parametrize("name", PROCESSORS)
def test_every_path_gives_hf_encodings(name, add, reasons):
    """Encodings, ids and (strict mode on) the C finisher give HF's answers; C runs the
    plan wherever C can hold it."""
    make, _, in_c = PROCESSORS[name]
    ours, theirs = _pair(make())
    items = _items()
    want = theirs.encode_batch(items, add_special_tokens=add)
    got = ours.encode_batch(items, add_special_tokens=add)
    assert [fields(e) for e in got] == [fields(e) for e in want]
    for item, enc in zip(items, want, strict=True):
        args = (item,) if isinstance(item, str) else item
        assert fields(ours.encode(*args, add_special_tokens=add)) == fields(enc)
        assert ours.encode_ids(*args, add_special_tokens=add) == enc.ids
    assert ours.encode_batch_ids(items, add_special_tokens=add) == [e.ids for e in want]
    listed = ours(items[:len(TEXTS)], add_special_tokens=add, return_special_tokens_mask=True)
    assert listed["input_ids"] == [e.ids for e in want[:len(TEXTS)]]
    assert listed["token_type_ids"] == [e.type_ids for e in want[:len(TEXTS)]]
    assert listed["special_tokens_mask"] == [e.special_tokens_mask for e in want[:len(TEXTS)]]
    no_plan = [r for r in reasons if "post-processor" in r]
    assert bool(no_plan) == (add not in in_c), reasons


class OwnProcessor:
    """A user's post-processor: the protocol's methods, no ``plan`` (BERT's tokens)."""

    def __init__(self, inner):
        self.inner = inner

    def process(self, encoding, pair=None, add_special_tokens=True):
        return self.inner.process(encoding, pair, add_special_tokens)

    def added_tokens(self, is_pair):
        return self.inner.added_tokens(is_pair)

    def to_config(self):
        return self.inner.to_config()


@pytest.mark.parametrize("add", [True, False])
def test_a_processor_without_plan_runs_the_python_path(add, reasons):
    """No ``plan``: every path still gives HF's answer, Python by design in strict mode."""
    ours, theirs = _pair(pr.BertProcessing(*BERT))
    ours.post_processor = OwnProcessor(ours.post_processor)
    items = _items()
    want = theirs.encode_batch(items, add_special_tokens=add)
    got = ours.encode_batch(items, add_special_tokens=add)
    assert [fields(e) for e in got] == [fields(e) for e in want]
    assert ours.encode_batch_ids(items, add_special_tokens=add) == [e.ids for e in want]
    ours.pad_token = "[UNK]"  # id 0
    padded = ours(items[:len(TEXTS)], add_special_tokens=add, padding=True,
                  return_tensors="np")
    width = max(len(e.ids) for e in want[:len(TEXTS)])
    assert padded["input_ids"].tolist() == [e.ids + [0] * (width - len(e.ids))
                                            for e in want[:len(TEXTS)]]
    assert reasons and all("post-processor" in r for r in reasons), reasons
