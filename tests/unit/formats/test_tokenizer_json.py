"""tokenizer.json / wordpieces.json: HF-exact writing, loading in HF, strict reading."""

from __future__ import annotations

import copy
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hf_reference import MINILM, fields, hf, mismatches, sample_lines
from tests.shared_data import shared_path
from wordpieces.errors import FormatError
from wordpieces.formats.load import load
from wordpieces.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def minilm_json() -> dict:
    return json.loads(shared_path(*MINILM).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def uncased_hf_flavor():
    tok = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                               flavor="huggingface")
    tok.enable_truncation(64, stride=4, strategy="only_first", direction="left")
    tok.enable_padding(pad_to_multiple_of=8, direction="left")
    return tok


@pytest.mark.shared_data
def test_written_json_equals_hf_written_json(uncased_hf_flavor):
    """to_str gives exactly the document HF writes for the same tokenizer."""
    path = str(shared_path(*MINILM))
    ours = json.loads(Tokenizer.from_file(path).to_str())
    assert ours == json.loads(hf.Tokenizer.from_file(path).to_str())
    mine = json.loads(uncased_hf_flavor.to_str())
    assert mine == json.loads(hf.Tokenizer.from_str(uncased_hf_flavor.to_str()).to_str())


@pytest.mark.shared_data
def test_saved_tokenizer_loads_in_hf_with_same_encodings(tmp_path, uncased_hf_flavor):
    """tok.save(dir): HF's Tokenizer.from_file(dir/tokenizer.json) encodes identically."""
    uncased_hf_flavor.save(tmp_path / "tok")
    assert {"tokenizer.json", "vocab.txt", "wordpieces.json", "tokenizer_config.json",
            "special_tokens_map.json"} <= set(os.listdir(tmp_path / "tok"))
    theirs = hf.Tokenizer.from_file(str(tmp_path / "tok" / "tokenizer.json"))
    lines = sample_lines("english", 60) + sample_lines("udhr", 60)
    assert mismatches(uncased_hf_flavor, theirs, lines) == []


@pytest.mark.shared_data
def test_bert_flavor_saved_tokenizer_gives_hf_the_same_ids_on_english(tmp_path):
    """A bert-flavor tokenizer also loads in HF (same ids on ordinary text)."""
    tok = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"))
    tok.save(tmp_path)
    theirs = hf.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for line in sample_lines("english", 80):
        assert tok.encode(line).ids == theirs.encode(line).ids


@pytest.mark.shared_data
def test_round_trip_keeps_flavor_settings_and_reserved_tokens(tmp_path):
    """wordpieces.json brings back the flavor, byte limit and reserved tokens."""
    tok = Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt"),
                               flavor="tensorflow", reserved_tokens=["[PAD]", "[UNK]"])
    tok.enable_padding(length=16)
    tok.save(tmp_path)
    back = load(tmp_path)
    assert (back.flavor, back.reserved_tokens, back.padding) == (
        "tensorflow", ["[PAD]", "[UNK]"], tok.padding)
    assert back.model.max_input_bytes_per_word == 100
    assert back.get_vocab_path() == str(tmp_path / "vocab.txt")
    for line in sample_lines("portuguese", 40):
        assert fields(back.encode(line)) == fields(tok.encode(line))


@pytest.mark.shared_data
def test_tokenizer_json_alone_loads_as_huggingface_flavor(tmp_path):
    """Without wordpieces.json beside it, tokenizer.json means the huggingface flavor."""
    Tokenizer.from_vocab(shared_path("vocab", "bert-base-uncased.vocab.txt")).save(
        tmp_path / "t.json")
    assert Tokenizer.from_file(tmp_path / "t.json").flavor == "huggingface"
    assert load(tmp_path / "t.json").vocab_size == 30522


def test_load_reports_missing_things(tmp_path):
    """A missing path or a directory without a tokenizer is reported by name."""
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        load(tmp_path / "nothing-here")
    with pytest.raises(FormatError, match="no tokenizer.json"):
        load(tmp_path)


@pytest.mark.shared_data
def test_save_is_atomic(tmp_path, monkeypatch, uncased_hf_flavor):
    """A save that fails midway leaves the previous files whole and no temp files."""
    uncased_hf_flavor.save(tmp_path)
    before = (tmp_path / "tokenizer.json").read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    other = Tokenizer.from_vocab(["[UNK]", "a"])
    with pytest.raises(OSError, match="disk full"):
        other.save(tmp_path)
    assert (tmp_path / "tokenizer.json").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["special_tokens_map.json", "tokenizer.json",
                                            "tokenizer_config.json", "vocab.txt",
                                            "wordpieces-manifest.json", "wordpieces.json"]


# ---------------------------------------------------------------- strict reading


def _set(doc: dict, path: list, value):
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()

