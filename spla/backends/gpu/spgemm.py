"""The GPU backend's SpGEMM: ``T = A ⊕.⊗ B`` restricted by a mask, as dot products on the device.

Every semiring runs the one kernel ``spla_spgemm_dot`` (``spla/kernels/spgemm.cuh``: a group of 1 to
32 lanes per listed (i, j), :func:`group_size`, intersecting row i of A with column j of B) over a
list of candidate entries:

* with a mask (not complemented): the mask's allowed entries; those with no common k are dropped;
* without a mask, or with its complement: the structure of the product, from cuSPARSE's product of
  the two patterns as float64 ones (counts of paths, never 0, so no entry is dropped), less the
  mask's entries for a complement.  cuSPARSE's indices are int32: a product with more than
  ``CUSPARSE_MAX`` partial products (or larger inputs) is refused with ``KernelUnavailable``.

A's rows are read from the CSC arrays of its cached transpose.  The result is returned as sorted
keys ``j * nrows + i`` and values, the CSC order of T.
"""

from __future__ import annotations

import functools

import numpy as np

from ...errors import KernelUnavailable
from ...matrix import index_dtype
from .compile import ADD_FUNCTORS, BLOCK, C_TYPES, INDEX_TYPES, MUL_FUNCTORS, NVRTC_OPTIONS, SPGEMM_SOURCE
from .compile import USER_PREFIX, functor_keys, load_cupy, load_function, source, supports, user_code
from .launch import blocks_for, resident_threads

__all__ = ["mxm", "spgemm_name", "SPGEMM_SOURCE"]


#: lanes per listed entry the kernel is instantiated for
GROUP_SIZES = (1, 2, 4, 8, 16, 32)

#: the largest index, entry count and partial-product count cuSPARSE's int32 structure step holds
CUSPARSE_MAX = 2 ** 31 - 1


def spgemm_name(add, mul, dtype, index_dtype_, a_pattern, b_pattern, group=32):
    """The NVRTC name expression of ``spla_spgemm_dot`` for one (ADD, MUL, T, I, A pattern, B pattern,
    lanes per entry); ``add``/``mul`` as :func:`~.compile.functor_keys` gives them."""
    a = add if add.startswith(USER_PREFIX) else ADD_FUNCTORS[add][0]
    m = mul if mul.startswith(USER_PREFIX) else MUL_FUNCTORS[mul][0]
    return (f"spla_spgemm_dot<{a}, {m}, {C_TYPES[np.dtype(dtype)]}, "
            f"{INDEX_TYPES[np.dtype(index_dtype_)]}, {'true' if a_pattern else 'false'}, "
            f"{'true' if b_pattern else 'false'}, {int(group)}>")


def group_size(A, B):
    """Lanes per listed entry: the power of two (1 to 32) at or above the mean length of the shorter
    list a group walks, estimated from A's mean row and B's mean column length."""
    rows = A.nnz / max(A.shape[0], 1)
    cols = B.nnz / max(B.shape[1], 1)
    short = max(1.0, min(rows, cols))
    return next((g for g in GROUP_SIZES if g >= short), GROUP_SIZES[-1])


@functools.lru_cache(maxsize=None)
def _kernel(add, mul, dtype_str, index_str, a_pattern, b_pattern, group, device_id, code=""):
    """The kernel, compiled from spgemm.cuh followed by ``code`` (a user semiring's functors, part of the
    key: other C++ under the same name compiles anew)."""
    cp = load_cupy()
    expr = spgemm_name(add, mul, dtype_str, index_str, a_pattern, b_pattern, group)
    with cp.cuda.Device(device_id):
        return load_function(cp, source(str(SPGEMM_SOURCE)), code, NVRTC_OPTIONS, expr)


