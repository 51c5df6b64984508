"""User-defined monoids, operators and semirings (spla.semirings.monoid / binary_op / semiring).

* products (vxm, mxv, mxm), element-wise operations and reductions over user semirings against a
  dense NumPy reference written here from the definitions (not through the registry): hypothesis on
  the CPU; the GPU legs (every kernel, one vector and a block, the CAS and the given atomics, the
  swapped operator of mxv, the SpGEMM) are marked ``gpu``;
* the generated C++ compiled by nvcc (every kernel family that ADDs atomically, on every domain,
  swapped and not, and the SpGEMM), skipped without nvcc;
* the door: names, domains, NumPy functions, C++ expressions, identities, laws.

The user definitions are registered by a module fixture and removed after, so the registry that
other test modules iterate holds the built-ins only.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import device as _dev
from spla import semirings as sr
from spla.backends.gpu import compile as gpu
from spla.backends.gpu import spgemm as gpu_spgemm
from spla.backends.gpu import user_functors
from spla.testing import matrices, scaled, vectors

NVCC = shutil.which("nvcc")

# name -> (ADD as a NumPy ufunc, MUL(x, a) as a NumPy function, identity per dtype): the reference's own
# copy of each definition
REFERENCE = {
    "widest_narrow": (np.maximum, np.minimum, lambda dt: sr.max_.identity(dt)),   # bottleneck paths
    "plus_minus": (np.add, np.subtract, lambda dt: np.dtype(dt).type(0)),         # MUL does not commute
    "wrapadd_times": (np.add, np.multiply, lambda dt: np.dtype(dt).type(0)),      # a ufunc, given atomics
}


@pytest.fixture(scope="module", autouse=True)
def user_definitions():
    """Register the user definitions the tests use; unregister them afterwards."""
    widest = sr.monoid("widest", numpy=lambda a, b, xp: xp.maximum(a, b), cuda="spla_max(a, b)", identity="min",
                       dtypes=sr.ALL)
    narrow = sr.binary_op("narrow", numpy=lambda x, a, xp: xp.minimum(x, a), cuda="spla_min(x, a)")
    sr.semiring(widest, narrow)
    sr.binary_op("minus", numpy=np.subtract, cuda="x - a", dtypes=sr.SIGNED + sr.FLOATS)
    sr.semiring("plus", "minus")
    wrapadd = sr.monoid("wrapadd", numpy=np.add, cuda="a + b", identity=0, dtypes=sr.UNSIGNED,
                        atomic="atomicAdd(p, v);")
    sr.semiring(wrapadd, "times")
    yield
    for name in ("widest_narrow", "plus_minus", "wrapadd_times", "widest", "narrow", "minus", "wrapadd"):
        sr.unregister(name)


@pytest.fixture
def scratch():
    """Names a test registers, removed when it ends."""
    names = []
    yield names
    for name in names:
        if name in sr.names() or name in sr.MONOIDS or name in sr.BINARY_OPS:
            sr.unregister(name)


# ---------------------------------------------------------------------------------------------
# Dense references, from REFERENCE
# ---------------------------------------------------------------------------------------------
def _dense(M, dtype):
    S = sp.csc_array((np.ones(M.nnz) if M.values is None else _dev.to_numpy(M.values),
                      _dev.to_numpy(M.rowidx), _dev.to_numpy(M.colptr)), shape=M.shape)
    present = sp.csc_array((np.ones(M.nnz, dtype=bool), S.indices, S.indptr), shape=M.shape).toarray()
    with np.errstate(all="ignore"):
        return S.toarray().astype(dtype), present


def ref_vxm(u, a, present, name, swap=False):
    """y[j] = ADD over i with present[i, j] and u[i] != e of MUL(u[i], a[i, j]) (MUL(a[i, j], u[i])
    with swap), e where none; u (n,) or (n, k).  mxv is this over the transposes, swapped."""
    add, mul, ident = REFERENCE[name]
    dtype = u.dtype
    e = ident(dtype)
    x = u[:, None] if u.ndim == 1 else u[:, None, :]
    a3 = a if u.ndim == 1 else a[:, :, None]
    p3 = present if u.ndim == 1 else present[:, :, None]
    with np.errstate(all="ignore"):
        prod = np.broadcast_to(mul(a3, x) if swap else mul(x, a3), np.broadcast_shapes(a3.shape, x.shape))
        prod = prod.astype(dtype)
    live = np.broadcast_to(p3 & (x != e), prod.shape)
    if prod.shape[0] == 0:
        return np.full(prod.shape[1:], e, dtype=dtype)
    with np.errstate(all="ignore"):
        return add.reduce(np.where(live, prod, e), axis=0).astype(dtype)


def check_vxm_mxv(A, u, v, name, **kwargs):
    """spla.vxm(u, A) and spla.mxv(A, v) (NumPy or CuPy inputs) against the references."""
    a, present = _dense(A, np.asarray(_dev.to_numpy(u)).dtype)
    host_u, host_v = _dev.to_numpy(u), _dev.to_numpy(v)
    np.testing.assert_array_equal(_dev.to_numpy(spla.vxm(u, A, name, **kwargs)), ref_vxm(host_u, a, present, name))
    np.testing.assert_array_equal(_dev.to_numpy(spla.mxv(A, v, name, **kwargs)),
                                  ref_vxm(host_v, a.T, present.T, name, swap=True))


def ref_mxm(A, B, name, dtype):
    """(values, present) of C(i, j) = ADD over k with A(i, k), B(k, j) stored of MUL(A(i, k), B(k, j))."""
    add, mul, ident = REFERENCE[name]
    a, pa = _dense(A, dtype)
    b, pb = _dense(B, dtype)
    with np.errstate(all="ignore"):
        prod = mul(a[:, :, None], b[None, :, :]).astype(dtype)
    live = pa[:, :, None] & pb[None, :, :]
    vals = add.reduce(np.where(live, prod, ident(dtype)), axis=1) if a.shape[1] else \
        np.full((a.shape[0], b.shape[1]), ident(dtype), dtype=dtype)
    return vals.astype(dtype), live.any(axis=1)


def _matrix_dense(C, dtype):
    vals, present = _dense(C, dtype)
    return np.where(present, vals, 0).astype(dtype), present


def _draw_case(draw, name):
    s = sr.get(name)
    dtype = draw(st.sampled_from(s.dtypes), label="dtype")
    lo = 0 if dtype.kind in "ub" else None
    A = draw(matrices(max_rows=9, dtype=dtype, min_value=lo), label="A")
    return s, dtype, A, lo


# ---------------------------------------------------------------------------------------------
# CPU: hypothesis against the references
# ---------------------------------------------------------------------------------------------
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(REFERENCE)), block=st.booleans())
def test_vxm_mxv_match_the_reference(data, name, block):
    s, dtype, A, lo = _draw_case(data.draw, name)
    k = 3 if block else None
    u = data.draw(vectors(A.shape[0], dtype=dtype, k=k, semiring=s, min_value=lo), label="u")
    v = data.draw(vectors(A.shape[1], dtype=dtype, k=k, semiring=s, min_value=lo), label="v")
    check_vxm_mxv(A, u, v, name)


@settings(max_examples=scaled(40), deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(REFERENCE)))
def test_mxm_matches_the_reference(data, name):
    s = sr.get(name)
    dtype = data.draw(st.sampled_from(s.dtypes), label="dtype")
    lo = 0 if dtype.kind in "ub" else None
    m, k, n = (data.draw(st.integers(0, 6), label=x) for x in "mkn")
    A = data.draw(matrices(min_rows=m, max_rows=m, min_cols=k, max_cols=k, dtype=dtype, min_value=lo,
                           directed=True if m != k else None), label="A")
    B = data.draw(matrices(min_rows=k, max_rows=k, min_cols=n, max_cols=n, dtype=dtype, min_value=lo,
                           directed=True if k != n else None), label="B")
    C = spla.mxm(A, B, name, dtype=dtype)
    vals, present = ref_mxm(A, B, name, dtype)
    got_vals, got_present = _matrix_dense(C, dtype)
    np.testing.assert_array_equal(got_present, present)
    np.testing.assert_array_equal(got_vals, np.where(present, vals, 0).astype(dtype))


def test_bottleneck_paths_by_repeated_products():
    """Widest paths from vertex 0 (the largest over paths of the smallest arc): Bellman-Ford over
    widest.narrow reaches the networkx-free closed form on a small graph."""
    src, dst, w = [0, 0, 1, 2, 3, 1], [1, 2, 3, 3, 4, 4], [5.0, 3.0, 4.0, 9.0, 7.0, 2.0]
    A = spla.Matrix.from_edges(np.array(src), np.array(dst), values=np.array(w), directed=True, n=5, device="cpu")
    x = np.full(5, -np.inf)
    x[0] = np.inf
    for _ in range(4):
        x = spla.vxm(x, A, "widest_narrow", out=x.copy(), accum="max")
    np.testing.assert_array_equal(x, [np.inf, 5.0, 3.0, 4.0, 4.0])


@settings(max_examples=scaled(30), deadline=None)
@given(data=st.data())
def test_reductions_and_elementwise_with_a_user_monoid(data):
    """reduce_rows / reduce_cols / reduce_scalar, ewise_add / ewise_mult / apply and kron accept the user's
    monoid and operator (the plain-function monoid reduces by the pairwise fold)."""
    dtype = data.draw(st.sampled_from([np.dtype(np.int64), np.dtype(np.float64)]), label="dtype")
    A = data.draw(matrices(max_rows=8, dtype=dtype), label="A")
    B = data.draw(matrices(min_rows=A.shape[0], max_rows=A.shape[0], min_cols=A.shape[1], max_cols=A.shape[1],
                           dtype=dtype, directed=True), label="B")
    a, pa = _dense(A, dtype)
    low = sr.max_.identity(dtype)
    np.testing.assert_array_equal(spla.reduce_rows(A, "widest", dtype=dtype), np.where(pa, a, low).max(axis=1,
                                  initial=low))
    np.testing.assert_array_equal(spla.reduce_cols(A, "widest", dtype=dtype), np.where(pa, a, low).max(axis=0,
                                  initial=low))
    assert spla.reduce_scalar(A, "widest", dtype=dtype) == np.where(pa, a, low).max(initial=low)
    b, pb = _dense(B, dtype)
    got = _matrix_dense(spla.ewise_add(A, B, "widest", dtype=dtype), dtype)
    want_vals = np.where(pa & pb, np.maximum(a, b), np.where(pa, a, b))
    np.testing.assert_array_equal(got[1], pa | pb)
    np.testing.assert_array_equal(got[0], np.where(pa | pb, want_vals, 0))
    got = _matrix_dense(spla.ewise_mult(A, B, "minus", dtype=dtype), dtype)
    with pytest.raises(spla.DomainMismatch, match="minus is not defined on bool"):
        spla.ewise_mult(A, B, "minus", dtype=bool)
    np.testing.assert_array_equal(got[1], pa & pb)
    np.testing.assert_array_equal(got[0], np.where(pa & pb, a - b, 0))
    got = _matrix_dense(spla.apply(A, "minus", left=dtype.type(1), dtype=dtype), dtype)
    np.testing.assert_array_equal(got[0], np.where(pa, 1 - a, 0))
    got = _matrix_dense(spla.kron(A, B, "widest", dtype=dtype), dtype)
    np.testing.assert_array_equal(got[1], np.kron(pa, pb))
    np.testing.assert_array_equal(got[0], np.where(np.kron(pa, pb), np.maximum(np.kron(a, np.ones_like(b)),
                                                                              np.kron(np.ones_like(a), b)), 0))
    with pytest.raises(spla.DomainMismatch, match="minus is not defined on bool"):
        spla.kron(A, B, "minus", dtype=bool)


def test_identity_one_monoid_reduces():
    """A monoid whose identity is 1: the reductions' vector of inputs must not be the identity."""
    prod = sr.monoid("prodm", numpy=np.multiply, identity=1, dtypes=[np.int64])
    try:
        A = spla.Matrix.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), values=np.array([2, 3, 5]),
                                   directed=True, n=3, device="cpu")
        np.testing.assert_array_equal(spla.reduce_rows(A, prod, dtype=np.int64), [6, 5, 1])
        assert spla.reduce_scalar(A, prod, dtype=np.int64) == 30
    finally:
        sr.unregister("prodm")


