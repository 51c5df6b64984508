"""The transpose of a matrix's CSC arrays, computed on the device that holds them.

Definition.  Aᵀ's CSC arrays are A's CSR arrays: column i of Aᵀ lists the columns j of A's row i, in
increasing j.  Each stored entry (i, j) of an (r, c) matrix A gets the key ``i * c + j``; a canonical
CSC holds no duplicate, so the keys are distinct, and sorted they list Aᵀ's entries in Aᵀ's CSC
order, each one's row index in Aᵀ being ``key mod c``.  Aᵀ's column pointers are the running sum of
A's row counts (its out-degrees).

The work is one sort of m int64 keys (a sort of the keys with their order when the entries carry
values), on whichever array module holds the arrays: a GPU matrix's transpose never goes through the
host.  :func:`device_bytes` counts what it allocates at its peak, which :meth:`spla.Matrix.T`
checks against the device's free memory before it chooses this path over the host's (SciPy, which
transposes by counting and needs no sort).
"""

from __future__ import annotations

import numpy as np

#: device bytes per stored entry at the peak, beyond the result's: its column (at most 8), its int64
#: key, the sorted keys' order (int64) and the sort's scratch (about two words)
PEAK_BYTES_PER_ENTRY = 8 + 8 + 8 + 16


def fits_keys(shape) -> bool:
    """Whether every key ``i * ncols + j`` of an ``shape`` matrix fits in int64."""
    r, c = (int(x) for x in shape)
    return r * c < np.iinfo(np.int64).max


def device_bytes(shape, nnz: int, index_itemsize: int, value_itemsize: int) -> int:
    """Bytes :func:`csc_of_transpose` allocates at its peak for a ``shape`` matrix of ``nnz`` entries:
    the sort's (PEAK_BYTES_PER_ENTRY a stored entry) and the transpose's own arrays (shape[0] + 1
    pointers, nnz row indices and values)."""
    r = int(shape[0])
    return int(nnz) * (PEAK_BYTES_PER_ENTRY + index_itemsize + value_itemsize) + (r + 1) * index_itemsize


def entry_columns(xp, colptr, nnz: int):
    """The column of every stored entry of a CSC matrix (its COOC column index), in ``colptr``'s dtype:
    one mark per column start and a running sum (an empty column's start coincides with the next's)."""
    if xp is np:
        return np.repeat(np.arange(colptr.shape[0] - 1, dtype=colptr.dtype), np.diff(colptr).astype(np.int64))
    starts = colptr[1:-1]
    marks = xp.zeros(nnz, dtype=colptr.dtype)
    xp.add.at(marks, starts[starts < nnz], 1)
    return xp.cumsum(marks, dtype=colptr.dtype)


def csc_of_transpose(xp, colptr, rowidx, values, shape, row_counts):
    """(colptr, rowidx, values) of Aᵀ, in A's index dtype, from A's canonical CSC arrays on the array
    module ``xp`` (NumPy or CuPy, with its device current); ``row_counts``: A's stored entries per row
    (int64, length ``shape[0]``); ``values`` None for a pattern-only A (None is returned)."""
    r, c = (int(x) for x in shape)
    idx = colptr.dtype
    nnz = int(rowidx.shape[0])
    ptr = xp.zeros(r + 1, dtype=idx)
    if r:
        ptr[1:] = xp.cumsum(row_counts)
    if nnz == 0:
        return ptr, xp.zeros(0, dtype=idx), None if values is None else values[:0].copy()
    cols = entry_columns(xp, colptr, nnz)
    # key(i, j) = i * c + j: Aᵀ's CSC order is the order of the keys
    keys = rowidx.astype(np.int64)
    keys *= c
    keys += cols
    if values is None:
        del cols
        keys.sort()
        return ptr, (keys % c).astype(idx), None
    order = xp.argsort(keys)
    del keys
    return ptr, cols[order], values[order]
