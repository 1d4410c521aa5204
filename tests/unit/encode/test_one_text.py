"""The one-text lane (``engine.run`` for one text, compiled once per pipeline and settings).

Each answer is checked against the batch path, which the differential tests check
against transformers; each cache the lane keeps (compiled calls, resolved options, the
call's defaults) is checked to follow every change a user can make between two calls.
"""

from __future__ import annotations

import pytest

from tests.hf_reference import sample_lines
from tests.shared_data import shared_path
from wordpieces.fast.backend import backend
from wordpieces.processors import BertProcessing
from wordpieces.tokenizer import Tokenizer

pytestmark = pytest.mark.shared_data


@pytest.fixture
def tok():
    return Tokenizer.from_vocab(str(shared_path("vocab", "bert-base-uncased.vocab.txt")),
                                flavor="huggingface")


@pytest.fixture
def lines():
    return sample_lines("english", 200)


def test_one_text_equals_the_batch_path(tok, lines):
    texts = [*lines, "a [MASK] in the text", "[CLS] at the start", "", "  "]
    for text in texts:
        assert tok.encode_ids(text) == tok.encode_batch_ids([text, "x"])[0]
        got, batch = tok(text), tok([text, "x"])
        assert got["input_ids"] == batch["input_ids"][0]
        assert got["attention_mask"] == batch["attention_mask"][0]
        assert got.tokens() == batch.tokens(0)
        assert got.encodings[0].offsets == batch.encodings[0].offsets
        cut = tok(text, truncation=True, max_length=6, return_offsets_mapping=True)
        both = tok([text, "x"], truncation=True, max_length=6, return_offsets_mapping=True)
        assert cut["input_ids"] == both["input_ids"][0]
        assert cut["offset_mapping"] == both["offset_mapping"][0]


def test_a_processor_option_set_between_calls_is_seen(tok):
    tok.post_processor = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    assert tok.encode_ids("hello")[-1] == 102
    tok.post_processor.sep = ("[MASK]", 103)
    assert tok.encode_ids("hello")[-1] == 103
    assert tok("hello")["input_ids"][-1] == 103


def test_added_tokens_and_settings_set_between_calls_are_seen(tok):
    text = "hello wordpiecesword"
    before = tok(text)["input_ids"]
    tok.add_tokens(["wordpiecesword"])
    after = tok(text)["input_ids"]
    assert len(after) < len(before) and after[-2] == tok.token_to_id("wordpiecesword")
    assert tok.encode_ids(text) == after
    tok.model_max_length = 3
    assert tok(text, truncation=True)["input_ids"] == [101, after[1], 102]
    tok.model_max_length = 4
    assert len(tok(text, truncation=True)["input_ids"]) == 4
    tok.truncation_side = "left"
    assert tok(text, truncation=True, max_length=3)["input_ids"] == [101, after[-2], 102]


def test_a_remembered_call_still_checks_its_option_types(tok):
    assert len(tok("hello world", max_length=3)["input_ids"]) == 3
    with pytest.raises(ValueError, match="max_length"):
        tok("hello world", max_length=3.0)
    with pytest.raises(ValueError, match="padding"):
        tok("hello world", padding=[1])  # unhashable: resolved, and refused, every time


def test_the_lane_runs_native_and_leaves_what_it_cannot_to_the_batch_path(tok):
    if not backend().startswith("native"):
        pytest.skip("needs the native extension")
    calls = tok.pipeline.sequences.one_text_calls
    calls.clear()
    tok.encode_ids("hello")
    (stamp, call), = calls.values()
    assert call is not None and call("hello") == [[101, 7592, 102]]
    assert call("a [MASK] here") is None  # a literal added token: the batch path's
    assert tok.encode_ids("a [MASK] here") == [101, 1037, 103, 2182, 102]


# tok(text, **options)'s compiled call (call.one_text_lane), each against the batch path
LANE_OPTIONS = [{}, {"truncation": True, "max_length": 7}, {"add_special_tokens": False},
                {"return_attention_mask": False, "return_token_type_ids": False},
                {"return_special_tokens_mask": True, "return_offsets_mapping": True},
                {"truncation": "only_first", "max_length": 5, "truncation_side": "left"}]


@pytest.mark.parametrize("options", LANE_OPTIONS, ids=map(str, LANE_OPTIONS))
def test_the_call_lane_equals_the_batch_path(tok, lines, options):
    for text in [*lines[:60], "a [MASK] here", "", "x"]:
        got, batch = tok(text, **options), tok([text, "x"], **options)
        assert dict(got) == {key: rows[0] for key, rows in batch.items()}
        assert got.tokens() == batch.tokens(0)
        assert got.encodings[0].word_ids == batch.encodings[0].word_ids
        assert got.word_ids() == batch.word_ids(0)


def test_the_call_lane_follows_a_stage_option_set_between_calls(tok):
    assert tok("Hello")["input_ids"] == [101, 7592, 102]
    tok.normalizer.lowercase = False
    assert tok("Hello")["input_ids"] == tok(["Hello"])["input_ids"][0] == [101, 100, 102]


def test_the_call_lane_follows_padding_and_the_pad_token(tok):
    assert tok("hi", padding="max_length", max_length=4)["input_ids"] == [101, 7632, 102, 0]
    tok.pad_token = "[MASK]"
    assert tok("hi", padding="max_length", max_length=4)["input_ids"] == [101, 7632, 102, 103]
    tok.model_max_length = 3
    assert tok("hi there", truncation=True)["input_ids"] == [101, 7632, 102]
    tok.model_max_length = 4
    assert tok("hi there", truncation=True)["input_ids"] == [101, 7632, 2045, 102]


def test_a_processor_without_options_stamp_takes_the_general_call(tok):
    class Plain:  # the PostProcessor protocol alone: no plan, no options_stamp
        def process(self, encoding, pair=None, add_special_tokens=True):
            return encoding

        def added_tokens(self, is_pair):
            return 0

        def to_config(self):
            return {}

    tok.post_processor = Plain()
    assert tok("hello world")["input_ids"] == [7592, 2088]


def test_a_tokenizer_pickled_after_its_calls_still_calls(tok):
    import pickle

    tok("hello", truncation=True, max_length=3)
    again = pickle.loads(pickle.dumps(tok))
    assert again("hello world", truncation=True, max_length=3)["input_ids"] == [101, 7592, 102]
    again.add_tokens(["helloworld"])
    assert again("helloworld")["input_ids"] == [101, again.token_to_id("helloworld"), 102]
    assert tok("helloworld")["input_ids"] != again("helloworld")["input_ids"]