def test_fold_matches_ufunc_reduceat():
    """The pairwise fold of a plain-function monoid against NumPy's reduceat, with trailing axes."""
    from spla.operator_checks import Fold

    rng = np.random.default_rng(1)
    fold = Fold(lambda a, b, xp: xp.maximum(a, b), "mx")
    for n in (1, 2, 7, 64, 1000):
        a = rng.integers(-50, 50, (n, 3))
        starts = np.unique(np.r_[0, rng.integers(0, n, rng.integers(0, n + 1))])
        np.testing.assert_array_equal(fold.reduceat(a, starts), np.maximum.reduceat(a, starts, axis=0))
        np.testing.assert_array_equal(fold.reduce(a), a.max(axis=0))


def test_cpu_only_definition_runs_on_cpu_and_is_refused_on_gpu(scratch):
    sr.binary_op("hyp", numpy=lambda x, a, xp: xp.hypot(x, a), dtypes=sr.FLOATS)
    s = sr.semiring("max", "hyp")
    scratch += ["max_hyp", "hyp"]
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 1]), values=np.array([4.0, 12.0]), directed=True,
                               device="cpu")
    np.testing.assert_allclose(spla.vxm(np.array([3.0, 5.0]), A, s), [-np.inf, 13.0])
    for kernel in gpu.KERNELS:
        ok, why = gpu.supports(kernel, s, np.float64)
        assert not ok and "no CUDA code" in why and "hyp" in why


