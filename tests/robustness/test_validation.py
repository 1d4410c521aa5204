"""Every value is validated where it enters, the same on both backends (issue 14, 4 and 6).

Each case was a silent difference between backends, a crash deep inside, or an error
without a file or field; each test asserts the fixed behaviour.
"""

from __future__ import annotations

import pytest

import wordpieces as wp
from tests.robustness.helpers import BACKENDS, VOCAB, tokenizer_json, use_backend, write_json
from wordpieces import Tokenizer
from wordpieces.errors import (
    MAX_PADDED_LENGTH,
    MAX_SEQUENCE_LENGTH,
    MAX_THREADS,
    MAX_WORD_LENGTH,
    FormatError,
    check_size,
)

# ---------------------------------------------------------------- word limits


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("limit", [-1, -(2**70)])
def test_negative_word_limit_is_refused_on_both_backends(kind, limit, monkeypatch):
    """Native gave 'hello world', Python '[UNK] [UNK]': now neither builds."""
    use_backend(kind, monkeypatch)
    with pytest.raises(ValueError, match=r"max_input_chars_per_word must be >= 0, got -"):
        Tokenizer.from_vocab(VOCAB, max_input_chars_per_word=limit)


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("limit", [2**63, 2**64 + 1, MAX_WORD_LENGTH + 1])
def test_word_limit_beyond_the_cap_is_refused_on_both_backends(kind, limit, monkeypatch):
    """2**63 crashed the native path only (OverflowError); the cap is documented."""
    use_backend(kind, monkeypatch)
    with pytest.raises(ValueError, match=r"max_input_chars_per_word must be <= 1,073,741,824"):
        Tokenizer.from_vocab(VOCAB, max_input_chars_per_word=limit)


@pytest.mark.parametrize("kind", BACKENDS)
def test_word_limit_at_the_cap_encodes_alike_on_both_backends(kind, monkeypatch):
    """The largest accepted limit is no limit, on both backends."""
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_vocab(VOCAB, max_input_chars_per_word=MAX_WORD_LENGTH)
    assert tok.encode("hello worlds").tokens == ["[CLS]", "hello", "world", "##s", "[SEP]"]


@pytest.mark.parametrize("value", [-1, 2**63, True])
def test_word_limit_in_tokenizer_json_names_file_and_field(tmp_path, value):
    """A bad limit in a file is refused at load, naming the file and model field."""
    data = tokenizer_json()
    data["model"]["max_input_chars_per_word"] = value
    path = write_json(tmp_path / "tokenizer.json", data)
    with pytest.raises(FormatError, match=r"tokenizer\.json: model.*max_input_chars_per_word"):
        wp.load(path)


def test_word_limit_refused_before_save_can_write_an_unloadable_file(tmp_path):
    """save() wrote a negative limit that load() then refused: it cannot exist now."""
    with pytest.raises(ValueError, match="max_input_chars_per_word"):
        Tokenizer.from_vocab(VOCAB, max_input_chars_per_word=-5).save(tmp_path / "t")
    assert not (tmp_path / "t").exists()


# ---------------------------------------------------------------- special-token ids


@pytest.mark.parametrize("bad_id", [9, 70000, 10**20])
def test_special_token_id_beyond_the_vocabulary_is_refused_at_load(tmp_path, bad_id):
    """An id no token has was emitted in ids and crashed tokens/npy: refused, field named."""
    data = tokenizer_json()
    data["post_processor"]["special_tokens"]["[CLS]"]["ids"] = [bad_id]
    path = write_json(tmp_path / "tokenizer.json", data)
    with pytest.raises(FormatError, match=rf"tokenizer\.json: post_processor\.special_tokens"
                                          rf".*ids.*: special-token id {bad_id} is not a token"):
        wp.load(path)


def test_bert_processing_id_beyond_the_vocabulary_is_refused_at_load(tmp_path):
    """The same check for BertProcessing's [token, id] pairs."""
    data = tokenizer_json()
    data["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 3],
                              "cls": ["[CLS]", 70000]}
    path = write_json(tmp_path / "tokenizer.json", data)
    with pytest.raises(FormatError, match=r"post_processor\.cls.*special-token id 70000"):
        wp.load(path)


def test_special_token_id_of_an_added_token_is_accepted(tmp_path):
    """An id past the vocabulary is fine when an added token has it (HF files do this)."""
    data = tokenizer_json()
    data["added_tokens"].append({"id": 9, "content": "<extra>", "single_word": False,
                                 "lstrip": False, "rstrip": False, "normalized": False,
                                 "special": True})
    data["post_processor"]["special_tokens"]["[CLS]"]["ids"] = [9]
    tok = wp.load(write_json(tmp_path / "tokenizer.json", data))
    assert tok.encode("hello").ids == [9, 5, 3]


# ---------------------------------------------------------------- threads


@pytest.mark.parametrize("kind", BACKENDS)
def test_too_many_threads_are_refused_on_both_backends(kind, monkeypatch):
    """num_threads=1025 was refused natively and accepted in Python."""
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_vocab(VOCAB)
    with pytest.raises(ValueError, match=rf"num_threads must be at most {MAX_THREADS}"):
        tok.encode_batch(["hello"], num_threads=MAX_THREADS + 1)
    with pytest.raises(ValueError, match=rf"num_threads must be at most {MAX_THREADS}"):
        tok.encode_batch_ids(["hello"], num_threads=MAX_THREADS + 1)