MALFORMED = [
    (["model", "vocab"], [], r"tokenizer\.json: model\.vocab: expected an object, got an array"),
    (["model"], _DELETE, r"tokenizer\.json: missing required key 'model'"),
    (["model", "type"], "BPE", r"tokenizer\.json: model: BPE is not supported: BPE models are "
     r"not implemented"),
    (["model", "type"], "Foo", r"tokenizer\.json: model: Foo is not supported"),
    (["model", "type"], "Unigram", r"tokenizer\.json: model: Unigram is not supported: Unigram "
     r"models are not implemented"),
    (["model", "vocab", "hello"], "7", r"model\.vocab\['hello'\]|model\.vocab\.hello"),
    (["model", "vocab", "hello"], 0, r"model\.vocab: .*bad id 0"),
    (["model", "unk_token"], "<nope>", r"model: .*unknown token '<nope>'"),
    (["normalizer", "type"], "Precompiled",
     r"tokenizer\.json: normalizer: Precompiled is not supported: SentencePiece"),
    (["normalizer", "type"], "Replace", r"normalizer: missing required key 'pattern'"),
    (["normalizer", "lowercase"], "yes", r"normalizer\.lowercase: expected a boolean"),
    (["added_tokens", 1, "content"], 5, r"added_tokens\[1\]\.content: expected a string"),
    (["added_tokens", 0, "id"], -1, r"added_tokens\[0\]\.id: expected a non-negative integer"),
    (["added_tokens", 0, "id"], 10**12, r"added_tokens\[0\]\.id: id 1000000000000 is out of"),
    (["padding", "strategy"], {"Fixed": 10**12}, r"padding\.strategy\.Fixed: padding length"),
    (["truncation", "strategy"], "Foo", r"truncation\.strategy: unsupported value 'Foo'"),
    (["padding", "strategy"], {"Fixed": "x"}, r"padding\.strategy\.Fixed: expected a non-neg"),
    (["post_processor", "single", 0], {"Oops": {}}, r"post_processor\.single\[0\]: expected"),
    (["post_processor", "special_tokens", "[CLS]", "ids"], 101,
     r"post_processor\.special_tokens\['\[CLS\]'\]\.ids: expected an array"),
    (["post_processor", "single", 0, "SpecialToken", "id"], "[NOPE]",
     r"post_processor: single template uses special tokens \['\[NOPE\]'\]"),
    (["decoder", "type"], "ByteLevel", r"decoder: ByteLevel is not supported: byte-level"),
    (["decoder", "type"], "ByteFallback", r"decoder: ByteFallback is not supported"),
    (["pre_tokenizer"], {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "ByteLevel"}]},
     r"tokenizer\.json: pre_tokenizer\.pretokenizers\[1\]: ByteLevel is not supported: "
     r"byte-level BPE"),
    (["post_processor"], {"type": "ByteLevel"}, r"post_processor: ByteLevel is not supported"),
    (["pre_tokenizer"], {"type": "Split", "pattern": {"Regex": r"(?<=a)b"},
                         "behavior": "Isolated"},
     r"pre_tokenizer\.pattern: bad split pattern '\(\?<=a\)b': .*a look-behind"),
    (["pre_tokenizer"], {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"},
     r"pre_tokenizer\.pattern: bad split pattern"),
]


@pytest.mark.shared_data
@pytest.mark.parametrize("path, value, message", MALFORMED,
                         ids=[".".join(map(str, m[0])) for m in MALFORMED])
def test_malformed_tokenizer_json_names_file_and_path(minilm_json, path, value, message):
    """Each malformed field gives a FormatError naming the file and the JSON path."""
    doc = copy.deepcopy(minilm_json)
    _set(doc, path, value)
    with pytest.raises(FormatError, match=message):
        Tokenizer.from_str(json.dumps(doc))


@pytest.mark.parametrize("text, message", [
    ('{"a": 1,}', r"invalid JSON at line 1"),
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ('{"a": NaN}', "NaN is not valid JSON"),
    ("[]", "expected an object, got an array"),
    ("[" * 100000, "invalid JSON"),
])
def test_invalid_json_is_a_format_error(text, message):
    """Syntax errors, duplicate keys, NaN and absurd nesting are FormatErrors."""
    with pytest.raises(FormatError, match=message):
        Tokenizer.from_str(text)


def test_bad_wordpieces_json_is_named(tmp_path):
    """A wrong flavor in wordpieces.json names that file and field."""
    Tokenizer.from_vocab(["[UNK]", "a"]).save(tmp_path)
    extras = json.loads((tmp_path / "wordpieces.json").read_text())
    extras["flavor"] = "klingon"
    (tmp_path / "wordpieces.json").write_text(json.dumps(extras))
    with pytest.raises(FormatError, match=r"wordpieces\.json: flavor: unsupported value"):
        load(tmp_path)


_json = st.recursive(st.none() | st.booleans() | st.integers(-2, 200) | st.text(max_size=6),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            if key != "vocab":
                yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:3]):
            yield from _paths(value, (*prefix, i))


@pytest.fixture(scope="module")
def small_json() -> dict:
    tok = Tokenizer.from_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "##b"],
                               flavor="huggingface")
    tok.enable_truncation(8)
    tok.enable_padding()
    return json.loads(tok.to_str())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_corruption_is_a_format_error_or_loads(small_json, data):
    """Replacing any node by any JSON value never raises anything but FormatError."""
    doc = copy.deepcopy(small_json)
    path = data.draw(st.sampled_from([p for p in _paths(doc) if p]))
    _set(doc, list(path), data.draw(_json))
    try:
        Tokenizer.from_str(json.dumps(doc)).encode("ab a")
    except FormatError:
        pass


@pytest.mark.shared_data
def test_generic_components_load_and_match_hf():
    """A WordLevel tokenizer with Sequence normalizer/pre-tokenizer loads and matches HF."""
    import collections
    import random

    from tokenizers import Regex, models, normalizers, pre_tokenizers, processors
    lines = sample_lines("portuguese", 1200, seed=17)
    counts = collections.Counter(w.lower() for line in lines[:800] for w in line.split())
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}
    for word, _ in counts.most_common(3000):
        vocab.setdefault(word, len(vocab))
    theirs = hf.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    theirs.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
                                              normalizers.Lowercase()])
    theirs.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(r"[,.;:!?—-]"), "isolated")])
    theirs.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    ours = Tokenizer.from_str(theirs.to_str())
    assert json.loads(ours.to_str()) == json.loads(theirs.to_str())
    random.Random(0).shuffle(lines)
    assert mismatches(ours, theirs, lines[:300]) == []
