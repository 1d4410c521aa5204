"""Stage options set after construction take effect, as HF's setters: on the stage itself
and on a tokenizer that already encoded with it (its word encoder is built again), on
both backends and through every encode path, checked against live HF ``tokenizers``."""

from __future__ import annotations

import pytest

from tests.hf_reference import hf_from_vocab
from tests.robustness.helpers import BACKENDS, use_backend
from tests.shared_data import shared_path
from wordpieces.fast.backend import NativeWordEncoder, PythonWordEncoder
from wordpieces.pipeline.models import WordLevel, WordPiece
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import Digits, Metaspace
from wordpieces.tokenizer import Tokenizer

hf = pytest.importorskip("tokenizers")

TEXTS = ["Héllo WORLD", "a\tb\x00c Ünïcode", "a你好b ÇA VA?", "ΣΊΣΥΦΟΣ x 12 345"]
OPTIONS = [("lowercase", False), ("strip_accents", False), ("strip_accents", True),
           ("handle_chinese_chars", False), ("clean_text", False)]


@pytest.fixture(params=BACKENDS)
def backend_name(request, monkeypatch):
    """Run the test on each backend (the native one only when it is built)."""
    use_backend(request.param, monkeypatch)  # skips native without the extension
    return request.param


@pytest.mark.parametrize(("name", "value"), OPTIONS)
def test_bert_normalizer_option_set_later_acts_as_hf(name, value):
    """BertNormalizer().name = value normalizes as HF's after the same assignment."""
    ours, theirs = BertNormalizer(flavor="huggingface"), hf.normalizers.BertNormalizer()
    for text in TEXTS:
        ours.normalize_str(text)  # fill the per-character cache first
    setattr(ours, name, value)
    setattr(theirs, name, value)
    assert getattr(ours, name) == getattr(theirs, name) == value
    for text in TEXTS:
        assert ours.normalize_str(text) == theirs.normalize_str(text), text


def test_digits_individual_set_later_acts_as_hf():
    """Digits().individual_digits = True splits each digit, as HF's after the same."""
    ours, theirs = Digits(), hf.pre_tokenizers.Digits()
    ours.individual_digits = theirs.individual_digits = True
    assert ours.pre_tokenize_str("a123b 45") == theirs.pre_tokenize_str("a123b 45")
    ours.individual_digits = theirs.individual_digits = False
    assert ours.pre_tokenize_str("a123b 45") == theirs.pre_tokenize_str("a123b 45")


def test_metaspace_options_set_later_act_as_hf():
    """Metaspace's replacement, prepend_scheme and split set later split as HF's after the
    same assignments (ours is split_words: split is the method)."""
    ours, theirs = Metaspace(), hf.pre_tokenizers.Metaspace()
    for name, value in (("prepend_scheme", "never"), ("replacement", "_"),
                        ("split", False), ("prepend_scheme", "first")):
        setattr(theirs, name, value)
        setattr(ours, "split_words" if name == "split" else name, value)
        assert ours.uses_position == (ours.prepend_scheme == "first")
        for text in ("hi there", " a  b_c"):
            assert ours.pre_tokenize_str(text) == theirs.pre_tokenize_str(text), (name, text)
    with pytest.raises(ValueError, match="one character"):
        ours.replacement = "ab"
    assert ours.replacement == "_"


def test_wordpiece_unk_token_set_later_acts_as_hf():
    """WordPiece.unk_token = '<u>' makes unknown words '<u>', as HF's model after the same."""
    vocab = {"[UNK]": 0, "a": 1, "<u>": 2}
    ours = Tokenizer(WordPiece(vocab))
    theirs = hf.Tokenizer(hf.models.WordPiece(vocab, unk_token="[UNK]"))
    assert ours.encode("zz").tokens == theirs.encode("zz").tokens == ["[UNK]"]
    ours.model.unk_token = theirs.model.unk_token = "<u>"
    assert ours.model.unk_token == theirs.model.unk_token
    assert ours.encode("zz").tokens == theirs.encode("zz").tokens == ["<u>"]


