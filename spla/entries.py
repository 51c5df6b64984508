"""Operations on a matrix's stored entries, by their position: structural selection and arc-wise apply.

    C = select(A, "offdiag")       C(i, j) = A(i, j) for the stored entries with i != j
    C = select(A, "tril", -1)      the strict lower triangle; every selector in SELECTORS
    apply_arcs(A, fn, out)         out(p) += fn(tails, heads) for every stored entry p = (i, j) of A

Both treat a stored 0 or False as an entry (an arc of the graph) like any other; only the value
selectors (gt, ge, ...) read values.
"""

from __future__ import annotations

import numpy as np

from . import tuning as _tuning
from .errors import UnknownNameError
from .matrix import Matrix, declare_cache
from .matrixops import SELECTORS, STRUCTURAL_SELECTORS, select_entries

__all__ = ["select", "apply_arcs", "SELECTORS"]

_SELECT = declare_cache("select", "the matrix's entries kept by spla.select(A, which[, thunk]), by selector")


def select(A: Matrix, which: str, thunk=None, *, mask=None, complement=False, structural=True, accum=None,
           out=None, replace=False) -> Matrix:
    """C<M> = accum(C, select(A)): the matrix of A's stored entries that the selector ``which`` keeps
    (:data:`SELECTORS`: offdiag, diag, tril, triu, rows, cols by position; gt, ge, lt, le, eq, ne by
    value against ``thunk``).

    Without mask, accum and out, values, pattern-only storage, direction, device (and symmetry, for
    the selectors that keep it) are A's; a structural selection then returns A itself when it keeps
    every entry, and is cached on A (key ``("select", which)``, or ``("select", which, repr(thunk))``
    with a thunk): a second call returns the same object.  The mask and merge arguments are those of
    :mod:`spla.masks`; with them the result is a directed matrix with values.
    """
    if not isinstance(A, Matrix):
        raise TypeError(f"spla.select takes a spla.Matrix, got {type(A).__name__}")
    if not isinstance(which, str) or which not in SELECTORS:
        raise UnknownNameError(f"unknown selector {which!r}; the selectors are {', '.join(sorted(SELECTORS))}")
    plain = mask is None and accum is None and out is None and not complement and structural and not replace
    if not plain or which not in STRUCTURAL_SELECTORS:
        return select_entries(A, which, thunk, mask=mask, complement=complement, structural=structural,
                              accum=accum, out=out, replace=replace)
    key = (_SELECT, which) if thunk is None else (_SELECT, which, repr(thunk))

    def build():
        C = select_entries(A, which, thunk)
        return A if C.nnz == A.nnz else C

    return A.cached(key, build)


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