def _member(keys, sorted_keys, cp):
    if sorted_keys.size == 0 or keys.size == 0:
        return cp.zeros(keys.shape, dtype=bool)
    pos = cp.minimum(cp.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[pos] == keys


def _structure_keys(A, B, cp):
    """Sorted keys j * m + i of the entries of A's pattern times B's pattern (cuSPARSE, float64 path
    counts, never 0).  The CSC arrays are read as CSR of the transposes, so no conversion runs."""
    import cupyx.scipy.sparse as csp

    m = A.shape[0]
    if A.nnz == 0 or B.nnz == 0:
        return cp.zeros(0, dtype=np.int64)
    # Σ_k |A(:, k)| |B(k, :)|: the partial products, which bound the product's entries; past int32
    # cuSPARSE's indices and counts wrap and its structure comes back wrong, so refuse instead
    partial = int((cp.diff(A.colptr).astype(np.int64)
                   * cp.bincount(B.rowidx, minlength=B.shape[0]).astype(np.int64)).sum())
    if max(A.nnz, B.nnz, *A.shape, *B.shape, partial) > CUSPARSE_MAX:
        raise KernelUnavailable(
            f"the GPU's unmasked (or complemented) mxm takes the product's structure from cuSPARSE, whose "
            f"int32 indices hold at most {CUSPARSE_MAX:,} entries; this product of {A.shape} and {B.shape} "
            f"matrices ({A.nnz:,} and {B.nnz:,} entries) has {partial:,} partial products: pass a mask "
            "(structural, not complemented), or run it on device='cpu'")
    # cuSPARSE takes int32 indices; its product's entries come back in whatever order it leaves them
    pa = csp.csr_matrix((cp.ones(A.nnz, dtype=np.float64), A.rowidx.astype(np.int32), A.colptr.astype(np.int32)),
                        shape=(A.shape[1], A.shape[0]))   # A's CSC arrays are the CSR of A'
    pb = csp.csr_matrix((cp.ones(B.nnz, dtype=np.float64), B.rowidx.astype(np.int32), B.colptr.astype(np.int32)),
                        shape=(B.shape[1], B.shape[0]))   # ... and B's of B'
    P = (pb @ pa).tocoo()   # (A B)' = B' A': its row r, column c is the entry (c, r) of A B
    return cp.unique(P.row.astype(np.int64) * m + P.col.astype(np.int64))


def mxm(A, B, sr, dtype, mask_keys, complement):
    """``(keys, values)`` of T = A ⊕.⊗ B where the mask allows (see ``spla.backends.cpu_mxm.mxm``)."""
    dtype = np.dtype(dtype)
    ok, why = supports("scCSC", sr, dtype)  # the functors exist (a user's part has CUDA code)
    if not ok:
        raise KernelUnavailable(f"mxm: the GPU cannot run {sr.name} on {dtype}: {why}")
    cp = load_cupy()
    m = A.shape[0]
    if mask_keys is not None and not complement:
        keys = mask_keys
    else:
        keys = _structure_keys(A, B, cp)
        if mask_keys is not None:
            keys = keys[~_member(keys, mask_keys, cp)]
    if keys.size == 0:
        return cp.zeros(0, dtype=np.int64), cp.zeros(0, dtype=dtype)
    At = A.T  # CSC of A's transpose: A as CSR
    idx = index_dtype(max(A.nnz, B.nnz, int(keys.size)), *A.shape, *B.shape)
    idx = max(idx, At.index_dtype, B.index_dtype, key=lambda d: d.itemsize)
    arr = (lambda a: a.astype(idx, copy=False))
    rows, cols = arr(keys % max(m, 1)), arr(keys // max(m, 1))
    mul = sr.mul
    a_pat = At.values is None or not mul.uses_x
    b_pat = B.values is None or not mul.uses_a
    avals = cp.zeros(1, dtype=dtype) if a_pat else At.values.astype(dtype, copy=False)
    bvals = cp.zeros(1, dtype=dtype) if b_pat else B.values.astype(dtype, copy=False)
    n = int(keys.size)
    vals = cp.empty(n, dtype=dtype)
    found = cp.empty(n, dtype=cp.uint8)
    device_id = cp.cuda.Device().id
    group = group_size(A, B)
    add_key, mul_key = functor_keys(sr)
    fn = _kernel(add_key, mul_key, dtype.str, np.dtype(idx).str, a_pat, b_pat, group, device_id, user_code(sr))
    blocks = blocks_for(group * n, max(1, resident_threads(A.device) // BLOCK))
    fn((blocks,), (BLOCK,), (arr(At.colptr), arr(At.rowidx), avals, arr(B.colptr), arr(B.rowidx), bvals,
                             rows, cols, np.int64(n), vals, found))
    hit = found.astype(bool)
    return keys[hit], vals[hit]
