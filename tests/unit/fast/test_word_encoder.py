"""The fused fast path gives exactly what the stages give when run one after another."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import corpus_lines, shared_path
from wordpieces.fast.word_encoder import COMPLEX, WordEncoder
from wordpieces.flavors.rules import FLAVORS
from wordpieces.pipeline.edit_normalizers import Replace
from wordpieces.pipeline.models import WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer, Lowercase, Sequence
from wordpieces.pipeline.pre_tokenizers import (
    ISOLATE,
    SPACE,
    WORD,
    BertPreTokenizer,
    CharClasses,
    Digits,
    Metaspace,
    Whitespace,
    WhitespaceSplit,
)
from wordpieces.pipeline.pre_tokenizers import Sequence as PreSequence
from wordpieces.vocab import Vocab


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


@pytest.mark.shared_data
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


@pytest.mark.shared_data
@settings(max_examples=300, deadline=None)
@given(text=TRICKY, flavor=st.sampled_from(FLAVORS), lowercase=st.booleans())
def test_fused_equals_staged_on_any_text(vocab, text, flavor, lowercase):
    """On any Unicode text (controls, sigma, ligatures, unassigned), fused == staged."""
    encoder = make(vocab, flavor, lowercase)
    expected = staged(encoder.normalizer, encoder.pre_tokenizer, encoder.model, text)
    assert encoder.encode(text) == expected
    assert encoder.encode_ids(text) == expected[0]


ASCII = st.text(alphabet=string.printable, max_size=60) | st.lists(
    st.sampled_from(["Don't", "(a)", "e-mail", "U.S.A.", "x2", "##s", "[UNK]", "  ", "\t"]),
    max_size=8).map("".join)


@pytest.mark.shared_data
@settings(max_examples=300, deadline=None)
@given(text=ASCII, flavor=st.sampled_from(FLAVORS), lowercase=st.booleans())
def test_ascii_shortcut_equals_staged(vocab, text, flavor, lowercase):
    """Printable ASCII chunks skip the class table: ids, offsets, raw tokens stay staged's."""
    encoder = make(vocab, flavor, lowercase)
    expected = staged(encoder.normalizer, encoder.pre_tokenizer, encoder.model, text)
    assert encoder.encode_ids(text) == expected[0]  # ids cache first, then the entries
    raw = encoder.encode_raw(text)
    assert (raw.ids(), raw.offsets(), raw.word_ids()) == expected
    assert encoder.encode(text) == expected


@pytest.mark.shared_data
@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("lowercase", [True, False])
def test_ascii_shortcut_is_taken_by_every_flavor(vocab, flavor, lowercase):
    """Every BERT flavor folds printable ASCII by case alone, so the shortcut applies."""
    assert make(vocab, flavor, lowercase)._ascii_fold is (str.lower if lowercase else str)


@pytest.mark.shared_data
def test_ascii_shortcut_follows_the_pipelines_classes(vocab):
    """A pipeline that treats ASCII otherwise (here: '-' kept inside words): its words."""
    pre_tokenizer = BertPreTokenizer()
    classify = pre_tokenizer.classes.classify
    pre_tokenizer.classes = CharClasses(lambda ch: "w" if ch == "-" else classify(ch))
    encoder = WordEncoder(BertNormalizer(), pre_tokenizer, WordPiece(vocab))
    assert encoder._ascii_words.findall("(re-sent),") == ["(", "re-sent", ")", ","]
    text = "e-mail (re-sent), x-ray!"
    expected = staged(encoder.normalizer, pre_tokenizer, encoder.model, text)
    assert [vocab.token(i) for i in expected[0]][:3] == ["e", "##-", "##mail"]
    assert encoder.encode(text) == expected and encoder.encode_ids(text) == expected[0]


