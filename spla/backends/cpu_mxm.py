"""The CPU backend's SpGEMM: ``T = A ⊕.⊗ B`` restricted by a mask, vectorised with NumPy/SciPy.

Three forms, chosen by the products each one forms:

* SciPy's sparse product, for plus with times/first/second/pair on integer or finite float values
  (exact for these); its structure is computed apart from its values, since SciPy drops the
  entries whose products cancel to 0 and GraphBLAS keeps them;
* dot products for a mask's entries: for each allowed (i, j), the entries of row i of A are looked
  up in column j of B (sorted keys, ``searchsorted``) -- the work is the mask's row degrees in A;
* Gustavson's column-wise saxpy for any semiring: every stored B(k, j) meets the entries of column k
  of A, and the products of each (i, j) are reduced with the monoid's ``ufunc.reduceat`` -- the
  work is the number of products (flops), a chunk of B's columns at a time.

Every form returns the entries of T as ``(keys, values)`` with ``key = j * nrows + i``, sorted and
unique: the CSC order of the result.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .. import tuning as _tuning

__all__ = ["mxm"]

_SCIPY_MULS = ("times", "first", "second", "pair")


def member(keys, sorted_keys):
    """Whether each of ``keys`` is in the sorted array ``sorted_keys``."""
    if sorted_keys.size == 0:
        return np.zeros(keys.shape, dtype=bool)
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == sorted_keys.size] = 0
    return sorted_keys[pos] == keys


def _values(M, dtype, ones):
    if ones or M.values is None:
        return np.ones(M.nnz, dtype=dtype)
    return M.values.astype(dtype, copy=False)


def _chunk_elements():
    return max(1, _tuning.current().arc_chunk_elements)


def _expand(ptr, counts_of, owners):
    """For each owner o (an array of indices into ``ptr``'s segments), the positions ptr[o]..ptr[o+1]-1,
    concatenated: ``(positions, owner number of each position)``."""
    starts = ptr[owners].astype(np.int64)
    counts = counts_of[owners]
    total = int(counts.sum())
    who = np.repeat(np.arange(owners.size, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    pos = starts[who] + (np.arange(total, dtype=np.int64) - first[who])
    return pos, who


def _ranges(work):
    """Edges 0 = e0 < e1 < ... = len(work) of consecutive item ranges of about a chunk of work each."""
    cum = np.cumsum(work)
    limit = _chunk_elements()
    total = int(cum[-1]) if cum.size else 0
    cuts = np.searchsorted(cum, np.arange(1, total // limit + 1, dtype=np.int64) * limit) + 1
    return np.unique(np.r_[0, cuts, work.size].clip(0, work.size))


def _reduce_sorted(keys, vals, ufunc):
    """Unique sorted ``keys`` and the monoid reduction of ``vals`` over each run of equal keys."""
    if keys.size == 0:
        return keys, vals
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], ufunc.reduceat(vals, starts)


def _saxpy(A, B, sr, dtype, keep):
    """Gustavson column by column: T(:, j) = ADD_k MUL(A(:, k), B(k, j)).  ``keep(keys)`` filters the
    products by the mask before they are reduced (None keeps them all)."""
    m = A.shape[0]
    acolptr = A.colptr.astype(np.int64)
    acount = np.diff(acolptr)
    arow = A.rowidx.astype(np.int64)
    brow = B.rowidx.astype(np.int64)
    bcolptr = B.colptr.astype(np.int64)
    mul = sr.mul
    av = _values(A, dtype, not mul.uses_x)
    bv = _values(B, dtype, not mul.uses_a)
    # products per column of B, then column ranges of about a chunk of products each
    done = np.r_[0, np.cumsum(acount[brow])]
    edges = _ranges(done[bcolptr[1:]] - done[bcolptr[:-1]])
    out_k, out_v = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        q = np.arange(bcolptr[lo], bcolptr[hi], dtype=np.int64)
        if q.size == 0:
            continue
        p, who = _expand(acolptr, acount, brow[q])
        qq = q[who]
        cols = _col_of(bcolptr, qq)
        keys = cols * m + arow[p]
        if keep is not None:
            ok = keep(keys)
            keys, p, qq = keys[ok], p[ok], qq[ok]
        vals = mul.apply(av[p], bv[qq], np)
        order = np.argsort(keys, kind="stable")
        k, v = _reduce_sorted(keys[order], vals[order], sr.add.ufunc)
        out_k.append(k)
        out_v.append(v.astype(dtype, copy=False))
    return _concat(out_k, out_v, dtype)


def _col_of(colptr, q):
    """The column of each stored-entry position ``q`` of a CSC matrix."""
    return np.searchsorted(colptr, q, side="right") - 1


def _concat(keys, vals, dtype):
    if not keys:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=dtype)
    return np.concatenate(keys), np.concatenate(vals).astype(dtype, copy=False)


def _dot(A, B, sr, dtype, mrows, mcols):
    """T(i, j) = ADD over k in row i of A and column j of B of MUL(A(i, k), B(k, j)), for each listed
    (i, j) (``mrows``, ``mcols``: the mask's entries in CSC order); entries with no such k are absent."""
    m, kdim = A.shape
    At = A.T  # CSC of A's transpose: the rows of A
    arowptr = At.colptr.astype(np.int64)
    acount = np.diff(arowptr)
    acol = At.rowidx.astype(np.int64)
    bkeys = _col_of(B.colptr.astype(np.int64), np.arange(B.nnz, dtype=np.int64)) * kdim + B.rowidx.astype(np.int64)
    mul = sr.mul
    av = _values(At, dtype, not mul.uses_x)
    bv = _values(B, dtype, not mul.uses_a)
    edges = _ranges(acount[mrows])
    out_k, out_v = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        rows, cols = mrows[lo:hi], mcols[lo:hi]
        p, who = _expand(arowptr, acount, rows)
        look = cols[who] * kdim + acol[p]
        q = np.searchsorted(bkeys, look)
        q[q == bkeys.size] = 0
        hit = bkeys[q] == look if bkeys.size else np.zeros(look.shape, dtype=bool)
        p, q, who = p[hit], q[hit], who[hit]
        vals = mul.apply(av[p], bv[q], np)
        w, v = _reduce_sorted(who, vals, sr.add.ufunc)  # who is sorted: the entries in mask order
        out_k.append(cols[w] * m + rows[w])
        out_v.append(v.astype(dtype, copy=False))
    return _concat(out_k, out_v, dtype)


def _scipy_exact(A, B, sr, dtype):
    """Whether SciPy's product computes this semiring exactly: plus of times/first/second/pair on an
    integer domain or on finite float values."""
    if sr.add.name != "plus" or sr.mul.name not in _SCIPY_MULS or dtype.kind not in "iuf":
        return False
    if dtype.kind == "f":
        return all(M.values is None or bool(np.all(np.isfinite(M.values.astype(dtype, copy=False)))) for M in (A, B))
    return True


def _scipy(A, B, sr, dtype):
    """T = A +.MUL B through SciPy: the structure from the patterns' product (counts, never 0), the
    values from the valued product, placed by key (an entry whose products cancel keeps its 0)."""
    m = A.shape[0]
    mul = sr.mul.name

    def csc(M, ones):
        return sp.csc_array((_values(M, dtype, ones), M.rowidx, M.colptr), shape=M.shape)

    def keyed(S):
        S = sp.csc_array(S)
        S.sum_duplicates()
        S.sort_indices()
        cols = _col_of(S.indptr.astype(np.int64), np.arange(S.nnz, dtype=np.int64))
        return cols * m + S.indices.astype(np.int64), S.data

    ones_a = sp.csc_array((np.ones(A.nnz), A.rowidx, A.colptr), shape=A.shape)
    ones_b = sp.csc_array((np.ones(B.nnz), B.rowidx, B.colptr), shape=B.shape)
    pkeys, _ = keyed(ones_a @ ones_b)
    vkeys, vdata = keyed(csc(A, mul in ("second", "pair")) @ csc(B, mul in ("first", "pair")))
    vals = np.zeros(pkeys.size, dtype=dtype)
    vals[np.searchsorted(pkeys, vkeys)] = vdata.astype(dtype, copy=False)
    return pkeys, vals


def mxm(A, B, sr, dtype, mask_keys, complement):
    """``(keys, values)`` of T = A ⊕.⊗ B where the mask allows: ``mask_keys`` (sorted keys j * nrows + i
    of the mask's allowed entries, or None for no mask) and ``complement`` (allowed = not listed)."""
    m = A.shape[0]
    dtype = np.dtype(dtype)
    if mask_keys is not None and not complement:
        # dot products cost the mask's row degrees in A; saxpy costs every product
        mrows, mcols = mask_keys % max(m, 1), mask_keys // max(m, 1)
        dot_work = int(A.out_degree()[mrows].sum()) if mrows.size else 0
        flops = int(np.diff(A.colptr.astype(np.int64))[B.rowidx.astype(np.int64)].sum()) if B.nnz else 0
        if dot_work <= flops:
            return _dot(A, B, sr, dtype, mrows, mcols)
    if _scipy_exact(A, B, sr, dtype):
        keys, vals = _scipy(A, B, sr, dtype)
    else:
        keep = None
        if mask_keys is not None:
            keep = (lambda k: ~member(k, mask_keys)) if complement else (lambda k: member(k, mask_keys))
        return _saxpy(A, B, sr, dtype, keep)
    if mask_keys is not None:
        ok = member(keys, mask_keys)
        ok = ~ok if complement else ok
        keys, vals = keys[ok], vals[ok]
    return keys, vals
