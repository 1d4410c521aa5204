"""Tokenizer: construction, the user-facing calls, invariants (hypothesis) and errors."""

from __future__ import annotations

import itertools
import os
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hf_reference import sample_lines
from tests.shared_data import shared_path
from wordpieces.encoding.padding import PaddingParams, TruncationParams
from wordpieces.errors import TokenizeError, VocabError
from wordpieces.pipeline.models import WordLevel
from wordpieces.pipeline.pre_tokenizers import WhitespaceSplit
from wordpieces.tokenizer import Tokenizer

TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "!", "tens", "##or",
        "##f", "##low", "un", "##aff", "##able", ","]
TUTORIAL = ["[PAD]", "[UNK]", "[START]", "[END]", "hello", "tens", "##or", "##f", "##low", "!"]


@pytest.fixture(scope="module")
def uncased():
    return Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"))


@pytest.fixture(scope="module")
def hf_uncased():
    return Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                                flavor="huggingface")


# ---------------------------------------------------------------- construction


def test_from_vocab_accepts_path_list_dict_and_vocab(tmp_path):
    """A vocab.txt path, a list, a dict and a Vocab build the same tokenizer."""
    from wordpieces.vocab import Vocab
    path = tmp_path / "vocab.txt"
    path.write_text("".join(t + "\n" for t in TINY), encoding="utf-8")
    sources = [str(path), path, TINY, {t: i for i, t in enumerate(TINY)}, Vocab(TINY)]
    ids = {tuple(Tokenizer.from_vocab(s).encode_ids("Hello world!")) for s in sources}
    assert ids == {(2, 5, 6, 7, 3)}


def test_default_template_is_cls_sep():
    """With [CLS]/[SEP] in the vocab the template is [CLS] $A [SEP] (pair: $B:1 [SEP]:1)."""
    enc = Tokenizer.from_vocab(TINY).encode("hello", "world")
    assert enc.tokens == ["[CLS]", "hello", "[SEP]", "world", "[SEP]"]
    assert enc.type_ids == [0, 0, 0, 1, 1]


def test_start_end_template_is_detected_and_expressible():
    """The TF tutorial's [START] $A [END] is the default for its vocab, and can be asked for."""
    auto = Tokenizer.from_vocab(TUTORIAL)
    explicit = Tokenizer.from_vocab(TINY + ["[START]", "[END]"], template="[START] $A [END]")
    assert auto.encode("hello").tokens == ["[START]", "hello", "[END]"]
    assert explicit.encode("hello", "world").tokens == [
        "[START]", "hello", "[END]", "world", "[END]"]


def test_template_none_adds_nothing():
    """template=None builds a tokenizer without a post-processor."""
    assert Tokenizer.from_vocab(TINY, template=None).encode("hello").tokens == ["hello"]


def test_template_token_missing_from_vocab_is_an_error():
    """A template naming a token the vocab lacks fails at construction, naming it."""
    with pytest.raises(VocabError, match=r"\[BOS\]"):
        Tokenizer.from_vocab(TINY, template="[BOS] $A")


def test_missing_unk_token_is_an_error():
    """A vocab without the unknown token is refused."""
    with pytest.raises(VocabError, match="unknown token"):
        Tokenizer.from_vocab(["[CLS]", "[SEP]", "a"])


@pytest.mark.shared_data
def test_reserved_tokens_default_to_bracketed_specials(uncased):
    """reserved_tokens are the vocab's [UPPER] tokens ([unused0] is not one)."""
    assert uncased.reserved_tokens == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    assert Tokenizer.from_vocab(TUTORIAL).get_reserved_tokens() == [
        "[PAD]", "[UNK]", "[START]", "[END]"]


