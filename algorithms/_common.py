"""Shared plumbing of the algorithms: turning user input into a spla.Matrix, and back.

Every algorithm accepts a ``spla.Matrix``, a SciPy sparse matrix/array (a stored A[i, j],
even 0, is the arc i -> j; symmetric means undirected unless told), a dense 2-D NumPy array
(its non-zero entries are the arcs, as ``networkx.from_numpy_array``), or a networkx
Graph/DiGraph (vertices in ``list(G)`` order).  Results are NumPy arrays indexed like the input.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import scipy.sparse as sp

import spla
from spla import device as _dev


def on_graph_device(fn):
    """Run the algorithm ``fn(G, ..., device=None, ...)`` with its GPU current: ``device`` when
    given, else G's when G is a spla.Matrix, else "auto" (as :func:`as_matrix`), so that a graph
    on "gpu:1" is computed there (its arrays, kernels and recorded steps) whichever device is
    current."""
    graph_arg = fn.__code__.co_varnames[0]  # the graph may also be passed by name (A=...)

    @functools.wraps(fn)
    def on_device(*args, **kwargs):
        G = args[0] if args else kwargs.get(graph_arg)
        device = kwargs.get("device")
        if device is None:
            device = G.device if isinstance(G, spla.Matrix) else "auto"  # as_matrix's default
        with _dev.activate(_dev.resolve(device)):
            return fn(*args, **kwargs)
    return on_device


def as_matrix(G, *, device=None, weight=None, drop_self_loops=False) -> spla.Matrix:
    """A spla.Matrix for ``G`` on ``device`` (None: where G already is, or "auto").

    weight: for networkx input, the edge attribute to keep (None: unweighted).
    drop_self_loops: return the matrix without its diagonal (``spla.select(A, "offdiag")``, cached on A).
    """
    if isinstance(G, spla.Matrix):
        A = G if device is None else G.to(device)
    elif is_networkx_graph(G):
        A = spla.Matrix.from_networkx(G, weight=weight, device="auto" if device is None else device)
    else:
        if sp.issparse(G) or isinstance(G, np.ndarray):
            A = spla.Matrix.from_scipy(G, device="auto" if device is None else device)
        else:
            raise TypeError(f"expected a spla.Matrix, a SciPy sparse matrix, a 2-D NumPy array or a networkx graph, "
                            f"got {type(G).__name__}")
    if A.shape[0] != A.shape[1]:
        raise spla.InvalidGraph(f"a graph's adjacency matrix must be square, got shape {A.shape}")
    return spla.select(A, "offdiag") if drop_self_loops else A


def is_networkx_graph(G) -> bool:
    """Whether G is a networkx graph.  networkx is not imported to find out (its import is slow): a
    networkx graph exists only once something has imported it."""
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(G, nx.Graph)


def pattern_of(A: spla.Matrix) -> spla.Matrix:
    """A's structure as a pattern-only matrix (``spla.Matrix.pattern``, cached on A)."""
    return A.pattern()


def to_numpy(x) -> np.ndarray:
    return _dev.to_numpy(x)


def free_device_bytes(A: spla.Matrix) -> int:
    """Bytes the algorithm may still allocate on A's device: on a GPU its free memory and the blocks
    cached in CuPy's pool (``spla.memory.available_bytes``); on the CPU the tunable ``cpu_block_bytes``,
    a budget sized for the cache, where the CPU backend's array passes run fastest
    (docs/decisions/algorithms.md)."""
    if not _dev.is_gpu(A.device):
        return spla.tuning.current().cpu_block_bytes
    return spla.memory.available_bytes(A.device)


def as_list(sources, name="sources") -> list:
    """``sources`` read once into a list; a TypeError naming the argument when it is not iterable."""
    try:
        it = iter(sources)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of vertices, got {type(sources).__name__} {sources!r}") from None
    return list(it)


def vertex_indices(G, vertices, name="vertices") -> np.ndarray:
    """``vertices`` as int64 vertex indices, order and repeats kept: nodes of G when G is a networkx
    graph (positions in ``list(G)``), else integers 0..n-1 of G's n vertices."""
    items = vertices if isinstance(vertices, np.ndarray) else as_list(vertices, name)
    if is_networkx_graph(G):
        index = {v: i for i, v in enumerate(G)}
        missing = [v for v in items if v not in index]
        if missing:
            raise ValueError(f"{name} contains {missing[0]!r}, which is not a node of the graph")
        return np.asarray([index[v] for v in items], dtype=np.int64)
    idx = np.asarray(items).ravel()
    if idx.size == 0:
        return idx.astype(np.int64)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{name} must be vertex indices (integers 0..n-1), got dtype {idx.dtype}")
    n = G.shape[0]
    if idx.min() < 0 or idx.max() >= n:
        bad = int(idx.min() if idx.min() < 0 else idx.max())
        raise ValueError(f"{name} contains vertex {bad}, outside 0..{n - 1}")
    return idx.astype(np.int64)


def check_sources(sources, n: int, name="sources") -> np.ndarray:
    """Validate a list/array of vertex indices in 0..n-1 (int64, order kept, duplicates rejected)."""
    s = np.asarray(sources if isinstance(sources, np.ndarray) else as_list(sources, name))
    if s.size == 0:
        return s.astype(np.int64)
    if s.dtype.kind not in "iu":
        raise TypeError(f"{name} must be vertex indices (integers 0..n-1), got dtype {s.dtype}")
    s = s.astype(np.int64).ravel()
    if n == 0:
        raise ValueError(f"{name} contains vertex {int(s[0])}, but the graph has no vertices")
    if s.min() < 0 or s.max() >= n:
        bad = int(s.min() if s.min() < 0 else s.max())
        raise ValueError(f"{name} contains vertex {bad}, outside 0..{n - 1}")
    order = np.argsort(s, kind="stable")
    again = order[1:][s[order[1:]] == s[order[:-1]]]  # positions of the entries that repeat an earlier one
    if again.size:
        raise ValueError(f"{name} contains vertex {int(s[again.min()])} more than once; list each vertex once")
    return s


def check_progress(progress):
    """Refuse a ``progress`` that is neither None nor callable at the door (it is first called after
    a whole block of work)."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable(done, total), got {type(progress).__name__} {progress!r}")


def undirected_pattern(G, device, who) -> spla.Matrix:
    """G's pattern without self-loops, for the algorithms defined on undirected graphs only
    (:class:`spla.InvalidGraph` for a directed one)."""
    A = pattern_of(as_matrix(G, device=device, drop_self_loops=True))
    if A.directed:
        raise spla.InvalidGraph(f"{who} is defined on undirected graphs; pass an undirected graph (a networkx "
                                "Graph, a symmetric matrix, or G.to_undirected())")
    return A
