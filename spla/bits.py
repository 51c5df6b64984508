"""Bit-word helpers for bit-parallel BFS (64 sources per uint64 word).

A block of BFS states is an (n, W) uint64 array: bit b of word w in row v belongs to
source 64*w + b of the block.  Products over such blocks use the ``bor_first``
semiring; these reductions turn the words back into per-vertex numbers.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from .backends import for_device
from .errors import DimensionMismatch, DomainMismatch


def _backend(x):
    return for_device(_dev.array_device(x))


def popcount(X):
    """Number of set bits of each element of an integer array X (any shape) -> int32, same shape."""
    _dev.array_device(X)  # a NumPy or CuPy array, else a TypeError that says so
    if np.dtype(X.dtype).kind not in "iu":
        raise DomainMismatch(f"popcount needs an integer array, got dtype {X.dtype}")
    return _backend(X).popcount(X)


def weighted_rowsum(X, weights=None):
    """Per-row weighted bit count of an (n, W) uint64 block.

    out[v] = Σ_{w, b} bit_b(X[v, w]) · weights[64·w + b]   -> (n,) float64,
    or the plain count Σ_w popcount(X[v, w]) -> (n,) int64 when ``weights`` is None.
    ``weights``: (64·W,) real array on X's device (computed in float64).  Only set bits add
    their weight, so an infinite weight of an unset bit contributes nothing (no 0·inf).
    """
    _dev.array_device(X)  # a NumPy or CuPy array, else a TypeError that says so
    if weights is not None:
        _dev.array_device(weights)
    if X.ndim != 2 or X.dtype != np.uint64:
        raise DomainMismatch(f"weighted_rowsum needs a 2-D uint64 array, got {X.dtype} of shape {X.shape}")
    if weights is not None:
        if weights.shape != (64 * X.shape[1],):
            raise DimensionMismatch(f"weights must have shape ({64 * X.shape[1]},) for {X.shape[1]} words, "
                                    f"got {weights.shape}")
        _dev.check_same_device("weights", weights, _dev.array_device(X))
        if weights.dtype.kind not in "biuf":
            raise DomainMismatch(f"weights must be real numbers, got dtype {weights.dtype}")
    return _backend(X).weighted_rowsum(X, weights)
