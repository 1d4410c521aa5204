"""Values from files are checked where they enter, and every file error names the file.

Before: a compression bomb was read whole, a truncated ``.gz``/``.bz2`` escaped as a bare
``EOFError``, a decoder ``Sequence`` nested 250 deep was an internal ``RecursionError``,
``pad_id``/``pad_type_id``/``type_id`` >= 2**63 loaded and came back whole from the
Python backend, a ``model_max_length`` of 2**40 loaded and failed the first truncating
call naming neither file nor field, a lone surrogate loaded and failed ``save``, a
``vocab.txt`` with CR-only line ends was refused without its name, and
``additional_special_tokens`` in ``tokenizer_config.json`` was ignored.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import lzma
import resource
import subprocess
import sys

import pytest

import wordpieces as wp
from tests.robustness.helpers import BACKENDS, VOCAB, tokenizer_json, use_backend, write_json
from wordpieces.errors import FormatError, VocabError
from wordpieces.learn.counting import count_words

COMPRESSORS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def _one_gigabyte():  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _cli(*args, env=None):
    out = subprocess.run([sys.executable, "-m", "wordpieces", *args], capture_output=True,
                         timeout=300, preexec_fn=_one_gigabyte, env=env)
    return out.returncode, out.stderr.decode()


# ---------------------------------------------------------------- compressed inputs


def test_a_gzip_bomb_vocab_is_refused_in_bounded_memory(tmp_path):
    """A 0.3 MB vocab.txt.gz inflating to 320 MiB: refused past 256 MiB, under 1 GB."""
    member = gzip.compress(b"a" * (64 << 20), compresslevel=9)
    bomb = tmp_path / "vocab.txt.gz"
    bomb.write_bytes(member * 5)
    status, err = _cli("encode", "-q", "-t", str(bomb))
    assert status == 2, err
    assert f"{bomb}: decompresses to more than 268,435,456 bytes" in err


def test_a_corpus_bomb_stops_at_the_configured_limit(tmp_path, monkeypatch):
    """WORDPIECES_MAX_INFLATE bounds a corpus read line by line, naming the file."""
    corpus = tmp_path / "c.txt.gz"
    corpus.write_bytes(gzip.compress(b"hello world\n" * 100_000))
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "100000")
    with pytest.raises(FormatError, match=r"c\.txt\.gz: decompresses to more than 100,000"):
        count_words(str(corpus), num_proc=1)
    monkeypatch.setenv("WORDPIECES_MAX_INFLATE", "0")  # no limit
    assert count_words(str(corpus), num_proc=1)["hello"] == 100_000


@pytest.mark.parametrize("ext", list(COMPRESSORS))
def test_a_truncated_compressed_vocab_is_a_format_error(tmp_path, ext):
    path = tmp_path / f"vocab.txt{ext}"
    path.write_bytes(COMPRESSORS[ext](("\n".join(VOCAB) + "\n").encode())[:-9])
    with pytest.raises(FormatError, match=rf"vocab\.txt\{ext}: truncated or corrupt"):
        wp.load(str(path))
    status, err = _cli("encode", "-q", "-t", str(path))
    assert status == 2 and "internal error" not in err
    assert f"{path}: truncated or corrupt" in err


@pytest.mark.parametrize("ext", list(COMPRESSORS))
def test_a_truncated_compressed_corpus_is_a_format_error(tmp_path, ext):
    path = tmp_path / f"c.txt{ext}"
    data = COMPRESSORS[ext](b"hello world\n" * 5000)
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(FormatError, match=rf"c\.txt\{ext}: truncated or corrupt"):
        count_words(str(path), num_proc=1)


def test_a_file_that_is_not_gzip_is_a_format_error(tmp_path):
    path = tmp_path / "c.txt.gz"
    path.write_bytes(b"not gzip at all\n")
    with pytest.raises(FormatError, match=r"c\.txt\.gz: truncated or corrupt gzip data"):
        count_words(str(path), num_proc=1)


# ---------------------------------------------------------------- nesting


def _nested_decoder(levels: int) -> dict:
    decoder = {"type": "WordPiece", "prefix": "##", "cleanup": True}
    for _ in range(levels):
        decoder = {"type": "Sequence", "decoders": [decoder]}
    return decoder


def test_a_decoder_sequence_250_deep_is_a_named_error(tmp_path):
    path = write_json(tmp_path / "t.json", {**tokenizer_json(), "decoder": _nested_decoder(250)})
    with pytest.raises(FormatError, match=r"t\.json: decoder\.decoders\[0\].*nested more "
                                          r"than 64 deep"):
        wp.load(path)
    status, err = _cli("encode", "-q", "-t", path)
    assert status == 2 and "RecursionError" not in err


def test_sequences_nested_past_their_limit_are_named(tmp_path):
    """17 nested Sequence stages fit the JSON depth limit, not the stage limit (16)."""
    path = write_json(tmp_path / "t.json", {**tokenizer_json(), "decoder": _nested_decoder(17)})
    with pytest.raises(FormatError, match=r"t\.json: decoder(\.decoders\[0\]){16}: Sequence "
                                          r"stages nested 17 deep \(at most 16\)"):
        wp.load(path)
    write_json(tmp_path / "t.json", {**tokenizer_json(), "decoder": _nested_decoder(16)})
    assert wp.load(path).decode([5, 6]) == "hello world"


def test_a_deep_bracket_file_is_a_named_error(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("[" * 100000, encoding="utf-8")
    with pytest.raises(FormatError, match=r"t\.json: invalid JSON: nested more than 64"):
        wp.load(str(path))


# ---------------------------------------------------------------- values


def _padded(field: str, value: int) -> dict:
    data = tokenizer_json()
    data["padding"] = {"strategy": "BatchLongest", "direction": "Right",
                       "pad_to_multiple_of": None, "pad_id": 0, "pad_type_id": 0,
                       "pad_token": "[PAD]", field: value}
    return data


@pytest.mark.parametrize("kind", BACKENDS)
@pytest.mark.parametrize("field", ["pad_id", "pad_type_id", "type_id"])
def test_an_id_past_int32_is_refused_at_load(tmp_path, monkeypatch, kind, field):
    """Both backends refuse it the same way, naming the field (before: OverflowError in
    one, the huge id returned by the other)."""
    use_backend(kind, monkeypatch)
    if field == "type_id":
        data = tokenizer_json()
        data["post_processor"]["single"][1]["Sequence"]["type_id"] = 2 ** 63
        where = r"post_processor\.single\[1\]\.Sequence\.type_id"
    else:
        data, where = _padded(field, 2 ** 63), rf"padding\.{field}"
    path = write_json(tmp_path / "t.json", data)
    with pytest.raises(FormatError, match=rf"t\.json: {where}: an id or type id must be "
                                          r"<= 2,147,483,647"):
        wp.load(path)


@pytest.mark.parametrize("kind", BACKENDS)
def test_the_largest_int32_pad_id_is_kept(tmp_path, monkeypatch, kind):
    use_backend(kind, monkeypatch)
    tok = wp.load(write_json(tmp_path / "t.json", _padded("pad_type_id", 2 ** 31 - 1)))
    assert tok.encode_batch(["hello", "hello world"])[0].type_ids[-1] == 2 ** 31 - 1


def _saved_with_config(tmp_path, **config) -> str:
    folder = tmp_path / "tok"
    wp.Tokenizer.from_vocab(VOCAB, flavor="huggingface").save(folder)
    path = folder / "tokenizer_config.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **config}),
                    encoding="utf-8")
    return str(folder)


def test_a_huge_model_max_length_is_refused_naming_the_field(tmp_path):
    folder = _saved_with_config(tmp_path, model_max_length=2 ** 40)
    with pytest.raises(FormatError, match=r"tok/tokenizer_config\.json: model_max_length: "
                                          r"1,099,511,627,776 is larger than 16,777,216"):
        wp.load(folder)


def test_transformers_no_limit_still_loads_as_no_limit(tmp_path):
    """transformers' VERY_LARGE_INTEGER, int(1e30), means no limit."""
    tok = wp.load(_saved_with_config(tmp_path, model_max_length=int(1e30)))
    assert tok.to_parts().transformers.model_max_length is None
    assert tok("hello world")["input_ids"] == [2, 5, 6, 3]


