"""Sparse × sparse semiring product with a matrix mask: ``mxm``.

    C<M> = A ⊕.⊗ B:   C(i, j) = ADD_{k : A(i, k), B(k, j) stored} MUL(A(i, k), B(k, j))

computed only where the mask allows, then merged into ``out`` as GraphBLAS defines
``C<M, replace> = accum(C, T)``.  Every stored entry takes part, whatever its value (a stored 0 of A
is an entry); C(i, j) is stored exactly when some k has both A(i, k) and B(k, j) stored, even when
the products reduce to the monoid's identity.  Matrix masks and the merge are in
:mod:`spla.masks`, shared with the matrix operations of :mod:`spla.matrixops`.
"""

from __future__ import annotations

from . import device as _dev
from . import semirings as _sr
from .backends import for_device as _backend
from .errors import DeviceMismatch, DimensionMismatch
from .masks import allowed_keys, check_mask_args, finish, result_dtype
from .matrix import Matrix
from .ops import _check_values_cast

__all__ = ["mxm"]


def mxm(A, B, semiring, *, mask=None, complement=False, structural=True, accum=None, out=None, replace=False,
        dtype=None):
    """C<M> = accum(C, A ⊕.⊗ B): C(i, j) = ADD_k MUL(A(i, k), B(k, j)), a new :class:`spla.Matrix`.

    Parameters
    ----------
    A : spla.Matrix (m, k);  B : spla.Matrix (k, n), on A's device
    semiring : str or spla.semirings.Semiring; MUL's first argument is A's entry, its second B's
    mask : spla.Matrix (m, n), optional
        Which entries of the result to compute and write: with ``structural=True`` (the default) every
        stored entry of the mask, else the stored entries whose value is nonzero (a pattern-only
        mask's are all 1).  ``complement=True`` allows the others.
    accum : str, optional
        One of plus, min, max, lor, bor, first, second: where the mask allows, ``accum(C, T)`` over
        the union of C's and T's entries (an entry in one of them keeps its value).  Without accum
        the result replaces C there (an entry of C the product lacks is deleted).  Needs ``out``.
    out : spla.Matrix (m, n), optional
        The matrix C merged into; spla matrices are immutable, so a new matrix is returned and
        ``out`` is left as it is.  Entries outside the mask keep C's value, or are deleted with
        ``replace=True``.  Its dtype must be the result's.
    dtype : the product's domain, optional
        A's and B's values are cast to it; by default NumPy's result type of their dtypes (a
        pattern-only matrix counts as bool), or int64 when that is bool and the semiring is not
        defined on bool (``plus_pair`` of two patterns counts paths).

    Returns
    -------
    spla.Matrix (m, n) of ``dtype``, directed, on A's device, with values.

    Examples
    --------
    >>> import numpy, spla
    >>> L = spla.Matrix.from_scipy(numpy.tril(numpy.ones((3, 3)), -1), device="cpu")  # a triangle
    >>> C = spla.mxm(L, L.T, "plus_pair", mask=L)     # C<L> = L +.pair L'
    >>> int(C.values.sum())                            # its triangles
    1
    """
    for name, M in (("A", A), ("B", B)):
        if not isinstance(M, Matrix):
            raise TypeError(f"mxm: {name} must be a spla.Matrix, got {type(M).__name__}")
    semiring = _sr.get(semiring)
    if B.device != A.device:
        raise DeviceMismatch(f"mxm: B is on {B.device} but A on {A.device}; move it with B.to({A.device!r})")
    if A.shape[1] != B.shape[0]:
        raise DimensionMismatch(f"mxm: A is {A.shape[0]} x {A.shape[1]} and B {B.shape[0]} x {B.shape[1]}: "
                                "A's columns must equal B's rows")
    shape = (A.shape[0], B.shape[1])
    dtype = result_dtype("mxm", semiring, dtype, A, B)
    check_mask_args("mxm", shape, A.device, dtype, mask, complement, structural, accum, out, replace)
    # values with no value in an integer domain (NaN, out of range) are refused where MUL reads them:
    # A's are MUL's first argument (as mxv's matrix), B's its second (as vxm's)
    _check_values_cast("mxm", A, semiring, dtype, True)
    _check_values_cast("mxm", B, semiring, dtype, False)
    with _dev.activate(A.device):
        mkeys = None if mask is None else allowed_keys(mask, structural)
        keys, vals = _backend(A.device).mxm(A, B, semiring, dtype, mkeys, bool(complement))
        return finish(shape, A.device, dtype, keys, vals, mkeys, bool(complement), accum, out, bool(replace))
