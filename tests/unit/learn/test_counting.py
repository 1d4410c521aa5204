"""count_words gives the words the pipeline gives, from every kind of source; WordCounts files."""

import bz2
import gzip
import io
import json
import lzma
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.shared_data import CORPORA, corpus_lines, shared_path
from wordpieces.errors import FormatError
from wordpieces.flavors.rules import FLAVORS
from wordpieces.learn.counting import (
    PipelineMismatchError,
    WordCounts,
    count_words,
    pipeline_fingerprint,
)
from wordpieces.pipeline.normalizers import BertNormalizer, Sequence
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer, WhitespaceSplit


def staged_counts(lines, normalizer, pre_tokenizer):
    """Count words by running the two stages on each line: the definition to meet."""
    return Counter(w for line in lines
                   for w, _ in pre_tokenizer.pre_tokenize(normalizer.normalize(line)))


def slice_file(tmp_path, *parts, limit=1500, name="slice.txt"):
    """Write the first ``limit`` lines of a shared corpus file to tmp_path, as bytes."""
    source = shared_path("corpora", *parts)
    with open(source, "rb") as f:
        data = b"".join(line for _, line in zip(range(limit), f, strict=False))
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------- words


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["verdict_500", "english_4000", "portuguese_3000_cased",
                                  "chinese_2000_nojoiner"])
def test_tensorflow_flavor_counts_equal_tf_goldens(name):
    """Counting the golden corpora with the TF flavor gives TF BasicTokenizer's counts."""
    folder = shared_path("golden", "learner", name)
    meta = json.loads((folder / "params.json").read_text(encoding="utf-8"))
    files = [str(CORPORA / f) for f in meta["corpus_files"]]
    got = count_words(files, normalizer=BertNormalizer(lowercase=meta["lower_case"],
                                                       flavor="tensorflow"),
                      pre_tokenizer=BertPreTokenizer(flavor="tensorflow"), num_proc=1)
    expected = {}
    for line in (folder / "counts.tsv").read_text(encoding="utf-8").splitlines():
        word, count = line.split("\t")
        expected[word] = int(count)
    assert dict(got.items()) == expected
    assert [w for w, _ in got.most_common()] == list(expected)  # count desc, word asc


@pytest.mark.shared_data
@pytest.mark.parametrize("flavor", FLAVORS)
@pytest.mark.parametrize("lowercase", [True, False])
def test_counts_equal_staged_pipeline_on_multilingual_text(flavor, lowercase):
    """The fast word splitting equals normalize + pre_tokenize line by line (UDHR mix)."""
    lines = [line for f in ("007.txt", "009.txt", "011.txt")
             for line in corpus_lines("multilingual", "udhr", f, limit=400)]
    lines += corpus_lines("multilingual", "emoji-test-13.1.txt", limit=400)
    lines += ["ΣΊΣΥΦΟΣ Σ σΣ", "tab\tx\u00a0y\u3000z\u200bw", "a\x00b\ufffe c\ufffd"]
    normalizer = BertNormalizer(lowercase=lowercase, flavor=flavor)
    pre_tokenizer = BertPreTokenizer(flavor=flavor)
    got = count_words(iter(lines), normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                      num_proc=1)
    assert dict(got.items()) == staged_counts(lines, normalizer, pre_tokenizer)


@pytest.mark.shared_data
def test_other_pipelines_use_the_general_path():
    """A non-BERT pipeline (no normalization, whitespace split) counts as staged."""
    lines = corpus_lines("english", "the-verdict.txt")
    normalizer, pre_tokenizer = Sequence([]), WhitespaceSplit()
    got = count_words(iter(lines), normalizer=normalizer, pre_tokenizer=pre_tokenizer)
    assert dict(got.items()) == staged_counts(lines, normalizer, pre_tokenizer)


def test_default_pipeline_is_lowercase_bert():
    """With no normalizer or pre-tokenizer, words are lowercased BERT words."""
    got = count_words(iter(["Héllo, WORLD! hello"]))
    assert dict(got.items()) == {"hello": 2, ",": 1, "world": 1, "!": 1}
    assert got.fingerprint == pipeline_fingerprint(BertNormalizer(), BertPreTokenizer())


# ---------------------------------------------------------------- sources


