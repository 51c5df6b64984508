"""Eccentricity and blocks of hop distances, from the bit-parallel BFS of :mod:`distances`.

d(v, t) is the hop distance along arcs (arc i -> j is a stored A[i, j]; values, multi-edges and
self-loops do not change it).

``eccentricity`` (networkx.eccentricity, over OUTGOING distances as networkx computes it)::

    ecc(v) = max_{t : v reaches t} d(v, t)        (0 for a vertex that reaches nothing else)
    r(v)   = |{t : v reaches t}|                  (v itself included)

networkx defines ecc(v) only where r(v) = n (it raises otherwise); diameter = max ecc and
radius = min ecc over a (strongly) connected graph.

``hop_distance_blocks`` yields the distances d(s, t) of 64 sources at a time, as (n, 64) blocks.

Algorithm.  The all-sources BFS of :mod:`distances` over out-neighbours (direction "out": row v of
vis_d holds the block's vertices t with d(v, t) <= d); with c_d(v) = popcount(row v of vis_d),
ecc(v) is the last level d at which c_d(v) grows, in any block, and r(v) = Σ_blocks c_last(v):
per-row reductions only.  For the distances of given sources the BFS runs over in-neighbours
(row t of vis_d holds the sources s with d(s, t) <= d) and each level's new bits,
vis_d & ~vis_{d-1}, are unpacked into the block: D[t, j] = d where bit j of row t is new.

For a few vertices' eccentricity (``vertices``), one BFS each (``bfs_levels``) reads every arc once
per level, as one word of the bit-parallel BFS does for 64 vertices: fewer vertices than the
ceil(n / 64) words of the all-sources BFS cost fewer arc reads one at a time.

Needs: a square adjacency (spla.Matrix, SciPy sparse, or networkx graph); any values.
"""

from __future__ import annotations

import sys

import numpy as np

import spla
import spla.bits
from spla.device import any_true

from . import _common
from ._common import as_matrix, check_progress, on_graph_device, to_numpy
from .bfs import bfs_levels
from .distances import bit_bfs_blocks, is_empty_graph


@on_graph_device
def eccentricity(A, *, vertices=None, return_reach=False, device=None, kernel="auto", progress=None):
    """Eccentricity of every vertex (or of ``vertices``), over outgoing hop distances.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    vertices : sequence of vertices, optional: only these (indices 0..n-1; nodes for a networkx graph)
    return_reach : bool, also return r(v), the number of vertices v reaches (v included): ecc(v) is
        networkx's eccentricity where r(v) = n
    device, kernel : where to run, and the GPU product kernel
    progress : callable(done, total), optional, called after each source block of the all-sources BFS

    Returns
    -------
    numpy int64 array (n,) (or (len(vertices),), in their order); with ``return_reach`` a pair (ecc, r)
    """
    if not isinstance(return_reach, (bool, np.bool_)):
        raise TypeError(f"return_reach must be True or False, got {return_reach!r}")
    spla.normalize_kernel(kernel)
    check_progress(progress)
    picked = None if vertices is None else _common.vertex_indices(A, vertices, "vertices")
    if is_empty_graph(A):
        empty = np.zeros(0, dtype=np.int64)
        return (empty, empty.copy()) if return_reach else empty
    M = as_matrix(A, device=device)
    n = M.shape[0]
    if picked is not None and 64 * len(picked) < n:
        ecc = np.zeros(len(picked), dtype=np.int64)
        reach = np.zeros(len(picked), dtype=np.int64)
        for i, v in enumerate(picked):
            # level = d(v, t) for every t (a BFS from v along out-arcs)
            level = bfs_levels(M, int(v), kernel=kernel)
            ecc[i] = int(level.max())
            reach[i] = int(np.count_nonzero(level >= 0))
    else:
        ecc, reach = _all_eccentricities(M, kernel, progress)
        if picked is not None:
            ecc, reach = ecc[picked], reach[picked]
    return (ecc, reach) if return_reach else ecc