def test_flavor_word_limits():
    """max_input_chars_per_word defaults to the flavor's limit (bert 200, HF 100)."""
    vocab = TINY + ["a", "##a"]
    word = "a" * 150
    assert Tokenizer.from_vocab(vocab).tokenize(word) == ["a"] + ["##a"] * 149
    assert Tokenizer.from_vocab(vocab, flavor="huggingface").tokenize(word) == ["[UNK]"]
    assert Tokenizer.from_vocab(vocab, max_input_chars_per_word=3).tokenize("aaaa") == ["[UNK]"]


def test_literal_specials_kept_whole_only_for_huggingface():
    """'[MASK]' in the text is one token for the huggingface flavor, split for bert."""
    hf = Tokenizer.from_vocab(TINY + ["[", "]", "mask", "cl", "##s"], flavor="huggingface")
    bert = Tokenizer.from_vocab(TINY + ["[", "]", "mask", "cl", "##s"], flavor="bert")
    assert hf.tokenize("hello [MASK]!") == ["hello", "[MASK]", "!"]
    assert bert.tokenize("hello [MASK]!") == ["hello", "[", "mask", "]", "!"]


GOLDEN_FILES = ["english_wikitext", "portuguese", "chinese", "udhr_mix", "emoji"]


def _golden_rows(folder: str, name: str, n: int = 300) -> list[dict]:
    import json
    with open(shared_path("golden", folder, f"{name}.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f][:n]


@pytest.mark.shared_data
@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_bert_flavor_gives_google_bert_ids(name):
    """from_vocab(flavor="bert") gives google-research/bert's ids (golden files)."""
    vocab = {"uncased": ("bert-base-uncased.vocab.txt", True),
             "cased": ("bert-base-cased.vocab.txt", False),
             "multilingual_cased": ("bert-base-multilingual-cased.vocab.txt", False)}
    rows = _golden_rows("tokenize_bert", name)
    for key, (file, lowercase) in vocab.items():
        tok = Tokenizer.from_vocab(shared_path("vocab", file), lowercase=lowercase,
                                   template=None)
        assert tok.encode_batch_ids([r["text"] for r in rows]) == [r[key] for r in rows]


@pytest.mark.shared_data
@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_tensorflow_flavor_gives_tf_text_ids(name):
    """from_vocab(flavor="tensorflow") gives TF Text BertTokenizer's ids (golden files)."""
    rows = _golden_rows("tokenize", name)
    tok = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                               flavor="tensorflow", template=None)
    assert [tok.encode_ids(r["text"]) for r in rows] == [r["tf_bert_tokenizer"] for r in rows]


# ---------------------------------------------------------------- calls


def test_detokenize_tutorial_example():
    """[START] hello tens ##or ##f ##low ! [END] detokenizes to 'hello tensorflow !'."""
    tok = Tokenizer.from_vocab(TUTORIAL)
    ids = [tok.token_to_id(t) for t in "[START] hello tens ##or ##f ##low ! [END]".split()]
    assert tok.detokenize(ids) == "hello tensorflow !"
    assert tok.detokenize([tok.token_to_id("[UNK]"), 4]) == "[UNK] hello"


def test_lookup_and_vocab_accessors():
    """lookup/token_to_id/id_to_token/get_vocab agree; unknown ids are reported."""
    tok = Tokenizer.from_vocab(TINY)
    assert tok.lookup([5, 6]) == ["hello", "world"]
    assert tok.token_to_id("world") == 6 and tok.id_to_token(6) == "world"
    assert tok.token_to_id("nope") is None and tok.id_to_token(999) is None
    assert tok.get_vocab()["##or"] == 9 and tok.vocab_size == tok.get_vocab_size() == len(TINY)
    with pytest.raises(TokenizeError, match="999"):
        tok.lookup([5, 999])


def test_tokenize_ignores_truncation_and_specials():
    """tokenize gives the model tokens only, whatever the truncation setting."""
    tok = Tokenizer.from_vocab(TINY)
    tok.enable_truncation(3)
    assert tok.tokenize("unaffable hello world") == ["un", "##aff", "##able", "hello", "world"]


def test_offsets_point_into_the_original_text():
    """Offsets slice the un-normalized source of each token; specials get (0, 0)."""
    text = "Ünaffable  WORLD!"
    enc = Tokenizer.from_vocab(TINY).encode(text)
    assert enc.tokens == ["[CLS]", "un", "##aff", "##able", "world", "!", "[SEP]"]
    assert [text[s:e] for s, e in enc.offsets] == ["", "Ün", "aff", "able", "WORLD", "!", ""]
    assert enc.offsets[0] == enc.offsets[-1] == (0, 0)


def test_padding_and_truncation_properties_round_trip():
    """enable_*/no_* set and clear the settings reported as HF dicts."""
    tok = Tokenizer.from_vocab(TINY)
    tok.enable_padding(length=8, pad_to_multiple_of=4)
    tok.enable_truncation(6, stride=1, strategy="only_first", direction="left")
    assert tok.padding == {"length": 8, "pad_to_multiple_of": 4, "pad_id": 0,
                           "pad_token": "[PAD]", "pad_type_id": 0, "direction": "right"}
    assert tok.truncation == {"max_length": 6, "stride": 1, "strategy": "only_first",
                              "direction": "left"}
    tok.no_padding()
    tok.no_truncation()
    assert tok.padding is None and tok.truncation is None


def test_constructor_takes_truncation_and_padding_as_given():
    """Tokenizer(..., truncation=, padding=) applies them and shows them as *_params."""
    base = Tokenizer.from_vocab(TINY)
    truncation, padding = TruncationParams(4), PaddingParams(length=6)
    tok = Tokenizer(base.model, normalizer=base.normalizer, pre_tokenizer=base.pre_tokenizer,
                    post_processor=base.post_processor, truncation=truncation, padding=padding)
    assert tok.truncation_params is truncation and tok.padding_params is padding
    assert tok.encode("hello world hello world").tokens == [
        "[CLS]", "hello", "world", "[SEP]", "[PAD]", "[PAD]"]


def test_encode_batch_with_uses_its_settings_and_leaves_the_tokenizers():
    """encode_batch_with applies the given settings; the tokenizer's own stay as they were."""
    tok = Tokenizer.from_vocab(TINY)
    tok.enable_padding(length=10)
    out = tok.encode_batch_with(["hello world !"], truncation=TruncationParams(3),
                                padding=None)
    assert out[0].tokens == ["[CLS]", "hello", "[SEP]"]
    assert tok.truncation_params is None and tok.padding_params == PaddingParams(length=10)
    assert len(tok.encode("hello")) == 10


def test_parts_round_trip():
    """from_parts(to_parts()) writes, names and encodes as the original does."""
    tok = Tokenizer.from_vocab(TINY, flavor="huggingface", reserved_tokens=["[PAD]"])
    tok.enable_truncation(8)
    tok.enable_padding(pad_to_multiple_of=4)
    tok.add_tokens(["newtok"])
    back = Tokenizer.from_parts(tok.to_parts())
    assert back.to_str() == tok.to_str()
    assert (back.flavor, back.reserved_tokens) == ("huggingface", ["[PAD]"])
    assert back.encode("hello newtok world!") == tok.encode("hello newtok world!")


def test_bad_settings_are_reported():
    """Unknown strategies and a stride too large for max_length are refused."""
    tok = Tokenizer.from_vocab(TINY)
    with pytest.raises(ValueError, match="strategy"):
        tok.enable_truncation(8, strategy="shortest")
    with pytest.raises(ValueError, match="stride"):
        tok.enable_truncation(4, stride=3)
    with pytest.raises(ValueError, match="direction"):
        tok.enable_padding(direction="up")


def test_only_second_without_pair_is_a_clear_error():
    """Truncating 'only_second' on a single text raises TokenizeError, not a panic."""
    tok = Tokenizer.from_vocab(TINY)
    tok.enable_truncation(4, strategy="only_second")
    with pytest.raises(TokenizeError, match="pair"):
        tok.encode("hello world hello world")


def test_encode_rejects_non_strings():
    """Encoding bytes or None is a TypeError naming the type."""
    tok = Tokenizer.from_vocab(TINY)
    with pytest.raises(TypeError, match="bytes"):
        tok.encode(b"hello")
    with pytest.raises(TypeError, match="batch item"):
        tok.encode_batch([("a", "b", "c")])


def test_add_tokens_extends_the_vocabulary():
    """add_tokens gives new ids after the vocab and matches them in (normalized) text."""
    tok = Tokenizer.from_vocab(TINY, flavor="huggingface")
    assert tok.add_tokens(["newtok", "hello"]) == 1
    assert tok.token_to_id("newtok") == len(TINY) and tok.vocab_size == len(TINY) + 1
    assert tok.tokenize("NEWTOKhello") == ["newtok", "hello"]


def test_word_level_model_with_whitespace_split():
    """A WordLevel model works without a normalizer (the whole pipeline is optional)."""
    tok = Tokenizer(WordLevel(["<unk>", "a", "b"], unk_token="<unk>"),
                    pre_tokenizer=WhitespaceSplit())
    enc = tok.encode("a  b c")
    assert enc.ids == [1, 2, 0] and enc.offsets == [(0, 1), (3, 4), (5, 6)]


@pytest.mark.shared_data
def test_pickle_is_small_and_faithful(uncased):
    """A pickle holds config + vocab list (no caches) and encodes identically."""
    uncased.encode_batch(sample_lines("english", 200))  # fill the caches
    data = pickle.dumps(uncased)
    assert len(data) < 400_000
    clone = pickle.loads(data)
    line = sample_lines("english", 1)[0]
    assert clone.encode(line) == uncased.encode(line) and clone.flavor == "bert"


def test_pickle_keeps_the_transformers_settings():
    """model_max_length, sides and special-token roles survive a pickle (datasets.map)."""
    tok = Tokenizer.from_vocab(TINY, flavor="huggingface")
    tok.model_max_length, tok.padding_side, tok.pad_token = 9, "left", "[SEP]"
    clone = pickle.loads(pickle.dumps(tok))
    assert (clone.model_max_length, clone.padding_side, clone.pad_token) == (9, "left", "[SEP]")
    assert clone == tok and pickle.dumps(clone) == pickle.dumps(tok)


def test_pickle_bytes_do_not_depend_on_the_hash_seed():
    """The same tokenizer pickles to the same bytes in any process (datasets' fingerprint)."""
    import hashlib
    import subprocess
    import sys

    code = ("import hashlib, pickle; from wordpieces.tokenizer import Tokenizer; "
            f"t = Tokenizer.from_vocab({TINY!r}, flavor='huggingface'); "
            "t.model_max_length, t.padding_side = 9, 'left'; "
            "print(hashlib.sha256(pickle.dumps(t)).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2", "3")}
    tok = Tokenizer.from_vocab(TINY, flavor="huggingface")
    tok.model_max_length, tok.padding_side = 9, "left"
    assert digests == {hashlib.sha256(pickle.dumps(tok)).hexdigest() + "\n"}


