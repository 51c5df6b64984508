"""Every bad argument of vxm / mxv / the Matrix constructors / bits fails at the door with
a clear message, an spla exception class that also derives from the built-in one a
Python user expects, and no side effect."""

import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import spla
from spla import bits
from spla import device as _dev


@pytest.fixture
def A():
    return spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), directed=True, device="cpu")  # 4x4


@pytest.fixture
def u():
    return np.array([1.0, 2.0, 0.0, 3.0])


def products():
    return [("vxm", lambda u, A, *a, **k: spla.vxm(u, A, *a, **k)),
            ("mxv", lambda u, A, *a, **k: spla.mxv(A, u, *a, **k))]


OPS = pytest.mark.parametrize("op", products(), ids=lambda p: p[0])


# --------------------------------------------------------------------------- hierarchy
@pytest.mark.parametrize("cls,base", [
    (spla.DimensionMismatch, ValueError), (spla.DomainMismatch, TypeError), (spla.DeviceMismatch, ValueError),
    (spla.UnknownNameError, ValueError), (spla.KernelUnavailable, ValueError), (spla.NoGPUError, RuntimeError),
    (spla.DeviceMemoryError, MemoryError), (spla.InvalidGraph, ValueError), (spla.ConvergenceError, RuntimeError),
    (spla.InvalidOperator, ValueError),
])
def test_exception_hierarchy(cls, base):
    assert issubclass(cls, spla.SplaError) and issubclass(cls, base)


# --------------------------------------------------------------------------- vxm / mxv
@OPS
def test_unknown_semiring(op, A, u):
    with pytest.raises(spla.UnknownNameError, match=r"unknown semiring 'plus_tims'.*plus_times"):
        op[1](u, A, "plus_tims")
    with pytest.raises(spla.UnknownNameError, match="unknown semiring"):
        op[1](u, A, 42)


@OPS
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_float_values_without_an_integer_value(op, dtype, device):
    """Float values NaN, +-inf or outside the integer domain's range have no value there (C leaves
    the cast undefined; NumPy and CUDA disagree): refused, unless MUL never reads A's values."""
    info = np.iinfo(dtype)
    u = _dev.to_device(np.ones(2, dtype=dtype), device)
    for bad in (np.nan, np.inf, -np.inf, float(info.max) * 2, float(info.min) - 2.0**40 if info.min else -1.0):
        A = spla.Matrix.from_scipy(sp.csc_array(np.array([[0.0, bad], [2.5, 0.0]])), directed=True, device=device)
        with pytest.raises(spla.InvalidGraph, match=rf"values include NaN, inf or values outside {np.dtype(dtype)}"):
            op[1](u, A, "plus_times")
        ignored = "first" if op[0] == "vxm" else "second"  # mxv computes MUL(a, x)
        for name in (f"plus_{ignored}", "plus_pair"):
            y = op[1](u, A, name)
            np.testing.assert_array_equal(_dev.to_numpy(y), [1, 1])
    # the extremes that do fit, and truncation toward zero
    lo, hi = float(info.min), float(info.max) if dtype in (np.int32, np.uint32) else 2.0**62
    A = spla.Matrix.from_scipy(sp.csc_array(np.array([[lo, hi], [2.9, -0.9]])), directed=True, device=device)
    y = _dev.to_numpy(spla.vxm(_dev.to_device(np.array([1, 0], dtype=dtype), device), A, "plus_times"))
    np.testing.assert_array_equal(y, np.array([int(lo), int(hi)], dtype=dtype))