# ---------------------------------------------------------------------------------------------
# GPU (the device run): every kernel, against the reference
# ---------------------------------------------------------------------------------------------
def _gpu_operands(dtype, seed, k=None):
    """A 70 x 70 matrix with a column of more than 32 entries (the warp and long-column paths), an
    empty column, a self-loop and stored zeros, and input vectors (or (n, k) blocks) with identities."""
    rng = np.random.default_rng(seed)
    dense = rng.random((70, 70)) < 0.1
    dense[:40, 7] = True
    dense[:, 9] = False
    dense[3, 3] = True
    rows, cols = np.nonzero(dense)
    lo = 0 if np.dtype(dtype).kind in "ub" else -4
    A = spla.Matrix.from_edges(rows, cols, n=70, values=rng.integers(lo, 9, rows.size).astype(dtype), directed=True,
                               device="gpu:0")
    shape = (70,) if k is None else (70, k)
    u, v = (rng.integers(lo, 9, shape).astype(dtype) for _ in range(2))
    return A, u, v


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["scCSC", "veCSC", "scCOOC", "push"])
@pytest.mark.parametrize("name,dtype", [("widest_narrow", np.float32), ("widest_narrow", np.int64),
                                        ("widest_narrow", np.bool_), ("plus_minus", np.int32),
                                        ("plus_minus", np.float64), ("wrapadd_times", np.uint32),
                                        ("wrapadd_times", np.uint64)])
