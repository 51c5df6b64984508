"""Triangles of an undirected graph, counted with a masked sparse product (LAGraph's Sandia method).

``triangle_count`` (the number of triangles, ``sum(networkx.triangles(G).values()) // 3``):

    L = tril(A, -1)                the edges (i, j) with j < i
    C<L> = L +.pair L'             C(i, j) = |{k < j : (i, k), (j, k) edges}|, for every edge j < i
    t = sum_ij C(i, j)             each triangle k < j < i counted once, at its edge (i, j)

``triangles`` (networkx.triangles: the triangles through each vertex):

    C<A> = A +.pair A              C(i, j) = common neighbours of i and j, for every edge (i, j)
    t(i) = (sum_j C(i, j)) / 2     each triangle through i is seen from both of its other vertices

Self-loops are ignored (networkx ignores them too).  Needs: an undirected graph.  Cost: one masked
SpGEMM, whose work is the edges' row degrees (dot products over the mask).
"""

from __future__ import annotations

import numpy as np

import spla

from ._common import on_graph_device, to_numpy, undirected_pattern


@on_graph_device
def triangle_count(G, *, device=None) -> int:
    """The number of triangles of the undirected graph ``G``."""
    A = undirected_pattern(G, device, "triangle_count")
    L = spla.select(A, "tril", -1)
    C = spla.mxm(L, L.T, "plus_pair", mask=L)          # C<L> = L +.pair L'
    return int(spla.reduce_scalar(C, "plus"))          # t = sum(C)


@on_graph_device
def triangles(G, *, device=None) -> np.ndarray:
    """The number of triangles through each vertex (int64 (n,), as ``networkx.triangles``)."""
    A = undirected_pattern(G, device, "triangles")
    C = spla.mxm(A, A, "plus_pair", mask=A)            # C<A> = A +.pair A
    return to_numpy(spla.reduce_rows(C, "plus", dtype=np.int64)) // 2   # t = (C 1) / 2
