"""Distance centralities of every vertex from one bit-parallel, all-sources BFS.

d(s, t) is the hop distance (number of arcs on a shortest path s -> t; arc i -> j is a
stored A[i, j], even 0; values, multi-edges and self-loops do not change it).  n = |V|.

``closeness_centrality`` (networkx.closeness_centrality; Freeman, with Wasserman & Faust's
correction for disconnected graphs), over INCOMING distances as networkx uses for
directed graphs:

    r(u) = |{v : v reaches u}|            (u itself included)
    S(u) = Σ_{v reaches u} d(v, u)
    C(u) = (r(u) - 1) / S(u)  ·  [(r(u) - 1) / (n - 1)   if wf_improved]
    C(u) = 0 when S(u) = 0, and for n = 1.

``harmonic_centrality`` (networkx.harmonic_centrality; Marchiori & Latora):

    H(u) = Σ_{v ≠ u, v reaches u} 1 / d(v, u)

``sum_of_distances`` (the shortness-centrality homework seed's "shortness"), over
OUTGOING distances:

    s(v) = Σ_{t reachable from v} d(v, t)

Algorithm (bit-parallel multi-source BFS, 64 sources per uint64 word).  Sources are
processed in blocks of W words (64·W sources).  The state of a block is an (n, W)
uint64 array ``vis``: bit b of word w of row t is set when source 64·w + b of the block
has reached t.  Starting from vis_0 (bit s set in row s only), one product per level

    vis_{d+1}<!done> = vis_d  bor.first  A          (vxm: pulls along arcs s -> t)
    vis_{d+1}       |= vis_d

where ``done`` marks the words whose 64 bits are all set, which are not computed at all.
Level 1 needs no product when the block's sources are consecutive vertices (every vertex
in order, or a run of them, as the chunks of a Dask call are): vis_0 has one bit per
source, so vis_1 is vis_0 plus the block's own arcs scattered into words (``_first_level``:
one contiguous CSC slice of ~64·W·(m/n) arcs instead of a product over all nnz·W words).
(Pulling from all of vis_d rather than from the frontier vis_d \\ vis_{d-1} gives the
same set, and saves the two passes that would isolate the frontier.)  Row t of
vis_d holds exactly the sources s with d(s, t) <= d, so with c_d(t) = popcount(row t
of vis_d) (``spla.bits.weighted_rowsum`` without weights) the number of sources at
distance exactly d from t is c_d(t) - c_{d-1}(t), and

    S(t) = Σ_d d · (c_d(t) - c_{d-1}(t)),   H(t) = Σ_d (c_d(t) - c_{d-1}(t)) / d,
    r(t) = c_last(t)

summed over the blocks: per-row reductions only, no per-source reduction.  These are
the incoming sums; the outgoing sums (``sum_of_distances``) run the same BFS over the
transpose, ``vis_{d+1} = A bor.second vis_d`` (mxv: pulls along out-neighbours).  The
unused bits of the last word (sources beyond n) are preset in every row, so a word can
become ``done``; they cancel in the differences.

On the CPU, when numba is installed, the same sums come from one compiled BFS per source instead
(``spla.paths.distance_sums``, the machine's cores sharing the sources; ``use_searches``).

Weighted (``distance=True`` for closeness and harmonic, ``weight=True`` for the sum of distances, as
networkx): d(s, t) is the weighted distance of :mod:`weighted` (float64 sums in path order), from one
Dijkstra per source (``spla.paths.distance_sums(..., weighted=True)``, CPU or GPU); closeness runs
them from each vertex over the reversed arcs, as networkx does, so each d(v, u) is summed as networkx
sums it.  A pair of distinct vertices at distance 0 (zero-length arcs) counts in r and adds 0 to S
and nothing to H, as in networkx.

Memory: two (n, W) uint64 arrays plus an (n, W) bool mask and the backend's
temporaries, about 37·n bytes per word (``BYTES_PER_WORD_ROW``); W is chosen from
``free_device_bytes`` (the tunable ``memory_fraction`` of it, docs/decisions/algorithms.md) and
capped at ceil(n / 64).  Per level each product reads the
block's words once per stored arc (nnz·W·8 bytes gathered) and the array passes touch
~4 (n, W) arrays.  A block that still runs out of memory is retried at half width.

Needs: a square adjacency (spla.Matrix, SciPy sparse, or networkx graph); any values.
"""