@OPS
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_integer_values_outside_the_domain(op, dtype, device):
    """Integer values outside an integer domain's range would wrap (2**32 + 5 is 5 in int32, -3 is
    4294967293 in uint32): refused like the float ones, unless MUL never reads A's values; values
    that fit are exact, at both extremes."""
    info = np.iinfo(dtype)
    u = _dev.to_device(np.ones(2, dtype=dtype), device)
    wide = np.uint64 if dtype == np.int64 else np.int64  # a value dtype that can hold the bad values
    for bad in ([int(info.max) + 5] if dtype != np.uint64 else []) + [int(info.min) - 3 if info.min else -3]:
        if not (np.iinfo(wide).min <= bad <= np.iinfo(wide).max):
            continue
        S = sp.csc_array(np.array([[0, bad], [2, 0]], dtype=wide))
        A = spla.Matrix.from_scipy(S, directed=True, device=device)
        with pytest.raises(spla.InvalidGraph, match=rf"A's {np.dtype(wide)} values include some outside "
                           rf"{np.dtype(dtype)}'s range .*holds them \(u.astype\(np.{np.dtype(wide)}\)\)"):
            op[1](u, A, "plus_times")
        ignored = "first" if op[0] == "vxm" else "second"
        for name in (f"plus_{ignored}", "plus_pair"):
            np.testing.assert_array_equal(_dev.to_numpy(op[1](u, A, name)), [1, 1])
    for vdt in (np.int64, np.uint64):
        lo, hi = max(int(info.min), int(np.iinfo(vdt).min)), min(int(info.max), int(np.iinfo(vdt).max))
        A = spla.Matrix.from_scipy(sp.csc_array(np.array([[lo, hi], [2, 0]], dtype=vdt)), directed=True,
                                   device=device)
        y = _dev.to_numpy(spla.vxm(_dev.to_device(np.array([1, 0], dtype=dtype), device), A, "plus_times"))
        np.testing.assert_array_equal(y, np.array([lo, hi], dtype=dtype))


def test_flags_must_be_bool(A, u):
    for flag in ("complement", "replace"):
        with pytest.raises(TypeError, match=rf"vxm: {flag} must be True or False, got 'no'"):
            spla.vxm(u, A, "plus_times", mask=np.ones(4, dtype=bool), **{flag: "no"})
    spla.vxm(u, A, "plus_times", mask=np.ones(4, dtype=bool), complement=np.bool_(False), replace=np.bool_(True),
             out=np.zeros(4))


def test_read_only_out(A, u):
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(ValueError, match=r"vxm: out is read-only; pass a writeable array"):
        spla.vxm(u, A, "plus_times", out=out)


def test_non_native_byte_order_hint(A):
    with pytest.raises(spla.DomainMismatch, match=r"not native byte order: use u.astype\(u.dtype.newbyteorder\('='\)\)"):
        spla.vxm(np.ones(4, dtype=">f8"), A, "plus_times")


@OPS
def test_unknown_kernel(op, A, u):
    with pytest.raises(spla.UnknownNameError, match=r"unknown kernel 'warp'.*scCSC"):
        op[1](u, A, "plus_times", kernel="warp")
    with pytest.raises(spla.UnknownNameError, match="unknown kernel None"):
        op[1](u, A, "plus_times", kernel=None)


@OPS
def test_unknown_accum(op, A, u):
    with pytest.raises(spla.UnknownNameError, match=r"unknown accum 'times'.*plus"):
        op[1](u, A, "plus_times", accum="times", out=np.zeros(4))
    # an array holding a name compared elementwise, passed, and failed later as "unhashable type"
    with pytest.raises(spla.UnknownNameError, match=r"unknown accum array\(\['plus'\], dtype='<U4'\); use one of plus"):
        op[1](u, A, "plus_times", accum=np.array(["plus"]), out=np.zeros(4))


@OPS
def test_accum_without_out(op, A, u):
    with pytest.raises(ValueError, match=r"accum='plus' needs out="):
        op[1](u, A, "plus_times", accum="plus")


@OPS
def test_accum_not_defined_on_dtype(op, A):
    with pytest.raises(spla.DomainMismatch, match=r"accum 'lor' is not defined on dtype float64"):
        op[1](np.ones(4), A, "plus_times", accum="lor", out=np.zeros(4))
    with pytest.raises(spla.DomainMismatch, match=r"accum 'bor' is not defined on dtype float32"):
        op[1](np.ones(4, np.float32), A, "plus_times", accum="bor", out=np.zeros(4, np.float32))
    with pytest.raises(spla.DomainMismatch, match=r"accum 'plus' is not defined on dtype bool"):
        op[1](np.ones(4, bool), A, "lor_land", accum="plus", out=np.zeros(4, bool))


