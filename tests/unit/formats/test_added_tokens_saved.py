"""Tokens a user adds survive a save and a load, as HF tokenizers and transformers read them.

``add_tokens`` / ``add_special_tokens`` tokens keep their ids, flags (special,
normalized, lstrip, rstrip, single_word) and their matching whole in the text through
``save`` + ``load``, ``save_pretrained`` + ``from_pretrained`` and ``Tokenizer.from_file``,
in every flavor. Before, the ``bert`` and ``tensorflow`` flavors forgot which tokens of
the vocabulary the user had added (``[MASK]`` added by hand was split again after a
load), and ``additional_special_tokens`` set by hand was not written to
``tokenizer_config.json`` (a load listed every special token instead). The live
``tokenizers.Tokenizer.from_file`` and ``transformers.PreTrainedTokenizerFast`` read the
saved folder with the same added tokens, ids and list.
"""

from __future__ import annotations

import json
import warnings

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats.load import load
from wordpieces.pipeline.added_tokens import AddedToken
from wordpieces.tokenizer import Tokenizer

FLAVORS = ("bert", "tensorflow", "huggingface")
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "foo", "bar", "!",
         "a", "b", "x", "extra", "_", "id", "1", "<", ">", "##x", "##y"]
TEXTS = ["hello extra_id_1 world", "a [MASK] b", "hello <x>  world <y>!", "foo bar",
         "x foo  foo", "xfoo barfoo", "a[MASK]b<x>b"]


def _user_tokenizer(flavor: str) -> Tokenizer:
    """A tokenizer with tokens added every way a user adds them, some in the vocabulary."""
    tok = Tokenizer.from_vocab(VOCAB, flavor=flavor)
    tok.add_tokens(["extra_id_1", AddedToken("foo", single_word=True, lstrip=True)])
    tok.add_special_tokens(["[MASK]", AddedToken("<x>", rstrip=True), "bar"])
    tok.additional_special_tokens = ["<x>", "<y>"]
    return tok


def _flags(tok) -> list[tuple]:
    return [(t.content, t.id, t.special, t.normalized, t.lstrip, t.rstrip, t.single_word)
            for t in tok.added_tokens]


def _encoded(tok: Tokenizer) -> list[tuple]:
    return [(e.ids, e.tokens, e.offsets) for e in map(tok.encode, TEXTS)]