@pytest.mark.parametrize("kind", BACKENDS)
def test_the_thread_cap_itself_is_accepted_on_both_backends(kind, monkeypatch):
    """1024 threads is the documented maximum, valid everywhere."""
    use_backend(kind, monkeypatch)
    assert Tokenizer.from_vocab(VOCAB).encode_batch_ids(["hello"], num_threads=MAX_THREADS) \
        == [[2, 5, 3]]


# ---------------------------------------------------------------- batches


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("method", ["encode_batch", "encode_batch_ids"])
def test_a_str_given_as_a_batch_is_a_type_error(kind, method, monkeypatch):
    """encode_batch("hello") encoded five one-character texts; HF raises TypeError."""
    use_backend(kind, monkeypatch)
    tok = Tokenizer.from_vocab(VOCAB)
    with pytest.raises(TypeError, match=r"texts must be a list of texts.*not one str"):
        getattr(tok, method)("hello")


# ---------------------------------------------------------------- padding and truncation


@pytest.mark.parametrize("option", ["length", "pad_to_multiple_of"])
def test_padding_beyond_the_cap_is_refused_naming_the_option(option):
    """enable_padding(length=10**9) ended in a MemoryError with an empty message."""
    tok = Tokenizer.from_vocab(VOCAB)
    with pytest.raises(ValueError, match=rf"{option}.* must be <= {MAX_PADDED_LENGTH:,}"):
        tok.enable_padding(**{option: 10**9})


def test_pad_to_multiple_of_in_tokenizer_json_is_refused_at_load(tmp_path):
    """"pad_to_multiple_of": 100000000 took 19 s and 10 GB per encode: refused at load."""
    data = tokenizer_json()
    data["padding"] = {"strategy": "BatchLongest", "direction": "Right",
                       "pad_to_multiple_of": 100_000_000, "pad_id": 0, "pad_type_id": 0,
                       "pad_token": "[PAD]"}
    path = write_json(tmp_path / "tokenizer.json", data)
    with pytest.raises(FormatError, match=r"tokenizer\.json: padding\.pad_to_multiple_of: "
                                          r"pad_to_multiple_of 100000000 is larger than"):
        wp.load(path)


def test_padding_at_the_cap_is_accepted():
    """The cap itself is a valid padding length."""
    tok = Tokenizer.from_vocab(VOCAB)
    tok.enable_padding(pad_to_multiple_of=MAX_PADDED_LENGTH)
    assert tok.padding["pad_to_multiple_of"] == MAX_PADDED_LENGTH


@pytest.mark.parametrize("option", ["max_length", "stride"])
def test_truncation_beyond_the_cap_is_refused_naming_the_option(option):
    """max_length and stride have a documented cap too."""
    tok = Tokenizer.from_vocab(VOCAB)
    values = {"max_length": MAX_SEQUENCE_LENGTH, "stride": 0}
    values[option] = MAX_SEQUENCE_LENGTH + 1
    with pytest.raises(ValueError, match=rf"truncation {option} must be <= "):
        tok.enable_truncation(values.pop("max_length"), **values)


def test_truncation_beyond_the_cap_in_tokenizer_json_names_the_file(tmp_path):
    """The cap is checked where the file enters, naming it."""
    data = tokenizer_json()
    data["truncation"] = {"direction": "Right", "max_length": 2**40, "strategy": "LongestFirst",
                          "stride": 0}
    path = write_json(tmp_path / "tokenizer.json", data)
    with pytest.raises(FormatError, match=r"tokenizer\.json: truncation: truncation max_length"):
        wp.load(path)


# ---------------------------------------------------------------- the shared checker


@pytest.mark.parametrize("value, message", [
    (True, "must be an integer, got True"), (2.0, "must be an integer, got 2.0"),
    (-1, "must be >= 0, got -1"), (11, r"must be <= 10 \(the documented cap\), got 11"),
    (10**5000, "must be <= 10 .*got an integer of about 500[01] digits")],
    ids=["bool", "float", "negative", "over", "5000-digits"])
def test_check_size_names_field_and_value(value, message):
    """One checker, one wording; a 5000-digit value is not echoed whole."""
    with pytest.raises(ValueError, match=f"^width {message}$"):
        check_size(value, field="width", cap=10)


def test_too_many_counting_processes_are_refused_with_the_same_rule():
    """num_proc goes through the same checker and cap as num_threads."""
    from wordpieces.learn.counting import count_words

    with pytest.raises(ValueError, match=rf"num_proc must be at most {MAX_THREADS}"):
        count_words(iter(["a b"]), num_proc=MAX_THREADS + 1)


@pytest.mark.parametrize("bad_id", [70000, 10**20])
def test_a_python_built_processor_with_an_unknown_special_id_is_refused(bad_id):
    """Set on a tokenizer or given to it, a processor naming a non-token id is refused."""
    tok = wp.Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hi"],
                                  flavor="huggingface")
    bad = wp.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", bad_id), ("[SEP]", 3)])
    with pytest.raises(wp.errors.VocabError, match=rf"'\[CLS\]' has id {bad_id}, not a token"):
        tok.post_processor = bad
    bert = wp.processors.BertProcessing(("[SEP]", 3), ("[CLS]", bad_id))
    with pytest.raises(wp.errors.VocabError, match="not a token of this tokenizer"):
        wp.Tokenizer(tok.model, post_processor=bert)
    assert tok.encode("hi").ids == [2, 4, 3]  # the old processor stays