def test_transformers_settings_are_checked():
    """A bad side, length or special-token role is a ValueError naming it."""
    tok = Tokenizer.from_vocab(TINY, flavor="huggingface")
    with pytest.raises(ValueError, match="padding_side must be 'right' or 'left'"):
        tok.padding_side = "middle"
    with pytest.raises(ValueError, match="model_max_length must be None or an integer"):
        tok.model_max_length = -1
    with pytest.raises(TypeError, match="pad_token must be a str or None"):
        tok.pad_token = 3


def test_no_pad_token_is_a_clear_error():
    """padding=True without a pad token says how to set one (transformers raises too)."""
    tok = Tokenizer.from_vocab(["[UNK]", "a", "b"], flavor="huggingface")
    assert tok.pad_token is None
    with pytest.raises(ValueError, match="no pad token; set tok.pad_token"):
        tok(["a", "a b"], padding=True)
    tok.pad_token = "b"
    assert tok(["a", "a b"], padding=True)["input_ids"] == [[1, 2], [1, 2]]


# ---------------------------------------------------------------- properties

_words = st.sampled_from(["hello", "world", "Ünaffable", "naïve", "tensorflow", "[MASK]", "!",
                          ",", "東京", "ＡＢＣ", "don't", "x" * 120, "\u200b", "\t", "  "])
