"""The row path of the GPU's weighted distances: a thread block per source, its distances a row of a
(k, n) array in global memory, its pending vertices a work queue in the block's shared memory and two
far lists in global scratch (``spla/kernels/sssp_rows.cuh``), for graphs too large for the small path.

:mod:`spla.backends.gpu.sssp` calls it for a block of k sources (its ``_Block``) whenever
:func:`runs_rows` says so: :func:`row_distances` writes the (k, n) source-major distances that
``shortest_paths`` returns, with no (n, k) array, no entry lists and no device-wide round; the
searches that go on from vertex-major distances (the dependencies, the sums) take its transpose.
A search's buckets are the list rounds' (:func:`spla.backends.gpu.sssp.bucket_width`); inside a
bucket its thread block's lanes take the queue's entries as relaxations fill it, with no barrier,
where the list rounds pay a launch (replayed) and a device-wide hand-off a round.

The Brandes sums (:func:`row_sums`) go on from those rows where no tight arc can join equal
distances: :func:`row_dependencies` runs Kahn's sweep for σ and the sweep back for δ, a thread block
per source on the same kind of queue (``spla_sssp_rows_deps``); the vertex sums add δ's rows, the arc
sums run the list path's ``spla_sssp_arc_sums`` over the transposes, every h 0.
"""

from __future__ import annotations

import numpy as np

from ... import tuning as _tuning
from ...device import any_true
from .compile import log
from .launch import nullable
from .sssp_small import launch_per_source, shared_per_block, ties_in

#: the row kernel's static shared memory (its queue's and far lists' counters and the warps' far
#: minima: 288 bytes, nvcc -Xptxas -v), with room to spare, within the block's
ROWS_STATIC_BYTES = 512
#: slots of a row search's work queue, which holds one phase's entries (the vertices a bucket relaxes,
#: with their repeats); a phase that enqueues more spills the rest to a bitmap in global memory and
#: runs again.  A bucket of USA-road-d.NY at the default width holds about 1,100 vertices.
ROWS_QUEUE = 2048
#: entries of each of a row search's two far lists (the vertices waiting for a later bucket), in
#: global memory: 12 bytes an entry, 48 KB a source
ROWS_FAR = 2048
#: threads of a row-path distance search's thread block: the kernel's registers allow 1,024 threads an
#: SM, and four searches of 256 on an SM finish more sources than two of 512 (a road network's bucket
#: comes a few hundred vertices at a time) while their queues leave the L1 room for the arcs
#: (docs/decisions/tuning.md, sssp_rows)
ROWS_BLOCK = 256
#: threads of a dependency sweep's thread block (spla_sssp_rows_deps, two an SM)
ROWS_DEPS_BLOCK = 512


def rows_bytes(cap=ROWS_QUEUE):
    """Shared memory one source's row search takes (SPLA_SSSP_ROWS_BYTES): a queue of ``cap`` entries,
    an entry a 32-bit vertex and a float64 distance."""
    return 12 * int(cap)


def runs_rows(n, device_id, lanes, t=None):
    """Whether a graph of n vertices runs its distances on the row path: its queue within the device's
    shared memory per block, and the tuning's sssp_rows: True, or "auto" where ``lanes``
    (the lanes per listed entry of :func:`spla.backends.gpu.sssp.entry_lanes`) is 1.  A hub's arcs
    walked by a few lanes of one thread block hold up its source's every phase: on Graph500's
    scale-16 graph the row path is slower than the list rounds, on USA-road-d.NY faster
    (docs/decisions/tuning.md, sssp_rows)."""
    t = _tuning.current() if t is None else t
    if t.sssp_rows is False or (t.sssp_rows == "auto" and lanes != 1):
        return False
    return 0 < n < 2 ** 31 and rows_bytes() <= shared_per_block(device_id) - ROWS_STATIC_BYTES


