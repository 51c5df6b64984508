"""Symmetry of a canonical SciPy CSC matrix: the test behind ``directed=None``/``False`` of the
Matrix constructors, and the pattern union that ``directed=False`` makes of an unsymmetric matrix."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .errors import InvalidGraph


def orientation(S, directed):
    """(S, directed, symmetric) for a canonical CSC S and the ``directed`` argument of the
    constructors: None decides by symmetry; False symmetrises an unsymmetric S (square only)."""
    square = S.shape[0] == S.shape[1]
    if directed is None:
        symmetric = square and _is_symmetric(S)
        return S, not symmetric, symmetric
    if directed:
        return S, True, False
    if not square:
        raise InvalidGraph(f"an undirected graph needs a square matrix, got shape {S.shape}")
    if not _is_symmetric(S):
        S = _symmetrize(S)
    return S, False, True


def _same_values(a, b):
    """Elementwise: a[i] and b[i] are the same stored value (NaN is the same as NaN: a weight
    of NaN stored both ways is a symmetric entry, whatever the products then make of it)."""
    same = a == b
    if a.dtype.kind == "f":
        same |= np.isnan(a) & np.isnan(b)
    return same


def _is_symmetric(S) -> bool:
    """Whether the canonical (sorted, duplicate-free) CSC S equals its transpose, pattern and values:
    one transpose and three array comparisons, no difference matrix."""
    if S.shape[0] != S.shape[1]:
        return False
    T = S.T.tocsc()
    T.sort_indices()
    return (np.array_equal(S.indptr, T.indptr) and np.array_equal(S.indices, T.indices)
            and bool(np.all(_same_values(S.data, T.data))))


def _symmetrize(S):
    """Pattern union of the canonical CSC S and S.T, for directed=False on an unsymmetric matrix.

    An entry stored in one direction only is mirrored with its value, explicitly stored zeros
    included (they are arcs).  Where both directions are stored with different values there is
    no right answer to choose silently: InvalidGraph.
    """
    T = S.T.tocsc()
    T.sort_indices()
    n = S.shape[0]

    def keys(M):  # column-major position of every entry, ascending for a canonical CSC
        cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(M.indptr).astype(np.int64))
        return cols * n + M.indices.astype(np.int64)

    key = np.concatenate([keys(S), keys(T)])
    data = np.concatenate([S.data, T.data])
    order = np.argsort(key, kind="stable")
    key, data = key[order], data[order]
    twice = np.flatnonzero(key[1:] == key[:-1])
    if twice.size and not np.all(_same_values(data[twice], data[twice + 1])):
        raise InvalidGraph("directed=False, but the matrix stores (i, j) and (j, i) with different values; "
                           "symmetrise it yourself (e.g. S.maximum(S.T) or S + S.T) or pass directed=True")
    first = np.ones(key.shape[0], dtype=bool)
    first[twice + 1] = False
    key, data = key[first], data[first]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // n, minlength=n), out=indptr[1:])
    return sp.csc_array((data, key % n, indptr), shape=S.shape)
