"""Level-structured sparse blocks on the GPU (spla.frontier): one launch per level of push or pull,
a group of lanes per frontier entry (spla/kernels/frontier.cuh).
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ... import tuning as _tuning
from ...matrix import declare_cache
from . import compile as _c
from .compile import BLOCK, log
from .launch import resident_blocks

FRONTIER_SETUP_KEY = declare_cache("frontier_setup", "the frontier kernels' setup for the matrix (out-arc CSC, "
                                                 "kernels, lanes per entry, grid) per queue dtype")


def frontier_group(mean_degree, t=None):
    """Lanes per frontier entry: the power of two at most a quarter of the mean out-degree, in [1, 32]
    (the tuning's frontier_group overrides; ``t``: the spla.tuning.Tuning, None: current).

    A mesh (6 arcs per vertex) gets 1: its entries' few arcs are best walked by one lane each, the
    parallelism coming from the level's many entries.
    """
    t = _tuning.current() if t is None else t
    if t.frontier_group is not None:
        return int(t.frontier_group)
    quarter = max(1.0, float(mean_degree) / 4.0)
    return int(min(32, 1 << int(math.floor(math.log2(quarter)))))


def frontier_setup(A, queue):
    """(out-arc CSC of A, its kernels, lanes per entry, grid) for a queue of A's device.

    The grid is the device's resident blocks: a level's length is known only on the device, and the
    kernels walk it grid-stride.
    """
    out_csc = A.T  # column v of A^T lists the targets w of the arcs v -> w
    t = _tuning.current()
    key = (FRONTIER_SETUP_KEY, np.dtype(queue.dtype).str, t.frontier_group)
    got = A.peek_cached(key)  # one lookup per level on the hot path
    if got is None:
        def build():
            G = frontier_group(out_csc.nnz / max(A.shape[0], 1), t)
            funcs = _c.frontier_module(np.dtype(queue.dtype).str, np.dtype(out_csc.colptr.dtype).str,
                                       queue.device.id)
            return out_csc, funcs, G, resident_blocks(queue.device.id)
        got = A.cached(key, build)
    return got


def frontier_push(A, queue, depth, k, block, start, count, top):
    """value'<¬reached ∪ level == depth+1> += frontier +.first A: one launch, nothing read back."""
    cp = _c.load_cupy()
    with cp.cuda.Device(queue.device.id):
        out_csc, funcs, G, grid = frontier_setup(A, queue)
        funcs["push"]((grid,), (BLOCK,), (out_csc.colptr, out_csc.rowidx, queue, np.uint64(queue.shape[0]),
                                          np.int64(k), np.int32(depth), block, start, count, top, np.int32(G)))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("gpu frontier push: level %d (k=%d, %d lanes per entry, grid %d)", depth, k, G, grid)


def frontier_pull(A, queue, depth, k, block, start, count, out, scale, feed, divide):
    """t<frontier> = 2^-scale ⊙ (A +.second value<level == depth+1>): one launch, nothing read back."""
    cp = _c.load_cupy()
    with cp.cuda.Device(queue.device.id):
        out_csc, funcs, G, grid = frontier_setup(A, queue)
        funcs[("pull", divide, feed)]((grid,), (BLOCK,), (
            out_csc.colptr, out_csc.rowidx, queue, np.int64(k), np.int32(depth), block, out,
            scale if scale is not None else np.uint64(0), start, count, np.int32(G)))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("gpu frontier pull: level %d (k=%d, %d lanes per entry, grid %d)", depth, k, G, grid)
