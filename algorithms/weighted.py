"""Weighted shortest-path measures: the sums the centralities rescale, by arc length instead of hop count.

Definition (identical on the CPU and on a GPU; ``spla.paths``' module docstring).  Arc u -> v has
length A[u, v] (non-negative and finite, else ``spla.InvalidGraph`` before any work); self-loops lie on
no shortest path::

    d(s) = 0;   d(v) = min over arcs u -> v of fl(d(u) + w(u, v))   (float64, summed in path order,
                                                                    as networkx's Dijkstra sums)
    tight arc u -> v:  u != v and fl(d(u) + w(u, v)) == d(v)         (exact equality: networkx's ties)
    h(s) = 0;   h(v) = min over tight arcs u -> v of h(u) + 1
    DAG arc:    a tight arc u -> v with d(u) < d(v), or d(u) == d(v) and h(u) < h(v)
    σ(s) = 1;   σ(v) = Σ_{DAG arcs u -> v} σ(u)

``shortest_path_lengths(A, S, weight=True)`` returns d(s, ·) for s in S (and σ with ``counts``);
betweenness (``weight=True``) sums Brandes' δ over this DAG, closeness and harmonic centrality
(``distance=True``) and the sum of distances (``weight=True``) sum d, as networkx's weighted measures
do.  Ties are exact float64 equalities of sums formed in path order, so integer lengths tie exactly
and decimal lengths tie only when their rounded sums are equal, as in networkx; d(s, t) and d(t, s)
may differ by a rounding step on an undirected graph, so every source runs its own search.  Where
zero-length arcs join vertices at equal distance, networkx's weighted betweenness depends on the
order it visits them (``spla.paths`` gives an example); this definition counts a zero-length cycle once.

Weights as users have them: ``weight=True`` reads a ``spla.Matrix``'s (or SciPy matrix's) stored
values as lengths, and a networkx graph's ``"weight"`` attribute; a networkx graph's attribute of
another name is named as networkx names it (``weight="length"``, ``distance="length"``), 1 where an
edge lacks it, as networkx.  Parallel edges of a networkx multigraph keep their shortest length, as
networkx's weighted shortest paths do; build matrices for path measures with the minimum too
(``dup="min"``), not the sum.  A pattern-only matrix (every length 1) gives the unweighted measures.

This module holds the weighted measures' plumbing (the ``weight`` argument, the weighted matrix, the
blocks of sources) and :func:`shortest_path_lengths`; the centralities call it from
:mod:`betweenness` and :mod:`distances`.
"""

from __future__ import annotations

import numpy as np

import spla

from . import _common
from ._common import as_matrix, is_networkx_graph, on_graph_device, to_numpy

#: the networkx edge attribute ``weight=True`` reads (networkx's own default name)
NX_ATTRIBUTE = "weight"


def check_weight(weight, G, name="weight"):
    """The edge attribute that ``weight`` measures G's paths by, checked at the door: None for hop
    counts (None or False); for a networkx graph G the attribute named (a string, as networkx's
    ``weight=``/``distance=``) or ``"weight"`` for True; for a matrix ``"weight"`` for True (its stored
    values are the lengths).  A string with a matrix, or any other value, is a TypeError naming the
    rule."""
    if weight is None or weight is False or (isinstance(weight, np.bool_) and not weight):
        return None
    if weight is True or isinstance(weight, np.bool_):
        return NX_ATTRIBUTE
    if isinstance(weight, str) and is_networkx_graph(G):
        return weight
    if isinstance(weight, str):
        raise TypeError(f"{name}={weight!r} names an edge attribute of a networkx graph, but the graph is a "
                        f"{type(G).__name__}, whose stored values are its only weights: pass {name}=True to "
                        f"measure paths by them")
    raise TypeError(f"{name} must be None, False, True (the arc lengths: a matrix's stored values, a networkx "
                    f"graph's {NX_ATTRIBUTE!r} attribute) or the name of a networkx graph's edge attribute, "
                    f"got {weight!r}")


def weighted_matrix(G, device=None, attribute=NX_ATTRIBUTE) -> spla.Matrix:
    """A spla.Matrix whose values are G's arc lengths: G's own values (spla.Matrix, SciPy, NumPy), or a
    networkx graph's edge ``attribute`` (1 where an edge lacks it, as networkx), a multigraph's parallel
    edges keeping the shortest."""
    if not is_networkx_graph(G):
        return as_matrix(G, device=device)
    return spla.Matrix.from_networkx(G, weight=attribute, device="auto" if device is None else device, dup="min")


