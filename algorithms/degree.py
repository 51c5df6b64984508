"""Degrees as networkx counts them, and degree centrality.

``degree_centrality`` (networkx.degree_centrality):

    DC(v) = deg(v) / (n - 1)        (n <= 1: networkx returns 1 for the single vertex)

with deg = networkx's ``G.degree``:
    undirected: neighbours counted once each, a self-loop counted twice;
    directed:   in-degree + out-degree (a self-loop counts once in each, so twice);
or, for a directed graph, ``G.in_degree`` / ``G.out_degree`` alone (networkx's
``in_degree_centrality`` and ``out_degree_centrality``).

Degrees count arcs, never weights: a SciPy / spla.Matrix input has one edge per stored
entry (as ``networkx.from_scipy_sparse_array`` reads it), unless ``multiplicity`` says its
values count parallel edges.  A networkx multigraph's parallel edges each count, as networkx
counts them; for any other input multi-edges are already merged.

Needs: a square adjacency.  Cost: one product per direction, only for multigraphs
(otherwise the matrix's stored-entry counts per row / column are used).
"""

from __future__ import annotations

import numpy as np

import spla

from . import _common
from ._common import as_matrix, on_graph_device, pattern_of, to_numpy


@on_graph_device
def degree_parts(G, *, device=None, multiplicity=False):
    """(A, out, in_, loops) for a graph, as networkx counts degrees.

    A     : spla.Matrix, G's pattern (for traversals)
    out   : int64 (n,) arcs leaving each vertex (parallel arcs of a networkx multigraph counted)
    in_   : int64 (n,) arcs entering each vertex
    loops : int64 (n,) self-loops at each vertex
    All on A's device.  networkx's ``G.degree`` is out + loops (undirected; out = in) or
    out + in_ (directed); ``G.out_degree`` is out.
    multiplicity: G is a spla.Matrix whose values are the number of parallel arcs of each entry.
    """
    if multiplicity:
        if not isinstance(G, spla.Matrix):
            raise TypeError(f"multiplicity=True reads a spla.Matrix's values as edge counts; got {type(G).__name__}")
        M = G if device is None else G.to(device)
        if M.values is not None and M.values.dtype.kind not in "iu":
            raise TypeError(f"multiplicity=True needs integer values (edge counts), got dtype {M.values.dtype}")
    elif _common.is_networkx_graph(G) and G.is_multigraph() and len(G) > 0:
        import networkx as nx

        # multiplicity matrix: entry (i, j) = number of parallel arcs i -> j
        S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None, dtype=np.int64, format="csc")
        M = spla.Matrix.from_scipy(S, directed=G.is_directed(), device="auto" if device is None else device)
    else:
        M = pattern_of(as_matrix(G, device=device))  # one edge per stored entry, values ignored
    A = pattern_of(M)
    xp = M.xp
    n = M.shape[0]
    if M.is_pattern:
        out = M.out_degree()
        in_ = M.in_degree()
        diag_val = None
    else:
        mult = M.values.astype(np.int64)
        Mi = M.astype(np.float64)  # the multiplicities (int64 counts) as float64 values
        ones = xp.ones(n, dtype=np.float64)  # float64 sums of counts: exact below 2**53
        # out = Mi +.× 1      (row sums: parallel arcs leaving each vertex)
        out = xp.rint(spla.mxv(Mi, ones, "plus_times")).astype(np.int64)
        # in_ = 1 +.× Mi      (column sums: parallel arcs entering each vertex)
        in_ = xp.rint(spla.vxm(ones, Mi, "plus_times")).astype(np.int64)
        diag_val = mult
    loops = xp.zeros(n, dtype=np.int64)
    if M.nnz:
        # loops(i) = M(i, i): the stored diagonal (1 each for a pattern, the multiplicity otherwise)
        on_diag = xp.flatnonzero(M.rowidx == M.colidx)
        loops[M.rowidx[on_diag]] = 1 if diag_val is None else diag_val[on_diag]
    return A, out, in_, loops


def networkx_degree(G, *, device=None):
    """(A, deg): networkx's ``G.degree`` as an int64 array on A's device (see module doc)."""
    A, out, in_, loops = degree_parts(G, device=device)
    return A, (out + in_) if A.directed else (out + loops)


@on_graph_device
def degree_centrality(A, *, direction="both", multiplicity=False, device=None):
    """Degree centrality, equal to ``networkx.degree_centrality(G)``.

    DC(v) = deg(v) / (n - 1), deg as networkx's ``G.degree`` (undirected: self-loops count
    2; directed: in + out).  For n = 1 the result is [1.0] and for n = 0 empty, as networkx.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    direction : "both" (``G.degree``), "in" or "out" (``G.in_degree`` / ``G.out_degree`` of a directed
        graph: networkx's ``in_degree_centrality`` / ``out_degree_centrality``)
    multiplicity : bool, A is a spla.Matrix whose integer values count the parallel edges of each
        entry (a multigraph's), and degrees count them
    device : where to compute

    Returns
    -------
    numpy float64 array (n,)
    """
    from .distances import is_empty_graph

    if direction not in ("both", "in", "out"):
        raise ValueError(f"direction must be 'both', 'in' or 'out', got {direction!r}")
    if is_empty_graph(A):
        return np.zeros(0, dtype=np.float64)
    M, out, in_, loops = degree_parts(A, device=device, multiplicity=multiplicity)
    if direction != "both" and not M.directed:
        raise ValueError(f"direction={direction!r} needs a directed graph (networkx's in_degree_centrality and "
                         "out_degree_centrality are not implemented for undirected graphs)")
    deg = {"in": in_, "out": out}.get(direction, (out + in_) if M.directed else (out + loops))
    n = M.shape[0]
    if n <= 1:
        return np.ones(n, dtype=np.float64)
    s = 1.0 / (n - 1.0)
    return to_numpy(deg * s).astype(np.float64)