@OPS
def test_wrong_u_shape(op, A):
    with pytest.raises(spla.DimensionMismatch, match=r"u has 3 rows but A of shape \(4, 4\) needs 4"):
        op[1](np.ones(3), A, "plus_times")
    with pytest.raises(spla.DimensionMismatch, match=r"u must be 1-D \(n,\) or a 2-D block \(n, k\)"):
        op[1](np.ones((4, 2, 2)), A, "plus_times")
    with pytest.raises(spla.DimensionMismatch, match=r"u must be 1-D"):
        op[1](np.ones(()), A, "plus_times")


def test_wrong_u_rows_rectangular():
    R = spla.Matrix.from_scipy(sp.random(3, 5, density=0.5, random_state=0), device="cpu")
    with pytest.raises(spla.DimensionMismatch, match=r"vxm: u has 5 rows but A of shape \(3, 5\) needs 3"):
        spla.vxm(np.ones(5), R, "plus_times")
    with pytest.raises(spla.DimensionMismatch, match=r"mxv: u has 3 rows but A of shape \(3, 5\) needs 5"):
        spla.mxv(R, np.ones(3), "plus_times")


@OPS
def test_u_dtype_not_in_semiring(op, A):
    with pytest.raises(spla.DomainMismatch, match=r"semiring lor_land is not defined on dtype float64; it accepts bool"):
        op[1](np.ones(4), A, "lor_land")
    with pytest.raises(spla.DomainMismatch, match=r"semiring bor_first is not defined on dtype float32"):
        op[1](np.ones(4, np.float32), A, "bor_first")
    with pytest.raises(spla.DomainMismatch, match=r"semiring plus_times is not defined on dtype bool"):
        op[1](np.ones(4, bool), A, "plus_times")
    with pytest.raises(spla.DomainMismatch, match=r"not defined on dtype float16"):
        op[1](np.ones(4, np.float16), A, "plus_times")
    with pytest.raises(spla.DomainMismatch, match=r"not defined on dtype complex128"):
        op[1](np.ones(4, np.complex128), A, "plus_times")


@OPS
def test_u_not_an_array(op, A):
    with pytest.raises(TypeError, match=r"u must be a NumPy array on cpu, got list"):
        op[1]([1.0, 2.0, 0.0, 3.0], A, "plus_times")


@OPS
def test_mask_dtype(op, A, u):
    with pytest.raises(spla.DomainMismatch, match=r"mask must be a bool array, got dtype int64; use mask.astype\(bool\)"):
        op[1](u, A, "plus_times", mask=np.ones(4, dtype=np.int64))


@OPS
def test_mask_shape(op, A, u):
    with pytest.raises(spla.DimensionMismatch, match=r"mask has shape \(3,\) but the output has shape \(4,\)"):
        op[1](u, A, "plus_times", mask=np.ones(3, dtype=bool))
    with pytest.raises(spla.DimensionMismatch, match=r"mask has shape \(4, 3\) but the output has shape \(4, 2\) "
                                                    r"\(a block also accepts \(4,\)\)"):
        op[1](np.ones((4, 2)), A, "plus_times", mask=np.ones((4, 3), dtype=bool))
    with pytest.raises(spla.DimensionMismatch, match=r"mask has shape \(4, 1\) but the output has shape \(4,\)"):
        op[1](u, A, "plus_times", mask=np.ones((4, 1), dtype=bool))


@OPS
def test_mask_not_an_array(op, A, u):
    with pytest.raises(TypeError, match=r"mask must be a NumPy array"):
        op[1](u, A, "plus_times", mask=[True] * 4)


