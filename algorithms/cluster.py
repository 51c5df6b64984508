"""All-sources measures over a Dask cluster: the sources cut into chunks, one partial sum per chunk.

Definition.  Each all-sources measure of this package is a sum over its sources, then rescaled::

    raw = Σ_{s ∈ S} f_s        f_s: the dependencies δ_s of betweenness (per vertex or per arc), or the
                               distance sums of s (closeness, harmonic, sum of distances)

so for any partition S = S_1 ∪ ... ∪ S_c of the sources, raw = Σ_i (Σ_{s ∈ S_i} f_s).
:func:`source_sums` computes raw on the workers of a ``dask.distributed`` client, and the calling
algorithm rescales it exactly as its single-device call does:

1. the workers are probed: none, or workers where spla does not import, is a :class:`spla.ClusterError`
   naming the fix; each worker reports the device it computes on (:func:`worker_device`);
2. the graph's pattern (with its values, for arc lengths, when the algorithm asks) is sent once per
   client, a host copy scattered to every worker (``broadcast=True``) and its future kept in the
   matrix's cache (:func:`scattered`), so a later call on the same Matrix and client sends nothing:
   the workers hold the graph while the Matrix lives (``M.drop_cached("cluster_scatter")`` lets it
   go); each worker moves it to its own device once (cached on the worker's copy);
3. S is cut, in its order, into chunks (:func:`chunks`): about ``cluster_chunks_per_worker`` full
   chunks per worker, then a tail of shrinking chunks so that the workers finish together (tunables
   in ``spla.tuning``; at least ``cluster_min_chunk`` sources, whole 64-source words); a sampled S
   (betweenness' ``k``) is cut the same way, so the sample is the single-device call's;
4. one task per chunk runs the algorithm's own single-device code (the ``chunk`` function the algorithm
   gives) on its worker's device, and returns the chunk's partial sum on the host;
5. the partial sums are added by a binary tree of submitted tasks, paired in chunk order: the same
   chunks give the same additions, and the answer differs from the single-device one only in the order
   of its additions.

Faults: every task is submitted with ``retries`` (:data:`RETRIES`), and the scheduler gives the
chunks of a worker that dies to the others (its scattered graph is copied to them from a worker that
holds one); a chunk that runs out of device memory past the algorithm's own batch halving is split in
two and each half run in turn (:func:`run_chunk`), down to one source.

The client is used through its own methods only (``run``, ``scatter``, ``submit``, ``cancel``, and its
futures' ``add_done_callback``, ``done`` and ``result``): this module imports nothing of Dask.  Which
device a worker computes on: "gpu" (its ``gpu:0``) when CuPy sees a GPU there, else "cpu".  A
``dask cuda worker`` (or ``dask_cuda.LocalCUDACluster``) sees one GPU per worker
(``CUDA_VISIBLE_DEVICES``), so each worker computes on its own; plain ``dask worker`` processes of a
host of several GPUs would all use the first one.
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid

import numpy as np

import spla
from spla.matrix import declare_cache

from ._common import to_numpy

log = logging.getLogger("spla")

#: how often Dask reruns a chunk or a sum whose task raised, before the call fails with its error
#: (a chunk lost with its worker is rerun by the scheduler, whatever this says)
RETRIES = 3

WORKER_COPY = declare_cache("cluster_device", "a Dask worker's copy of a scattered graph, on the worker's device")
SCATTERED = declare_cache("cluster_scatter", "the future of the graph scattered to a Dask client's workers, per "
                                             "client and with or without values")

_FIX_WORKERS = ("start workers for it: `dask worker ADDRESS` on each host (`dask cuda worker ADDRESS` for one "
                "worker per GPU, pip install \"spla[dask-cuda]\"), or a LocalCluster with n_workers >= 1")
_FIX_PACKAGE = ("install spla where the workers run (pip install spla, the same version as here: "
                f"{spla.__version__}) and restart them")
_copy_lock = threading.Lock()
#: what a worker evaluates to say whether spla is importable there
_HAS_SPLA = "__import__('importlib.util').util.find_spec('spla') is not None"


def check_client(client):
    """Refuse, at the door, a ``client`` that is not a ``dask.distributed.Client`` (by its methods)."""
    if client is None:
        return
    missing = [m for m in ("run", "scatter", "submit", "cancel") if not callable(getattr(client, m, None))]
    if missing:
        raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__} (it has no "
                        f"{', '.join(missing)})")


def worker_device() -> str:
    """The device a worker computes on: "gpu:0" (the first GPU it sees) when CuPy sees one, else "cpu"."""
    return spla.device.resolve("auto")


def probe(client) -> dict:
    """{worker address: device} of the client's workers; :class:`spla.ClusterError` naming the fix when
    there are none, or where spla does not import."""
    try:
        # a builtin shipped by name, so that it runs where spla does not import
        found = client.run(eval, _HAS_SPLA)
    except Exception as exc:
        raise spla.ClusterError(f"the Dask cluster did not answer a probe of its workers ({type(exc).__name__}: "
                                f"{exc})") from exc
    if not found:
        raise spla.ClusterError(f"the Dask cluster has no workers; {_FIX_WORKERS}")
    lacking = sorted(addr for addr, has in found.items() if not has)
    if lacking:
        raise spla.ClusterError(f"spla is not installed on {len(lacking)} of the {len(found)} Dask workers "
                                f"({', '.join(lacking[:3])}{', ...' if len(lacking) > 3 else ''}); {_FIX_PACKAGE}")
    try:
        return client.run(worker_device)
    except Exception as exc:
        raise spla.ClusterError(f"the Dask workers cannot run spla ({type(exc).__name__}: {exc}); "
                                f"{_FIX_PACKAGE}") from exc


def chunks(sources: np.ndarray, workers: int) -> list:
    """``sources`` cut, in order, into chunks for ``workers`` workers (guided self-scheduling).

    Full chunks, a ``cluster_chunks_per_worker``-th of a worker's share each, while the sources left
    fill at least two per worker; then each chunk takes a (2 · workers)-th of what is left, down to a
    ``cluster_tail_shrink``-th of a full chunk.  Equal chunks would leave a worker that got one more than
    the others running alone for a whole chunk at the end; the shrinking tail bounds that wait by the
    smallest chunk.  One worker has no one to wait for and gets full chunks only.  Every chunk is at
    least ``cluster_min_chunk`` sources, rounded up to whole 64-source words (the last one excepted)."""
    t = spla.tuning.current()
    nsrc = len(sources)

    def words(x):
        return 64 * -(-x // 64)

    full = words(max(-(-nsrc // max(1, t.cluster_chunks_per_worker * workers)), t.cluster_min_chunk))
    least = full if workers < 2 else words(max(full // t.cluster_tail_shrink, t.cluster_min_chunk))
    parts, lo = [], 0
    while lo < nsrc:
        size = min(full, max(least, words(-(-(nsrc - lo) // (2 * workers)))))
        parts.append(sources[lo:lo + size])
        lo += size
    return parts


def add(a, b):
    """a + b of two partial sums: arrays, or tuples of arrays (and None) added entry by entry."""
    if isinstance(a, tuple):
        return tuple(None if x is None else x + y for x, y in zip(a, b))
    return a + b


def run_chunk(graph, chunk, sources, options, tuning=None):
    """One chunk on this worker: ``chunk(M, sources, **options)`` with M the worker's device copy of
    ``graph`` (made once per worker and graph) under the caller's tunables, its sums on the host.  Out
    of device memory (past the algorithm's own batch halving), the sources are split in two halves run
    in turn, down to one source."""
    device = worker_device()
    with _copy_lock:
        M = graph.cached((WORKER_COPY, device), lambda: graph.to(device))
    with spla.device.activate(M.device), _tunables(tuning):
        return _split_on_oom(M, chunk, np.asarray(sources), options)


def _split_on_oom(M, chunk, sources, options):
    try:
        return _host(chunk(M, sources, **options))
    except Exception as exc:
        if not _is_oom(exc) or isinstance(exc, spla.DeviceMemoryError) or len(sources) < 2:
            raise
    spla.memory.release(M.device)
    half = len(sources) // 2
    log.warning("cluster chunk of %d sources ran out of memory on %s; running it as two halves",
                len(sources), M.device)
    return add(_split_on_oom(M, chunk, sources[:half], options), _split_on_oom(M, chunk, sources[half:], options))


def _is_oom(exc) -> bool:
    """Whether ``exc`` says a device ran out of memory (MemoryError, or CuPy's OutOfMemoryError)."""
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


def _host(x):
    return tuple(None if y is None else to_numpy(y) for y in x) if isinstance(x, tuple) else to_numpy(x)


def _tunables(tuning):
    """The caller's tunables in force on the worker (a worker's own are the defaults)."""
    if tuning is None or tuning == spla.tuning.DEFAULT:
        return spla.tuning.override()
    return spla.tuning.override(**{name: getattr(tuning, name) for name in spla.tuning.Tuning.describe()})


def source_sums(client, M, sources, chunk, *, progress=None, values=False, **options):
    """Σ over ``sources`` of the algorithm's per-source sums, computed on the client's workers: the raw
    sums ``chunk(M, sources, **options)`` returns (an array, or a tuple of arrays and None) for all of
    ``sources`` at once, on M's device.  ``chunk`` is a module-level function of the algorithm (Dask
    ships it by name); ``progress(done, total)`` is called as chunks complete, from this thread.  The
    workers get M's pattern, or M with its values (arc lengths) when ``values``."""
    sources = np.asarray(to_numpy(sources), dtype=np.int64)
    if len(sources) == 0:
        return chunk(M, sources, **options)
    devices = probe(client)
    parts = chunks(sources, len(devices))
    token = uuid.uuid4().hex[:8]
    log.info("cluster %s: %d sources in %d chunks on %d workers (%s)", token, len(sources), len(parts),
             len(devices), ", ".join(sorted(set(devices.values()))))
    graph = scattered(client, M, values)
    done = queue.Queue()
    tuning = spla.tuning.current()
    futures = []
    for i, part in enumerate(parts):
        # S_i = Σ_{s ∈ chunk i} f_s                       (the single-device code, on a worker's device)
        f = client.submit(run_chunk, graph, chunk, part, options, tuning, key=f"spla-chunk-{token}-{i}",
                          retries=RETRIES, pure=False)
        f.add_done_callback(done.put)
        futures.append(f)
    level, sums = futures, []
    while len(level) > 1:
        # S_{i,j} = S_i + S_j                             (pairs in chunk order: a binary tree)
        nxt = [client.submit(add, level[j], level[j + 1], key=f"spla-sum-{token}-{len(sums) + j // 2}",
                             retries=RETRIES, pure=False)
               for j in range(0, len(level) - 1, 2)]
        level = nxt + level[-1:] if len(level) % 2 else nxt
        sums.extend(nxt)
    final = level[0]
    try:
        _report(done, futures, parts, final, progress, token)
        result = final.result()
    except BaseException:
        client.cancel(futures + sums)
        raise
    return _on_device(result, M.device)


def scattered(client, M, values):
    """The future of M's pattern (or M with its values) on every worker of ``client``: scattered on the
    first call for this client and kept in M's cache; scattered again when the client no longer runs
    or the data was lost with every worker that held it."""
    key = (SCATTERED, id(client), bool(values))  # the future holds its client: the id stays its own

    def scatter():
        return client.scatter((M if values else M.pattern()).to("cpu"), broadcast=True, hash=False)

    future = M.cached(key, scatter)
    if getattr(future, "status", "finished") != "finished" or getattr(client, "status", "running") != "running":
        M.drop_cached(SCATTERED)
        future = M.cached(key, scatter)
    return future


def _report(done, futures, parts, final, progress, token):
    """Feed ``progress`` with the sources of the chunks as they complete; return when every chunk is
    done or the sum is (an error ends it)."""
    sizes = {f.key: len(p) for f, p in zip(futures, parts)}
    total = sum(sizes.values())
    seen, count = set(), 0
    while len(seen) < len(futures) and not final.done():
        try:
            f = done.get(timeout=0.2)
        except queue.Empty:
            continue
        if f.key in seen or f.status != "finished":
            continue
        seen.add(f.key)
        count += sizes[f.key]
        log.debug("cluster %s: chunk %s done (%d of %d sources)", token, f.key, count, total)
        if progress is not None:
            progress(count, total)
    if progress is not None and count < total and final.done() and final.status == "finished":
        progress(total, total)  # the sum is there: chunks whose callbacks are still on their way are done


def _on_device(x, device):
    move = (lambda y: None if y is None else spla.device.to_device(y, device))
    return tuple(move(y) for y in x) if isinstance(x, tuple) else move(x)
