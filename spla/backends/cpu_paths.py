"""The CPU backend's shortest-path dependencies: Brandes' per-source search, compiled, over all cores.

Definition (Brandes 2001; networkx ``_single_source_shortest_path_basic`` and ``_accumulate_*``)::

    δ_s(v)      = Σ_{w : v -> w on a shortest path from s} σ_sv / σ_sw · (1 + δ_s(w))
    arc(v -> w) = Σ_s σ_sv / σ_sw · (1 + δ_s(w))          (arcs with level(w) = level(v) + 1)

Each source is one breadth-first search that counts σ in float64 (as networkx) and records the
arcs of its shortest-path DAG, then one sweep back over its queue along those arcs only.  A level
of the search is pushed along its vertices' out-arcs, or pulled into the vertices not yet reached
along their in-arcs, whichever reads fewer arcs (the pull also scans the vertices, the tunable
``paths_pull_scan`` arcs' worth each): on graphs of few levels the last levels' out-arcs lead
mostly to vertices already reached, and the pull skips them.  A source's work is thus at most the
arcs it reaches, plus its DAG's arcs.  The sources are dealt to T workers in turn (worker t takes
sources t, t + T, t + 2T, ...), so that workers get sources of every kind; each worker owns its
workspace and its accumulator, summed at the end.  Calls whose sources times arcs are fewer than
the tunable ``paths_parallel_min_arcs`` run on the calling thread: waking the others would cost
more than they share.  The loops are compiled by numba
(``@njit(parallel=True, cache=True)``, in :mod:`spla.backends.cpu_paths_kernels`): the first call
on a machine compiles them once per index dtype and writes them to numba's cache (``__pycache__``
beside the module, or numba's user cache where that is read-only; ``NUMBA_CACHE_DIR`` moves it),
later processes load them.

Exactness: σ overflows float64 on graphs of many levels of many paths each (a chain of 1,100
diamonds has 2^1100 shortest paths).  A level whose σ may exceed RESCALE_ABOVE = 2^512 (a bound
grown by the largest in-degree per level, checked against the level's true largest σ when it
passes) is scaled by a power of two that brings its largest into [0.5, 1); the backward sweep
divides the step into that level by the same power.  Powers of two scale exactly, so the result
keeps float64's relative precision however large σ grows (the GPU paths scale the same way).

Needs: the out-arcs (CSR: A.T's CSC arrays, built once and cached on A for a directed graph) and
the in-arcs (A's CSC arrays, whose positions the arc sums are indexed by).  Memory per worker: 24
bytes per vertex (σ, the sweep's coefficients and the pulled ones, float64), seven indices per
vertex (level, queue, DAG offsets, per-level flags and exponents) and one per arc (the DAG), and an
accumulator of n (vertices) or nnz (arcs) float64.
"""

from __future__ import annotations

import numpy as np

from .. import tuning
from ..matrix import declare_cache
from . import cpu_loops

__all__ = ["available", "dependencies", "threads"]


ARC_ORDER_KEY = declare_cache("arc_order", "the position of each arc among the out-arcs (CSR order of A)")

_LOOPS = "cpu_paths_kernels"


def _compile():
    """The compiled loops (imported on first use), or None without numba."""
    return cpu_loops.load(_LOOPS)[0]


def available() -> tuple[bool, str]:
    """(whether the compiled per-source kernel can run here, why not when it cannot)."""
    kernels, why = cpu_loops.load(_LOOPS)
    return kernels is not None, why


def threads() -> int:
    """The worker threads the kernel runs on: numba's thread count (``NUMBA_NUM_THREADS``, default the
    machine's cores), or 1 when numba is not importable."""
    return cpu_loops.threads(_LOOPS)


def _arc_order(A):
    """For each arc of A in A's CSC order (sorted by head, then tail), its position among the out-arcs
    (A.T's CSC order: sorted by tail, then head).  Cached on A."""
    def build():
        T = A.T
        # T's entry p is the arc colidx[p] -> rowidx[p]; A's order sorts arcs by (head, tail)
        return np.lexsort((np.asarray(T.colidx), np.asarray(T.rowidx)))
    return A.cached(ARC_ORDER_KEY, build)


def dependencies(A, sources, *, edges, endpoints, workers):
    """Σ_{s in sources} of Brandes' dependencies on A's arcs, on ``workers`` threads (see the module
    docstring): (n,) float64 δ sums (the endpoints counted when asked), or with ``edges`` (nnz,)
    arc sums in A's CSC order.  The caller checks the arguments and that :func:`available`."""
    kernels = _compile()
    T = A.T  # column v of A.T lists the heads of v's out-arcs; column w of A the tails of w's in-arcs
    n, nnz = A.shape[0], A.nnz
    idx = A.rowidx.dtype
    order = _arc_order(A) if edges else np.zeros(0, dtype=idx)
    small = len(sources) * max(nnz, n) < tuning.current().paths_parallel_min_arcs
    workers = 1 if small else int(max(1, min(workers, len(sources))))
    ws = np.zeros((workers, 7, n + 1), dtype=idx)
    ws[:, 0] = -1  # every level "not reached"
    sigma = np.empty((workers, n), dtype=np.float64)
    coef = np.empty((workers, n), dtype=np.float64)
    pushed = np.zeros((workers, n), dtype=np.float64)
    dag = np.empty((workers, nnz), dtype=idx)
    acc = np.zeros((workers, nnz if edges else n), dtype=np.float64)
    indeg = A.in_degree()
    growth = float(max(1, int(indeg.max()) if indeg.size else 1))
    run = kernels.run_here if workers == 1 else kernels.run
    with cpu_loops.LOCK:
        run(T.colptr, T.rowidx, A.colptr, A.rowidx, order.astype(idx, copy=False),
            np.ascontiguousarray(sources, dtype=np.int64), growth, float(tuning.current().paths_pull_scan), bool(edges), bool(endpoints),
            ws, sigma, coef, pushed, dag, acc)
    total = acc.sum(axis=0) if workers > 1 else acc[0]
    return total[order] if edges else total


def distance_sums(A, sources, *, outgoing, workers):
    """Per vertex (``outgoing``: per source), over the sources that reach it (the vertices it reaches):
    (Σ d int64 (n,), count int64 (n,) itself included, Σ_{d >= 1} 1/d float64 (n,)), by one BFS per
    source on ``workers`` threads.  The caller checks the arguments and that :func:`available`."""
    kernels = _compile()
    T = A.T
    n, nnz = A.shape[0], A.nnz
    idx = A.rowidx.dtype
    small = len(sources) * max(nnz, n) < tuning.current().paths_parallel_min_arcs
    workers = 1 if small else int(max(1, min(workers, len(sources))))
    ws = np.empty((workers, 2, n), dtype=idx)
    ws[:, 0] = -1
    dist = np.zeros((workers, n), dtype=np.int64)
    reach = np.zeros((workers, n), dtype=np.int64)
    harm = np.zeros((workers, n), dtype=np.float64)
    run = kernels.run_distances_here if workers == 1 else kernels.run_distances
    with cpu_loops.LOCK:
        run(T.colptr, T.rowidx, A.colptr, A.rowidx, np.ascontiguousarray(sources, dtype=np.int64),
            float(tuning.current().paths_pull_scan), bool(outgoing), ws, dist, reach, harm)
    return dist.sum(axis=0), reach.sum(axis=0), harm.sum(axis=0)