@OPS
def test_out_shape_dtype_layout(op, A, u):
    with pytest.raises(spla.DimensionMismatch, match=r"out has shape \(5,\) but the result has shape \(4,\)"):
        op[1](u, A, "plus_times", out=np.zeros(5))
    with pytest.raises(spla.DimensionMismatch, match=r"out has shape \(4,\) but the result has shape \(4, 2\)"):
        op[1](np.ones((4, 2)), A, "plus_times", out=np.zeros(4))
    with pytest.raises(spla.DomainMismatch, match=r"out has dtype float32 but the result has u's dtype float64"):
        op[1](u, A, "plus_times", out=np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"out must be C-contiguous"):
        op[1](np.ones((4, 2)), A, "plus_times", out=np.zeros((2, 4)).T)
    with pytest.raises(ValueError, match=r"out must be C-contiguous, got one of shape \(4,\) with strides \(16,\); "
                                         r"pass a contiguous copy \(xp.ascontiguousarray\(out\)\) and use the array returned"):
        op[1](u, A, "plus_times", out=np.zeros(8)[::2])
    with pytest.raises(TypeError, match=r"out must be a NumPy array"):
        op[1](u, A, "plus_times", out=[0.0] * 4)


@OPS
def test_complement_without_mask(op, A, u):
    with pytest.raises(ValueError, match=r"complement=True needs a mask"):
        op[1](u, A, "plus_times", complement=True)


@OPS
@pytest.mark.parametrize("bad", [sp.csc_array(np.eye(4)), np.eye(4), nx.path_graph(4), None])
def test_A_not_a_matrix(op, bad, u):
    with pytest.raises(TypeError, match=r"A must be a spla.Matrix, got .*; build one with spla.Matrix.from_scipy"):
        op[1](u, bad, "plus_times")


@OPS
def test_errors_leave_out_untouched(op, A, u):
    out = np.full(4, 7.0)
    for kw in (dict(accum="times"), dict(mask=np.ones(3, bool)), dict(kernel="nope"), dict(complement=True)):
        with pytest.raises(ValueError):
            op[1](u, A, "plus_times", out=out, **kw)
        assert np.all(out == 7.0)
    with pytest.raises(spla.UnknownNameError):
        op[1](u, A, "nope", out=out)
    assert np.all(out == 7.0)


@pytest.mark.gpu
@OPS
def test_device_mismatch(op):
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="gpu:0")
    cp = _dev.cupy_module()
    with pytest.raises(spla.DeviceMismatch, match=r"u lives on cpu but the matrix lives on gpu:0"):
        op[1](np.ones(3), A, "plus_times")
    with pytest.raises(spla.DeviceMismatch, match=r"mask lives on cpu but the matrix lives on gpu:0"):
        op[1](cp.ones(3), A, "plus_times", mask=np.ones(3, bool))
    with pytest.raises(spla.DeviceMismatch, match=r"out lives on cpu but the matrix lives on gpu:0"):
        op[1](cp.ones(3), A, "plus_times", out=np.zeros(3))
    B = A.to("cpu")
    with pytest.raises(spla.DeviceMismatch, match=r"u lives on gpu:0 but the matrix lives on cpu"):
        op[1](cp.ones(3), B, "plus_times")


@pytest.mark.gpu
def test_kernel_unavailable_names_the_reason():
    """An explicitly requested GPU kernel that cannot run a semiring/dtype says why."""
    from spla.backends import gpu
    from spla import semirings as sr

    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="gpu:0")
    cp = _dev.cupy_module()
    for name in sr.names():
        for dt in sr.get(name).dtypes:
            for kernel in spla.KERNELS:
                ok, why = gpu.supports(kernel, sr.get(name), dt)
                if not ok:
                    with pytest.raises(spla.KernelUnavailable, match=f"kernel {kernel} cannot run {name} on {dt}"):
                        spla.vxm(cp.ones(3, dtype=dt), A, name, kernel=kernel)


# --------------------------------------------------------------------------- devices
@pytest.mark.parametrize("bad", ["tpu", "cuda", "gpu0", "GPU", "gpu:x", "cpu:0"])
def test_unknown_device_string(bad):
    with pytest.raises(spla.UnknownNameError, match=rf"unknown device '{bad}'; use 'cpu', 'gpu', 'gpu:N' or 'auto'"):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device=bad)
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu")
    with pytest.raises(spla.UnknownNameError, match="unknown device"):
        A.to(bad)
    with pytest.raises(spla.UnknownNameError, match="unknown device"):
        spla.Matrix.from_scipy(sp.eye(3), device=bad)


def test_device_not_a_string():
    with pytest.raises(spla.UnknownNameError, match=r"device must be a string like 'cpu', 'gpu', 'gpu:0' or 'auto', got 0"):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device=0)


