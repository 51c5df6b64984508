"""The CPU backend's weighted shortest paths: one Dijkstra per source, compiled, over all cores.

Definition (identical on the GPU, ``spla.backends.gpu.sssp``).  Arc u -> v for each stored
A[u, v], its length w(u, v) from ``spla.weights.check_lengths`` (1 for a pattern-only matrix);
self-loops lie on no shortest path::

    d(s) = 0;   d(v) = min over arcs u -> v of fl(d(u) + w(u, v))   (float64, summed in path order,
                                                                    as networkx's Dijkstra sums)
    tight arc u -> v:  u != v and fl(d(u) + w(u, v)) == d(v)
    h(s) = 0;   h(v) = min over tight arcs u -> v of h(u) + 1       (fewest arcs among the shortest paths)
    DAG arc:    a tight arc u -> v with (d(u), h(u)) < (d(v), h(v)) lexicographically
    σ(s) = 1;   σ(v) = Σ_{DAG arcs u -> v} σ(u)
    δ(v) = Σ_{DAG arcs v -> w} σ(v)/σ(w) · (1 + δ(w));   arc sum on DAG arc v -> w: σ(v)/σ(w) · (1 + δ(w))

The h rule only decides arcs between vertices at equal distance (zero-length arcs, or a length
absorbed by rounding): it keeps the DAG acyclic, so a cycle of zero-length arcs counts once.
Without such arcs every tight arc has d(u) < d(v) and the DAG is networkx's.

Each source is one Dijkstra whose heap (binary, indexed by vertex, decrease-key in place) is keyed
by (d, h): a relaxed arc's key (fl(d(u) + w), h(u) + 1) is above its tail's, so a popped vertex's
key is final and the pop order is a topological order of the DAG.  When a vertex is popped its σ is
pulled along its in-arcs from the DAG arcs' tails (all popped before it) and those arcs' positions in
A's CSC order are recorded; the sweep back in reverse pop order accumulates δ, and the arc sums land
directly at those positions (A's CSC order, no permutation).  The sources are dealt to the workers
in turn (worker t takes sources t, t + T, ...), each with its own workspace and accumulator, summed at
the end; calls whose sources times arcs are below the tunable ``sssp_parallel_min_arcs`` run on
the calling thread.  The loops are compiled by numba (:mod:`spla.backends.cpu_sssp_kernels`,
``cache=True``) on first use, as :mod:`spla.backends.cpu_paths`' are.

σ beyond float64: σ(v) is held as σ̃(v) · 2^e(v); a pulled sum whose σ̃ exceeds 2^512 is brought into
[0.5, 1) and its power of two moved into e(v), and the sweep's ratios σ(u)/σ(w) are formed as
σ̃(u)/σ̃(w) · 2^(e(u) - e(w)).  Powers of two scale exactly, so the sums keep float64's relative
precision however large σ grows; only ``shortest_paths(counts=True)``, which returns σ itself, gives
inf past float64's range.

Needs: the out-arcs with their lengths (A.T's CSC arrays and values, built once and cached on A for
a directed graph) and the in-arcs with theirs (A's CSC arrays).  Memory per worker: 40 bytes per vertex
(d, σ̃, δ, e, the heap's d keys), five int64 per vertex (heap slot, heap entry, pop order, h, DAG
offsets), one index per arc (the DAG, for dependencies), and an accumulator of n (vertices) or nnz
(arcs) float64.  Graphs of fewer than 2^31 vertices (a heap entry packs h and the vertex).

Without numba the distances (``weighted_distance_sums``, ``shortest_paths`` without counts) come from
SciPy's ``csgraph.dijkstra`` instead (:func:`scipy_distance_sums`, :func:`scipy_shortest_paths`): it sums
each path in path order too, so its distances are the same floats; the dependencies and σ need numba.
"""

from __future__ import annotations

import numpy as np

from .. import tuning
from ..errors import InvalidGraph
from ..matrix import declare_cache
from ..weights import check_lengths
from . import cpu_loops

