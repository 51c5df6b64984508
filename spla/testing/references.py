"""Dense NumPy references of spla's products: naive and obviously right.

:func:`dense_vxm` / :func:`dense_mxv` compute a product over the whole dense matrix, with spla's
mask / complement / accum / out / replace semantics; :func:`reference` applies them to a
:class:`spla.Matrix` and vectors on any device; :func:`to_dense` gives a matrix's dense values
and pattern; :func:`identity` the additive identity of a monoid in a dtype.
"""

from __future__ import annotations

import numpy as np

from .. import device as _dev
from .. import semirings as _sr
from ..matrix import Matrix
from .devices import is_array


# Own tables, independent of spla.semirings' implementations (test_semirings checks that
# the two agree), so that a bug in spla's operators cannot hide in its own reference.

def _lowest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return dtype.type(False)
    if dtype.kind == "f":
        return dtype.type(-np.inf)
    return dtype.type(np.iinfo(dtype).min)


def _highest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return dtype.type(True)
    if dtype.kind == "f":
        return dtype.type(np.inf)
    return dtype.type(np.iinfo(dtype).max)


_IDENTITY = {
    "plus": lambda d: d.type(0),
    "min": _highest,
    "max": _lowest,
    "lor": lambda d: d.type(False),
    "bor": lambda d: d.type(0),
    "any": lambda d: d.type(0),
}


def identity(monoid, dtype):
    """The additive identity of ``monoid`` (a name, Monoid or Semiring) in ``dtype``.

    plus, bor, any: 0 (False); min: +inf or the dtype's maximum (True for bool);
    max: -inf or the dtype's minimum (False); lor: False.
    """
    dtype = np.dtype(dtype)
    if isinstance(monoid, _sr.Semiring):
        monoid = monoid.add
    m = monoid if isinstance(monoid, _sr.Monoid) else _sr.MONOIDS.get(monoid)
    name = monoid if isinstance(monoid, str) else monoid.name
    if name in _IDENTITY:
        return _IDENTITY[name](dtype)
    if m is None:
        raise ValueError(f"unknown monoid {monoid!r}")
    return m.identity(dtype)


def _mul(name, x, a, fallback=None):
    """MUL(x, a) elementwise over broadcastable NumPy arrays."""
    if name == "times":
        return x * a
    if name == "plus":
        return x + a
    if name == "first":
        return np.broadcast_arrays(x, a)[0]
    if name == "second":
        return np.broadcast_arrays(x, a)[1]
    if name == "pair":
        return np.ones(np.broadcast_shapes(np.shape(x), np.shape(a)), dtype=np.result_type(x, a))
    if name == "land":
        return np.logical_and(x, a)
    if name == "min":
        return np.minimum(x, a)
    if name == "max":
        return np.maximum(x, a)
    if name == "band":
        return x & a
    if fallback is None:
        raise ValueError(f"unknown binary operator {name!r}")
    return fallback.apply(x, a, np)


_ADD = {"plus": np.add, "min": np.minimum, "max": np.maximum, "lor": np.logical_or, "bor": np.bitwise_or}


def _accum(name, old, new):
    if name == "plus":
        return old + new
    if name == "min":
        return np.minimum(old, new)
    if name == "max":
        return np.maximum(old, new)
    if name == "lor":
        return np.logical_or(old, new)
    if name == "bor":
        return old | new
    if name == "first":
        return old.copy()
    if name == "second":
        return new.copy()
    raise ValueError(f"unknown accum {name!r}")