def test_device_none_is_refused():
    """None is no device name: read as "auto", ``A.to(None)`` would move a CPU matrix to the GPU (where an
    algorithm's ``device=None`` means "where the graph is")."""
    msg = r"device must be a string like 'cpu', 'gpu', 'gpu:0' or 'auto', got None"
    with pytest.raises(spla.UnknownNameError, match=msg):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device=None)
    with pytest.raises(spla.UnknownNameError, match=msg):
        spla.Matrix.from_scipy(sp.eye(3), device=None)
    with pytest.raises(spla.UnknownNameError, match=msg):
        spla.Matrix.from_networkx(nx.path_graph(3), device=None)
    with pytest.raises(spla.UnknownNameError, match=msg):
        spla.Matrix.from_csc([0, 1], [0], None, (1, 1), device=None)
    with pytest.raises(spla.UnknownNameError, match=msg):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu").to(None)


@pytest.mark.parametrize("dev", ["gpu", "gpu:0", "gpu:1"])
def test_gpu_without_gpu(dev):
    if spla.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(spla.NoGPUError, match=r"no GPU is available: .*install spla\[cuda12\].*or use device='cpu'"):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device=dev)
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu")
    with pytest.raises(spla.NoGPUError, match="no GPU is available"):
        A.to(dev)
    assert spla.Matrix.from_edges(np.array([0]), np.array([1]), device="auto").device == "cpu"


@pytest.mark.gpu
def test_gpu_index_out_of_range():
    count = _dev.cupy_module().cuda.runtime.getDeviceCount()
    with pytest.raises(spla.NoGPUError, match=rf"device 'gpu:{count}' does not exist: CuPy sees {count} GPU"):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), device=f"gpu:{count}")


# --------------------------------------------------------------------------- constructors
def test_from_edges_vertex_out_of_range():
    with pytest.raises(spla.InvalidGraph, match=r"vertex id 5 is outside 0..3 \(n=4\); pass a larger n"):
        spla.Matrix.from_edges(np.array([0, 5]), np.array([1, 2]), n=4, device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"vertex id -1 is outside 0..3 \(n=4\)"):
        spla.Matrix.from_edges(np.array([0, 1]), np.array([-1, 2]), n=4, device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"vertex id -2 is outside"):
        spla.Matrix.from_edges(np.array([-2]), np.array([0]), device="cpu")


def test_from_edges_mismatched_lengths():
    with pytest.raises(spla.InvalidGraph, match=r"src and dst must be 1-D arrays of the same length, got shapes \(3,\) and \(2,\)"):
        spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2]), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"same length"):
        spla.Matrix.from_edges(np.array([[0, 1]]), np.array([[1, 2]]), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"values must have one entry per edge \(2\), got shape \(3,\)"):
        spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), values=np.ones(3), device="cpu")


def test_from_edges_non_integer_ids():
    with pytest.raises(spla.DomainMismatch, match=r"src and dst must be integer arrays, got float64 and int64"):
        spla.Matrix.from_edges(np.array([0.0, 1.0]), np.array([1, 2]), device="cpu")
    with pytest.raises(spla.DomainMismatch, match=r"must be integer arrays, got int64 and <U1"):
        spla.Matrix.from_edges(np.array([0, 1]), np.array(["a", "b"]), device="cpu")


def test_from_scipy_non_square_undirected():
    with pytest.raises(spla.InvalidGraph, match=r"an undirected graph needs a square matrix, got shape \(3, 4\)"):
        spla.Matrix.from_scipy(sp.random(3, 4, density=0.5, random_state=0), directed=False, device="cpu")


def test_from_scipy_bad_input():
    with pytest.raises(spla.InvalidGraph, match=r"expected a 2-D matrix, got an array of shape \(2, 2, 2\)"):
        spla.Matrix.from_scipy(np.ones((2, 2, 2)), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"expected a 2-D matrix, got an array of shape \(3,\)"):
        spla.Matrix.from_scipy(np.ones(3), device="cpu")
    with pytest.raises(spla.DomainMismatch, match=r"matrix values of dtype complex128 are not supported; use bool, integer or float"):
        spla.Matrix.from_scipy(sp.csc_array(np.eye(2) * 1j), device="cpu")