@pytest.mark.shared_data
def test_file_blocks_never_split_or_repeat_lines(tmp_path):
    """Tiny blocks give the same counts as reading the file whole."""
    path = slice_file(tmp_path, "english", "botchan.txt")  # BOM and CRLF
    whole = count_words(str(path), num_proc=1)
    assert count_words(str(path), num_proc=1, blocksize=997) == whole
    lines = path.read_bytes().decode("utf-8-sig").splitlines()
    assert dict(whole.items()) == staged_counts(lines, BertNormalizer(), BertPreTokenizer())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab é\r", max_size=12), max_size=30),
       st.integers(1, 40), st.booleans())
def test_any_blocksize_counts_the_same(tmp_path_factory, lines, blocksize, bom):
    """For any line contents and block size, blocks add up to the whole file."""
    path = tmp_path_factory.mktemp("blocks") / "f.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + "\n".join(lines).encode("utf-8"))
    expected = staged_counts([ln for text in lines for ln in text.split("\r")],
                             BertNormalizer(), BertPreTokenizer())
    assert dict(count_words(str(path), num_proc=1, blocksize=blocksize).items()) == expected


@pytest.mark.shared_data
@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open),
                                            (".xz", lzma.open)])
def test_compressed_files(tmp_path, suffix, opener):
    """.gz, .bz2 and .xz files count like the plain file."""
    plain = slice_file(tmp_path, "portuguese", "machado_dom_casmurro.txt")
    packed = tmp_path / ("packed.txt" + suffix)
    with opener(packed, "wb") as f:
        f.write(plain.read_bytes())
    assert count_words(str(packed), num_proc=1) == count_words(str(plain), num_proc=1)


@pytest.mark.shared_data
def test_glob_directory_and_list(tmp_path):
    """A glob, a directory and a list of paths give the same counts as each other."""
    a = slice_file(tmp_path, "english", "the-verdict.txt", name="a.txt")
    b = slice_file(tmp_path, "english", "tinyshakespeare.txt", limit=300, name="b.txt")
    by_list = count_words([a, str(b)], num_proc=1)
    assert count_words(str(tmp_path / "*.txt"), num_proc=1) == by_list
    assert count_words(tmp_path, num_proc=1) == by_list
    assert by_list == count_words(str(a), num_proc=1).merge(count_words(str(b), num_proc=1))


