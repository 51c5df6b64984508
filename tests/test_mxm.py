"""spla.mxm against the dense NumPy reference: every registered semiring, every mask mode (none,
structural, valued, complemented), accum, out and replace, rectangular shapes, empty rows and
columns; the three CPU forms (SciPy, dot products, saxpy) against each other; the GPU kernel's
source compiled by nvcc."""

import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import semirings as _sr
from spla.backends import cpu_mxm, cuda_source
from spla.backends.gpu import spgemm as gpu_spgemm
from spla.testing import matrices, scaled
from spla.testing.matrix_references import assert_matrix_equal, dense_mask, dense_merge, dense_mxm


@st.composite
def mxm_calls(draw, device):
    """(A, B, semiring, dtype, kwargs) of one spla.mxm call."""
    name = draw(st.sampled_from(_sr.names()), label="semiring")
    sr = _sr.get(name)
    dtype = draw(st.sampled_from(sr.dtypes), label="dtype")
    m, k, n = (draw(st.integers(0, 7), label=x) for x in "mkn")
    A = _draw_matrix(draw, m, k, dtype, device, "A")
    B = _draw_matrix(draw, k, n, dtype, device, "B")
    kwargs = {}
    if draw(st.booleans(), label="masked"):
        kwargs["mask"] = _draw_matrix(draw, m, n, None, device, "mask")
        kwargs["structural"] = draw(st.booleans(), label="structural")
        kwargs["complement"] = draw(st.booleans(), label="complement")
    if draw(st.booleans(), label="with out"):
        kwargs["out"] = _draw_matrix(draw, m, n, dtype, device, "out").astype(dtype)
        kwargs["replace"] = draw(st.booleans(), label="replace")
        accums = [None] + [a for a in _sr.ACCUM_OPS if np.dtype(dtype) in _sr.accum_dtypes(a)]
        kwargs["accum"] = draw(st.sampled_from(accums), label="accum")
    return A, B, sr, np.dtype(dtype), kwargs


def _draw_matrix(draw, rows, cols, domain, device, label):
    lo = 0 if domain is not None and np.dtype(domain).kind in "ub" else None
    return draw(matrices(min_rows=rows, max_rows=rows, min_cols=cols, max_cols=cols, max_nnz=40, min_value=lo,
                         device=device, directed=True if rows != cols else None), label=label)


def _expected(A, B, sr, dtype, kwargs):
    shape = (A.shape[0], B.shape[1])
    t = dense_mxm(A, B, sr, dtype)
    allowed = dense_mask(kwargs.get("mask"), shape, kwargs.get("structural", True), kwargs.get("complement", False))
    return dense_merge(t, allowed, kwargs.get("out"), kwargs.get("accum"), kwargs.get("replace", False), dtype)


@settings(max_examples=scaled(100), deadline=None)
@given(data=st.data())
def test_mxm_equals_the_dense_reference(data, device):
    A, B, sr, dtype, kwargs = data.draw(mxm_calls(device))
    C = spla.mxm(A, B, sr, dtype=dtype, **kwargs)
    assert C.shape == (A.shape[0], B.shape[1]) and C.device == A.device
    # values are small integers or quarters: every sum and product is exact in float32
    assert_matrix_equal(C, _expected(A, B, sr, dtype, kwargs), dtype)


