"""Matrix masks and the GraphBLAS output merge ``C<M, replace> = accum(C, T)``, for the operations whose
result is a :class:`spla.Matrix` (:func:`spla.mxm` and :mod:`spla.matrixops`).

A mask M is a spla.Matrix of the result's shape.  Structural (the default): M allows the positions it
stores, whatever their values.  Valued (``structural=False``): M allows the stored entries whose value
is nonzero (every entry of a pattern-only M).  ``complement=True`` allows every other position.

The merge, with T the operation's result where the mask allows it:

* Z = T without ``accum``; with it, Z = accum(C, T) over the union of C's and T's entries (an entry
  in only one of them keeps its value);
* where the mask allows: C(i, j) = Z(i, j), or no entry when Z has none;
* elsewhere: C(i, j) keeps its entry, or loses it with ``replace=True``.

Without ``out``, C is empty and the result is T.  Entries are handled as sorted int64 keys
``j * nrows + i``: the CSC order of an (nrows, ncols) matrix.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from . import semirings as _sr
from .errors import DeviceMismatch, DimensionMismatch, DomainMismatch, UnknownNameError
from .matrix import Matrix, declare_cache, index_dtype

__all__ = ["allowed_keys", "check_mask_args", "entries_matrix", "finish", "keys_of", "member", "result_dtype"]

_KEYS = declare_cache("keys", "the sorted int64 keys j * nrows + i of the stored entries (spla.masks.keys_of)")


def result_dtype(who, semiring, dtype, *operands):
    """The domain of an operation over ``operands`` (Matrices): ``dtype`` when given, else NumPy's
    result type of theirs (pattern-only: bool), promoted to int64 when that is bool and the semiring
    (None: any domain) is not defined on bool.  Checked against the semiring's domains."""
    if dtype is None:
        dtype = np.result_type(*[M.dtype for M in operands])
        if dtype == np.bool_ and semiring is not None and dtype not in semiring.dtypes:
            dtype = np.dtype(np.int64)
    dtype = np.dtype(dtype)
    if semiring is not None and dtype not in semiring.dtypes:
        raise semiring.dtype_error(dtype, who)
    return dtype


