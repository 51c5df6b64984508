"""Adapters for the systems spla is compared with in the same run.

- cuSPARSE through ``cupyx.scipy.sparse`` (GPU) and SciPy (CPU): the SpMV/SpMM
  bandwidth yardstick, built on the *same* index arrays as the spla matrix.
- networkx (always importable here), NetworKit and igraph (optional: every helper
  raises :class:`PeerUnavailable` when the package is absent, and the sections
  record a clean "skipped").
"""

from __future__ import annotations

import numpy as np


class PeerUnavailable(Exception):
    """The peer system is not installed / cannot handle this input."""


def transpose_csr(A, dtype=np.float32, gpu: bool = True):
    """CSR matrix of A^T (so that ``S @ u`` is spla's ``vxm(u, A)``), from A's CSC arrays.

    A's CSC arrays (colptr, rowidx) *are* the CSR arrays of A^T, so no data is
    rearranged: cuSPARSE and spla read the same indices.  cuSPARSE also reads a
    value array (ones of ``dtype``), which a pattern spla matrix does not have.
    """
    ncols = A.shape[1]
    nrows = A.shape[0]
    if gpu:
        import cupy
        import cupyx.scipy.sparse as csp

        colptr, rowidx = A.colptr, A.rowidx
        if colptr.dtype != cupy.int32 or rowidx.dtype != cupy.int32:
            if int(A.nnz) >= 2 ** 31:
                raise PeerUnavailable("cuSPARSE via CuPy needs int32 indices (more than 2^31 arcs)")
            colptr, rowidx = colptr.astype(cupy.int32), rowidx.astype(cupy.int32)
        vals = cupy.ones(int(rowidx.size), dtype=dtype) if A.values is None else A.values.astype(dtype)
        return csp.csr_matrix((vals, rowidx, colptr), shape=(ncols, nrows))
    import scipy.sparse as sp

    colptr, rowidx = np.asarray(A.colptr), np.asarray(A.rowidx)
    vals = np.ones(rowidx.size, dtype=dtype) if A.values is None else np.asarray(A.values, dtype)
    return sp.csr_array((vals, rowidx, colptr), shape=(ncols, nrows))


# ----------------------------------------------------------------------------- networkx
def nx_bc_subset(G, sources):
    """networkx single-/multi-source BC (normalized=False), as a NumPy array over 0..n-1."""
    import networkx as nx

    d = nx.betweenness_centrality_subset(G, list(sources), list(G), normalized=False)
    return np.array([d[v] for v in range(G.number_of_nodes())])


def nx_closeness_one(G, v):
    """networkx closeness of one vertex."""
    import networkx as nx

    return nx.closeness_centrality(G, u=v)


# ---------------------------------------------------------------------------- NetworKit
def networkit_graph(src, dst, n, directed=False):
    """NetworKit graph from an edge list (raises PeerUnavailable without networkit)."""
    try:
        import networkit as nk  # type: ignore
    except Exception as e:  # noqa: BLE001
        raise PeerUnavailable(f"networkit not importable ({type(e).__name__})") from e
    g = nk.Graph(n, weighted=False, directed=directed)
    try:
        g.addEdges((np.asarray(src, np.uint64), np.asarray(dst, np.uint64)), checkMultiEdge=True)
    except TypeError:
        for u, v in zip(src.tolist(), dst.tolist()):
            g.addEdge(u, v, checkMultiEdge=True)
    g.removeSelfLoops()
    return g


def networkit_threads() -> int | None:
    try:
        import networkit as nk  # type: ignore

        return int(nk.getMaxNumberOfThreads())
    except Exception:  # noqa: BLE001
        return None


def networkit_bc(g):
    """Exact BC over all sources with NetworKit, unnormalised as networkx's.

    NetworKit sums the dependencies of every source, so on an undirected graph each
    unordered pair counts twice; networkx (and igraph) halve that sum.  The scores are
    halved here for undirected graphs (an O(n) pass)."""
    import networkit as nk  # type: ignore

    algo = nk.centrality.Betweenness(g, normalized=False)
    algo.run()
    scores = np.asarray(algo.scores())
    return scores if g.isDirected() else scores / 2


def networkit_closeness(g):
    """Closeness of all vertices with NetworKit (normalised generalised variant = networkx's
    wf_improved).  NetworKit measures the distances *from* a vertex along out-arcs; networkx
    (and spla) use the incoming distances of a directed graph, so a directed graph is
    transposed first (an O(m) pass)."""
    import networkit as nk  # type: ignore

    if g.isDirected():
        g = nk.graphtools.transpose(g)
    algo = nk.centrality.Closeness(g, True, nk.centrality.ClosenessVariant.Generalized)
    algo.run()
    return np.asarray(algo.scores())


# ------------------------------------------------------------------------------- igraph
def igraph_graph(src, dst, n, directed=False):
    """python-igraph graph from an edge list (raises PeerUnavailable without igraph)."""
    try:
        import igraph as ig  # type: ignore
    except Exception as e:  # noqa: BLE001
        raise PeerUnavailable(f"igraph not importable ({type(e).__name__})") from e
    g = ig.Graph(n=n, edges=np.column_stack([src, dst]).tolist(), directed=directed)
    g.simplify()
    return g


def igraph_bc(g):
    return np.asarray(g.betweenness(directed=g.is_directed()))


def igraph_closeness(g):
    """Closeness of all vertices with igraph, scaled to networkx's wf_improved variant.

    igraph's normalised closeness is (r - 1) / (sum of distances to the r - 1 vertices
    that reach the vertex), NaN where none does; networkx multiplies that by
    (r - 1) / (n - 1) (Wasserman and Faust).  r comes from the connected components of an
    undirected graph (an O(n + m) pass); for a directed graph it needs the in-reach of every
    vertex, one more BFS per vertex, which this call's time then includes."""
    n = g.vcount()
    if n <= 1:
        return np.zeros(n)
    directed = g.is_directed()
    c = np.asarray(g.closeness(mode="in" if directed else "all"), np.float64)
    if directed:
        reach = np.asarray(g.neighborhood_size(order=n, mode="in"), np.float64)
    else:
        cc = g.connected_components()
        reach = np.asarray(cc.sizes(), np.float64)[np.asarray(cc.membership)]
    return np.where(reach > 1, np.nan_to_num(c) * (reach - 1) / (n - 1), 0.0)


def have(module: str) -> bool:
    try:
        __import__(module)
        return True
    except Exception:  # noqa: BLE001
        return False
