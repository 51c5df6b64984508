"""DACCER volumes: the degree mass of each vertex's r-neighbourhood.

DACCER (Distributed Assessment of the Closeness CEntrality Ranking; Wehmuth & Ziviani)
ranks vertices by a local "volume"; the CUDACCER seed computes it on the GPU:

    vol_r(v) = Σ_{u : d(v, u) <= r} deg(u)

d(v, u) the hop distance along OUT-arcs (v -> ... -> u), so v itself (d = 0) counts
and vol_0 = deg.  deg is networkx's ``G.degree`` for undirected graphs (a self-loop
counts 2) and ``G.out_degree`` for directed graphs (a self-loop counts 1); a networkx
multigraph's parallel edges count in the degree (not in the distances); a SciPy /
spla.Matrix input has one edge per stored entry (see ``spla.algorithms.degree``).

Algorithm.
* r = 0: the degrees.
* r = 1: vol_1 = deg + A' +.second deg, with A' = A without its diagonal (the
  1-neighbourhood minus v is exactly v's out-neighbours): ONE sparse product.
* r >= 2: bit-parallel BFS over the reversed graph (``spla.algorithms.distances``): the
  vertices u of a block are the bits, and r masked products

      vis_{d+1}<!done> = A bor.second vis_d ,   vis_{d+1} |= vis_d      (mxv: pull from out-neighbours)

  leave bit u set in row v iff d(v, u) <= r, so

      vol_r(v) = Σ_{bits u of row v} deg(u) = weighted_rowsum(vis_r, deg laid out per bit)

  (``spla.bits.weighted_rowsum``).  That replaces CUDACCER's layered neighbour lists
  by r - 1 masked products over (n, W) words per block of
  64·W vertices: level 1 is the block's own arcs scattered into words, no product.
  Memory and block sizing as ``spla.algorithms.distances``.

Needs: a square adjacency; values are ignored.  Returns int64 (exact: the sums are
accumulated in float64, exact below 2**53).
"""

from __future__ import annotations

import numpy as np

import spla
import spla.bits

from ._common import check_progress, on_graph_device, to_numpy
from .degree import degree_parts
from .distances import bit_bfs_blocks, is_empty_graph


@on_graph_device
def daccer_volumes(A, radius=2, *, device=None, kernel="auto", progress=None):
    """DACCER volume of every vertex: vol_r(v) = Σ_{u: d(v, u) <= r} deg(u).

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (a stored A[i, j], even 0, is the arc i -> j) or networkx graph
    radius : int >= 0
    device, kernel : where to run, and the GPU product kernel
    progress : callable(done_vertices, n), optional, called after each block (radius >= 2)

    Returns
    -------
    numpy int64 array (n,)
    """
    if isinstance(radius, bool) or not isinstance(radius, (int, np.integer)) or radius < 0:
        raise ValueError(f"radius must be an integer >= 0, got {radius!r}")
    radius = int(radius)
    spla.normalize_kernel(kernel)  # a bad name fails at the door, whatever the radius
    check_progress(progress)
    if is_empty_graph(A):
        return np.zeros(0, dtype=np.int64)
    M, out, _in, loops = degree_parts(A, device=device)
    deg = out if M.directed else out + loops
    if radius == 0:
        return to_numpy(deg).astype(np.int64)
    if radius == 1:
        return to_numpy(_volume_r1(M, deg, kernel)).astype(np.int64)
    return to_numpy(volumes_bits(M, deg, radius, kernel=kernel, progress=progress))


def _volume_r1(M, deg, kernel):
    """vol_1 = deg + (A without diagonal) +.second deg, int64 on M's device."""
    # P = M<i != j>                (the 1-neighbourhood without v itself; cached on M)
    P = spla.select(M, "offdiag")
    # nb = P +.second deg        (nb[v] = Σ_{u: v -> u, u != v} deg(u); float64, exact below 2**53)
    nb = spla.mxv(P, deg.astype(np.float64), "plus_second", kernel=kernel)
    return deg + M.xp.rint(nb).astype(np.int64)


@on_graph_device
def volumes_bits(M, deg, radius, *, kernel="auto", progress=None):
    """vol_r by the bit-parallel BFS (any radius >= 0), int64 on M's device.

    M: pattern spla.Matrix; deg: int64 (n,) on M's device.
    """
    xp = M.xp
    n = M.shape[0]
    degf = deg.astype(np.float64)

    def run_block(levels, s0, s1, W, pad):
        wts = xp.zeros(64 * W, dtype=np.float64)
        wts[: s1 - s0] = degf[s0:s1]             # weight of bit k = deg(s0 + k); tail bits 0
        vis = None
        prev_count = None
        for d, vis in levels:
            if radius > 2 and d < radius:        # stop early once the neighbourhoods stop growing
                count = int(spla.bits.weighted_rowsum(vis).sum())  # Σ_v popcount(vis_d[v])
                if count == prev_count:
                    break
                prev_count = count
        # part[v] = Σ_{bits u of vis_r[v]} deg(u)
        return spla.bits.weighted_rowsum(vis, wts)

    parts = bit_bfs_blocks(M, run_block, direction="out", max_depth=radius, kernel=kernel, progress=progress)
    vol = xp.zeros(n, dtype=np.float64)
    for part in parts:  # one partial result per vertex block
        vol += part
    return xp.rint(vol).astype(np.int64)
