"""The Dask engine counts on a real dask.distributed cluster exactly as the local engine."""

import pytest

from tests.shared_data import corpus_lines, shared_path
from wordpieces.errors import FormatError
from wordpieces.learn.counting import count_words
from wordpieces.pipeline.normalizers import BertNormalizer
from wordpieces.pipeline.pre_tokenizers import BertPreTokenizer

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def corpus_slice(tmp_path_factory):
    """A few thousand lines of English, Portuguese and Chinese, as three files."""
    folder = tmp_path_factory.mktemp("dask_corpus")
    for name, parts in {"en.txt": ("english", "tinyshakespeare.txt"),
                        "pt.txt": ("portuguese", "machado_dom_casmurro.txt"),
                        "zh.txt": ("multilingual", "zh_cao_xueqin_hongloumeng.txt")}.items():
        with open(shared_path("corpora", *parts), "rb") as f:
            head = [line for _, line in zip(range(2000), f, strict=False)]
        (folder / name).write_bytes(b"".join(head))
    return folder


def test_dask_equals_local_on_shared_corpora(client, corpus_slice):
    """Blocks of three files counted on two workers equal the local engine's counts."""
    local = count_words(str(corpus_slice / "*.txt"), num_proc=1)
    remote = count_words(str(corpus_slice / "*.txt"), engine="dask", scheduler=client,
                         blocksize=30_000)
    assert remote == local and remote.fingerprint == local.fingerprint


def test_dask_by_address_with_tensorflow_flavor(client, corpus_slice):
    """A scheduler address works, and the pipeline travels to the workers."""
    options = {"normalizer": BertNormalizer(flavor="tensorflow", lowercase=False),
               "pre_tokenizer": BertPreTokenizer(flavor="tensorflow")}
    local = count_words(str(corpus_slice / "pt.txt"), num_proc=1, **options)
    remote = count_words(str(corpus_slice / "pt.txt"), engine="dask",
                         scheduler=client.scheduler.address, blocksize=20_000, **options)
    assert remote == local


def test_dask_counts_texts_from_an_iterable(client):
    """Texts from an iterator are sent in batches and counted remotely."""
    lines = corpus_lines("english", "the-verdict.txt") * 30
    assert (count_words(iter(lines), engine="dask", scheduler=client)
            == count_words(iter(lines), num_proc=1))


def test_dask_worker_errors_reach_the_caller(client, tmp_path):
    """A file error raised on a worker is raised here with its message."""
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nnot \xff fine\n")
    with pytest.raises(FormatError, match=r"bad\.txt:2"):
        count_words(str(path), engine="dask", scheduler=client)


def test_dask_starts_a_local_cluster_when_no_scheduler(corpus_slice):
    """With no scheduler the engine starts (and stops) its own LocalCluster."""
    got = count_words(str(corpus_slice / "en.txt"), engine="dask", num_proc=2,
                      blocksize=40_000)
    assert got == count_words(str(corpus_slice / "en.txt"), num_proc=1)
