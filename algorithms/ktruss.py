"""The k-truss of an undirected graph (networkx.k_truss): its largest subgraph in which every edge
lies in at least k - 2 triangles.

    repeat: C<A> = A +.pair A            C(i, j) = the triangles through edge (i, j) (its support)
            A = pattern(select(C, C >= k - 2))
    until no edge is dropped

Self-loops are ignored (networkx refuses them); for k <= 2 every edge stays.  Needs: an undirected
graph.  Cost: one masked SpGEMM per round.
"""

from __future__ import annotations

import spla

from ._common import on_graph_device, undirected_pattern


@on_graph_device
def k_truss(G, k, *, device=None) -> spla.Matrix:
    """The k-truss's edges as an undirected pattern-only spla.Matrix of G's shape (vertices kept)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k_truss: k must be an integer, got {k!r}")
    A = undirected_pattern(G, device, "k_truss")
    if k <= 2:
        return A
    while True:
        C = spla.mxm(A, A, "plus_pair", mask=A)                     # C<A> = A +.pair A
        T = spla.select(C, "ge", k - 2)                             # supports >= k - 2
        if T.nnz == A.nnz:
            return A
        A = spla.Matrix.from_csc(T.colptr, T.rowidx, None, T.shape, directed=False, device=A.device)
