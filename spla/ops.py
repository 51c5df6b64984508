"""Masked semiring products on one vector or a block of k vectors: ``vxm`` and ``mxv``.

    vxm:  y[j] = ADD_i MUL(u[i], A[i, j])        (y = u ⊕.⊗ A,  pulls along columns of A)
    mxv:  y[i] = ADD_j MUL(A[i, j], u[j])        (y = A ⊕.⊗ u,  computed as a vxm over A.T)

Every argument is checked here, at the door; the backends (``spla.backends.cpu`` and
``spla.backends.gpu``) receive validated, device-resident arrays.
"""

from __future__ import annotations

import functools
import logging

import numpy as np

from . import device as _dev
from . import semirings as _sr
from .backends import for_device as _backend
from .backends.gpu.selection import choose_kernel
from .backends.names import KERNELS, normalize_kernel
from .errors import DimensionMismatch, DomainMismatch, InvalidGraph, KernelUnavailable, UnknownNameError
from .matrix import Matrix, declare_cache

__all__ = ["vxm", "mxv", "KERNELS", "normalize_kernel"]

log = logging.getLogger("spla")

VALUES_CAST_OK_KEY = declare_cache("values_cast_ok",
                                   "whether every value of the matrix has a value in an integer domain")


def vxm(u, A, semiring, *, mask=None, complement=False, accum=None, out=None, replace=False, kernel="auto"):
    """y = u ⊕.⊗ A:  y[j] = ADD_i MUL(u[i], A[i, j]).

    Parameters
    ----------
    u : array (nrows,) or (nrows, k), NumPy on "cpu" / CuPy on "gpu:N"
        One vector, or a block of k independent vectors (row i holds vertex i's k values);
        one that is not C-contiguous (a Fortran-ordered block, a strided view) is copied first.
        Its dtype is the product's domain; A's values are cast to it.  An entry equal to
        the semiring's additive identity contributes nothing.
    A : spla.Matrix (nrows, ncols)
    semiring : str or spla.semirings.Semiring, e.g. "plus_times", "any_pair", "bor_first"
    mask : bool array (ncols,) or (ncols, k), optional
        Which outputs to compute; a (ncols,) mask is shared by a block's k vectors.
    complement : bool
        Compute where ``mask`` is False instead.
    accum : str, optional
        One of plus, min, max, lor, bor, first, second: ``out = accum(out, result)`` where
        computed.  Needs ``out``.
    out : array shaped and typed like the result, optional, C-contiguous
        Written in place and returned.  Outputs not computed keep their value, or
        become the identity when ``replace=True``.  Without ``out`` they are the identity.
        ``out`` may be ``u`` itself or overlap ``u`` or ``mask``: the result is the one that
        copies of them would give (the CPU computes every output before writing ``out``, the
        GPU works on a copy of an ``out`` that overlaps an input).
    kernel : "auto", "scCSC", "veCSC", "scCOOC" or "push"
        GPU kernel; "auto" picks by :func:`spla.choose_kernel` (with a mask: ``masked=True``, a
        mask of unknown density; a caller who knows it passes ``choose_kernel(A, masked="sparse")[0]``
        or ``"dense"``).  The first three pull (they
        walk the computed outputs' entries); "push" walks the entries of the inputs that are
        not the identity and ADDs into the outputs atomically (a small BFS frontier: ask
        ``choose_kernel`` with ``push_arcs``/``pull_arcs``; "auto" never pushes, since it
        cannot see how sparse u is without reading it).  The CPU backend has one
        vectorised implementation and only validates the name.

    Returns
    -------
    array (ncols,) or (ncols, k) of u.dtype.
    """
    return _product(u, A, semiring, mask, complement, accum, out, replace, kernel, transpose=False)


def mxv(A, u, semiring, *, mask=None, complement=False, accum=None, out=None, replace=False, kernel="auto"):
    """y = A ⊕.⊗ u:  y[i] = ADD_j MUL(A[i, j], u[j]).

    Same arguments as :func:`vxm`, with u of shape (ncols,) or (ncols, k) and the result
    (nrows,) or (nrows, k).  Runs as a vxm over the cached transpose ``A.T`` (``A``
    itself for an undirected graph).
    """
    return _product(u, A, semiring, mask, complement, accum, out, replace, kernel, transpose=True)


def _product(u, A, semiring, mask, complement, accum, out, replace, kernel, transpose):
    name = "mxv" if transpose else "vxm"
    if not isinstance(A, Matrix):
        raise TypeError(f"{name}: A must be a spla.Matrix, got {type(A).__name__}; build one with "
                        "spla.Matrix.from_scipy / from_edges / from_networkx")
    with _dev.activate(A.device):  # A on "gpu:1" computes there whichever GPU is current
        return _product_on_device(name, u, A, semiring, mask, complement, accum, out, replace, kernel, transpose)


