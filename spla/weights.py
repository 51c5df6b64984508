"""Arc lengths for the weighted path measures: the check every weighted search makes at the door.

A weighted shortest-path measure reads a matrix's stored values as arc lengths: arc i -> j has
length A[i, j].  The searches need lengths that are non-negative and finite (Dijkstra's and the
min-plus relaxations' premise): a negative length, NaN or inf is refused before any work, naming
the first such arc.  A pattern-only matrix has every length 1, so its weighted measures equal the
unweighted ones.  Parallel arcs are merged when a matrix is built; for path measures build it with
``dup="min"`` (``Matrix.from_edges``) so that a pair keeps its shortest arc.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from .errors import InvalidGraph
from .matrix import Matrix, declare_cache

__all__ = ["check_lengths", "transpose_lengths"]

#: a matrix's lengths once checked: every weighted call of the matrix checks at the door, and the
#: format arrays are fixed for its life, so the check (a pass over the values and a device sync on a
#: GPU) runs once
CHECKED_KEY = declare_cache("checked_lengths", "the matrix's values as float64 arc lengths, checked non-negative "
                                               "and finite (spla.weights.check_lengths)")


def check_lengths(A: Matrix, what: str = "weighted shortest paths"):
    """A's arc lengths as a float64 array in A's CSC order on A's device, or None when A is pattern-only
    (every length 1).  Checked once per matrix (kept in its cache); a matrix that fails is checked,
    and refused, again at each call.

    Raises InvalidGraph naming the first arc (tail -> head, in CSC order) whose length is negative,
    NaN or infinite; bool values are refused too (a length must be a number)."""
    if not isinstance(A, Matrix):
        raise TypeError(f"A must be a spla.Matrix, got {type(A).__name__}")
    if A.values is None:
        return None
    if A.values.dtype == np.bool_:
        raise InvalidGraph(f"{what} read the matrix values as arc lengths, but they are bool; build the matrix "
                           "with numeric weights, or use the unweighted measure")
    return A.cached(CHECKED_KEY, lambda: _checked(A, what))


def transpose_lengths(A: Matrix, At: Matrix):
    """At's arc lengths, where At is A.T: the values of A permuted, so A's check covers them and At's
    are kept in At's cache without a second pass.  None when A is pattern-only."""
    if check_lengths(A) is None:
        return None
    if At.shape != A.shape[::-1] or At.nnz != A.nnz or At.values is None:
        raise ValueError("transpose_lengths needs At = A.T")
    return At.cached(CHECKED_KEY, lambda: At.values.astype(np.float64, copy=False))


def _checked(A: Matrix, what: str):
    """A's values as float64, after refusing a negative, NaN or infinite one (see check_lengths)."""
    xp = A.xp
    w = A.values.astype(np.float64, copy=False)
    bad = ~(xp.isfinite(w) & (w >= 0))
    if bool(bad.any()):
        p = int(xp.argmax(bad))
        colptr = _dev.to_numpy(A.colptr)
        head = int(np.searchsorted(colptr, p, side="right") - 1)
        tail = int(A.rowidx[p])
        count = int(bad.sum())
        raise InvalidGraph(f"{what} need non-negative finite arc lengths, but arc {tail} -> {head} has length "
                           f"{A.values[p].item()!r}" + (f" ({count:,} arcs in all are negative, NaN or inf)"
                                                         if count > 1 else "")
                           + "; drop or fix those arcs, or run the unweighted measure")
    return w
