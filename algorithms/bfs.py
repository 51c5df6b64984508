"""Breadth-first search levels, as repeated masked products.

    level(s) = 0;   level(v) = d  for the vertices first reached by the d-th product
    frontier_d<!reached> = frontier_{d-1} any.pair A          (out-neighbours, arc i -> j is A[i, j])

Needs: a square spla.Matrix (or anything ``as_matrix`` accepts); values and self-loops
are ignored.  Cost: one masked vxm per level.
"""

from __future__ import annotations

import operator

import numpy as np

import spla

from spla.device import any_true

from ._common import as_matrix, check_sources, is_networkx_graph, on_graph_device, to_numpy


@on_graph_device
def bfs_levels(A, source, *, device=None, kernel="auto"):
    """Hop distance from ``source`` to every vertex.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    source : int vertex index (for a networkx graph: a node of G)

    Returns
    -------
    numpy int64 array (n,): the level of each vertex, -1 where unreachable.
    """
    if is_networkx_graph(A):
        nodes = list(A)
        if source not in A:
            raise ValueError(f"source {source!r} is not a node of the graph")
        source = nodes.index(source)
    else:
        source = _one_index(source)
    M = as_matrix(A, device=device)
    n = M.shape[0]
    s = int(check_sources([source], n, name="source")[0])
    xp = M.xp
    level = xp.full(n, -1, dtype=np.int64)
    frontier = xp.zeros(n, dtype=np.bool_)
    frontier[s] = True
    level[s] = 0
    reached = frontier.copy()
    d = 0
    while True:
        d += 1
        # frontier<!reached, replace> = frontier any.pair A
        frontier = spla.vxm(frontier, M, "any_pair", mask=reached, complement=True, kernel=kernel)
        if not any_true(frontier):
            break
        # level<frontier> = d;  reached |= frontier
        level[frontier] = d
        reached |= frontier
    return to_numpy(level)


def _one_index(source) -> int:
    """``source`` as one vertex index: an integer (or 0-d integer array); a list would be read as
    several sources, a float or bool as a vertex index."""
    try:
        if isinstance(source, (bool, np.bool_)) or getattr(source, "dtype", None) == np.bool_:
            raise TypeError
        return operator.index(source)
    except TypeError:
        raise TypeError(f"source must be one vertex index (an integer 0..n-1), got {source!r}") from None