def test_from_csc_bad_colptr():
    with pytest.raises(spla.InvalidGraph, match=r"colptr must be non-decreasing, length ncols\+1 = 3, from 0 to nnz"):
        spla.Matrix.from_csc(np.array([0, 1]), np.array([0]), None, (2, 2), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"colptr must be non-decreasing"):
        spla.Matrix.from_csc(np.array([0, 2, 1]), np.array([0, 1]), None, (2, 2), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"colptr must be non-decreasing"):
        spla.Matrix.from_csc(np.array([1, 1, 2]), np.array([0, 1]), None, (2, 2), device="cpu")


# --------------------------------------------------------------------------- bits and selection
def test_from_csc_bad_rowidx_and_values():
    """rowidx is checked like colptr: out-of-range rows would be read out of bounds (on the GPU, and by
    SciPy's unchecked transpose), float indices would be truncated."""
    colptr = np.array([0, 1, 2])
    for bad, shown in ((np.array([0, -1]), -1), (np.array([0, 5]), 5)):
        with pytest.raises(spla.InvalidGraph, match=rf"row index {shown} is outside 0..1 \(nrows=2\)"):
            spla.Matrix.from_csc(colptr, bad, None, (2, 2), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"rowidx must be a 1-D integer array, got dtype float64"):
        spla.Matrix.from_csc(colptr, np.array([0.5, 1.7]), None, (2, 2), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"values must have one entry per stored entry \(2\), got shape \(3,\)"):
        spla.Matrix.from_csc(colptr, np.array([0, 1]), np.ones(3), (2, 2), device="cpu")
    with pytest.raises(spla.DomainMismatch, match=r"values of dtype complex128 are not supported"):
        spla.Matrix.from_csc(colptr, np.array([0, 1]), np.array([1j, 2.0]), (2, 2), device="cpu")


def test_from_csc_shape_must_be_integers():
    with pytest.raises(TypeError, match=r"shape\[0\] must be an integer, got 2.0"):
        spla.Matrix.from_csc([0, 0, 0], [], None, (2.0, 2), device="cpu")


def test_unsupported_value_dtypes():
    with pytest.raises(spla.DomainMismatch, match=r"values of dtype complex128 are not supported"):
        spla.Matrix.from_edges([0], [1], values=np.array([3 + 4j]), directed=True, device="cpu")
    if np.dtype(np.longdouble).itemsize > 8:
        with pytest.raises(spla.DomainMismatch, match=r"values of dtype float128 are not supported.*at most 64 bits"):
            spla.Matrix.from_scipy(sp.csc_array(np.eye(2, dtype=np.longdouble) * 2), device="cpu")


@pytest.mark.parametrize("build", [
    lambda d: spla.Matrix.from_edges([0], [1], directed=d, device="cpu"),
    lambda d: spla.Matrix.from_scipy(sp.csc_array(np.eye(2)), directed=d, device="cpu"),
    lambda d: spla.Matrix.from_csc([0, 1, 1], [1], None, (2, 2), directed=d, device="cpu"),
], ids=["from_edges", "from_scipy", "from_csc"])
def test_directed_must_be_a_bool_or_none(build):
    with pytest.raises(TypeError, match=r"directed must be True, False or None, got 'no'"):
        build("no")


def test_from_edges_bad_n_and_ids():
    with pytest.raises(TypeError, match=r"n \(the number of vertices\) must be an integer, got 3.7"):
        spla.Matrix.from_edges([0], [1], n=3.7, device="cpu")
    with pytest.raises(TypeError, match=r"n \(the number of vertices\) must be an integer, got '5'"):
        spla.Matrix.from_edges([0], [1], n="5", device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"n \(the number of vertices\) must be >= 0, got -1"):
        spla.Matrix.from_edges([], [], n=-1, device="cpu")
    big = np.array([2**63 + 1], dtype=np.uint64)
    with pytest.raises(spla.InvalidGraph, match=rf"vertex id {2**63 + 1} is outside 0..9"):
        spla.Matrix.from_edges(big, np.array([0], dtype=np.uint64), n=10, device="cpu")
    with pytest.raises(spla.UnknownNameError, match=r"unknown device 'gpu1'"):
        spla.Matrix.from_edges([0], [1], device="gpu1")