_texts = st.lists(st.one_of(_words, st.text(max_size=8)), max_size=12).map(" ".join)


@pytest.mark.shared_data
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts)
def test_offsets_slice_to_the_token_surface(hf_uncased, text):
    """Normalizing text[start:end] gives the surface (minus ##) of the tokens at that span.

    Tokens that share one span (a Hangul syllable splits into its jamo, each with the
    syllable's offsets, as in HF) are joined first; special tokens (a literal ``[SEP]`` in
    the text is kept whole, not normalized) have no surface to compare.
    """
    enc = hf_uncased.encode(text, add_special_tokens=False)
    norm = hf_uncased.normalizer.normalize_str
    whole = set(hf_uncased.all_special_tokens)  # [UNK], and literal [SEP]… kept unnormalized
    spans = itertools.groupby(zip(enc.tokens, enc.offsets, strict=True), key=lambda t: t[1])
    for (s, e), group in spans:
        tokens = [token for token, _ in group]
        if whole.intersection(tokens):
            continue
        assert norm(text[s:e]).strip() == "".join(t.removeprefix("##") for t in tokens)


@pytest.mark.shared_data
def test_tokens_sharing_a_span_join_to_its_surface(hf_uncased):
    """A Hangul syllable becomes jamo tokens with the syllable's offsets (HF does the same)."""
    enc = hf_uncased.encode("귤", add_special_tokens=False)
    assert enc.tokens == ["ᄀ", "##ᅲ", "##ᆯ"]
    assert enc.offsets == [(0, 1)] * 3


