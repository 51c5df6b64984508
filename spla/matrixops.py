"""GraphBLAS matrix operations whose result is a spla.Matrix (or, for reductions, a dense vector).

    C<M> = select(A, which, thunk)     the entries of A a selector keeps (tril, triu, diag, offdiag,
                                       row / column ranges, value predicates)
    C<M> = apply(A, op, left|right)    op on every stored value (unary, or binary with a bound scalar)
    C<M> = ewise_add(A, B, op)         the union of A's and B's entries, op where both have one
    C<M> = ewise_mult(A, B, op)        the intersection, op(A(i, j), B(i, j))
    w = reduce_rows(A, monoid)         w(i) = ADD_j A(i, j);  reduce_cols: w(j) = ADD_i A(i, j)
                                       (products with a vector of ones: the vxm / mxv kernels)
    s = reduce_scalar(A, monoid)       s = ADD_ij A(i, j)
    C<M> = extract(A, rows, cols)      C(a, b) = A(rows[a], cols[b])
    C<M> = assign(C, A, rows, cols)    C(rows[a], cols[b]) = A(a, b)
    C<M> = kron(A, B, op)              C(i p + k, j q + l) = op(A(i, j), B(k, l)), B of shape (p, q)

Every operation that returns a matrix takes the matrix mask and merge of :mod:`spla.masks` (``mask``,
``complement``, ``structural``, ``accum``, ``out``, ``replace``).  A pattern-only operand's entries
are 1 (True).  A stored entry is an entry whatever its value.  The code is written once over the
array module of the operands' device (NumPy on the CPU, CuPy on a GPU): sorted entry keys
``j * nrows + i`` and ``searchsorted``, no kernel of its own.
"""

from __future__ import annotations

import functools

import numpy as np

from . import device as _dev
from . import memory as _memory
from . import semirings as _sr
from .errors import DeviceMismatch, DimensionMismatch, DomainMismatch, UnknownNameError
from .masks import allowed_keys, check_mask_args, entries_matrix, finish, keys_of, member
from .matrix import Matrix
from .ops import _check_values_cast, mxv, vxm

__all__ = ["select_entries", "apply", "ewise_add", "ewise_mult", "kron", "reduce_rows", "reduce_cols", "reduce_scalar",
           "extract", "assign", "UNARY_OPS", "SELECTORS", "binary_op_names"]

#: selectors of :func:`select_entries` (and :func:`spla.select`): name -> which entries (i, j) it keeps
#: and what ``thunk`` is
SELECTORS = {
    "offdiag": "i != j (a graph without its self-loops); no thunk",
    "diag": "i == j (the self-loops); no thunk",
    "tril": "j <= i + thunk (thunk: the diagonal offset, default 0; -1 is the strict lower triangle)",
    "triu": "j >= i + thunk (default 0; 1 is the strict upper triangle)",
    "rows": "lo <= i < hi, thunk = (lo, hi)",
    "cols": "lo <= j < hi, thunk = (lo, hi)",
    "gt": "A(i, j) > thunk", "ge": "A(i, j) >= thunk", "lt": "A(i, j) < thunk", "le": "A(i, j) <= thunk",
    "eq": "A(i, j) == thunk", "ne": "A(i, j) != thunk",
}
STRUCTURAL_SELECTORS = ("offdiag", "diag", "tril", "triu", "rows", "cols")
#: selectors that keep a symmetric matrix symmetric
_SYMMETRIC_SELECTORS = ("offdiag", "diag", "gt", "ge", "lt", "le", "eq", "ne")
_COMPARE = {"gt": "greater", "ge": "greater_equal", "lt": "less", "le": "less_equal", "eq": "equal",
            "ne": "not_equal"}

#: unary operators of :func:`apply`: name -> what it computes
UNARY_OPS = {"identity": "a", "ainv": "-a", "abs": "|a|", "minv": "1 / a", "lnot": "not a (bool)", "one": "1"}


def binary_op_names():
    """The binary operators of apply, ewise_add and ewise_mult: spla.semirings' operators and monoids."""
    return sorted(set(_sr.BINARY_OPS) | set(_sr.MONOIDS))


