"""networkx's centrality functions on a :class:`~spla.nx_backend.graph.SplaGraph`.

Each function has networkx's signature and defaults, runs the spla algorithm on the converted
matrix and returns networkx's result: a dict keyed by the graph's nodes in ``list(G)`` order (edge
measures: by ``G.edges()``'s tuples, in its order), with Python floats.

A ``weight`` (betweenness) or ``distance`` (closeness, harmonic) names the edge attribute whose
values are the arc lengths: the call runs spla's weighted measure (``weight=True`` /
``distance=True``, ``spla.algorithms.weighted`` defines it) on the graph's length matrix, a
multigraph's parallel edges keeping the shortest and a missing attribute counting 1, as networkx's
Dijkstra reads them.  A callable weight never gets here (``rules.can_run`` sends it to networkx);
a negative, NaN or infinite length raises NotImplementedError (``SplaGraph.path_lengths``), on
which networkx runs the call itself.
"""

from __future__ import annotations

import contextlib
from collections import Counter

import networkx as nx
import numpy as np

import spla
from spla import algorithms as alg

from .graph import SplaGraph

__all__ = [
    "betweenness_centrality", "edge_betweenness_centrality", "betweenness_centrality_subset",
    "edge_betweenness_centrality_subset", "closeness_centrality", "harmonic_centrality", "pagerank",
    "degree_centrality", "in_degree_centrality", "out_degree_centrality",
]


# --------------------------------------------------------------------------- helpers
def by_node(G: SplaGraph, values) -> dict:
    """{node: value} in node order, values as Python numbers."""
    return dict(zip(G.nodes, np.asarray(values).tolist()))


def node_indices(G: SplaGraph, nodes, what="source") -> list:
    """Positions of ``nodes`` (order and repeats kept); a node G lacks raises KeyError, as networkx's
    ``G[s]`` does when a path search starts there."""
    out = []
    for v in nodes:
        i = G.index.get(v) if v in G else None
        if i is None:
            raise KeyError(f"{what} {v!r} is not a node of the graph")
        out.append(i)
    return out


def nbunch_indices(G: SplaGraph, bunch) -> list:
    """networkx's ``G.nbunch_iter(bunch)`` as positions: every node for None, one node, or the nodes of
    a container that are in G (others are skipped); NetworkXError for what is neither."""
    if bunch is None:
        return list(range(G.n))
    if bunch in G:
        return [G.index[bunch]]
    try:
        items = iter(bunch)
    except TypeError:
        raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from None
    out = []
    for v in items:
        try:
            i = G.index.get(v)
        except TypeError:
            raise nx.NetworkXError(f"Node {v} in sequence nbunch is not a valid node.") from None
        if i is not None:
            out.append(i)
    return out


def rounds(indices) -> list:
    """Sources listed more than once count once per listing, as networkx's loop over them: split them
    into rounds of distinct sources (round r: the sources listed more than r times)."""
    counts = Counter(indices)
    first = list(dict.fromkeys(indices))
    top = max(counts.values(), default=0)
    return [[s for s in first if counts[s] > r] for r in range(top)] or [[]]


def arc_values(G: SplaGraph, E, arcs) -> np.ndarray:
    """The values of the CSC array E (canonical, holding every arc of G) at G's arcs ``arcs``."""
    n = G.n
    cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(E.indptr))
    keys = cols * n + E.indices.astype(np.int64)  # sorted: CSC order is (column, row)
    pos = np.searchsorted(keys, G.dst[arcs] * n + G.src[arcs])
    return E.data[pos]


def lengths_matrix(G: SplaGraph, attr):
    """The matrix a path measure runs on: the pattern for ``attr`` None, else the arc lengths."""
    return G.matrix() if attr is None else G.path_lengths(attr)


def edge_dict(G: SplaGraph, E, weight=None) -> dict:
    """The edge betweenness array E as networkx keys it: ``G.edges()``'s tuples, in its order; a
    multigraph's pair value goes to its parallel edges (u, v, key) of the pair's length in equal
    shares, as networkx's ``_add_edge_keys`` shares it (every edge weighs 1 for ``weight`` None;
    by ``weight``, the edges longer than the shortest get 0)."""
    arcs = G.edge_arcs
    values = arc_values(G, E, arcs).tolist()
    nodes = G.nodes
    us = [nodes[i] for i in G.src[arcs].tolist()]
    vs = [nodes[i] for i in G.dst[arcs].tolist()]
    if not G.multigraph:
        return dict(zip(zip(us, vs), values))
    out = {}
    for p, u, v, x in zip(arcs.tolist(), us, vs, values):
        keys = G.keys[p]
        if weight is None:
            for key in keys:
                out[(u, v, key)] = x / len(keys)
            continue
        w = [d[weight] for d in G.key_attrs[p]]
        shortest = min(w)
        share = x / sum(1 for y in w if y == shortest)
        for key, y in zip(keys, w):
            out[(u, v, key)] = share if y == shortest else 0.0
    return out