from __future__ import annotations

import logging

import numpy as np

import spla
import spla.bits
from spla.device import any_true
from spla.errors import DeviceMemoryError

from . import _common, cluster, weighted
from ._common import as_matrix, check_progress, on_graph_device, to_numpy
from .bfs import bfs_levels

log = logging.getLogger("spla.algorithms")

ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
#: device bytes per row per word of a block: vis and the product's output (8 B each), the
#: backend's temporaries (~2 x 8 B), the done mask (1 B) and a popcount temporary (4 B).
BYTES_PER_WORD_ROW = 4 * 8 + 1 + 4


# --------------------------------------------------------------------------- helpers
def is_empty_graph(G) -> bool:
    """True for a graph with no vertices (networkx graphs of order 0 cannot be converted).  A (0, m)
    matrix with m > 0 is not one: it is not square, which ``as_matrix`` refuses."""
    if isinstance(G, spla.Matrix):
        return G.shape == (0, 0)
    if _common.is_networkx_graph(G):
        return len(G) == 0
    shape = getattr(G, "shape", None)
    return shape is not None and tuple(shape) == (0, 0)


def block_words(A: spla.Matrix, total_words: int) -> int:
    """Words per source block (64 sources each) that fit in free device memory.

    Between 1 and ``total_words`` = ceil(n / 64); the blocks are balanced (the same
    number of words, give or take one).  Raises ``spla.DeviceMemoryError`` when not
    even one word (64 sources) fits: on a GPU in its free memory; on the CPU, whose budget is sized for
    the cache, one word always runs unless host memory cannot hold it (``spla.InsufficientMemory``).
    """
    n = A.shape[0]
    per_word = max(1, n * BYTES_PER_WORD_ROW)
    budget = int(_common.free_device_bytes(A) * spla.tuning.current().memory_fraction)
    if budget < per_word and not spla.device.is_gpu(A.device):
        # the CPU's budget is sized for the cache, not a limit: one word runs if host memory holds it
        spla.memory.require(per_word, A.device, what=f"a bit-parallel BFS block of 64 sources over {n:,} vertices",
                            remedy="run on a GPU with more memory, or on a machine with more host memory")
        return 1
    if budget < per_word:
        raise DeviceMemoryError(
            f"bit-parallel BFS needs {per_word:,} bytes of device memory for one block of 64 sources "
            f"(n={n:,} rows x {BYTES_PER_WORD_ROW} bytes), but only {budget:,} bytes are available; "
            "free device memory or use device='cpu'")
    wmax = max(1, min(total_words, budget // per_word))
    nblocks = -(-total_words // wmax)
    return -(-total_words // nblocks)


def _init_block(xp, n, s0, s1, W, rows=None):
    """vis_0 of the block of sources s0..s1-1 in W words: bit (s - s0) in row s (in row rows[s - s0]
    when the block's sources are the vertices ``rows``), tail bits preset."""
    vis = xp.zeros((n, W), dtype=np.uint64)
    m = s1 - s0
    k = xp.arange(m, dtype=np.int64)
    one = xp.ones(m, dtype=np.uint64)
    vis[k + s0 if rows is None else rows, k >> 6] = xp.left_shift(one, (k & 63).astype(np.uint64))
    used = m - 64 * (W - 1)  # bits used in the last word, 1..64
    pad = 64 * W - m
    if used < 64:
        tail = np.uint64((0xFFFFFFFFFFFFFFFF << used) & 0xFFFFFFFFFFFFFFFF)
        vis[:, W - 1] |= tail
    return vis, pad


def _product(vis, A, direction, done, out, kernel):
    """One BFS step of a block: the reached sets pulled one arc further, done words skipped."""
    if direction == "in":
        # out<!done, replace> = vis bor.first A            (t gets the bits of its in-neighbours)
        return spla.vxm(vis, A, "bor_first", mask=done, complement=True, out=out, replace=True, kernel=kernel)
    # out<!done, replace> = A bor.second vis               (v gets the bits of its out-neighbours)
    return spla.mxv(A, vis, "bor_second", mask=done, complement=True, out=out, replace=True, kernel=kernel)


@on_graph_device
def bit_bfs_blocks(A: spla.Matrix, run_block, *, sources=None, direction="in", max_depth=None, kernel="auto",
                   progress=None):
    """Drive the bit-parallel all-sources BFS block by block.

    ``sources``: None (every vertex, in order: source s is vertex s) or an int64 array of distinct
    vertices on A's device (source s is vertex sources[s]); blocks take them in that order.
    For every source block this calls ``run_block(level_iter, s0, s1, W, pad)`` where
    ``level_iter`` is a generator yielding ``(d, vis_d)`` for d = 0, 1, ... (vis_d the
    (n, W) uint64 block state after d levels, valid only until the next step) and
    stopping after ``max_depth`` levels (never, when None: the consumer stops it, e.g.
    when its popcounts stop growing, by leaving the loop); ``run_block`` returns a
    partial result (anything), and the list of partial results is returned.  A block
    that raises MemoryError is retried with half as many words (nothing of it is kept).

    direction: "in" (vxm over A: row t collects the sources that reach t) or "out"
    (mxv: row v collects the sources that v reaches).
    """
    if direction not in ("in", "out"):
        raise ValueError(f"direction must be 'in' or 'out', got {direction!r}")
    n = A.shape[0]
    xp = A.xp
    nsrc = n if sources is None else int(sources.shape[0])
    total_words = -(-nsrc // 64)
    if direction == "out" and A.T is A:
        direction = "in"  # symmetric: the same product, without the swap
    results = []
    if total_words == 0:
        return results
    W = block_words(A, total_words)
    w0 = 0
    while w0 < total_words:
        Wb = min(W, total_words - w0)
        s0, s1 = 64 * w0, min(nsrc, 64 * (w0 + Wb))
        rows = None if sources is None else sources[s0:s1]
        try:
            results.append(run_block(_levels(A, xp, n, s0, s1, Wb, direction, max_depth, kernel, rows), s0, s1,
                                     Wb, 64 * Wb - (s1 - s0)))
        except MemoryError as exc:
            if Wb == 1:
                raise DeviceMemoryError(
                    f"bit-parallel BFS ran out of device memory on a block of {Wb} word(s) "
                    f"({64 * Wb} sources, about {n * Wb * BYTES_PER_WORD_ROW:,} bytes); free device memory "
                    "or use device='cpu'") from exc
            W = max(1, Wb // 2)
            log.info("bit-parallel BFS: out of memory at %d words per block, retrying with %d", Wb, W)
            continue
        w0 += Wb
        if progress is not None:
            progress(s1, nsrc)
    return results


def _first_level(A, vis, out, v0, m, W, direction):
    """out = vis_1 = vis_0 | (vis_0 ⊕.⊗ A) without a product, for a block whose m sources are the
    consecutive vertices v0 .. v0+m-1 (bit b of the block is vertex v0 + b): vis_0 holds one bit per
    source, so level 1 is the block's own arcs scattered into words (a push from those vertices).

    The arcs leaving the block are one contiguous slice of a CSC matrix whose column s lists
    the rows that receive bit s: A.T for "in" (row t gets s when s -> t), A for "out" (row v
    gets s when v -> s).  Every (row, source) pair is stored once and self-loops are skipped,
    so no bit is added twice and adding the bit words is their OR.
    """
    xp = A.xp
    M = A.T if direction == "in" else A
    ptr = M.colptr[v0:v0 + m + 1].astype(np.int64)
    lo, hi = (int(x) for x in to_numpy(ptr[[0, -1]]))
    rows = M.rowidx[lo:hi].astype(np.int64)
    # the source of each arc of the slice (its column), found in the block's own column pointers
    src = xp.searchsorted(ptr, xp.arange(lo, hi, dtype=np.int64), side="right") - 1 + v0
    keep = rows != src
    rows, pos = rows[keep], src[keep] - v0
    xp.copyto(out, vis)
    # out[t, b >> 6] |= 1 << (b & 63)   for every arc of the block, b = its source's bit
    bits = xp.left_shift(xp.ones(pos.shape[0], dtype=np.uint64), (pos & 63).astype(np.uint64))
    xp.add.at(out.reshape(-1), rows * W + (pos >> 6), bits)


def _run_start(xp, rows):
    """v0 when the block's sources ``rows`` are the consecutive vertices v0, v0 + 1, ... in that order,
    else None."""
    if rows.shape[0] == 0:
        return None
    if rows.shape[0] > 1 and not bool(to_numpy((xp.diff(rows) == 1).all())):
        return None
    return int(to_numpy(rows[:1])[0])


def _levels(A, xp, n, s0, s1, W, direction, max_depth, kernel, rows=None):
    """The block's levels (d, vis_d); ``rows``: the block's source vertices when they are not s0..s1-1."""
    vis, _pad = _init_block(xp, n, s0, s1, W, rows)
    yield 0, vis
    nxt = xp.empty_like(vis)
    done = xp.empty(vis.shape, dtype=np.bool_)
    d = 0
    v0 = s0 if rows is None else _run_start(xp, rows)
    if (max_depth is None or max_depth >= 1) and v0 is not None:
        _first_level(A, vis, nxt, v0, s1 - s0, W, direction)  # vis_1 = vis_0 | (vis_0 ⊕.⊗ A), pushed
        vis, nxt = nxt, vis
        d = 1
        yield d, vis
    while max_depth is None or d < max_depth:
        # done = (vis == all ones)                  (words whose 64 sources are all there)
        xp.equal(vis, ALL_ONES, out=done)
        _product(vis, A, direction, done, nxt, kernel)
        xp.bitwise_or(nxt, vis, out=nxt)          # vis_{d+1} = vis_d | (vis_d ⊕.⊗ A)
        vis, nxt = nxt, vis
        d += 1
        yield d, vis


@on_graph_device
def distance_sums(A, *, direction="in", harmonic=False, sources=None, kernel="auto", progress=None):
    """Per-vertex distance statistics from the all-sources bit-parallel BFS.

    direction "in": for each vertex t, over the sources s that reach t;
    "out": for each vertex s, over the targets t that s reaches.
    sources: None (every vertex) or an int64 array of distinct vertices on A's device, the only
    sources ("in") or targets ("out") counted.

    Returns (dist_sum, reach, harm) on A's device: int64 (n,) Σ d, int64 (n,) number of
    vertices counted (the vertex itself included), float64 (n,) Σ 1/d over d >= 1
    (None unless ``harmonic``).
    """
    n = A.shape[0]
    xp = A.xp
    if use_searches(A) and (sources is None or direction == "in"):
        return _searches(A, direction, harmonic, progress, sources)

    def run_block(levels, s0, s1, W, pad):
        dist = xp.zeros(n, dtype=np.int64)
        harm = xp.zeros(n, dtype=np.float64) if harmonic else None
        prev = None
        for d, vis in levels:
            c = spla.bits.weighted_rowsum(vis)   # c_d(t) = popcount of row t = sources within distance d
            if prev is not None:
                new = c - prev                   # sources at distance exactly d
                if not any_true(new != 0):
                    break                        # no row grew: every BFS of the block is over
                dist += d * new
                if harmonic:
                    harm += new / d
            prev = c
        return dist, prev - pad, harm

    parts = bit_bfs_blocks(A, run_block, sources=sources, direction=direction, kernel=kernel, progress=progress)
    dist = xp.zeros(n, dtype=np.int64)
    reach = xp.zeros(n, dtype=np.int64)
    harm = xp.zeros(n, dtype=np.float64) if harmonic else None
    for dpart, rpart, hpart in parts:  # one partial result per source block
        # S += S_block;  r += r_block;  H += H_block
        dist += dpart
        reach += rpart
        if harmonic:
            harm += hpart
    return dist, reach, harm


def use_searches(A) -> bool:
    """Whether the distance sums come from ``spla.paths``' compiled per-source searches: on the CPU when
    numba imports and the tunable ``paths_for_distances`` allows it (docs/decisions/algorithms.md)."""
    return (not spla.device.is_gpu(A.device) and spla.tuning.current().paths_for_distances
            and spla.paths.available(A.device)[0])


def _searches(A, direction, harmonic, progress, sources=None):
    """:func:`distance_sums` by one compiled BFS per source (``spla.paths.distance_sums``; ``sources``:
    None for every vertex, else the sources of direction "in"), every source at once or, when progress
    is reported, about 1% of them per call, but at least one per thread and enough arcs to run on every
    thread (twice the tunable ``paths_parallel_min_arcs``)."""
    n = A.shape[0]
    src = np.arange(n) if sources is None else to_numpy(sources)
    total = len(src)
    parallel = -(-2 * spla.tuning.current().paths_parallel_min_arcs // max(A.nnz, n, 1))
    step = max(total, 1) if progress is None else max(spla.paths.threads(), -(-total // 100), parallel)
    dist = np.zeros(n, dtype=np.int64)
    reach = np.zeros(n, dtype=np.int64)
    harm = np.zeros(n, dtype=np.float64)
    for lo in range(0, total, step):
        hi = min(total, lo + step)
        # (S, r, H) += Σ_{s in src[lo:hi]} (d(s, ·), 1, 1/d(s, ·))          (one BFS per source)
        d, r, h = spla.paths.distance_sums(A, src[lo:hi], direction=direction)
        dist += d
        reach += r
        harm += h
        if progress is not None:
            progress(hi, total)
    return dist, reach, (harm if harmonic else None)


# --------------------------------------------------------------------------- public API
@on_graph_device
def closeness_centrality(A, *, wf_improved=True, vertices=None, device=None, kernel="auto", progress=None,
                         distance=None, client=None):
    """Closeness centrality of every vertex, equal to ``networkx.closeness_centrality(G)``.

    C(u) = (r(u) - 1) / Σ_{v reaches u} d(v, u), times (r(u) - 1) / (n - 1) when
    ``wf_improved``; r(u) counts the vertices that reach u, u included.  Directed graphs
    use incoming distances (as networkx).  0 where nothing else reaches u, and for n = 1.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    wf_improved : bool, Wasserman–Faust scaling for disconnected graphs
    vertices : sequence of vertices, optional
        Only these vertices' closeness (indices 0..n-1; nodes for a networkx graph), one BFS each
        over the reversed arcs (``bfs_levels`` on A.T) instead of the all-sources BFS: networkx's
        ``closeness_centrality(G, u=...)``, for a few vertices.
    device, kernel : where to run, and the GPU product kernel ("auto", "scCSC", "veCSC", "scCOOC", "push")
    progress : callable(done_sources, n), optional, called after each source block (chunk with ``client``)
    distance : None, False, True or str
        True: d is the weighted distance, A's values the arc lengths (a networkx graph's "weight"
        attribute; a string names another attribute of a networkx graph), as networkx's
        ``distance=``: one Dijkstra from each vertex over the reversed arcs (``weighted``); a
        pattern-only matrix gives the hop-count answer.
    client : dask.distributed.Client, optional
        Compute on the client's workers: the sources cut into chunks, each one's sums on a worker's own
        device (its GPU, else its CPU), added there (:mod:`cluster`); ``device`` is where this process
        holds the graph.  ``vertices``, and ``distance=True`` (one Dijkstra per vertex), run here.

    Returns
    -------
    numpy float64 array (n,), or (len(vertices),) in their order
    """
    spla.normalize_kernel(kernel)  # bad options fail at the door, whatever the graph
    check_progress(progress)
    lengths = weighted.check_weight(distance, A, "distance")
    cluster.check_client(client)
    picked = None if vertices is None else _common.vertex_indices(A, vertices, "vertices")
    if is_empty_graph(A):
        return np.zeros(0, dtype=np.float64)
    M = weighted.weighted_matrix(A, device, lengths) if lengths else as_matrix(A, device=device)
    n = M.shape[0]
    xp = M.xp
    if n == 1:
        return np.zeros(1 if picked is None else len(picked), dtype=np.float64)
    if lengths and not M.is_pattern:
        # C(u) = (r(u) - 1) / Σ_v d(v, u)  [· (r(u) - 1) / (n - 1)]    (a Dijkstra from u along A.T)
        return weighted.closeness(M, picked, wf_improved, progress)
    if picked is not None:
        return _closeness_of(M, picked, wf_improved, kernel)
    dist, reach, _ = _sums(client, M, direction="in", kernel=kernel, progress=progress)
    r1 = (reach - 1).astype(np.float64)
    tot = dist.astype(np.float64)
    pos = dist > 0
    # C = (r - 1) / S where S > 0, 0 elsewhere
    c = xp.where(pos, r1 / xp.where(pos, tot, 1.0), 0.0)
    if wf_improved:
        # C *= (r - 1) / (n - 1)
        c = c * (r1 / (n - 1))
    return to_numpy(c)


@on_graph_device
def harmonic_centrality(A, *, sources=None, device=None, kernel="auto", progress=None, distance=None,
                        client=None):
    """Harmonic centrality of every vertex, equal to ``networkx.harmonic_centrality(G)``.

    H(u) = Σ_{v ∈ S, v ≠ u, v reaches u} 1 / d(v, u)   (incoming distances for directed graphs)

    over the sources S: every vertex, or ``sources`` (indices 0..n-1; nodes for a networkx graph;
    repeats count once): ``networkx.harmonic_centrality(G, sources=S)``, whose BFS runs from the
    sources only.  ``distance=True``: weighted distances, one Dijkstra per source, as networkx's
    ``distance=``; a pair at weighted distance 0 adds nothing (networkx skips d == 0).  Other parameters
    as :func:`closeness_centrality`.  Returns a numpy float64 array (n,).
    """
    spla.normalize_kernel(kernel)  # bad options fail at the door, whatever the graph
    check_progress(progress)
    lengths = weighted.check_weight(distance, A, "distance")
    cluster.check_client(client)
    picked = None if sources is None else np.unique(_common.vertex_indices(A, sources, "sources"))
    if is_empty_graph(A):
        return np.zeros(0, dtype=np.float64)
    M = weighted.weighted_matrix(A, device, lengths) if lengths else as_matrix(A, device=device)
    if lengths and not M.is_pattern:
        src = np.arange(M.shape[0], dtype=np.int64) if picked is None else picked
        # H(u) = Σ_{s in S} 1 / d(s, u) over d > 0            (one Dijkstra per source)
        return to_numpy(_weighted_sums(client, M, src, direction="in", progress=progress)[2])
    src = None if picked is None else M.xp.asarray(picked)
    _, _, harm = _sums(client, M, direction="in", harmonic=True, sources=src, kernel=kernel, progress=progress)
    return to_numpy(harm)


def _sums(client, M, *, direction, harmonic=False, sources=None, kernel, progress):
    """:func:`distance_sums` here, or over the client's workers (:func:`cluster.source_sums`, chunks by
    :func:`_chunk`; ``sources`` None: every vertex)."""
    if client is None:
        return distance_sums(M, direction=direction, harmonic=harmonic, sources=sources, kernel=kernel,
                             progress=progress)
    src = np.arange(M.shape[0]) if sources is None else sources
    return cluster.source_sums(client, M, src, _chunk, progress=progress, direction=direction, harmonic=harmonic,
                               kernel=kernel)


def _chunk(M, src, *, direction, harmonic, kernel):
    """The sums (S, r, H) of the sources ``src`` on a Dask worker's copy M of the graph (:mod:`cluster`).
    Direction "out": the compiled searches give the sums of the vertices ``src``, the bit-parallel BFS the
    sums over the targets ``src``; either way the chunks of a partition of the vertices add up to the
    whole."""
    if use_searches(M):
        return _searches(M, direction, harmonic, None, sources=src)
    return distance_sums(M, direction=direction, harmonic=harmonic, sources=M.xp.asarray(src), kernel=kernel)


def _weighted_sums(client, M, src, *, direction, progress):
    """``weighted.distance_sums`` here, or over the client's workers, the arc lengths shipped with the graph."""
    if client is None:
        return weighted.distance_sums(M, src, direction=direction, progress=progress)
    return cluster.source_sums(client, M, src, _weighted_chunk, progress=progress, values=True, direction=direction)


def _weighted_chunk(M, src, *, direction):
    """The weighted sums (S, r, H) of the sources ``src`` on a Dask worker's copy M of the graph (:mod:`cluster`)."""
    return weighted.distance_sums(M, src, direction=direction)


def _closeness_of(M, picked, wf_improved, kernel):
    """C(u) for the vertices ``picked``, each from one BFS over the reversed arcs (incoming distances)."""
    n = M.shape[0]
    out = np.zeros(len(picked), dtype=np.float64)
    for i, u in enumerate(picked):
        # level = hop distances d(v, u) of every v (a BFS from u along A.T)
        level = bfs_levels(M.T, int(u), kernel=kernel)
        reached = level >= 0
        r1 = int(np.count_nonzero(reached)) - 1
        tot = int(level[reached].sum())
        if tot > 0:
            out[i] = r1 / tot * (r1 / (n - 1) if wf_improved else 1.0)
    return out


@on_graph_device
def sum_of_distances(A, *, return_reach=False, device=None, kernel="auto", progress=None, weight=None,
                     client=None):
    """Sum of the hop distances from each vertex to every vertex it reaches ("shortness").

    s(v) = Σ_{t reachable from v} d(v, t)   (outgoing distances; unreachable t are skipped,
    so an isolated vertex has 0).  For an undirected connected graph this is the
    homework seed's shortness centrality (and 1 / closeness · (n - 1)).  Sums of vertices
    that reach different numbers of vertices are not comparable (a vertex of a small
    component has a small sum): ``return_reach`` also returns those numbers.

    Parameters as :func:`closeness_centrality`, and
    return_reach : bool, also return r(v) = |{t : v reaches t}| (v itself included)
    weight : None, False, True or str
        True: weighted distances (A's values the arc lengths; a networkx graph's "weight" attribute, or
        the attribute a string names),
        one Dijkstra per vertex (``weighted``); the sums are then float64.

    Returns
    -------
    numpy int64 array (n,) of s(v) (exact; float64 with ``weight=True``); with ``return_reach``, a pair
    (s, r), r int64 (n,)
    """
    if not isinstance(return_reach, (bool, np.bool_)):
        raise TypeError(f"return_reach must be True or False, got {return_reach!r}")
    spla.normalize_kernel(kernel)  # bad options fail at the door, whatever the graph
    check_progress(progress)
    lengths = weighted.check_weight(weight, A)
    cluster.check_client(client)
    if is_empty_graph(A):
        empty = np.zeros(0, dtype=np.float64 if lengths else np.int64)
        return (empty, np.zeros(0, dtype=np.int64)) if return_reach else empty
    M = weighted.weighted_matrix(A, device, lengths) if lengths else as_matrix(A, device=device)
    if lengths and not M.is_pattern:
        # s(v) = Σ_t d(v, t)                                   (one Dijkstra per source)
        dist, reach, _ = _weighted_sums(client, M, np.arange(M.shape[0], dtype=np.int64), direction="out",
                                        progress=progress)
    else:
        dist, reach, _ = _sums(client, M, direction="out", kernel=kernel, progress=progress)
        if lengths:
            dist = dist.astype(np.float64)
    return (to_numpy(dist), to_numpy(reach)) if return_reach else to_numpy(dist)