def dense_vxm(u, A_dense, present, semiring, *, mask=None, complement=False, accum=None, out=None,
              replace=False, swap=False):
    """The dense NumPy reference of ``spla.vxm(u, A, semiring, ...)``; returns a new array.

    u        (n,) or (n, k) NumPy array; its dtype is the domain.
    A_dense  (n, m) array of A's values (cast to u.dtype), or None for a pattern-only A (all 1 / True).
    present  (n, m) bool: which entries are stored (a stored 0 is still an entry).
    swap     MUL(a, x) instead of MUL(x, a) (what mxv computes).

    t[j] = ADD over the i with present[i, j] and u[i] != identity of MUL(u[i], A[i, j]),
    and the identity where no i contributes (for "any": the largest contribution, spla's
    documented deterministic choice).  It is built naively: the whole (n, m[, k]) array of
    products, non-contributions replaced by the identity, reduced over axis 0.  Then, with
    c = mask (or ~mask with complement; a (m,) mask is shared by a block's k columns):

    * no out:  result = t where c else identity                    (t without mask)
    * out:     z = accum(out, t) (or t without accum);
               result = z where c else (identity if replace else out)   (z without mask)
    ``out`` itself is not modified.
    """
    sr = _sr.get(semiring)
    u = np.asarray(u)
    dtype = np.dtype(u.dtype)
    present = np.asarray(present, dtype=bool)
    if present.ndim != 2 or u.ndim not in (1, 2) or u.shape[0] != present.shape[0]:
        raise ValueError(f"u of shape {u.shape} does not match a matrix of shape {present.shape}")
    n_in, n_out = present.shape
    block = u.ndim == 2
    ident = identity(sr.add, dtype)
    if A_dense is None:
        a = np.ones(present.shape, dtype=dtype)
    else:
        with np.errstate(all="ignore"):
            a = np.asarray(A_dense).astype(dtype)
    x = u[:, None, :] if block else u[:, None]          # (n, 1[, k])
    a3 = a[:, :, None] if block else a                   # (n, m[, 1])
    full = (n_in, n_out) + u.shape[1:]
    with np.errstate(all="ignore"):
        prod = _mul(sr.mul.name, a3, x, sr.mul) if swap else _mul(sr.mul.name, x, a3, sr.mul)
        prod = np.broadcast_to(np.asarray(prod).astype(dtype), full)
    contributes = np.broadcast_to(present[:, :, None] if block else present, full) & \
        np.broadcast_to(x != ident, full)
    if n_in == 0:
        t = np.full(full[1:], ident, dtype=dtype)
    elif sr.add.name == "any":
        vals = np.where(contributes, prod, _lowest(dtype))
        t = np.where(contributes.any(axis=0), np.maximum.reduce(vals, axis=0), ident).astype(dtype)
    else:
        ufunc = _ADD.get(sr.add.name, sr.add.ufunc)
        with np.errstate(all="ignore"):
            t = ufunc.reduce(np.where(contributes, prod, ident).astype(dtype), axis=0).astype(dtype)
    comp = None
    if mask is not None:
        comp = np.asarray(mask, dtype=bool)
        if complement:
            comp = ~comp
        if comp.shape != t.shape and not (block and comp.shape == t.shape[:1]):
            raise ValueError(f"mask of shape {comp.shape} does not fit the output of shape {t.shape}")
        if block and comp.ndim == 1:
            comp = comp[:, None]
        comp = np.broadcast_to(comp, t.shape)
    elif complement:
        raise ValueError("complement=True needs a mask")
    if out is None:
        if accum is not None:
            raise ValueError("accum needs out")
        return t if comp is None else np.where(comp, t, ident).astype(dtype)
    old = np.asarray(out)
    with np.errstate(all="ignore"):
        z = t if accum is None else np.asarray(_accum(accum, old, t)).astype(dtype)
    if comp is None:
        return np.array(z, dtype=dtype, copy=True)
    return np.where(comp, z, ident if replace else old).astype(dtype)


def dense_mxv(A_dense, u, present, semiring, **kwargs):
    """The dense reference of ``spla.mxv(A, u, ...)``: y[i] = ADD_j MUL(A[i, j], u[j])."""
    A_t = None if A_dense is None else np.asarray(A_dense).T
    return dense_vxm(u, A_t, np.asarray(present).T, semiring, swap=True, **kwargs)


def to_dense(A: Matrix):
    """``(values, present)`` of a Matrix as dense NumPy arrays; values is None when pattern-only.

    Built from the CSC arrays directly (it does not build the matrix's lazy COOC view).
    """
    colptr = _dev.to_numpy(A.colptr).astype(np.int64)
    rowidx = _dev.to_numpy(A.rowidx).astype(np.int64)
    cols = np.repeat(np.arange(A.shape[1], dtype=np.int64), np.diff(colptr))
    present = np.zeros(A.shape, dtype=bool)
    present[rowidx, cols] = True
    if A.values is None:
        return None, present
    values = np.zeros(A.shape, dtype=A.values.dtype)
    values[rowidx, cols] = _dev.to_numpy(A.values)
    return values, present


def reference(op, A, u, semiring, **kwargs):
    """The dense reference of ``spla.vxm(u, A, ...)`` (op="vxm") or ``spla.mxv(A, u, ...)``.

    ``u``, ``mask`` and ``out`` may live on any device; the result is a NumPy array.
    ``kernel`` is accepted and ignored.
    """
    kwargs = {k: (_dev.to_numpy(v) if is_array(v) else v) for k, v in kwargs.items() if k != "kernel"}
    values, present = to_dense(A)
    u = _dev.to_numpy(u)
    if op == "vxm":
        return dense_vxm(u, values, present, semiring, **kwargs)
    if op == "mxv":
        return dense_mxv(values, u, present, semiring, **kwargs)
    raise ValueError(f"op must be 'vxm' or 'mxv', got {op!r}")
