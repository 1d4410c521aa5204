"""transformers' tokenizer attributes and added tokens, against live ``transformers``.

Tokens a user adds (``add_tokens``, ``add_special_tokens``) are matched whole in every
flavor, on both backends and every encode path (one text, batches of Encodings, ids
straight from C, arrays); a reserved token typed in the text keeps each reference's
behaviour (split by BERT and TF Text). Also ``max_len_single_sentence`` /
``max_len_sentences_pair``, settable ``*_token_id``, ``additional_special_tokens``,
``get_added_vocab`` and ``added_tokens_decoder``.
"""

from __future__ import annotations

import pickle
import warnings

import pytest

from tests.robustness.helpers import BACKENDS, use_backend
from tests.shared_data import shared_path
from tests.transformers_reference import bert_uncased_pair, quiet
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.shared_data

FLAVORS = ("bert", "tensorflow", "huggingface")
TEXTS = ["hello extra_id_100 world", "extra_id_100", "no added token here",
         "twice extra_id_100extra_id_100 and <x>, a<x>b", "Hello EXTRA_ID_100"]


@pytest.fixture(params=BACKENDS)
def backend_name(request, monkeypatch):
    use_backend(request.param, monkeypatch)  # skips native without the extension
    return request.param


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    """transformers' BertTokenizerFast of bert-base-uncased, with the same tokens added."""
    _, tok = bert_uncased_pair(tmp_path_factory.mktemp("bert"))
    assert tok.add_tokens(["extra_id_100"]) == 1
    with quiet():
        tok.add_special_tokens({"additional_special_tokens": ["<x>"]})
    return tok


def _ours(flavor: str) -> Tokenizer:
    tok = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                               flavor=flavor)
    assert tok.add_tokens(["extra_id_100"]) == 1
    assert tok.add_special_tokens(["<x>"]) == 1
    return tok


@pytest.mark.parametrize("flavor", FLAVORS)
def test_user_added_tokens_match_whole_in_every_flavor(backend_name, theirs, flavor):
    """add_tokens / add_special_tokens tokens are kept whole, as transformers keeps them."""
    ours = _ours(flavor)
    ours.encode_ids("warm up the word encoder")
    expected = [theirs(t)["input_ids"] for t in TEXTS]
    assert [ours.tokenize(t) for t in TEXTS] == [theirs.tokenize(t) for t in TEXTS]
    assert [ours.encode(t).ids for t in TEXTS] == expected
    assert [e.ids for e in ours.encode_batch(TEXTS)] == expected
    assert ours.encode_batch_ids(TEXTS) == expected
    assert ours(TEXTS)["input_ids"] == expected
    rows = ours(TEXTS, padding=True, return_tensors="np")["input_ids"].tolist()
    assert rows == theirs(TEXTS, padding=True)["input_ids"]
    assert ours.encode(TEXTS[0]).offsets == [tuple(o) for o in theirs(
        TEXTS[0], return_offsets_mapping=True)["offset_mapping"]]


@pytest.mark.parametrize("flavor", ("bert", "tensorflow"))
def test_reserved_tokens_typed_in_text_stay_split(backend_name, flavor):
    """[MASK] written in the text is split by BERT and TF Text, even after add_tokens."""
    ours = _ours(flavor)
    for tok in (ours, Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                                           flavor=flavor)):
        assert tok.tokenize("a [MASK] b") == ["a", "[", "mask", "]", "b"]
        assert tok.encode_batch_ids(["a [MASK] b"], add_special_tokens=False) == [
            [1037, 1031, 7308, 1033, 1038]]
    assert ours.tokenize("[MASK]extra_id_100") == ["[", "mask", "]", "extra_id_100"]


@pytest.mark.parametrize("flavor", ("bert", "tensorflow"))
def test_user_added_tokens_survive_pickle_and_save(tmp_path, flavor):
    """A pickled or saved-and-loaded tokenizer still keeps the added tokens whole."""
    from wordpieces.formats.load import load
    ours = _ours(flavor)
    ours.add_special_tokens(["[unused0]"])  # a vocabulary token: matched once the user adds it
    text = "x extra_id_100 [unused0] <x> [MASK]"
    expected = ["x", "extra_id_100", "[unused0]", "<x>", "[", "mask", "]"]
    assert ours.tokenize(text) == expected
    assert pickle.loads(pickle.dumps(ours)).tokenize(text) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the flavor's "HF reads it differently" note
        ours.save(tmp_path / "tok")
    loaded = load(tmp_path / "tok").tokenize(text)
    assert loaded[:2] == ["x", "extra_id_100"] and loaded[-4:] == ["<x>", "[", "mask", "]"]


