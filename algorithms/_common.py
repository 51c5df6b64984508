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
    drop_self_loops: return the matrix without its diagonal (cached per matrix).
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
    return without_self_loops(A) if drop_self_loops else A


def is_networkx_graph(G) -> bool:
    """Whether G is a networkx graph.  networkx is not imported to find out (its import costs
    0.3-1 s): a networkx graph exists only once something has imported it."""
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(G, nx.Graph)


def without_self_loops(A: spla.Matrix) -> spla.Matrix:
    """A with its diagonal removed (same object when it has none); cached on A."""
    key = "without_self_loops"
    if key in A._cache:
        return A._cache[key]
    C = A._to_scipy_csc(values_as_is=True).tocoo()
    off = C.row != C.col
    if off.all():
        A._cache[key] = A
        return A
    # drop the stored diagonal entries only: an off-diagonal stored 0 or False is still an arc
    S = sp.csc_array((C.data[off], (C.row[off], C.col[off])), shape=C.shape)
    S.sort_indices()
    B = spla.Matrix._from_sorted_csc(S, pattern=A.is_pattern, directed=A.directed, device=A.device,
                                     symmetric=A.T is A)
    A._cache[key] = B
    return B


def pattern_of(A: spla.Matrix) -> spla.Matrix:
    """A's structure as a pattern-only matrix (``spla.Matrix.pattern``, cached on A)."""
    return A.pattern()


def to_numpy(x) -> np.ndarray:
    return _dev.to_numpy(x)


# The CPU backend's per-level array passes run ~5x faster on blocks that stay in cache
# than on blocks that stream from memory: size CPU blocks for the cache, not the RAM.
CPU_BLOCK_BYTES = 64 << 20


def free_device_bytes(A: spla.Matrix) -> int:
    """Bytes the algorithm may still allocate on A's device (GPU: free + pool-cached; CPU: a fixed budget)."""
    if not _dev.is_gpu(A.device):
        return CPU_BLOCK_BYTES
    cp = _dev.cupy_module()
    with _dev.activate(A.device):  # both report the current device: ask A's
        free, _total = cp.cuda.runtime.memGetInfo()
        pool = cp.get_default_memory_pool()
        return int(free + pool.free_bytes())


def as_list(sources, name="sources") -> list:
    """``sources`` read once into a list; a TypeError naming the argument when it is not iterable."""
    try:
        it = iter(sources)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of vertices, got {type(sources).__name__} {sources!r}") from None
    return list(it)


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