def _product_on_device(name, u, A, semiring, mask, complement, accum, out, replace, kernel, transpose):
    semiring = _sr.get(semiring)
    kernel = normalize_kernel(kernel)
    _dev.check_same_device("u", u, A.device)
    n_in, n_out = (A.shape[1], A.shape[0]) if transpose else (A.shape[0], A.shape[1])
    if u.ndim not in (1, 2):
        raise DimensionMismatch(f"{name}: u must be 1-D (n,) or a 2-D block (n, k), got shape {u.shape}")
    if u.shape[0] != n_in:
        raise DimensionMismatch(f"{name}: u has {u.shape[0]} rows but A of shape {A.shape} needs {n_in}")
    if np.dtype(u.dtype) not in semiring.dtypes:
        raise semiring.dtype_error(u.dtype, name)
    for flag, value in (("complement", complement), ("replace", replace)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name}: {flag} must be True or False, got {value!r}")
    _check_values_cast(name, A, semiring, u.dtype, transpose)
    xp = A.xp
    if not u.flags.c_contiguous:
        u = xp.ascontiguousarray(u)
    out_shape = (n_out,) + tuple(u.shape[1:])
    if mask is not None:
        _dev.check_same_device("mask", mask, A.device)
        if mask.dtype != np.bool_:
            raise DomainMismatch(f"{name}: mask must be a bool array, got dtype {mask.dtype}; use mask.astype(bool)")
        if mask.shape != out_shape and not (u.ndim == 2 and mask.shape == (n_out,)):
            raise DimensionMismatch(f"{name}: mask has shape {mask.shape} but the output has shape {out_shape}"
                                    + (f" (a block also accepts ({n_out},))" if u.ndim == 2 else ""))
        if not mask.flags.c_contiguous:
            mask = xp.ascontiguousarray(mask)
    elif complement:
        raise ValueError(f"{name}: complement=True needs a mask")
    if accum is not None:
        if not isinstance(accum, str) or accum not in _sr.ACCUM_OPS:  # an array would compare elementwise
            raise UnknownNameError(f"{name}: unknown accum {accum!r}; use one of {', '.join(_sr.ACCUM_OPS)}")
        if out is None:
            raise ValueError(f"{name}: accum={accum!r} needs out= (the array to accumulate into)")
        if np.dtype(u.dtype) not in _sr.accum_dtypes(accum):
            raise DomainMismatch(f"{name}: accum {accum!r} is not defined on dtype {u.dtype}")
    if out is not None:
        _dev.check_same_device("out", out, A.device)
        if out.shape != out_shape:
            raise DimensionMismatch(f"{name}: out has shape {out.shape} but the result has shape {out_shape}")
        if out.dtype != u.dtype:
            raise DomainMismatch(f"{name}: out has dtype {out.dtype} but the result has u's dtype {u.dtype}")
        if not out.flags.c_contiguous:
            raise ValueError(f"{name}: out must be C-contiguous, got one of shape {out.shape} with strides "
                             f"{out.strides}; pass a contiguous copy (xp.ascontiguousarray(out)) and use the "
                             "array returned")
        if not getattr(out.flags, "writeable", True):
            raise ValueError(f"{name}: out is read-only; pass a writeable array (out.copy())")
    M = A.T if transpose else A
    backend = _backend(A.device)
    k = 1 if u.ndim == 1 else u.shape[1]
    if kernel == "auto":
        kernel, reason = choose_kernel(M, k=k, semiring=semiring, dtype=u.dtype, masked=mask is not None)
    else:
        reason = "requested"
        ok, why = backend.supports(kernel, semiring, u.dtype)
        if not ok:
            raise KernelUnavailable(f"{name}: kernel {kernel} cannot run {semiring.name} on {u.dtype}: {why}; "
                                    "use kernel='auto' or another kernel")
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s %s %s shape=%s k=%d mask=%s kernel=%s (%s) device=%s", name, semiring.name, u.dtype,
                  A.shape, k, "none" if mask is None else ("~mask" if complement else "mask"), kernel, reason,
                  A.device)
    return backend.vxm(u, M, semiring, mask, bool(complement), accum, out, bool(replace), kernel, swap=transpose)


def _check_values_cast(name, A, semiring, dtype, transpose):
    """Refuse matrix values that have no value in an integer domain: NaN, +-inf, and values (float
    after truncation, or integer) outside the dtype's range.  C leaves the float casts undefined,
    NumPy and CUDA give different integers for them, and an integer cast would wrap silently (2**32 + 5
    into int32 is 5).  Checked where MUL reads the values, once per (matrix, dtype)."""
    values = A.values
    if values is None or values.dtype.kind not in "fiu":  # a pattern or bool matrix: one attribute test
        return
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu" or _holds(values.dtype, dtype):
        return
    ignores_a = ("pair", "second" if transpose else "first")  # mxv computes MUL(a, x)
    if semiring.mul.name in ignores_a:
        return
    def fits():
        xp = A.xp
        lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
        if values.dtype.kind == "f":
            whole = xp.trunc(values)
            # exact bounds: the dtype's minimum and its maximum + 1 are 0 or powers of two
            return bool(xp.all(xp.isfinite(values) & (whole >= float(lo)) & (whole < float(int(hi) + 1))))
        return not values.size or (int(values.min()) >= lo and int(values.max()) <= hi)

    if not A.cached((VALUES_CAST_OK_KEY, dtype), fits):
        if values.dtype.kind == "f":
            what, remedy = "NaN, inf or values", "u.astype(np.float64)"
        else:
            what, remedy = "some", f"u.astype(np.{values.dtype.name})"
        raise InvalidGraph(f"{name}: A's {values.dtype} values include {what} outside {dtype}'s "
                           f"range [{np.iinfo(dtype).min}, {np.iinfo(dtype).max}], which have no {dtype} value; "
                           f"multiply in a domain that holds them ({remedy}) or clean A's values")


@functools.lru_cache(maxsize=None)
def _holds(values_dtype, dtype) -> bool:
    """Whether every value of the integer dtype ``values_dtype`` is a value of ``dtype``."""
    return values_dtype.kind in "iu" and bool(np.can_cast(values_dtype, dtype, "safe"))
