"""Count words on a ``dask.distributed`` cluster: one task per file block, tree-reduced.

Used by ``count_words(..., engine="dask", scheduler=...)``. ``scheduler`` is an address
(``"tcp://host:8786"``), a ``distributed.Client``, a cluster object, or ``None`` to start
a ``LocalCluster`` of ``num_proc`` single-threaded worker processes for the duration of
the call. Workers read the files themselves, so paths must be visible to them: a shared
filesystem, or an fsspec URL (``s3://…``). Texts from an iterable or stdin are read here
and sent to the cluster in batches.

Not handled here: cluster deployment (see docs/training.md); retries beyond dask's own.
"""

from __future__ import annotations

import os
from collections import Counter

from ..errors import require

SPLIT_EVERY = 8  # partial counts summed per reduce task
MAX_IN_FLIGHT = 64  # stream batches submitted ahead of their results


def count_dask(units, pipeline, *, scheduler=None, num_proc=None, progress=None) -> Counter:
    """Map ``units`` (from ``sources.plan``) over the cluster and sum the counts."""
    distributed = require("distributed", "dask")
    from .counting import _Meter

    client, owned = _connect(distributed, scheduler, num_proc)
    try:
        meter = _Meter(units, progress)
        partials = _map(distributed, client, units, pipeline, meter)
        if not partials:
            return Counter()
        return _tree_reduce(client, partials).result()
    finally:
        for thing in owned:
            thing.close()


def _connect(distributed, scheduler, num_proc):
    """Return (client, things to close when done)."""
    if isinstance(scheduler, distributed.Client):
        return scheduler, []
    if scheduler is not None:
        client = distributed.Client(scheduler)
        return client, [client]
    workers = num_proc or os.cpu_count() or 1
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0")
    client = distributed.Client(cluster)
    return client, [client, cluster]


def _map(distributed, client, units, pipeline, meter):
    """Submit one counting task per block or text batch; return their futures."""
    from .counting import run_task, tasks

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


def _report(future, sizes, meter) -> None:
    if future.status == "error":
        future.result()  # raise the worker's error here, with its message
    if meter.progress is not None:
        meter.done += sizes.get(future.key, 0)
        meter.progress("count", done=meter.done, total=meter.total, words=None)


def _tree_reduce(client, futures):
    """Sum partial counts ``SPLIT_EVERY`` at a time until one future is left."""
    from .counting import merge_partials

    while len(futures) > 1:
        futures = [client.submit(merge_partials, *futures[i:i + SPLIT_EVERY], pure=False)
                   for i in range(0, len(futures), SPLIT_EVERY)]
    return futures[0]