def _binary(name, who, dtype):
    if not isinstance(name, str) or name not in binary_op_names():
        raise UnknownNameError(f"{who}: unknown binary operator {name!r}; use one of {', '.join(binary_op_names())}")
    op = _sr.BINARY_OPS[name] if name in _sr.BINARY_OPS else _sr.MONOIDS[name]
    if op.user and dtype not in op.dtypes:
        raise DomainMismatch(f"{who}: the user-defined operator {name} is not defined on {dtype}; pass dtype= one of "
                             f"{', '.join(str(d) for d in op.dtypes)}")
    return op.apply


def _domain(dtype, who):
    """``dtype`` as a NumPy dtype that a Matrix's values may have (bool, integer of at most 64 bits,
    float32 or float64: the domains both backends compute in), or DomainMismatch saying so."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise DomainMismatch(f"{who}: {dtype!r} is not a dtype") from None
    if dtype.kind not in "biuf" or dtype.itemsize > 8 or dtype == np.float16:
        raise DomainMismatch(f"{who}: values of dtype {dtype} are not supported; use bool, integer, float32 or "
                             "float64 (of at most 64 bits)")
    return dtype


def _check_matrix(who, name, M, device=None):
    if not isinstance(M, Matrix):
        raise TypeError(f"{who}: {name} must be a spla.Matrix, got {type(M).__name__}")
    if device is not None and M.device != device:
        raise DeviceMismatch(f"{who}: {name} is on {M.device} but the first operand on {device}; "
                             f"move it with {name}.to({device!r})")


def _vals(M, dtype):
    xp = M.xp
    return xp.ones(M.nnz, dtype=dtype) if M.values is None else M.values.astype(dtype, copy=False)


def _merge(who, A, shape, dtype, keys, vals, mask, complement, structural, accum, out, replace):
    check_mask_args(who, shape, A.device, dtype, mask, complement, structural, accum, out, replace)
    mkeys = None if mask is None else allowed_keys(mask, structural)
    if mkeys is not None:
        ok = member(keys, mkeys)
        ok = ~ok if complement else ok
        keys, vals = keys[ok], vals[ok]
    return finish(shape, A.device, dtype, keys, vals, mkeys, bool(complement), accum, out, bool(replace))


# ------------------------------------------------------------------ select
def select_entries(A, which, thunk=None, *, mask=None, complement=False, structural=True, accum=None, out=None,
                   replace=False):
    """C<M> = accum(C, select(A)): the stored entries of A that the selector ``which`` keeps
    (:data:`SELECTORS`), values in A's dtype.  Without mask and out the result keeps A's
    pattern-only storage and direction (and symmetry, for the selectors that keep it); with them it
    is a directed matrix with values.  :func:`spla.select` calls this and caches the structural
    selections."""
    who = "select"
    _check_matrix(who, "A", A)
    if not isinstance(which, str) or which not in SELECTORS:
        raise UnknownNameError(f"unknown selector {which!r}; the selectors are {', '.join(sorted(SELECTORS))}")
    xp = A.xp
    with _dev.activate(A.device):
        rows, cols = A.rowidx.astype(np.int64), A.colidx.astype(np.int64)
        keep = _selected(which, thunk, rows, cols, A)
        keys = keys_of(A)[keep]
        plain = mask is None and out is None and accum is None
        if plain:
            vals = None if A.values is None else A.values[keep]
            sym = A.is_symmetric and which in _SYMMETRIC_SELECTORS
            return entries_matrix(keys, vals, A.shape, A.device, directed=A.directed or not sym, symmetric=sym)
        dtype = A.dtype
        vals = _vals(A, dtype)[keep] if A.nnz else xp.zeros(0, dtype=dtype)
        return _merge(who, A, A.shape, dtype, keys, vals, mask, complement, structural, accum, out, replace)


def _selected(which, thunk, rows, cols, A):
    xp = A.xp
    if which in ("offdiag", "diag"):
        if thunk is not None:
            raise ValueError(f"select: {which!r} takes no thunk, got {thunk!r}")
        return rows != cols if which == "offdiag" else rows == cols
    if which in ("tril", "triu"):
        k = 0 if thunk is None else _integer(thunk, f"select {which!r}: thunk (the diagonal offset)")
        return cols <= rows + k if which == "tril" else cols >= rows + k
    if which in ("rows", "cols"):
        try:
            lo, hi = (_integer(t, f"select {which!r}: thunk") for t in thunk)
        except TypeError:
            raise TypeError(f"select {which!r}: thunk must be a pair (lo, hi), got {thunk!r}") from None
        idx = rows if which == "rows" else cols
        return (idx >= lo) & (idx < hi)
    if thunk is None or isinstance(thunk, (str, bytes)) or np.ndim(thunk) != 0:
        raise TypeError(f"select {which!r}: thunk must be a number to compare the values with, got {thunk!r}")
    vals = _vals(A, A.dtype)
    return getattr(xp, _COMPARE[which])(vals, thunk)


def _integer(x, what):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {x!r}")
    return int(x)


# ------------------------------------------------------------------ apply
def apply(A, op, *, left=None, right=None, dtype=None, mask=None, complement=False, structural=True, accum=None,
          out=None, replace=False):
    """C<M> = accum(C, op(A)): ``op`` on every stored value of A, the pattern kept.

    ``op``: a unary operator (:data:`UNARY_OPS`), or a binary one (:func:`binary_op_names`) with a
    bound scalar: ``right=s`` computes op(A(i, j), s), ``left=s`` op(s, A(i, j)).  ``dtype``: the
    result's domain; by default A's (bool for a pattern-only A, whose entries are 1), promoted with
    the bound scalar's NumPy type.  A pattern-only A gains values.
    """
    who = "apply"
    _check_matrix(who, "A", A)
    xp = A.xp
    if (left is not None) and (right is not None):
        raise ValueError("apply: bind one scalar, left= or right=, not both")
    scalar = right if left is None else left
    if dtype is None:
        dtype = A.dtype if scalar is None else np.result_type(A.dtype, np.asarray(scalar).dtype)
    dtype = _domain(dtype, who)
    with _dev.activate(A.device):
        a = _vals(A, dtype)
        if scalar is None:
            if not isinstance(op, str) or op not in UNARY_OPS:
                raise UnknownNameError(f"apply: unknown unary operator {op!r}; use one of {', '.join(UNARY_OPS)}, "
                                       "or a binary operator with left= or right=")
            vals = _unary(op, a, xp, dtype)
        else:
            fn = _binary(op, who, dtype)
            s = xp.asarray(np.asarray(scalar).astype(dtype))
            vals = fn(a, s, xp) if left is None else fn(s, a, xp)
            vals = xp.broadcast_to(vals, a.shape)
        vals = xp.ascontiguousarray(vals).astype(dtype, copy=False)
        return _merge(who, A, A.shape, dtype, keys_of(A), vals, mask, complement, structural, accum, out, replace)


def _unary(op, a, xp, dtype):
    if op == "identity":
        return a.copy()
    if op == "ainv":
        return -a if dtype.kind != "b" else a.copy()
    if op == "abs":
        return xp.abs(a) if dtype.kind not in "bu" else a.copy()
    if op == "minv":
        if dtype.kind != "f":
            raise DomainMismatch(f"apply: minv (1 / a) needs a float domain, got {dtype}; pass dtype=np.float64")
        return 1 / a
    if op == "lnot":
        return xp.logical_not(a).astype(dtype)
    return xp.ones(a.shape, dtype=dtype)


# ------------------------------------------------------------------ element-wise
def ewise_add(A, B, op, *, dtype=None, **merge):
    """C<M> = accum(C, A ⊕ B): every position stored in A or B; op(A(i, j), B(i, j)) where both are,
    the one stored value elsewhere.  ``dtype``: by default NumPy's result type of A's and B's."""
    return _ewise("ewise_add", A, B, op, dtype, union=True, **merge)