@pytest.mark.shared_data
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_texts, max_size=8), threads=st.integers(1, 4))
def test_batch_equals_single(hf_uncased, texts, threads):
    """encode_batch (any thread count) equals encoding each text alone."""
    items = [(t, texts[i - 1]) if i % 2 else t for i, t in enumerate(texts)]
    batch = hf_uncased.encode_batch(items, num_threads=threads)
    assert batch == [hf_uncased.encode(*([i] if isinstance(i, str) else i)) for i in items]


_limits = st.tuples(st.integers(4, 24), st.integers(0, 1), st.sampled_from(
    ["longest_first", "only_first"]), st.sampled_from(["right", "left"]))


@pytest.fixture(scope="module")
def hf_uncased_limited():
    return Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                                flavor="huggingface")


@pytest.mark.shared_data
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_texts, min_size=1, max_size=6), limits=_limits,
       pad=st.sampled_from([None, 5, 16]))
def test_ids_fast_path_equals_full_encoding(hf_uncased_limited, texts, limits, pad):
    """encode_ids / encode_batch_ids equal the ids of encode / encode_batch."""
    tok = hf_uncased_limited
    max_length, stride, strategy, direction = limits
    tok.enable_truncation(max_length, stride=stride, strategy=strategy, direction=direction)
    tok.enable_padding(pad_to_multiple_of=pad)
    items = [(t, texts[i - 1]) if i % 2 else t for i, t in enumerate(texts)]
    try:
        full = [e.ids for e in tok.encode_batch(items)]
    except TokenizeError:
        with pytest.raises(TokenizeError):
            tok.encode_batch_ids(items)
        return
    assert tok.encode_batch_ids(items) == full
    assert [tok.encode_ids(t) for t in texts] == [tok.encode(t).ids for t in texts]
