"""Betweenness centrality (vertex and edge) in TurboBC's linear-algebra form, batched over sources.

Definition (Freeman; Brandes 2001; networkx ``betweenness_centrality``)::

    bc(v) = Σ_{s ≠ v ≠ t} σ_st(v) / σ_st

σ_st = number of shortest s-t paths, σ_st(v) those through v.  Brandes: with
δ_s(v) = Σ_{w : v -> w on a shortest path} σ_sv / σ_sw · (1 + δ_s(w)),  bc(v) = Σ_s δ_s(v).
Edge betweenness (networkx ``edge_betweenness_centrality``): bc(v -> w) = Σ_s σ_sv / σ_sw · (1 + δ_s(w))
over the arcs of the sources' shortest-path DAGs.  Both are then rescaled as networkx's ``_rescale``
(normalized, directed, endpoints, sampled sources).

The dependencies of a block of sources come from one of four paths, three of them a module here:

* :mod:`betweenness_dense`: (n, k) arrays, one masked product per BFS level and direction (TurboBC's
  Algorithm 1 batched); vertex and edge betweenness.
* :mod:`betweenness_sparse`: the frontiers as lists of (vertex, source) entries (``spla.frontier``),
  for graphs of many levels and sources that reach few vertices; ``frontier="sparse"``, or "auto"
  when a BFS from a sample of the sources says so (``betweenness_sparse.use_sparse_frontier``).
* :mod:`betweenness_single`: one source at a time (``batch_size=1``, and any single source under
  "auto" on a GPU), each level's product a push or a pull, whole sources replayed by recorded plans.
* ``spla.paths.dependencies`` (``frontier="queue"``): on the CPU, Brandes' search compiled, one
  source at a time per core, its frontier a queue of vertices, so a source costs the arcs it
  reaches; "auto" on the CPU whenever it is available (numba installed), vertex and edge
  betweenness alike.  :func:`betweenness_path` says which path a call takes and why.
* ``weight=True`` (networkx's ``weight=``): the shortest paths by arc length, Brandes over the weighted
  shortest-path DAG (:mod:`weighted` gives the definition, ties and zero-length arcs included), one
  Dijkstra per source through ``spla.paths.dependencies(..., weighted=True)`` on the CPU or a GPU.

This module holds the public functions, their checks at the door, the sources (given, sampled as
networkx samples them, or all), the choice of path (:func:`betweenness_path`) and block size, and
the retry with half the block after running out of device memory.

Needs: a square adjacency (arc i -> j is A[i, j]); values (weights) and self-loops are ignored,
parallel arcs count once: networkx's unweighted (weight=None) semantics; with ``weight=True`` the
values are the arc lengths.  Memory: the matrix
(n + 1 + m words, twice for a directed graph, which also needs A.T) plus about 64 bytes per vertex
per source of the block (40 with sparse frontiers); "auto" blocks take half the free device memory.
The queue path holds, per thread, about 52 bytes per vertex and 4 per arc (int32 indices; their
share doubles with int64 ones), and an accumulator of n (vertex) or nnz (edge) float64.
"""

from __future__ import annotations

import logging
import random
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

import spla

from . import betweenness_dense as dense
from . import betweenness_single as single
from . import betweenness_sparse as sparse
from . import cluster, weighted
from ._common import (as_list, as_matrix, check_progress, check_sources, free_device_bytes, is_networkx_graph,
                      on_graph_device, pattern_of, to_numpy)

log = logging.getLogger("spla")

#: host bytes per vertex of one thread of the queue path's workspace (spla.backends.cpu_paths)
QUEUE_BYTES_PER_VERTEX = 52


