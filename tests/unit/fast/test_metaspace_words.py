"""fast.metaspace_words: Metaspace's edit step on the pure-Python fast path.

Each text is checked against live HF ``tokenizers`` (ids, offsets, word ids) on a small
vocabulary holding the replacement's words; the chunk cache is checked by counting the
model's calls.
"""

from __future__ import annotations

import pytest

from tests.robustness.helpers import use_backend
from wordpieces.fast.word_encoder import WordEncoder
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer, Metaspace, Sequence
from wordpieces.tokenizer import Tokenizer

hf = pytest.importorskip("tokenizers")

BAR = "\u2581"
VOCAB = ["[UNK]", BAR, "hi", "x", "the", "##x", "##i", "##h", "##e", "##t", "##hi",
         *(BAR + w for w in ("hi", "x", "the")), "##" + BAR, ",", "##,"]
TEXTS = ["hi x", "\x00hi x", " hi  x", f"{BAR}hi", "  ", "", "\u3000hi\tx", "hi\x1cx",
         "the,x", "x,hi the", f"x{BAR}{BAR}hi", "\u4f60 hi", "\x00\x00", "hi  "]


def _pair(pre_tokenizer) -> tuple[Tokenizer, object]:
    """HF's tokenizer (BERT's normalizer, this pre-tokenizer, a WordPiece) and ours from it."""
    theirs = hf.Tokenizer(hf.models.WordPiece({t: i for i, t in enumerate(VOCAB)},
                                              unk_token="[UNK]"))
    theirs.normalizer = hf.normalizers.BertNormalizer()
    theirs.pre_tokenizer = pre_tokenizer
    return Tokenizer.from_str(theirs.to_str()), theirs


PIPELINES = {
    f"{scheme}-{split}": (hf.pre_tokenizers.Metaspace(prepend_scheme=scheme, split=split))
    for scheme in ("always", "first", "never") for split in (True, False)
}
PIPELINES["after-bert-first"] = hf.pre_tokenizers.Sequence(
    [hf.pre_tokenizers.BertPreTokenizer(), hf.pre_tokenizers.Metaspace(prepend_scheme="first")])
PIPELINES["after-bert-always"] = hf.pre_tokenizers.Sequence(
    [hf.pre_tokenizers.BertPreTokenizer(), hf.pre_tokenizers.Metaspace()])


@pytest.mark.parametrize("name", list(PIPELINES))
def test_each_text_gives_hf_tokens(name, monkeypatch):
    """Ids, offsets and word ids of each edge text equal HF's (pure-Python backend)."""
    use_backend("python", monkeypatch)
    ours, theirs = _pair(PIPELINES[name])
    for text in TEXTS:
        mine, ref = ours.encode(text, add_special_tokens=False), theirs.encode(
            text, add_special_tokens=False)
        assert (mine.ids, mine.offsets, mine.word_ids) == (ref.ids, ref.offsets, ref.word_ids), text
        assert ours.encode_batch_ids([text], add_special_tokens=False) == [ref.ids], text


def test_a_line_of_known_chunks_calls_the_model_no_more():
    """Metaspace alone: a chunk's ids are cached, so a second line of the same words
    costs no call of the model (the fast path's per-chunk look-up)."""
    calls: list[str] = []
    model = WordPiece(VOCAB)
    split = model.split

    def counted(word: str):
        calls.append(word)
        return split(word)

    model.split = counted  # type: ignore[method-assign]
    encoder = WordEncoder(BertNormalizer(flavor="huggingface"), Metaspace(), model)
    assert encoder.fused and encoder.metaspace == (BAR, "always", False)
    first = encoder.encode_ids("hi x the x hi")
    assert first == [VOCAB.index(BAR + w) for w in ("hi", "x", "the", "x", "hi")]
    assert set(calls) == {BAR + "hi", BAR + "x", BAR + "the", BAR}
    calls.clear()
    assert encoder.encode_ids("the hi x") == [VOCAB.index(BAR + w) for w in ("the", "hi", "x")]
    assert calls == []


def test_after_bert_the_words_are_cut_at_the_replacement():
    """After BertPreTokenizer each of its words gets the prefix; a replacement inside one
    starts a word of its own (HF's MergedWithNext), with a word index of its own."""
    encoder = WordEncoder(BertNormalizer(flavor="huggingface"),
                          Sequence([BertPreTokenizer(flavor="huggingface"), Metaspace()]),
                          WordPiece(VOCAB))
    assert encoder.metaspace == (BAR, "always", True)
    ids, offsets, word_ids = encoder.encode(f"x{BAR}hi,")
    assert [VOCAB[i] for i in ids] == [BAR + "x", BAR + "hi", BAR, "##,"]
    assert offsets == [(0, 1), (1, 4), (4, 5), (4, 5)]
    assert word_ids == [0, 1, 2, 2]
