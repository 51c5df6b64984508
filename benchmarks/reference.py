"""Independent CPU references used to check every measured result before it is timed.

These are written directly on SciPy CSR arrays (not through spla), vectorised per
BFS level, and follow networkx's definitions; tests/test_bench_graphs.py checks
them against networkx on small graphs.  They are meant for a *sample* of sources on
the big graphs (one BFS over 30 M arcs takes a few seconds here).

Conventions: ``csr`` is the adjacency matrix with ``csr[i, j] != 0`` for an arc
i -> j (for an undirected graph, both arcs), duplicates merged.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def adjacency(src, dst, n: int, directed: bool) -> sp.csr_array:
    """Pattern CSR adjacency (float64 ones) of an edge list; undirected -> symmetric."""
    src = np.asarray(src, np.int64)
    dst = np.asarray(dst, np.int64)
    if not directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    A = sp.csr_array((np.ones(src.size), (src, dst)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def _new_vertices(kids: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Sorted distinct unvisited vertices among ``kids`` (a flag array beats a sort)."""
    cand = kids[level[kids] < 0]
    if cand.size * 8 < level.size:
        cand = np.sort(cand)  # (np.unique can be far slower than a sort on NumPy 2.x)
        return cand[np.concatenate([[True], cand[1:] != cand[:-1]])] if cand.size else cand
    flag = np.zeros(level.size, bool)
    flag[cand] = True
    return np.flatnonzero(flag)


def _expand(indptr: np.ndarray, indices: np.ndarray, frontier: np.ndarray):
    """All arcs leaving ``frontier``: (parents, children) arrays, one entry per arc."""
    starts = indptr[frontier]
    lens = indptr[frontier + 1] - starts
    total = int(lens.sum())
    parents = np.repeat(frontier, lens)
    offs = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total, dtype=np.int64)
    return parents, indices[offs]


def bfs_levels(csr: sp.csr_array, source: int, max_depth: int | None = None) -> np.ndarray:
    """Hop distance from ``source`` along arcs (-1 where unreachable or beyond max_depth)."""
    n = csr.shape[0]
    indptr = csr.indptr.astype(np.int64)
    indices = csr.indices.astype(np.int64)
    level = np.full(n, -1, np.int64)
    level[source] = 0
    frontier = np.array([source], np.int64)
    d = 0
    while frontier.size and (max_depth is None or d < max_depth):
        _, kids = _expand(indptr, indices, frontier)
        new = _new_vertices(kids, level)
        d += 1
        level[new] = d
        frontier = new
    return level


def single_source_dependency(csr: sp.csr_array, source: int) -> np.ndarray:
    """Brandes dependency delta_s(v) of every v on source s (delta_s(s) = 0).

    Forward: BFS level by level counting shortest paths sigma (float64; exact up to
    2^53, finite up to ~1e308 which covers the benchmark graphs).  Backward:
    delta(v) = sum over DAG children w of sigma(v)/sigma(w) * (1 + delta(w)).
    """
    n = csr.shape[0]
    indptr = csr.indptr.astype(np.int64)
    indices = csr.indices.astype(np.int64)
    level = np.full(n, -1, np.int64)
    sigma = np.zeros(n)
    level[source] = 0
    sigma[source] = 1.0
    frontier = np.array([source], np.int64)
    dag = []
    d = 0
    while frontier.size:
        par, kids = _expand(indptr, indices, frontier)
        new = _new_vertices(kids, level)
        level[new] = d + 1
        keep = level[kids] == d + 1
        par, kids = par[keep], kids[keep]
        sigma += np.bincount(kids, weights=sigma[par], minlength=n)
        dag.append((par, kids))
        frontier = new
        d += 1
    delta = np.zeros(n)
    for par, kids in reversed(dag):
        delta += np.bincount(par, weights=sigma[par] / sigma[kids] * (1.0 + delta[kids]), minlength=n)
    delta[source] = 0.0
    return delta


def betweenness_subset(csr: sp.csr_array, sources, directed: bool) -> np.ndarray:
    """``networkx.betweenness_centrality_subset(G, sources, list(G), normalized=False)``.

    The sum of the sources' dependencies, halved for an undirected graph (networkx
    counts each unordered pair once).
    """
    bc = np.zeros(csr.shape[0])
    for s in sources:
        bc += single_source_dependency(csr, int(s))
    return bc if directed else bc / 2.0