@pytest.mark.parametrize("k", [None, 3])
def test_gpu_products_match_the_reference(kernel, name, dtype, k):
    """Every kernel on the device: the CAS atomic (widest, plus's own for plus_minus), the given
    atomicAdd (wrapadd), MUL(a, x) of mxv generated from the operator's code (minus)."""
    import cupy as cp

    A, u, v = _gpu_operands(dtype, seed=7, k=k)
    ident = REFERENCE[name][2](dtype)
    u[::5] = ident
    v[1::4] = ident
    check_vxm_mxv(A, cp.asarray(u), cp.asarray(v), name, kernel=kernel)


@pytest.mark.gpu
@pytest.mark.parametrize("name,dtype", [("widest_narrow", np.float64), ("plus_minus", np.int64),
                                        ("wrapadd_times", np.uint32)])
@pytest.mark.parametrize("masked", [False, True])
def test_gpu_mxm_matches_the_cpu(name, dtype, masked):
    rng = np.random.default_rng(7)
    lo = 0 if np.dtype(dtype).kind == "u" else -4

    def rand(m, n):
        d = rng.random((m, n)) < 0.2
        r, c = np.nonzero(d)
        return spla.Matrix.from_edges(r, c, values=rng.integers(lo, 9, r.size).astype(dtype), directed=True,
                                      n=max(m, n), device="cpu")
    A, B = rand(40, 40), rand(40, 40)
    mask = rand(40, 40) if masked else None
    want = spla.mxm(A, B, name, mask=mask, dtype=dtype)
    got = spla.mxm(A.to("gpu:0"), B.to("gpu:0"), name, mask=None if mask is None else mask.to("gpu:0"), dtype=dtype)
    np.testing.assert_array_equal(_matrix_dense(got.to("cpu"), dtype)[1], _matrix_dense(want, dtype)[1])
    np.testing.assert_array_equal(_matrix_dense(got.to("cpu"), dtype)[0], _matrix_dense(want, dtype)[0])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_gpu_matrix_operations_match_the_cpu(dtype):
    """The reductions (products with the user monoid's unregistered m.first / m.second semirings, the
    scalar folded on the host) and ewise_add / ewise_mult / apply / kron with CuPy arrays (the user's
    functions called with xp = cupy; a ufunc monoid through cupy's ufunc of that name)."""
    rng = np.random.default_rng(3)

    def rand(m, n):
        r, c = np.nonzero(rng.random((m, n)) < 0.3)
        return spla.Matrix.from_edges(r, c, n=max(m, n), values=rng.integers(-4, 9, r.size).astype(dtype),
                                      directed=True, device="cpu")

    A, B = rand(30, 30), rand(30, 30)
    Ag, Bg = A.to("gpu:0"), B.to("gpu:0")
    for fn in (spla.reduce_rows, spla.reduce_cols):
        np.testing.assert_array_equal(_dev.to_numpy(fn(Ag, "widest", dtype=dtype)), fn(A, "widest", dtype=dtype))
    assert spla.reduce_scalar(Ag, "widest", dtype=dtype) == spla.reduce_scalar(A, "widest", dtype=dtype)
    for got, want in ((spla.ewise_add(Ag, Bg, "widest"), spla.ewise_add(A, B, "widest")),
                      (spla.ewise_mult(Ag, Bg, "minus"), spla.ewise_mult(A, B, "minus")),
                      (spla.apply(Ag, "narrow", right=dtype(2)), spla.apply(A, "narrow", right=dtype(2))),
                      (spla.kron(Ag, Bg, "minus"), spla.kron(A, B, "minus"))):
        for g, w in zip(_matrix_dense(got.to("cpu"), dtype), _matrix_dense(want, dtype)):
            np.testing.assert_array_equal(g, w)


