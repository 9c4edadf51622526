"""Where the parts are scanned: in this process, or on a Dask cluster (a local one, or one at an address).

Dask distributed is the engine: pure Python from PyPI (no JVM as for Spark, no platform-specific
runtime as for Ray), a ``LocalCluster`` for one machine and CI, and the engine's own tooling for
clusters -- ``dask-jobqueue``'s ``SLURMCluster`` and ``dask-kubernetes``' operator, or
``dask scheduler`` / ``dask worker`` by hand. The workload fits its task model: a few thousand
independent tasks (one per part) that each read a file and return a small result, and one large
read-only object (the item index) sent to every worker once with ``Client.scatter(broadcast=True)``.
The driver collects results as they finish, records each in the resume state and merges the hits;
the workers need this package (same version, ``decisionpivot[overlap]``) and read the inputs
themselves, so local paths must be visible to them (a shared file system) or be URLs.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.scan import PartResult, scan_part
from decisionpivot.overlap.sources import EXTRA, Part

CONNECT_SECONDS = 30
"""How long a Dask scheduler at an address may take to accept a connection and answer its handshake."""
LOCAL, DASK = "local", "dask"
ENGINES = (LOCAL, DASK)
WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": 33554432}
"""Set in every worker of a local cluster. Dask's nanny sets MALLOC_TRIM_THRESHOLD_, which turns off glibc's
adaptive mmap threshold: every array above 128 KiB is then a fresh mmap, and a worker spends as much time in
page faults as in the scan (measured: 0.98 s CPU for 50 MB instead of 0.50 s). With arrays of up to 32 MiB
served from the heap a worker scans as fast as one process. Clusters started by hand need the same variable
(docs/overlap.md)."""


def scan_here(index: ItemIndex, parts: Sequence[Part], text_column: str, done: Callable[[PartResult], None],
              progress: Callable[[int], None]) -> None:
    """Scan the parts one after the other in this process."""
    for part in parts:
        done(scan_part(index, part, text_column, progress))


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise DecisionPivotError(f"--engine dask needs Dask distributed ({EXTRA})") from None
    return distributed


def _check_reachable(address: str) -> None:
    """A refused TCP connection is said at once (the client would retry for its whole timeout)."""
    from distributed.comm import get_address_host_port

    if not address.startswith(("tcp://", "tls://")):
        return
    host, port = get_address_host_port(address)
    with socket.create_connection((host, port), timeout=CONNECT_SECONDS):
        pass


def _check_answers(address: str) -> None:
    """A scheduler that accepts connections and never answers is said after CONNECT_SECONDS (Dask's client
    waits for its handshake without a limit, whatever its own timeout)."""
    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=CONNECT_SECONDS), CONNECT_SECONDS)
        await comm.close()

    try:  # in a thread of its own: a caller may already run an event loop (a notebook), where asyncio.run fails
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, handshake()).result()
    except TimeoutError:
        raise DecisionPivotError(f"the Dask scheduler at {address} accepted a connection but did not answer in "
                                 f"{CONNECT_SECONDS} s; is a Dask scheduler (the same version) listening there?"
                                 ) from None


def scan_on_dask(index: ItemIndex, parts: Sequence[Part], text_column: str, done: Callable[[PartResult], None],
                 progress: Callable[[int], None], address: str | None = None, workers: int = 1) -> None:
    """Scan the parts on a Dask cluster: the one at ``address``, else a local cluster of ``workers`` processes."""
    distributed = _dask()
    cluster = None
    try:
        if address:
            _check_reachable(address)
            _check_answers(address)
            client = distributed.Client(address, timeout="30s")
        else:
            import dask

            with dask.config.set({f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}):
                cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                   host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                                   silence_logs=logging.ERROR)
            client = distributed.Client(cluster)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"the Dask scheduler at {address}" if address else f"a local Dask cluster of {workers} worker(s)"
        raise DecisionPivotError(f"cannot reach {where} ({exc})") from None
    run = uuid.uuid4().hex[:8]
    futures: list[Any] = []
    try:
        shared = client.scatter(index, broadcast=True, hash=False)
        futures = [client.submit(scan_part, shared, part, text_column, key=f"dp-overlap-{run}-{i}", pure=False)
                   for i, part in enumerate(parts)]
        by_key = {future.key: part for future, part in zip(futures, parts, strict=True)}
        for future in distributed.as_completed(futures):
            try:
                result = future.result()
            except DecisionPivotError:
                raise
            except Exception as exc:
                part = by_key[future.key]
                raise DecisionPivotError(f"a Dask worker failed on {part.file.url} ({type(exc).__name__}: {exc}); "
                                         f"the workers need this package, the same version ({EXTRA})") from None
            done(result)
            progress(result.part.weight)
    finally:
        for future in futures:
            future.cancel()
        client.close()
        if cluster is not None:
            cluster.close()