def closeness_of(csr_in: sp.csr_array, vertices, wf_improved: bool = True) -> np.ndarray:
    """networkx closeness of ``vertices``; ``csr_in`` must hold *incoming* arcs
    (the transpose for a directed graph, the adjacency itself when undirected)."""
    n = csr_in.shape[0]
    out = np.zeros(len(vertices))
    for i, v in enumerate(vertices):
        lev = bfs_levels(csr_in, int(v))
        reach = lev[lev > 0]
        tot = float(reach.sum())
        r = reach.size + 1
        if tot > 0 and n > 1:
            c = (r - 1) / tot
            if wf_improved:
                c *= (r - 1) / (n - 1)
            out[i] = c
    return out


def sum_of_distances_of(csr: sp.csr_array, vertices) -> np.ndarray:
    """Sum over reachable t of d(s, t), for each s in ``vertices``."""
    return np.array([float(np.clip(bfs_levels(csr, int(v)), 0, None).sum()) for v in vertices])


def daccer_volume_of(csr: sp.csr_array, vertices, radius: int) -> np.ndarray:
    """vol_r(v) = sum of out-degrees of the vertices within ``radius`` hops of v."""
    deg = np.diff(csr.indptr).astype(np.float64)
    out = np.zeros(len(vertices))
    for i, v in enumerate(vertices):
        lev = bfs_levels(csr, int(v), max_depth=radius)
        out[i] = deg[lev >= 0].sum()
    return out


def pagerank(csr: sp.csr_array, alpha: float = 0.85, max_iter: int = 1000,
             tol: float = 1e-6) -> tuple[np.ndarray, int]:
    """networkx's ``_pagerank_scipy`` (uniform personalization and dangling weights).

    Returns ``(x, iterations)``; stops when sum |x - x_last| < n * tol and raises
    RuntimeError otherwise.
    """
    n = csr.shape[0]
    if n == 0:
        return np.zeros(0), 0
    S = np.asarray(csr.sum(axis=1)).ravel()
    Q = np.divide(1.0, S, out=np.zeros_like(S), where=S != 0)
    AT = csr.T  # x @ (D^-1 A) = A^T (Q x), without forming D^-1 A
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    dangling = S == 0
    for it in range(1, max_iter + 1):
        xlast = x
        x = alpha * (AT @ (Q * x) + x[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - xlast).sum() < n * tol:
            return x, it
    raise RuntimeError(f"reference pagerank did not converge in {max_iter} iterations")


def spmv_pattern(csc_colptr, csc_rowidx, u: np.ndarray) -> np.ndarray:
    """y[j] = sum_i u[i] A[i, j] for a pattern CSC matrix (float64 accumulation)."""
    n_out = len(csc_colptr) - 1
    AT = sp.csr_array((np.ones(len(csc_rowidx)), np.asarray(csc_rowidx), np.asarray(csc_colptr)),
                      shape=(n_out, int(u.shape[0])))
    return AT @ u.astype(np.float64)


def allclose_report(got, want, rtol: float = 1e-9, atol: float = 1e-12) -> tuple[bool, str]:
    """(ok, one-line detail) comparing two arrays as ``numpy.allclose`` does."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return False, f"shape {got.shape} != expected {want.shape}"
    if got.size == 0:
        return True, "empty"
    got, want = got.ravel(), want.ravel()
    with np.errstate(invalid="ignore"):
        diff = np.abs(got - want)
    diff = np.where(np.isnan(got) & np.isnan(want), 0.0, diff)
    diff = np.where(np.isnan(diff), np.inf, diff)
    tol = atol + rtol * np.abs(want)
    bad = diff > tol
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(tol > 0, diff / np.where(tol > 0, tol, 1.0), np.where(diff > 0, np.inf, 0.0))
    worst = int(np.argmax(excess))
    detail = (f"max|diff|={diff.max():.3g} at {worst} (got {got[worst]:.6g}, want {want[worst]:.6g}), "
              f"{int(bad.sum())} of {got.size} outside rtol={rtol:g} atol={atol:g}")
    return not bool(bad.any()), detail