def row_distances(B, width, out=None, rounds=None, cap=ROWS_QUEUE, fcap=ROWS_FAR, threads=ROWS_BLOCK):
    """dist (k, n) float64 of the block's sources, row i for source i (``out``, C-contiguous (k, n),
    when given), from spla_sssp_rows with bucket width ``width`` (inf: Bellman-Ford); ``rounds`` (k,)
    int32, when given, receives the phases each source took.  ``cap`` and ``fcap`` size the queue and
    the far lists (the queue in shared memory, :func:`rows_bytes`), ``threads`` the thread block (a
    multiple of 32 up to 512): the tests shrink the lists to make entries spill, the probe sweeps all
    three."""
    cp = B.cp
    dist = cp.empty((B.k, B.n), dtype=np.float64) if out is None else out
    # where a phase's queue or far list fills: a bit a vertex, swept back between phases (left zero)
    spill = cp.zeros((B.k, -(-B.n // 32)), dtype=np.uint32)
    # a thread block's two far lists: fcap d's each, then their fcap vertices each (int32)
    far = cp.empty((B.k, 3 * int(fcap)), dtype=np.float64)
    # dist(s, ·) = d of the min.plus closure from s     (a thread block per source, its row in global memory)
    launch_per_source(B, "rows", rows_bytes(cap), threads,
                      (B.S.ocolptr, B.S.orowidx, B.S.olen, B.src_dev, np.int64(B.k), np.int32(B.n), np.int32(B.G),
                       np.float64(width), np.int32(cap), np.int32(fcap), dist, spill, far, nullable(rounds)))
    B.stats = {"rounds": None, "epochs": None, "listed": None}
    return dist


def row_dependencies(B, rows):
    """(σ, δ), each (k, n) float64 of the block's sources, row i for source i (δ's own entry left for the
    caller to zero), from their row-path distances ``rows`` (k, n) by spla_sssp_rows_deps: a thread
    block per source, Kahn's sweep for σ and the sweep back for δ, σ, the counts and the queues in
    (k, n) scratch.  Only where no tight arc can join equal distances (every h 0); None when a source's
    σ passed 2^512 (the list rounds, which rescale, run the block)."""
    cp, S, k, n = B.cp, B.S, B.k, B.n
    sigma = cp.empty((k, n), dtype=np.float64)
    delta = cp.empty((k, n), dtype=np.float64)
    cnt = cp.empty((k, n), dtype=np.int32)
    queue = cp.empty((k, n), dtype=np.int32)
    failed = cp.zeros(k, dtype=np.int32)
    # σ(s, ·), δ(s, ·) = path counts and Brandes dependencies over the DAG of tight arcs   (a block a source)
    launch_per_source(B, "rows_deps", 0, ROWS_DEPS_BLOCK,
                      (S.ocolptr, S.orowidx, S.olen, S.icolptr, S.irowidx, S.ilen, B.src_dev, np.int64(k),
                       np.int32(n), np.int32(B.G), rows, sigma, delta, cnt, queue, failed))
    if any_true(failed != 0):
        log.debug("gpu sssp: a source's path counts passed 2^512 on the row path; the list rounds run the block")
        return None
    return sigma, delta


def row_sums(B, rows, acc, *, edges, endpoints):
    """Adds the block's Brandes sums (``sssp.dependencies``: δ per vertex, with ``endpoints`` the reached
    pairs too, or with ``edges`` per arc in A's CSC order) into acc from its row-path distances ``rows``
    (k, n) (:func:`row_distances`), σ and δ by :func:`row_dependencies`; False, adding nothing, where a
    tight arc may join equal distances or a σ passed 2^512 (the list rounds go on from the same
    distances)."""
    cp, S = B.cp, B.S
    if ties_in(B, rows):
        return False
    got = row_dependencies(B, rows)
    if got is None:
        return False
    sigma, delta = got
    if edges:
        # acc[p] += Σ_s σ(u)/σ(w) (1 + δ(w)) on every DAG arc p = u -> w     (over the (n, k) transposes)
        dist_t = cp.ascontiguousarray(rows.T)
        sigma_t = cp.ascontiguousarray(sigma.T)
        del sigma
        delta_t = cp.ascontiguousarray(delta.T)
        del delta
        B.launch("arc_sums", B.n, B.Gs, (S.icolptr, S.irowidx, S.ilen, np.int64(B.n), np.int64(B.k), np.int32(B.Gs),
                                         dist_t, nullable(None), sigma_t, delta_t, nullable(None), acc))
        return True
    delta[cp.arange(B.k), B.src_dev] = 0.0  # a source's own dependency is not betweenness
    acc += delta.sum(axis=0)
    if endpoints:
        add_endpoints(cp, rows, B.src_dev, acc)
    return True


def add_endpoints(cp, rows, src, acc):
    """acc (n,) += the endpoints' terms of the vertex sums of the sources ``src`` (k,) on the device,
    from their distances ``rows`` (k, n) in any strides (inf where unreached): 1 at each vertex v != s
    that s reaches, and r_s - 1 at s itself, r_s the vertices s reaches (itself included)."""
    reached = (rows != np.inf).astype(np.float64)
    acc += reached.sum(axis=0)  # 1 at every vertex each source reaches, the source itself included
    # at v = s: -1 (itself, counted above) + r_s - 1
    acc += cp.bincount(src, weights=reached.sum(axis=1) - 2.0, minlength=acc.shape[0])
