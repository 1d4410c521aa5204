"""A Dask worker killed mid-count changes nothing with a checkpoint and a word bound either.

With ``checkpoint`` or ``max_distinct_words`` the Dask engine brings each partial count
back as its task finishes (no tree reduction on the cluster); this runs the real
scheduler and two worker processes of ``test_dask_worker_loss`` (its fixtures), kills
one worker once a share of the input is counted, and compares with a local count.
"""

from __future__ import annotations

import os
import warnings

import pytest

from tests.robustness.test_dask_worker_loss import (  # noqa: F401 (fixtures used by name)
    STARTUP_SECONDS,
    WORKERS,
    KillAt,
    cluster,
    corpus,
)
from wordpieces.learn.counting import CountsPrunedWarning, count_words

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

BLOCKSIZE = 16_384


def count_with_a_kill(cluster_file, corpus_dir, share, **options):
    with distributed.Client(scheduler_file=cluster_file) as client:
        killer = KillAt(client, share)
        counts = count_words(str(corpus_dir), engine="dask", scheduler=client,
                             blocksize=BLOCKSIZE, progress=killer, **options)
        assert killer.killed is not None, "the job ended before a worker could be killed"
        client.wait_for_workers(WORKERS, timeout=STARTUP_SECONDS)  # the nanny restarts it
    return counts


def test_checkpointed_count_survives_a_worker_kill(cluster, corpus, tmp_path):  # noqa: F811
    expected = count_words(str(corpus), num_proc=1, blocksize=BLOCKSIZE)
    folder = tmp_path / "ck"
    counts = count_with_a_kill(cluster, corpus, 0.4, checkpoint=folder)
    assert counts == expected
    blocks = [n for n in os.listdir(folder) if n.startswith("block-")]
    assert len(blocks) == sum(-(-p.stat().st_size // BLOCKSIZE) for p in corpus.iterdir())


def test_bounded_count_survives_a_worker_kill(cluster, corpus):  # noqa: F811
    expected = count_words(str(corpus), num_proc=1, blocksize=BLOCKSIZE).most_common(500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CountsPrunedWarning)
        counts = count_with_a_kill(cluster, corpus, 0.5, max_distinct_words=500)
    assert counts.most_common() == expected
