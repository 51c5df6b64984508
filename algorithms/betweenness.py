"""Betweenness centrality (vertex and edge) in TurboBC's linear-algebra form, batched over sources.

Definition (Freeman; Brandes 2001; networkx ``betweenness_centrality``)::

    bc(v) = Σ_{s ≠ v ≠ t} σ_st(v) / σ_st

σ_st = number of shortest s-t paths, σ_st(v) those through v.  Brandes: with
δ_s(v) = Σ_{w : v -> w on a shortest path} σ_sv / σ_sw · (1 + δ_s(w)),  bc(v) = Σ_s δ_s(v).
Edge betweenness (Sriram et al.; networkx ``edge_betweenness_centrality``):
δ_s(v -> w) = σ_sv / σ_sw · (1 + δ_s(w)) summed over sources.

Linear-algebra form (TurboBC, Algorithm 1), for a block of k sources at once, all
arrays (n, k) with one column per source:

    forward, d = 1, 2, ...:   f<!reached> = f +.first A            (σ of the vertices at depth d)
                              σ += f;  level[f != 0] = d
    backward, d = D .. 1:     c = 1/σ + T   on level d, 0 elsewhere      (T = δ/σ)
                              T<level == d-1> += A +.second c     (Σ over out-neighbours at depth d)
                              δ = σ · T

Exactness: shortest-path counts overflow any integer and float64 (a chain of 1,100
diamonds has 2^1100 of them).  A level whose largest σ exceeds 2^512 is rescaled, per
source, by a power of two e_d that brings it into [0.5, 1): the scaling is exact, and
since δ only needs ratios σ_v/σ_w between consecutive levels, δ(v) = σ̃(v) · 2^-e_d · t(v).  The
results carry float64's relative precision however large σ grows.

Sparse frontiers (``frontier="sparse"``, chosen by "auto" for graphs of many BFS levels, meshes and
road networks, and for sources that reach few of the vertices, as in many directed graphs): the
same sweeps over a level-structured block (``spla.frontier``), where a queue lists each level's
(vertex, source) entries and every level costs its entries' arcs instead of O(n·k) dense vector
work:

    forward:   σ̃'<¬reached ∪ level == d+1> += σ̃<frontier_d> +.first A          (push, queues level d+1)
    backward:  coeff = 1/σ̃;  for d = D-1 .. 1:
               t<frontier_d> = 2^-e_{d+1} (A +.second coeff<level == d+1>);  δ = t·σ̃;  coeff += t

Blocks of sources are ordered so that each lies close together (a BFS from seeds, nearest seed
first), which keeps a level's entries on few vertices.

One source at a time (``batch_size=1``, TurboBC's own setting) is direction-optimised:
each level's product pushes from the frontier (``kernel="push"``: the arcs leaving the level)
or pulls into the unreached vertices (the arcs entering them), whichever
``spla.choose_kernel(push_arcs=..., pull_arcs=...)`` finds cheaper, forward and backward.
The levels are in-place steps replayed as CUDA graphs (``spla.Replay``),
and after a first source measured level by level the next ones run as one replayed graph
per source, checked afterwards (:class:`_SingleSource`).

Needs: a square adjacency (arc i -> j is A[i, j]); values (weights) and self-loops are
ignored, parallel arcs count once — networkx's unweighted (weight=None) semantics.
Memory: the matrix (n + 1 + m words, twice for a directed graph, which also needs A.T)
plus about 64 bytes per vertex per source of the batch (40 with sparse frontiers).
"""

from __future__ import annotations

import logging
import random

import numpy as np
import scipy.sparse as sp

import spla
from spla.backends.gpu import selection
from spla.device import any_true, count_true

from ._common import (as_list, as_matrix, check_progress, check_sources, free_device_bytes, is_networkx_graph,
                      on_graph_device, pattern_of, to_numpy)

log = logging.getLogger("spla")

BYTES_PER_VERTEX_SOURCE = 64  # σ, δ (f64), frontier, temporaries, level (int32), masks
RESCALE_ABOVE = 2.0 ** 512  # a level whose largest σ exceeds this is rescaled into [0.5, 1)
BYTES_PER_ENTRY_SPARSE = 40  # sparse frontiers: (σ̃ or coeff, level) and δ (f64), queue (int32), temporaries
LEVELS_PER_READ = 8  # sparse frontiers: BFS levels enqueued per read of their counts
#: Largest block of the sparse-frontier path ("auto" batch): beyond it a level's entries no longer
#: fit the L2 cache and the launches per level are already amortised (measured, docs/benchmarks.md).
SPARSE_MAX_BATCH = 512
#: frontier="auto" takes the sparse path when n · D > SPARSE_REACH_RATIO · R, measured by one BFS from a
#: sample of the sources: D its depth (a dense block runs as many levels as its deepest source, each
#: O(n) vector work per source), R the mean number of arcs a sample source reaches (a sparse block's
#: work per source).  Calibrated on the H100 over 27 graphs, directed ones included: the dense path
#: was faster up to 4.6, the sparse one from 7.5 (docs/benchmarks.md, twelfth session).
SPARSE_REACH_RATIO = 6.0
#: Sources in the sample that frontier="auto" measures (fewer when their block would not fit).
REACH_SAMPLE = 32