@on_graph_device
def betweenness_centrality(A, *, k=None, sources=None, targets=None, seed=None, normalized=True, endpoints=False,
                           batch_size="auto", device=None, kernel="auto", frontier="auto", progress=None, weight=None,
                           client=None):
    """Shortest-path betweenness centrality of every vertex (networkx semantics and defaults).

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse (a stored A[i, j], even 0, is the arc i -> j) or networkx Graph/DiGraph
    k : int, optional
        Sample k source vertices: the sources are ``random.Random(seed).sample(range(n), k)``,
        the same vertices networkx's ``seed.sample(list(G.nodes()), k)`` draws (positions in
        ``list(G)``), so results equal networkx's for the same integer seed.
    sources : sequence of vertices, optional
        Only paths starting at these sources (indices 0..n-1; nodes for a networkx graph):
        equals ``networkx.betweenness_centrality_subset(G, sources, list(G), normalized=...)``.
    targets : iterable of vertices, optional
        Only paths ending at these targets (indices 0..n-1; nodes for a networkx graph; repeats
        count once, as networkx reads them into a set): with ``sources`` (every vertex when absent),
        equals ``networkx.betweenness_centrality_subset(G, sources, targets, normalized=...)``.
        Runs on dense frontiers (``frontier`` "auto" or "dense"; one source at a time too).
    seed : int, random.Random, numpy Generator / RandomState or None
        As networkx takes it (a NumPy generator is wrapped the way networkx wraps it).
    normalized : bool
        Divide by the number of (s, t) pairs, as networkx.
    endpoints : bool
        Count the path endpoints too.
    batch_size : "auto" or int
        Sources per block (1 is TurboBC's single-source Algorithm 1); "auto" sizes the
        block from free device memory (the queue path: every source in one call, or blocks of
        about 1% of them when ``progress`` is given).  Running out of memory halves the block.
    device, kernel : where to run and which product kernel ("auto", "scCSC", "veCSC", "scCOOC", "push");
        with batch_size=1, "auto" chooses push or pull at every BFS level.  Sparse frontiers run
        ``spla.frontier``'s own push and pull, no product kernel: there ``kernel`` is only checked.
    frontier : "auto", "dense", "sparse" or "queue"
        How the sources hold their BFS frontiers.  "dense": (n, k) blocks and one masked
        product per level, whose vector work is O(n·k) per level; "sparse": the frontier as a
        list of (vertex, source) entries (``spla.frontier``), whose work is the frontier's arcs,
        for graphs of many levels (meshes, road networks) and for sources that reach few vertices
        (directed graphs); "queue" (CPU only, needs numba): Brandes' search compiled, one source
        at a time on each core, its frontier a queue of vertices (``spla.paths.dependencies``),
        whose work is the arcs each source reaches.  "auto": on the CPU "queue" whenever numba
        is installed (the fastest CPU path on every graph measured: the tunable
        ``paths_for_betweenness``, docs/decisions/algorithms.md); otherwise, and on a GPU, "dense" or
        "sparse" by one BFS from a sample of the sources (up to the tunable ``reach_sample``,
        32), its depth against the arcs they reach (see ``betweenness_sparse.use_sparse_frontier``),
        when there are several sources.  With batch_size=1, and under "auto" for a single source
        on a GPU, the direction-optimised single-source path runs instead (its levels push or
        pull a single vector).  :func:`betweenness_path` tells the path a call takes.
    progress : callable(done, total), optional, called after each block (each chunk with ``client``).
    weight : None, False, True or str
        True: shortest paths by arc length, A's values (a networkx graph's "weight" attribute; a string
        names another attribute of a networkx graph), as networkx's ``weight=``; one Dijkstra per
        source on the CPU or the GPU (:mod:`weighted` defines the DAG, ties included).  None/False: hop
        counts.  A pattern-only matrix gives the unweighted answer.  Not with ``targets``.
    client : dask.distributed.Client, optional
        Compute on the client's workers: the sources (all, sampled or given) are cut into chunks, each
        run as above on a worker's own device (its GPU, else its CPU) and summed there
        (:mod:`cluster`); the answer equals the single-device one but for the order of the additions.
        ``device`` is where this process holds the graph and rescales.

    Returns
    -------
    numpy float64 array (n,) indexed like the input's vertices.
    """
    _check_options(batch_size, kernel, progress, frontier)
    cluster.check_client(client)
    _check_targets_frontier(targets, frontier)
    lengths = _check_weight(weight, A, targets, frontier)
    src, sampled, n, directed, M = _prepare(A, k, sources, seed, device, lengths=lengths)
    subset = sources is not None or targets is not None
    if subset and endpoints:
        raise ValueError("endpoints=True cannot be combined with sources= or targets= (networkx's "
                         "betweenness_centrality_subset has no endpoints option)")
    if _weighted(M, lengths):
        # bc = Σ_{s in src} δ_s                           (one Dijkstra per source, keyed by (d, h))
        bc = _weighted_sums(client, M, src, edges=False, endpoints=endpoints, batch_size=batch_size,
                            progress=progress)
    else:
        tgt = _targets(A, M, targets, k)
        bc = _sums(client, M, src, endpoints=endpoints, edges=False, batch_size=batch_size, kernel=kernel,
                   progress=progress, frontier=frontier, targets=tgt)
    return to_numpy(_rescale(bc, n, normalized=normalized, directed=directed,
                             endpoints=endpoints and not subset, sampled=sampled))