__all__ = ["available", "threads", "weighted_dependencies", "weighted_distance_sums", "shortest_paths",
           "scipy_distance_sums", "scipy_shortest_paths"]

LENGTHS_KEY = declare_cache("sssp_lengths", "the arc lengths as float64 in A's CSC order and in A.T's (out-arcs)")

_LOOPS = "cpu_sssp_kernels"


def _compile():
    """The compiled loops (imported on first use), or None without numba."""
    return cpu_loops.load(_LOOPS)[0]


def available() -> tuple[bool, str]:
    """(whether the compiled Dijkstra can run here, why not when it cannot)."""
    kernels, why = cpu_loops.load(_LOOPS)
    return kernels is not None, why


def threads() -> int:
    """numba's thread count, or 1 when numba is not importable."""
    return cpu_loops.threads(_LOOPS)


def _lengths(A):
    """(in_len, out_len): float64 arc lengths in A's CSC order and in A.T's (every length 1 for a
    pattern-only matrix).  Cached on A."""
    def build():
        w = check_lengths(A)
        if w is None:
            w = np.ones(A.nnz, dtype=np.float64)
            return w, w
        T = A.T
        out = w if T is A else np.asarray(T.values, dtype=np.float64)
        return np.ascontiguousarray(w), np.ascontiguousarray(out)
    return A.cached(LENGTHS_KEY, build)


def _setup(A, sources, workers, dag_arcs):
    """The arrays every call passes: the arcs, their lengths, the sources, and the workers' workspaces."""
    kernels = _compile()
    T = A.T  # column v of A.T lists the heads of v's out-arcs; column w of A the tails of w's in-arcs
    in_len, out_len = _lengths(A)
    n, nnz = A.shape[0], A.nnz
    if n >= kernels.MAX_VERTICES:
        raise InvalidGraph(f"the CPU's weighted searches take graphs of fewer than 2^31 vertices; this one has {n:,}")
    idx = A.rowidx.dtype
    small = len(sources) * max(nnz, n) < tuning.current().sssp_parallel_min_arcs
    workers = 1 if small else int(max(1, min(workers, len(sources))))
    ws = np.zeros((workers, kernels.WS_ROWS, n + 1), dtype=np.int64)  # heap entries pack two keys
    ws[:, kernels.POS] = -1
    fs = np.zeros((workers, kernels.FS_ROWS, n), dtype=np.float64)
    fs[:, kernels.DIST] = np.inf
    ex = np.zeros((workers, n), dtype=np.int64)
    dag = np.empty((workers, nnz if dag_arcs else 0), dtype=idx)
    arcs = (T.colptr, T.rowidx, out_len, A.colptr, A.rowidx, in_len, np.ascontiguousarray(sources, dtype=np.int64))
    return kernels, workers, arcs, ws, fs, ex, dag


def weighted_dependencies(A, sources, *, edges, endpoints, workers):
    """Σ_{s in sources} of the weighted dependencies (see the module docstring) on ``workers`` threads:
    (n,) float64 δ sums (the endpoints counted when asked), or with ``edges`` (nnz,) arc sums in A's
    CSC order.  The caller checks the arguments, the lengths and that :func:`available`."""
    kernels, workers, arcs, ws, fs, ex, dag = _setup(A, sources, workers, True)
    acc = np.zeros((workers, A.nnz if edges else A.shape[0]), dtype=np.float64)
    run = kernels.run_dependencies_here if workers == 1 else kernels.run_dependencies
    with cpu_loops.LOCK:
        run(*arcs, bool(edges), bool(endpoints), ws, fs, ex, dag, acc)
    return acc.sum(axis=0) if workers > 1 else acc[0]