@pytest.mark.gpu
def test_gpu_recompiles_a_redefined_monoid(scratch):
    """The same name registered again with other C++ runs the new code: the module cache is keyed
    by the generated text."""
    import cupy as cp

    scratch += ["swing_second", "swing"]
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([2, 2]), values=np.array([5, 3]), directed=True,
                               device="gpu:0")
    u = cp.asarray(np.array([1, 1, 1], dtype=np.int64))
    sr.monoid("swing", numpy=np.maximum, cuda="spla_max(a, b)", identity="min", dtypes=[np.int64])
    assert int(spla.vxm(u, A, sr.semiring("swing", "second"), kernel="scCOOC")[2]) == 5
    sr.monoid("swing", numpy=np.minimum, cuda="spla_min(a, b)", identity="max", dtypes=[np.int64])
    assert int(spla.vxm(u, A, sr.semiring("swing", "second"), kernel="scCOOC")[2]) == 3


# ---------------------------------------------------------------------------------------------
# The generated C++, through nvcc (no GPU needed)
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_nvcc_compiles_the_generated_functors(tmp_path):
    """The user functors (identities on every domain, the CAS atomic, given atomics, MUL and its
    swapped form) instantiated in every kernel that ADDs atomically and the SpGEMM, to PTX."""
    widest, narrow, minus = sr.MONOIDS["widest"], sr.BINARY_OPS["narrow"], sr.BINARY_OPS["minus"]
    wrapadd = sr.MONOIDS["wrapadd"]
    combos = [(widest, narrow, dt) for dt in sr.ALL] + [(sr.plus, minus, dt) for dt in minus.dtypes] + \
             [(wrapadd, sr.BINARY_OPS["times"], dt) for dt in wrapadd.dtypes]
    names = set()
    for add, mul, dt in combos:
        s = sr.Semiring(add, mul, (dt,))
        for swap in (False, True):
            a, m = gpu.functor_keys(s, swap)
            ex = gpu.name_expressions(a, m, dt, np.int64 if dt == np.float64 else np.int32, dt == np.bool_)
            names.add(ex["scCOOC"])  # ADD's identity, op and atomic, MUL
            if dt in (np.int64, np.uint64):  # the other kernels that ADD atomically, and the merge
                names.update(ex[key] for key in ("push", "veCSC_long_finish", "merge", "veCSC_rows_items"))
        a, m = gpu.functor_keys(s)
        names.add(gpu_spgemm.spgemm_name(a, m, dt, np.int32, False, False, 8))
    code = "".join([user_functors.monoid_code(widest), user_functors.monoid_code(wrapadd),
                    user_functors.op_code(narrow), user_functors.op_code(narrow.swapped()),
                    user_functors.op_code(minus), user_functors.op_code(minus.swapped())])
    src = tmp_path / "user_functors.cu"
    src.write_text(f'#include "{gpu.SPMV_SOURCE}"\n#include "{gpu.SPGEMM_SOURCE}"\n{code}\n'
                   "extern void* const spla_instances[];\nvoid* const spla_instances[] = {\n"
                   + "".join(f"    (void*)&{n},\n" for n in sorted(names)) + "};\n")
    proc = subprocess.run([NVCC, "-arch=sm_90", "-std=c++17", "-ptx", "-o", os.devnull, str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_nvrtc_compiles_the_modules_as_cupy_does(scratch):
    """The text the GPU backend hands CuPy (the kernel source, then the user functors) compiles with
    NVRTC and the product's name expressions, for vxm and for mxv (swapped operator); skipped
    without a loadable libnvrtc."""
    from test_kernels_compile import _find_nvrtc, _nvrtc_compile

    from spla.backends import cuda_source

    lib = _find_nvrtc()
    if lib is None:
        pytest.skip("no libnvrtc to load (pip install nvidia-cuda-nvrtc-cu12 to run this check)")
    for name, dt, swap in (("widest_narrow", np.bool_, False), ("plus_minus", np.float64, True),
                           ("wrapadd_times", np.uint64, False)):
        s = sr.get(name)
        add, mul = gpu.functor_keys(s, swap)
        names = [v for key, v in gpu.name_expressions(add, mul, dt, np.int32, False).items()
                 if key in ("scCOOC", "scCSC", "push", "merge")]
        lowered = _nvrtc_compile(lib, cuda_source.load(gpu.SPMV_SOURCE) + gpu.user_code(s, swap), names)
        assert all(v.startswith("_Z") for v in lowered.values())
    s = sr.get("plus_minus")
    add, mul = gpu.functor_keys(s)
    expr = gpu_spgemm.spgemm_name(add, mul, np.int64, np.int64, False, False, 4)
    assert _nvrtc_compile(lib, cuda_source.load(gpu.SPGEMM_SOURCE) + gpu.user_code(s), [expr])
    # an error in the user's expression is reported at the generated functors' own line
    scratch += ["bad_times", "bad"]
    s = sr.semiring(sr.monoid("bad", numpy=np.maximum, cuda="nope(a, b)", identity="min", dtypes=[np.float32]),
                    "times")
    with pytest.raises(AssertionError, match=r"spla.semirings user-defined functors\(\d+\): error: .*nope"):
        _nvrtc_compile(lib, cuda_source.load(gpu.SPMV_SOURCE) + gpu.user_code(s),
                       [gpu.name_expressions(*gpu.functor_keys(s), np.float32, np.int32, False)["scCOOC"]])


def test_generated_code_is_keyed_by_the_definition(scratch):
    """user_code differs for a redefinition under the same name, and the module cache keys on it."""
    scratch += ["swing_second", "swing"]
    sr.monoid("swing", numpy=np.maximum, cuda="spla_max(a, b)", identity="min", dtypes=[np.int64])
    first = gpu.user_code(sr.semiring("swing", "second"))
    sr.monoid("swing", numpy=np.minimum, cuda="spla_min(a, b)", identity="max", dtypes=[np.int64])
    second = gpu.user_code(sr.semiring("swing", "second"))
    assert first != second and "spla_min(a, b)" in second and "spla_max(a, b)" in first
    assert gpu.user_code(sr.plus_times) == ""
    assert gpu.functor_keys(sr.get("plus_minus"), swap=True) == ("plus", "spla_user_mul_swap_minus")
    assert gpu.functor_keys(sr.plus_first, swap=True) == ("plus", "second")


def test_literals_are_exact():
    lit = user_functors.literal
    assert lit(np.iinfo(np.int64).min, np.int64) == "((long long)(-9223372036854775807LL - 1LL))"
    assert lit(np.iinfo(np.uint64).max, np.uint64) == "((unsigned long long)18446744073709551615ULL)"
    assert lit(-np.inf, np.float32) == "__uint_as_float(4286578688u)"
    assert lit(True, np.bool_) == "true"


# ---------------------------------------------------------------------------------------------
# The door
# ---------------------------------------------------------------------------------------------
def _max(a, b, xp):
    return xp.maximum(a, b)


@pytest.mark.parametrize("kwargs,error,words", [
    (dict(name="plus"), spla.InvalidOperator, "taken by a built-in monoid"),
    (dict(name="times"), spla.InvalidOperator, "taken by a built-in operator"),
    (dict(name="narrow"), spla.InvalidOperator, "taken by a user-defined operator"),
    (dict(name="max_of"), spla.InvalidOperator, "no '_'"),
    (dict(name="2max"), spla.InvalidOperator, "not valid"),
    (dict(name="mx", dtypes=[np.float16]), spla.DomainMismatch, "does not compute in float16"),
    (dict(name="mx", dtypes=[np.complex64]), spla.DomainMismatch, "complex64"),
    (dict(name="mx", numpy=lambda a, b: a), spla.InvalidOperator, "three positional arguments"),
    (dict(name="mx", numpy=np.negative), spla.InvalidOperator, "1 inputs"),
    (dict(name="mx", numpy=lambda a, b, xp: a[:1]), spla.InvalidOperator, "elementwise"),
    (dict(name="mx", numpy=lambda a, b, xp: a - b), spla.InvalidOperator, "not commutative"),
    (dict(name="mx", numpy=lambda a, b, xp: (a + b) // 2 * 2), spla.InvalidOperator, "not"),
    (dict(name="mx", numpy=lambda a, b, xp: xp.maximum(a, b) - xp.minimum(a, b), identity=0, dtypes=[np.uint32]),
     spla.InvalidOperator, "not associative"),
    (dict(name="mx", numpy=lambda a, b, xp: a + b + 1, identity=0), spla.InvalidOperator, "not neutral"),
    (dict(name="mx", identity=0), spla.InvalidOperator, "not neutral"),
    (dict(name="mx", identity=0.5, dtypes=[np.int32]), spla.InvalidOperator, "not a value of int32"),
    (dict(name="mx", identity={np.int32: -2 ** 31}, dtypes=[np.int32, np.int64]), spla.InvalidOperator,
     "no value for int64"),
    (dict(name="mx", identity="least"), spla.InvalidOperator, "'min' or 'max'"),
    (dict(name="mx", cuda="a; b"), spla.InvalidOperator, "';'"),
    (dict(name="mx", cuda="max(a, b"), spla.InvalidOperator, "unbalanced"),
    (dict(name="mx", cuda="1"), spla.InvalidOperator, "neither"),
    (dict(name="mx", cuda="a // b"), spla.InvalidOperator, "'//'"),
    (dict(name="mx", cuda=None, atomic="atomicMax(p, v);"), spla.InvalidOperator, "needs cuda="),
    (dict(name="mx", atomic={np.float16: "atomicMax(p, v);"}), spla.DomainMismatch, "float16"),
    (dict(name="mx", atomic="atomicMax(q, v);"), spla.InvalidOperator, "never names p"),
])
def test_monoid_door(kwargs, error, words):
    args = dict(numpy=_max, cuda="spla_max(a, b)", identity="min")
    args.update(kwargs)
    name = args.pop("name")
    with pytest.raises(error, match=None) as info:
        sr.monoid(name, **args)
    assert words in str(info.value), str(info.value)
    assert name not in sr.MONOIDS or not sr.MONOIDS[name].user or name in ("widest", "wrapadd")


def test_law_errors_name_a_counterexample():
    with pytest.raises(spla.InvalidOperator, match=r"not associative on uint32: ADD\(ADD\(") as info:
        sr.monoid("absdiff", numpy=lambda a, b, xp: xp.maximum(a, b) - xp.minimum(a, b), identity=0,
                  dtypes=[np.uint32])
    assert "but ADD(" in str(info.value)
    with pytest.raises(spla.InvalidOperator, match=r"not commutative on int64: ADD\("):
        sr.monoid("lhs", numpy=lambda a, b, xp: a, identity=0, dtypes=[np.int64])
    with pytest.raises(spla.InvalidOperator, match="not neutral on float64: ADD\\(e, x\\)"):
        sr.monoid("mx", numpy=np.maximum, identity=0.0, dtypes=[np.float64])


def test_check_false_skips_the_laws(scratch):
    scratch.append("avg")
    m = sr.monoid("avg", numpy=lambda a, b, xp: (a + b) // 2, identity=0, dtypes=[np.int32], check=False)
    assert sr.MONOIDS["avg"] is m


@pytest.mark.parametrize("kwargs,error,words", [
    (dict(name="min"), spla.InvalidOperator, "taken by a built-in monoid"),
    (dict(name="widest"), spla.InvalidOperator, "taken by a user-defined monoid"),
    (dict(name="bad_"), spla.InvalidOperator, "not ending with '_'"),
    (dict(name="op", numpy="subtract"), spla.InvalidOperator, "ufunc or a function"),
    (dict(name="op", numpy=lambda x, a, xp: np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])),
     spla.InvalidOperator, "elementwise"),
    (dict(name="op", numpy=lambda x, a, xp: x.nope), spla.InvalidOperator, "failed on arrays of"),
    (dict(name="op", cuda="{x}"), spla.InvalidOperator, "'{'"),
    (dict(name="op", dtypes=["float16"]), spla.DomainMismatch, "float16"),
    (dict(name="op", dtypes=[]), spla.DomainMismatch, "empty"),
])
def test_binary_op_door(kwargs, error, words):
    args = dict(numpy=np.subtract, cuda="x - a", dtypes=sr.SIGNED + sr.FLOATS)
    args.update(kwargs)
    name = args.pop("name")
    with pytest.raises(error) as info:
        sr.binary_op(name, **args)
    assert words in str(info.value), str(info.value)


def test_semiring_door(scratch):
    with pytest.raises(spla.InvalidOperator, match="built-ins"):
        sr.semiring("plus", "times")
    with pytest.raises(spla.UnknownNameError, match="unknown operator 'nope'"):
        sr.semiring("widest", "nope")
    with pytest.raises(spla.UnknownNameError, match="unknown monoid 'nope'"):
        sr.semiring("nope", "narrow")
    with pytest.raises(spla.DomainMismatch, match="bool is not a domain of both wrapadd and minus"):
        sr.semiring("wrapadd", "minus", dtypes=[np.bool_])
    with pytest.raises(spla.DomainMismatch, match="no domain"):
        sr.semiring("wrapadd", "minus")
    scratch.append("widest_minus")
    s = sr.semiring("widest", "minus")
    assert s.dtypes == sr.SIGNED + sr.FLOATS and sr.get("widest_minus") is s
    with pytest.raises(spla.DomainMismatch, match="not defined on dtype uint32"):
        spla.vxm(np.zeros(2, dtype=np.uint32), spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu"), s)


def test_unregister():
    with pytest.raises(spla.InvalidOperator, match="built in"):
        sr.unregister("plus_times")
    with pytest.raises(spla.UnknownNameError, match="no user-defined"):
        sr.unregister("nothing")


def test_a_compile_error_in_user_code_is_the_users(monkeypatch):
    """NVRTC's failure on a user's functors is an InvalidOperator naming the instantiation; on the
    built-in source it stays CuPy's own error (a fake CuPy stands for the device)."""
    import types
    from contextlib import nullcontext

    class CompileException(Exception):
        pass

    def module(code, options, name_expressions):
        if "spla_user_" in code:
            raise CompileException("user functors(3): error: identifier \"nope\" is undefined")
        return types.SimpleNamespace(get_function=lambda expr: ("kernel", expr))

    fake = types.SimpleNamespace(RawModule=module, cuda=types.SimpleNamespace(Device=lambda i: nullcontext()))
    monkeypatch.setattr(gpu, "load_cupy", lambda: fake)
    s = sr.get("widest_narrow")
    add, mul = gpu.functor_keys(s)
    kernels = gpu.SpmvKernels(add, mul, "<f4", "<i4", False, 0, code=gpu.user_code(s))
    with pytest.raises(spla.InvalidOperator, match=r"does not compile for spla_sccooc<spla_user_add_widest.*nope"):
        kernels["scCOOC"]
    assert gpu.SpmvKernels("plus", "times", "<f4", "<i4", False, 0)["scCOOC"][0] == "kernel"