@pytest.mark.parametrize("where, edit", [
    (r"model\.vocab\['\\ud800x'\]: the key", lambda d: d["model"]["vocab"].update(
        {"\ud800x": len(VOCAB)})),
    (r"model\.continuing_subword_prefix: the string", lambda d: d["model"].update(
        continuing_subword_prefix="\udc00")),
], ids=["vocab-token", "prefix"])
def test_a_lone_surrogate_is_refused_at_load(tmp_path, where, edit):
    data = copy.deepcopy(tokenizer_json())
    edit(data)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="utf-8")
    with pytest.raises(FormatError, match=rf"t\.json: {where} .* holds a lone surrogate"):
        wp.load(str(path))


def test_an_escaped_surrogate_pair_is_kept(tmp_path):
    data = tokenizer_json()
    data["model"]["vocab"]["\U0001f600"] = len(VOCAB)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="utf-8")
    assert wp.load(str(path)).token_to_id("\U0001f600") == len(VOCAB)


def test_a_vocab_with_cr_only_line_ends_names_the_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("\r".join(VOCAB).encode() + b"\r")
    with pytest.raises(VocabError, match=r"vocab\.txt: its lines end with a carriage return"):
        wp.load(str(path))


def test_a_vocab_without_its_unknown_token_names_the_file(tmp_path):
    """Python and CLI: the missing unknown token is reported with the file it was read from."""
    path = tmp_path / "vocab.txt"
    path.write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(VocabError, match=r"vocab\.txt: the unknown token '\[UNK\]' is not in"):
        wp.Tokenizer.from_vocab(str(path))
    proc = subprocess.run([sys.executable, "-m", "wordpieces", "encode", "-t", str(path)],
                          input="hello\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and f"{path}: the unknown token" in proc.stderr


# ---------------------------------------------------------------- additional special tokens


def test_additional_special_tokens_are_added_as_transformers_adds_them(tmp_path):
    """Same ids as live transformers for a text holding them, and the same list."""
    transformers = pytest.importorskip("transformers")
    folder = _saved_with_config(tmp_path, additional_special_tokens=["<extra_1>", "world"])
    hf = transformers.AutoTokenizer.from_pretrained(folder)
    ours = wp.load(folder)
    text = "hello <extra_1> worlds world"
    assert ours(text)["input_ids"] == hf(text)["input_ids"]
    assert ours.additional_special_tokens == ["<extra_1>", "world"]
    assert ours.all_special_tokens == hf.all_special_tokens
    again = tmp_path / "again"
    ours.save(again)  # written back, so transformers reads the save the same way
    assert transformers.AutoTokenizer.from_pretrained(str(again))(text)["input_ids"] == \
        hf(text)["input_ids"]
    assert wp.load(str(again))(text)["input_ids"] == hf(text)["input_ids"]


def test_a_slow_only_save_adds_its_additional_special_tokens(tmp_path):
    """vocab.txt + tokenizer_config.json (no tokenizer.json): the same as transformers."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "BertTokenizer", "do_lower_case": True,
        "additional_special_tokens": ["<extra_1>"]}), encoding="utf-8")
    hf = transformers.AutoTokenizer.from_pretrained(str(folder))
    ours = wp.Tokenizer.from_pretrained(str(folder))
    text = "hello <extra_1> world"
    assert ours(text)["input_ids"] == hf(text)["input_ids"]
    assert "<extra_1>" in ours.additional_special_tokens
