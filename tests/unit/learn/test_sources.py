"""Sources cut files into blocks that read back exactly the file's lines, whatever the sizes.

How a file is read as lines (BOM, line ends, compression, bad UTF-8) is tested with the
reader itself, in tests/unit/formats/test_lines.py.
"""

import gzip
import io
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import LINE_TEXT, reference_lines
from tests.input_sources import (
    EXPECTED_COUNTS,
    FILE_KINDS,
    ITERABLE_KINDS,
    LINES,
    python_source,
    write_source,
)
from tests.shared_data import shared_path
from wordpieces.errors import FormatError, MissingDependencyError
from wordpieces.formats import lines as line_reader
from wordpieces.learn import count_tasks
from wordpieces.learn.counting import count_words
from wordpieces.learn.learners.tf_compat import bert_vocab_from_dataset
from wordpieces.learn.sources import (
    Block,
    block_lines,
    file_blocks,
    plan,
    resolve_paths,
    stdin_lines,
)
from wordpieces.learn.training import train


def read_all(path, *, read_size: int, blocksize: int | None = None) -> list[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(line_reader, "READ_SIZE", read_size)
        blocks = [Block(str(path))] if blocksize is None else file_blocks(str(path), blocksize)
        return [line for block in blocks for line in block_lines(block)]


@settings(max_examples=150, deadline=None)
@given(text=LINE_TEXT, read_size=st.integers(1, 16), blocksize=st.integers(1, 40))
def test_blocks_together_give_each_line_once(tmp_path_factory, text, read_size, blocksize):
    """Cut into byte-range blocks, a file's lines come back each once, in order."""
    path = tmp_path_factory.mktemp("blocks") / "f.txt"
    path.write_bytes(text.encode("utf-8"))
    assert read_all(path, read_size=read_size, blocksize=blocksize) == reference_lines(text)


@pytest.mark.shared_data
def test_real_corpus_with_bom_and_crlf(tmp_path):
    """botchan.txt (BOM, CRLF) reads as Python's reader gives it, in blocks and small chunks."""
    raw = shared_path("corpora", "english", "botchan.txt").read_bytes()[:200_000]
    raw = raw[:raw.rindex(b"\n") + 1]
    path = tmp_path / "botchan.txt"
    path.write_bytes(raw)
    expected = reference_lines(raw.decode("utf-8-sig"))
    assert read_all(path, read_size=4096, blocksize=50_000) == expected
    assert read_all(path, read_size=97) == expected


def test_compressed_file_is_one_block_of_its_lines(tmp_path):
    """A .gz file larger than the block size stays one block and gives its text's lines."""
    text = "alpha\r\nbeta\n\ngamma"
    path = tmp_path / "f.txt.gz"
    with gzip.open(path, "wb") as f:
        f.write(text.encode())
    block, = file_blocks(str(path), 4)
    assert (block.start, block.end, block.compression) == (0, None, "gzip")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(line_reader, "READ_SIZE", 3)
        assert list(block_lines(block)) == ["alpha", "beta", "", "gamma"]


def test_stdin_lines(monkeypatch):
    """Standard input is read as UTF-8 bytes into exactly its lines."""
    stdin = io.TextIOWrapper(io.BytesIO(b"un\r\ndeux\n\ntrois\r"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(line_reader, "READ_SIZE", 2)
    assert list(stdin_lines()) == ["un", "deux", "", "trois\r"]


def test_stdin_is_planned_as_a_stream_read_here(monkeypatch):
    """'-' becomes a stream of texts read by the calling process, not a block for workers."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\nc\n")))
    unit, = plan("-", blocksize=10)
    assert not isinstance(unit, Block) and list(unit) == ["a b", "c"]


# ---------------------------------------------------------------- one input vocabulary


def _feed_stdin(monkeypatch, data: bytes | None) -> None:
    if data is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _source(kind: str, tmp_path, monkeypatch):
    """Source ``kind`` of the hand-checked corpus, as a Python caller passes it."""
    if kind in ITERABLE_KINDS:
        if kind == "numpy_batches":
            pytest.importorskip("numpy")
        return python_source(kind)
    if kind == "url":
        pytest.importorskip("fsspec")
    written = write_source(kind, tmp_path)
    _feed_stdin(monkeypatch, written.stdin)
    return written.argument


ALL_KINDS = FILE_KINDS + ITERABLE_KINDS


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_count_words_reads_every_source_kind(kind, tmp_path, monkeypatch):
    """count_words gives the hand-counted words whatever kind of source holds the text."""
    counts = count_words(_source(kind, tmp_path, monkeypatch), num_proc=1, progress="none")
    assert dict(counts) == EXPECTED_COUNTS


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_train_reads_every_source_kind(kind, tmp_path, monkeypatch):
    """train() learns the same vocabulary from every kind of source as from iter(lines)."""
    options = {"vocab_size": 60, "lower_thresh": 1, "num_proc": 1, "progress": "none"}
    expected = train(iter(LINES), **options).get_vocab()
    tok = train(_source(kind, tmp_path, monkeypatch), **options)
    assert tok.get_vocab() == expected
    assert tok.tokenize("The cat sat.") == ["the", "cat", "sat", "."]


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_bert_vocab_from_dataset_reads_every_source_kind(kind, tmp_path, monkeypatch):
    """bert_vocab_from_dataset takes files as train() does, and TF's texts and batches."""
    options = {"learn_params": {"lower_thresh": 1},
               "bert_tokenizer_params": {"lower_case": True}}
    expected = bert_vocab_from_dataset(LINES, 60, ["[UNK]"], **options)
    assert bert_vocab_from_dataset(_source(kind, tmp_path, monkeypatch), 60, ["[UNK]"],
                                   **options) == expected
    assert {"cat", "unicode", "cafe"} <= set(expected)


def test_a_list_of_batches_is_texts_and_a_list_of_strings_is_paths(tmp_path):
    """A list holding only batches is text; a list of strings names files."""
    assert dict(count_words([["a b"], ("a",)], num_proc=1)) == {"a": 2, "b": 1}
    with pytest.raises(FileNotFoundError, match=r"a b: no such file .*iter\(texts\)"):
        count_words(["a b"])
    with pytest.raises(TypeError, match="list source must hold paths"):
        count_words([str(tmp_path), ["a b"]])


@pytest.mark.parametrize(("item", "message"), [
    ({"text": "a"}, r"texts item 0 is a dict \(a dataset row\?\): pass its text column"),
    (3, "texts item 0 is a int: expected a text"),
    (["a", 3], "texts item 0, text 1 is a int, not a str"),
    ([["a"]], "texts item 0, text 0 is a list, not a str"),
])
def test_an_item_that_is_no_text_is_named(item, message):
    """An item neither a text nor a batch of texts is refused, naming its position."""
    with pytest.raises(TypeError, match=message):
        count_words(iter([item]), num_proc=1)


def test_bytes_that_are_not_utf8_name_the_item():
    """Bytes that are not UTF-8 are a FormatError naming the item, also inside a batch."""
    with pytest.raises(FormatError, match=r"texts item 1, text 0: not valid UTF-8 \(byte 1"):
        count_words(iter([b"ok", [b"a\xff"]]), num_proc=1)


def test_resolve_paths_keeps_the_given_order_and_skips_hidden_files(tmp_path):
    """Each item expands sorted, items stay in the order given; hidden files are skipped."""
    parts = Path(write_source("directory", tmp_path).argument)
    plain = Path(write_source("path", tmp_path).argument)
    assert resolve_paths([str(plain), str(parts), "-"]) == [
        str(plain), str(parts / "part-1.txt"), str(parts / "part-2.txt"), "-"]
    assert resolve_paths([str(tmp_path / "**" / "part-2.txt")]) == [str(parts / "part-2.txt")]


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p / "nope.txt", r"nope\.txt: no such file or directory"),
    (lambda p: p / "*.nothing", r"\*\.nothing: no file matches this pattern"),
    (lambda p: (p / "empty").mkdir() or p / "empty", "empty: the directory holds no file"),
])
def test_resolve_paths_names_what_is_missing(tmp_path, make, message):
    """A missing file, an unmatched glob or an empty directory is named in the error."""
    with pytest.raises(FileNotFoundError, match=message):
        resolve_paths([str(make(tmp_path))])