@on_graph_device
def edge_betweenness_centrality(A, *, k=None, sources=None, targets=None, seed=None, normalized=True,
                                batch_size="auto", device=None, kernel="auto", progress=None, frontier="auto",
                                weight=None, client=None):
    """Edge betweenness centrality (networkx ``edge_betweenness_centrality`` semantics).

    Parameters as :func:`betweenness_centrality` (k, sources, targets, seed, normalized, batch_size,
    device, kernel, progress, client); there is no endpoints option.  With ``sources`` and ``targets`` this is
    Brandes' edge betweenness of the paths from a source to a target, Σ_{s ∈ S, t ∈ T} σ(s, t | e) /
    σ(s, t), which networkx's ``edge_betweenness_centrality_subset`` computes when every vertex is a
    target (for a smaller set of targets networkx splits a non-target's dependency evenly among its
    parents, not by path counts).  ``frontier``: "auto", "dense" or "queue" (sparse frontiers carry no
    arc sums): "auto" is "queue" on the CPU with numba installed and no ``targets``, "dense" otherwise.
    ``weight=True`` (or an attribute name): by arc length, as :func:`betweenness_centrality` (networkx's ``weight=``).

    Returns
    -------
    scipy.sparse.csc_array (n, n) float64 with A's pattern: entry (u, v) is the BC of the
    arc u -> v; an undirected edge's value stands on both of its arcs.  Self-loops are 0.
    A multigraph's parallel edges are one arc here, holding their sum (networkx gives each
    of the k parallel edges 1/k of it, for unweighted shortest paths).
    """
    _check_options(batch_size, kernel, progress, frontier, edges=True)
    cluster.check_client(client)
    _check_targets_frontier(targets, frontier)
    lengths = _check_weight(weight, A, targets, frontier)
    src, sampled, n, directed, M = _prepare(A, k, sources, seed, device, lengths=lengths)
    P = pattern_of(M)
    if _weighted(M, lengths):
        # bc(v -> w) = Σ_{s in src} σ_sv / σ_sw · (1 + δ_s(w))     (one Dijkstra per source, keyed by (d, h))
        arc_bc = to_numpy(_weighted_sums(client, M, src, edges=True, endpoints=False, batch_size=batch_size,
                                         progress=progress))
    else:
        tgt = _targets(A, M, targets, k)
        arc_bc = to_numpy(_sums(client, M, src, endpoints=False, edges=True, batch_size=batch_size, kernel=kernel,
                                progress=progress, frontier=frontier, targets=tgt))
    if not directed and P.nnz:
        # bc(u -> v) = bc(v -> u) = the sum of both arcs' dependencies: B + B'    (an undirected edge)
        B = spla.Matrix.from_csc(P.colptr, P.rowidx, arc_bc, P.shape, directed=True, device="cpu")
        arc_bc = np.array(spla.ewise_add(B, B.T, "plus").values)
    arc_bc = _rescale(arc_bc, n, normalized=normalized, directed=directed, endpoints=True, sampled=sampled)
    return sp.csc_array((arc_bc, to_numpy(P.rowidx), to_numpy(P.colptr)), shape=P.shape)


# --------------------------------------------------------------------------- plumbing
def _sums(client, M, src, *, progress, targets, **options):
    """:func:`_run` here, or over the client's workers (:func:`cluster.source_sums`, chunks by :func:`_chunk`)."""
    if client is None:
        return _run(M, src, progress=progress, targets=targets, **options)
    return cluster.source_sums(client, M, src, _chunk, progress=progress,
                               targets=None if targets is None else to_numpy(targets), **options)


