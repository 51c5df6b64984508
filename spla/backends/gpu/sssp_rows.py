"""The row path of the GPU's weighted distances: a thread block per source, its distances a row of a
(k, n) array in global memory, its frontier in the block's shared memory (two bitmaps, two lists)
(``spla/kernels/sssp_rows.cuh``), for graphs too large for the small path whose bitmaps still fit.

:mod:`spla.backends.gpu.sssp` calls it for a block of k sources (its ``_Block``) whenever
:func:`runs_rows` says so: :func:`row_distances` writes the (k, n) source-major distances that
``shortest_paths`` returns, with no (n, k) array, no entry lists and no device-wide round; the
searches that go on from vertex-major distances (the dependencies, the sums) take its transpose.
A search's rounds end at the thread block's own barrier, and its buckets are the list rounds'
(:func:`spla.backends.gpu.sssp.bucket_width`), so a source's rounds cost a block barrier each, where
the list rounds pay a launch (replayed) and a device-wide hand-off.
"""

from __future__ import annotations

import numpy as np

from ... import tuning as _tuning
from .launch import nullable
from .sssp_small import launch_per_source, shared_per_block

#: the row kernel's static shared memory (the lists' lengths, the far minimum and the warps' minima:
#: 288 bytes, nvcc -Xptxas -v), with room to spare, within the block's
ROWS_STATIC_BYTES = 512
#: vertices each of a row search's two frontier lists holds; a round whose frontier outgrows it scans
#: the frontier's bitmap instead (its words' vertices one after another, so less evenly shared).
#: 1,024 keeps three thread blocks an SM on USA-road-d.NY (264,346 vertices).
ROWS_LIST = 1024
#: threads of a row-path thread block (SPLA_ROWS_THREADS, the kernel's launch bound): a round's
#: frontier on a road network is a few hundred vertices, and 256 threads hold them at the registers
#: that let four blocks share an SM (docs/decisions/tuning.md, sssp_rows)
ROWS_BLOCK = 256


def rows_bytes(n, cap=ROWS_LIST):
    """Shared memory one source's row search takes (SPLA_SSSP_ROWS_BYTES): two frontier bitmaps of
    32-bit words and two lists of ``cap`` 32-bit vertices."""
    return 2 * 4 * (-(-int(n) // 32)) + 2 * 4 * int(cap)


def runs_rows(n, device_id, lanes, t=None):
    """Whether a graph of n vertices runs its distances on the row path: one source's frontier bitmaps
    and lists within the device's shared memory per block, and the tuning's sssp_rows: True, or
    "auto" where ``lanes`` (the lanes per listed entry of :func:`spla.backends.gpu.sssp.entry_lanes`)
    is 1.  A hub's arcs walked by a few lanes of one thread block hold up its source's every round:
    on Graph500's scale-16 graph the row path is slower than the list rounds, on USA-road-d.NY
    faster (docs/decisions/tuning.md, sssp_rows)."""
    t = _tuning.current() if t is None else t
    if t.sssp_rows is False or (t.sssp_rows == "auto" and lanes != 1):
        return False
    return 0 < n < 2 ** 31 and rows_bytes(n) <= shared_per_block(device_id) - ROWS_STATIC_BYTES


def row_distances(B, width, out=None, rounds=None):
    """dist (k, n) float64 of the block's sources, row i for source i (``out``, C-contiguous (k, n),
    when given), from spla_sssp_rows with bucket width ``width`` (inf: Bellman-Ford); ``rounds`` (k,)
    int32, when given, receives the rounds each source took."""
    cp = B.cp
    dist = cp.empty((B.k, B.n), dtype=np.float64) if out is None else out
    # dist(s, ·) = d of the min.plus closure from s     (a thread block per source, its row in global memory)
    launch_per_source(B, "rows", rows_bytes(B.n), ROWS_BLOCK,
                      (B.S.ocolptr, B.S.orowidx, B.S.olen, B.src_dev, np.int64(B.k), np.int32(B.n), np.int32(B.G),
                       np.float64(width), np.int32(ROWS_LIST), dist, nullable(rounds)))
    B.stats = {"rounds": None, "epochs": None, "listed": None}
    return dist