def test_from_edges_ids_and_n_beyond_int64():
    """Ids and counts beyond int64 indices: refused by name (they were OverflowError "Python int too large
    to convert to C long" from SciPy)."""
    big = np.array([2**63 + 5], dtype=np.uint64)
    with pytest.raises(spla.InvalidGraph, match=rf"vertex id {2**63 + 5} is beyond the int64 indices spla stores "
                                                rf"\(ids 0..{2**63 - 2}\); renumber the vertices 0..n-1"):
        spla.Matrix.from_edges(big, np.array([0], dtype=np.uint64), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=rf"n \(the number of vertices\) = {2**63} is beyond the int64 "
                                                rf"indices spla stores \(at most {2**63 - 1}\)"):
        spla.Matrix.from_edges(np.array([0]), np.array([1]), n=2**63, device="cpu")
    with pytest.raises(spla.InvalidGraph, match=rf"shape\[0\] = {2**64} is beyond the int64 indices"):
        spla.Matrix.from_csc([0], [], None, (2**64, 0), device="cpu")


def test_counts_are_not_bools():
    with pytest.raises(TypeError, match=r"n \(the number of vertices\) must be an integer, got True"):
        spla.Matrix.from_edges(np.array([0]), np.array([0]), n=True, device="cpu")
    with pytest.raises(TypeError, match=r"shape\[1\] must be an integer, got False"):
        spla.Matrix.from_csc([0], [], None, (0, False), device="cpu")


def test_from_csc_shape_not_a_pair():
    """shape of one or three entries, or a number: refused by name (were IndexError, "'int' object is not
    subscriptable", and a silently ignored third entry)."""
    with pytest.raises(spla.InvalidGraph, match=r"shape must be a pair \(nrows, ncols\), got \(1,\) of 1 entries"):
        spla.Matrix.from_csc([0, 1], [0], None, (1,), device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"shape must be a pair \(nrows, ncols\), got \(1, 1, 5\) of 3 entries"):
        spla.Matrix.from_csc([0, 1], [0], None, (1, 1, 5), device="cpu")
    with pytest.raises(TypeError, match=r"shape must be a pair \(nrows, ncols\), got 1$"):
        spla.Matrix.from_csc([0, 1], [0], None, 1, device="cpu")


def test_from_scipy_not_a_matrix():
    """A networkx graph, a spla.Matrix, None or object values: said so (not a graph read as the array of
    its nodes, "expected a 2-D matrix, got an array of shape (3,)")."""
    with pytest.raises(TypeError, match=r"from_scipy takes a SciPy sparse matrix/array or a 2-D NumPy array, "
                                        r"got Graph; use Matrix.from_networkx"):
        spla.Matrix.from_scipy(nx.path_graph(3), device="cpu")
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), device="cpu")
    with pytest.raises(TypeError, match=r"got Matrix; it is a spla.Matrix already \(Matrix.to moves it\)"):
        spla.Matrix.from_scipy(A, device="cpu")
    with pytest.raises(spla.InvalidGraph, match=r"expected a 2-D matrix, got NoneType None \(read as an array of "
                                                r"shape \(\)\); pass a SciPy sparse matrix/array or a 2-D NumPy array"):
        spla.Matrix.from_scipy(None, device="cpu")
    with pytest.raises(spla.DomainMismatch, match=r"matrix values of dtype object are not supported"):
        spla.Matrix.from_scipy(np.array([[0, 1], [1, None]], dtype=object), device="cpu")


def test_from_networkx_bad_input():
    with pytest.raises(TypeError, match=r"G must be a networkx graph, got ndarray; .*Matrix.from_scipy"):
        spla.Matrix.from_networkx(np.eye(2))
    for bad in ("heavy", None, 2**70, 1 + 2j):
        G = nx.Graph()
        G.add_edge("a", "b", weight=1.5)
        G.add_edge("b", "c", weight=bad)
        with pytest.raises(spla.InvalidGraph, match=rf"edge .b. - .c. has weight={re.escape(repr(bad))} .*edge weights must be real numbers"):
            spla.Matrix.from_networkx(G, weight="weight", device="cpu")


