"""vxm / mxv against the dense NumPy reference (spla.testing.dense_vxm), on every device.

* ``test_sweep``: every registered semiring x every dtype it accepts x {vxm, mxv} x {1-D,
  k-block} x {no mask, mask, ~mask} x {no out, out} x {replace or not} x every accum
  defined on the dtype, on a fixed zoo of matrices (0x0, 1x1 with a self-loop, a
  rectangular valued matrix with an empty column and a stored zero, an undirected graph
  with self-loops and an isolated vertex, a 1100 x 4 matrix with columns of 1100 and 40
  entries); the kernel names cycle on the CPU, and all of them run on the GPU.
* hypothesis properties over ``spla.testing.products()`` (random matrices, vectors,
  blocks, masks, accums, kernels), per semiring, and with heavy columns.

Every test that takes ``device`` also runs on the GPU (marker ``gpu``; skipped without one),
where it compares each kernel with the dense reference and hence with the CPU backend.
"""

import functools
import itertools
import logging
import warnings

import numpy as np
import scipy.sparse as sp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
import spla.matrix
from spla import device as _dev
from spla import semirings as sr
from spla.ops import _backend
from spla.testing import (KERNEL_NAMES, Product, assert_backends_equal, assert_equal, compare_backends,
                          dense_mxv, dense_vxm, identity, on_each_device, products, reference, scaled, to_dense)
from spla.testing.strategies import _values

SR_DTYPES = [(name, d) for name in sr.names() for d in sr.get(name).dtypes]


def _id(p):
    name, d = p
    return f"{name}-{d}"


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if np.dtype(dtype) == np.float32 else dict(rtol=1e-12, atol=1e-12)


def _run_checked(p: Product, device, kernel=None):
    """p run on ``device``: the result, or None after checking the GPU refuses an unsupported kernel."""
    kernel = p.kernel if kernel is None else kernel
    if kernel != "auto":
        ok, why = _backend(_dev.resolve(device)).supports(kernel, sr.get(p.semiring), p.dtype)
        if not ok:
            with pytest.raises(spla.KernelUnavailable, match="cannot run"):
                p.run(device, kernel=kernel)
            return None
    return p.run(device, kernel=kernel)