def ewise_mult(A, B, op, *, dtype=None, **merge):
    """C<M> = accum(C, A ⊗ B): the positions stored in both, op(A(i, j), B(i, j))."""
    return _ewise("ewise_mult", A, B, op, dtype, union=False, **merge)


def _ewise(who, A, B, op, dtype, union, mask=None, complement=False, structural=True, accum=None, out=None,
           replace=False):
    _check_matrix(who, "A", A)
    _check_matrix(who, "B", B, A.device)
    if A.shape != B.shape:
        raise DimensionMismatch(f"{who}: A has shape {A.shape} and B {B.shape}; they must be equal")
    dtype = _domain(np.result_type(A.dtype, B.dtype) if dtype is None else dtype, who)
    fn = _binary(op, who, dtype)
    xp = A.xp
    with _dev.activate(A.device):
        ak, bk = keys_of(A), keys_of(B)
        av, bv = _vals(A, dtype), _vals(B, dtype)
        in_a, in_b = member(bk, ak), member(ak, bk)  # B's keys in A, A's keys in B
        both_a = av[in_b]  # A's values where B has an entry, in key order
        both_b = bv[in_a]
        both = fn(both_a, both_b, xp).astype(dtype, copy=False)
        if union:
            keys = xp.concatenate([ak[in_b], ak[~in_b], bk[~in_a]])
            vals = xp.concatenate([both, av[~in_b], bv[~in_a]])
            order = xp.argsort(keys)
            keys, vals = keys[order], vals[order]
        else:
            keys, vals = ak[in_b], both
        return _merge(who, A, A.shape, dtype, keys, vals, mask, complement, structural, accum, out, replace)