def check_mask_args(who, shape, device, dtype, mask, complement, structural, accum, out, replace):
    """Validate a matrix operation's mask, accum, out and replace against its result's shape, device
    and dtype; raise what a caller can act on."""
    for flag, value in (("complement", complement), ("structural", structural), ("replace", replace)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{who}: {flag} must be True or False, got {value!r}")
    for name, M in (("mask", mask), ("out", out)):
        if M is None:
            continue
        if not isinstance(M, Matrix):
            raise TypeError(f"{who}: {name} must be a spla.Matrix, got {type(M).__name__}")
        if M.shape != tuple(shape):
            raise DimensionMismatch(f"{who}: {name} has shape {M.shape} but the result has shape {tuple(shape)}")
        if M.device != device:
            raise DeviceMismatch(f"{who}: {name} is on {M.device} but the operands on {device}; "
                                 f"move it with {name}.to({device!r})")
    if mask is None and complement:
        raise ValueError(f"{who}: complement=True needs a mask")
    if accum is not None:
        if not isinstance(accum, str) or accum not in _sr.ACCUM_OPS:
            raise UnknownNameError(f"{who}: unknown accum {accum!r}; use one of {', '.join(_sr.ACCUM_OPS)}")
        if out is None:
            raise ValueError(f"{who}: accum={accum!r} needs out= (the matrix to accumulate into)")
        if np.dtype(dtype) not in _sr.accum_dtypes(accum):
            raise DomainMismatch(f"{who}: accum {accum!r} is not defined on dtype {dtype}")
    if out is not None and out.dtype != np.dtype(dtype):
        raise DomainMismatch(f"{who}: out has dtype {out.dtype} but the result has dtype {np.dtype(dtype)}; "
                             f"pass out.astype({np.dtype(dtype).name!r}) or dtype={out.dtype.name!r}")


def keys_of(M):
    """The sorted int64 keys j * nrows + i of M's stored entries (its CSC order), cached on M."""
    return M.cached(_KEYS, lambda: M.colidx.astype(np.int64) * M.shape[0] + M.rowidx.astype(np.int64))


def allowed_keys(mask, structural):
    """The sorted keys of the positions ``mask`` allows before any complement: all its stored entries,
    or (``structural=False``) those whose value is nonzero."""
    keys = keys_of(mask)
    if structural or mask.values is None:
        return keys
    return keys[mask.values != 0]


def member(keys, sorted_keys):
    """Whether each of ``keys`` is in the sorted array ``sorted_keys`` (NumPy or CuPy)."""
    xp = _xp(keys)
    if sorted_keys.size == 0 or keys.size == 0:
        return xp.zeros(keys.shape, dtype=bool)
    pos = xp.searchsorted(sorted_keys, keys)
    pos = xp.minimum(pos, sorted_keys.size - 1)
    return sorted_keys[pos] == keys


def _xp(a):
    return np if isinstance(a, np.ndarray) else _dev.array_module("gpu")


def entries_matrix(keys, vals, shape, device, directed=True, symmetric=False):
    """The (nrows, ncols) Matrix of the entries ``keys`` (sorted, unique j * nrows + i) and ``vals``
    (None: pattern-only), on ``device`` (where the arrays are); directed unless told otherwise, and
    stored as its own transpose with ``symmetric`` (the caller knows it is)."""
    xp = _xp(keys)
    m, n = int(shape[0]), int(shape[1])
    idx = index_dtype(int(keys.size), m, n)
    rows = (keys % max(m, 1)).astype(idx)
    cols = keys // max(m, 1)
    colptr = xp.searchsorted(cols, xp.arange(n + 1, dtype=np.int64), side="left").astype(idx)
    return Matrix(colptr, rows, vals, (m, n), directed=directed, device=device, _symmetric=symmetric)


def _values_as(M, dtype):
    xp = M.xp
    return xp.ones(M.nnz, dtype=dtype) if M.values is None else M.values.astype(dtype, copy=False)


def finish(shape, device, dtype, keys, vals, mask_keys, complement, accum, out, replace):
    """The Matrix of ``C<M, replace> = accum(C, T)``: T's entries ``keys``/``vals`` (already restricted
    to the mask), C = ``out`` (None: empty), the mask's allowed keys ``mask_keys`` (None: no mask)."""
    if out is None:
        return entries_matrix(keys, vals, shape, device)
    xp = out.xp
    ckeys, cvals = keys_of(out), _values_as(out, dtype)
    union = xp.unique(xp.concatenate([ckeys, keys]))
    in_c, in_t = member(union, ckeys), member(union, keys)
    cval = _gather(cvals, ckeys, union, xp)
    tval = _gather(vals, keys, union, xp)
    if accum is None:
        zval, z_has = tval, in_t
    else:
        both = _sr.accum_apply(accum, cval, tval, xp).astype(dtype, copy=False)
        zval = xp.where(in_c & in_t, both, xp.where(in_t, tval, cval))
        z_has = in_c | in_t
    if mask_keys is None:
        allowed = xp.ones(union.shape, dtype=bool)
    else:
        allowed = member(union, mask_keys)
        allowed = ~allowed if complement else allowed
    keep = (allowed & z_has) | (~allowed & in_c & (not replace))
    value = xp.where(allowed, zval, cval)
    return entries_matrix(union[keep], value[keep].astype(dtype, copy=False), shape, device)


def _gather(vals, keys, at, xp):
    """vals at each key of ``at`` where ``keys`` holds it (any value elsewhere)."""
    if keys.size == 0:
        return xp.zeros(at.shape, dtype=vals.dtype)
    pos = xp.minimum(xp.searchsorted(keys, at), keys.size - 1)
    return vals[pos]