# =============================================================================== the zoo
@functools.lru_cache(maxsize=None)
def zoo(dtype):
    """Fixed matrices whose values (where valued) have ``dtype``."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(1234)
    out = {}
    out["0x0"] = spla.Matrix.from_csc([0], np.zeros(0, np.int32), None, (0, 0), device="cpu")
    out["1x1-loop"] = spla.Matrix.from_edges(np.array([0]), np.array([0]), device="cpu")
    # 3 x 5 directed, valued: column 2 empty, a stored zero, a full column 4
    rows = np.array([0, 2, 1, 0, 0, 1, 2])
    cols = np.array([0, 0, 1, 3, 4, 4, 4])
    vals = _values(rng, rows.size, dtype)
    vals[1] = 0
    import scipy.sparse as sp

    S = sp.coo_array((vals, (rows, cols)), shape=(3, 5)).tocsc()
    out["3x5-valued"] = spla.Matrix.from_csc(S.indptr, S.indices, S.data, (3, 5), directed=True, device="cpu")
    # undirected, 6 vertices: path 0-1-2-3 with a chord, self-loops at 1 and 4, vertex 5 isolated
    src = np.array([0, 1, 2, 0, 1, 4, 3])
    dst = np.array([1, 2, 3, 2, 1, 4, 4])
    out["sym6-loops"] = spla.Matrix.from_edges(src, dst, n=6, directed=False, device="cpu")
    # 1100 x 4: column 0 full (> 1024 entries), column 1 40 entries (> 32), column 2 empty, column 3 one entry
    r = np.concatenate([np.arange(1100), rng.choice(1100, 40, replace=False), [7]])
    c = np.concatenate([np.zeros(1100, int), np.ones(40, int), [3]])
    S = sp.coo_array((np.ones(r.size, bool), (r, c)), shape=(1100, 4)).tocsc()
    hv = _values(rng, S.nnz, dtype)
    out["heavy-1100x4"] = spla.Matrix.from_csc(S.indptr, S.indices, hv, (1100, 4), directed=True, device="cpu")
    return out


def _vector(rng, n, dtype, k, ident):
    shape = (n,) if k is None else (n, k)
    x = np.asarray(_values(rng, shape, dtype)).astype(dtype)
    x[rng.random(shape) < 0.3] = ident
    return np.ascontiguousarray(x)


def _accums(dtype):
    return [a for a in sr.ACCUM_OPS if np.dtype(dtype) in sr.accum_dtypes(a)]


FULL = ("3x5-valued", "sym6-loops")   # the full mask x out x accum cross runs on these


def _combos(mname, dtype, k, rng):
    """(masked, complement, mask_kind, with_out, accum, replace) combinations for one matrix.

    On FULL matrices: every mask mode x (no out | out with every accum or none, replace
    or not; replace only where a mask makes it matter).  On the others (0x0, 1x1, heavy):
    a representative handful.  mask_kind: "full" ((m,) or (m, k)) or, for a block,
    "shared" ((m,) for all k vectors), alternating.
    """
    accums = [None] + _accums(dtype)
    shapes = itertools.cycle(["full"] if k is None else ["full", "shared"])
    if mname in FULL:
        for masked, comp in ((False, False), (True, False), (True, True)):
            yield masked, comp, next(shapes), False, None, False
            for acc in accums:
                for rep in ((False, True) if masked else (False,)):
                    yield masked, comp, next(shapes), True, acc, rep
    else:
        acc = accums[int(rng.integers(1, len(accums)))]
        yield False, False, "full", False, None, False
        yield True, False, next(shapes), True, acc, False
        yield True, True, next(shapes), True, None, True
        yield True, False, next(shapes), False, None, False
        yield False, False, "full", True, acc, False


@pytest.mark.parametrize("case", SR_DTYPES, ids=_id)
def test_sweep(case, device):
    """Every mask/complement/replace/accum/out combination, 1-D and block, vxm and mxv."""
    name, dtype = case
    semiring = sr.get(name)
    ident = identity(semiring, dtype)
    rng = np.random.default_rng(99)
    gpu = device != "cpu"
    kernels = itertools.cycle(KERNEL_NAMES)
    for mname, A in zoo(dtype).items():
        A_dev = A.to(device)
        values, present = to_dense(A)
        for op, k in itertools.product(("vxm", "mxv"), (None, 3)):
            n_in, n_out = (A.shape[0], A.shape[1]) if op == "vxm" else (A.shape[1], A.shape[0])
            u = _vector(rng, n_in, dtype, k, ident)
            masks = {"full": rng.random((n_out,) if k is None else (n_out, k)) < 0.5,
                     "shared": rng.random(n_out) < 0.5}
            old = _vector(rng, n_out, dtype, k, ident)
            u_d = _dev.to_device(u, device)
            for masked, comp, mkind, with_out, accum, replace in _combos(mname, dtype, k, rng):
                m = masks[mkind] if masked else None
                kw = dict(mask=m, complement=comp, accum=accum, out=old if with_out else None, replace=replace)
                if op == "vxm":
                    want = dense_vxm(u, values, present, semiring, **kw)
                else:
                    want = dense_mxv(values, u, present, semiring, **kw)
                for kernel in (KERNEL_NAMES if gpu else [next(kernels)]):
                    if gpu and kernel != "auto" and not _backend(device).supports(kernel, semiring, dtype)[0]:
                        continue
                    dkw = dict(kw, out=None if not with_out else _dev.to_device(old.copy(), device),
                               mask=None if m is None else _dev.to_device(m, device), kernel=kernel)
                    got = spla.vxm(u_d, A_dev, name, **dkw) if op == "vxm" else spla.mxv(A_dev, u_d, name, **dkw)
                    if with_out:
                        assert got is dkw["out"]
                    got = _dev.to_numpy(got)
                    if got.dtype == want.dtype and np.array_equal(got, want, equal_nan=dtype.kind == "f"):
                        continue  # fast path; assert_equal below explains a difference
                    where = (f"{op} {name} {dtype} on {mname} {A.shape} k={k} mask={None if m is None else m.shape} "
                             f"complement={comp} out={with_out} accum={accum} replace={replace} "
                             f"kernel={kernel} device={device}")
                    assert_equal(got, want, err_msg=where, **_tol(dtype))


# =============================================================================== properties
@pytest.mark.parametrize("semiring", sr.names())
@settings(max_examples=scaled(25), deadline=None)
@given(data=st.data())
def test_products_match_dense_reference(semiring, device, data):
    p = data.draw(products(semirings=[semiring]), label="product")
    got = _run_checked(p, device)
    if got is not None:
        assert_equal(got, p.expected(), err_msg=p.call_source(), **_tol(p.dtype))


@settings(max_examples=scaled(30), deadline=None)
@given(p=products(heavy_columns=True, max_k=3))
def test_heavy_columns_match_dense_reference(p, device):
    A = p.A if p.op == "vxm" else p.A.T
    assert int(_dev.to_numpy(A.in_degree()).max()) > 1024
    got = _run_checked(p, device)
    if got is not None:
        assert_equal(got, p.expected(), err_msg=repr(p), **_tol(p.dtype))


@settings(max_examples=scaled(60), deadline=None)
@given(p=products(dtypes=[np.float32, np.float64], specials=True))
def test_nan_and_infinities_match_dense_reference(p, device):
    """NaN, +-inf and -0.0 in u, out and the matrix: an input NaN contributes (it is not the identity), min and
    max propagate it as NumPy's minimum / maximum do, inf - inf is NaN; every kernel on the GPU."""
    want = p.expected()
    kernels = KERNEL_NAMES if device != "cpu" else (p.kernel,)
    for kernel in kernels:
        got = _run_checked(p, device, kernel=kernel)
        if got is not None:
            assert_equal(got, want, err_msg=f"kernel {kernel}: {p.call_source()}", **_tol(p.dtype))