def _chunk(M, src, *, targets, **options):
    """The raw sums of the sources ``src`` on a Dask worker's copy M of the graph (:mod:`cluster`)."""
    return _run(M, src, progress=None, targets=None if targets is None else M.xp.asarray(targets), **options)


def _weighted_sums(client, M, src, *, progress, **options):
    """``weighted.dependencies`` here, or over the client's workers, the arc lengths shipped with the graph."""
    if client is None:
        return weighted.dependencies(M, src, progress=progress, **options)
    return cluster.source_sums(client, M, src, _weighted_chunk, progress=progress, values=True, **options)


def _weighted_chunk(M, src, **options):
    """The raw weighted sums of the sources ``src`` on a Dask worker's copy M of the graph (:mod:`cluster`)."""
    return weighted.dependencies(M, src, progress=None, **options)


def _check_options(batch_size, kernel, progress, frontier="dense", edges=False):
    """The options' own checks, at the door: before any work, whatever the graph (an empty one, or
    sources=[], runs no product; sparse frontiers and queues use no product kernel)."""
    spla.normalize_kernel(kernel)
    allowed = ("auto", "dense", "queue") if edges else FRONTIERS
    if not isinstance(frontier, str) or frontier not in allowed:
        raise ValueError(f"frontier must be one of {', '.join(map(repr, allowed))}, got {frontier!r}"
                         + (" (edge betweenness has no sparse-frontier path)" if frontier == "sparse" else ""))
    auto = isinstance(batch_size, str) and batch_size == "auto"
    if not auto and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise ValueError(f"batch_size must be 'auto' or a positive integer, got {batch_size!r}")
    check_progress(progress)


def _prepare(A, k, sources, seed, device, lengths=None):
    """(sources, the sampled sources or None, n, directed, M): the sources given (nodes of a networkx
    graph or vertex indices), k sampled as networkx samples them, or every vertex; M holds the arc
    lengths when ``lengths`` names them (:func:`weighted.check_weight`)."""
    nodes = list(A) if is_networkx_graph(A) else None
    M = weighted.weighted_matrix(A, device, lengths) if lengths else as_matrix(A, device=device)
    n = M.shape[0]
    sampled = None
    if k is not None and sources is not None:
        raise ValueError("give either k (sample sources) or sources (a given subset), not both")
    if sources is not None:
        if not isinstance(sources, np.ndarray):
            sources = as_list(sources)  # an iterator is read once, here
        if nodes is not None:
            index = {v: i for i, v in enumerate(nodes)}
            missing = [s for s in sources if s not in index]
            if missing:
                raise ValueError(f"sources contains {missing[0]!r}, which is not a node of the graph")
            if len(set(sources)) != len(sources):
                seen = set()
                dup = next(s for s in sources if s in seen or seen.add(s))
                raise ValueError(f"sources contains node {dup!r} more than once; list each node once")
            sources = [index[s] for s in sources]
        src = check_sources(sources, n)
    elif k is not None and k != n:
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0 or k > n:
            raise ValueError(f"k must be an integer in 0..n = 0..{n} (sources to sample), got {k!r}")
        src = np.asarray(_python_random(seed).sample(range(n), int(k)), dtype=np.int64)
        sampled = src
    else:
        src = np.arange(n, dtype=np.int64)
    return src, sampled, n, M.directed, M


def _check_weight(weight, A, targets, frontier):
    """The attribute the betweenness of A is weighted by (:func:`weighted.check_weight`; None:
    unweighted), checked at the door with the options the weighted searches do not take."""
    lengths = weighted.check_weight(weight, A)
    if lengths is None:
        return None
    if targets is not None:
        raise NotImplementedError("weighted betweenness (weight=) runs from sources to every vertex; targets= "
                                  "is not available with it")
    if frontier not in ("auto", "queue"):
        raise ValueError(f"weighted betweenness (weight=) runs one Dijkstra per source; frontier must be 'auto', "
                         f"not {frontier!r}")
    return lengths


def _weighted(M, lengths):
    """Whether M's betweenness runs the weighted searches: lengths asked for (:func:`_check_weight`) and
    a matrix with values (a pattern-only matrix's lengths are all 1, its hop-count paths give the same
    sums)."""
    return lengths is not None and not M.is_pattern


