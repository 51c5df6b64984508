"""Comparing results: :func:`assert_equal`, and running a function on every device.

* :func:`assert_equal`: floats with ``np.testing.assert_allclose`` (NaN == NaN, inf == inf),
  integers and booleans exactly, dtypes and shapes equal; recursively through tuples, lists and
  dicts; CuPy arrays, Matrices and SciPy/CuPy sparse matrices are brought to the host first.
* :func:`assert_backends_equal`: run a function on the CPU and on every GPU (each leg on its own
  copies of the inputs) and assert the results agree; :func:`compare_backends` is the same as a
  decorator.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import device as _dev
from ..matrix import Matrix
from .devices import available_devices, is_array


def _is_sparse(x) -> bool:
    """Whether x is a SciPy or CuPy sparse matrix/array (edge betweenness returns one)."""
    import scipy.sparse

    return scipy.sparse.issparse(x) or type(x).__module__.startswith("cupyx.scipy.sparse")


def _walk(x, on_array, on_matrix=None):
    """x with every NumPy/CuPy array replaced by ``on_array(a)`` and every Matrix or SciPy/CuPy sparse
    matrix by ``on_matrix(M)`` (kept when None), recursively through tuples, lists and dicts; anything
    else as it is."""
    if on_matrix is not None and (isinstance(x, Matrix) or _is_sparse(x)):
        return on_matrix(x)
    if is_array(x):
        return on_array(x)
    if isinstance(x, tuple):
        return tuple(_walk(v, on_array, on_matrix) for v in x)
    if isinstance(x, list):
        return [_walk(v, on_array, on_matrix) for v in x]
    if isinstance(x, dict):
        return {k: _walk(v, on_array, on_matrix) for k, v in x.items()}
    return x


def _matrix_parts(M):
    """A Matrix as ("Matrix", shape, directedness, colptr, rowidx, values); a SciPy/CuPy sparse matrix as
    ("sparse", shape, indptr, indices, data) of its canonical CSR form (duplicates summed, indices
    sorted, explicit zeros kept: a stored zero is part of the pattern), all on the host."""
    if _is_sparse(M):
        import scipy.sparse

        S = scipy.sparse.csr_array(M.get() if hasattr(M, "get") else M, copy=True)
        S.sum_duplicates()
        S.sort_indices()
        return ("sparse", S.shape, S.indptr.astype(np.int64), S.indices.astype(np.int64), S.data)
    vals = None if M.values is None else _dev.to_numpy(M.values)
    return ("Matrix", M.shape, "directed" if M.directed else "undirected",
            _dev.to_numpy(M.colptr).astype(np.int64), _dev.to_numpy(M.rowidx).astype(np.int64), vals)


def _host(x):
    """x with every CuPy array replaced by a NumPy one, Matrices and sparse matrices by their parts
    (``_matrix_parts``)."""
    return _walk(x, _dev.to_numpy, _matrix_parts)


def assert_equal(actual, expected, *, rtol=1e-6, atol=1e-9, check_dtype=True, err_msg="", _path="result"):
    """Assert two results are equal: floats with ``np.testing.assert_allclose`` (NaN == NaN,
    inf == inf), integers and booleans exactly, dtypes and shapes equal; recursively
    through tuples, lists and dicts; CuPy arrays, Matrices and SciPy/CuPy sparse matrices (pattern
    exactly, values as floats) are brought to the host."""
    actual, expected = _host(actual), _host(expected)
    where = f"{err_msg}{': ' if err_msg else ''}{_path}"
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), \
            f"{where}: expected a sequence of {len(expected)}, got {type(actual).__name__} {actual!r:.200}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_equal(a, e, rtol=rtol, atol=atol, check_dtype=check_dtype, err_msg=err_msg, _path=f"{_path}[{i}]")
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(actual) == set(expected), \
            f"{where}: expected a dict with keys {sorted(map(str, expected))}, got {actual!r:.200}"
        for k in expected:
            assert_equal(actual[k], expected[k], rtol=rtol, atol=atol, check_dtype=check_dtype,
                         err_msg=err_msg, _path=f"{_path}[{k!r}]")
        return
    if expected is None or isinstance(expected, str):
        same = actual is None if expected is None else (isinstance(actual, str) and actual == expected)
        assert same, f"{where}: expected {expected!r}, got {actual!r:.200}"
        return
    a, e = np.asarray(actual), np.asarray(expected)
    typed = (np.ndarray, np.generic)  # a Python number has no dtype of its own to compare
    if check_dtype and isinstance(expected, typed) and isinstance(actual, typed):
        assert a.dtype == e.dtype, f"{where}: dtype {a.dtype} != expected {e.dtype}"
    assert a.shape == e.shape, f"{where}: shape {a.shape} != expected {e.shape}"
    if e.dtype.kind in "fc" or a.dtype.kind in "fc":
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(a, e, err_msg=where, strict=False)


def _move(x, device):
    """x with every Matrix and array moved (copied) to ``device``, recursively."""
    return _walk(x, lambda a: _dev.to_device(np.array(_dev.to_numpy(a), copy=True), device),
                 lambda M: M.to(device))


def _copy_arrays(x):
    """x with every NumPy/CuPy array copied (on its own device), recursively; the rest as it is."""
    return _walk(x, lambda a: a.copy())


def _accepts_device(fn):
    try:
        return "device" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def assert_backends_equal(fn, *args, rtol=1e-6, atol=1e-9, devices=None, require_gpu=False, pass_device=None,
                          move=True, check_dtype=True, **kwargs):
    """Run ``fn`` on the CPU and on every available GPU and assert the results agree.

    For each device ``d`` (default: ``available_devices()``, i.e. "cpu" and "gpu:0" when
    there is a GPU) it calls ``fn(*args, device=d, **kwargs)`` when ``fn`` has a ``device``
    parameter (or ``pass_device=True``), else ``fn(*args, **kwargs)``; with ``move=True``
    every ``spla.Matrix`` and NumPy/CuPy array in ``args``/``kwargs`` (also inside tuples,
    lists and dicts) is first moved -- copied -- to ``d``; with ``move=False`` the arrays are
    copied where they are.  Either way in-place updates on one device never leak into another's
    inputs, and each leg's result is copied before the next leg runs.  (A ``spla.Matrix`` is
    shared by the legs when ``move=False``: do not modify its arrays in place.)

    Results are compared with :func:`assert_equal` (floats to ``rtol``/``atol``, integers
    and booleans exactly, recursively through tuples, lists and dicts, CuPy arrays
    brought back with ``spla.device.to_numpy``).  Without a GPU only the CPU leg runs,
    unless ``require_gpu=True``, which calls ``pytest.skip``.  Returns the first device's
    result (as NumPy).
    """
    if devices is None:
        devices = available_devices()
        if len(devices) < 2 and require_gpu:
            import pytest

            pytest.skip("no GPU: CuPy is not installed or sees no CUDA device")
    devices = list(devices)
    if not devices:
        raise ValueError("devices is empty")
    if pass_device is None:
        pass_device = _accepts_device(fn)
    results = []
    for d in devices:
        # move=False: the inputs stay where they are, but each leg gets its own copy of every array
        a = _move(args, d) if move else _copy_arrays(args)
        kw = _move(kwargs, d) if move else _copy_arrays(kwargs)
        if pass_device:
            kw["device"] = d
        results.append(_copy_arrays(_host(fn(*a, **kw))))  # a later leg cannot change this result
    for d, r in zip(devices[1:], results[1:]):
        assert_equal(r, results[0], rtol=rtol, atol=atol, check_dtype=check_dtype,
                     err_msg=f"{getattr(fn, '__name__', fn)!s} on {d} differs from {devices[0]}")
    return results[0]


def compare_backends(rtol=1e-6, atol=1e-9, devices=None, require_gpu=False, check_dtype=True):
    """Decorator: the test body ``fn(..., device)`` returns a result; the decorated test
    runs it on every device (:func:`assert_backends_equal`) and asserts they agree.

    Like CuPy's ``numpy_cupy_allclose``: write the body once against ``device``::

        @given(matrices(square=True))
        @compare_backends(rtol=1e-5)
        def test_pagerank_same_everywhere(A, device):
            return my_pagerank(A.to(device))

    The wrapper returns None (as test functions must) and its signature drops ``device``,
    so pytest and hypothesis do not supply it.
    """
    def deco(fn):
        sig = inspect.signature(fn)
        if "device" not in sig.parameters:
            raise TypeError(f"{fn.__name__} needs a 'device' parameter to be run on each device")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            assert_backends_equal(fn, *args, rtol=rtol, atol=atol, devices=devices, require_gpu=require_gpu,
                                         pass_device=True, move=False, check_dtype=check_dtype, **kwargs)

        wrapper.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n != "device"])
        del wrapper.__wrapped__  # pytest/hypothesis must see the new signature, not fn's
        return wrapper

    return deco
