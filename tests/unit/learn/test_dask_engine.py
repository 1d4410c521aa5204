"""The Dask engine counts on a real dask.distributed cluster exactly as the local engine."""

import pytest

from tests.shared_data import corpus_lines, shared_path
from wordpieces.errors import FormatError
from wordpieces.learn.counting import count_words
from wordpieces.learn.dask_engine import connect
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


@pytest.mark.shared_data
def test_dask_equals_local_on_shared_corpora(client, corpus_slice):
    """Blocks of three files counted on two workers equal the local engine's counts."""
    local = count_words(str(corpus_slice / "*.txt"), num_proc=1)
    remote = count_words(str(corpus_slice / "*.txt"), engine="dask", scheduler=client,
                         blocksize=30_000)
    assert remote == local and remote.fingerprint == local.fingerprint


@pytest.mark.shared_data
def test_dask_by_address_with_tensorflow_flavor(client, corpus_slice):
    """A scheduler address works, and the pipeline travels to the workers."""
    options = {"normalizer": BertNormalizer(flavor="tensorflow", lowercase=False),
               "pre_tokenizer": BertPreTokenizer(flavor="tensorflow")}
    local = count_words(str(corpus_slice / "pt.txt"), num_proc=1, **options)
    remote = count_words(str(corpus_slice / "pt.txt"), engine="dask",
                         scheduler=client.scheduler.address, blocksize=20_000, **options)
    assert remote == local


@pytest.mark.shared_data
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


@pytest.mark.shared_data
def test_dask_starts_a_local_cluster_when_no_scheduler(corpus_slice):
    """With no scheduler the engine starts (and stops) its own LocalCluster."""
    got = count_words(str(corpus_slice / "en.txt"), engine="dask", num_proc=2,
                      blocksize=40_000)
    assert got == count_words(str(corpus_slice / "en.txt"), num_proc=1)


def test_connect_leaves_a_given_client_open(client):
    """A Client passed in is used as it is and still works after the block."""
    with connect(client) as got:
        assert got is client
    assert client.submit(sum, [1, 2]).result() == 3


def test_connect_by_address_closes_its_own_client(client):
    """An address opens a new client for the block and closes it at the end."""
    with connect(client.scheduler.address) as got:
        assert got is not client and got.submit(sum, [2, 3]).result() == 5
    assert got.status == "closed"


def test_connect_starts_single_threaded_workers_and_stops_them():
    """No scheduler: a LocalCluster of num_proc one-thread workers, closed at the end."""
    with connect(None, num_proc=2) as got:
        workers = got.scheduler_info()["workers"].values()
        assert sorted(w["nthreads"] for w in workers) == [1, 1]
        cluster = got.cluster
    assert got.status == "closed" and cluster.status.name == "closed"


def test_connect_refuses_a_bad_num_proc():
    """num_proc follows the one thread-count rule, before any cluster starts."""
    with pytest.raises(ValueError, match="num_proc must be a positive integer"), \
            connect(None, num_proc=0):
        pass