def test_url_without_fsspec_says_what_to_install(tmp_path, monkeypatch):
    """Reading a URL without fsspec is a MissingDependencyError naming the URL and extra."""
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    url = (tmp_path / "a.txt").as_uri()
    with pytest.raises(MissingDependencyError, match=r"file://.*a\.txt: reading URLs needs "
                       r"the optional dependency 'fsspec': pip install 'wordpieces\[fsspec\]'"):
        count_words(url)
    with pytest.raises(MissingDependencyError, match="fsspec"):
        list(line_reader.TextLines(url))


@pytest.mark.parametrize("kind", ["glob", "gz", "batches", "numpy_batches"])
def test_worker_processes_read_every_source_kind_alike(kind, tmp_path, monkeypatch):
    """Counted in two worker processes (blocks and batches shipped to them), the counts
    are the hand-counted ones too."""
    monkeypatch.setattr(count_tasks, "BATCH_CHARS", 8)  # several tasks, not one in-process
    source = _source(kind, tmp_path, monkeypatch)
    assert dict(count_words(source, num_proc=2, blocksize=16)) == EXPECTED_COUNTS


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["directory", "xz", "list_of_batches"])
def test_a_dask_cluster_reads_every_source_kind_alike(kind, tmp_path, monkeypatch):
    """On a local Dask cluster the counts are the hand-counted ones too."""
    pytest.importorskip("distributed")
    source = _source(kind, tmp_path, monkeypatch)
    assert dict(count_words(source, engine="dask", num_proc=1)) == EXPECTED_COUNTS


def test_a_url_expands_as_a_local_path_does(tmp_path):
    """A folder URL gives its non-hidden files, a glob URL skips hidden names it does not
    spell out, as local paths do; the same files in the same order."""
    pytest.importorskip("fsspec")
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    for name in ("x.txt", "sub/y.txt", ".hidden/z.txt", ".dot.txt"):
        (tmp_path / name).write_text("a\n", encoding="utf-8")
    url = tmp_path.as_uri()
    local = resolve_paths([str(tmp_path)])
    assert resolve_paths([url]) == [Path(p).as_uri() for p in local]
    assert resolve_paths([url + "/**/*.txt"]) == [Path(p).as_uri() for p in local]
    assert resolve_paths([url + "/.hidden/*.txt"]) == [(tmp_path / ".hidden/z.txt").as_uri()]


@pytest.mark.parametrize(("name", "message"), [
    ("nope.txt", "no such file or directory"), ("nope*.txt", "no file matches this URL"),
    ("empty", "the folder holds no file")])
def test_a_url_that_finds_nothing_is_named(tmp_path, name, message):
    """A URL naming no file says which URL and why."""
    pytest.importorskip("fsspec")
    (tmp_path / "empty").mkdir()
    url = tmp_path.as_uri() + "/" + name
    with pytest.raises(FileNotFoundError, match=f"^{re.escape(url)}: {message}$"):
        resolve_paths([url])
