"""Breadth-first search levels, as repeated masked products.

    level(s) = 0;   level(v) = d  for the vertices first reached by the d-th product
    (several sources: level 0 is all of them, each vertex's level its distance to the nearest)
    frontier_d<!reached> = frontier_{d-1} any.pair A          (out-neighbours, arc i -> j is A[i, j])

Needs: a square spla.Matrix (or anything ``as_matrix`` accepts); values and self-loops
are ignored.  Cost: one masked vxm per level.
"""

from __future__ import annotations

import operator

import numpy as np

import spla

from spla.device import any_true

from ._common import as_matrix, check_sources, is_networkx_graph, on_graph_device, to_numpy, vertex_indices


@on_graph_device
def bfs_levels(A, source=None, *, sources=None, cutoff=None, device=None, kernel="auto"):
    """Hop distance from ``source`` (or from the nearest of ``sources``) to every vertex.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    source : int vertex index (for a networkx graph: a node of G)
    sources : sequence of vertices, instead of ``source``: a BFS from all of them at once (level 0
        is every source; repeats count once)
    cutoff : int, optional: stop after this many levels (vertices farther away are -1)

    Returns
    -------
    numpy int64 array (n,): the level of each vertex, -1 where unreachable.
    """
    if source is not None and sources is not None:
        raise TypeError("give either source (one vertex) or sources (several), not both")
    if cutoff is not None and (isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (int, np.integer))):
        raise TypeError(f"cutoff must be None or an integer number of levels, got {cutoff!r}")
    if sources is not None:
        start = vertex_indices(A, sources, "sources")
    elif is_networkx_graph(A):
        if source not in A:
            raise ValueError(f"source {source!r} is not a node of the graph")
        start = vertex_indices(A, [source], "source")
    else:
        start = np.asarray([_one_index(source)], dtype=np.int64)
    M = as_matrix(A, device=device)
    n = M.shape[0]
    if sources is None:
        check_sources(start, n, name="source")
    xp = M.xp
    level = xp.full(n, -1, dtype=np.int64)
    frontier = xp.zeros(n, dtype=np.bool_)
    frontier[xp.asarray(start)] = True
    level[frontier] = 0
    reached = frontier.copy()
    d = 0
    while start.size and (cutoff is None or d < cutoff):
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

