"""tokenizer_config.json / special_tokens_map.json: the forms transformers writes are read,
and malformed files are errors naming the file and the field."""

from __future__ import annotations

import json

import pytest

from wordpieces.errors import FormatError
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer

TOY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "<pad>", "hello", "world"]


@pytest.fixture
def saved(tmp_path):
    """A saved toy tokenizer whose tokenizer_config.json a test then rewrites (by hand, so
    without the save's manifest, which would refuse files changed after the save)."""
    Tokenizer.from_vocab(TOY, flavor="huggingface").save(tmp_path / "tok")
    (tmp_path / "tok" / "wordpieces-manifest.json").unlink(missing_ok=True)
    return tmp_path / "tok"


def _write(directory, name: str, data) -> None:
    (directory / name).write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_roles_written_as_added_token_objects(saved):
    """transformers may write {"content": "<pad>", "__type": "AddedToken", ...} for a role."""
    _write(saved, "tokenizer_config.json",
           {"pad_token": {"__type": "AddedToken", "content": "<pad>", "lstrip": False}})
    (saved / "special_tokens_map.json").unlink()
    assert load(saved).pad_token == "<pad>"


def test_special_tokens_map_fills_missing_roles(saved):
    """Older saves keep the roles in special_tokens_map.json only; the config wins on both."""
    _write(saved, "tokenizer_config.json", {"cls_token": "[SEP]"})
    _write(saved, "special_tokens_map.json", {"cls_token": "[CLS]", "pad_token": "<pad>"})
    tok = load(saved)
    assert (tok.cls_token, tok.pad_token, tok.mask_token) == ("[SEP]", "<pad>", None)


def test_no_roles_anywhere_are_inferred(saved):
    """A config naming no role leaves the usual BERT roles found in the vocabulary."""
    _write(saved, "tokenizer_config.json", {"model_max_length": 8})
    (saved / "special_tokens_map.json").unlink()
    tok = load(saved)
    assert (tok.pad_token, tok.cls_token, tok.model_max_length) == ("[PAD]", "[CLS]", 8)


@pytest.mark.parametrize("value", [int(1e30), 1e30, 2**64, None])
def test_no_limit_values(saved, value):
    """transformers' "no limit" (int(1e30), as a float too) and null read as None."""
    _write(saved, "tokenizer_config.json", {"model_max_length": value})
    assert load(saved).model_max_length is None


@pytest.mark.parametrize("config,message", [
    ({"padding_side": "middle"}, r"tokenizer_config.json: padding_side: unsupported value "
                                 r"'middle'"),
    ({"model_max_length": "512"}, r"tokenizer_config.json: model_max_length: expected a "
                                  r"non-negative integer, got a string"),
    ({"pad_token": 5}, r"tokenizer_config.json: pad_token: expected a string"),
    ({"do_lower_case": "yes"}, None),  # only read for a slow-only save: ignored here
    ([], r"tokenizer_config.json: expected an object"),
])
def test_malformed_config_is_named(saved, config, message):
    _write(saved, "tokenizer_config.json", config)
    if message is None:
        load(saved)
        return
    with pytest.raises(FormatError, match=message):
        load(saved)


def test_slow_save_with_a_bad_option_is_named(tmp_path):
    """vocab.txt + tokenizer_config.json: a non-boolean do_lower_case names the field."""
    (tmp_path / "vocab.txt").write_text("".join(t + "\n" for t in TOY))
    _write(tmp_path, "tokenizer_config.json", {"do_lower_case": "yes"})
    with pytest.raises(FormatError, match=r"tokenizer_config.json: do_lower_case: expected a "
                                          r"boolean or null, got 'yes'"):
        load(tmp_path)


def test_saved_config_is_what_transformers_reads(saved):
    """The written config names the fast class (tokenizer.json as is) and the type ids."""
    config = json.loads((saved / "tokenizer_config.json").read_text())
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert config["model_input_names"] == ["input_ids", "token_type_ids", "attention_mask"]
    assert config["pad_token"] == "[PAD]" and "model_max_length" not in config
    assert json.loads((saved / "special_tokens_map.json").read_text()) == {
        "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": "[MASK]"}


def test_flavor_notes_name_a_special_token_the_vocabulary_has():
    """The note on literal special tokens names one the tokenizer has, or is left out."""
    from wordpieces.tokenizer import Tokenizer

    with_mask = Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"])
    assert any("'[MASK]'" in note for note in with_mask.hf_differences())
    only_cls = Tokenizer.from_vocab(["[UNK]", "[CLS]", "a"])
    notes = " ".join(only_cls.hf_differences())
    assert "'[CLS]'" in notes and "[MASK]" not in notes
    bare = " ".join(Tokenizer.from_vocab(["[UNK]", "a"]).hf_differences())
    assert "literal" not in bare and "Unicode tables" in bare
    assert len("; ".join(with_mask.hf_differences())) < 240  # one readable line


def test_a_json_save_path_warns_that_autotokenizer_needs_a_folder(tmp_path):
    """tok.save("x.json") writes the one file and says how transformers reads it."""
    import warnings

    from wordpieces.tokenizer import Tokenizer

    tok = Tokenizer.from_vocab(["[UNK]", "a"], flavor="huggingface")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tok.save(tmp_path / "tok.json")
    messages = [str(w.message) for w in caught]
    assert (tmp_path / "tok.json").is_file()
    assert any("PreTrainedTokenizerFast(tokenizer_file=" in m and "AutoTokenizer" in m
               for m in messages), messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tok.save(tmp_path / "folder")  # a folder: no such warning