def kron(A, B, op="times", *, dtype=None, mask=None, complement=False, structural=True, accum=None, out=None,
         replace=False):
    """C<M> = accum(C, A ⊗kron B): C(i·p + k, j·q + l) = op(A(i, j), B(k, l)) for every stored A(i, j)
    and B(k, l), with (p, q) = B's shape; C is (m·p) x (n·q).  ``op``: a binary operator of
    :func:`binary_op_names` (``"times"``: the Kronecker product; ``"pair"``: its pattern).  The result
    holds A.nnz · B.nnz entries: :class:`spla.InsufficientMemory` is raised before building them when
    the device cannot hold them."""
    who = "kron"
    _check_matrix(who, "A", A)
    _check_matrix(who, "B", B, A.device)
    dtype = _domain(np.result_type(A.dtype, B.dtype) if dtype is None else dtype, who)
    fn = _binary(op, who, dtype)
    (m, n), (p, q) = A.shape, B.shape
    shape = (m * p, n * q)
    if shape[0] * shape[1] >= 2 ** 63:
        raise DimensionMismatch(f"{who}: the product's shape {shape[0]:,} x {shape[1]:,} has more positions than "
                                "the int64 entry keys of spla hold")
    nnz = A.nnz * B.nnz
    # the entries' keys, rows and columns (int64), their values and the sort's order
    _memory.require(nnz * (32 + 2 * np.dtype(dtype).itemsize), A.device, what=f"{who}: its {nnz:,} entries",
                    remedy="extract the rows and columns needed first (spla.extract)")
    xp = A.xp
    with _dev.activate(A.device):
        ar, ac = A.rowidx.astype(np.int64), A.colidx.astype(np.int64)
        br, bc = B.rowidx.astype(np.int64), B.colidx.astype(np.int64)
        rows = (ar[:, None] * p + br[None, :]).ravel()
        cols = (ac[:, None] * q + bc[None, :]).ravel()
        vals = fn(_vals(A, dtype)[:, None], _vals(B, dtype)[None, :], xp).astype(dtype, copy=False).ravel()
        keys = cols * shape[0] + rows
        order = xp.argsort(keys)
        return _merge(who, A, shape, dtype, keys[order], vals[order], mask, complement, structural, accum, out,
                      replace)


# ------------------------------------------------------------------ reductions
def _monoid(monoid, dtype, who):
    if isinstance(monoid, _sr.Monoid):
        m = monoid
    elif isinstance(monoid, str) and monoid in _sr.MONOIDS:
        m = _sr.MONOIDS[monoid]
    else:
        raise UnknownNameError(f"{who}: unknown monoid {monoid!r}; use one of {', '.join(sorted(_sr.MONOIDS))}")
    if np.dtype(dtype) not in m.dtypes:
        raise DomainMismatch(f"{who}: monoid {m.name} is not defined on dtype {np.dtype(dtype)}; pass dtype= one of "
                             f"{', '.join(str(d) for d in m.dtypes)}")
    return m


#: the semiring whose product with a vector of ones reduces a matrix with the monoid: MUL keeps the
#: matrix's entry (first in mxv, which computes MUL(A(i, j), u(j)); second in vxm); ``any`` is max
_REDUCING = {"plus": ("plus_first", "plus_second"), "min": ("min_first", "min_second"),
             "max": ("max_first", "max_second"), "any": ("max_first", "max_second"), "bor": ("bor_first", "bor_second"),
             "lor": ("lor_land", "lor_land")}