@pytest.mark.gpu
@settings(max_examples=scaled(150), deadline=None)
@given(p=products())
def test_every_gpu_kernel_agrees_with_cpu(p):
    want = _dev.to_numpy(p.run("cpu"))
    assert_equal(want, p.expected(), err_msg=p.call_source(), **_tol(p.dtype))
    for kernel in KERNEL_NAMES:
        got = _run_checked(p, "gpu:0", kernel=kernel)
        if got is not None:
            assert_equal(got, want, err_msg=f"kernel {kernel}: {p!r}", **_tol(p.dtype))


# =============================================================================== edge cases
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (1, 1)])
@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "bor_first"])
def test_degenerate_shapes(shape, k, name, device):
    dtype = np.dtype(np.uint64) if name in ("bor_first", "any_pair") else np.dtype(np.float64)
    semiring = sr.get(name)
    A = spla.Matrix.from_csc(np.zeros(shape[1] + 1, np.int32), np.zeros(0, np.int32), None, shape, device=device)
    for op in ("vxm", "mxv"):
        n_in, n_out = (shape[0], shape[1]) if op == "vxm" else (shape[1], shape[0])
        u = np.ones((n_in,) if k is None else (n_in, k), dtype=dtype)
        p = Product(op, A, u, semiring, k=k)
        got = p.run()
        assert got.shape == ((n_out,) if k is None else (n_out, k))
        assert_equal(got, p.expected())
        assert np.all(_dev.to_numpy(got) == identity(semiring, dtype))


@pytest.mark.parametrize("name", sr.names())
def test_empty_block(name, device):
    """A block of k = 0 vectors gives an (m, 0) result."""
    s = sr.get(name)
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 2]), directed=True, device=device)
    u = A.xp.zeros((3, 0), dtype=s.dtypes[-1])
    assert spla.vxm(u, A, name).shape == (3, 0)
    assert spla.mxv(A, u, name, mask=A.xp.ones(3, dtype=bool)).shape == (3, 0)


@pytest.mark.parametrize("kernel", ["auto", "scCSC", "veCSC", "scCOOC", "push", "AUTO", "sccsc", "VECSC", "sccooc", "PUSH"])
def test_kernel_names_accepted_on_cpu(kernel):
    A = spla.Matrix.from_edges(np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3]), directed=True, device="cpu")
    u = np.array([1.0, 2.0, 0.0, 4.0])
    want = reference("vxm", A, u, "plus_times")
    assert_equal(spla.vxm(u, A, "plus_times", kernel=kernel), want)
    assert_equal(spla.mxv(A, u, "min_plus", kernel=kernel), reference("mxv", A, u, "min_plus"))


def test_semiring_object_or_name(device):
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), values=np.array([2.0, 3.0, 5.0]),
                               directed=True, device=device)
    u = _dev.to_device(np.array([1.0, 10.0, 100.0]), device)
    for name in sr.names():
        s = sr.get(name)
        if np.dtype(np.float64) not in s.dtypes:
            continue
        assert_equal(spla.vxm(u, A, s), spla.vxm(u, A, name))
        assert_equal(spla.mxv(A, u, s), spla.mxv(A, u, name))


def test_identity_inputs_contribute_nothing():
    """The additive identity in u contributes nothing, even through first/pair/second."""
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([2, 2]), directed=True, device="cpu")
    u = np.array([0.0, 5.0, 0.0])
    assert_equal(spla.vxm(u, A, "plus_pair"), np.array([0.0, 0.0, 1.0]))
    assert_equal(spla.vxm(u, A, "plus_second"), np.array([0.0, 0.0, 1.0]))
    assert_equal(spla.vxm(np.zeros(3), A, "plus_pair"), np.zeros(3))
    inf = np.inf
    assert_equal(spla.vxm(np.array([inf, 3.0, inf]), A, "min_first"), np.array([inf, inf, 3.0]))
    assert_equal(spla.vxm(np.array([inf, inf, inf]), A, "min_first"), np.full(3, inf))
    B = np.array([[0, 0], [2, 0], [0, 0]], dtype=np.uint64)   # block: per element
    assert_equal(spla.vxm(B, A, "any_pair"), np.array([[0, 0], [0, 0], [1, 0]], dtype=np.uint64))