@pytest.mark.shared_data
def test_stdin(tmp_path, monkeypatch):
    """'-' reads standard input as UTF-8 bytes."""
    path = slice_file(tmp_path, "english", "the-verdict.txt")
    stdin = io.TextIOWrapper(io.BytesIO(path.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert count_words("-", num_proc=1) == count_words(str(path), num_proc=1)


@pytest.mark.shared_data
def test_processes_count_the_same(tmp_path):
    """Two worker processes give the same counts as one, for files and for texts."""
    path = slice_file(tmp_path, "english", "tinyshakespeare.txt", limit=4000)
    one = count_words(str(path), num_proc=1)
    assert count_words(str(path), num_proc=2, blocksize=20_000) == one
    texts = path.read_text(encoding="utf-8").splitlines() * 8  # more than one batch
    assert count_words(iter(texts), num_proc=2) == count_words(iter(texts), num_proc=1)


def test_invalid_utf8_names_file_and_line(tmp_path):
    """A byte that is not UTF-8 is reported with file:line, also from a later block."""
    path = tmp_path / "bad.txt"
    path.write_bytes(b"good line\n" * 50 + b"bad \xff here\n")
    with pytest.raises(FormatError, match=r"bad\.txt:51: not valid UTF-8"):
        count_words(str(path), num_proc=1)
    with pytest.raises(FormatError, match=r"bad\.txt:51: not valid UTF-8"):
        count_words(str(path), num_proc=1, blocksize=64)


def test_missing_path_and_list_of_texts_are_explained(tmp_path):
    """A missing file or a list of texts gets an error saying what to do."""
    with pytest.raises(FileNotFoundError, match="no such file"):
        count_words(str(tmp_path / "nope.txt"))
    with pytest.raises(FileNotFoundError, match="iter"):
        count_words(["hello world"])
    with pytest.raises(FileNotFoundError, match="no file matches"):
        count_words(str(tmp_path / "*.nothing"))


@pytest.mark.shared_data
def test_fsspec_urls(tmp_path):
    """A file:// URL (and a URL glob) reads like the local path."""
    pytest.importorskip("fsspec")
    path = slice_file(tmp_path, "english", "the-verdict.txt")
    local = count_words(str(path), num_proc=1)
    assert count_words(path.as_uri(), num_proc=1) == local
    assert count_words(path.parent.as_uri() + "/*.txt", num_proc=1, blocksize=5000) == local


def test_bad_options():
    """Unknown engine, bad num_proc and non-text items are refused by name."""
    with pytest.raises(ValueError, match="engine"):
        count_words(iter(["a"]), engine="spark")
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="num_proc must be a positive integer"):
            count_words(iter(["a"]), num_proc=bad)
    with pytest.raises(TypeError, match="item 1"):
        count_words(iter(["a", 3]))
    with pytest.raises(TypeError, match="WordCounts"):
        count_words({"a": 1})


@pytest.mark.shared_data
def test_progress_reports_bytes(tmp_path):
    """progress gets the bytes done of the total, ending at the total."""
    path = slice_file(tmp_path, "english", "the-verdict.txt")
    events = []
    count_words(str(path), num_proc=1, blocksize=4000,
                progress=lambda event, **f: events.append((event, f)))
    assert events[-1] == ("count", {"done": path.stat().st_size, "total": path.stat().st_size,
                                    "words": sum(count_words(str(path)).values())})


# ---------------------------------------------------------------- WordCounts


@pytest.mark.shared_data
def test_save_load_keeps_counts_and_fingerprint(tmp_path):
    """Saved counts load back equal, with their pipeline; the file is sorted TSV."""
    counts = count_words(iter(corpus_lines("english", "the-verdict.txt")))
    counts.save(tmp_path / "c.tsv")
    loaded = WordCounts.load(tmp_path / "c.tsv")
    assert loaded == counts and loaded.pipeline == counts.pipeline
    lines = (tmp_path / "c.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and counts.fingerprint in lines[0]
    assert lines[1:] == [f"{w}\t{c}" for w, c in counts.most_common()]


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(alphabet="ab#\u00ad\u200bé", min_size=1, max_size=6),
                       st.integers(0, 10**12)),
       st.booleans())
def test_save_load_round_trips(tmp_path_factory, counts, with_pipeline):
    """Any counts (words with '#', a soft hyphen, a zero-width space) survive save and load."""
    pipeline = {"normalizer": {"type": "X"}, "pre_tokenizer": {}} if with_pipeline else None
    wc = WordCounts(counts, pipeline=pipeline)
    path = tmp_path_factory.mktemp("wc") / "c.tsv"
    wc.save(path)
    assert WordCounts.load(path) == wc


def test_plain_tsv_loads_without_fingerprint(tmp_path):
    """A TSV without header (as TF or spm write) loads with an unknown pipeline."""
    (tmp_path / "c.tsv").write_text("the\t10\n#\t3\r\nx\t1", encoding="utf-8")
    loaded = WordCounts.load(tmp_path / "c.tsv")
    assert dict(loaded.items()) == {"the": 10, "#": 3, "x": 1}
    assert loaded.fingerprint is None


@pytest.mark.parametrize("content, line", [("a\t1\nb 2\n", 2), ("a\t1\nb\t-2\n", 2),
                                           ("a\tx\n", 1), ("a\t1\nb\t2\na\t3\n", 3)])
def test_malformed_counts_name_file_and_line(tmp_path, content, line):
    """Missing tab, non-integer count and repeated words are rejected at file:line."""
    (tmp_path / "c.tsv").write_text(content, encoding="utf-8")
    with pytest.raises(FormatError, match=rf"c\.tsv:{line}:"):
        WordCounts.load(tmp_path / "c.tsv")


