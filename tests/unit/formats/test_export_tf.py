"""TensorFlow SavedModel export: the reloaded graph gives TF Text's ids and wordpieces' ids.

The plan (what the graph is built from) is tested everywhere; the graph itself only where
``tensorflow`` and ``tensorflow_text`` are installed (CI runs this module in a venv with
``tensorflow-cpu`` and ``tensorflow-text``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings

import pytest

from tests.reference_corpora import sample_lines
from tests.shared_data import corpus_lines, shared_path
from wordpieces.formats.bundle import Bundle
from wordpieces.formats.export_tf import ExportError, char_class, export_tensorflow, plan_export
from wordpieces.learn.training import train
from wordpieces.pipeline.models import WordLevel
from wordpieces.tokenizer import Tokenizer

TUTORIAL_RESERVED = ["[PAD]", "[UNK]", "[START]", "[END]"]


def vocab_path(name: str = "bert-base-uncased"):
    return shared_path("vocab", f"{name}.vocab.txt")


def matches(re2_class: str, text: str) -> bool:
    """Whether an RE2 class of ``\\x{HEX}`` escapes matches ``text`` (via Python's re)."""
    pattern = re.sub(r"\\x\{([0-9A-F]+)\}", lambda m: f"\\U{int(m[1], 16):08x}", re2_class)
    return re.fullmatch(pattern, text) is not None


def spread(lines: list[str], n: int) -> list[str]:
    return lines[::max(1, len(lines) // n)][:n]


# ---------------------------------------------------------------- the plan (no TensorFlow)


@pytest.mark.shared_data
def test_tensorflow_flavor_plan_is_tf_texts_own_tokenizer():
    """flavor tensorflow maps onto BertTokenizer(lower_case=True) with nothing to warn."""
    plan = plan_export(Tokenizer.from_vocab(vocab_path(), flavor="tensorflow"))
    assert plan.tf_lower_case is True and plan.tables is None
    assert plan.differences == [] and plan.max_bytes_per_word == 100
    assert (plan.start_id, plan.end_id) == (101, 102)


@pytest.mark.shared_data
def test_other_flavors_plan_their_own_character_tables():
    """flavor bert is rebuilt from its tables: mappings, deletions, CJK, classes, limit."""
    plan = plan_export(Tokenizer.from_vocab(vocab_path(), flavor="bert"))
    tables = plan.tables
    assert plan.tf_lower_case is None and plan.max_chars_per_word == 200
    assert tables.mapping["A"] == "a" and tables.mapping["É"] == "e"
    assert matches(tables.deleted, "\x00") and matches(tables.deleted, "\u0301")
    assert matches(tables.spaces, "\u3000") and matches(tables.spaced_out, "中")
    assert matches(tables.split_isolated, "!") and matches(tables.split_spaces, " ")
    assert not matches(tables.split_isolated, "a") and not matches(tables.deleted, "a")
    assert len(plan.differences) == 1 and "neighbours (U+03A3" in plan.differences[0]


@pytest.mark.shared_data
def test_hf_flavor_warns_about_literal_special_tokens():
    """The graph cannot keep '[CLS]' typed in the text whole, as HF does; it says so."""
    tok = Tokenizer.from_vocab(vocab_path("bert-base-multilingual-cased"), lowercase=False,
                               flavor="huggingface")  # the configuration exported below
    assert any("typed literally" in d for d in plan_export(tok).differences)


def test_char_class_compresses_ranges():
    """char_class writes runs of code points as ranges that match exactly those points."""
    points = [0x41, 0x42, 0x43, 0x61, 0x4E00, 0x4E01, 0x1F600]
    pattern = char_class(points)
    assert pattern == "[\\x{41}-\\x{43}\\x{61}\\x{4E00}-\\x{4E01}\\x{1F600}]"
    assert [cp for cp in range(0x20000) if matches(pattern, chr(cp))] == points


def test_tutorial_vocab_wraps_in_start_and_end():
    """A vocabulary with [START]/[END] (and no [CLS]) wraps sequences in those."""
    tok = Tokenizer.from_vocab(TUTORIAL_RESERVED + ["a", "##b"], flavor="tensorflow")
    plan = plan_export(tok)
    assert (plan.start_id, plan.end_id) == (2, 3)
    assert plan.reserved_tokens == TUTORIAL_RESERVED


def test_word_level_and_long_templates_are_refused():
    """Only WordPiece models with at most one token on each side can be exported."""
    word_level = Tokenizer(WordLevel(["[UNK]", "a"]))
    with pytest.raises(ExportError, match="WordPiece"):
        plan_export(word_level)
    three = Tokenizer.from_vocab(["[UNK]", "[CLS]", "[SEP]", "a"],
                                 template="[CLS] [CLS] $A [SEP]")
    with pytest.raises(ExportError, match="3 tokens"):
        plan_export(three)


# ---------------------------------------------------------------- the graph


@pytest.fixture(scope="module")
def tf():
    pytest.importorskip("tensorflow_text")  # also registers the ops the graph needs
    import tensorflow
    return tensorflow


@pytest.fixture(scope="module")
def exported(tf, tmp_path_factory):
    """bert-base-uncased (flavor tensorflow) exported and loaded back."""
    tok = Tokenizer.from_vocab(vocab_path(), flavor="tensorflow")
    path = tmp_path_factory.mktemp("tf") / "bert"
    assert export_tensorflow(tok, path) == []
    return tok, tf.saved_model.load(str(path))


@pytest.mark.shared_data
@pytest.mark.tensorflow
@pytest.mark.parametrize("golden", ["english_wikitext", "udhr_mix", "chinese", "emoji"])
def test_tokenize_gives_tf_text_golden_ids(exported, golden):
    """tokenize = [CLS] + TF Text BertTokenizer's golden ids + [SEP], line for line."""
    _, model = exported
    with open(shared_path("golden", "tokenize", f"{golden}.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line, _ in zip(f, range(400), strict=False)]
    got = model.tokenize([r["text"] for r in rows]).to_list()
    assert got == [[101, *r["tf_bert_tokenizer"], 102] for r in rows]


@pytest.mark.shared_data
@pytest.mark.tensorflow
@pytest.mark.parametrize("corpus", ["english_gutenberg", "portuguese", "udhr", "emoji"])
def test_tokenize_gives_wordpieces_ids(exported, corpus):
    """On the shared corpora the graph's ids equal Tokenizer.encode_batch_ids."""
    tok, model = exported
    lines = spread(sample_lines(corpus), 600)
    assert model.tokenize(lines).to_list() == tok.encode_batch_ids(lines)


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_detokenize_lookup_and_vocab_methods(exported, tf):
    """detokenize/lookup match wordpieces; the vocab methods describe the vocabulary."""
    tok, model = exported
    lines = spread(sample_lines("english_wikitext"), 100)
    ids = model.tokenize(lines)
    assert [s.decode("utf-8") for s in model.detokenize(ids).numpy()] == \
        [tok.detokenize(row) for row in ids.to_list()]
    dense = ids.to_tensor()  # the dense signature, padded with [PAD]
    assert model.detokenize(dense).numpy()[0].decode() == tok.detokenize(ids.to_list()[0])
    assert [t.decode() for t in model.lookup(ids).to_list()[0]] == tok.lookup(ids.to_list()[0])
    assert int(model.get_vocab_size()) == 30522
    saved_vocab = tf.io.read_file(model.get_vocab_path()).numpy()
    assert saved_vocab == vocab_path().read_bytes()
    assert [t.decode() for t in model.get_reserved_tokens().numpy()] == tok.reserved_tokens


@pytest.fixture(scope="module", params=[("bert", "bert-base-uncased", True),
                                        ("huggingface", "bert-base-multilingual-cased", False)],
                ids=["bert-uncased", "huggingface-cased"])
def other_flavor(request, tf, tmp_path_factory):
    """A bert- or huggingface-flavor tokenizer, its export warnings and its loaded graph."""
    flavor, name, lowercase = request.param
    tok = Tokenizer.from_vocab(vocab_path(name), flavor=flavor, lowercase=lowercase)
    path = tmp_path_factory.mktemp("tf") / flavor
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export_tensorflow(tok, path)
    return tok, [str(w.message) for w in caught], tf.saved_model.load(str(path))


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_other_flavors_warn_what_may_differ(other_flavor):
    """The export warns exactly the differences plan_export lists."""
    tok, caught, _ = other_flavor
    assert caught == [f"TensorFlow export may differ: {d}" for d in plan_export(tok).differences]


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_other_flavors_agree_on_shared_corpora(other_flavor):
    """flavors bert/huggingface give wordpieces' ids on real text."""
    tok, _, model = other_flavor
    for corpus in ("udhr", "chinese", "emoji", "portuguese"):
        lines = spread(sample_lines(corpus), 300)
        assert model.tokenize(lines).to_list() == tok.encode_batch_ids(lines), corpus


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_other_flavors_agree_on_code_points(other_flavor):
    """Every 41st code point, inside and between words: the graph uses the flavor's own
    tables, not TF's (only context-dependent characters are left out)."""
    tok, _, model = other_flavor
    texts = [f"a{chr(cp)}b {chr(cp)}" for cp in range(0, 0x110000, 41)
             if not 0xD800 <= cp <= 0xDFFF and chr(cp) not in tok.normalizer.context_chars]
    assert model.tokenize(texts).to_list() == tok.encode_batch_ids(texts)


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_bundle_exports_the_tutorial_converter(tf, tmp_path):
    """A bundle becomes one module with a member per tokenizer, wrapped in [START]/[END]."""
    options = dict(vocab_size=600, reserved_tokens=TUTORIAL_RESERVED, flavor="tensorflow",
                   progress="none", num_proc=1, lower_thresh=2)
    pt_lines = corpus_lines("portuguese", "machado_dom_casmurro.txt", limit=2000)
    en_lines = corpus_lines("english", "botchan.txt", limit=2000)
    bundle = Bundle(pt=train(iter(pt_lines), **options), en=train(iter(en_lines), **options))
    export_tensorflow(bundle, tmp_path / "converter")
    model = tf.saved_model.load(str(tmp_path / "converter"))
    for name, lines in (("pt", pt_lines[:300]), ("en", en_lines[:300])):
        got = getattr(model, name).tokenize(lines).to_list()
        assert got == bundle[name].encode_batch_ids(lines)
        assert {row[0] for row in got} == {2} and {row[-1] for row in got} == {3}


@pytest.mark.shared_data
@pytest.mark.tensorflow
def test_cli_export_tensorflow(tf, tmp_path):
    """wordpieces export --format tensorflow writes a SavedModel that reloads."""
    proc = subprocess.run([sys.executable, "-m", "wordpieces", "export", "-t",
                           str(vocab_path()), "--flavor", "tensorflow", "--format",
                           "tensorflow", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    model = tf.saved_model.load(str(tmp_path / "out"))
    assert model.tokenize(["Hello, world!"]).to_list() == [[101, 7592, 1010, 2088, 999, 102]]


# ---------------------------------------------------------------- where the export goes


def test_export_refuses_a_folder_with_other_files_before_any_work(tmp_path):
    """A folder holding the user's files is refused (with or without TensorFlow)."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match=r"not an earlier tensorflow-export") as caught:
        export_tensorflow(Tokenizer.from_vocab(TUTORIAL_RESERVED, flavor="tensorflow"),
                          tmp_path / "out")
    assert caught.value.filename == str(tmp_path / "out")
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"


@pytest.mark.tensorflow
def test_export_over_an_earlier_export_replaces_it(tf, tmp_path):
    """Exporting twice to one folder replaces the earlier SavedModel with the new one."""
    small = Tokenizer.from_vocab(TUTORIAL_RESERVED + ["a", "b"], flavor="tensorflow")
    export_tensorflow(small, tmp_path / "out")
    export_tensorflow(Tokenizer.from_vocab(TUTORIAL_RESERVED + ["a"], flavor="tensorflow"),
                      tmp_path / "out")
    model = tf.saved_model.load(str(tmp_path / "out"))
    assert int(model.get_vocab_size()) == 5
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.tensorflow
def test_export_refuses_an_earlier_export_holding_a_users_file(tf, tmp_path):
    """A file the user put into an earlier export is never deleted: the export refuses."""
    tok = Tokenizer.from_vocab(TUTORIAL_RESERVED + ["a"], flavor="tensorflow")
    export_tensorflow(tok, tmp_path / "out")
    (tmp_path / "out" / "README").write_text("mine")
    with pytest.raises(FileExistsError, match="holds README, which the earlier"):
        export_tensorflow(tok, tmp_path / "out")
    assert (tmp_path / "out" / "README").read_text() == "mine"
