"""The matrix operations of spla.matrixops (and the selectors of spla.select) against dense NumPy
references, with every mask mode, accum, out and replace, on rectangular and empty shapes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import device as _dev
from spla import matrixops as mo
from spla import semirings as _sr
from spla.testing import matrices, scaled
from spla.testing.matrix_references import assert_matrix_equal, dense_mask, dense_merge, dense_of
from spla.testing.references import _mul

DTYPES = [np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.uint32, np.float32, np.float64)]


def _matrix(draw, rows, cols, device, label, dtype=None, unsigned=False):
    return draw(matrices(min_rows=rows, max_rows=rows, min_cols=cols, max_cols=cols, max_nnz=40,
                         min_value=0 if unsigned else None, dtype=dtype, device=device,
                         directed=True if rows != cols else None), label=label)


@st.composite
def merges(draw, shape, dtype, device):
    """The mask and merge keyword arguments of one call whose result is ``shape`` of ``dtype``."""
    kw = {}
    if draw(st.booleans(), label="masked"):
        kw["mask"] = _matrix(draw, *shape, device, "mask")
        kw["structural"] = draw(st.booleans(), label="structural")
        kw["complement"] = draw(st.booleans(), label="complement")
    if draw(st.booleans(), label="with out"):
        kw["out"] = _matrix(draw, *shape, device, "out", unsigned=dtype.kind == "u").astype(dtype)
        kw["replace"] = draw(st.booleans(), label="replace")
        kw["accum"] = draw(st.sampled_from([None] + [a for a in _sr.ACCUM_OPS if dtype in _sr.accum_dtypes(a)]),
                           label="accum")
    return kw


def _expect(t, shape, dtype, kw):
    allowed = dense_mask(kw.get("mask"), shape, kw.get("structural", True), kw.get("complement", False))
    return dense_merge(t, allowed, kw.get("out"), kw.get("accum"), kw.get("replace", False), dtype)


def _shape(draw):
    return draw(st.integers(0, 7), label="m"), draw(st.integers(0, 7), label="n")


# ------------------------------------------------------------------ select
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_select_equals_the_dense_reference(data, device):
    draw = data.draw
    m, n = _shape(draw)
    A = _matrix(draw, m, n, device, "A")
    which = draw(st.sampled_from(sorted(mo.SELECTORS)), label="which")
    i, j = np.indices((m, n))
    av, ap = dense_of(A, A.dtype)
    if which in ("offdiag", "diag"):
        thunk, keep = None, (i != j) if which == "offdiag" else (i == j)
    elif which in ("tril", "triu"):
        thunk = draw(st.integers(-3, 3), label="k")
        keep = (j <= i + thunk) if which == "tril" else (j >= i + thunk)
    elif which in ("rows", "cols"):
        hi = m if which == "rows" else n
        lo_ = draw(st.integers(0, hi), label="lo")
        thunk = (lo_, draw(st.integers(lo_, hi), label="hi"))
        idx = i if which == "rows" else j
        keep = (idx >= thunk[0]) & (idx < thunk[1])
    else:
        thunk = draw(st.integers(0, 3), label="thunk") if A.dtype.kind in "bu" else draw(st.integers(-3, 3))
        thunk = A.dtype.type(thunk)
        keep = getattr(np, mo._COMPARE[which])(av, thunk)
    kw = draw(merges((m, n), A.dtype, device))
    C = spla.select(A, which, thunk, **kw)
    assert_matrix_equal(C, _expect((av, ap & keep), (m, n), A.dtype, kw), A.dtype)
    if not kw and which in mo.STRUCTURAL_SELECTORS:
        assert C.is_pattern == A.is_pattern
        assert spla.select(A, which, thunk) is C  # cached
        if A.is_symmetric and which in ("offdiag", "diag"):
            assert C.is_symmetric and C.T is C


def test_select_refuses_bad_thunks():
    A = spla.Matrix.from_scipy(np.eye(3), device="cpu")
    with pytest.raises(ValueError, match="takes no thunk"):
        spla.select(A, "diag", 1)
    with pytest.raises(TypeError, match="diagonal offset"):
        spla.select(A, "tril", 0.5)
    with pytest.raises(TypeError, match="pair"):
        spla.select(A, "rows", 3)
    with pytest.raises(TypeError, match="a number"):
        spla.select(A, "gt", None)


# ------------------------------------------------------------------ apply
_UNARY_REF = {"identity": lambda a: a, "ainv": lambda a: a if a.dtype == bool else -a,
              "abs": lambda a: a if a.dtype.kind in "bu" else np.abs(a), "minv": lambda a: 1 / a,
              "lnot": lambda a: np.logical_not(a).astype(a.dtype), "one": lambda a: np.ones_like(a)}


@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_apply_equals_the_dense_reference(data, device):
    draw = data.draw
    m, n = _shape(draw)
    A = _matrix(draw, m, n, device, "A")
    bound = draw(st.sampled_from([None, "left", "right"]), label="bound")
    if bound is None:
        op = draw(st.sampled_from(sorted(mo.UNARY_OPS)), label="op")
        dtype = np.dtype(np.float64) if op == "minv" else A.dtype
        kwargs = {"dtype": dtype}
    else:
        op = draw(st.sampled_from(["times", "plus", "first", "second", "min", "max", "pair"]), label="op")
        dtype = draw(st.sampled_from([d for d in DTYPES if d.kind in "if"]), label="dtype")
        scalar = draw(st.integers(-3, 3), label="scalar")
        kwargs = {"dtype": dtype, bound: scalar}
    kw = draw(merges((m, n), dtype, device))
    C = spla.apply(A, op, **kwargs, **kw)
    av, ap = dense_of(A, dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        if bound is None:
            tv = _UNARY_REF[op](av)
        else:
            s = np.full(av.shape, dtype.type(kwargs[bound]))
            tv = _mul(op, av, s) if bound == "right" else _mul(op, s, av)
    assert_matrix_equal(C, _expect((np.asarray(tv).astype(dtype), ap), (m, n), dtype, kw), dtype)


def test_apply_gives_a_pattern_values():
    P = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")
    C = spla.apply(P, "times", right=2.5)
    assert C.dtype == np.float64 and not C.is_pattern and np.all(C.values == 2.5)
    with pytest.raises(ValueError, match="not both"):
        spla.apply(P, "plus", left=1, right=1)
    with pytest.raises(spla.UnknownNameError):
        spla.apply(P, "sqrt")
    with pytest.raises(spla.DomainMismatch, match="float domain"):
        spla.apply(P.astype(np.int64), "minv")
    with pytest.raises(spla.DomainMismatch, match="not supported"):
        spla.apply(P, "identity", dtype=np.complex128)
    with pytest.raises(spla.DomainMismatch, match="not supported"):
        spla.ewise_add(P, P, "plus", dtype=np.float16)


# ------------------------------------------------------------------ element-wise
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data(), union=st.booleans())
def test_ewise_equals_the_dense_reference(data, union, device):
    draw = data.draw
    m, n = _shape(draw)
    op = draw(st.sampled_from(["plus", "times", "min", "max", "first", "second", "pair"]), label="op")
    dtype = draw(st.sampled_from([d for d in DTYPES if d.kind != "b"]), label="dtype")
    A = _matrix(draw, m, n, device, "A", unsigned=dtype.kind == "u")
    B = _matrix(draw, m, n, device, "B", unsigned=dtype.kind == "u")
    kw = draw(merges((m, n), dtype, device))
    C = (spla.ewise_add if union else spla.ewise_mult)(A, B, op, dtype=dtype, **kw)
    av, ap = dense_of(A, dtype)
    bv, bp = dense_of(B, dtype)
    both = np.asarray(_mul(op, av, bv)).astype(dtype)
    if union:
        tv, tp = np.where(ap & bp, both, np.where(ap, av, bv)), ap | bp
    else:
        tv, tp = both, ap & bp
    assert_matrix_equal(C, _expect((tv, tp), (m, n), dtype, kw), dtype)


def test_ewise_errors():
    A = spla.Matrix.from_scipy(np.eye(3), device="cpu")
    with pytest.raises(spla.DimensionMismatch):
        spla.ewise_add(A, spla.Matrix.from_scipy(np.ones((3, 2)), device="cpu"), "plus")
    with pytest.raises(spla.UnknownNameError, match="binary operator"):
        spla.ewise_mult(A, A, "minus")


@settings(max_examples=scaled(40), deadline=None)
@given(data=st.data())
def test_kron_equals_the_dense_reference(data, device):
    draw = data.draw
    m, n = draw(st.integers(0, 3), label="m"), draw(st.integers(0, 3), label="n")
    p, q = draw(st.integers(0, 3), label="p"), draw(st.integers(0, 3), label="q")
    op = draw(st.sampled_from(["plus", "times", "min", "first", "second", "pair"]), label="op")
    dtype = draw(st.sampled_from([d for d in DTYPES if d.kind != "b"]), label="dtype")
    A = _matrix(draw, m, n, device, "A", unsigned=dtype.kind == "u")
    B = _matrix(draw, p, q, device, "B", unsigned=dtype.kind == "u")
    kw = draw(merges((m * p, n * q), dtype, device))
    C = spla.kron(A, B, op, dtype=dtype, **kw)
    av, ap = dense_of(A, dtype)
    bv, bp = dense_of(B, dtype)
    # C(i p + k, j q + l) = op(A(i, j), B(k, l)) where both are stored
    tv = np.asarray(_mul(op, av[:, None, :, None], bv[None, :, None, :])).astype(dtype).reshape(m * p, n * q)
    tp = (ap[:, None, :, None] & bp[None, :, None, :]).reshape(m * p, n * q)
    assert_matrix_equal(C, _expect((tv, tp), (m * p, n * q), dtype, kw), dtype)


def test_kron_of_a_pattern_and_its_errors():
    A = spla.Matrix.from_scipy(np.array([[1, 0], [1, 1]]), device="cpu")
    C = spla.kron(A, A, "pair", dtype=np.int64)
    assert np.array_equal(C.to_scipy().toarray(), np.kron(A.to_scipy().toarray(), A.to_scipy().toarray()))
    with pytest.raises(spla.UnknownNameError, match="binary operator"):
        spla.kron(A, A, "minus")
    import scipy.sparse as sp

    big = spla.Matrix.from_scipy(sp.csc_array(([1.0], ([2 ** 32 - 1], [0])), shape=(2 ** 32, 1)), device="cpu")
    with pytest.raises(spla.DimensionMismatch, match="int64 entry keys"):
        spla.kron(big, big)


# ------------------------------------------------------------------ reductions
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_reductions_equal_the_dense_reference(data, device):
    draw = data.draw
    m, n = _shape(draw)
    name = draw(st.sampled_from(sorted(_sr.MONOIDS)), label="monoid")
    monoid = _sr.MONOIDS[name]
    dtype = draw(st.sampled_from([d for d in DTYPES if d in monoid.dtypes]), label="dtype")
    A = _matrix(draw, m, n, device, "A", unsigned=dtype.kind in "u")
    av, ap = dense_of(A, dtype)
    ident = monoid.identity(dtype)
    ufunc = monoid.ufunc

    def ref(axis):
        vals = np.where(ap, av, ident)
        return ufunc.reduce(vals, axis=axis) if vals.size else np.full(vals.shape[1 - axis], ident, dtype)

    rows = spla.reduce_rows(A, name, dtype=dtype)
    cols = spla.reduce_cols(A, name, dtype=dtype)
    total = spla.reduce_scalar(A, name, dtype=dtype)
    assert np.array_equal(_dev.to_numpy(rows), np.asarray(ref(1), dtype=dtype).reshape(m))
    assert np.array_equal(_dev.to_numpy(cols), np.asarray(ref(0), dtype=dtype).reshape(n))
    want = ufunc.reduce(av[ap]) if ap.any() else ident
    assert total == dtype.type(want) and np.asarray(total).dtype == dtype


def test_reduce_counts_a_pattern():
    P = spla.Matrix.from_edges([0, 0, 1], [1, 2, 2], directed=True, n=4, device="cpu")
    assert spla.reduce_rows(P, "plus").tolist() == [2, 1, 0, 0]
    assert spla.reduce_scalar(P, "plus") == 3
    with pytest.raises(spla.DomainMismatch, match="not defined on dtype"):
        spla.reduce_rows(P, "lor", dtype=np.float64)


# ------------------------------------------------------------------ extract / assign
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_extract_equals_the_dense_reference(data, device):
    draw = data.draw
    m, n = _shape(draw)
    A = _matrix(draw, m, n, device, "A")
    rows = np.array(draw(st.lists(st.integers(0, m - 1), max_size=6) if m else st.just([]), label="rows"), np.int64)
    cols = np.array(draw(st.lists(st.integers(0, n - 1), max_size=6) if n else st.just([]), label="cols"), np.int64)
    shape = (rows.size, cols.size)
    kw = draw(merges(shape, A.dtype, device))
    C = spla.extract(A, rows, cols, **kw)
    av, ap = dense_of(A, A.dtype)
    t = (av[np.ix_(rows, cols)], ap[np.ix_(rows, cols)])
    assert_matrix_equal(C, _expect(t, shape, A.dtype, kw), A.dtype)


@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_assign_equals_the_dense_reference(data, device):
    draw = data.draw
    m, n = _shape(draw)
    C = _matrix(draw, m, n, device, "C")
    dtype = C.dtype
    rows = np.array(draw(st.permutations(range(m)), label="rows")[:draw(st.integers(0, m))], np.int64)
    cols = np.array(draw(st.permutations(range(n)), label="cols")[:draw(st.integers(0, n))], np.int64)
    A = _matrix(draw, rows.size, cols.size, device, "A", dtype=dtype, unsigned=dtype.kind == "u")
    kw = draw(merges((m, n), dtype, device))
    kw.pop("out", None)
    if kw.get("accum") is None:
        kw.pop("accum", None)
    accum = draw(st.sampled_from([None] + [a for a in _sr.ACCUM_OPS if dtype in _sr.accum_dtypes(a)]), label="accum")
    R = spla.assign(C, A, rows, cols, accum=accum, **{k: v for k, v in kw.items() if k != "accum"})
    cv, cp = dense_of(C, dtype)
    av, ap = dense_of(A, dtype)
    zv, zp = cv.copy(), cp.copy()
    region = np.zeros((m, n), dtype=bool)
    region[np.ix_(rows, cols)] = True
    sub_v, sub_p = cv[np.ix_(rows, cols)], cp[np.ix_(rows, cols)]
    if accum is None:
        nv, np_ = av, ap
    else:
        from spla.testing.references import _accum
        both = np.asarray(_accum(accum, sub_v, av)).astype(dtype)
        nv, np_ = np.where(sub_p & ap, both, np.where(ap, av, sub_v)), sub_p | ap
    zv[np.ix_(rows, cols)] = nv
    zp[np.ix_(rows, cols)] = np_
    allowed = dense_mask(kw.get("mask"), (m, n), kw.get("structural", True), kw.get("complement", False))
    want = dense_merge((zv, zp), allowed, C, None, kw.get("replace", False), dtype)
    assert_matrix_equal(R, want, dtype)


def test_extract_and_assign_errors():
    A = spla.Matrix.from_scipy(np.eye(3), device="cpu")
    with pytest.raises(spla.DimensionMismatch, match="outside"):
        spla.extract(A, [0, 3])
    with pytest.raises(ValueError, match="must not repeat"):
        spla.assign(A, spla.extract(A, [0, 0], [1, 2]), [0, 0], [1, 2])
    with pytest.raises(spla.DimensionMismatch, match="region"):
        spla.assign(A, A, [0], [1])