def test_tampered_header_is_rejected(tmp_path):
    """A header whose fingerprint does not match its pipeline is refused."""
    header = {"format": "wordpieces-word-counts", "version": 1, "fingerprint": "0" * 16,
              "pipeline": {"normalizer": {}, "pre_tokenizer": {}}}
    (tmp_path / "c.tsv").write_text("# " + json.dumps(header) + "\na\t1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="fingerprint"):
        WordCounts.load(tmp_path / "c.tsv")


count_dicts = st.dictionaries(st.sampled_from("abcdefgh"), st.integers(0, 100), max_size=8)


@settings(max_examples=100, deadline=None)
@given(count_dicts, count_dicts, count_dicts)
def test_merge_is_associative_and_commutative(a, b, c):
    """Merging sums counts whatever the grouping and order."""
    x, y, z = WordCounts(a), WordCounts(b), WordCounts(c)
    assert x.merge(y).merge(z) == x.merge(y.merge(z)) == WordCounts.merge(z, y, x)
    assert dict(x.merge(y).items()) == {k: a.get(k, 0) + b.get(k, 0) for k in {*a, *b}}


def test_merge_refuses_other_pipelines():
    """Counts of different pipelines are not merged unless asked; then unknown pipeline."""
    bert = count_words(iter(["Hello"]))
    cased = count_words(iter(["Hello"]), normalizer=BertNormalizer(lowercase=False))
    with pytest.raises(PipelineMismatchError, match="ignore_fingerprint"):
        bert.merge(cased)
    forced = bert.merge(cased, ignore_fingerprint=True)
    assert dict(forced.items()) == {"hello": 1, "Hello": 1} and forced.fingerprint is None


def test_check_pipeline_explains_the_mismatch():
    """check_pipeline passes for the same pipeline and names both otherwise."""
    counts = count_words(iter(["Hello"]))
    counts.check_pipeline(BertNormalizer(), BertPreTokenizer())
    with pytest.raises(PipelineMismatchError, match="tensorflow"):
        counts.check_pipeline(BertNormalizer(flavor="tensorflow"),
                              BertPreTokenizer(flavor="tensorflow"))


def test_fingerprint_depends_on_settings_and_is_stable():
    """The fingerprint changes with any setting and is the same in another process."""
    prints = {pipeline_fingerprint(BertNormalizer(lowercase=lc, flavor=f),
                                   BertPreTokenizer(flavor=f))
              for lc in (True, False) for f in FLAVORS}
    assert len(prints) == 6
    code = ("from wordpieces.learn.counting import pipeline_fingerprint as p;"
            "from wordpieces.pipeline.normalizers import BertNormalizer as N;"
            "from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer as P;"
            "print(p(N(), P()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONHASHSEED": "123"})
    assert out.stdout.strip() == pipeline_fingerprint(BertNormalizer(), BertPreTokenizer())


def test_word_counts_validate_input():
    """Negative or non-integer counts and non-str words are refused."""
    with pytest.raises(ValueError, match="integer >= 0"):
        WordCounts({"a": -1})
    with pytest.raises(ValueError, match="integer >= 0"):
        WordCounts({"a": 1.5})
    with pytest.raises(TypeError, match="not a str"):
        WordCounts([(1, 2)])


@pytest.mark.parametrize("item", [("a",), ("a", "3"), (3, 1), ("a", True)], ids=repr)
def test_word_counts_and_learners_refuse_an_item_alike(item):
    """WordCounts and the learners share one check: same error, same message."""
    from wordpieces.learn.learners.top_down import learn_top_down

    with pytest.raises(TypeError) as ours:
        WordCounts([("ok", 1), item])
    with pytest.raises(TypeError) as learner:
        learn_top_down([("ok", 1), item], 10, [])
    assert str(ours.value) == str(learner.value) and "counts item 1" in str(ours.value)


def test_iteration_and_most_common_are_canonical():
    """Iteration, items and most_common go count descending, then word."""
    wc = WordCounts([("b", 2), ("a", 2), ("c", 5), ("a", 1)])
    assert list(wc) == ["c", "a", "b"] and wc["a"] == 3
    assert wc.most_common(2) == [("c", 5), ("a", 3)] and wc.total() == 10


def test_a_counts_file_with_bad_utf8_names_the_line(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(b"hello\t1\nwor\xffld\t2\n")
    with pytest.raises(FormatError, match=r"c\.tsv:2: not valid UTF-8"):
        WordCounts.load(path)


def test_a_counts_header_nested_too_deeply_is_a_foreign_comment(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_text("# " + "[" * 100000 + "\nhello\t3\n", encoding="utf-8")
    loaded = WordCounts.load(path)
    assert dict(loaded) == {"hello": 3} and loaded.fingerprint is None
