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

On a GPU the hop-count primitives are not available (``KernelUnavailable``): there, betweenness runs
its batched paths, whose blocks of sources share each product.

Weighted (``weighted=True``; identical on the CPU and on a GPU).  Arc u -> v has length A[u, v]
(``spla.weights.check_lengths``: non-negative and finite, checked at the door; every length 1 for a
pattern-only matrix, whose weighted sums are the unweighted ones); self-loops lie on no shortest path::

    d(s) = 0;   d(v) = min over arcs u -> v of fl(d(u) + w(u, v))   (float64, summed in path order,
                                                                    as networkx's Dijkstra sums)
    tight arc u -> v:  u != v and fl(d(u) + w(u, v)) == d(v)         (exact equality: networkx's ties)
    h(s) = 0;   h(v) = min over tight arcs u -> v of h(u) + 1
    DAG arc:    a tight arc u -> v with d(u) < d(v), or d(u) == d(v) and h(u) < h(v)
    σ(s) = 1;   σ(v) = Σ_{DAG arcs u -> v} σ(u)
    δ(v) = Σ_{DAG arcs v -> w} σ(v)/σ(w) · (1 + δ(w))

and ``dependencies``, ``distance_sums`` and ``shortest_paths`` sum these as above.  The h rule
matters only where a DAG arc joins two vertices at equal distance (zero-length arcs, or a length
absorbed by rounding): it keeps the DAG acyclic, and a zero-length cycle counts once.  Without such
arcs the DAG is networkx's and so are the sums.  With them networkx's weighted betweenness depends on
the order its Dijkstra visits vertices: it adds σ to, and appends predecessors of, vertices it has
already finished.  Example: arcs s -> a (1), s -> b (1), a -> b (0), b -> a (0).  Here d(a) = d(b) =
1 and h(a) = h(b) = 1, so neither zero-length arc is a DAG arc: σ(a) = σ(b) = 1 and a, b have
betweenness 0.  networkx's Dijkstra from s pops a and b in the order it was given the arcs s -> a and
s -> b; the one popped second reaches the first, already finished, by a tight zero-length arc and adds
its σ there, so ``networkx.betweenness_centrality(G, weight=..., normalized=False)`` gives 1.5 to a
(arcs listed s -> a first) or to b (s -> b first).  The CPU runs one Dijkstra per source keyed by (d, h)
(``spla.backends.cpu_sssp``, numba); a GPU runs ``spla.backends.gpu.sssp``.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from . import memory as _memory
from .backends import cpu_paths as _cpu
from .backends import cpu_sssp as _cpu_sssp
from .errors import DimensionMismatch, KernelUnavailable
from .matrix import Matrix
from .weights import check_lengths

__all__ = ["dependencies", "distance_sums", "shortest_paths", "available", "threads"]


def available(device: str = "cpu", *, weighted: bool = False) -> tuple[bool, str]:
    """(whether these searches can run on ``device``, the reason when they cannot).

    The hop-count searches run on the CPU when numba imports, never on a GPU; the weighted ones
    (``weighted=True``) on the CPU when numba imports, and on a GPU when ``spla.backends.gpu.sssp``
    imports."""
    if _dev.is_gpu(device):
        if not weighted:
            return False, ("spla.paths runs its hop-count searches on the CPU backend only; on a GPU, "
                           "betweenness runs its batched paths (frontier='dense' or 'sparse')")
        try:
            _gpu_sssp()
        except Exception as exc:  # noqa: BLE001 - any failure to import the GPU module means "not available"
            return False, (f"the GPU's weighted searches (spla.backends.gpu.sssp) do not import "
                           f"({type(exc).__name__}: {exc})")
        return True, ""
    return _cpu_sssp.available() if weighted else _cpu.available()


def _gpu_sssp():
    """spla.backends.gpu.sssp, imported for a GPU matrix only (it needs CuPy)."""
    import importlib

    return importlib.import_module("spla.backends.gpu.sssp")


def threads() -> int:
    """The worker threads :func:`dependencies` runs on: numba's thread count (``NUMBA_NUM_THREADS``,
    by default every core), or 1 without numba."""
    return _cpu.threads()


def dependencies(A, sources, *, edges: bool = False, endpoints: bool = False, weighted: bool = False):
    """Σ over ``sources`` of Brandes' dependencies on A's arcs (see the module docstring).

    Parameters
    ----------
    A : spla.Matrix (n, n); arc i -> j for every stored A[i, j]
    sources : sequence of vertex indices in 0..n-1 (a vertex listed twice counts twice)
    edges : bool
        Sum per arc instead of per vertex: an (nnz,) array in A's CSC order (entry p is the arc
        ``A.rowidx[p] -> column of p``).
    endpoints : bool
        Count the paths' endpoints too (vertex sums only), as networkx's ``endpoints=True``.
    weighted : bool
        Shortest paths by arc length A[i, j] (the weighted definition of the module docstring) instead
        of by hop count; runs on the CPU and on a GPU.

    Returns
    -------
    float64 array, (n,) or with ``edges`` (nnz,): NumPy (hop counts, or weighted on the CPU), on A's
    device for ``weighted`` on a GPU.

    Raises
    ------
    KernelUnavailable on a GPU matrix without ``weighted``, when numba is not installed (``pip install
    numba``), or on a GPU whose weighted module does not import.  InvalidGraph for a negative, NaN or
    infinite length with ``weighted``, before any work.
    """
    for name, flag in (("edges", edges), ("endpoints", endpoints), ("weighted", weighted)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    if edges and endpoints:
        raise ValueError("endpoints=True counts vertices; it cannot be combined with edges=True (arc sums)")
    src = _check_call(A, sources, "dependencies", weighted)
    n = A.shape[0]
    if weighted:
        lengths = check_lengths(A, "weighted betweenness")
        if _dev.is_gpu(A.device):
            if src.size == 0:
                return A.xp.zeros(A.nnz if edges else n, dtype=np.float64)
            return _gpu_sssp().dependencies(A, src, edges=bool(edges), endpoints=bool(endpoints))
        if src.size and lengths is not None:
            return _cpu_sssp.weighted_dependencies(A, src, edges=bool(edges), endpoints=bool(endpoints),
                                                   workers=_cpu_sssp.threads())
        # pattern-only: every length 1, whose sums the hop-count search gives
    if src.size == 0:
        return np.zeros(A.nnz if edges else n, dtype=np.float64)
    return _cpu.dependencies(A, src, edges=bool(edges), endpoints=bool(endpoints), workers=_cpu.threads())


def distance_sums(A, sources, *, direction: str = "in", weighted: bool = False):
    """Distance sums over one search per source (arcs i -> j = A[i, j]; parallel arcs and self-loops
    change no distance; values are the arc lengths with ``weighted``, else ignored: hop distances).

    direction "in": for every vertex t, over the sources s in ``sources`` that reach t;
    "out": for every source s, over the vertices s reaches (0 at vertices that are not sources).

    Returns
    -------
    (dist, reach, harm): Σ d(s, t), int64 (n,) for hop distances, float64 (n,) with ``weighted``;
    int64 (n,) how many (s, t) pairs are counted, the vertex itself included (its d = 0); float64 (n,)
    Σ 1/d over d > 0 (a pair of distinct vertices at weighted distance 0 adds nothing, as networkx's
    harmonic centrality skips d == 0).  With every vertex a source these are the sums of closeness
    ("in"), harmonic ("in") and sum of distances ("out").  NumPy arrays, or on A's device for
    ``weighted`` on a GPU.

    Raises
    ------
    KernelUnavailable as :func:`dependencies` (``weighted`` on the CPU without numba runs SciPy's
    ``csgraph.dijkstra`` instead); InvalidGraph for a bad length with ``weighted``.
    """
    if direction not in ("in", "out"):
        raise ValueError(f"direction must be 'in' or 'out', got {direction!r}")
    if not isinstance(weighted, (bool, np.bool_)):
        raise TypeError(f"weighted must be True or False, got {weighted!r}")
    src = _check_call(A, sources, "distance_sums", weighted, scipy_ok=bool(weighted))
    n = A.shape[0]
    outgoing = direction == "out"
    if weighted:
        lengths = check_lengths(A, "weighted distances")
        if _dev.is_gpu(A.device):
            xp = A.xp
            if src.size == 0:
                return xp.zeros(n, dtype=np.float64), xp.zeros(n, dtype=np.int64), xp.zeros(n, dtype=np.float64)
            return _gpu_sssp().distance_sums(A, src, outgoing=outgoing)
        if src.size == 0:
            return np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.float64)
        if not _cpu_sssp.available()[0]:
            # Σ over SciPy's Dijkstra rows                     (no numba: the same distances)
            return _cpu_sssp.scipy_distance_sums(A, src, outgoing=outgoing)
        if lengths is not None:
            return _cpu_sssp.weighted_distance_sums(A, src, outgoing=outgoing, workers=_cpu_sssp.threads())
        dist, reach, harm = _cpu.distance_sums(A, src, outgoing=outgoing, workers=_cpu.threads())
        return dist.astype(np.float64), reach, harm  # pattern-only: every length 1, the hop-count search
    if src.size == 0:
        return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.float64)
    return _cpu.distance_sums(A, src, outgoing=outgoing, workers=_cpu.threads())


def shortest_paths(A, sources, *, weighted: bool = True, counts: bool = False):
    """Shortest-path distances from each source (and, with ``counts``, the numbers of shortest paths).

    Parameters
    ----------
    A : spla.Matrix (n, n); arc i -> j for every stored A[i, j]
    sources : sequence of k vertex indices in 0..n-1 (repeats allowed: row i is sources[i])
    weighted : bool
        Arc lengths A[i, j] (the weighted definition of the module docstring); False: hop counts
        (every length 1, A's values ignored).
    counts : bool
        Also return σ.

    Returns
    -------
    dist : float64 (k, n) on A's device, d(sources[i], v) in row i, inf where v is not reached;
    with ``counts`` also sigma : float64 (k, n), σ as defined (the DAG's path counts; 0 where not
    reached; inf past float64's range).

    Raises
    ------
    KernelUnavailable as :func:`dependencies` (on the CPU without numba, ``counts`` only: the distances
    come from SciPy's ``csgraph.dijkstra`` there); InvalidGraph for a bad length with ``weighted``;
    InsufficientMemory when the (k, n) results do not fit.
    """
    for name, flag in (("weighted", weighted), ("counts", counts)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    src = _check_call(A, sources, "shortest_paths", True, scipy_ok=not counts)
    if weighted:
        check_lengths(A, "weighted shortest paths")
    else:
        A = A.pattern()  # hop counts: every length 1
    k, n = src.size, A.shape[0]
    _memory.require(8 * k * n * (2 if counts else 1), A.device, what=f"shortest paths from {k:,} sources to "
                    f"{n:,} vertices ({'two ' if counts else 'a '}(k, n) float64 array{'s' if counts else ''})",
                    remedy="pass fewer sources per call")
    if _dev.is_gpu(A.device):
        if k == 0:
            xp = A.xp
            return (xp.zeros((0, n)), xp.zeros((0, n))) if counts else xp.zeros((0, n))
        dist, sigma = _gpu_sssp().shortest_paths(A, src, counts=bool(counts))
    elif not _cpu_sssp.available()[0]:
        dist, sigma = _cpu_sssp.scipy_shortest_paths(A, src), None  # no numba: SciPy's Dijkstra, the same floats
    else:
        dist, sigma = _cpu_sssp.shortest_paths(A, src, counts=bool(counts), workers=_cpu_sssp.threads())
    return (dist, sigma) if counts else dist


def _check_call(A, sources, name, weighted=False, scipy_ok=False):
    """The checks every search makes at the door: a square spla.Matrix on a device the searches run on
    (``scipy_ok``: weighted distances, which SciPy's Dijkstra gives on a CPU without numba), and the
    sources as an int64 array of vertices; returns the sources."""
    if not isinstance(A, Matrix):
        raise TypeError(f"A must be a spla.Matrix, got {type(A).__name__}")
    if A.shape[0] != A.shape[1]:
        raise DimensionMismatch(f"shortest paths need a square matrix, got shape {A.shape}")
    ok, why = available(A.device, weighted=bool(weighted))
    if not ok and not (scipy_ok and not _dev.is_gpu(A.device)):
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