def batch_of(M, nsrc, batch_size, progress):
    """Sources per call of the weighted searches: ``batch_size``; under "auto" every source at once or,
    when progress is reported, about 1% of them per call, on the CPU at least one per thread but at
    most half of them (a GPU runs a block's sources side by side, whatever the host's threads)."""
    if batch_size != "auto":
        return int(max(1, min(batch_size, nsrc)))
    if progress is None:
        return max(nsrc, 1)
    per_call = -(-nsrc // 100)
    if M.device == "cpu":
        per_call = max(per_call, min(spla.paths.threads(), -(-nsrc // 2)))
    return int(max(1, min(nsrc, per_call)))


def dependencies(M, src, *, edges, endpoints, batch_size="auto", progress=None):
    """Σ_{s in src} of the weighted dependencies (vertex (n,) or arc (nnz,) sums in M's CSC order) on M's
    device, in blocks of sources; a block that runs out of device memory is retried at half its size."""
    nsrc = len(src)
    acc = None  # the first block's sums, then their running total
    kb = batch_of(M, nsrc, batch_size, progress)
    done = 0
    while done < nsrc:
        block = src[done:done + kb]
        try:
            # acc += Σ_{s in block} δ_s                   (one Dijkstra per source, keyed by (d, h))
            part = spla.paths.dependencies(M, block, edges=edges, endpoints=endpoints, weighted=True)
            if acc is None:
                acc = part  # a fresh array of this call's
            else:
                acc += part
        except MemoryError:
            if kb == 1:
                raise
            spla.memory.release(M.device)
            kb = max(1, kb // 2)
            continue
        done += len(block)
        if progress is not None:
            progress(done, nsrc)
    return M.xp.zeros(M.nnz if edges else M.shape[0], dtype=np.float64) if acc is None else acc


def distance_sums(M, src, *, direction, progress=None):
    """(Σ d float64, reach int64, Σ_{d > 0} 1/d float64), each (n,) on M's device, over the sources
    ``src`` (direction as ``spla.paths.distance_sums``), in blocks when progress is reported."""
    nsrc = len(src)
    if nsrc == 0:
        xp, n = M.xp, M.shape[0]
        return xp.zeros(n, dtype=np.float64), xp.zeros(n, dtype=np.int64), xp.zeros(n, dtype=np.float64)
    sums = None  # the first block's sums, then their running totals
    kb = batch_of(M, nsrc, "auto", progress)
    for lo in range(0, nsrc, kb):
        hi = min(nsrc, lo + kb)
        # (S, r, H) += Σ_{s in src[lo:hi]} (d(s, ·), 1, 1/d(s, ·))      (one Dijkstra per source)
        part = spla.paths.distance_sums(M, src[lo:hi], direction=direction, weighted=True)
        if sums is None:
            sums = part  # fresh arrays of this call's
        else:
            for total, x in zip(sums, part):
                total += x
        if progress is not None:
            progress(hi, nsrc)
    return sums


def closeness(M, picked, wf_improved, progress=None):
    """Weighted closeness of every vertex (``picked`` None) or of the vertices ``picked``: as networkx,
    one Dijkstra from u over the reversed arcs (M.T) gives the distances d(v, u) that u's sum adds."""
    n = M.shape[0]
    spla.weights.check_lengths(M, "weighted closeness")  # a bad arc named as it is in M, not in M.T
    targets = np.arange(n, dtype=np.int64) if picked is None else np.unique(picked)
    # S(u), r(u) = Σ_v d(v, u), |{v reaches u}|       (searches from u along A.T: outgoing sums there)
    dist, reach, _ = distance_sums(M.T, targets, direction="out", progress=progress)
    dist, reach = to_numpy(dist)[targets], to_numpy(reach)[targets]
    r1 = (reach - 1).astype(np.float64)
    pos = dist > 0
    c = np.where(pos, r1 / np.where(pos, dist, 1.0), 0.0)
    if wf_improved and n > 1:
        c = c * (r1 / (n - 1))
    if picked is None:
        return c
    return c[np.searchsorted(targets, picked)]


@on_graph_device
def shortest_path_lengths(A, sources, *, weight=None, counts=False, device=None):
    """Shortest-path distances from each source to every vertex (networkx
    ``single_source_dijkstra_path_length`` with ``weight=True``, ``single_source_shortest_path_length``
    without), as a dense (k, n) array.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    sources : sequence of k vertices (indices 0..n-1; nodes for a networkx graph; order and repeats kept)
    weight : None, False, True or str
        True: A's values are the arc lengths (a networkx graph's "weight" attribute; see the module
        docstring); a string: a networkx graph's edge attribute of that name; None/False: hop counts.
    counts : bool
        Also return σ, the number of shortest paths (over the DAG of the module docstring: a
        zero-length cycle counts once), as float64.
    device : where to run (default: A's device, or "auto")

    Returns
    -------
    numpy float64 (k, n): row i holds d(sources[i], v), inf where v is not reached; with ``counts`` a
    pair (dist, sigma), sigma 0 where v is not reached (inf past float64's range).

    Raises
    ------
    InvalidGraph for a negative, NaN or infinite length (``weight=True``), before any work;
    KernelUnavailable where no search runs (the CPU without numba: ``pip install numba``).
    """
    attribute = check_weight(weight, A)
    if not isinstance(counts, (bool, np.bool_)):
        raise TypeError(f"counts must be True or False, got {counts!r}")
    picked = _common.vertex_indices(A, sources, "sources")
    weighted = attribute is not None
    M = weighted_matrix(A, device, attribute) if weighted else as_matrix(A, device=device)
    # dist[i, v] = d(sources[i], v) over min.plus (σ over plus.times on the tight arcs)
    out = spla.paths.shortest_paths(M, picked, weighted=weighted and not M.is_pattern, counts=bool(counts))
    if counts:
        return to_numpy(out[0]), to_numpy(out[1])
    return to_numpy(out)


__all__ = ["shortest_path_lengths", "check_weight", "weighted_matrix"]