def _check_targets_frontier(targets, frontier):
    if targets is not None and frontier in ("sparse", "queue"):
        raise ValueError(f"targets= runs on dense frontiers; use frontier='auto' or 'dense', not {frontier!r}")


def _targets(A, M, targets, k):
    """The targets as a float64 (n,) indicator on M's device (None: every vertex is a target).  Nodes of
    a networkx graph or vertex indices; repeats count once (networkx reads the targets into a set)."""
    if targets is None:
        return None
    if k is not None:
        raise ValueError("give either k (sample sources) or targets, not both")
    n = M.shape[0]
    if not isinstance(targets, np.ndarray):
        targets = as_list(targets, "targets")
    if is_networkx_graph(A):
        index = {v: i for i, v in enumerate(A)}
        missing = [t for t in targets if t not in index]
        if missing:
            raise ValueError(f"targets contains {missing[0]!r}, which is not a node of the graph")
        targets = [index[t] for t in targets]
    t = np.unique(np.asarray(targets).ravel())
    if t.size and t.dtype.kind not in "iu":
        raise TypeError(f"targets must be vertex indices (integers 0..n-1), got dtype {t.dtype}")
    if t.size and (t.min() < 0 or t.max() >= n):
        bad = int(t.min() if t.min() < 0 else t.max())
        raise ValueError(f"targets contains vertex {bad}, outside 0..{n - 1}")
    ind = np.zeros(n, dtype=np.float64)
    ind[t.astype(np.int64)] = 1.0
    return M.xp.asarray(ind)


def _python_random(seed):
    """A ``random.Random`` for ``seed`` as networkx's ``create_py_random_state`` makes it: an int (or
    None, str, bytes, float) seeds a new one, a ``random.Random`` is used as it is, and a NumPy
    ``Generator`` / ``RandomState`` is wrapped the way networkx wraps it, so that the sample is
    networkx's for the same seed object."""
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, (np.random.Generator, np.random.RandomState)) or seed is np.random:
        try:
            from networkx.utils import create_py_random_state
        except ImportError:  # without networkx: a Python generator seeded from the NumPy one
            draw = seed.integers if isinstance(seed, np.random.Generator) else seed.randint
            return random.Random(int(draw(0, 2**62)))
        return create_py_random_state(seed)
    return random.Random(seed)


def _rescale(b, n, *, normalized, directed, endpoints, sampled):
    """networkx's ``_rescale`` (betweenness.py), vectorised on b's device."""
    k = None if sampled is None else len(sampled)
    N = n if endpoints else n - 1
    if N < 2:
        return b
    K = N if k is None else k
    if K == 0:
        raise ValueError("k=0 samples no sources, so the rescaled betweenness is undefined (networkx raises "
                         "ZeroDivisionError); use k >= 1")
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K * (N - 1))
        else:
            scale = N / (K * (1 if directed else 2))
        b *= scale  # b is _run's own sum
        return b
    correction = 1 if directed else 2
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else np.nan
        s_non = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else np.nan
        s_non = N / (K * correction)
    scale = np.full(n, s_non)
    scale[sampled] = s_src
    b *= scale if isinstance(b, np.ndarray) else spla.device.to_device(scale, spla.device.array_device(b))
    return b


def _auto_batch(M, nsrc):
    """Sources per dense block: half the free device memory, at most 8192."""
    n = max(M.shape[0], 1)
    budget = int(0.5 * free_device_bytes(M))
    kb = budget // (dense.BYTES_PER_VERTEX_SOURCE * n)
    return int(max(1, min(nsrc, kb, 8192)))


def _is_oom(exc) -> bool:
    """Whether ``exc`` says the device ran out of memory (MemoryError, or CuPy's OutOfMemoryError)."""
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


class BetweennessPath(NamedTuple):
    """The path a betweenness call takes: ``name`` ("queue", "dense", "sparse" or "single") and
    ``why``, one line for a report."""

    name: str
    why: str


#: the values of ``frontier``
FRONTIERS = ("auto", "dense", "sparse", "queue")
_noted_no_queue = []  # the queue path's absence is logged once per process