def test_max_len_single_and_pair_as_transformers(theirs):
    """model_max_length minus the special tokens; setting another value is refused."""
    ours = _ours("huggingface")
    for limit in (512, 128):
        ours.model_max_length = theirs.model_max_length = limit
        assert ours.max_len_single_sentence == theirs.max_len_single_sentence == limit - 2
        assert ours.max_len_sentences_pair == theirs.max_len_sentences_pair == limit - 3
    ours.max_len_single_sentence = 126  # its own value: accepted, as transformers
    for tok in (ours, theirs):
        with pytest.raises(ValueError):
            tok.max_len_single_sentence = 3
        with pytest.raises(ValueError):
            tok.max_len_sentences_pair = 3
    ours.model_max_length = None  # no limit: transformers' huge number
    assert ours.max_len_single_sentence == int(1e30) - 2


@pytest.mark.parametrize("role", ["pad", "unk", "cls", "sep", "mask"])
def test_setting_a_token_id_sets_the_token(tmp_path, role):
    """tok.pad_token_id = 5 makes pad_token the token of id 5; None unsets it."""
    ours, theirs = bert_uncased_pair(tmp_path)
    for tok in (ours, theirs):
        setattr(tok, f"{role}_token_id", 5)
    assert getattr(ours, f"{role}_token") == getattr(theirs, f"{role}_token") == "[unused4]"
    assert getattr(ours, f"{role}_token_id") == getattr(theirs, f"{role}_token_id") == 5
    for tok in (ours, theirs):
        setattr(tok, f"{role}_token_id", None)
    assert getattr(ours, f"{role}_token") is getattr(theirs, f"{role}_token") is None
    with pytest.raises(ValueError, match=f"{role}_token_id: id 1000000000 is no token"):
        setattr(ours, f"{role}_token_id", 10**9)


def test_additional_special_tokens_as_transformers(tmp_path):
    """The special tokens without a role, listed as transformers lists them."""
    ours, theirs = bert_uncased_pair(tmp_path)
    assert ours.additional_special_tokens == theirs.extra_special_tokens == []
    ours.add_special_tokens(["<x>"])
    with quiet():
        theirs.add_special_tokens({"additional_special_tokens": ["<x>"]})
    assert ours.additional_special_tokens == theirs.extra_special_tokens == ["<x>"]
    assert ours.additional_special_tokens_ids == theirs.extra_special_tokens_ids == [30522]
    assert ours.all_special_tokens == theirs.all_special_tokens
    assert ours.all_special_ids == theirs.all_special_ids
    ours.additional_special_tokens = ["<y>"]
    theirs.add_special_tokens({"additional_special_tokens": ["<y>"]})
    assert ours.additional_special_tokens == theirs.extra_special_tokens == ["<y>"]
    assert ours.extra_special_tokens == ["<y>"]
    assert ours.tokenize("a<y>b") == theirs.tokenize("a<y>b")
    assert pickle.loads(pickle.dumps(ours)).additional_special_tokens == ["<y>"]


def test_added_vocab_and_decoder_as_transformers(theirs):
    """get_added_vocab, added_tokens_decoder and get_added_tokens_decoder: id order, same."""
    ours = _ours("huggingface")
    assert ours.get_added_vocab() == theirs.get_added_vocab()
    mine, reference = ours.added_tokens_decoder, theirs.added_tokens_decoder
    assert list(mine) == list(reference)
    for id_, token in reference.items():
        assert (mine[id_].content, mine[id_].special, mine[id_].normalized) == (
            token.content, token.special, token.normalized)
    assert ours.get_added_tokens_decoder() == mine
    hf_tok = theirs.backend_tokenizer
    assert list(ours.get_added_tokens_decoder()) == list(hf_tok.get_added_tokens_decoder())