def _reduce(who, A, monoid, dtype, axis):
    _check_matrix(who, "A", A)
    if dtype is None:
        dtype = A.dtype
        if dtype == np.bool_ and isinstance(monoid, str) and monoid in ("plus", "min", "max"):
            dtype = np.dtype(np.int64)
    dtype = np.dtype(dtype)
    m = _monoid(monoid, dtype, who)
    name = "lor" if m.name == "any" and dtype == np.bool_ else m.name
    by_rows, by_cols = _REDUCING[name] if name in _REDUCING else _user_reducing(m)
    # the vector's entries only need to differ from the identity (an identity input contributes
    # nothing); MUL keeps the matrix's entry
    fill = 0 if m.identity(dtype) == 1 else 1
    xp = A.xp
    with _dev.activate(A.device):
        if axis is None:
            # s = ADD over the stored values: no product, no output vector
            if A.nnz == 0:
                return m.identity(dtype)
            _check_values_cast(who, A, _sr.get(by_cols), dtype, False)
            vals = xp.ones(A.nnz, dtype=dtype) if A.values is None else A.values.astype(dtype, copy=False)
            return dtype.type(_total(m, vals, xp, dtype).item())
        # a row (column) with no entry keeps the identity: the product's output that nothing reaches
        if axis == 1:
            return mxv(A, xp.full(A.shape[1], fill, dtype=dtype), by_rows)      # w = A ⊕.first 1
        return vxm(xp.full(A.shape[0], fill, dtype=dtype), A, by_cols)           # w = 1 ⊕.second A


@functools.lru_cache(maxsize=None)
def _user_reducing(m):
    """A user monoid's semirings (m.first, m.second), unregistered: what _REDUCING lists for built-ins."""
    return (_sr.Semiring(m, _sr.BINARY_OPS["first"], m.dtypes), _sr.Semiring(m, _sr.BINARY_OPS["second"], m.dtypes))


def _total(m, vals, xp, dtype):
    """The monoid's reduction of every value of ``vals`` (non-empty)."""
    if m.user:
        return m.ufunc.reduce(_dev.to_numpy(vals))
    if m.name == "plus":
        return xp.sum(vals, dtype=dtype)
    if m.name == "min":
        return xp.min(vals)
    if m.name in ("max", "any"):
        return xp.max(vals)
    if m.name == "lor":
        return xp.any(vals)
    return np.bitwise_or.reduce(_dev.to_numpy(vals))


def reduce_rows(A, monoid, *, dtype=None):
    """w(i) = ADD_j A(i, j): a dense (nrows,) array on A's device, the monoid's identity where row i has
    no entry (the dense-vector convention of vxm).  ``dtype``: by default A's (int64 for a
    pattern-only A under plus, min or max: a count)."""
    return _reduce("reduce_rows", A, monoid, dtype, axis=1)


def reduce_cols(A, monoid, *, dtype=None):
    """w(j) = ADD_i A(i, j): a dense (ncols,) array, the identity where column j has no entry."""
    return _reduce("reduce_cols", A, monoid, dtype, axis=0)


def reduce_scalar(A, monoid, *, dtype=None):
    """s = ADD_{i, j} A(i, j), a NumPy scalar (the identity for an empty A)."""
    return _reduce("reduce_scalar", A, monoid, dtype, axis=None)


# ------------------------------------------------------------------ extract / assign
def _index(who, name, idx, n, xp):
    """An index array (None: 0..n-1) as int64 on the device, every index in 0..n-1."""
    if idx is None:
        return xp.arange(n, dtype=np.int64)
    arr = np.asarray(_dev.to_numpy(idx))
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"{who}: {name} must be a 1-D integer array, got dtype {arr.dtype} and shape {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise DimensionMismatch(f"{who}: {name} holds {int(arr.min() if arr.min() < 0 else arr.max())}, outside "
                                f"0..{n - 1}")
    return xp.asarray(arr)


def _positions(idx, values, xp):
    """For each of ``values``, the positions a with idx[a] == value: ``(which value, position)``."""
    order = xp.argsort(idx, kind="stable")
    s = idx[order]
    lo = xp.searchsorted(s, values, side="left")
    hi = xp.searchsorted(s, values, side="right")
    counts = (hi - lo).astype(np.int64)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if ends.size else 0
    slots = xp.arange(total, dtype=np.int64)
    who = xp.searchsorted(ends, slots, side="right")  # the value whose run holds each slot
    pos = lo[who] + (slots - (ends - counts)[who])
    return who, order[pos]


