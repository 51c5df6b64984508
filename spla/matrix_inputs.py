"""The checks spla.Matrix's constructors make on what they are given, at the door: directions,
vertex counts, shapes, value dtypes and networkx edge weights."""

from __future__ import annotations

import numbers
import operator

import numpy as np

from . import device as _dev
from .errors import DomainMismatch, InvalidGraph

#: the largest dimension a matrix may have: its indices are at most int64
DIM_MAX = np.iinfo(np.int64).max

__all__ = ["DIM_MAX", "check_directed", "check_value_dtype", "value_array", "vertex_count", "shape_pair", "edge_weights"]


def check_directed(directed):
    """``directed`` must be True, False or None (a string such as "no" would read as True)."""
    if directed is not None and not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be True, False or None, got {directed!r}")


def check_value_dtype(dtype, what="values"):
    """Matrix values must be bool, integer or float of at most 8 bytes: the dtypes both backends
    compute in (complex has no semiring; longdouble has no GPU type and would lose digits in a cast)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "biuf" or dtype.itemsize > 8:
        raise DomainMismatch(f"{what} of dtype {dtype} are not supported; use bool, integer or float values "
                             "of at most 64 bits (e.g. values.astype(np.float64))")


def value_array(values, what="values"):
    """``values`` as a NumPy array of a supported dtype: float16 (which SciPy's sparse arrays do not
    hold) becomes float32, exactly; other dtypes are checked by :func:`check_value_dtype`."""
    values = np.asarray(_dev.to_numpy(values))
    if values.dtype == np.float16:
        return values.astype(np.float32)
    check_value_dtype(values.dtype, what)
    return values


def vertex_count(n, name="n"):
    """``n`` as a Python int in 0..DIM_MAX, or a TypeError/InvalidGraph naming it (a bool is refused:
    True is not a count)."""
    try:
        if isinstance(n, (bool, np.bool_)):
            raise TypeError
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {n!r}") from None
    if n < 0:
        raise InvalidGraph(f"{name} must be >= 0, got {n}")
    if n > DIM_MAX:
        raise InvalidGraph(f"{name} = {n} is beyond the int64 indices spla stores (at most {DIM_MAX})")
    return n


def shape_pair(shape):
    """``shape`` as (nrows, ncols) of Python ints, or a TypeError/InvalidGraph naming what is wrong."""
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"shape must be a pair (nrows, ncols), got {shape!r}") from None
    if len(dims) != 2:
        raise InvalidGraph(f"shape must be a pair (nrows, ncols), got {shape!r} of {len(dims)} entries")
    return vertex_count(dims[0], "shape[0]"), vertex_count(dims[1], "shape[1]")


def edge_weights(G, weight, weights):
    """The edge weights as a NumPy array of bool, integer or float (a Fraction or Decimal becomes a
    float64), or InvalidGraph naming the first edge whose weight is not a real number."""
    try:
        values = np.array(weights)
    except (TypeError, ValueError, OverflowError):
        values = np.array(weights, dtype=object)
    if values.ndim == 1 and values.dtype.kind in "biuf" and values.dtype.itemsize <= 8:
        return value_array(values, "edge weights")
    for a, b, w in G.edges(data=weight, default=1):
        real = isinstance(w, numbers.Real) or (isinstance(w, numbers.Number) and not isinstance(w, numbers.Complex))
        if not real or isinstance(w, str) or (isinstance(w, int) and not -2**63 <= w < 2**64):
            raise InvalidGraph(f"edge {a!r} - {b!r} has {weight}={w!r} ({type(w).__name__}); edge weights must "
                               "be real numbers (bool, int within 64 bits, float, Fraction, Decimal)")
    try:  # every weight is a real number: Fractions, Decimals and mixes of huge ints become float64
        return np.array([float(w) for w in weights], dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise InvalidGraph(f"edge weights {weight!r} cannot be converted to float64 ({e})") from None
