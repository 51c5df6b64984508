"""Bit words on the GPU: elementwise popcount and the per-row weighted bit count of an (n, W) block
(spla/kernels/bits.cuh), for spla.bits.
"""

from __future__ import annotations

import logging

import numpy as np

from ... import tuning as _tuning
from ...errors import DomainMismatch
from . import compile as _c
from .compile import BLOCK, log
from .launch import blocks_for


def popcount(X):
    """Elementwise popcount of a cupy integer (or bool) array, any shape -> int32, same shape.

    uint64/int64 use ``__popcll``, 32-bit types ``__popc``; narrower types are widened by their
    unsigned bit pattern first (so a negative int8 counts its 8 bits, not 32).
    """
    cp = _c.load_cupy()
    if not isinstance(X, cp.ndarray):  # cupy.asarray would copy a CuPy array of another GPU to the current one
        X = cp.asarray(X)
    dt = np.dtype(X.dtype)
    if dt.kind not in "biu":
        raise DomainMismatch(f"popcount needs an integer array, got dtype {dt}")
    with cp.cuda.Device(X.device.id):
        if dt.itemsize < 4:
            X = (X.view(np.dtype(f"u{dt.itemsize}")) if dt.kind != "b" else X).astype(np.uint32)
        return _c.popcount_kernel()(X)


def weighted_rowsum(X, weights=None):
    """Per-row weighted bit count of a block of bit words.

    X        cupy (n, W) uint64 (made C-contiguous)
    weights  cupy (64*W,) float64, or None
    Returns  (n,) float64: out[v] = sum_{w, b} bit_b(X[v, w]) * weights[64*w + b];
             (n,) int64 row popcounts when weights is None.
    One group of G = min(32, next power of two >= W) lanes per row (see spla/kernels/bits.cuh).
    """
    cp = _c.load_cupy()
    if X.ndim != 2 or X.dtype != np.uint64:
        raise DomainMismatch(f"weighted_rowsum needs a 2-D uint64 array, got {X.dtype} of shape {X.shape}")
    n, W = (int(s) for s in X.shape)
    weighted = weights is not None
    with cp.cuda.Device(X.device.id):
        X = cp.ascontiguousarray(X)
        if weighted:
            weights = cp.ascontiguousarray(weights, dtype=np.float64)
            if weights.shape != (64 * W,):
                raise ValueError(f"weights must have shape ({64 * W},), got {weights.shape}")
            res = cp.zeros(n, dtype=np.float64)
        else:
            res = cp.zeros(n, dtype=np.int64)
        if n == 0 or W == 0:
            return res
        G = int(min(32, 1 << (W - 1).bit_length()))
        grid = blocks_for(n * G, _tuning.current().max_blocks)
        fn = _c.bits_module(X.device.id)[weighted]
        wts = weights if weighted else X  # unused placeholder pointer when not weighted
        fn((grid,), (BLOCK,), (X, wts, res if weighted else X, X if weighted else res, np.int64(n), np.int64(W),
                               np.int32(G)))
        if log.isEnabledFor(logging.DEBUG):
            log.debug("gpu weighted_rowsum: n=%d W=%d weighted=%s grid=%d block=%d group=%d",
                      n, W, weighted, grid, BLOCK, G)
        return res
