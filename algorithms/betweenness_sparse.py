"""Betweenness of a block of sources whose BFS frontiers are held sparse (``spla.frontier``).

Definition: the dependencies δ_s(v) of :mod:`betweenness_dense` (Brandes; networkx
``betweenness_centrality``), summed over a block of k sources, computed with the same sweeps over a
level-structured block: an (n, k, 2) array of (value, level) per (vertex, source) entry, and a queue
listing each level's entries, so that every level costs its entries' arcs instead of O(n·k) dense
vector work:

    forward:   σ̃'<¬reached ∪ level == d+1> += σ̃<frontier_d> +.first A          (push, queues level d+1)
    backward:  coeff = 1/σ̃;  for d = D-1 .. 1:
               t<frontier_d> = 2^-e_{d+1} (A +.second coeff<level == d+1>);  δ = t·σ̃;  coeff += t

For graphs of many BFS levels (meshes, road networks) and sources that reach few of the vertices
(many directed graphs), where the dense block's work per level is mostly vertices no source is at.
Blocks of sources are ordered so that each lies close together (a BFS from seeds, nearest seed
first), which keeps a level's entries on few vertices.  σ is rescaled by powers of two as in
:mod:`betweenness_dense` (σ̃ = σ · 2^-(e_1 + ... + e_d)), checked once per read of the levels.

``frontier="auto"`` takes this path when a BFS from a sample of the sources finds n · D above
``sparse_reach_ratio`` · R (D its depth, R the mean arcs a sample source reaches): the dense path
runs as many levels as its deepest source, each O(n) per source, this one the arcs each source reaches.

Needs: P, a square pattern matrix, and P.T for a directed graph.  Memory: about
BYTES_PER_ENTRY_SPARSE = 40 bytes per vertex and source of the block ((σ̃ or coeff, level) and δ in
float64, the queue, temporaries).  Host traffic: one read per ``levels_per_read`` BFS levels, none
in the backward sweep.

Tunables (``spla.tuning``; their values are explained in docs/decisions/algorithms.md):
sparse_max_batch, sparse_reach_ratio, reach_sample, levels_per_read.
"""

from __future__ import annotations

import logging

import numpy as np

import spla
from spla.device import any_true

from ._common import free_device_bytes, to_numpy
from .betweenness_dense import RESCALE_ABOVE

log = logging.getLogger("spla")

#: device bytes per vertex and source of a block: (σ̃ or coeff, level) and δ (f64), queue (int32), temporaries
BYTES_PER_ENTRY_SPARSE = 40