# --------------------------------------------------------------------------- betweenness
def _check_sample(G, k):
    """networkx samples k sources with ``seed.sample``, whose error a k out of 0..n raises."""
    if k is not None and isinstance(k, int) and not 0 <= k <= G.n:
        raise ValueError("Sample larger than population or is negative")


@contextlib.contextmanager
def _no_sources_divides(k):
    """k = 0 leaves the rescaling nothing to divide by: spla says so with a ValueError, networkx's
    division raises ZeroDivisionError, which the backend raises too (with spla's explanation)."""
    try:
        yield
    except ValueError as exc:
        if k == 0:
            raise ZeroDivisionError(str(exc)) from exc
        raise


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    _check_sample(G, k)
    if G.n == 0:
        return {}
    M = lengths_matrix(G, weight)
    with _no_sources_divides(k):
        bc = alg.betweenness_centrality(M, k=k, seed=seed, normalized=normalized, endpoints=endpoints,
                                        weight=weight is not None)
    return by_node(G, bc)


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    _check_sample(G, k)
    if G.n == 0:
        return {}
    M = lengths_matrix(G, weight)
    with _no_sources_divides(k):
        E = alg.edge_betweenness_centrality(M, k=k, seed=seed, normalized=normalized, weight=weight is not None)
    return edge_dict(G, E, weight)


def _subset_sum(fn, G, sources, weight=None, **kw):
    """Σ over the rounds of distinct sources of fn(M, sources=round, **kw) (the rescaling networkx
    applies to subsets does not depend on the sources, so the sum of rescaled rounds is networkx's);
    M holds the lengths by ``weight`` when it is not None."""
    src = node_indices(G, list(sources))
    M = lengths_matrix(G, weight)
    if weight is not None:
        kw["weight"] = True
    total = None
    for part in rounds(src):
        got = fn(M, sources=part, **kw)
        if total is None:
            total = got
        elif isinstance(total, np.ndarray):
            total = total + got
        else:  # edge values: the same pattern each round; a sparse sum would drop the zero entries
            total.data += got.data
    return total


def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    sources = list(sources)
    if G.n == 0:
        node_indices(G, sources)
        return {}
    if weight is not None:
        # rules.can_run sent a weighted call here only with every node a target
        bc = _subset_sum(alg.betweenness_centrality, G, sources, weight, normalized=normalized)
        return by_node(G, bc)
    tgt = [G.index[t] for t in targets if t in G]  # networkx reads targets into a set: others never match
    bc = _subset_sum(alg.betweenness_centrality, G, sources, targets=tgt, normalized=normalized)
    return by_node(G, bc)


def edge_betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    # rules.can_run sent this call here only with every node a target
    sources = list(sources)
    if G.n == 0:
        node_indices(G, sources)
        return {}
    E = _subset_sum(alg.edge_betweenness_centrality, G, sources, weight, normalized=normalized)
    return edge_dict(G, E, weight)


# --------------------------------------------------------------------------- distances
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    weighted = distance is not None
    if u is not None:
        if u not in G:
            raise nx.NodeNotFound(f"Source {u} is not in G")
        M = lengths_matrix(G, distance)
        return float(alg.closeness_centrality(M, vertices=[G.index[u]], wf_improved=wf_improved,
                                              distance=weighted)[0])
    if G.n == 0:
        return {}
    return by_node(G, alg.closeness_centrality(lengths_matrix(G, distance), wf_improved=wf_improved,
                                               distance=weighted))


def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    targets = sorted(set(nbunch_indices(G, nbunch)))
    src = None if sources is None else sorted(set(nbunch_indices(G, sources)))
    if not targets:
        return {}
    H = alg.harmonic_centrality(lengths_matrix(G, distance), sources=src, distance=distance is not None).tolist()
    return {G.nodes[i]: H[i] for i in targets}


# --------------------------------------------------------------------------- PageRank
def _node_vector(G: SplaGraph, d):
    """A dict keyed by nodes as a vector in node order (missing nodes 0, other keys ignored), as networkx
    reads personalization, nstart and dangling."""
    if d is None:
        return None
    return np.array([d.get(v, 0) for v in G.nodes], dtype=np.float64)


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    if G.n == 0:
        return {}
    # weight None: every edge weighs 1, so a multigraph's parallel edges add up (networkx's to_scipy_sparse_array)
    M = G.matrix("counts") if weight is None else G.matrix(("weight", weight))
    try:
        x = alg.pagerank(M, alpha=alpha, personalization=_node_vector(G, personalization), max_iter=max_iter,
                         tol=tol, nstart=_node_vector(G, nstart), dangling=_node_vector(G, dangling), weight=True)
    except spla.ConvergenceError as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    return by_node(G, x)


# --------------------------------------------------------------------------- degrees
def _degree(G: SplaGraph, direction):
    if G.n == 0:
        return {}
    M = G.matrix("counts")
    return by_node(G, alg.degree_centrality(M, direction=direction, multiplicity=G.multigraph))


def degree_centrality(G):
    return _degree(G, "both")


def in_degree_centrality(G):
    return _degree(G, "in")


def out_degree_centrality(G):
    return _degree(G, "out")
