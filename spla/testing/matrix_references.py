"""Dense NumPy references of the operations whose result is a spla.Matrix (:func:`spla.mxm`, the
operations of :mod:`spla.matrixops`): naive loops and whole-array NumPy, obviously right.

A dense matrix here is a pair ``(values, present)`` of (m, n) arrays: ``present`` says which
entries are stored, ``values`` holds them (anything where ``present`` is False).
"""

from __future__ import annotations

import numpy as np

from .. import semirings as _sr
from .references import _ADD, _accum, _mul, identity, to_dense

__all__ = ["dense_of", "dense_mxm", "dense_merge", "dense_mask", "assert_matrix_equal"]


def dense_of(M, dtype):
    """``(values, present)`` of a Matrix with its values cast to ``dtype`` (a pattern's entries 1)."""
    values, present = to_dense(M)
    if values is None:
        values = present.astype(dtype)
    return values.astype(dtype), present


def dense_mxm(A, B, semiring, dtype):
    """(values, present) of A ⊕.⊗ B, one output at a time: C(i, j) = ADD over the k stored in both."""
    sr = _sr.get(semiring)
    av, ap = dense_of(A, dtype)
    bv, bp = dense_of(B, dtype)
    m, n = A.shape[0], B.shape[1]
    add = _ADD.get(sr.add.name, np.maximum if sr.add.name == "any" else sr.add.ufunc)  # any: max, as documented
    values = np.full((m, n), identity(sr.add, dtype), dtype=dtype)
    present = np.zeros((m, n), dtype=bool)
    for i in range(m):
        for j in range(n):
            ks = np.flatnonzero(ap[i] & bp[:, j])
            if ks.size:
                prods = np.asarray(_mul(sr.mul.name, av[i, ks], bv[ks, j])).astype(dtype)
                values[i, j] = add.reduce(prods)
                present[i, j] = True
    return values, present


def dense_mask(mask, shape, structural, complement):
    """The (m, n) bool array of the positions a matrix mask allows (None: all)."""
    if mask is None:
        return np.ones(shape, dtype=bool)
    values, present = to_dense(mask)
    allowed = present if structural or values is None else present & (values != 0)
    return ~allowed if complement else allowed


def dense_merge(t, allowed, out, accum, replace, dtype):
    """C<M, replace> = accum(C, T) on dense (values, present) pairs; ``out`` None is an empty C."""
    tv, tp = t
    if out is None:
        return np.where(allowed & tp, tv, 0).astype(dtype), allowed & tp
    cv, cp = dense_of(out, dtype)
    if accum is None:
        zv, zp = tv, tp
    else:
        both = np.asarray(_accum(accum, cv, tv)).astype(dtype)
        zv = np.where(cp & tp, both, np.where(tp, tv, cv))
        zp = cp | tp
    keep_c = cp & ~allowed & (not replace)
    present = (allowed & zp) | keep_c
    values = np.where(allowed, zv, cv)
    return np.where(present, values, 0).astype(dtype), present


def assert_matrix_equal(C, want, dtype, *, exact=True):
    """Assert that Matrix ``C`` holds the dense (values, present) ``want`` in ``dtype``."""
    wv, wp = want
    assert C.dtype == np.dtype(dtype), (C.dtype, dtype)
    gv, gp = dense_of(C, dtype)
    assert np.array_equal(gp, wp), f"pattern differs:\n{gp.astype(int)}\nwant\n{wp.astype(int)}"
    got, exp = gv[wp], wv[wp]
    if exact or np.dtype(dtype).kind != "f":
        assert np.array_equal(got, exp, equal_nan=np.dtype(dtype).kind == "f"), (got, exp)
    else:
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-6, equal_nan=True)