def test_bits_errors():
    with pytest.raises(spla.DomainMismatch, match=r"popcount needs an integer array, got dtype float64"):
        bits.popcount(np.ones(3))
    with pytest.raises(spla.DomainMismatch, match=r"weighted_rowsum needs a 2-D uint64 array, got uint32 of shape \(3, 2\)"):
        bits.weighted_rowsum(np.ones((3, 2), np.uint32))
    with pytest.raises(spla.DomainMismatch, match=r"needs a 2-D uint64 array, got uint64 of shape \(3,\)"):
        bits.weighted_rowsum(np.ones(3, np.uint64))
    with pytest.raises(spla.DimensionMismatch, match=r"weights must have shape \(128,\) for 2 words, got \(64,\)"):
        bits.weighted_rowsum(np.ones((3, 2), np.uint64), np.ones(64))


def test_choose_kernel_unknown_semiring(A):
    with pytest.raises(spla.UnknownNameError, match="unknown semiring 'nope'"):
        spla.choose_kernel(A, semiring="nope")


def test_selection_needs_a_matrix(A):
    """scale_free_metric / choose_kernel of a SciPy matrix: a TypeError naming the function."""
    S = A.to_scipy()
    for fn in (spla.scale_free_metric, spla.choose_kernel):
        with pytest.raises(TypeError, match=rf"{fn.__name__}: A must be a spla.Matrix, got csc_array; build one "
                                            r"with spla.Matrix.from_scipy"):
            fn(S)


def test_choose_kernel_bad_masked_dtype_and_arcs(A):
    """masked: the mask array itself (was NumPy's "truth value of an array is ambiguous") or a number (1 and
    1.0 passed as True); dtype: not a domain (NumPy's "data type 'foo' not understood", or float16 accepted);
    arcs: a string that float() reads."""
    for bad in (np.ones(4, bool), np.ones(1, bool), 1, 0.0, "Sparse", "auto", ""):
        with pytest.raises(ValueError, match=r"choose_kernel: masked must be False, True, 'dense' or 'sparse', got "):
            spla.choose_kernel(A, masked=bad)
    for bad in ("foo", np.float16, object):
        with pytest.raises(spla.DomainMismatch, match=rf"choose_kernel: dtype must be a product domain "
                                                      rf"\(bool, int32, .*float64\), got {re.escape(repr(bad))}"):
            spla.choose_kernel(A, dtype=bad)
    with pytest.raises(ValueError, match=r"choose_kernel: push_arcs must be a number of arcs >= 0 .*got '3'"):
        spla.choose_kernel(A, push_arcs="3", pull_arcs=1)
    assert spla.choose_kernel(A, masked=np.True_) == spla.choose_kernel(A, masked=True)
    assert spla.choose_kernel(A, push_arcs=np.int64(3), pull_arcs=np.float32(2))[0] in spla.KERNELS


# --------------------------------------------------------------------------- algorithms' arguments
def test_algorithms_take_the_graph_by_name(device):
    """The device wrapper of every algorithm passes the graph on, positional or as ``A=``."""
    from spla import algorithms

    A = spla.Matrix.from_networkx(nx.path_graph(6), device=device)
    calls = [(algorithms.bfs_levels, dict(source=0)), (algorithms.betweenness_centrality, {}),
             (algorithms.edge_betweenness_centrality, {}), (algorithms.closeness_centrality, {}),
             (algorithms.harmonic_centrality, {}), (algorithms.sum_of_distances, {}),
             (algorithms.daccer_volumes, {}), (algorithms.pagerank, {}), (algorithms.degree_centrality, {})]
    for fn, kw in calls:
        by_name = fn(A=A, **kw)
        positional = fn(A, **kw)
        if sp.issparse(by_name):
            by_name, positional = by_name.toarray(), positional.toarray()
        np.testing.assert_array_equal(by_name, positional, err_msg=fn.__name__)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'A'"):
        algorithms.pagerank()