@on_graph_device
def betweenness_centrality(A, *, k=None, sources=None, seed=None, normalized=True, endpoints=False,
                           batch_size="auto", device=None, kernel="auto", frontier="auto", progress=None):
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
    seed : int, random.Random, numpy Generator / RandomState or None
        As networkx takes it (a NumPy generator is wrapped the way networkx wraps it).
    normalized : bool
        Divide by the number of (s, t) pairs, as networkx.
    endpoints : bool
        Count the path endpoints too.
    batch_size : "auto" or int
        Sources per block (1 is TurboBC's single-source Algorithm 1); "auto" sizes the
        block from free device memory.  Running out of memory halves the block.
    device, kernel : where to run and which product kernel ("auto", "scCSC", "veCSC", "scCOOC", "push");
        with batch_size=1, "auto" chooses push or pull at every BFS level.  Sparse frontiers run
        ``spla.frontier``'s own push and pull, no product kernel: there ``kernel`` is only checked.
    frontier : "auto", "dense" or "sparse"
        How a block of sources holds its BFS frontiers.  "dense": (n, k) blocks and one masked
        product per level, whose vector work is O(n·k) per level; "sparse": the frontier as a
        list of (vertex, source) entries (``spla.frontier``), whose work is the frontier's arcs,
        for graphs of many levels (meshes, road networks) and for sources that reach few vertices
        (directed graphs).  "auto" picks by one BFS from a sample of 32 of the sources, its depth
        against the arcs they reach (see :func:`_use_sparse_frontier`), when there are several sources.
        Not used with batch_size=1, nor by "auto" for a single source (the direction-optimised
        single-source path, whose levels push or pull a single vector).
    progress : callable(done, total), optional, called after each block.

    Returns
    -------
    numpy float64 array (n,) indexed like the input's vertices.
    """
    _check_options(batch_size, kernel, progress, frontier)
    src, sampled, n, directed, M = _prepare(A, k, sources, seed, device)
    if sources is not None and endpoints:
        raise ValueError("endpoints=True cannot be combined with sources= (networkx's "
                         "betweenness_centrality_subset has no endpoints option)")
    bc = _run(M, src, endpoints=endpoints, edges=False, batch_size=batch_size, kernel=kernel, progress=progress,
              frontier=frontier)
    return to_numpy(_rescale(bc, n, normalized=normalized, directed=directed,
                             endpoints=endpoints and sources is None, sampled=sampled))


@on_graph_device
def edge_betweenness_centrality(A, *, k=None, seed=None, normalized=True, batch_size="auto", device=None,
                                kernel="auto", progress=None):
    """Edge betweenness centrality (networkx ``edge_betweenness_centrality`` semantics).

    Parameters as :func:`betweenness_centrality` (k, seed, normalized, batch_size, device, kernel,
    progress); there are no sources, endpoints or frontier options (the dense path always runs).

    Returns
    -------
    scipy.sparse.csc_array (n, n) float64 with A's pattern: entry (u, v) is the BC of the
    arc u -> v; an undirected edge's value stands on both of its arcs.  Self-loops are 0.
    A multigraph's parallel edges are one arc here, holding their sum (networkx gives each
    of the k parallel edges 1/k of it, for unweighted shortest paths).
    """
    _check_options(batch_size, kernel, progress)
    src, sampled, n, directed, M = _prepare(A, k, None, seed, device)
    P = pattern_of(M)
    arc_bc = to_numpy(_run(M, src, endpoints=False, edges=True, batch_size=batch_size, kernel=kernel,
                           progress=progress))
    if not directed and P.nnz:
        arc_bc = arc_bc + arc_bc[_reverse_arc(P)]
    arc_bc = _rescale(arc_bc, n, normalized=normalized, directed=directed, endpoints=True, sampled=sampled)
    return sp.csc_array((arc_bc, to_numpy(P.rowidx), to_numpy(P.colptr)), shape=P.shape)


# --------------------------------------------------------------------------- plumbing
def _check_options(batch_size, kernel, progress, frontier="dense"):
    """The options' own checks, at the door: before any work, whatever the graph (an empty one, or
    sources=[], runs no product; sparse frontiers use no product kernel)."""
    spla.ops.normalize_kernel(kernel)
    if frontier not in ("auto", "dense", "sparse"):
        raise ValueError(f"frontier must be 'auto', 'dense' or 'sparse', got {frontier!r}")
    auto = isinstance(batch_size, str) and batch_size == "auto"
    if not auto and (isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1):
        raise ValueError(f"batch_size must be 'auto' or a positive integer, got {batch_size!r}")
    check_progress(progress)


def _prepare(A, k, sources, seed, device):
    nodes = list(A) if is_networkx_graph(A) else None
    M = as_matrix(A, device=device)
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



def _reverse_arc(P):
    """For each stored arc p = (i -> j) of a symmetric pattern, the position of (j -> i)."""
    rows = to_numpy(P.rowidx).astype(np.int64)
    cols = to_numpy(P.colidx).astype(np.int64)
    n = P.shape[0]
    keys = cols * n + rows  # CSC order: sorted by (column, row)
    return np.searchsorted(keys, rows * n + cols)


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
    n = max(M.shape[0], 1)
    budget = int(0.5 * free_device_bytes(M))
    kb = budget // (BYTES_PER_VERTEX_SOURCE * n)
    return int(max(1, min(nsrc, kb, 8192)))


def _is_oom(exc) -> bool:
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


def _run(M, src, *, endpoints, edges, batch_size, kernel, progress, frontier="dense"):
    """Σ over source blocks of the block's contribution: (n,) vertex BC or (nnz,) arc BC (raw), on M's device.
    The options were checked by :func:`_check_options`."""
    P = pattern_of(M)
    n = P.shape[0]
    xp = P.xp
    nsrc = len(src)
    if nsrc == 0 or n == 0:
        return xp.zeros(P.nnz if edges else n, dtype=np.float64)
    acc = None  # made by the first block (a single source copies its δ instead of adding it to zeros)
    # one source (or batch_size=1) stays on the direction-optimised single-source path
    sparse = not edges and batch_size != 1 and (frontier == "sparse" or (
        frontier == "auto" and nsrc > 1 and _use_sparse_frontier(P, src)))
    if batch_size == "auto":
        kb = _auto_batch_sparse(P, nsrc) if sparse else _auto_batch(P, nsrc)
    else:
        kb = int(min(batch_size, nsrc))
    if sparse and kb < nsrc:
        src = _locality_order(P, src, kb)
    done = 0
    while done < nsrc:
        block = src[done:done + kb]
        try:
            if len(block) == 1 and not edges and not sparse:
                acc = _single_source(P, int(block[0]), acc, endpoints=endpoints, kernel=kernel)
            elif sparse:
                if acc is None:
                    acc = xp.zeros(n, dtype=np.float64)
                _block_sparse(P, block, acc, endpoints=endpoints)
            else:
                if acc is None:
                    acc = xp.zeros(P.nnz if edges else n, dtype=np.float64)
                _block(P, block, acc, endpoints=endpoints, edges=edges, kernel=kernel)
        except Exception as exc:
            if not _is_oom(exc):
                raise
            _free_pool(P)
            if kb == 1:
                per_vertex = BYTES_PER_ENTRY_SPARSE if sparse else BYTES_PER_VERTEX_SOURCE
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


def _free_pool(M):
    for key in [k for k in M._cache if isinstance(k, tuple) and k and k[0] == "bc_single_source"]:
        del M._cache[key]  # cached single-source workspaces and their recorded graphs
    if M.xp is not np:
        M.xp.get_default_memory_pool().free_all_blocks()


def _flat(x):
    """(n, 1) blocks go to the engine as 1-D vectors (TurboBC's single-source products)."""
    return x.reshape(-1) if x.ndim == 2 and x.shape[1] == 1 else x


def _product(op, x, P, semiring, mask, complement, kernel):
    """One engine product on an (n, k) block (1-D when k == 1), reshaped back to (n, k)."""
    if op is spla.vxm:
        y = spla.vxm(_flat(x), P, semiring, mask=_flat(mask), complement=complement, kernel=kernel)
    else:
        y = spla.mxv(P, _flat(x), semiring, mask=_flat(mask), complement=complement, kernel=kernel)
    return y.reshape(x.shape)


# σ += f;  level[f != 0] = d;  reached |= (f != 0)          -- one fused pass per BFS level
_forward_update = spla.fuse(lambda xp: lambda sigma, f, level, reached, d: (
    sigma + f, xp.where(f != 0, d, level), reached | (f != 0)), name="bc_forward_update")
# c = (1/σ + T) on level d, 0 elsewhere;  below = (level == d - 1)   -- one fused pass per level
_backward_coeff = spla.fuse(lambda xp: lambda level, inv_sigma, T, d: (
    xp.where(level == d, inv_sigma + T, 0.0), level == d - 1), name="bc_backward_coeff")


def _block(P, block, acc, *, endpoints, edges, kernel):
    """Add one block of sources' dependencies into ``acc`` (vertex (n,) or arc (nnz,) sums).

    The backward sweep keeps T = δ / σ̃ instead of δ: T(v) = 2^-e_d Σ_w (1/σ̃(w) + T(w)) over
    the children w of v, so each level is one fused pass and one masked product that
    accumulates straight into T; δ = σ̃ · T at the end.  Host-device traffic per BFS
    level: one (k,) vector (each source's largest σ), which both ends the BFS and decides
    the level's power-of-two rescaling.
    """
    xp = P.xp
    n = P.shape[0]
    kb = len(block)
    s = xp.asarray(block)
    c = xp.arange(kb)
    sigma = xp.zeros((n, kb), dtype=np.float64)
    sigma[s, c] = 1.0
    level = xp.full((n, kb), -1, dtype=np.int32)
    level[s, c] = 0
    reached = level >= 0
    frontier = sigma.copy()
    exps = []  # host (k,) int arrays e_d, d = 1..depth: σ̃ at level d = σ_d · 2^-(e_1 + ... + e_d)
    d = 0
    while True:
        d += 1
        # frontier<!reached, replace> = frontier +.first A
        frontier = _product(spla.vxm, frontier, P, "plus_first", reached, True, kernel)
        top = to_numpy(frontier.max(axis=0) if kb > 1 else frontier.reshape(-1).max().reshape(1))
        if not np.any(top > 0):
            break
        e = np.where(top > RESCALE_ABOVE, np.frexp(top)[1], 0).astype(np.int32)
        if e.any():
            frontier = xp.ldexp(frontier, xp.asarray(-e))
        exps.append(e)
        sigma, level, reached = _forward_update(sigma, frontier, level, reached, np.int32(d))
    depth = d - 1
    del frontier
    inv_sigma = 1.0 / xp.where(reached, sigma, 1.0)
    T = xp.zeros((n, kb), dtype=np.float64)  # δ / σ̃
    for d in range(depth, 0, -1):
        coeff, below = _backward_coeff(level, inv_sigma, T, np.int32(d))
        e = exps[d - 1]
        if e.any():
            coeff = xp.ldexp(coeff, xp.asarray(-e))
        # T<level == d-1> += A +.second coeff
        _accumulate(P, coeff, below, T, kernel)
    delta = sigma * T
    del T
    if edges:
        _add_arc_dependencies(P, level, sigma, delta, inv_sigma, exps, acc)
        return
    delta[s, c] = 0.0  # a source's own dependency is not betweenness
    acc += delta.sum(axis=1)
    if endpoints:
        beyond = level > 0
        acc += beyond.sum(axis=1)
        acc[s] += beyond.sum(axis=0)


# --------------------------------------------------------------------------- sparse frontiers
def _auto_batch_sparse(M, nsrc):
    n = max(M.shape[0], 1)
    budget = int(0.5 * free_device_bytes(M))
    kb = budget // (BYTES_PER_ENTRY_SPARSE * n)
    return int(max(1, min(nsrc, kb, SPARSE_MAX_BATCH, max(1, (2 ** 31 - 1) // n))))


def _locality_order(P, src, kb):
    """``src`` reordered so that each block of ``kb`` consecutive sources lies close together.

    Sparse frontiers cost memory traffic per (vertex, source) entry; sources that are near each
    other reach a vertex at nearly the same depth, so a block of them keeps each level's entries on
    few vertices (shared cache lines, a working set that fits the L2 cache).  Cells: a BFS from
    ceil(|src| / kb) seeds drawn from ``src`` (fixed seed), each vertex labelled with its nearest
    seed (ties: the lowest); sources sorted by (cell, distance to its seed).  Sources no seed
    reaches sort last.  The order changes only the floating-point summation order of the result.
    """
    xp = P.xp
    n = P.shape[0]
    absent = np.iinfo(np.int64).max  # min's identity: "no label"
    seeds = np.random.default_rng(0).choice(np.asarray(src), size=-(-len(src) // kb), replace=False)
    label = xp.full(n, absent, dtype=np.int64)
    label[xp.asarray(seeds)] = xp.arange(len(seeds), dtype=np.int64)
    dist = xp.where(label != absent, 0, n).astype(np.int64)
    reached = label != absent
    frontier = label
    d = 0
    while True:
        d += 1
        # frontier<!reached, replace> = frontier min.first A       (a seed's label spreads one level)
        frontier = spla.vxm(frontier, P, "min_first", mask=reached, complement=True)
        new = frontier != absent
        if not any_true(new):
            break
        label = xp.where(new, frontier, label)
        dist = xp.where(new, d, dist)
        reached |= new
    s = xp.asarray(src)
    order = to_numpy(xp.lexsort(xp.stack([dist[s], label[s]])))
    return np.asarray(src)[order]


class _Levels:
    """A block's BFS levels on the device: the queue of (vertex, source) entries and its bookkeeping.

    ``spla.frontier.push`` enqueues a level without reading anything back; :meth:`forward` enqueues
    LEVELS_PER_READ levels, then reads their counts and largest σ̃ in one copy (a push past the last
    level is empty).  Rescaling is checked per read: the levels a read covers (d .. d+8) grow σ̃
    from a checked level (<= 2^512) by at most the largest in-degree per level, below 2^56 for
    any graph that fits in memory, so they stay below 2^1016 until the check.
    """

    def __init__(self, P, block, seeds):
        xp = P.xp
        self.P, self.xp, self.block = P, xp, block
        n, kb = block.shape[:2]
        self.queue = xp.empty(n * kb, dtype=spla.frontier.index_dtype(n, kb))
        self.queue[:seeds.shape[0]] = seeds
        self._grow(64)
        self.count[0] = seeds.shape[0]
        self.exps = {}  # level d -> (k,) int32: σ̃_d = σ_d · 2^-(e_1 + ... + e_d), e_d = 0 when absent

    def _grow(self, size):
        xp, old = self.xp, getattr(self, "start", None)
        start, count, top = (xp.zeros(size, dtype=np.int64), xp.zeros(size, dtype=np.uint64),
                             xp.zeros(size, dtype=np.uint64))
        if old is not None:
            m = old.shape[0]
            start[:m], count[:m], top[:m] = self.start, self.count, self.top
        self.start, self.count, self.top = start, count, top

    def forward(self):
        """Run the BFS to its end: σ̃ and levels in the block; returns the depth (deepest level)."""
        d = 0
        while True:
            if d + LEVELS_PER_READ + 1 >= self.start.shape[0]:
                self._grow(2 * (d + LEVELS_PER_READ + 1))
            for j in range(d, d + LEVELS_PER_READ):
                # σ̃'<¬reached ∪ level == j+1> += σ̃<frontier_j> +.first A     (frontier_{j+1} queued)
                spla.frontier.push(self.P, self.queue, j, self.block, self.start, self.count, self.top)
            got = to_numpy(self.xp.concatenate([self.count[d + 1:d + LEVELS_PER_READ + 1],
                                                self.top[d:d + LEVELS_PER_READ]]))
            counts, tops = got[:LEVELS_PER_READ], got[LEVELS_PER_READ:].view(np.float64)
            if tops.max() > RESCALE_ABOVE:
                self.exps[d] = _rescale_from(self.xp, self.block, d)
            empty = np.flatnonzero(counts == 0)
            if empty.size:
                return d + int(empty[0])
            d += LEVELS_PER_READ


def _rescale_from(xp, block, d):
    """Scale σ̃ of every level >= d by 2^-e per source, e bringing its largest there into [0.5, 1).

    Called when a level read back held a σ̃ above RESCALE_ABOVE (rare: every few hundred levels
    of a grid); dense passes over the block.  Scaling a source's levels d, d+1, ... alike keeps
    each level's σ̃ the sum of its parents', so only the step into level d carries the factor.
    Returns e (k,) int32 on the device.
    """
    value, level = block[..., 0], block[..., 1]
    later = level >= d
    top = xp.where(later, value, 0.0).max(axis=0)
    e = xp.where(top > RESCALE_ABOVE, xp.frexp(top)[1], 0).astype(np.int32)
    value[...] = xp.where(later, xp.ldexp(value, -e[None, :]), value)
    return e


def _sample_reach(P, sources):
    """(D, R, k) of one BFS from a sample of k of ``sources`` (at most REACH_SAMPLE, fewer when their
    block would not fit in an eighth of the free memory; drawn with a fixed seed).

    D: the number of levels below the sample's sources (the deepest one's eccentricity within its
    reach); R: the mean number of arcs leaving the vertices each sample source reaches.
    """
    xp = P.xp
    n = P.shape[0]
    per_source = 24 * max(n, 1)  # (value, level) float64 and a flat index per entry
    k = int(max(1, min(REACH_SAMPLE, len(sources), free_device_bytes(P) // (8 * per_source))))
    sample = np.random.default_rng(0).choice(np.asarray(sources, dtype=np.int64), size=k, replace=False)
    block = xp.zeros((n, k, 2), dtype=np.float64)
    block[..., 1] = -1.0
    s = xp.asarray(sample)
    c = xp.arange(k, dtype=np.int64)
    block[s, c, 0] = 1.0
    block[s, c, 1] = 0.0
    depth = _Levels(P, block, (s * k + c).astype(spla.frontier.index_dtype(n, k))).forward()
    reached = (block[..., 1] >= 0).sum(axis=1)  # sample sources reaching each vertex
    arcs = float((reached * P.out_degree()).sum())
    return depth, arcs / k, k


def _use_sparse_frontier(P, sources):
    """frontier="auto": whether the dense path's O(n) work per level and source outweighs the arcs the
    sources reach (SPARSE_REACH_RATIO)."""
    depth, reach, k = _sample_reach(P, sources)
    use = P.shape[0] * depth > SPARSE_REACH_RATIO * max(reach, 1.0)
    log.debug("betweenness: BFS from %d sample sources: depth %d, %.0f arcs reached per source, n=%d -> "
              "%s frontiers", k, depth, reach, P.shape[0], "sparse" if use else "dense")
    return use


# 1/σ̃ where reached (the backward sweep's coefficients), 0 elsewhere
_reciprocal_reached = spla.fuse(lambda xp: lambda value, level: xp.where(level >= 0, 1.0 / xp.where(
    level >= 0, value, 1.0), 0.0), name="bc_reciprocal_reached")


def _block_sparse(P, block_src, acc, *, endpoints):
    """Add one block of sources' dependencies into ``acc`` (n,), frontiers held sparse.

    The (n, k) block is one (n, k, 2) array of (value, level) per entry (``spla.frontier``); a
    queue lists the entries level by level, so each level costs its frontier's arcs, not n·k.
    Forward: σ̃ by pushes.  Backward: the values become coeff = 1/σ̃ (+ T = δ/σ̃ once known) and one
    pull per level, deepest first, writes δ = T·σ̃ into a dense (n, k) array.  Host traffic: one
    read of counts and largest σ̃ per 8 levels, nothing in the backward sweep.
    """
    xp = P.xp
    n = P.shape[0]
    kb = len(block_src)
    block = xp.zeros((n, kb, 2), dtype=np.float64)
    block[..., 1] = -1.0
    s = xp.asarray(block_src, dtype=np.int64)
    c = xp.arange(kb, dtype=np.int64)
    block[s, c, 0] = 1.0
    block[s, c, 1] = 0.0
    levels = _Levels(P, block, (s * kb + c).astype(spla.frontier.index_dtype(n, kb)))
    depth = levels.forward()
    value, level = block[..., 0], block[..., 1]
    value[...] = _reciprocal_reached(value, level)  # coeff = 1/σ̃
    delta = xp.zeros((n, kb), dtype=np.float64)  # 0 at the deepest level, the sources and unreached
    for d in range(depth - 1, 0, -1):
        # δ<frontier_d> = 2^-e_{d+1} (A +.second coeff<level == d+1>) / coeff;  coeff<frontier_d> += δ/σ̃
        spla.frontier.pull(P, levels.queue, d, block, levels.start, levels.count, delta,
                           scale=levels.exps.get(d + 1), feed=True, divide=True)
    acc += delta.sum(axis=1)
    if endpoints:
        beyond = level > 0
        acc += beyond.sum(axis=1)
        acc[s] += beyond.sum(axis=0)


# --------------------------------------------------------------------------- one source at a time
# σ += f;  level += ~reached (a vertex counts the levels until it is reached);  reached |= (f != 0);
# prev = 0 (the previous frontier, spent: the next level's product accumulates into it)
def _book_level_fn(xp):
    def book(sigma, level, reached, f, prev):
        sigma += f
        level += ~reached
        reached |= f != 0
        prev *= 0.0
    return book


# the same, and each new vertex's degree (0 elsewhere): summed, the level's out- or in-arcs.  (The sums
# are CuPy's own reductions: a reduction inside a fused kernel runs on one thread block.)
def _book_level_arcs_fn(xp):
    def book(sigma, level, reached, f, prev, deg):
        new = f != 0
        sigma += f
        level += ~reached
        reached |= new
        prev *= 0.0
        return xp.where(new, deg, 0)
    return book


_book_level = spla.fuse(_book_level_fn, name="bc_book_level")
_book_level_arcs = spla.fuse(_book_level_arcs_fn, name="bc_book_level_arcs")
_where_new = spla.fuse(lambda xp: lambda f, deg: xp.where(f != 0, deg, 0), name="bc_level_arcs")


# σ = fa = e_s, T = fb = 0, level = 0, reached = {s}.  In place by multiplication: σ, T, fa and fb
# must be finite (_SingleSource.clean refills them after a run that overflowed).
def _reset_fn(xp):
    def reset(sigma, T, fa, fb, level, reached, index, s):
        src = index == s
        sigma *= 0.0
        sigma += src
        fa *= 0.0
        fa += src
        fb *= 0.0
        T *= 0.0
        level *= 0
        reached &= src
        reached |= src
    return reset


_reset_source = spla.fuse(_reset_fn, name="bc_reset_source")


# δ = σ̃ · T, 0 at the source (its own dependency is not betweenness)
def _dependencies_fn(xp):
    def finish(T, sigma, index, s):
        T *= xp.where(index == s, 0.0, sigma)
    return finish


_dependencies = spla.fuse(_dependencies_fn, name="bc_dependencies")


# σ̃ where the last frontier is empty, +inf where it is not: its maximum is the plan's check
_plan_check = spla.fuse(lambda xp: lambda sigma, f: xp.where(f != 0, xp.inf, sigma), name="bc_plan_check")


# c = 1/σ̃ + T on the level being swept (rank 0), 0 elsewhere;  below = (rank == 1), its parents' level;
# rank -= 1 (the next step sweeps one level up)
def _sweep_coeff_fn(xp):
    def coeff(rank, sigma, T):
        at = rank == 0
        c = xp.where(at, 1.0 / xp.where(at, sigma, 1.0) + T, 0.0)
        below = rank == 1
        rank -= 1
        return c, below
    return coeff


_sweep_coeff = spla.fuse(_sweep_coeff_fn, name="bc_sweep_coeff")


# rank = depth - level where reached, -1 elsewhere (level of reached vertices is their BFS depth)
def _to_rank_fn(xp):
    def to_rank(level, reached, depth):
        level -= depth + 1
        level *= -1
        level *= reached
        level -= 1
    return to_rank


_to_rank = spla.fuse(_to_rank_fn, name="bc_to_rank")


#: A plan replays at most this many BFS levels as one CUDA graph; deeper sources run level by level.
SPECULATIVE_MAX_DEPTH = 1024
#: Every SPECULATIVE_CHECK_EVERY-th source that a plan could run is run level by level instead, and the
#: plan's kernels are scored against the ones that source chose for itself: when they would have cost it
#: more than 1 + SPECULATIVE_WASTE times as much (selection.direction_cost) the plan misses.  After
#: SPECULATIVE_MISSES misses, and more misses than hits, the matrix stops using plans.
SPECULATIVE_CHECK_EVERY = 8
SPECULATIVE_WASTE = 0.5
SPECULATIVE_MISSES = 2


class _Plan:
    """The kernels of one whole single-source run, from a source measured level by level.

    forward[d - 1]: the kernel of forward step d = 1 .. depth + 1 (the last one finds the empty
    level that ends the BFS); backward[i]: the kernel of the backward step for level depth - i.
    """

    def __init__(self, forward, backward):
        self.forward = tuple(forward)
        self.backward = tuple(backward)
        self.depth = len(self.backward)

    def __repr__(self):
        return f"_Plan(depth={self.depth}, forward={self.forward}, backward={self.backward})"


class _SingleSource:
    """Device buffers and replayed steps of TurboBC's single-source Algorithm 1 on one matrix.

    Arrays, all on P's device: sigma, T, fa, fb (n,) float64 (σ̃, T = δ/σ̃, the frontier and the
    next one); level (n,) int32 (BFS depth while going forward, then the backward sweep's rank);
    reached (n,) bool; s (1,) int64 the source; depth (1,) int32; stats (3,) float64 the newest
    level's (largest σ, out-arcs, in-arcs).

    Two ways to run a source:

    * level by level (:meth:`run_levels`): each BFS level is one replayed step (a product, push or
      pull as ``spla.choose_kernel`` picks from the level's arc counts, and one fused pass that
      books it and measures the next), then one 24-byte read of its statistics, which ends the BFS,
      chooses the next level's kernel and detects σ > 2^512 (rescaled exactly, eagerly).
    * as a plan (:meth:`run_plan`): after a source measured level by level, the same kernels, level
      for level, are recorded as ONE CUDA graph (reset, depth + 1 forward steps, depth backward
      steps, δ = σ̃·T) and replayed for the next sources with one launch and one read.  Levels
      past a source's own depth are empty and change nothing, so the result is exact for every
      source whose BFS ends within the plan's depth and whose σ stays below 2^512; the read checks
      both, and a source that fails either runs level by level instead.  The plan's push/pull
      choices may suit another source less well: that costs time, never correctness; every
      SPECULATIVE_CHECK_EVERY-th source is run level by level to score them (:meth:`learn`), and
      the matrix stops using plans after repeated misses.
    """

    def __init__(self, P, kernel):
        xp, n = P.xp, P.shape[0]
        self.xp, self.P, self.kernel, self.n = xp, P, kernel, n
        self.sigma = xp.zeros(n, dtype=np.float64)
        self.T = xp.zeros(n, dtype=np.float64)
        self.fa = xp.zeros(n, dtype=np.float64)
        self.fb = xp.zeros(n, dtype=np.float64)
        self.level = xp.zeros(n, dtype=np.int32)
        self.reached = xp.zeros(n, dtype=np.bool_)
        self.s = xp.zeros(1, dtype=np.int64)
        self.depth = xp.zeros(1, dtype=np.int32)
        self.stats = xp.zeros(3, dtype=np.float64)
        self.top = self.stats[0:1].reshape(())  # a 0-d view: the largest σ of the newest level
        self.stats_host = spla.device.HostCopy(self.stats)
        self.index = xp.arange(n, dtype=np.int64 if n >= 2**31 else np.int32)
        self.symmetric = P.T is P
        # count each level's arcs only where they can choose the direction of the next product
        self.directions = kernel == "auto" and selection.may_push(P)
        self.out_deg = P.out_degree()  # int64, cached on P (the same array as in_deg when symmetric)
        self.in_deg = P.in_degree()
        self.out_deg_host = to_numpy(self.out_deg)
        self.in_deg_host = to_numpy(self.in_deg)
        self.nbytes = sum(int(a.nbytes) for a in (self.sigma, self.T, self.fa, self.fb, self.level, self.reached,
                                                  self.index))
        self.reset = spla.Replay(self._reset, P.device, name="bc reset")
        self.between = spla.Replay(lambda: _to_rank(self.level, self.reached, self.depth), P.device,
                                   name="bc between sweeps")
        self.finish = spla.Replay(self._finish, P.device, name="bc dependencies")
        self._forward, self._backward = {}, {}
        self.plan = self.whole = self.check = None
        self.hits = self.misses = self.planned = 0
        self.speculate = True

    # ------------------------------------------------------------------ steps (in place, replayable)
    def _reset(self):
        """σ = fa = e_s, T = fb = 0, level = 0, reached = {s} (one fused pass)."""
        _reset_source(self.sigma, self.T, self.fa, self.fb, self.level, self.reached, self.index, self.s)

    def clean(self):
        """Refill σ, T and the frontiers with zeros: after a run whose σ overflowed they may hold
        inf or NaN, which the fused reset's multiplication by 0 would keep."""
        for a in (self.sigma, self.T, self.fa, self.fb):
            a.fill(0)

    def _forward_step(self, kernel, src, dst, measure):
        """One BFS level: dst<!reached> += src +.first A (dst is 0: the spent frontier before last),
        then book dst and zero src.  ``measure``: also stats = (largest σ of dst, and when the
        directions are chosen its vertices' out-arcs and in-arcs)."""
        xp = self.xp
        # dst<!reached> += src +.first A    (accumulating into zeros: push and scCOOC need no fill)
        spla.vxm(src, self.P, "plus_first", mask=self.reached, complement=True, accum="plus", out=dst,
                 kernel=kernel)
        if not (measure and self.directions):
            # σ += dst;  level += ~reached;  reached |= dst != 0;  src = 0
            _book_level(self.sigma, self.level, self.reached, dst, src)
            if measure:
                dst.max(out=self.top)
            return
        # the same, and the new level's out-arcs, vertex by vertex
        out_arcs = _book_level_arcs(self.sigma, self.level, self.reached, dst, src, self.out_deg).sum()
        in_arcs = out_arcs if self.symmetric else _where_new(dst, self.in_deg).sum()
        xp.stack((dst.max(), out_arcs, in_arcs), out=self.stats)

    def _backward_step(self, kernel, scale=0):
        """T<rank == 1> += A +.second c,  c = (1/σ̃ + T) at rank 0;  then rank -= 1."""
        c, below = _sweep_coeff(self.level, self.sigma, self.T)
        if scale:
            c = self.xp.ldexp(c, scale)
        _accumulate(self.P, c, below, self.T, kernel)

    def _finish(self):
        """T = δ = σ̃ · T, and 0 at the source (its own dependency is not betweenness)."""
        _dependencies(self.T, self.sigma, self.index, self.s)

    def _forward_replay(self, kernel, parity):
        key = (kernel, parity)
        if key not in self._forward:
            src, dst = (self.fa, self.fb) if parity == 0 else (self.fb, self.fa)
            self._forward[key] = spla.Replay(lambda: self._forward_step(kernel, src, dst, True),
                                             self.P.device, name=f"bc forward level ({kernel})")
        return self._forward[key]

    def _backward_replay(self, kernel):
        if kernel not in self._backward:
            self._backward[kernel] = spla.Replay(lambda: self._backward_step(kernel), self.P.device,
                                                 name=f"bc backward level ({kernel})")
        return self._backward[kernel]

    # ------------------------------------------------------------------ kernel choice per level
    def forward_kernel(self, frontier_out_arcs, unreached_in_arcs):
        """frontier<!reached> = frontier +.first A: push from the frontier or pull into the unreached."""
        if self.kernel != "auto":
            return self.kernel
        if not self.directions:  # the masks keep most columns in the expensive levels
            return spla.choose_kernel(self.P, masked="dense", dtype=np.float64)[0]
        return spla.choose_kernel(self.P, masked=True, dtype=np.float64, push_arcs=frontier_out_arcs,
                                  pull_arcs=unreached_in_arcs)[0]

    def backward_kernel(self, level_in_arcs, parents_out_arcs):
        """T<level d-1> += A +.second c: push from level d (its in-arcs) or pull into level d-1 (out-arcs)."""
        if self.kernel != "auto":
            return self.kernel
        if not self.directions:
            return spla.choose_kernel(self.P.T, masked="dense", dtype=np.float64)[0]
        return spla.choose_kernel(self.P.T, masked=True, dtype=np.float64, push_arcs=level_in_arcs,
                                  pull_arcs=parents_out_arcs)[0]

    # ------------------------------------------------------------------ level by level
    def run_levels(self, s):
        """δ_s into T, one replayed step per level.  Returns (per-level (top, out-arcs, in-arcs) of
        levels 0..depth, the forward kernels, the backward kernels, whether a level was rescaled)."""
        xp = self.xp
        self.s.fill(s)
        self.reset()
        levels = [(1.0, float(self.out_deg_host[s]), float(self.in_deg_host[s]))]
        unreached_in = float(self.P.nnz) - levels[0][2]
        exps = [0]  # e_d for d = 0, 1, ...: σ̃ at level d = σ_d · 2^-(e_1 + ... + e_d)
        fwd = []
        parity = 0
        while True:
            kernel = self.forward_kernel(levels[-1][1], unreached_in)
            fwd.append(kernel)
            self._forward_replay(kernel, parity)()
            top, out_arcs, in_arcs = (float(x) for x in self.stats_host.read())
            if not top > 0:
                break
            e = int(np.frexp(top)[1]) if top > RESCALE_ABOVE else 0
            if e:  # σ̃ of the new level: its frontier scaled by 2^-e (booked unscaled: fix σ there too)
                dst = self.fb if parity == 0 else self.fa
                xp.copyto(dst, xp.ldexp(dst, -e))
                xp.copyto(self.sigma, xp.where(dst != 0, dst, self.sigma))
            exps.append(e)
            levels.append((top, out_arcs, in_arcs))
            unreached_in -= in_arcs
            parity ^= 1
        depth = len(levels) - 1
        self.depth.fill(depth)
        self.between()
        bwd = []
        for d in range(depth, 0, -1):
            kernel = self.backward_kernel(levels[d][2], levels[d - 1][1])
            bwd.append(kernel)
            if exps[d]:
                self._backward_step(kernel, scale=-exps[d])
            else:
                self._backward_replay(kernel)()
        self.finish()
        return levels, fwd, bwd, any(exps)

    # ------------------------------------------------------------------ as a replayed plan
    def use_plan(self, plan):
        """Make ``plan`` this workspace's replayed whole run (a new CUDA graph on the GPU)."""
        self.plan = plan
        self.check = self.xp.zeros((), dtype=np.float64)
        self.check_host = spla.device.HostCopy(self.check)
        self.whole = spla.Replay(self._whole_step, self.P.device, name=f"bc whole source (depth {plan.depth})")

    def _whole_step(self):
        plan = self.plan
        self._reset()
        src, dst = self.fa, self.fb
        for kernel in plan.forward:
            self._forward_step(kernel, src, dst, False)
            src, dst = dst, src
        _to_rank(self.level, self.reached, plan.depth)
        for kernel in plan.backward:
            self._backward_step(kernel)
        self._finish()
        # check = largest σ̃, or +inf when the last step found a level (the BFS is deeper than the plan)
        _plan_check(self.sigma, src).max(out=self.check)

    def run_plan(self, s):
        """δ_s into T by the replayed plan; False (T unusable) when the source's BFS is deeper than
        the plan or its σ needs rescaling."""
        self.s.fill(s)
        self.whole()
        if float(self.check_host.read()[()]) <= RESCALE_ABOVE:  # not inf, not NaN, no rescaling needed
            return True
        self.clean()
        return False

    def learn(self, levels, fwd, bwd, rescaled, scored):
        """After a level-by-level run: make it the plan (the first, or deeper than the plan), and when
        ``scored`` (a plan could have run it) and the levels' arcs were measured (``directions``) count
        the plan a hit or a miss on this source."""
        depth = len(levels) - 1
        if rescaled or depth > SPECULATIVE_MAX_DEPTH or not self.speculate:
            return
        if self.plan is None or depth > self.plan.depth:
            self.use_plan(_Plan(fwd, bwd))
            return
        if not scored or not self.directions:  # one kernel each way at every level: nothing to score
            return
        out_arcs = [lv[1] for lv in levels]
        in_arcs = [lv[2] for lv in levels]
        unreached = float(self.P.nnz) - np.cumsum(in_arcs)  # [d - 1]: in-arcs not reached before step d
        cost = selection.direction_cost
        own = planned = 0.0
        for d in range(1, depth + 2):  # forward step d (the last one finds the empty level)
            push, pull = out_arcs[d - 1], max(unreached[d - 1], 0.0)
            own += cost(self.P, fwd[d - 1], push, pull)
            planned += cost(self.P, self.plan.forward[d - 1], push, pull)
        T = self.P.T
        for i, d in enumerate(range(depth, 0, -1)):  # backward step for level d
            own += cost(T, bwd[i], in_arcs[d], out_arcs[d - 1])
            planned += cost(T, self.plan.backward[self.plan.depth - d], in_arcs[d], out_arcs[d - 1])
        if planned > (1 + SPECULATIVE_WASTE) * own:
            self.misses += 1
            if self.misses >= SPECULATIVE_MISSES and self.misses > self.hits:
                self.speculate = False
                log.debug("betweenness: single-source plans stopped (%d misses, %d hits): the sources' "
                          "levels differ too much; choosing each level's kernel from its statistics",
                          self.misses, self.hits)
        else:
            self.hits += 1


#: Single-source workspaces (their buffers; the recorded graphs' temporaries about as much again)
#: up to this size, or up to the matrix's own size, stay cached on the matrix, so their graphs and
#: plan are reused by the next call.
SINGLE_SOURCE_CACHE_BYTES = 64 << 20


def _single_source_workspace(P, kernel):
    """P's cached :class:`_SingleSource` for ``kernel`` (a new one, cached when small enough)."""
    key = ("bc_single_source", kernel)
    ws = P._cache.get(key)
    if ws is None:
        ws = _SingleSource(P, kernel)
        if ws.nbytes <= max(SINGLE_SOURCE_CACHE_BYTES, P.nbytes):
            P._cache[key] = ws
    return ws


def _single_source(P, s, acc, *, endpoints, kernel):
    """Add source s's dependencies δ_s into ``acc`` (n,), or into a new array when ``acc`` is None;
    returns it.  TurboBC's Algorithm 1.

    Same mathematics as :func:`_block` with k = 1, one push-or-pull product per BFS level each
    way (see :class:`_SingleSource`): by the workspace's replayed plan when it has one that this
    source fits, else level by level (which then becomes the plan when it needed no rescaling).
    """
    ws = _single_source_workspace(P, kernel)
    done = scored = False
    if ws.plan is not None and ws.speculate:
        ws.planned += 1
        scored = ws.planned % SPECULATIVE_CHECK_EVERY == 0
        done = not scored and ws.run_plan(s)
    if not done:
        ws.learn(*ws.run_levels(s), scored=scored)
    if acc is None:
        acc = ws.T.copy()  # δ_s
    else:
        acc += ws.T
    if endpoints:
        acc += ws.reached
        acc[s] += count_true(ws.reached) - 2  # the source counts its other reached vertices, not itself twice
    return acc


def _accumulate(P, coeff, below, T, kernel):
    """T<below> += A +.second coeff, in place ((n, k) blocks; 1-D when k == 1)."""
    spla.mxv(P, _flat(coeff), "plus_second", mask=_flat(below), accum="plus", out=_flat(T), kernel=kernel)


def _add_arc_dependencies(P, level, sigma, delta, inv_sigma, exps, acc):
    """acc[p] += Σ_s σ_sv/σ_sw (1 + δ_s(w)) for every arc p = v -> w with level(w) = level(v) + 1."""
    if not exps or P.nnz == 0:
        return
    xp = P.xp
    kb = level.shape[1]
    e_table = xp.asarray(np.stack(exps))  # (depth, kb)
    cols = xp.arange(kb)
    rows_all, heads_all = P.rowidx, P.colidx
    step = max(1, (1 << 24) // kb)
    for lo in range(0, P.nnz, step):  # chunks of arcs bound the (arcs, k) temporaries
        v = rows_all[lo:lo + step]
        w = heads_all[lo:lo + step]
        lv, lw = level[v], level[w]
        valid = (lv >= 0) & (lw == lv + 1)
        e = e_table[xp.clip(lw - 1, 0, len(exps) - 1), cols]
        contrib = xp.ldexp(sigma[v] * (1.0 + delta[w]) * inv_sigma[w], -e)
        acc[lo:lo + step] += xp.where(valid, contrib, 0.0).sum(axis=1)
