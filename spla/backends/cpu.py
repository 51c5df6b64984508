"""The CPU backend: vectorised NumPy/SciPy with exactly the GPU backend's semantics.

No Python loop runs over vertices or edges.  Products whose semiring SciPy's sparse
matrix-vector product computes exactly (plus with times/first/second/pair on finite
values) go through SciPy; every other semiring gathers the selected columns' entries,
applies MUL elementwise and reduces each column's segment with the monoid's ufunc
(``ufunc.reduceat``), in chunks of bounded size.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..matrix import declare_cache
from .cpu_mxm import mxm
from .names import KERNELS

__all__ = ["KERNELS", "supports", "vxm", "mxm", "popcount", "weighted_rowsum", "frontier_push", "frontier_pull"]

FINITE_VALUES_KEY = declare_cache("finite_values", "whether the matrix's values are finite in a product's domain")
CSR_T_KEY = declare_cache("csr_T", "the matrix's CSC arrays as SciPy's CSR of its transpose, per dtype")
_CHUNK_ELEMS = 1 << 22  # entries x k gathered at once by the generic path


_ACCUM_UFUNCS = {"plus": np.add, "min": np.minimum, "max": np.maximum, "lor": np.logical_or, "bor": np.bitwise_or}


def supports(kernel, semiring, dtype):
    """The CPU backend runs every semiring/dtype; kernel names only select GPU kernels."""
    return True, "the CPU backend has one implementation for every kernel name"


def _finite_values(A, dtype):
    """Whether A's values are finite once cast to ``dtype`` (float64 1e300 is inf in float32), cached per
    dtype.  SciPy's product multiplies every stored entry, so an identity input times inf would give NaN
    where the semiring says the input contributes nothing: infinite values take the generic product."""
    if A.values is None or dtype.kind in "biu":
        return True
    return A.cached((FINITE_VALUES_KEY, dtype), lambda: bool(np.all(np.isfinite(A.values.astype(dtype, copy=False)))))


def _selected_columns(comp, ncols):
    """Indices of columns with at least one output to compute (None = all)."""
    if comp is None:
        return None
    col_any = comp if comp.ndim == 1 else comp.any(axis=1)
    return np.flatnonzero(col_any)


def _transpose_csr(A, dtype, ones):
    """A's CSC arrays viewed as the CSR of A.T (no copy of the indices), cached per dtype."""
    def build():
        if ones or A.values is None:
            data = np.ones(A.nnz, dtype=dtype)
        else:
            data = A.values.astype(dtype, copy=False)
        return sp.csr_array((data, A.rowidx, A.colptr), shape=(A.shape[1], A.shape[0]))
    return A.cached((CSR_T_KEY, np.dtype(dtype).str, ones), build)


def _scipy_product(u, A, op, cols, dtype):
    """t[cols] for plus_{times,first,second,pair} through SciPy (exact for these)."""
    S = _transpose_csr(A, dtype, ones=op in ("first", "pair"))
    if cols is not None and 3 * len(cols) < A.shape[1]:
        S = S[cols]
    else:
        cols = None
    x = (u != 0).astype(dtype) if op in ("second", "pair") else u
    y = np.asarray(S @ x).astype(dtype, copy=False)
    return y, cols


def _arc_positions(A, cols):
    """The entries to walk for the columns ``cols`` (sorted; None = all): (positions p or None for
    all entries in order, their column ids, a (ncols,) bool keep-mask or None).  When ``cols`` covers
    a third of the columns or more, every entry is walked and the mask drops the others a chunk at a
    time, so no array of nnz positions is built."""
    if cols is None:
        return None, A.colidx, None
    if 3 * cols.shape[0] >= A.shape[1]:
        keep = np.zeros(A.shape[1], dtype=bool)
        keep[cols] = True
        return None, A.colidx, keep
    pos, owner = _arc_positions_of(A, cols)
    return pos, cols[owner], None


def _arc_positions_of(A, cols):
    """Positions p of the stored entries of columns ``cols`` (any order, repeats allowed), and for
    each the index into ``cols`` of the column it belongs to."""
    starts = A.colptr[cols].astype(np.int64)
    counts = (A.colptr[cols + 1] - A.colptr[cols]).astype(np.int64)
    total = int(counts.sum())
    owner = np.repeat(np.arange(cols.shape[0], dtype=np.int64), counts)
    offs = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts[owner] + offs, owner


