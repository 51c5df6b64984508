"""networkx's breadth-first-search measures on a :class:`~spla.nx_backend.graph.SplaGraph`.

The levels come from spla's BFS (``bfs_levels``: one masked product per level; the bit-parallel
BFS for all pairs and eccentricities); what networkx adds on top is its order: a layer of
``bfs_layers`` (and the dict of ``single_source_shortest_path_length``) lists nodes in the order
networkx's queue discovers them, which :func:`discovery_layers` rebuilds from the levels and G's
adjacency order: a node comes where its first parent in the previous layer's order lists it.

``eccentricity``, ``diameter`` and ``radius`` with a ``weight`` (an edge attribute name) take the
weighted distances from ``spla.algorithms.shortest_path_lengths(..., weight=True)`` on the graph's
length matrix (the shortest parallel edge, a missing attribute 1), as networkx's Dijkstra
(``shortest_path_length(G, v, weight=...)``) gives them: integers when every length is an integer.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from spla import algorithms as alg

from .centrality import nbunch_indices
from .graph import SplaGraph

#: distances per block of the weighted eccentricities: the sources of one search hold a (block, n)
#: float64 array on the host, kept to 128 MiB whatever n
ECC_BLOCK_ENTRIES = 1 << 24

__all__ = ["bfs_layers", "single_source_shortest_path_length", "all_pairs_shortest_path_length", "eccentricity",
           "diameter", "radius"]


def depth(cutoff):
    """networkx's ``cutoff`` (its BFS goes on while cutoff > level) as a number of levels; None: all."""
    if cutoff is None or cutoff == math.inf:
        return None
    return max(math.ceil(cutoff), 0)


def discovery_layers(G: SplaGraph, level: np.ndarray, first: list):
    """The BFS layers as position arrays, each in networkx's discovery order; ``first`` is layer 0 (distinct
    positions, in networkx's order).  Layer d+1 is sorted by (rank of the first parent in layer d, the arc's place in that
    parent's adjacency), which is the order in which networkx's queue appends it."""
    yield np.asarray(first, dtype=np.int64)  # distinct
    top = int(level.max(initial=-1))
    if top < 1:
        return
    src, dst = G.src, G.dst
    lsrc = level[src]
    tree = np.flatnonzero((lsrc >= 0) & (level[dst] == lsrc + 1))  # arcs from one layer to the next
    tree = tree[np.argsort(lsrc[tree], kind="stable")]               # grouped by layer, adjacency order kept
    bounds = np.searchsorted(lsrc[tree], np.arange(top + 1))
    rank = np.full(G.n, -1, dtype=np.int64)
    rank[first] = np.arange(len(first))
    width = src.shape[0] + 1
    for d in range(top):
        arcs = tree[bounds[d]:bounds[d + 1]]
        key = rank[src[arcs]] * width + arcs
        heads = dst[arcs][np.argsort(key, kind="stable")]
        _, at = np.unique(heads, return_index=True)
        layer = heads[np.sort(at)]
        rank[layer] = np.arange(layer.shape[0])
        yield layer


def bfs_layers(G, sources):
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # networkx's first layer: its set of sources, in the set's order
    for s in first:
        if s not in G:
            raise nx.NetworkXError(f"The node {s} is not in the graph.")
    if not first:
        return
    idx = [G.index[s] for s in first]
    level = alg.bfs_levels(G.matrix(), sources=idx)
    nodes = G.nodes
    yield first
    layers = discovery_layers(G, level, idx)
    next(layers)
    for layer in layers:
        yield [nodes[i] for i in layer.tolist()]


def single_source_shortest_path_length(G, source, cutoff=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    s = G.index[source]
    level = alg.bfs_levels(G.matrix(), s, cutoff=depth(cutoff))
    nodes = G.nodes
    return {nodes[i]: d for d, layer in enumerate(discovery_layers(G, level, [s])) for i in layer.tolist()}


def all_pairs_shortest_path_length(G, cutoff=None):
    nodes = G.nodes
    for block, D in alg.hop_distance_blocks(G.matrix(), cutoff=depth(cutoff)):
        for j, s in enumerate(block.tolist()):
            col = D[:, j]
            reached = np.flatnonzero(col >= 0)
            order = reached[np.argsort(col[reached], kind="stable")]
            yield nodes[s], dict(zip([nodes[i] for i in order.tolist()], col[order].tolist()))


def _not_connected(G: SplaGraph):
    if G.directed:
        return nx.NetworkXError("Found infinite path length because the digraph is not strongly connected")
    return nx.NetworkXError("Found infinite path length because the graph is not connected")


def _weighted_eccentricity(G: SplaGraph, picked, weight):
    """(ecc, reach) of the vertices ``picked`` by the lengths of attribute ``weight``: the largest
    weighted distance to a reached vertex, and how many vertices each reaches (itself included)."""
    M = G.path_lengths(weight)
    ecc, reach = [], []
    block = max(1, ECC_BLOCK_ENTRIES // max(G.n, 1))
    for lo in range(0, len(picked), block):
        # D[i, t] = d(picked[lo + i], t) over min.plus, inf where t is not reached
        D = alg.shortest_path_lengths(M, picked[lo:lo + block], weight=True)
        fin = np.isfinite(D)
        ecc.append(np.where(fin, D, -np.inf).max(axis=1, initial=0.0))
        reach.append(fin.sum(axis=1))
    ecc = np.concatenate(ecc) if ecc else np.zeros(0)
    reach = np.concatenate(reach) if reach else np.zeros(0, dtype=np.int64)
    if G.integer_lengths(weight):
        ecc = ecc.astype(np.int64)  # sums of integers, exact in float64 below 2**53
    return ecc, reach


def _eccentricities(G: SplaGraph, picked, weight, all_vertices):
    """(ecc as a list of Python numbers, reach): hop counts for ``weight`` None; by the lengths
    otherwise, 0 an int as networkx's (its max over a dict that starts with the source's int 0)."""
    if weight is None:
        ecc, reach = alg.eccentricity(G.matrix(), vertices=None if all_vertices else picked, return_reach=True)
        return ecc.tolist(), reach
    ecc, reach = _weighted_eccentricity(G, picked, weight)
    return [x if x else 0 for x in ecc.tolist()], reach


def eccentricity(G, v=None, sp=None, weight=None):
    picked = nbunch_indices(G, v)
    ecc, reach = _eccentricities(G, picked, weight, v is None)
    if (reach != G.n).any():
        raise _not_connected(G)
    e = dict(zip([G.nodes[i] for i in picked], ecc))
    if v in G:
        return e[v]
    return e


def _extreme(G, pick, usebounds, weight=None):
    if G.n == 0:  # networkx's error: extrema bounding's max over no degrees, or pick over no eccentricities
        return (max if usebounds is True and not G.directed else pick)([])
    ecc, reach = _eccentricities(G, list(range(G.n)), weight, True)
    if (reach != G.n).any():
        if usebounds is True and not G.directed:  # networkx's extrema bounding says it this way
            raise nx.NetworkXError("Cannot compute metric because graph is not connected.")
        raise _not_connected(G)
    return pick(ecc)


def diameter(G, e=None, usebounds=False, weight=None):
    return _extreme(G, max, usebounds, weight)


def radius(G, e=None, usebounds=False, weight=None):
    return _extreme(G, min, usebounds, weight)