def test_values_infinite_only_in_the_domain(device):
    """float64 values beyond float32's range are inf in a float32 product; an identity input still
    contributes nothing there (0 * inf would be NaN), on every path: vxm, mxv, first/second, blocks."""
    import scipy.sparse as sp

    X = np.array([[1e300, 0.0], [2.0, 3.0]])
    A = spla.Matrix.from_scipy(sp.csc_array(X), directed=True, device=device)
    xp = A.xp
    u = xp.asarray(np.array([0, 1], dtype=np.float32))
    assert_equal(spla.vxm(u, A, "plus_times"), np.array([2, 3], dtype=np.float32))
    assert_equal(spla.mxv(A, u, "plus_times"), np.array([0, 3], dtype=np.float32))
    assert_equal(spla.vxm(u, A, "plus_second"), np.array([2, 3], dtype=np.float32))
    assert_equal(spla.mxv(A, u, "plus_first"), np.array([0, 3], dtype=np.float32))
    U = xp.asarray(np.array([[0, 1], [1, 0]], dtype=np.float32))
    assert_equal(spla.vxm(U, A, "plus_times"), np.array([[2, np.inf], [3, 0]], dtype=np.float32))
    # where the input is not the identity, the infinity is real
    assert_equal(spla.vxm(xp.asarray(np.array([1, 0], dtype=np.float32)), A, "plus_times"),
                 np.array([np.inf, 0], dtype=np.float32))


def test_any_monoid_is_exact_where_defined():
    """any returns one of the contributions (spla: the largest), never the identity 0 when
    something contributed.  It is defined on bool and unsigned domains only, where the
    identity is below every value; signed and float domains are refused at the door."""
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([2, 2]), directed=True, device="cpu")
    for dtype in (np.uint32, np.uint64):
        u = np.array([3, 5, 0], dtype=dtype)
        assert_equal(spla.vxm(u, A, "any_first"), np.array([0, 0, 5], dtype=dtype), err_msg=f"1-D {dtype}")
        assert_equal(spla.vxm(u[:, None].copy(), A, "any_first"), np.array([[0], [0], [5]], dtype=dtype),
                     err_msg=f"block {dtype}")
    for dtype in (np.int32, np.int64, np.float32, np.float64):
        with pytest.raises(spla.DomainMismatch, match="any_first is not defined on dtype"):
            spla.vxm(np.array([-3, -5, 0], dtype=dtype), A, "any_first")


def test_stored_zero_is_an_arc():
    """An explicitly stored 0 is an arc: min_plus reaches through it with weight 0."""
    import scipy.sparse as sp

    S = sp.csc_array((np.array([0.0, 2.0]), np.array([0, 1]), np.array([0, 0, 1, 2])), shape=(2, 3))
    A = spla.Matrix.from_scipy(S, directed=True, device="cpu")
    assert A.nnz == 2
    assert_equal(spla.vxm(np.array([1.0, np.inf]), A, "min_plus"), np.array([np.inf, 1.0, np.inf]))


def test_out_is_written_in_place_and_inputs_are_untouched(device):
    A = spla.Matrix.from_edges(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), directed=True, device=device)
    xp = A.xp
    u = xp.asarray(np.array([1.0, 2.0, 0.0, 4.0]))
    mask = xp.asarray(np.array([True, False, True, False]))
    out = xp.asarray(np.array([7.0, 7.0, 7.0, 7.0]))
    u0, m0 = u.copy(), mask.copy()
    got = spla.vxm(u, A, "plus_times", mask=mask, accum="plus", out=out)
    assert got is out
    assert_equal(out, np.array([11.0, 7.0, 9.0, 7.0]))
    assert_equal(u, u0)
    assert_equal(mask, m0)


def test_out_may_be_u(device):
    """``out=u`` (documented): the result of a copy of u, the kernel never reads what it already wrote."""
    A = spla.Matrix.from_edges(np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3, 0, 3]), directed=True, device=device)
    for U in (np.array([1.0, 2.0, 0.0, 4.0]), np.arange(12, dtype=np.float64).reshape(4, 3)):
        for op in ("vxm", "mxv"):
            want = reference(op, A, U, "plus_times", accum="plus", out=U.copy())
            u = A.xp.asarray(U)
            call = spla.vxm if op == "vxm" else (lambda u, A, *a, **k: spla.mxv(A, u, *a, **k))
            got = call(u, A, "plus_times", accum="plus", out=u)
            assert got is u
            assert_equal(got, want, err_msg=f"{op} k={U.shape[1:]}")