def extract(A, rows=None, cols=None, *, mask=None, complement=False, structural=True, accum=None, out=None,
            replace=False):
    """C<M> = accum(C, A(rows, cols)): C(a, b) = A(rows[a], cols[b]), of shape (len(rows), len(cols)),
    values in A's dtype.  ``rows``/``cols``: integer index arrays (None: all); an index may repeat."""
    who = "extract"
    _check_matrix(who, "A", A)
    xp = A.xp
    with _dev.activate(A.device):
        r = _index(who, "rows", rows, A.shape[0], xp)
        c = _index(who, "cols", cols, A.shape[1], xp)
        shape = (int(r.size), int(c.size))
        dtype = A.dtype
        ar, ac, av = A.rowidx.astype(np.int64), A.colidx.astype(np.int64), _vals(A, dtype)
        e1, b = _positions(c, ac, xp)        # entry e1 of A lands in output column b
        e2, a = _positions(r, ar[e1], xp)    # ... and in output row a
        e = e1[e2]
        keys = b[e2] * max(shape[0], 1) + a
        order = xp.argsort(keys)
        return _merge(who, A, shape, dtype, keys[order], av[e][order], mask, complement, structural, accum, out,
                      replace)


def assign(C, A, rows=None, cols=None, *, mask=None, complement=False, structural=True, accum=None, replace=False):
    """C<M> = accum(C(rows, cols), A), a new matrix: the region rows x cols of C (distinct indices)
    takes A (len(rows), len(cols)): without ``accum`` C's entries there that A lacks are deleted,
    with it accum(C, A) where both have an entry; C outside the region is kept.  ``mask`` (C's shape)
    and ``replace`` then act as in :mod:`spla.masks`, C being the output."""
    who = "assign"
    _check_matrix(who, "C", C)
    _check_matrix(who, "A", A, C.device)
    xp = C.xp
    with _dev.activate(C.device):
        r = _index(who, "rows", rows, C.shape[0], xp)
        c = _index(who, "cols", cols, C.shape[1], xp)
        if A.shape != (int(r.size), int(c.size)):
            raise DimensionMismatch(f"{who}: A has shape {A.shape} but the region rows x cols is "
                                    f"{int(r.size)} x {int(c.size)}")
        if int(xp.unique(r).size) != r.size or int(xp.unique(c).size) != c.size:
            raise ValueError(f"{who}: rows and cols must not repeat an index (two values for one entry of C)")
        dtype = C.dtype
        m = C.shape[0]
        tkeys = c[A.colidx.astype(np.int64)] * m + r[A.rowidx.astype(np.int64)]
        order = xp.argsort(tkeys)
        tkeys, tvals = tkeys[order], _vals(A, dtype)[order]
        ckeys, cvals = keys_of(C), _vals(C, dtype)
        in_region = _in_region(ckeys, m, r, c, C.shape, xp)
        if accum is not None:
            check_mask_args(who, C.shape, C.device, dtype, None, False, True, accum, C, False)
            # accum(C, A) in the region: ewise_add of the region's C entries and A's
            region = finish(C.shape, C.device, dtype, tkeys, tvals, None, False, accum,
                            entries_matrix(ckeys[in_region], cvals[in_region], C.shape, C.device), False)
            zkeys, zvals = keys_of(region), region.values
        else:
            zkeys, zvals = tkeys, tvals
        keys = xp.concatenate([ckeys[~in_region], zkeys])
        vals = xp.concatenate([cvals[~in_region], zvals.astype(dtype, copy=False)])
        order = xp.argsort(keys)
        keys, vals = keys[order], vals[order]
        check_mask_args(who, C.shape, C.device, dtype, mask, complement, structural, None, C, replace)
        mkeys = None if mask is None else allowed_keys(mask, structural)
        return finish(C.shape, C.device, dtype, keys, vals, mkeys, bool(complement), None, C, bool(replace))


def _in_region(keys, m, r, c, shape, xp):
    rows_in = xp.zeros(shape[0], dtype=bool)
    cols_in = xp.zeros(shape[1], dtype=bool)
    rows_in[r] = True
    cols_in[c] = True
    return rows_in[keys % max(m, 1)] & cols_in[keys // max(m, 1)]
