"""Operations on a matrix's stored entries, by their position: structural selection and arc-wise apply.

    C = select(A, "offdiag")       C(i, j) = A(i, j) for the stored entries with i != j
    apply_arcs(A, fn, out)         out(p) += fn(tails, heads) for every stored entry p = (i, j) of A

Both treat an entry by where it is stored, never by its value: a stored 0 or False is an entry (an
arc of the graph) like any other.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import tuning as _tuning
from .errors import UnknownNameError
from .matrix import Matrix, declare_cache

__all__ = ["select", "apply_arcs", "SELECTORS"]

_SELECT = declare_cache("select", "the matrix's entries kept by spla.select(A, which), by selector")

#: the selectors of :func:`select`: name -> which stored entries (i, j) it keeps
SELECTORS = {"offdiag": "the entries off the diagonal, i != j (a graph without its self-loops)"}



def select(A: Matrix, which: str) -> Matrix:
    """The matrix of A's stored entries that the selector ``which`` keeps (:data:`SELECTORS`).

    Values, pattern-only storage, direction, symmetry and device are A's; an entry's value plays no
    part (a stored 0 or False off the diagonal stays).  Returns A itself when the selector keeps every
    entry.  Cached on A (key ``("select", which)``): a second call returns the same object.
    """
    if not isinstance(A, Matrix):
        raise TypeError(f"spla.select takes a spla.Matrix, got {type(A).__name__}")
    if which not in SELECTORS:
        raise UnknownNameError(f"unknown selector {which!r}; the selectors are {', '.join(sorted(SELECTORS))}")
    return A.cached((_SELECT, which), lambda: _offdiag(A))


def _offdiag(A: Matrix) -> Matrix:
    """C = A<i != j>: the stored diagonal entries dropped, on the host, once."""
    C = A.to_scipy(keep_dtype=True).tocoo()
    off = C.row != C.col
    if off.all():
        return A
    S = sp.csc_array((C.data[off], (C.row[off], C.col[off])), shape=C.shape)
    S.sort_indices()
    # dropping the diagonal keeps a symmetric matrix symmetric
    return Matrix._from_sorted_csc(S, pattern=A.is_pattern, directed=A.directed, device=A.device,
                                   symmetric=A.is_symmetric)


def apply_arcs(A: Matrix, fn, out, *, width: int = 1):
    """``out[p] += fn(tail, head)`` for the stored entries p = (i, j) of A, a chunk of entries at a time.

    ``tail(x)`` gathers a per-vertex array x ((n, ...) on A's device) at the chunk's row indices i,
    ``head(x)`` at its column indices j; fn combines the gathered arrays into one value per entry of
    the chunk (shape (chunk,)).  ``out`` is (nnz,) on A's device, in A's CSC entry order, and is
    returned.  ``width``: columns of the widest array fn gathers or makes; a chunk holds
    ``arc_chunk_elements // width`` entries (a field of :mod:`spla.tuning`), which bounds fn's temporaries.  The chunks follow the CSC
    order, one after another.
    """
    if not isinstance(A, Matrix):
        raise TypeError(f"spla.apply_arcs takes a spla.Matrix, got {type(A).__name__}")
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"width must be a positive integer, got {width!r}")
    if getattr(out, "shape", None) != (A.nnz,):
        raise ValueError(f"out must be an array of shape ({A.nnz},), one value per stored entry, "
                         f"got {getattr(out, 'shape', type(out).__name__)}")
    if A.nnz == 0:
        return out
    step = max(1, _tuning.current().arc_chunk_elements // int(width))
    rows, cols = A.rowidx, A.colidx
    for lo in range(0, A.nnz, step):
        i = rows[lo:lo + step]
        j = cols[lo:lo + step]
        out[lo:lo + step] += fn(lambda x: x[i], lambda x: x[j])
    return out