@on_graph_device
def betweenness_path(A, *, k=None, sources=None, targets=None, seed=None, edges=False, batch_size="auto",
                     device=None, frontier="auto", weight=None) -> BetweennessPath:
    """The path :func:`betweenness_centrality` (``edges=False``) or :func:`edge_betweenness_centrality`
    (``edges=True``) takes with these arguments, and why (``BetweennessPath(name, why)``; name is
    "queue", "dense", "sparse", "single" or, with ``weight=True`` on a matrix with values,
    "dijkstra").  Runs no betweenness; on a GPU, "auto" with several sources runs the sample BFS of
    ``betweenness_sparse.use_sparse_frontier``.  The choice is also logged (logger "spla", level
    DEBUG) by every unweighted betweenness call."""
    _check_options(batch_size, "auto", None, frontier, edges=edges)
    _check_targets_frontier(targets, frontier)
    lengths = _check_weight(weight, A, targets, frontier)
    src, _, _, _, M = _prepare(A, k, sources, seed, device, lengths=lengths)
    if _weighted(M, lengths):
        ok, why = spla.paths.available(M.device, weighted=True)
        if not ok:
            raise spla.KernelUnavailable(f"weighted betweenness cannot run here: {why}")
        where = (f"on {M.device}" if spla.device.is_gpu(M.device) else
                 f"on {spla.paths.threads()} thread{'s' if spla.paths.threads() != 1 else ''}")
        return BetweennessPath("dijkstra", f"weight=True: one Dijkstra per source keyed by (distance, hops), {where}")
    return _choose(pattern_of(M), src, edges=edges, batch_size=batch_size, frontier=frontier,
                   targets=targets is not None)


def _choose(P, src, *, edges, batch_size, frontier, targets=False) -> BetweennessPath:
    """:func:`betweenness_path`'s choice for the pattern P and the sources ``src``; ``targets``: whether
    the paths end at a subset of targets, which only dense frontiers count."""
    nsrc = len(src)
    on_cpu = not spla.device.is_gpu(P.device)
    if targets:
        if frontier in ("queue", "sparse"):
            raise ValueError(f"targets= runs on dense frontiers; use frontier='auto' or 'dense', not {frontier!r}")
        if batch_size == 1 and not edges:
            return BetweennessPath("dense", "targets= runs on dense frontiers (one source per block)")
        return BetweennessPath("dense", "targets= runs on dense frontiers: (n, k) blocks of sources")
    if frontier == "queue":
        ok, why = spla.paths.available(P.device)
        if not ok:
            raise spla.KernelUnavailable(f"frontier='queue' cannot run here: {why}")
        return BetweennessPath("queue", f"requested with frontier='queue'; {_queue_text()}")
    if frontier == "auto" and batch_size != 1 and on_cpu and spla.tuning.current().paths_for_betweenness:
        ok, why = spla.paths.available(P.device)
        if ok:
            return BetweennessPath("queue", f"{_queue_text()} (frontier='auto' on the CPU)")
        if not _noted_no_queue:
            _noted_no_queue.append(True)
            log.warning("betweenness: the compiled CPU path is unavailable (%s); the NumPy block paths run "
                        "instead, much slower", why)
    if batch_size == 1 and not edges:
        return BetweennessPath("single", "one source at a time, each level a push or a pull (batch_size=1)")
    if frontier == "sparse":
        return BetweennessPath("sparse", "requested with frontier='sparse'")
    if nsrc == 1 and not edges:
        return BetweennessPath("single", "a single source: each level a push or a pull")
    if frontier == "auto" and not edges and nsrc > 1 and P.shape[0] and sparse.use_sparse_frontier(P, src):
        return BetweennessPath("sparse", "sparse frontiers: n x depth above sparse_reach_ratio x the arcs a "
                                         "sample of sources reaches")
    if frontier == "dense":
        return BetweennessPath("dense", "requested with frontier='dense'")
    return BetweennessPath("dense", "(n, k) blocks of sources, one masked product per BFS level")


def _queue_text():
    workers = spla.paths.threads()
    return f"compiled per-source searches (Brandes) on {workers} thread{'s' if workers != 1 else ''}"