def test_out_overlapping_the_mask(device):
    """A bool ``out`` that overlaps the mask (two views of one buffer): which outputs are computed is the
    mask as passed, not as ``out`` rewrites it: a backend that read the mask again after writing out
    (replace=True) would move the replaced outputs."""
    A = spla.Matrix.from_edges(np.arange(6), (np.arange(6) + 1) % 6, directed=True, device=device)
    rng = np.random.default_rng(7)
    for trial in range(40):
        buf = rng.random(9) < 0.5
        mask_at, out_at = rng.choice(4, size=2, replace=False)
        u = rng.random(6) < 0.5
        for name, accum, replace in (("lor_land", None, True), ("lor_land", "lor", True), ("any_pair", "second", True),
                                     ("any_first", None, False)):
            want = reference("vxm", A, u, name, mask=buf[mask_at:mask_at + 6].copy(), accum=accum,
                             out=buf[out_at:out_at + 6].copy(), replace=replace)
            b = A.xp.asarray(buf)
            got = spla.vxm(A.xp.asarray(u), A, name, mask=b[mask_at:mask_at + 6], accum=accum,
                           out=b[out_at:out_at + 6], replace=replace)
            assert_equal(got, want, err_msg=f"trial {trial}: {name} mask at {mask_at}, out at {out_at}, "
                                            f"accum={accum} replace={replace}")


def test_non_contiguous_inputs(device):
    A = spla.Matrix.from_edges(np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3, 0, 3]), directed=True, device=device)
    xp = A.xp
    U = xp.asarray(np.arange(12, dtype=np.float64).reshape(4, 3), order="F")   # not C-contiguous
    mask = xp.asarray(np.array([[True, False], [True, True], [False, True], [True, True]]))[:, 0]  # strided
    want = reference("vxm", A, _dev.to_numpy(U), "plus_times", mask=_dev.to_numpy(mask))
    assert_equal(spla.vxm(U, A, "plus_times", mask=mask), want)
    assert_equal(spla.vxm(U[:, 1], A, "min_plus"), reference("vxm", A, _dev.to_numpy(U[:, 1]), "min_plus"))


def test_block_columns_are_independent(device):
    """A (n, k) block gives the k products of its columns."""
    rng = np.random.default_rng(5)
    A = spla.Matrix.from_scipy((rng.random((30, 20)) < 0.2) * rng.integers(1, 5, (30, 20)), device=device)
    U = np.ascontiguousarray(rng.integers(0, 4, (30, 6)).astype(np.float64))
    for name in ("plus_times", "min_plus", "max_first", "any_pair"):
        V = U.astype(np.uint64) if name == "any_pair" else U
        Y = _dev.to_numpy(spla.vxm(_dev.to_device(V, device), A, name))
        for c in range(6):
            y = _dev.to_numpy(spla.vxm(_dev.to_device(V[:, c].copy(), device), A, name))
            assert_equal(Y[:, c], y, err_msg=f"{name} column {c}")


def test_mxv_is_vxm_over_transpose(device):
    """mxv(A, u) = vxm(u, A.T) for operators symmetric in their arguments; first/second swap."""
    rng = np.random.default_rng(6)
    dense = (rng.random((9, 7)) < 0.3) * rng.integers(1, 6, (9, 7))
    A = spla.Matrix.from_scipy(dense.astype(np.float64), device=device)
    AT = spla.Matrix.from_scipy(dense.T.astype(np.float64), device=device)
    u = _dev.to_device(rng.integers(0, 3, 7).astype(np.float64), device)
    for a, b in (("plus_times", "plus_times"), ("min_plus", "min_plus"), ("plus_first", "plus_second"),
                 ("min_first", "min_second"), ("max_first", "max_second")):
        assert_equal(spla.mxv(A, u, a), spla.vxm(u, AT, b), err_msg=f"{a} vs {b}")


def test_undirected_mxv_equals_vxm(device):
    A = spla.Matrix.from_edges(np.array([0, 1, 2, 3, 3]), np.array([1, 2, 3, 0, 3]),
                               values=np.array([1.0, 2.0, 3.0, 4.0, 5.0]), device=device)
    assert A.T is A
    u = _dev.to_device(np.array([1.0, 0.0, 2.0, 3.0]), device)
    for name in ("plus_times", "min_plus", "max_times"):
        assert_equal(spla.mxv(A, u, name), spla.vxm(u, A, name))


def test_int64_indices(monkeypatch):
    """Matrices with int64 indices (what more than 2**31 entries get) compute the same products."""
    rng = np.random.default_rng(8)
    dense = (rng.random((40, 30)) < 0.2) * rng.integers(1, 5, (40, 30))
    monkeypatch.setattr(spla.matrix, "INT32_MAX", 10)
    A = spla.Matrix.from_scipy(dense.astype(np.float32), device="cpu")
    assert A.colptr.dtype == np.int64 and A.rowidx.dtype == np.int64
    assert A.T.colptr.dtype == np.int64
    for name, dt in (("plus_times", np.float32), ("min_plus", np.float32), ("bor_first", np.uint64),
                     ("any_pair", np.uint32)):
        u = rng.integers(0, 3, 40).astype(dt)
        v = rng.integers(0, 3, 30).astype(dt)
        for kernel in KERNEL_NAMES:
            assert_equal(spla.vxm(u, A, name, kernel=kernel), reference("vxm", A, u, name), err_msg=name)
            assert_equal(spla.mxv(A, v, name, kernel=kernel), reference("mxv", A, v, name), err_msg=name)


