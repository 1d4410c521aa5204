"""Count words on a ``dask.distributed`` cluster: one task per file block, tree-reduced.

Used by ``count_words(..., engine="dask", scheduler=...)``. Workers read the files
themselves, so paths must be visible to them: a shared filesystem, or an fsspec URL
(``s3://…``). Texts from an iterable or stdin are read here and sent to the cluster in
batches. ``connect`` is also how the command line's distributed ``encode`` reaches its
cluster: one way to connect for every Dask job.

With a checkpoint or ``max_distinct_words``, each partial count is brought back to this
process as its task finishes (see ``counting.Collector``), so both work as locally.

Not handled here: cluster deployment (see docs/training.md); retries beyond dask's own (except
re-running a gathered task whose result a lost worker held);
what a task does (``count_tasks``).
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator, Mapping

from ..errors import check_thread_count, require
from .count_tasks import Meter, merge_partials, run_task, tasks

SPLIT_EVERY = 8  # partial counts summed per reduce task
MAX_IN_FLIGHT = 64  # stream batches submitted ahead of their results


@contextlib.contextmanager
def connect(scheduler=None, num_proc: int | None = None) -> Iterator:
    """Yield a ``distributed.Client`` for ``scheduler``, closing what was opened here.

    ``scheduler``: a ``Client`` (used as it is, left open), an address
    (``"tcp://host:8786"``) or a cluster object (a client is opened on it), or ``None``
    to start a ``LocalCluster`` of ``num_proc`` (default: all cores) single-threaded
    worker processes for the duration of the block.
    """
    distributed = require("distributed", "dask")
    check_thread_count(num_proc, "num_proc")
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler is not None:
        with distributed.Client(scheduler) as client:
            yield client
        return
    workers = num_proc or os.cpu_count() or 1
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        yield client


# how many times a task whose result a lost worker held is run before giving up
LOST_RESULT_TRIES = 3


def count_dask(units, pipeline, *, scheduler=None, num_proc=None, collector) -> Mapping:
    """Map ``units`` (from ``sources.plan``) over the cluster and sum the counts.

    Partial counts are summed on the cluster (a tree of reduce tasks), unless
    ``collector`` records a checkpoint or bounds the words kept: then each partial is
    brought here as its task finishes, recorded and summed by the collector.
    """
    with connect(scheduler, num_proc) as client:
        distributed = require("distributed", "dask")
        if collector.saved is not None or collector.total.max_words is not None:
            _map_gathered(distributed, client, units, pipeline, collector)
            return collector.total.result()
        partials = _map(distributed, client, units, pipeline, collector.meter)
        if not partials:
            return Counter()
        return _tree_reduce(client, partials).result()


def _map(distributed, client, units, pipeline, meter: Meter):
    """Submit one counting task per block or text batch; return their futures."""
    partials, in_flight = [], distributed.as_completed()
    sizes = {}
    remote_pipeline = client.scatter(pipeline, broadcast=True)
    for kind, payload, size in tasks(units):
        future = client.submit(run_task, kind, payload, remote_pipeline, pure=False)
        partials.append(future)
        sizes[future.key] = size
        in_flight.add(future)
        if kind == "texts" and in_flight.count() >= MAX_IN_FLIGHT:
            _report(next(in_flight), sizes, meter)  # bound what a stream holds
    for future in in_flight:
        _report(future, sizes, meter)
    return partials


def _map_gathered(distributed, client, units, pipeline, collector) -> None:
    """Submit the tasks still to run; hand each partial to ``collector`` as it finishes."""
    in_flight, waiting = distributed.as_completed(), {}
    remote_pipeline = client.scatter(pipeline, broadcast=True)

    def submit(number, kind, payload, size, tries: int = 0) -> None:
        future = client.submit(run_task, kind, payload, remote_pipeline, pure=False)
        waiting[future.key] = (number, kind, payload, size, tries)
        in_flight.add(future)

    for number, kind, payload, size in collector.pending(units):
        submit(number, kind, payload, size)
        if in_flight.count() >= MAX_IN_FLIGHT:
            _gather(distributed, next(in_flight), waiting, collector, submit)
    for future in in_flight:
        _gather(distributed, future, waiting, collector, submit)


def _gather(distributed, future, waiting: dict, collector, submit) -> None:
    """Hand ``future``'s partial to ``collector``; run its task again if its result was lost.

    A partial held by a worker that dies before it is fetched is cancelled by the
    scheduler ("cancelled for reason: unknown"), not recomputed: the task is submitted
    again, up to ``LOST_RESULT_TRIES`` times.
    """
    number, kind, payload, size, tries = waiting.pop(future.key)
    try:
        partial = future.result()  # raises the worker's error here, with its message
    except distributed.client.FutureCancelledError:
        if tries + 1 >= LOST_RESULT_TRIES:
            raise
        submit(number, kind, payload, size, tries + 1)
        return
    collector.finish(number, payload, size, partial)
    future.release()


def _report(future, sizes, meter: Meter) -> None:
    if future.status == "error":
        future.result()  # raise the worker's error here, with its message
    meter.add(sizes.get(future.key, 0))  # the partial stays on the cluster: words unknown


def _tree_reduce(client, futures):
    """Sum partial counts ``SPLIT_EVERY`` at a time until one future is left."""
    while len(futures) > 1:
        futures = [client.submit(merge_partials, *futures[i:i + SPLIT_EVERY], pure=False)
                   for i in range(0, len(futures), SPLIT_EVERY)]
    return futures[0]