@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data(), form=st.sampled_from(["dot", "saxpy", "scipy"]))
def test_cpu_forms_agree_with_the_reference(data, form):
    """Each CPU form on its own, whatever the cost rule would pick."""
    A, B, sr, dtype, _ = data.draw(mxm_calls("cpu"))
    if form == "scipy" and not cpu_mxm._scipy_exact(A, B, sr, dtype):
        sr = _sr.get("plus_times") if dtype.kind != "b" else sr
        if not cpu_mxm._scipy_exact(A, B, sr, dtype):
            return
    m, n = A.shape[0], B.shape[1]
    if form == "dot":
        keys = np.arange(m * n, dtype=np.int64)
        k, v = cpu_mxm._dot(A, B, sr, dtype, keys % max(m, 1), keys // max(m, 1))
    elif form == "saxpy":
        k, v = cpu_mxm._saxpy(A, B, sr, dtype, None)
    else:
        k, v = cpu_mxm._scipy(A, B, sr, dtype)
    wv, wp = dense_mxm(A, B, sr, dtype)
    rows, cols = k % max(m, 1), k // max(m, 1)
    present = np.zeros((m, n), dtype=bool)
    present[rows, cols] = True
    assert np.array_equal(present, wp)
    assert np.all(np.diff(k) > 0)
    assert np.array_equal(v, wv[rows, cols])


def test_mxm_small_chunks_give_the_same_result():
    rng = np.random.default_rng(3)
    S = sp.random(30, 30, density=0.2, random_state=rng, format="csc")
    S.data = np.round(S.data * 8)
    A = spla.Matrix.from_scipy(S, directed=True, device="cpu")
    want = spla.mxm(A, A.T, "min_plus")
    with spla.tuning.override(arc_chunk_elements=7):
        for kw in ({}, {"mask": A}):
            got = spla.mxm(A, A.T, "min_plus", **kw)
            ref = want if not kw else spla.mxm(A, A.T, "min_plus", mask=A)
            assert np.array_equal(got.to_scipy().toarray(), ref.to_scipy().toarray())
            assert got.nnz == ref.nnz


def test_mxm_keeps_entries_whose_products_cancel(device):
    """GraphBLAS stores C(i, j) whenever some k meets, even when the sum is 0."""
    A = spla.Matrix.from_scipy(sp.csc_array(np.array([[1.0, -1.0]])), device=device)
    B = spla.Matrix.from_scipy(sp.csc_array(np.array([[1.0], [1.0]])), device=device)
    C = spla.mxm(A, B, "plus_times")
    assert C.nnz == 1 and float(spla.device.to_numpy(C.values)[0]) == 0.0


def test_mxm_triangle_count_doc_example():
    L = spla.Matrix.from_scipy(np.tril(np.ones((4, 4)), -1), device="cpu")  # K4: 4 triangles
    C = spla.mxm(L, L.T, "plus_pair", mask=L)
    assert C.dtype == np.int64 and int(C.values.sum()) == 4


def test_mxm_errors():
    A = spla.Matrix.from_scipy(np.ones((2, 3)), device="cpu")
    with pytest.raises(spla.DimensionMismatch, match="A's columns must equal B's rows"):
        spla.mxm(A, A, "plus_times")
    with pytest.raises(spla.DimensionMismatch, match="mask has shape"):
        spla.mxm(A, A.T, "plus_times", mask=A)
    with pytest.raises(ValueError, match="complement=True needs a mask"):
        spla.mxm(A, A.T, "plus_times", complement=True)
    with pytest.raises(ValueError, match="needs out="):
        spla.mxm(A, A.T, "plus_times", accum="plus")
    with pytest.raises(spla.DomainMismatch, match="out has dtype"):
        spla.mxm(A, A.T, "plus_times", out=spla.mxm(A, A.T, "plus_times").astype(np.float32))
    with pytest.raises(spla.DomainMismatch, match="not defined on dtype"):
        spla.mxm(A, A.T, "lor_land", dtype=np.float64)
    with pytest.raises(spla.UnknownNameError):
        spla.mxm(A, A.T, "plus_nothing")
    with pytest.raises(TypeError, match="must be a spla.Matrix"):
        spla.mxm(np.ones((2, 2)), A, "plus_times")


def test_mxm_refuses_values_with_no_value_in_an_integer_domain():
    A = spla.Matrix.from_scipy(sp.csc_array(np.array([[np.nan, 1.0], [0.0, 2.0]])), device="cpu")
    P = A.pattern()
    with pytest.raises(spla.InvalidGraph, match="outside int64"):
        spla.mxm(A, P, "plus_times", dtype=np.int64)
    with pytest.raises(spla.InvalidGraph, match="outside int64"):
        spla.mxm(P, A, "min_plus", dtype=np.int64)
    # operators that never read the value take it
    assert spla.mxm(A, P, "plus_second", dtype=np.int64).nnz == 3
    assert spla.mxm(P, A, "plus_first", dtype=np.int64).nnz == 3


# ------------------------------------------------------------------ the GPU kernel's source
def test_spgemm_source_is_nvrtc_compatible():
    code = re.sub(r"//[^\n]*", "", cuda_source.load(gpu_spgemm.SPGEMM_SOURCE))
    assert not re.search(r"^\s*#\s*include", code, re.M)
    for forbidden in ("std::", "size_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "printf"):
        assert forbidden not in code
    assert len(re.findall(r"__global__ void[^;{]*\bspla_spgemm_dot\(", code)) == 1


def test_group_size_follows_the_shorter_lists():
    def matrix(rows, cols, density):
        S = sp.random(rows, cols, density=density, random_state=1, format="csc")
        return spla.Matrix.from_scipy(S, directed=True, device="cpu")

    A, B = matrix(200, 300, 0.01), matrix(300, 200, 0.33)
    assert gpu_spgemm.group_size(A, B) == 4           # A's rows of 3 entries, B's columns of about 100
    assert gpu_spgemm.group_size(B.T, A.T) == 4       # ... the other way round
    assert gpu_spgemm.group_size(matrix(50, 300, 0.9), matrix(300, 50, 0.9)) == 32
    empty = spla.Matrix.from_scipy(sp.csc_array((0, 0)), device="cpu")
    assert gpu_spgemm.group_size(empty, empty) == 1


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_spgemm_kernel_compiles_with_nvcc(tmp_path):
    """Every monoid and operator on a domain of its, both index types, pattern and valued operands."""
    from spla.backends.gpu import compile as gpu

    names = []
    for add, (_, adts) in gpu.ADD_FUNCTORS.items():
        for mul, (_, mdts) in gpu.MUL_FUNCTORS.items():
            dt = next(d for d in adts if d in mdts)
            names.append(gpu_spgemm.spgemm_name(add, mul, dt, np.int64, False, False))
    for idx in (np.int32, np.int64):
        for ap in (False, True):
            for bp in (False, True):
                names.append(gpu_spgemm.spgemm_name("plus", "times", np.float32, idx, ap, bp))
    for group in gpu_spgemm.GROUP_SIZES:
        names.append(gpu_spgemm.spgemm_name("min", "plus", np.float64, np.int32, False, True, group))
    src = tmp_path / "spgemm.cu"
    src.write_text(f'#include "{gpu_spgemm.SPGEMM_SOURCE}"\nextern void* const x[];\nvoid* const x[] = {{'
                   + ", ".join(f"(void*)&{n}" for n in sorted(set(names))) + "};\n")
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-c", "-o", str(tmp_path / "o.o"), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------------------ the GPU backend's host side
class _NumpyAsCupy:
    """NumPy under CuPy's name, for running spla.backends.gpu.spgemm's host code on the CPU."""

    cuda = type("cuda", (), {"Device": staticmethod(lambda *a: type("Device", (), {"id": 0})())})

    def __getattr__(self, name):
        return getattr(np, name)


def _emulated_kernel(add, mul, dtype_str, index_str, a_pattern, b_pattern, group, device_id, code=""):
    """spla_spgemm_dot's contract in Python, taking the launch's arguments in the kernel's order."""
    assert code == ""  # the registered semirings are built-ins: no generated functors
    monoid, op = _sr.MONOIDS[add], _sr.BINARY_OPS[mul]
    dtype = np.dtype(dtype_str)
    assert group in gpu_spgemm.GROUP_SIZES

    def launch(grid, block, args):
        arowptr, acolidx, avals, bcolptr, browidx, bvals, rows, cols, nlist, vals, found = args
        assert all(a.dtype == np.dtype(index_str) for a in (arowptr, acolidx, bcolptr, browidx, rows, cols))
        assert vals.dtype == dtype and found.dtype == np.uint8 and int(nlist) == rows.size == cols.size
        for e in range(int(nlist)):
            i, j = rows[e], cols[e]
            pa = np.arange(arowptr[i], arowptr[i + 1])
            pb = np.arange(bcolptr[j], bcolptr[j + 1])
            _, ia, ib = np.intersect1d(acolidx[pa], browidx[pb], return_indices=True)
            found[e] = ia.size > 0
            if ia.size:
                a = np.ones(ia.size, dtype) if a_pattern else avals[pa[ia]]
                b = np.ones(ib.size, dtype) if b_pattern else bvals[pb[ib]]
                vals[e] = monoid.ufunc.reduce(op.apply(a, b, np).astype(dtype))
    return launch


@settings(max_examples=scaled(80), deadline=None)
@given(data=st.data())
def test_gpu_host_side_with_an_emulated_kernel(data, monkeypatch_module):
    """spla.backends.gpu.spgemm's candidate lists (mask, cuSPARSE structure, complement), index casts,
    kernel arguments and compaction, with NumPy standing for CuPy, SciPy for cupyx and a Python
    emulation of the kernel: its result must be the CPU backend's."""
    A, B, sr, dtype, kwargs = data.draw(mxm_calls("cpu"))
    mask = kwargs.get("mask")
    mkeys = None if mask is None else spla.masks.allowed_keys(mask, kwargs["structural"])
    complement = kwargs.get("complement", False)
    want = cpu_mxm.mxm(A, B, sr, dtype, mkeys, complement)
    got = gpu_spgemm.mxm(A, B, sr, dtype, mkeys, complement)
    assert np.array_equal(got[0], want[0])
    assert np.array_equal(got[1], want[1])


def test_gpu_structure_refuses_products_past_cusparse_int32(monkeypatch_module, monkeypatch):
    """Past int32 partial products cuSPARSE's structure would wrap: the unmasked and complemented
    products are refused with a way forward; a mask's own entries need no structure and still run."""
    dense = np.ones((6, 6))
    A = spla.Matrix.from_scipy(sp.csc_array(dense), device="cpu")
    sr = _sr.get("plus_times")
    monkeypatch.setattr(gpu_spgemm, "CUSPARSE_MAX", 6 * 6 * 6 - 1)   # the product has 216 partial products
    for mkeys, complement in ((None, False), (np.arange(3, dtype=np.int64), True)):
        with pytest.raises(spla.KernelUnavailable, match="216 partial products.*pass a mask"):
            gpu_spgemm.mxm(A, A, sr, np.float64, mkeys, complement)
    keys = np.arange(36, dtype=np.int64)
    got = gpu_spgemm.mxm(A, A, sr, np.float64, keys, False)
    assert np.array_equal(got[0], keys) and np.all(got[1] == 6.0)
    monkeypatch.setattr(gpu_spgemm, "CUSPARSE_MAX", 6 * 6 * 6)
    assert np.array_equal(gpu_spgemm.mxm(A, A, sr, np.float64, None, False)[0], keys)


@pytest.fixture(scope="module")
def monkeypatch_module():
    import sys

    mp = pytest.MonkeyPatch()
    cupyx = type(sys)("cupyx")
    cupyx.scipy = type(sys)("cupyx.scipy")
    cupyx.scipy.sparse = sp
    mp.setitem(sys.modules, "cupyx", cupyx)
    mp.setitem(sys.modules, "cupyx.scipy", cupyx.scipy)
    mp.setitem(sys.modules, "cupyx.scipy.sparse", sp)
    mp.setattr(gpu_spgemm, "load_cupy", lambda: _NumpyAsCupy())
    mp.setattr(gpu_spgemm, "_kernel", _emulated_kernel)
    mp.setattr(gpu_spgemm, "resident_threads", lambda device: 4096)
    yield mp
    mp.undo()


def test_docstring_examples_run():
    import doctest

    from spla import spgemm

    assert doctest.testmod(spgemm, verbose=False).attempted > 0
    assert doctest.testmod(spgemm, verbose=False).failed == 0


@pytest.mark.parametrize("semiring", ["plus_times", "min_plus", "max_second", "any_pair", "bor_first"])
def test_mxm_long_rows_and_columns(semiring, device):
    """Rows of A and columns of B longer than a warp (the GPU kernel's lanes stride over them),
    with and without a mask, against the dense reference."""
    rng = np.random.default_rng(7)
    sr = _sr.get(semiring)
    dtype = sr.dtypes[-1] if semiring != "bor_first" else np.dtype(np.int64)
    dense_a = (rng.random((20, 90)) < 0.6) * rng.integers(1, 5, (20, 90))
    dense_b = (rng.random((90, 15)) < 0.6) * rng.integers(1, 5, (90, 15))
    A = spla.Matrix.from_scipy(sp.csc_array(dense_a.astype(np.float64)), device=device)
    B = spla.Matrix.from_scipy(sp.csc_array(dense_b.astype(np.float64)), device=device)
    M = spla.Matrix.from_scipy(sp.csc_array((rng.random((20, 15)) < 0.3).astype(np.float64)), device=device)
    for kwargs in ({}, {"mask": M}, {"mask": M, "complement": True}):
        C = spla.mxm(A, B, sr, dtype=dtype, **kwargs)
        assert_matrix_equal(C, _expected(A, B, sr, np.dtype(dtype), kwargs), dtype)
