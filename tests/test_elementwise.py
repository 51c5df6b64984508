"""spla.fuse: one fused kernel on the GPU, plain NumPy on the CPU, same results."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import device as _dev


def test_fuse_matches_numpy(device):
    update = spla.fuse(lambda xp: lambda s, f, level, d: (s + f, xp.where(f != 0, d, level), f != 0),
                       name="test update")
    rng = np.random.default_rng(0)
    s = rng.random((50, 3))
    f = np.where(rng.random((50, 3)) < 0.5, rng.random((50, 3)), 0.0)
    level = rng.integers(-1, 4, (50, 3)).astype(np.int32)
    got = update(*(_dev.to_device(x, device) for x in (s, f, level)), np.int32(7))
    want = (s + f, np.where(f != 0, np.int32(7), level), f != 0)
    for g, w in zip(got, want):
        g = _dev.to_numpy(g)
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_fuse_without_arrays_runs_numpy():
    """Scalars and lists alone run the NumPy function, GPU or not."""
    add = spla.fuse(lambda xp: lambda a, b: a + xp.asarray(b) * 2, name="test_scalars")
    assert add(1.0, 2.0) == 5.0
    np.testing.assert_array_equal(add(np.float64(1), [1.0, 2.0]), [3.0, 5.0])


def test_bad_factories_say_what_fuse_takes():
    """fuse takes factory(xp) -> fn: passing fn itself, a non-callable or a factory that returns no
    function fails at the door with a message that shows the expected form."""
    with pytest.raises(TypeError, match=r"factory\(xp\) -> fn.*got int"):
        spla.fuse(42)
    with pytest.raises(TypeError, match=r"factory\(numpy\) raised TypeError.*lambda xp: lambda"):
        spla.fuse(lambda s, f: s + f)  # the function itself instead of a factory
    with pytest.raises(TypeError, match=r"factory\(numpy\) raised TypeError.*lambda xp: lambda"):
        spla.fuse(lambda x: x * 2)  # numpy * 2
    with pytest.raises(TypeError, match=r"factory\(numpy\) returned float, not a function"):
        spla.fuse(lambda xp: 3.0)
    with pytest.raises(TypeError, match=r"name must be a str .*got int"):
        spla.fuse(lambda xp: lambda a: a, name=5)


def test_kernel_name_is_a_c_identifier():
    """The kernel name derived from ``name`` is ASCII letters, digits and underscores (Python's \\W keeps
    non-ASCII letters such as σ, which are no C identifier characters)."""
    for name in ("σ update", "bc level (push)", "übung-2", None, ""):
        fn = spla.fuse(lambda xp: lambda a: a + 1, name=name)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", fn.kernel_name), fn.kernel_name
        assert fn.kernel_name.startswith("spla_fused_")


@pytest.mark.gpu
def test_fuse_refuses_numpy_arrays_beside_cupy_arrays():
    """Arrays of one device: a NumPy array beside a CuPy one is refused with a message that names it
    (cupy.fuse would fail on it while tracing and switch that function to its other fusion for good)."""
    cp = pytest.importorskip("cupy")
    add = spla.fuse(lambda xp: lambda a, b: a + b, name="test_mixed")
    with pytest.raises(spla.DeviceMismatch, match="argument 1 is a NumPy array"):
        add(cp.ones(3), np.ones(3))
    np.testing.assert_array_equal(add(cp.ones(3), cp.ones(3)).get(), [2.0, 2.0, 2.0])  # still works


@pytest.mark.gpu
def test_fuse_of_a_ufunc():
    """A factory may return an xp ufunc itself (cupy ufuncs have a read-only __name__)."""
    cp = pytest.importorskip("cupy")
    hyp = spla.fuse(lambda xp: xp.hypot, name="test_ufunc")
    np.testing.assert_allclose(hyp(cp.asarray([3.0]), cp.asarray([4.0])).get(), [5.0])
    np.testing.assert_allclose(hyp(np.asarray([3.0]), np.asarray([4.0])), [5.0])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,scalar", [(np.float32, 0.1), (np.int32, 3), (np.int32, 2.5), (np.float32, np.float32(0.1)),
                                          (np.int32, np.int32(3)), (np.float32, np.float64(0.1)),
                                          (np.int32, np.int64(3)), (np.bool_, 2), (np.bool_, np.int64(2))])
def test_fuse_scalar_promotion_matches_numpy(dtype, scalar):
    """Python scalars (weak in NumPy 2) and NumPy scalars, of the arrays' dtype or wider, give the same values
    on both devices, and the same dtype except for a bool array with a Python number (the module docstring)."""
    cp = pytest.importorskip("cupy")
    f = spla.fuse(lambda xp: lambda x, a: (x * a, x + a), name="test_promotion")
    x = (np.arange(5) % 2 == 1) if dtype is np.bool_ else np.arange(5).astype(dtype)
    want = f(x, scalar)
    got = f(cp.asarray(x), scalar)
    for g, w in zip(got, want):
        if not (dtype is np.bool_ and isinstance(scalar, (int, float))):
            assert g.dtype == w.dtype, (dtype, scalar)
        np.testing.assert_array_equal(g.get(), w)


def test_keyword_arguments_are_refused_with_a_message_that_says_so():
    """Positional arguments only (cupy.fuse takes no keywords); Python's own message named the lambda and
    said it had no parameter ``s``, which it has."""
    add = spla.fuse(lambda xp: lambda s, f: s + f, name="test_keywords")
    with pytest.raises(TypeError, match=r"positional arguments only .*got keyword argument\(s\) s, f"):
        add(s=np.ones(2), f=np.ones(2))
    np.testing.assert_array_equal(add(np.ones(2), np.ones(2)), [2.0, 2.0])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
def test_kernel_name_compiles(tmp_path):
    """The CUDA front end refuses a non-ASCII letter in a kernel's name ("Universal character is not
    allowed in device entity name"), which the name "σ update" would give (NVRTC shares the front end)."""
    fn = spla.fuse(lambda xp: lambda a: a + 1, name="σ update")
    src = tmp_path / "k.cu"
    src.write_text(f'extern "C" __global__ void {fn.kernel_name}(double* x) {{ x[0] = 1.0; }}\n', encoding="utf-8")
    done = subprocess.run([shutil.which("nvcc"), "-arch", "sm_90", "-ptx", "-o", str(tmp_path / "k.ptx"), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr



@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_bool_reductions_match_numpy(device, data):
    """spla.device.any_true / count_true (the GPU's bool reductions without a first-use compile) give
    NumPy's any / count_nonzero: empty, 0-d, 2-D, strided views, sizes around CuPy's 2,048-element
    specialisation."""
    n = data.draw(st.sampled_from([0, 1, 2, 31, 2047, 2048, 2049, 5000]))
    density = data.draw(st.sampled_from([0.0, 1e-3, 0.5, 1.0]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.random(n) < density
    if n and data.draw(st.booleans()):
        x[rng.integers(n)] = True
    shape = data.draw(st.sampled_from(["1-D", "0-d", "2-D", "strided"]))
    if shape == "0-d":
        x = np.array(bool(x[0]) if n else False)
    elif shape == "2-D":
        x = x[: n - n % 3].reshape(-1, 3)
    d = _dev.to_device(x, device)
    if shape == "strided":  # every third element of a device array: a view, not a contiguous copy
        d = _dev.to_device(np.repeat(x, 3), device)[::3]
    assert _dev.any_true(d) is bool(x.any())
    got = _dev.count_true(d)
    assert type(got) is int and got == int(np.count_nonzero(x))