def test_result_dtype_is_u_dtype():
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), values=np.array([0.75, 2.5]),
                               directed=True, device="cpu")
    for dt in (np.int32, np.uint64, np.float32):
        u = np.array([1, 2, 3], dtype=dt)
        y = spla.vxm(u, A, "plus_times")
        assert y.dtype == dt
        # values are cast to u's dtype before multiplying (0.75 -> 0, 2.5 -> 2)
        assert_equal(y, np.array([0, 0, 4], dtype=dt) if np.dtype(dt).kind != "f"
                     else np.array([0, 0.75, 5.0], dtype=dt))


def test_auto_kernel_logged_at_debug(caplog):
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="cpu")
    with caplog.at_level(logging.DEBUG, logger="spla"):
        spla.vxm(np.ones(3), A, "plus_times")
    msgs = [r.getMessage() for r in caplog.records if r.name == "spla"]
    assert any(any(f"kernel={k}" in m for k in spla.KERNELS) for m in msgs), msgs


def test_block_identity_inputs_do_not_warn():
    """A block's identity inputs contribute nothing and raise no NumPy warning: max_times with -inf
    inputs over zero-valued entries (-inf * 0 is nan) equals the product column by column."""
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), values=np.array([0.0, 2.0, 3.0]),
                               directed=True, device="cpu")
    U = np.array([[-np.inf, 1.0], [2.0, -np.inf], [np.inf, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Y = spla.vxm(U, A, "max_times")
        cols = [spla.vxm(np.ascontiguousarray(U[:, c]), A, "max_times") for c in range(2)]
    assert_equal(Y, np.stack(cols, axis=1))
    assert_equal(Y, np.array([[np.inf, 15.0], [-np.inf, 0.0], [4.0, -np.inf]]))


# =============================================================================== the test kit itself
def test_dense_reference_by_hand():
    # A: 0->1 (2), 0->2 (3), 1->2 (4); u = [1, 5, 7]
    values = np.array([[0, 2, 3], [0, 0, 4], [0, 0, 0]], dtype=np.float64)
    present = values != 0
    u = np.array([1.0, 5.0, 7.0])
    assert_equal(dense_vxm(u, values, present, "plus_times"), np.array([0.0, 2.0, 23.0]))
    assert_equal(dense_vxm(u, values, present, "min_plus"), np.array([np.inf, 3.0, 4.0]))
    assert_equal(dense_mxv(values, u, present, "plus_times"), np.array([31.0, 28.0, 0.0]))
    assert_equal(dense_mxv(values, u, present, "min_first"), np.array([2.0, 4.0, np.inf]))   # MUL(a, x) = a
    out = np.array([9.0, 9.0, 9.0])
    m = np.array([True, False, True])
    assert_equal(dense_vxm(u, values, present, "plus_times", mask=m), np.array([0.0, 0.0, 23.0]))
    assert_equal(dense_vxm(u, values, present, "plus_times", mask=m, complement=True), np.array([0.0, 2.0, 0.0]))
    assert_equal(dense_vxm(u, values, present, "plus_times", mask=m, out=out), np.array([0.0, 9.0, 23.0]))
    assert_equal(dense_vxm(u, values, present, "plus_times", mask=m, out=out, replace=True),
                 np.array([0.0, 0.0, 23.0]))
    assert_equal(dense_vxm(u, values, present, "plus_times", mask=m, out=out, accum="plus"),
                 np.array([9.0, 9.0, 32.0]))
    assert_equal(dense_vxm(u, values, present, "plus_times", out=out, accum="min"), np.array([0.0, 2.0, 9.0]))
    assert_equal(out, np.array([9.0, 9.0, 9.0]))
    U = np.stack([u, np.zeros(3)], axis=1)
    assert_equal(dense_vxm(U, values, present, "plus_times", mask=m), np.array([[0, 0], [0, 0], [23.0, 0]]))


def test_test_kit_bad_arguments():
    """The kit's own arguments are checked where they are given, with a message: an unknown op or kernel
    name in products() (not only when a drawn Product runs), a density outside [0, 1] (which would draw
    every cell or none), and a mask that does not fit the reference's output (not NumPy's broadcast
    error)."""
    from hypothesis.errors import InvalidArgument

    from spla.testing import graphs, matrices

    with pytest.raises(InvalidArgument, match=r"products: ops must be a non-empty selection of vxm, mxv, got \('vmx',\)"):
        products(ops=("vmx",))
    with pytest.raises(InvalidArgument, match=r"products: ops must be a non-empty selection .*got \(\)"):
        products(ops=())
    with pytest.raises(InvalidArgument, match=r"products: kernels must be a non-empty selection of auto, scCSC, "
                                              r"veCSC, scCOOC, push, got \('warp',\)"):
        products(kernels=("warp",))
    for bad in (2.0, -0.5, "dense"):
        with pytest.raises(InvalidArgument, match=rf"matrices: density must be a fraction in \[0, 1\] or a strategy, "
                                                  rf"got {bad!r}"):
            matrices(density=bad)
        with pytest.raises(InvalidArgument, match=r"graphs: density must be a fraction in \[0, 1\]"):
            graphs(density=bad)
    with pytest.raises(ValueError, match=r"mask of shape \(3,\) does not fit the output of shape \(2,\)"):
        dense_vxm(np.ones(2), None, np.ones((2, 2), bool), "plus_times", mask=np.ones(3, bool))
    with pytest.raises(ValueError, match=r"accum needs out"):
        dense_vxm(np.ones(2), None, np.ones((2, 2), bool), "plus_times", accum="plus")
    with pytest.raises(ValueError, match=r"u of shape \(3,\) does not match a matrix of shape \(2, 2\)"):
        dense_vxm(np.ones(3), None, np.ones((2, 2), bool), "plus_times")
    with pytest.raises(ValueError, match=r"unknown monoid 'times'"):
        identity("times", np.float64)
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu")
    with pytest.raises(ValueError, match=r"op must be 'vxm' or 'mxv', got 'vmx'"):
        reference("vmx", A, np.ones(2), "plus_times")
    with pytest.raises(ValueError, match=r"devices is empty"):
        assert_backends_equal(lambda: 1, devices=[])
    with pytest.raises(TypeError, match=r"needs a 'device' parameter to be run on each device"):
        compare_backends()(lambda x: x)


def test_assert_equal_semantics():
    assert_equal((np.array([1.0, np.nan]), {"a": np.int32(3)}), (np.array([1.0 + 1e-12, np.nan]), {"a": 3}),
                 check_dtype=False)
    with pytest.raises(AssertionError):
        assert_equal(np.array([1, 2]), np.array([1, 3]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_equal(np.array([1, 2], dtype=np.int32), np.array([1, 2], dtype=np.int64))
    with pytest.raises(AssertionError):
        assert_equal(np.array([1.0]), np.array([1.1]), rtol=1e-3)
    with pytest.raises(AssertionError):
        assert_equal([np.zeros(2)], [np.zeros(2), np.zeros(2)])


def test_assert_equal_does_not_hide_differences():
    with pytest.raises(AssertionError, match="dtype"):
        assert_equal(np.float32(1), np.float64(1))               # NumPy scalars carry a dtype
    with pytest.raises(AssertionError, match="shape"):
        assert_equal([1.0, 1.0], 1.0)                            # no broadcasting
    with pytest.raises(AssertionError, match="expected None"):
        assert_equal(np.zeros(3), None)
    D = spla.Matrix.from_edges([0], [0], directed=True, device="cpu")
    U = spla.Matrix.from_edges([0], [0], directed=False, device="cpu")
    with pytest.raises(AssertionError):
        assert_equal(D, U)                                       # same arrays, not the same graph
    assert_equal(1.0, np.float64(1.0))                           # a Python number has no dtype to compare


def test_assert_equal_on_sparse_matrices():
    import scipy.sparse as sp

    S = sp.csc_array(np.array([[0.0, 2.0], [1.0, 0.0]]))
    same = sp.coo_array((np.array([1.0, 1.0, 1.0]), (np.array([1, 0, 0]), np.array([0, 1, 1]))), shape=(2, 2))
    assert_equal({"edges": S}, {"edges": same})                  # formats and duplicates do not matter
    with pytest.raises(AssertionError, match="edges"):
        assert_equal({"edges": S}, {"edges": S * 1.5})            # values
    zero = sp.csc_array((np.array([1.0, 2.0, 0.0]), (np.array([1, 0, 1]), np.array([0, 1, 1]))), shape=(2, 2))
    with pytest.raises(AssertionError):
        assert_equal(zero, S)                                    # a stored zero is part of the pattern
    with pytest.raises(AssertionError, match="dtype"):
        assert_equal(S.astype(np.float32), S)
    with pytest.raises(AssertionError):
        assert_equal(sp.csc_array((3, 3)), sp.csc_array((2, 2)))   # shapes
    with pytest.raises(AssertionError):
        assert_equal(S.toarray(), S)                             # a dense result is not a sparse one


def test_compare_backends_gives_each_leg_its_own_arrays():
    """move=False (compare_backends) still copies: in-place updates neither leak into the next leg's
    inputs nor change an earlier leg's result."""
    def body(x, device):
        x += 1
        return x
    assert_equal(assert_backends_equal(body, np.zeros(1), devices=["cpu", "cpu"], move=False, pass_device=True),
                 np.ones(1))

    def keeps_a_copy(x, device):
        y = x.copy()
        x += 1
        return y
    compare_backends(devices=["cpu", "cpu"])(keeps_a_copy)(np.zeros(1))


@settings(max_examples=scaled(60), deadline=None)
@given(p=products(specials=True, max_size=5))
def test_call_source_reproduces_the_call(p):
    """The failure reproducer rebuilds the call: NaN and infinities in the vectors, (0, k) blocks, masks
    and out of size 0, the matrix (values, shape, directedness)."""
    src = p.call_source(max_items=10**6)
    ns = {"spla": spla, "np": np}
    exec(src.rsplit("\n", 1)[0], ns)
    A = ns["A"]
    assert A.shape == p.A.shape and A.directed == p.A.directed
    assert_equal(A, p.A)
    for name in ("u", "mask", "out"):
        assert_equal(ns[name], getattr(p, name))
    want = p.run("cpu")
    got = eval(src.rsplit("\n", 1)[1], ns)
    assert_equal(got, want)


def test_assert_backends_equal_runs_each_device():
    seen = []

    def fn(A, u, device):
        seen.append((device, A.device))
        u[0] = 123.0   # in-place updates must not leak into the next device's inputs
        return {"y": spla.vxm(u, A, "plus_times"), "n": A.nnz}

    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="cpu")
    u = np.array([1.0, 2.0, 3.0])
    res = assert_backends_equal(fn, A, u, devices=["cpu", "cpu"])
    assert seen == [("cpu", "cpu"), ("cpu", "cpu")]
    assert_equal(res["y"], np.array([2.0, 126.0, 2.0]))
    assert u[0] == 1.0

    calls = iter([np.array([1.0]), np.array([2.0])])
    with pytest.raises(AssertionError, match="differs"):
        assert_backends_equal(lambda: next(calls), devices=["cpu", "cpu"])
    # the default devices: cpu, and gpu:0 when there is one
    res = assert_backends_equal(lambda A, device: A.to(device).out_degree(), A)
    assert_equal(res, np.array([1, 2, 1]))


def test_assert_backends_equal_require_gpu_skips_without_gpu():
    if spla.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(pytest.skip.Exception):
        assert_backends_equal(lambda: 1, require_gpu=True)


@settings(max_examples=scaled(10), deadline=None)
@given(p=products(max_size=6))
@compare_backends(rtol=1e-5)
def test_compare_backends_decorator(p, device):
    return p.run(device)


@on_each_device
def test_on_each_device_decorator(device):
    assert device in ("cpu", "gpu:0")
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), device=device)
    assert A.device == device


def test_backend_for_device():
    from spla import backends

    assert backends.for_device("cpu") is backends.cpu
    assert backends.for_device("gpu") is backends.gpu
    assert backends.for_device("gpu:1") is backends.gpu


def test_kernel_names_are_defined_once():
    """One list of kernel names and one normalisation, which the API, both backends and spla share."""
    from spla.backends import cpu, gpu, names

    assert spla.KERNELS is names.KERNELS is gpu.KERNELS is cpu.KERNELS is spla.ops.KERNELS
    assert spla.normalize_kernel is names.normalize_kernel is spla.ops.normalize_kernel
    assert [spla.normalize_kernel(k) for k in ("AUTO", "sccsc", "VECSC", "scCOOC", "Push")] == \
        ["auto", "scCSC", "veCSC", "scCOOC", "push"]
    with pytest.raises(spla.UnknownNameError, match="unknown kernel 'csc'; use 'auto' or one of scCSC, veCSC"):
        spla.normalize_kernel("csc")


def test_the_kernel_choice_does_not_import_the_products():
    """spla.ops imports the kernel choice (a backend module), never the other way round."""
    import ast
    import inspect

    from spla.backends.gpu import selection

    tree = ast.parse(inspect.getsource(selection))
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(name.endswith("ops") for name in imported), imported


@pytest.mark.parametrize("name", ["min_first", "max_first"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_min_max_tie_of_signed_zeros_gives_the_later_entry(name, dtype):
    """docs/design.md: min / max of +0.0 and -0.0 return the second operand (NumPy's rule), so a
    reduction in entry order returns the zero of the column's last tied entry (the GPU kernels are
    checked against this in tests/test_gpu_backend.py)."""
    A = spla.Matrix.from_scipy(sp.csc_array(np.ones((2, 1))), device="cpu")
    for u in ([0.0, -0.0], [-0.0, 0.0]):
        y = spla.vxm(np.array(u, dtype=dtype), A, name)
        assert y[0] == 0 and bool(np.signbit(y[0])) == bool(np.signbit(u[1])), (u, y)