def auto_batch(M, nsrc):
    """Sources per block: half the free device memory, at most the tunable ``sparse_max_batch`` (a level's
    entries stay in the L2 cache) and at most 2^31 - 1 entries."""
    n = max(M.shape[0], 1)
    budget = int(0.5 * free_device_bytes(M))
    kb = budget // (BYTES_PER_ENTRY_SPARSE * n)
    return int(max(1, min(nsrc, kb, spla.tuning.current().sparse_max_batch, max(1, (2 ** 31 - 1) // n))))


def locality_order(P, src, kb):
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
        # label<new> = frontier;  dist<new> = d;  reached |= new
        label = xp.where(new, frontier, label)
        dist = xp.where(new, d, dist)
        reached |= new
    s = xp.asarray(src)
    order = to_numpy(xp.lexsort(xp.stack([dist[s], label[s]])))
    return np.asarray(src)[order]


class _Levels:
    """A block's BFS levels on the device: the queue of (vertex, source) entries and its bookkeeping.

    ``spla.frontier.push`` enqueues a level without reading anything back; :meth:`forward` enqueues
    ``levels_per_read`` levels, then reads their counts and largest σ̃ in one copy (a push past the
    last level is empty).  Rescaling is checked per read: the levels a read covers grow σ̃ from a
    checked level (<= 2^512) by at most the largest in-degree per level, below 2^56 for any graph
    that fits in memory, so with 8 levels per read (the shipped value) they stay below 2^1016 until
    the check; more levels per read could overflow float64 on graphs of huge in-degrees.
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
        per_read = spla.tuning.current().levels_per_read
        d = 0
        while True:
            if d + per_read + 1 >= self.start.shape[0]:
                self._grow(2 * (d + per_read + 1))
            for j in range(d, d + per_read):
                # σ̃'<¬reached ∪ level == j+1> += σ̃<frontier_j> +.first A     (frontier_{j+1} queued)
                spla.frontier.push(self.P, self.queue, j, self.block, self.start, self.count, self.top)
            got = to_numpy(self.xp.concatenate([self.count[d + 1:d + per_read + 1],
                                                self.top[d:d + per_read]]))
            counts, tops = got[:per_read], got[per_read:].view(np.float64)
            if tops.max() > RESCALE_ABOVE:
                self.exps[d] = _rescale_from(self.xp, self.block, d)
            empty = np.flatnonzero(counts == 0)
            if empty.size:
                return d + int(empty[0])
            d += per_read


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
    # σ̃<level >= d> = σ̃ · 2^-e                                (per source)
    value[...] = xp.where(later, xp.ldexp(value, -e[None, :]), value)
    return e


def sample_reach(P, sources):
    """(D, R, k) of one BFS from a sample of k of ``sources`` (at most the tunable ``reach_sample``, fewer
    when their block would not fit in an eighth of the free memory; drawn with a fixed seed).

    D: the number of levels below the sample's sources (the deepest one's eccentricity within its
    reach); R: the mean number of arcs leaving the vertices each sample source reaches.
    """
    xp = P.xp
    n = P.shape[0]
    per_source = 24 * max(n, 1)  # (value, level) float64 and a flat index per entry
    k = int(max(1, min(spla.tuning.current().reach_sample, len(sources),
                       free_device_bytes(P) // (8 * per_source))))
    sample = np.random.default_rng(0).choice(np.asarray(sources, dtype=np.int64), size=k, replace=False)
    block = xp.zeros((n, k, 2), dtype=np.float64)
    block[..., 1] = -1.0
    s = xp.asarray(sample)
    c = xp.arange(k, dtype=np.int64)
    block[s, c, 0] = 1.0
    block[s, c, 1] = 0.0
    depth = _Levels(P, block, (s * k + c).astype(spla.frontier.index_dtype(n, k))).forward()
    reached = (block[..., 1] >= 0).sum(axis=1)  # sample sources reaching each vertex
    # R = (reached +.* out_degree) / k
    arcs = float((reached * P.out_degree()).sum())
    return depth, arcs / k, k


def use_sparse_frontier(P, sources):
    """frontier="auto": whether the dense path's O(n) work per level and source outweighs the arcs the
    sources reach (the tunable ``sparse_reach_ratio``)."""
    depth, reach, k = sample_reach(P, sources)
    use = P.shape[0] * depth > spla.tuning.current().sparse_reach_ratio * max(reach, 1.0)
    log.debug("betweenness: BFS from %d sample sources: depth %d, %.0f arcs reached per source, n=%d -> "
              "%s frontiers", k, depth, reach, P.shape[0], "sparse" if use else "dense")
    return use


# 1/σ̃ where reached (the backward sweep's coefficients), 0 elsewhere
_reciprocal_reached = spla.fuse(lambda xp: lambda value, level: xp.where(level >= 0, 1.0 / xp.where(
    level >= 0, value, 1.0), 0.0), name="bc_reciprocal_reached")


def block(P, sources, acc, *, endpoints):
    """Add one block of sources' dependencies into ``acc`` (n,), frontiers held sparse.

    The (n, k) block is one (n, k, 2) array of (value, level) per entry (``spla.frontier``); a
    queue lists the entries level by level, so each level costs its frontier's arcs, not n·k.
    Forward: σ̃ by pushes.  Backward: the values become coeff = 1/σ̃ (+ T = δ/σ̃ once known) and one
    pull per level, deepest first, writes δ = T·σ̃ into a dense (n, k) array.  Host traffic: one
    read of counts and largest σ̃ per ``levels_per_read`` levels, nothing in the backward sweep.
    """
    xp = P.xp
    n = P.shape[0]
    kb = len(sources)
    entries = xp.zeros((n, kb, 2), dtype=np.float64)
    entries[..., 1] = -1.0
    s = xp.asarray(sources, dtype=np.int64)
    c = xp.arange(kb, dtype=np.int64)
    entries[s, c, 0] = 1.0
    entries[s, c, 1] = 0.0
    levels = _Levels(P, entries, (s * kb + c).astype(spla.frontier.index_dtype(n, kb)))
    depth = levels.forward()
    value, level = entries[..., 0], entries[..., 1]
    value[...] = _reciprocal_reached(value, level)  # coeff = 1/σ̃ where reached, 0 elsewhere
    delta = xp.zeros((n, kb), dtype=np.float64)  # 0 at the deepest level, the sources and unreached
    for d in range(depth - 1, 0, -1):
        # δ<frontier_d> = 2^-e_{d+1} (A +.second coeff<level == d+1>) / coeff;  coeff<frontier_d> += δ/σ̃
        spla.frontier.pull(P, levels.queue, d, entries, levels.start, levels.count, delta,
                           scale=levels.exps.get(d + 1), feed=True, divide=True)
    # acc += Σ_s δ_s                                             (over the block's sources)
    acc += delta.sum(axis=1)
    if endpoints:
        beyond = level > 0
        acc += beyond.sum(axis=1)
        acc[s] += beyond.sum(axis=0)