def _save(tok: Tokenizer, folder, how: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bert/tensorflow flavors' HF-differences note
        tok.save_pretrained(folder) if how == "pretrained" else tok.save(folder)


def _reload(tok: Tokenizer, folder, how: str) -> Tokenizer:
    _save(tok, folder, how)
    if how == "pretrained":
        return Tokenizer.from_pretrained(folder)
    if how == "from_file":
        return Tokenizer.from_file(folder / "tokenizer.json")
    loaded = load(folder)
    assert isinstance(loaded, Tokenizer)
    return loaded


@pytest.mark.parametrize("how", ["load", "pretrained", "from_file"])
@pytest.mark.parametrize("flavor", FLAVORS)
def test_added_tokens_survive_save_and_load(tmp_path, flavor, how):
    """Same ids, flags, whole matches and additional_special_tokens after the round trip."""
    tok = _user_tokenizer(flavor)
    mask = tok.token_to_id("[MASK]")
    assert mask in tok.encode("a [MASK] b").ids  # added by hand: whole in every flavor
    loaded = _reload(tok, tmp_path / "saved", how)
    assert _flags(loaded) == _flags(tok)
    assert _encoded(loaded) == _encoded(tok)
    assert loaded.additional_special_tokens == tok.additional_special_tokens == ["<x>", "<y>"]
    assert loaded.special_tokens == tok.special_tokens
    assert loaded == tok
    again = _reload(loaded, tmp_path / "again", how)  # a second round keeps it all too
    assert _encoded(again) == _encoded(tok) and again == tok


@pytest.mark.parametrize("flavor", ["bert", "tensorflow"])
def test_reserved_tokens_not_added_by_hand_stay_split(tmp_path, flavor):
    """The vocabulary's own [MASK] typed in text is split (as BERT, TF Text) after a load too."""
    tok = Tokenizer.from_vocab(VOCAB, flavor=flavor)
    tok.add_tokens(["extra_id_1"])
    loaded = _reload(tok, tmp_path / "saved", "load")
    assert tok.token_to_id("[MASK]") not in loaded.encode("a [MASK] b").ids
    assert _encoded(loaded) == _encoded(tok)
    assert "user_added_tokens" not in json.loads((tmp_path / "saved" / "wordpieces.json")
                                                 .read_text(encoding="utf-8"))


@pytest.mark.parametrize("flavor", FLAVORS)
def test_hf_tokenizers_reads_the_same_added_tokens(tmp_path, flavor):
    """tokenizers.Tokenizer.from_file on the saved tokenizer.json: same tokens, ids, offsets."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = _user_tokenizer(flavor)
    _save(tok, tmp_path / "saved", "load")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "saved" / "tokenizer.json"))
    theirs = [(t.content, i, t.special, t.normalized, t.lstrip, t.rstrip, t.single_word)
              for i, t in sorted(hf.get_added_tokens_decoder().items())]
    assert theirs == sorted(_flags(tok), key=lambda row: row[1])
    for text in TEXTS:
        mine, reference = tok.encode(text), hf.encode(text)
        assert (mine.ids, mine.offsets) == (reference.ids, reference.offsets), text


@pytest.mark.parametrize("flavor", FLAVORS)
def test_transformers_reads_the_same_added_tokens(tmp_path, flavor):
    """PreTrainedTokenizerFast.from_pretrained on the saved folder: same list, vocab, ids."""
    transformers = pytest.importorskip("transformers")
    tok = _user_tokenizer(flavor)
    _save(tok, tmp_path / "saved", "pretrained")
    config = json.loads((tmp_path / "saved" / "tokenizer_config.json").read_text("utf-8"))
    assert config["additional_special_tokens"] == ["<x>", "<y>"]  # transformers 4's key
    hf = transformers.PreTrainedTokenizerFast.from_pretrained(str(tmp_path / "saved"))
    assert hf.extra_special_tokens == tok.additional_special_tokens
    assert hf.all_special_tokens == tok.all_special_tokens
    assert hf.get_added_vocab() == tok.get_added_vocab()
    assert hf(TEXTS)["input_ids"] == tok(TEXTS)["input_ids"]


@pytest.mark.parametrize("given,expected", [(None, ["<z>"]), ([], [])])
def test_additional_special_tokens_saved_as_listed(tmp_path, given, expected):
    """Not set: the special tokens without a role, written so transformers lists them
    too; set (even to []): exactly that list, after the load and in transformers."""
    transformers = pytest.importorskip("transformers")
    tok = Tokenizer.from_vocab(VOCAB, flavor="huggingface")
    tok.add_special_tokens(["<z>"])
    if given is not None:
        tok.additional_special_tokens = given
    assert tok.additional_special_tokens == expected
    _save(tok, tmp_path / "saved", "pretrained")
    assert Tokenizer.from_pretrained(tmp_path / "saved").additional_special_tokens == expected
    hf = transformers.PreTrainedTokenizerFast.from_pretrained(str(tmp_path / "saved"))
    assert hf.extra_special_tokens == expected


def test_a_user_added_token_that_is_no_added_token_is_refused(tmp_path):
    """wordpieces.json naming a token the tokenizer did not add: an error naming it."""
    _save(_user_tokenizer("bert"), tmp_path / "saved", "load")
    path = tmp_path / "saved" / "wordpieces.json"
    extras = json.loads(path.read_text(encoding="utf-8"))
    assert extras["user_added_tokens"] == ["[MASK]", "bar", "foo"]
    extras["user_added_tokens"] = ["[MASK]", "nowhere"]
    path.write_text(json.dumps(extras), encoding="utf-8")
    with pytest.raises(FormatError, match=r"user_added_tokens.*'nowhere'"):
        Tokenizer.from_file(tmp_path / "saved" / "tokenizer.json")
