"""Jaccard similarity of the adjacent pairs of an undirected graph (networkx.jaccard_coefficient on
its edges).

    J(i, j) = |N(i) ∩ N(j) - {i, j}| / |N(i) ∪ N(j)|          for every edge (i, j)

with N(v) the neighbours of v (a self-loop puts v in N(v)); the common neighbours leave out i and j,
as networkx.common_neighbors does.

    C<A> = A +.pair A          C(i, j) = |N(i) ∩ N(j)|, for every edge (accumulated into zeros on
                               A's pattern, so an edge with no common neighbour keeps 0)
    d = A 1                    the degrees;  s = diag(A) 1, the self-loops
    J(i, j) = (C(i, j) - s(i) - s(j) [i != j]) / (d(i) + d(j) - C(i, j))

i is in N(i) ∩ N(j) exactly when i has a self-loop (j is a neighbour of i on an edge).  Needs: an
undirected graph.  Cost: one masked SpGEMM.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import spla

from ._common import as_matrix, on_graph_device, pattern_of, to_numpy


@on_graph_device
def jaccard_edges(G, *, device=None) -> sp.csc_array:
    """J(i, j) for every edge, as a float64 SciPy CSC array on A's pattern (both (i, j) and (j, i))."""
    A = pattern_of(as_matrix(G, device=device))
    if A.directed:
        raise spla.InvalidGraph("jaccard_edges is defined on undirected graphs; pass an undirected graph")
    zeros = spla.apply(A, "times", right=0, dtype=np.int64)             # 0 on A's pattern
    C = spla.mxm(A, A, "plus_pair", mask=A, accum="plus", out=zeros)   # C<A> += A +.pair A
    d = spla.reduce_rows(A, "plus", dtype=np.int64)                    # d = A 1
    s = spla.reduce_rows(spla.select(A, "diag"), "plus", dtype=np.int64)   # s = diag(A) 1
    xp = A.xp
    rows, cols = C.rowidx, C.colidx
    inter = C.values.astype(np.float64)
    common = inter - s[rows] - xp.where(rows != cols, s[cols], 0)
    J = common / (d[rows] + d[cols] - inter)
    return sp.csc_array((to_numpy(J), to_numpy(C.rowidx), to_numpy(C.colptr)), shape=A.shape)
