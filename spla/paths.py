"""spla.paths: shortest-path sums over a set of sources (Brandes' dependencies, distance sums), one search per source.

Definition (Brandes 2001; networkx's unweighted ``betweenness_centrality`` and
``edge_betweenness_centrality``), for a square matrix A whose stored entries are the arcs
i -> j = A[i, j] (values ignored; self-loops lie on no shortest path; an arc counts once)::

    σ_sv        = the number of shortest s-v paths
    δ_s(v)      = Σ_{w : v -> w on a shortest path from s} σ_sv / σ_sw · (1 + δ_s(w)),   δ_s(s) = 0

    dependencies(A, S)                  = Σ_{s in S} δ_s                                        (n,)
    dependencies(A, S, endpoints=True)  = Σ_{s in S} (δ_s + [s reaches v, v != s] + [v = s] (r_s - 1))
    dependencies(A, S, edges=True)      = Σ_{s in S} σ_sv / σ_sw · (1 + δ_s(w)) on every arc v -> w (nnz,)

r_s = the number of vertices s reaches (itself included); an arc's sum is 0 unless it lies on a
shortest path from a source (level(w) = level(v) + 1).  These are the sums betweenness rescales:
``spla.algorithms.betweenness_centrality`` and ``edge_betweenness_centrality`` run this primitive
on the CPU (their ``frontier="queue"``).

Each source is one breadth-first search counting σ in float64 (as networkx) and one sweep back
over what it reached, so its work is the arcs its search touches; the sources are shared among
the machine's cores (``threads()``).  The searches are compiled loops (numba): the first call on
a machine compiles them (once per index dtype, seconds) into numba's cache, which later processes
load.  σ beyond float64's range is rescaled by powers of two, level by level, so the sums keep
float64's relative precision on any graph (``spla.backends.cpu_paths``).

``distance_sums(A, S, direction=...)`` runs the same searches without σ: the per-vertex sums of hop
distances, of their reciprocals and of the pairs counted, which closeness, harmonic centrality
and the sum of distances rescale.

On a GPU these primitives are not available (``KernelUnavailable``): there, betweenness runs its
batched paths, whose blocks of sources share each product.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from .backends import cpu_paths as _cpu
from .errors import DimensionMismatch, KernelUnavailable
from .matrix import Matrix

__all__ = ["dependencies", "distance_sums", "available", "threads"]


def available(device: str = "cpu") -> tuple[bool, str]:
    """(whether :func:`dependencies` can run on ``device``, the reason when it cannot).

    It runs on the CPU when numba imports; never on a GPU."""
    if _dev.is_gpu(device):
        return False, ("spla.paths runs on the CPU backend only; on a GPU, betweenness runs its batched "
                       "paths (frontier='dense' or 'sparse')")
    return _cpu.available()


def threads() -> int:
    """The worker threads :func:`dependencies` runs on: numba's thread count (``NUMBA_NUM_THREADS``,
    by default every core), or 1 without numba."""
    return _cpu.threads()


def dependencies(A, sources, *, edges: bool = False, endpoints: bool = False) -> np.ndarray:
    """Σ over ``sources`` of Brandes' dependencies on A's arcs (see the module docstring).

    Parameters
    ----------
    A : spla.Matrix (n, n) on the CPU; arc i -> j for every stored A[i, j]
    sources : sequence of vertex indices in 0..n-1 (a vertex listed twice counts twice)
    edges : bool
        Sum per arc instead of per vertex: an (nnz,) array in A's CSC order (entry p is the arc
        ``A.rowidx[p] -> column of p``).
    endpoints : bool
        Count the paths' endpoints too (vertex sums only), as networkx's ``endpoints=True``.

    Returns
    -------
    numpy float64 array, (n,) or with ``edges`` (nnz,).

    Raises
    ------
    KernelUnavailable on a GPU matrix, or when numba is not installed (``pip install numba``).
    """
    for name, flag in (("edges", edges), ("endpoints", endpoints)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    if edges and endpoints:
        raise ValueError("endpoints=True counts vertices; it cannot be combined with edges=True (arc sums)")
    src = _check_call(A, sources, "dependencies")
    n = A.shape[0]
    if src.size == 0:
        return np.zeros(A.nnz if edges else n, dtype=np.float64)
    return _cpu.dependencies(A, src, edges=bool(edges), endpoints=bool(endpoints), workers=_cpu.threads())


def distance_sums(A, sources, *, direction: str = "in"):
    """Hop-distance sums over one BFS per source (arcs i -> j = A[i, j]; values, parallel arcs and
    self-loops change no distance).

    direction "in": for every vertex t, over the sources s in ``sources`` that reach t;
    "out": for every source s, over the vertices s reaches (0 at vertices that are not sources).

    Returns
    -------
    (dist, reach, harm): int64 (n,) Σ d(s, t); int64 (n,) how many (s, t) pairs are counted, the
    vertex itself included (its d = 0); float64 (n,) Σ 1/d over d >= 1.  With every vertex a
    source these are the sums of closeness ("in"), harmonic ("in") and sum of distances ("out").

    Raises
    ------
    KernelUnavailable on a GPU matrix, or when numba is not installed (``pip install numba``).
    """
    if direction not in ("in", "out"):
        raise ValueError(f"direction must be 'in' or 'out', got {direction!r}")
    src = _check_call(A, sources, "distance_sums")
    n = A.shape[0]
    if src.size == 0:
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.float64)
    return _cpu.distance_sums(A, src, outgoing=direction == "out", workers=_cpu.threads())


def _check_call(A, sources, name):
    """The checks every search makes at the door: a square spla.Matrix on a device the searches run on,
    and the sources as an int64 array of vertices; returns the sources."""
    if not isinstance(A, Matrix):
        raise TypeError(f"A must be a spla.Matrix, got {type(A).__name__}")
    if A.shape[0] != A.shape[1]:
        raise DimensionMismatch(f"shortest paths need a square matrix, got shape {A.shape}")
    ok, why = available(A.device)
    if not ok:
        raise KernelUnavailable(f"spla.paths.{name} cannot run on {A.device!r}: {why}")
    return _check_sources(sources, A.shape[0])


def _check_sources(sources, n):
    """``sources`` as an int64 array of vertices in 0..n-1, or an error naming the bad entry."""
    s = np.asarray(_dev.to_numpy(sources) if hasattr(sources, "__cuda_array_interface__") else sources)
    if s.size == 0:
        return np.zeros(0, dtype=np.int64)
    if s.dtype.kind not in "iu":
        raise TypeError(f"sources must be vertex indices (integers 0..n-1), got dtype {s.dtype}")
    s = s.astype(np.int64).ravel()
    if s.min() < 0 or s.max() >= n:
        bad = int(s.min() if s.min() < 0 else s.max())
        raise ValueError(f"sources contains vertex {bad}, outside 0..{n - 1}")
    return s