def _queue_batch(P, nsrc, batch_size, progress):
    """Sources per call of the queue path: ``batch_size``; under "auto" every source at once or, when
    progress is reported, about 1% of them per call, but at least one per thread and enough arcs to
    run on every thread (twice the tunable ``paths_parallel_min_arcs``)."""
    if batch_size != "auto":
        return int(min(batch_size, nsrc))
    if progress is None:
        return nsrc
    parallel = -(-2 * spla.tuning.current().paths_parallel_min_arcs // max(P.nnz, P.shape[0], 1))
    return int(min(nsrc, max(spla.paths.threads(), -(-nsrc // 100), parallel)))


def _run(M, src, *, endpoints, edges, batch_size, kernel, progress, frontier="dense", targets=None):
    """Σ over source blocks of the block's contribution: (n,) vertex BC or (nnz,) arc BC (raw), on M's device.
    The options were checked by :func:`_check_options`; ``targets``: None or the (n,) target indicator,
    which only the dense path takes."""
    P = pattern_of(M)
    n = P.shape[0]
    xp = P.xp
    nsrc = len(src)
    if frontier == "queue" and not spla.paths.available(P.device)[0]:
        _choose(P, src, edges=edges, batch_size=batch_size, frontier=frontier)  # raises, naming why
    if nsrc == 0 or n == 0:
        return xp.zeros(P.nnz if edges else n, dtype=np.float64)
    path = _choose(P, src, edges=edges, batch_size=batch_size, frontier=frontier, targets=targets is not None)
    log.debug("betweenness: %s path (%s), %d sources", path.name, path.why, nsrc)
    use_queue, use_sparse = path.name == "queue", path.name == "sparse"
    acc = None  # made by the first block (a single source copies its δ instead of adding it to zeros)
    if use_queue:
        kb = _queue_batch(P, nsrc, batch_size, progress)
    elif batch_size == "auto":
        kb = sparse.auto_batch(P, nsrc) if use_sparse else _auto_batch(P, nsrc)
    else:
        kb = int(min(batch_size, nsrc))
    if use_sparse and kb < nsrc:
        src = sparse.locality_order(P, src, kb)
    done = 0
    while done < nsrc:
        block = src[done:done + kb]
        try:
            if use_queue:
                # acc += Σ_{s in block} δ_s                    (a compiled search per source, on every core)
                part = spla.paths.dependencies(P, block, edges=edges, endpoints=endpoints)
                acc = part if acc is None else acc + part
            elif len(block) == 1 and not edges and not use_sparse and targets is None:
                # acc += δ_s                                   (one source: push or pull per level)
                acc = single.single_source(P, int(block[0]), acc, endpoints=endpoints, kernel=kernel)
            elif use_sparse:
                if acc is None:
                    acc = xp.zeros(n, dtype=np.float64)
                # acc += Σ_{s in block} δ_s                    (frontiers as (vertex, source) lists)
                sparse.block(P, block, acc, endpoints=endpoints)
            else:
                if acc is None:
                    acc = xp.zeros(P.nnz if edges else n, dtype=np.float64)
                # acc += Σ_{s in block} δ_s                    ((n, k) arrays; per arc with edges)
                dense.block(P, block, acc, endpoints=endpoints, edges=edges, kernel=kernel, targets=targets)
        except Exception as exc:
            if not _is_oom(exc):
                raise
            _free_pool(P)
            if kb == 1:
                per_vertex = (QUEUE_BYTES_PER_VERTEX if use_queue else sparse.BYTES_PER_ENTRY_SPARSE if use_sparse
                              else dense.BYTES_PER_VERTEX_SOURCE)
                need = per_vertex * n + P.nbytes
                raise spla.DeviceMemoryError(
                    f"betweenness of one source needs about {need / 2**20:.1f} MiB of device memory "
                    f"(matrix {P.nbytes / 2**20:.1f} MiB + {per_vertex} bytes per vertex) "
                    f"and {P.device} ran out; use a device with more memory or device='cpu'") from exc
            kb = max(1, kb // 2)
            log.debug("betweenness: out of device memory, batch shrunk to %d sources", kb)
            continue
        done += len(block)
        if progress is not None:
            progress(done, nsrc)
    return acc


def _free_pool(P):
    """Give back what a block that ran out of memory may have left: P's cached single-source workspaces
    (and their recorded graphs), and the blocks cached in the device's memory pool."""
    P.drop_cached(single.WORKSPACE)
    spla.memory.release(P.device)
