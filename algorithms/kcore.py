"""Core numbers of an undirected graph (networkx.core_number), by peeling with products.

    core(v) = the largest k such that v belongs to the k-core, the largest subgraph in which every
              vertex has at least k neighbours

Peeling, level by level (Batagelj and Zaversnik's order, a level at a time):

    d = A 1                               the degrees (reduce over rows)
    for k = 0, 1, ...:
        repeat: R = {v alive : d(v) <= k}; core(R) = k; alive -= R
                d -= A r                  r = the indicator of R   (plus_times mxv)
        until R is empty

Self-loops are ignored (networkx refuses them).  Needs: an undirected graph.  Cost: one mxv per
peeling round.
"""

from __future__ import annotations

import numpy as np

import spla

from ._common import on_graph_device, to_numpy, undirected_pattern


@on_graph_device
def core_number(G, *, device=None) -> np.ndarray:
    """The core number of every vertex (int64 (n,))."""
    A = undirected_pattern(G, device, "core_number")
    xp = A.xp
    n = A.shape[0]
    deg = spla.reduce_rows(A, "plus", dtype=np.int64)             # d = A 1
    alive = xp.ones(n, dtype=bool)
    core = xp.zeros(n, dtype=np.int64)
    k = 0
    while bool(alive.any()):
        while True:
            peel = alive & (deg <= k)
            if not bool(peel.any()):
                break
            core[peel] = k
            alive &= ~peel
            deg = deg - spla.mxv(A, peel.astype(np.int64), "plus_times")   # d -= A r
        k += 1
    return to_numpy(core)