@pytest.mark.shared_data
def test_ascii_shortcut_is_refused_when_an_ascii_character_is_deleted(vocab):
    """A normalizer deleting a printable ASCII character: chunks keep the class table."""
    normalizer = Sequence([Lowercase(), Replace("e", "")])
    encoder = WordEncoder(normalizer, Whitespace(), WordPiece(vocab))
    assert encoder.fused and encoder._ascii_fold is None
    text = "Free tree-house!! see"
    expected = staged(normalizer, encoder.pre_tokenizer, encoder.model, text)
    assert encoder.encode(text) == expected and encoder.encode_ids(text) == expected[0]


@pytest.mark.shared_data
@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("text", ["Ação não é fácil, Σοφία", "ﬁnal İstanbul Straße Å\u0301",
                                  "한\u0301\u0301 각\u0300\u0300국"])
def test_non_ascii_words_take_the_right_path(vocab, flavor, lowercase, text):
    """Words whose characters each normalize to one keep their offsets; others (ﬁ, İ) map."""
    encoder = make(vocab, flavor, lowercase)
    expected = staged(encoder.normalizer, encoder.pre_tokenizer, encoder.model, text)
    assert encoder.encode(text) == expected


@pytest.mark.shared_data
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


@pytest.mark.shared_data
def test_word_ids_count_words(vocab):
    """word_ids number the words, punctuation being a word of its own."""
    encoder = make(vocab, "huggingface", False)
    _, _, word_ids = encoder.encode("Hello, world!")
    assert word_ids == [0, 1, 2, 3]


@pytest.mark.shared_data
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
    from wordpieces.fast import word_encoder
    from wordpieces.pipeline.models import WordPiece
    from wordpieces.pipeline.normalizers import BertNormalizer
    from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer
    from wordpieces.vocab import Vocab
    monkeypatch.setattr(word_encoder, "CACHE_SIZE", 8)
    vocab = Vocab(["[UNK]", "a", "b", "##a", "##b", "!"])
    encoder = word_encoder.WordEncoder(BertNormalizer(), BertPreTokenizer(), WordPiece(vocab))
    texts = [" ".join(f"{w}{'!' * (i % 3)}" for w in ("ab", "ba", "aab", "b")) for i in range(40)]
    first = [encoder.encode(t) for t in texts]
    first_ids = [encoder.encode_ids(t) for t in texts]
    assert len(encoder._chunks) <= 8 and len(encoder._chunk_ids_cache) <= 8
    fresh = word_encoder.WordEncoder(BertNormalizer(), BertPreTokenizer(), WordPiece(vocab))
    assert [encoder.encode(t) for t in reversed(texts)] == [fresh.encode(t)
                                                            for t in reversed(texts)]
    assert [encoder.encode_ids(t) for t in reversed(texts)] == [fresh.encode_ids(t)
                                                                for t in reversed(texts)]
    assert first == [fresh.encode(t) for t in texts]
    assert first_ids == [ids for ids, _, _ in first]


def test_char_facts_are_a_characters_class_and_word_text():
    """char_facts: what the native table learns of one character (class, word text)."""
    encoder = WordEncoder(BertNormalizer(), BertPreTokenizer(), WordPiece(["[UNK]"]))
    assert encoder.fused
    assert [encoder.char_facts(ord(c)) for c in "A !\u00e9\u6771"] == [
        (WORD, "a"), (SPACE, ""), (ISOLATE, "!"), (WORD, "e"), (ISOLATE, "\u6771")]
    assert encoder.char_facts(ord("\u03a3"))[0] == COMPLEX  # final sigma: needs context


def test_char_facts_need_the_fused_pipeline():
    """A pipeline with no per-character facts (Metaspace before Digits): a clear error."""
    pre = PreSequence([Metaspace(), Digits()])
    encoder = WordEncoder(Lowercase(), pre, WordPiece(["[UNK]"]))
    assert not encoder.fused
    with pytest.raises(ValueError, match="fused pipeline: pre_tokenizer Metaspace"):
        encoder.char_facts(ord("A"))
