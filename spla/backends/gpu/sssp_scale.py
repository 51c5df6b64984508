"""σ beyond float64's range in the GPU's weighted Brandes sums (:mod:`spla.backends.gpu.sssp`):
rescaling by powers of two.

When a sweep of Kahn's levels finds a level whose largest σ passes RESCALE_ABOVE = 2^512, every
source whose open counts (partial sums, the next level) pass RESCALE_TO = 2^256 has them multiplied
by 2^-e into [0.5, 1), exactly (:func:`rescale`); an entry's σ is then sigma · 2^scale, scale the
exponents of the rescales at or above its level (:func:`scale_of`).  A source whose counts span more
than float64's exponents is refused (:func:`check_sigma`).
"""

from __future__ import annotations

import numpy as np

from ...device import any_true, to_numpy
from ...errors import KernelUnavailable

#: a sweep of Kahn's levels whose largest σ passes RESCALE_ABOVE rescales every source whose open σ
#: (partial sums and the next level) pass RESCALE_TO into [0.5, 1) (float64 reaches 2^1024)
RESCALE_ABOVE = 2.0 ** 512
RESCALE_TO = 2.0 ** 256


def rescale(cp, sigma, dag, queue, lo, count):
    """σ of the entries still open (partial sums: dag > 0; the level about to be swept, queue[lo : lo +
    count]) times 2^-e(s), per source s whose open σ exceed RESCALE_TO, into [0.5, 1): e (k,) int32,
    or None when no source needed it."""
    open_ = dag > 0
    open_.reshape(-1)[queue[lo:lo + count]] = True
    top = to_numpy(cp.where(open_, sigma, 0.0).max(axis=0))
    e = np.where(top > RESCALE_TO, np.frexp(top)[1], 0).astype(np.int32)
    if not e.any():
        return None
    # σ<open> = σ · 2^-e                                                     (per source)
    sigma[...] = cp.where(open_, cp.ldexp(sigma, cp.asarray(-e)[None, :]), sigma)
    return e


def scale_of(cp, B, queue, start, levels, depth, events):
    """scale (n, k) int32: Σ of the exponents of the rescales at or above each entry's level (None
    when there were none)."""
    if not events:
        return None
    counts = to_numpy(levels[:depth + 1]).astype(np.int64)
    total = int(counts.sum())
    firsts = cp.asarray(np.cumsum(counts) - counts)  # the levels lie one after another in the queue
    level = cp.full(max(B.size, 1), -1, dtype=np.int32)
    level[queue[:total]] = (cp.searchsorted(firsts, cp.arange(total), side="right") - 1).astype(np.int32)
    level = level[:B.size].reshape(B.n, B.k)
    scale = cp.zeros((B.n, B.k), dtype=np.int32)
    for first, e in events:
        scale += cp.where(level >= first, cp.asarray(e)[None, :], 0).astype(np.int32)
    return scale


def check_sigma(sigma, dist, scale):
    """Refuse a block whose scaled σ left float64's normal range (inf, or below 2^-1022 at a reached
    entry: a source whose counts span more than float64's exponents)."""
    tiny = np.finfo(np.float64).tiny
    if any_true(sigma == np.inf) or (scale is not None and any_true((sigma < tiny) & (dist != np.inf))):
        raise KernelUnavailable(
            "the GPU's weighted dependencies hold each source's shortest-path counts in float64 scaled by one "
            "power of two per level, and here the counts of one source span more than float64's exponents: "
            "run them on device='cpu'")