def _all_eccentricities(M, kernel, progress):
    """(ecc, r) of every vertex from the all-sources BFS over out-neighbours, on the host."""
    n = M.shape[0]
    xp = M.xp

    def run_block(levels, s0, s1, W, pad):
        ecc = xp.zeros(n, dtype=np.int64)
        prev = None
        for d, vis in levels:
            c = spla.bits.weighted_rowsum(vis)   # c_d(v) = the block's vertices within distance d of v
            if prev is not None:
                grew = c != prev
                if not any_true(grew):
                    break                        # no row grew: every BFS of the block is over
                # ecc<grew> = d
                ecc[grew] = d
            prev = c
        return ecc, prev - pad

    ecc = xp.zeros(n, dtype=np.int64)
    reach = xp.zeros(n, dtype=np.int64)
    for epart, rpart in bit_bfs_blocks(M, run_block, direction="out", kernel=kernel, progress=progress):
        # ecc = max(ecc, ecc_block);  r += r_block
        xp.maximum(ecc, epart, out=ecc)
        reach += rpart
    return to_numpy(ecc), to_numpy(reach)


@on_graph_device
def hop_distance_blocks(A, sources=None, *, cutoff=None, device=None, kernel="auto"):
    """The hop distances from ``sources`` (every vertex when None), 64 sources at a time.

    A generator of ``(block, D)``: ``block`` the int64 array of the block's sources (vertex indices,
    in the order given; nodes of a networkx graph are taken as ``list(G)`` positions), ``D`` a host
    int32 array (n, len(block)) with D[t, j] = d(block[j], t), -1 where block[j] does not reach t
    (or only beyond ``cutoff`` levels).  Each block is one bit-parallel BFS of one word; nothing is
    computed before the consumer asks for the block.
    """
    if cutoff is not None and (isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (int, np.integer))):
        raise TypeError(f"cutoff must be None or an integer number of levels, got {cutoff!r}")
    spla.normalize_kernel(kernel)
    src = None if sources is None else _common.vertex_indices(A, sources, "sources")
    if is_empty_graph(A):
        return
    M = as_matrix(A, device=device)
    n = M.shape[0]
    if src is None:
        src = np.arange(n, dtype=np.int64)
    xp = M.xp
    for lo in range(0, len(src), 64):
        block = src[lo:lo + 64]
        m = len(block)

        def run_block(levels, s0, s1, W, pad, m=m):
            D = xp.full((n, m), -1, dtype=np.int32)
            prev = None
            for d, vis in levels:
                new = vis if prev is None else vis & ~prev   # the bits first set at level d
                if prev is not None and not any_true(new != 0):
                    break
                hit = _unpack(new, xp)[:, :m]
                # D<hit> = d
                D[hit] = d
                prev = vis.copy()
            return to_numpy(D)

        unique = np.unique(block)
        if len(unique) == m:
            parts = bit_bfs_blocks(M, run_block, sources=xp.asarray(block), direction="in", max_depth=cutoff,
                                   kernel=kernel)
            yield block, parts[0]
        else:  # a repeated source: its column is the first one's
            parts = bit_bfs_blocks(M, lambda *a: run_block(*a, m=len(unique)), sources=xp.asarray(unique),
                                   direction="in", max_depth=cutoff, kernel=kernel)
            yield block, parts[0][:, np.searchsorted(unique, block)]


def _unpack(words, xp):
    """(n, W) uint64 -> (n, 64·W) bool: bit b of word w at column 64·w + b."""
    if sys.byteorder != "little" and xp is np:
        words = words.byteswap()  # the bytes of each word least significant first, as on the GPU
    u8 = words.view(np.uint8)                                    # byte j of a word holds its bits 8j..8j+7
    bits = (u8[:, :, None] >> xp.arange(8, dtype=np.uint8)) & 1  # (n, 8·W, 8)
    return bits.reshape(words.shape[0], -1).astype(np.bool_)
