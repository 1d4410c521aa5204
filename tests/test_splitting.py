"""The fused fast path gives exactly what the stages give when run one after another."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wordpieces.flavors import FLAVORS
from wordpieces.models import WordPiece
from wordpieces.normalizers import BertNormalizer, Lowercase
from wordpieces.pre_tokenizers import BertPreTokenizer, WhitespaceSplit
from wordpieces.splitting import WordEncoder
from wordpieces.vocab import Vocab

from .conftest import corpus_lines, shared_path


def staged(normalizer, pre_tokenizer, model, text):
    """Run the stages one by one: the definition the fast path must meet."""
    ns = normalizer.normalize(text)
    ids, offsets, word_ids = [], [], []
    for index, (s, e) in enumerate(pre_tokenizer.split(ns)):
        for id_, a, b in model.pieces(ns.normalized[s:e]):
            ids.append(id_)
            offsets.append(ns.span(s + a, s + b))
            word_ids.append(index)
    return ids, offsets, word_ids


@pytest.fixture(scope="module")
def vocab():
    return Vocab.from_file(shared_path("vocab", "bert-base-multilingual-cased.vocab.txt"))


def make(vocab, flavor, lowercase):
    return WordEncoder(BertNormalizer(flavor=flavor, lowercase=lowercase),
                       BertPreTokenizer(flavor=flavor), WordPiece(vocab))


LINES = [
    ("english", "wikitext2", "wiki.test.raw"),
    ("portuguese", "machado_dom_casmurro.txt"),
    ("multilingual", "zh_cao_xueqin_hongloumeng.txt"),
    ("multilingual", "emoji-test-13.1.txt"),
]


@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("parts", LINES, ids=lambda p: p[-1])
def test_fused_equals_staged_on_corpora(vocab, flavor, lowercase, parts):
    """encode and encode_ids equal the staged pipeline on real lines."""
    encoder = make(vocab, flavor, lowercase)
    for line in corpus_lines(*parts, limit=300):
        expected = staged(encoder.normalizer, encoder.pre_tokenizer, encoder.model, line)
        assert encoder.encode(line) == expected, line
        assert encoder.encode_ids(line) == expected[0], line


TRICKY = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.text(
    alphabet="aAéΣσ \t\n\x00\x1c\x85\u00a0\u2028\u200b\u0301.,!中⑴ﬁİß", max_size=40)


@settings(max_examples=300, deadline=None)
@given(text=TRICKY, flavor=st.sampled_from(FLAVORS), lowercase=st.booleans())
def test_fused_equals_staged_on_any_text(vocab, text, flavor, lowercase):
    """On any Unicode text (controls, sigma, ligatures, unassigned), fused == staged."""
    encoder = make(vocab, flavor, lowercase)
    expected = staged(encoder.normalizer, encoder.pre_tokenizer, encoder.model, text)
    assert encoder.encode(text) == expected
    assert encoder.encode_ids(text) == expected[0]


@settings(max_examples=200, deadline=None)
@given(text=TRICKY, flavor=st.sampled_from(FLAVORS))
def test_offsets_slice_the_original(vocab, text, flavor):
    """Offsets lie in the text, in order, and each non-[UNK] token's source normalizes to it."""
    encoder = make(vocab, flavor, True)
    ids, offsets, _ = encoder.encode(text)
    for id_, (s, e) in zip(ids, offsets, strict=True):
        assert 0 <= s <= e <= len(text)
        token = vocab.token(id_).removeprefix("##")
        # A capital sigma's case depends on its neighbours, which a slice does not have.
        if id_ != encoder.model.unk_id and "\u03a3" not in text[s:e]:
            assert token in encoder.normalizer.normalize_str(text[s:e])


def test_word_ids_count_words(vocab):
    """word_ids number the words, punctuation being a word of its own."""
    encoder = make(vocab, "huggingface", False)
    _, _, word_ids = encoder.encode("Hello, world!")
    assert word_ids == [0, 1, 2, 3]


def test_generic_pipeline(vocab):
    """A non-BERT pipeline (Lowercase + WhitespaceSplit) goes through the staged path."""
    encoder = WordEncoder(Lowercase(), WhitespaceSplit(), WordPiece(vocab))
    text = "Hello  World"
    ids, offsets, word_ids = encoder.encode(text)
    assert "".join(vocab.token(i).removeprefix("##") for i in ids) == "helloworld"
    assert [text[s:e] for s, e in offsets if word_ids] and offsets[-1] == (7, 12)
    assert "".join(text[s:e] for s, e in offsets) == "HelloWorld"


def test_chunk_cache_stays_bounded_and_right(monkeypatch):
    """The two-generation chunk cache never holds more than CACHE_SIZE chunks, and
    results do not depend on what it holds."""
    from wordpieces import splitting
    from wordpieces.models import WordPiece
    from wordpieces.normalizers import BertNormalizer
    from wordpieces.pre_tokenizers import BertPreTokenizer
    from wordpieces.vocab import Vocab
    monkeypatch.setattr(splitting, "CACHE_SIZE", 8)
    vocab = Vocab(["[UNK]", "a", "b", "##a", "##b", "!"])
    encoder = splitting.WordEncoder(BertNormalizer(), BertPreTokenizer(), WordPiece(vocab))
    texts = [" ".join(f"{w}{'!' * (i % 3)}" for w in ("ab", "ba", "aab", "b")) for i in range(40)]
    first = [encoder.encode(t) for t in texts]
    assert len(encoder._chunks) + len(encoder._older_chunks) <= 8
    fresh = splitting.WordEncoder(BertNormalizer(), BertPreTokenizer(), WordPiece(vocab))
    assert [encoder.encode(t) for t in reversed(texts)] == [fresh.encode(t)
                                                            for t in reversed(texts)]
    assert first == [fresh.encode(t) for t in texts]