def test_unk_token_must_be_in_a_nonempty_vocabulary():
    """Setting an unknown token the vocabulary lacks is refused by name (HF fails at encode)."""
    from wordpieces.errors import VocabError
    for model in (WordPiece(["[UNK]", "a"]), WordLevel(["[UNK]", "a"])):
        with pytest.raises(VocabError, match="'<nope>' is not in the vocabulary"):
            model.unk_token = "<nope>"
        assert model.unk_token == "[UNK]"


@pytest.mark.shared_data
@pytest.mark.parametrize(("name", "value"), [o for o in OPTIONS if o != ("strip_accents", True)])
def test_option_set_on_a_live_tokenizer_rebuilds_its_encoder(backend_name, name, value):
    """tok.normalizer.name = value after encoding: every encode path follows it, as HF.

    The tokenizer encoded first, so its word encoder (native tables or Python caches)
    was built with the old option; HF's normalizer attribute shares the Rust object,
    so the same assignment changes a live HF tokenizer.
    """
    vocab = shared_path("vocab", "bert-base-multilingual-cased.vocab.txt")
    ours = Tokenizer.from_vocab(vocab, flavor="huggingface")
    theirs = hf_from_vocab(vocab)
    before = ours.encode_batch_ids(TEXTS)
    assert before == [e.ids for e in theirs.encode_batch(TEXTS)]
    kind = NativeWordEncoder if backend_name == "native" else PythonWordEncoder
    assert isinstance(ours._seq.word_encoder, kind)
    setattr(ours.normalizer, name, value)
    setattr(theirs.normalizer, name, value)
    expected = [e.ids for e in theirs.encode_batch(TEXTS)]
    assert expected != before  # the option matters for these texts
    assert [ours.encode(t).ids for t in TEXTS] == expected
    assert ours.encode_batch_ids(TEXTS) == expected
    assert [e.ids for e in ours.encode_batch(TEXTS)] == expected
    rows = ours(TEXTS, padding=True, return_tensors="np")["input_ids"].tolist()
    assert [row[:len(ids)] for row, ids in zip(rows, expected, strict=True)] == expected
    assert [ours.encode(t).offsets for t in TEXTS] == [e.offsets
                                                       for e in theirs.encode_batch(TEXTS)]
    assert isinstance(ours._seq.word_encoder, kind)


@pytest.mark.shared_data
def test_digits_and_unk_set_on_a_live_tokenizer(backend_name):
    """A pre-tokenizer's and a model's option set after encoding reach the tokenizer too."""
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    ours = Tokenizer.from_vocab(vocab, flavor="huggingface")
    ours.pre_tokenizer = Digits()
    assert ours.tokenize("2020") == ["2020"]
    ours.pre_tokenizer.individual_digits = True
    assert ours.tokenize("2020") == ["2", "0", "2", "0"]
    tok = Tokenizer.from_vocab(vocab, flavor="huggingface")
    assert tok.encode_batch_ids(["\u2603"], add_special_tokens=False) == [[100]]
    tok.model.unk_token = "[MASK]"
    assert tok.encode_batch_ids(["\u2603"], add_special_tokens=False) == [[103]]
    assert tok.tokenize("\u2603") == ["[MASK]"]


@pytest.mark.shared_data
def test_metaspace_scheme_set_on_a_live_tokenizer(backend_name):
    """The compiled Metaspace follows a prepend_scheme set after encoding, as HF's."""
    vocab = shared_path("vocab", "bert-base-uncased.vocab.txt")
    theirs = hf_from_vocab(vocab)
    theirs.pre_tokenizer = hf.pre_tokenizers.Metaspace()
    ours = Tokenizer.from_str(theirs.to_str())
    texts = ["a b", "\x00a b"]
    assert ours.encode_batch_ids(texts) == [e.ids for e in theirs.encode_batch(texts)]
    ours.pre_tokenizer.prepend_scheme = theirs.pre_tokenizer.prepend_scheme = "never"
    expected = [e.ids for e in theirs.encode_batch(texts)]
    assert ours.encode_batch_ids(texts) == expected
    assert [ours.encode(t).ids for t in texts] == expected