def weighted_distance_sums(A, sources, *, outgoing, workers):
    """Per vertex (``outgoing``: per source), over the sources that reach it (the vertices it reaches):
    (Σ d float64 (n,), count int64 (n,) itself included, Σ_{d > 0} 1/d float64 (n,)), one Dijkstra per
    source on ``workers`` threads.  The caller checks the arguments, the lengths and that :func:`available`."""
    kernels, workers, arcs, ws, fs, ex, dag = _setup(A, sources, workers, False)
    n = A.shape[0]
    dist = np.zeros((workers, n), dtype=np.float64)
    reach = np.zeros((workers, n), dtype=np.int64)
    harm = np.zeros((workers, n), dtype=np.float64)
    run = kernels.run_distances_here if workers == 1 else kernels.run_distances
    with cpu_loops.LOCK:
        run(*arcs, bool(outgoing), ws, fs, ex, dag, dist, reach, harm)
    return dist.sum(axis=0), reach.sum(axis=0), harm.sum(axis=0)


def shortest_paths(A, sources, *, counts, workers):
    """(dist (k, n) float64, inf where not reached; σ (k, n) float64, 0 where not reached, or None
    without ``counts``): row i from sources[i], one Dijkstra per source on ``workers`` threads."""
    kernels, workers, arcs, ws, fs, ex, dag = _setup(A, sources, workers, bool(counts))
    k, n = len(sources), A.shape[0]
    dist = np.full((k, n), np.inf, dtype=np.float64)
    sigma = np.zeros((k, n) if counts else (0, 0), dtype=np.float64)
    run = kernels.run_paths_here if workers == 1 else kernels.run_paths
    with cpu_loops.LOCK:
        run(*arcs, bool(counts), ws, fs, ex, dag, dist, sigma)
    return dist, (sigma if counts else None)


# --------------------------------------------------------------------------- without numba: SciPy's Dijkstra
#: (k, n) float64 distances per block of SciPy's searches (8 bytes each)
SCIPY_BLOCK_ENTRIES = 1 << 24


def _scipy_blocks(A, sources):
    """(block of sources, its (len, n) distance rows) from ``scipy.sparse.csgraph.dijkstra``, which sums
    each path in path order as the compiled search does, so its distances are the same floats; explicit
    zeros are arcs of length 0 there too."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    in_len, _ = _lengths(A)
    # A's arcs with their lengths, explicit zeros kept (tocsr drops none)
    S = sp.csc_array((in_len, np.asarray(A.rowidx), np.asarray(A.colptr)), shape=A.shape).tocsr()
    n = A.shape[0]
    step = max(1, SCIPY_BLOCK_ENTRIES // max(n, 1))
    for lo in range(0, len(sources), step):
        block = np.asarray(sources[lo:lo + step])
        yield block, np.atleast_2d(dijkstra(S, directed=True, indices=block))


def scipy_distance_sums(A, sources, *, outgoing):
    """:func:`weighted_distance_sums` by SciPy's Dijkstra (no numba): the same counts and distances, the
    float sums added in another order (within rounding of the compiled ones)."""
    n = A.shape[0]
    dist = np.zeros(n, dtype=np.float64)
    reach = np.zeros(n, dtype=np.int64)
    harm = np.zeros(n, dtype=np.float64)
    for block, D in _scipy_blocks(A, sources):
        fin = np.isfinite(D)
        d = np.where(fin, D, 0.0)
        inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0)
        if outgoing:
            np.add.at(dist, block, d.sum(axis=1))
            np.add.at(reach, block, fin.sum(axis=1))
            np.add.at(harm, block, inv.sum(axis=1))
        else:
            dist += d.sum(axis=0)
            reach += fin.sum(axis=0)
            harm += inv.sum(axis=0)
    return dist, reach, harm


def scipy_shortest_paths(A, sources):
    """:func:`shortest_paths` without counts, by SciPy's Dijkstra (no numba): the same distances."""
    out = np.empty((len(sources), A.shape[0]), dtype=np.float64)
    row = 0
    for block, D in _scipy_blocks(A, sources):
        out[row:row + len(block)] = D
        row += len(block)
    return out
