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

One source at a time (``batch_size=1``, TurboBC's own setting) each BFS level is one
forward step and one backward step of in-place work on (n,) buffers, recorded once as CUDA
graphs (``spla.Replay``) and replayed, so a level costs a graph launch and one 8-byte read
of the frontier's largest σ instead of a dozen Python-dispatched calls.

Needs: a square adjacency (arc i -> j is A[i, j]); values (weights) and self-loops are
ignored, parallel arcs count once — networkx's unweighted (weight=None) semantics.
Memory: the matrix (n + 1 + m words, twice for a directed graph, which also needs A.T)
plus about 64 bytes per vertex per source of the batch.
"""

from __future__ import annotations

import logging
import random

import numpy as np
import scipy.sparse as sp

import spla

from ._common import as_matrix, check_sources, free_device_bytes, pattern_of, to_numpy

log = logging.getLogger("spla")

BYTES_PER_VERTEX_SOURCE = 64  # σ, δ (f64), frontier, temporaries, level (int32), masks
RESCALE_ABOVE = 2.0 ** 512  # a level whose largest σ exceeds this is rescaled into [0.5, 1)


def betweenness_centrality(A, *, k=None, sources=None, seed=None, normalized=True, endpoints=False,
                           batch_size="auto", device=None, kernel="auto", progress=None):
    """Shortest-path betweenness centrality of every vertex (networkx semantics and defaults).

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse (A[i, j] != 0 is the arc i -> j) or networkx Graph/DiGraph
    k : int, optional
        Sample k source vertices: the sources are ``random.Random(seed).sample(range(n), k)``,
        the same vertices networkx's ``seed.sample(list(G.nodes()), k)`` draws (positions in
        ``list(G)``), so results equal networkx's for the same integer seed.
    sources : sequence of vertices, optional
        Only paths starting at these sources (indices 0..n-1; nodes for a networkx graph):
        equals ``networkx.betweenness_centrality_subset(G, sources, list(G), normalized=...)``.
    seed : int, random.Random or None
    normalized : bool
        Divide by the number of (s, t) pairs, as networkx.
    endpoints : bool
        Count the path endpoints too.
    batch_size : "auto" or int
        Sources per block (1 is TurboBC's single-source Algorithm 1); "auto" sizes the
        block from free device memory.  Running out of memory halves the block.
    device, kernel : where to run and which product kernel ("auto", "scCSC", "veCSC", "scCOOC").
    progress : callable(done, total), optional, called after each block.

    Returns
    -------
    numpy float64 array (n,) indexed like the input's vertices.
    """
    src, sampled, n, directed, M = _prepare(A, k, sources, seed, device)
    if sources is not None and endpoints:
        raise ValueError("endpoints=True cannot be combined with sources= (networkx's "
                         "betweenness_centrality_subset has no endpoints option)")
    bc = _run(M, src, endpoints=endpoints, edges=False, batch_size=batch_size, kernel=kernel, progress=progress)
    return _rescale(bc, n, normalized=normalized, directed=directed,
                    endpoints=endpoints and sources is None, sampled=sampled)


def edge_betweenness_centrality(A, *, k=None, seed=None, normalized=True, batch_size="auto", device=None,
                                kernel="auto", progress=None):
    """Edge betweenness centrality (networkx ``edge_betweenness_centrality`` semantics).

    Returns
    -------
    scipy.sparse.csc_array (n, n) float64 with A's pattern: entry (u, v) is the BC of the
    arc u -> v; an undirected edge's value stands on both of its arcs.  Self-loops are 0.
    """
    src, sampled, n, directed, M = _prepare(A, k, None, seed, device)
    P = pattern_of(M)
    arc_bc = _run(M, src, endpoints=False, edges=True, batch_size=batch_size, kernel=kernel, progress=progress)
    if not directed and P.nnz:
        arc_bc = arc_bc + arc_bc[_reverse_arc(P)]
    arc_bc = _rescale(arc_bc, n, normalized=normalized, directed=directed, endpoints=True, sampled=sampled)
    return sp.csc_array((arc_bc, to_numpy(P.rowidx), to_numpy(P.colptr)), shape=P.shape)


# --------------------------------------------------------------------------- plumbing
def _prepare(A, k, sources, seed, device):
    nodes = list(A) if _is_nx(A) else None
    M = as_matrix(A, device=device)
    n = M.shape[0]
    sampled = None
    if k is not None and sources is not None:
        raise ValueError("give either k (sample sources) or sources (a given subset), not both")
    if sources is not None:
        if nodes is not None:
            index = {v: i for i, v in enumerate(nodes)}
            missing = [s for s in sources if s not in index]
            if missing:
                raise ValueError(f"sources contains {missing[0]!r}, which is not a node of the graph")
            sources = [index[s] for s in sources]
        src = check_sources(sources, n)
    elif k is not None and k != n:
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0 or k > n:
            raise ValueError(f"k must be an integer in 0..n = 0..{n} (sources to sample), got {k!r}")
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        src = np.asarray(rng.sample(range(n), int(k)), dtype=np.int64)
        sampled = src
    else:
        src = np.arange(n, dtype=np.int64)
    return src, sampled, n, M.directed, M


def _is_nx(G) -> bool:
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover
        return False
    return isinstance(G, nx.Graph)


def _reverse_arc(P):
    """For each stored arc p = (i -> j) of a symmetric pattern, the position of (j -> i)."""
    rows = to_numpy(P.rowidx).astype(np.int64)
    cols = to_numpy(P.colidx).astype(np.int64)
    n = P.shape[0]
    keys = cols * n + rows  # CSC order: sorted by (column, row)
    return np.searchsorted(keys, rows * n + cols)


def _rescale(b, n, *, normalized, directed, endpoints, sampled):
    """networkx's ``_rescale`` (betweenness.py), vectorised."""
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
        return b * scale
    correction = 1 if directed else 2
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else np.nan
        s_non = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else np.nan
        s_non = N / (K * correction)
    scale = np.full(n, s_non)
    scale[sampled] = s_src
    return b * scale


def _auto_batch(M, nsrc):
    n = max(M.shape[0], 1)
    budget = int(0.5 * free_device_bytes(M))
    kb = budget // (BYTES_PER_VERTEX_SOURCE * n)
    return int(max(1, min(nsrc, kb, 8192)))


def _is_oom(exc) -> bool:
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError"


def _run(M, src, *, endpoints, edges, batch_size, kernel, progress):
    """Σ over source blocks of the block's contribution: (n,) vertex BC or (nnz,) arc BC (raw)."""
    P = pattern_of(M)
    n = P.shape[0]
    xp = P.xp
    acc = xp.zeros(P.nnz if edges else n, dtype=np.float64)
    nsrc = len(src)
    if nsrc == 0 or n == 0:
        return to_numpy(acc)
    if batch_size == "auto":
        kb = _auto_batch(P, nsrc)
    elif isinstance(batch_size, (int, np.integer)) and not isinstance(batch_size, bool) and batch_size >= 1:
        kb = int(min(batch_size, nsrc))
    else:
        raise ValueError(f"batch_size must be 'auto' or a positive integer, got {batch_size!r}")
    done = 0
    while done < nsrc:
        block = src[done:done + kb]
        try:
            if len(block) == 1 and not edges:
                _single_source(P, int(block[0]), acc, endpoints=endpoints, kernel=kernel)
            else:
                _block(P, block, acc, endpoints=endpoints, edges=edges, kernel=kernel)
        except Exception as exc:
            if not _is_oom(exc):
                raise
            _free_pool(P)
            if kb == 1:
                need = BYTES_PER_VERTEX_SOURCE * n + P.nbytes
                raise spla.DeviceMemoryError(
                    f"betweenness of one source needs about {need / 2**20:.1f} MiB of device memory "
                    f"(matrix {P.nbytes / 2**20:.1f} MiB + {BYTES_PER_VERTEX_SOURCE} bytes per vertex) "
                    f"and {P.device} ran out; use a device with more memory or device='cpu'") from exc
            kb = max(1, kb // 2)
            log.debug("betweenness: out of device memory, batch shrunk to %d sources", kb)
            continue
        done += len(block)
        if progress is not None:
            progress(done, nsrc)
    return to_numpy(acc)


def _free_pool(M):
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


class _SingleSource:
    """Device buffers and recorded level steps of TurboBC's single-source Algorithm 1 on one matrix.

    All arrays are (n,) on P's device: sigma, T (float64), level (int32), reached (bool),
    frontier (float64), inv_sigma (float64); ``top`` (0-d float64) is the largest σ of the
    newest frontier, ``d`` (1,) int32 the level the next step works on, ``s`` (1,) int64 the
    source.  The steps are :class:`spla.Replay` objects: after the first calls they are CUDA
    graphs, so a BFS level costs one graph launch and one 8-byte read instead of a dozen
    Python-dispatched calls, and the reset before the BFS, the step between the sweeps and
    the final δ = σ̃ · T are one launch each.
    """

    def __init__(self, P, kernel):
        xp, n = P.xp, P.shape[0]
        self.xp = xp
        self.sigma = xp.zeros(n, dtype=np.float64)
        self.T = xp.zeros(n, dtype=np.float64)
        self.inv_sigma = xp.zeros(n, dtype=np.float64)
        self.frontier = xp.zeros(n, dtype=np.float64)
        self.level = xp.full(n, -1, dtype=np.int32)
        self.reached = xp.zeros(n, dtype=np.bool_)
        self.top = xp.zeros((), dtype=np.float64)
        self.d = xp.zeros(1, dtype=np.int32)
        self.s = xp.zeros(1, dtype=np.int64)
        self.P, self.kernel = P, kernel
        self.nbytes = sum(int(a.nbytes) for a in (self.sigma, self.T, self.inv_sigma, self.frontier, self.level,
                                                  self.reached))
        self.reset = spla.Replay(self._reset_step, P.device, name="bc reset")
        self.forward = spla.Replay(self._forward_step, P.device, name="bc forward level")
        self.between = spla.Replay(self._between_step, P.device, name="bc between sweeps")
        self.backward = spla.Replay(self._backward_step, P.device, name="bc backward level")
        self.finish = spla.Replay(self._finish_step, P.device, name="bc dependencies")

    def _reset_step(self):
        """σ = level + 1 = reached = T = d = 0 and frontier = e_s, for the source in ``s``."""
        for a, v in ((self.sigma, 0), (self.level, -1), (self.reached, False), (self.frontier, 0), (self.T, 0),
                     (self.d, 0)):
            a.fill(v)
        self.frontier[self.s] = 1.0

    def _forward_step(self):
        """Book the previous frontier at level d, then expand it: one BFS level."""
        xp = self.xp
        # σ += f;  level[f != 0] = d;  reached |= (f != 0)
        sigma, level, reached = _forward_update(self.sigma, self.frontier, self.level, self.reached, self.d)
        xp.copyto(self.sigma, sigma)
        xp.copyto(self.level, level)
        xp.copyto(self.reached, reached)
        self.d += 1
        # frontier<!reached, replace> = frontier +.first A
        xp.copyto(self.frontier, spla.vxm(self.frontier, self.P, "plus_first", mask=self.reached, complement=True,
                                          kernel=self.kernel))
        self.frontier.max(out=self.top)

    def _between_step(self):
        """1/σ̃ where reached (1 elsewhere); d = depth (the last forward step left depth + 1)."""
        xp = self.xp
        xp.divide(1.0, xp.where(self.reached, self.sigma, 1.0), out=self.inv_sigma)
        self.d -= 1

    def _finish_step(self):
        """T = δ = σ̃ · T, and 0 at the source (its own dependency is not betweenness)."""
        self.xp.multiply(self.sigma, self.T, out=self.T)
        self.T[self.s] = 0.0

    def _backward_step(self, scale=None):
        """T<level == d-1> += A +.second c,  c = (1/σ + T) on level d;  then d -= 1."""
        coeff, below = _backward_coeff(self.level, self.inv_sigma, self.T, self.d)
        if scale is not None:
            coeff = self.xp.ldexp(coeff, scale)
        _accumulate(self.P, coeff, below, self.T, self.kernel)
        self.d -= 1


#: Single-source workspaces (their buffers; the recorded graphs' temporaries about as much again)
#: up to this size stay cached on the matrix, so their graphs are reused by the next call.
SINGLE_SOURCE_CACHE_BYTES = 64 << 20


def _single_source_workspace(P, kernel):
    """P's cached :class:`_SingleSource` for ``kernel`` (a new one, cached when small enough)."""
    key = ("bc_single_source", kernel)
    ws = P._cache.get(key)
    if ws is None:
        ws = _SingleSource(P, kernel)
        if ws.nbytes <= SINGLE_SOURCE_CACHE_BYTES:
            P._cache[key] = ws
    return ws


def _single_source(P, s, acc, *, endpoints, kernel):
    """Add source s's dependencies δ_s into ``acc`` (n,): TurboBC's Algorithm 1, level steps replayed.

    Same mathematics as :func:`_block` with k = 1.  Forward, level d: the step books the
    frontier found by the previous product (σ, level, reached), then computes the next one;
    the host reads its largest σ (``top``) to stop the BFS and, when it exceeds 2^512, to
    rescale it by 2^-e.  Backward: one step per level, eagerly at the rare rescaled levels.
    """
    xp = P.xp
    ws = _single_source_workspace(P, kernel)
    ws.s.fill(s)
    ws.reset()
    exps = [0]  # e_d for d = 0, 1, ...: σ̃ at level d = σ_d · 2^-(e_1 + ... + e_d)
    while True:
        ws.forward()
        top = float(ws.top)
        if not top > 0:
            break
        e = int(np.frexp(top)[1]) if top > RESCALE_ABOVE else 0
        if e:
            xp.copyto(ws.frontier, xp.ldexp(ws.frontier, -e))
        exps.append(e)
    depth = len(exps) - 1  # levels 1..depth are non-empty; the last step only booked level depth
    ws.between()
    for d in range(depth, 0, -1):
        if exps[d]:
            ws._backward_step(scale=-exps[d])
        else:
            ws.backward()
    ws.finish()
    acc += ws.T  # δ_s
    if endpoints:
        beyond = ws.level > 0
        acc += beyond
        acc[s] += beyond.sum()


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
