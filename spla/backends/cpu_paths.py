"""The CPU backend's shortest-path dependencies: Brandes' per-source search, compiled, over all cores.

Definition (Brandes 2001; networkx ``_single_source_shortest_path_basic`` and ``_accumulate_*``)::

    δ_s(v)      = Σ_{w : v -> w on a shortest path from s} σ_sv / σ_sw · (1 + δ_s(w))
    arc(v -> w) = Σ_s σ_sv / σ_sw · (1 + δ_s(w))          (arcs with level(w) = level(v) + 1)

Each source is one breadth-first search that counts σ in float64 (as networkx), then one sweep
back over its queue: a source's work is the arcs its search reaches, twice.  The sources are dealt
to T workers in turn (worker t takes sources t, t + T, t + 2T, ...), so that workers get sources
of every kind; each worker owns its workspace and its accumulator, summed at the end.  The loops
are compiled by numba (``@njit(parallel=True, cache=True)``): the first call on a machine compiles
them once per index dtype and writes them to numba's cache, later processes load them.

Exactness: σ overflows float64 on graphs of many levels of many paths each (a chain of 1,100
diamonds has 2^1100 shortest paths).  A level whose σ may exceed RESCALE_ABOVE = 2^512 (a bound
grown by the largest in-degree per level, checked against the level's true largest σ when it
passes) is scaled by a power of two that brings its largest into [0.5, 1); the backward sweep
divides the step into that level by the same power.  Powers of two scale exactly, so the result
keeps float64's relative precision however large σ grows (the GPU paths scale the same way).

Needs: the out-arcs (CSR: A.T's CSC arrays) for the search and, with arcs, the in-arcs (A's CSC
arrays, whose positions the arc sums are indexed by).  Memory: 36 bytes per vertex and worker
(σ, the sweep's coefficients, δ in float64; level, queue; the levels' exponents) and one
accumulator per worker: n (vertices) or nnz (arcs) float64.
"""

from __future__ import annotations

import threading

import numpy as np

from ..matrix import declare_cache

__all__ = ["available", "dependencies", "threads"]

#: bytes per vertex of one worker's workspace (int64 indices: σ, coef, level, queue, exps, dag)
WORKSPACE_BYTES_PER_VERTEX = 44
#: bytes per arc of one worker's workspace (the shortest-path DAG's arcs, int64 indices)
WORKSPACE_BYTES_PER_ARC = 8

ARC_ORDER_KEY = declare_cache("arc_order", "the position of each arc among the out-arcs (CSR order of A)")

_kernel = None
_why_not = None
# numba's "workqueue" threading layer aborts the process when two threads launch parallel loops at
# once; calls are serialised here (each call uses every core already)
_lock = threading.Lock()


def _compile():
    """The compiled kernel (built on first use: importing numba is not free), or None with the reason."""
    global _kernel, _why_not
    if _kernel is not None or _why_not is not None:
        return _kernel
    try:
        from . import cpu_paths_kernels
    except Exception as exc:  # noqa: BLE001 - any failure to import numba means "not available"
        _why_not = f"numba is not importable ({type(exc).__name__}: {exc}); pip install numba"
        return None
    _kernel = cpu_paths_kernels.run
    return _kernel


def available() -> tuple[bool, str]:
    """(whether the compiled per-source kernel can run here, why not when it cannot)."""
    return (_compile() is not None), (_why_not or "")


def threads() -> int:
    """The worker threads the kernel runs on: numba's thread count (``NUMBA_NUM_THREADS``, default the
    machine's cores), or 1 when numba is not importable."""
    if _compile() is None:
        return 1
    import numba

    return int(numba.get_num_threads())


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
    run = _compile()
    T = A.T  # column v of A.T lists the heads of v's out-arcs
    out_ptr, out_idx = T.colptr, T.rowidx
    n, nnz = A.shape[0], A.nnz
    idx = out_idx.dtype
    workers = int(max(1, min(workers, len(sources))))
    level = np.full((workers, n), -1, dtype=idx)
    queue = np.empty((workers, n), dtype=idx)
    sigma = np.empty((workers, n), dtype=np.float64)
    coef = np.empty((workers, n), dtype=np.float64)
    exps = np.zeros((workers, n + 1), dtype=np.int32)
    dag = np.empty((workers, n + 1), dtype=idx)
    succ = np.empty((workers, nnz), dtype=idx)
    acc = np.zeros((workers, nnz if edges else n), dtype=np.float64)
    indeg = A.in_degree()
    growth = float(max(1, int(indeg.max()) if indeg.size else 1))
    with _lock:
        run(out_ptr, out_idx, np.ascontiguousarray(sources, dtype=np.int64), growth, bool(edges), bool(endpoints),
            level, queue, sigma, coef, exps, dag, succ, acc)
    total = acc.sum(axis=0) if workers > 1 else acc[0]
    return total[_arc_order(A)] if edges else total