def _generic_product(u, A, semiring, mul, cols, dtype, ident):
    """t (full output shape, identity where nothing contributes) by gather / MUL / segmented reduce."""
    ncols = A.shape[1]
    k = u.shape[1] if u.ndim == 2 else 1
    t = np.full((ncols,) + u.shape[1:], ident, dtype=dtype)
    pos, col_of, keep = _arc_positions(A, cols)
    nnz = col_of.shape[0]
    if nnz == 0:
        return t
    ufunc = semiring.add.ufunc
    step = max(1, _CHUNK_ELEMS // max(k, 1))
    for lo in range(0, nnz, step):  # chunks of entries, not a loop over edges
        hi = min(nnz, lo + step)
        p = np.arange(lo, hi) if pos is None else pos[lo:hi]
        c = col_of[lo:hi]
        if keep is not None:
            wanted = keep[c]
            if not wanted.all():
                p, c = p[wanted], c[wanted]
                if p.shape[0] == 0:
                    continue
        rows = A.rowidx[p]
        x = u[rows]
        if u.ndim == 1:
            live = x != ident
            if not live.all():
                x, p, c = x[live], p[live], c[live]
                if x.shape[0] == 0:
                    continue
        a = np.ones(p.shape[0], dtype=dtype) if A.values is None else A.values[p].astype(dtype)
        dead = None
        if u.ndim == 2:
            a = a[:, None]
            dead = x == ident
            # identity inputs contribute nothing: multiply a zero in their place (-inf * 0 would warn)
            x = np.where(dead, np.zeros((), dtype=dtype), x)
        prod = mul.apply(x, a, np)
        if prod.shape != x.shape:
            prod = np.broadcast_to(prod, x.shape)
        if dead is not None:
            prod = np.where(dead, ident, prod).astype(dtype, copy=False)
        else:
            prod = prod.astype(dtype, copy=False)
        starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
        red = ufunc.reduceat(prod, starts, axis=0)
        seg_cols = c[starts]
        # a column may straddle two chunks: combine with what is already there
        t[seg_cols] = ufunc(t[seg_cols], red.astype(dtype, copy=False))
    return t


def vxm(u, A, semiring, mask, complement, accum, out, replace, kernel, swap=False):
    """y[j] = ADD_i MUL(u[i], A[i, j]) on the CPU; see spla.ops.vxm for the semantics.

    u: (nrows,) or (nrows, k) NumPy array; A: Matrix on "cpu"; mask: bool (ncols,) or
    the output's shape; swap=True computes MUL(a, x) (mxv through A.T).  IEEE arithmetic
    without NumPy's warnings, as on the GPU: inf - inf and 0 * inf are NaN, overflow is inf.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        return _vxm(u, A, semiring, mask, complement, accum, out, replace, swap)


def _vxm(u, A, semiring, mask, complement, accum, out, replace, swap):
    dtype = u.dtype
    ident = semiring.identity(dtype)
    mul = semiring.mul.swapped() if swap else semiring.mul  # mxv: MUL(a, x)
    op = None if mul.user else mul.name
    comp = None if mask is None else (~mask if complement else mask)
    if comp is mask and out is not None and np.may_share_memory(out, mask):
        comp = mask.copy()  # out overlapping the mask: writing out must not change which outputs are computed
    cols = _selected_columns(comp, A.shape[1])
    if semiring.add.name == "plus" and op in ("times", "first", "second", "pair") and \
            (op in ("first", "pair") or _finite_values(A, dtype)):
        part, cols = _scipy_product(u, A, op, cols, dtype)
        if cols is None:
            t = part
        else:
            t = np.full((A.shape[1],) + u.shape[1:], ident, dtype=dtype)
            t[cols] = part
    else:
        t = _generic_product(u, A, semiring, mul, cols, dtype, ident)
    if comp is not None and comp.ndim < t.ndim:
        comp = comp[:, None]
    if out is None:
        if comp is None:
            return t
        return np.where(comp, t, ident).astype(dtype, copy=False)
    where = True if comp is None else np.broadcast_to(comp, out.shape)
    ufunc = _ACCUM_UFUNCS.get(accum)
    if accum is None or accum == "second":
        np.copyto(out, t, where=where)
    elif ufunc is not None:
        ufunc(out, t, out=out, where=where)
    # accum == "first": computed outputs keep their value
    if replace and comp is not None:
        np.copyto(out, ident, where=~where)
    return out


def popcount(X):
    """Elementwise popcount of an unsigned/signed integer array (int32 result, same shape: 0-d for 0-d)."""
    return np.asarray(np.bitwise_count(X.view(f"u{X.dtype.itemsize}") if X.dtype.kind == "i" else X), dtype=np.int32)


def weighted_rowsum(X, weights=None):
    """out[u] = sum_{w,b} bit_b(X[u, w]) * weights[64*w + b] for X (n, W) uint64.

    weights None: the row popcount (int64).  Loops over the 64 bit positions only.
    """
    X = np.ascontiguousarray(X)
    if weights is None:
        return np.bitwise_count(X).sum(axis=1, dtype=np.int64)
    n, W = X.shape
    wts = np.asarray(weights, dtype=np.float64).reshape(W, 64)
    out = np.zeros(n, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and inf - inf as on the GPU, without warnings
        for b in range(64):
            bits = ((X >> np.uint64(b)) & np.uint64(1)).astype(bool)
            out += np.where(bits, wts[:, b], 0.0).sum(axis=1)  # set bits only: no 0 * inf, as on the GPU
    return out


# ---------------------------------------------------------------------------------------------
# Level-structured sparse blocks (spla.frontier): vectorised over the frontier's arcs
# ---------------------------------------------------------------------------------------------
def _level_arcs(A, queue, depth, k, start, count):
    """(entries q, owner of each arc (index into q), target flat index r) of level ``depth``'s arcs."""
    lo = int(start[depth])
    q = queue[lo:lo + int(count[depth])].astype(np.int64)
    v, s = np.divmod(q, k)
    out_csc = A.T  # column v of A^T lists the targets w of the arcs v -> w
    pos, owner = _arc_positions_of(out_csc, v)
    return q, owner, out_csc.rowidx[pos].astype(np.int64) * k + s[owner]


def frontier_push(A, queue, depth, k, block, start, count, top):
    """value'<¬reached ∪ level == depth+1> += frontier +.first A (see spla.frontier.push)."""
    q, owner, r = _level_arcs(A, queue, depth, k, start, count)
    flat = block.reshape(-1, 2)
    base = int(start[depth]) + int(count[depth])
    start[depth + 1] = base
    if q.shape[0] == 0:
        return
    lr = flat[r, 1]
    fresh = np.unique(r[lr == -1])
    take = (lr == -1) | (lr == depth + 1)
    queue[base:base + fresh.shape[0]] = fresh
    count[depth + 1] += fresh.shape[0]
    flat[fresh, 1] = depth + 1
    x = flat[q, 0]
    targets, where = np.unique(r[take], return_inverse=True)
    flat[targets, 0] += np.bincount(where, weights=x[owner[take]], minlength=targets.shape[0])
    positive = x[x > 0]  # as the kernel's fmax from 0: NaN and values <= 0 leave top at 0
    top[depth] = np.float64(positive.max() if positive.size else 0.0).view(np.uint64)


def frontier_pull(A, queue, depth, k, block, start, count, out, scale, feed, divide):
    """t<frontier> = 2^-scale ⊙ (A +.second value<level == depth+1>) (see spla.frontier.pull)."""
    q, owner, r = _level_arcs(A, queue, depth, k, start, count)
    if q.shape[0] == 0:
        return
    flat = block.reshape(-1, 2)
    child = flat[r, 1] == depth + 1
    t = np.bincount(owner[child], weights=flat[r[child], 0], minlength=q.shape[0])
    if scale is not None:
        t = np.ldexp(t, -scale[q % k])
    mine = flat[q, 0]
    out.reshape(-1)[q] = t / mine if divide else t
    if feed:
        flat[q, 0] = mine + t
