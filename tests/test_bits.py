"""spla.bits: popcount and weighted_rowsum against naive Python, on every device."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
import spla.bits
from spla import bits
from spla import device as _dev
from spla.testing import scaled


def naive_popcount(X):
    X = np.asarray(X)
    width = 8 * X.dtype.itemsize
    mask = (1 << width) - 1
    return np.array([bin(int(v) & mask).count("1") for v in X.ravel()], dtype=np.int64).reshape(X.shape)


def naive_weighted_rowsum(X, weights):
    n, W = X.shape
    out = np.zeros(n, dtype=np.float64 if weights is not None else np.int64)
    for v in range(n):
        for w in range(W):
            word = int(X[v, w])
            for b in range(64):
                if (word >> b) & 1:
                    out[v] += 1 if weights is None else weights[64 * w + b]
    return out


INT_DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64]


def words(rng, shape, dtype):
    """Random words of ``dtype``: uniform bits, sparse bits, and the extremes."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    u = np.dtype(f"u{dtype.itemsize}")
    x = rng.integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True)
    sparse = rng.random(shape) < 0.3
    x[sparse] &= rng.integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True)[sparse]
    x = x.view(dtype)
    flat = x.reshape(-1)
    extremes = np.array([0, info.max, info.min, -1 if dtype.kind == "i" else 1], dtype=dtype)
    flat[: min(4, flat.size)] = extremes[: min(4, flat.size)]
    return x


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(0,), (1,), (37,), (5, 7), (2, 3, 4)])
def test_popcount(dtype, shape, device):
    X = words(np.random.default_rng(hash((np.dtype(dtype).name, shape)) % 2**32), shape, dtype)
    got = bits.popcount(_dev.to_device(X, device))
    assert _dev.array_device(got) == device
    got = _dev.to_numpy(got)
    assert got.shape == X.shape and got.dtype.kind in "iu"
    np.testing.assert_array_equal(got, naive_popcount(X))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_popcount_counts_twos_complement_bits(dtype, device):
    """A negative integer's set bits are those of its two's-complement pattern (as on the GPU)."""
    X = np.array([-1, -2, np.iinfo(dtype).min], dtype=dtype)
    width = 8 * np.dtype(dtype).itemsize
    got = _dev.to_numpy(bits.popcount(_dev.to_device(X, device)))
    np.testing.assert_array_equal(got, [width, width - 1, 1])


@pytest.mark.parametrize("n,W", [(0, 1), (1, 1), (5, 1), (7, 2), (33, 3), (4, 0), (3, 40)])
@pytest.mark.parametrize("weighted", [True, False])
def test_weighted_rowsum(n, W, weighted, device):
    rng = np.random.default_rng(n * 100 + W)
    X = words(rng, (n, W), np.uint64)
    weights = rng.standard_normal(64 * W) if weighted else None
    got = bits.weighted_rowsum(_dev.to_device(X, device), None if weights is None else _dev.to_device(weights, device))
    assert _dev.array_device(got) == device
    got = _dev.to_numpy(got)
    want = naive_weighted_rowsum(X, weights)
    assert got.shape == (n,)
    if weighted:
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)


@settings(max_examples=scaled(40), deadline=None)
@given(n=st.integers(0, 12), W=st.integers(0, 4), seed=st.integers(0, 2**32 - 1),
       integer_weights=st.booleans())
def test_weighted_rowsum_property(n, W, seed, integer_weights):
    rng = np.random.default_rng(seed)
    X = words(rng, (n, W), np.uint64) if n * W else np.zeros((n, W), np.uint64)
    weights = rng.integers(-5, 6, 64 * W).astype(np.float64) if integer_weights else rng.random(64 * W)
    got = bits.weighted_rowsum(X, weights)
    np.testing.assert_allclose(got, naive_weighted_rowsum(X, weights), rtol=1e-12, atol=1e-12)
    # with all-ones weights it is the row popcount
    np.testing.assert_array_equal(bits.weighted_rowsum(X, np.ones(64 * W)), bits.weighted_rowsum(X).astype(float))
    np.testing.assert_array_equal(bits.weighted_rowsum(X), bits.popcount(X).sum(axis=1))


def test_weighted_rowsum_non_contiguous():
    X = np.asfortranarray(words(np.random.default_rng(3), (6, 3), np.uint64))
    w = np.arange(192, dtype=np.float64)
    np.testing.assert_allclose(bits.weighted_rowsum(X, w), naive_weighted_rowsum(X, w))


def test_weighted_rowsum_adds_set_bits_only(device):
    """An infinite or NaN weight of a bit that is not set contributes nothing (no 0 * inf), on both backends."""
    xp = np if device == "cpu" else spla.device.cupy_module()
    X = xp.asarray(np.array([[1 << 3], [0], [(1 << 5) | 1]], dtype=np.uint64))
    w = np.zeros(64)
    w[0], w[3], w[5], w[6] = 2.0, 1.5, np.inf, np.nan
    got = spla.bits.weighted_rowsum(X, xp.asarray(w))
    np.testing.assert_array_equal(spla.device.to_numpy(got), [1.5, 0.0, np.inf])
    with pytest.raises(TypeError, match="expected a NumPy or CuPy array, got list"):
        spla.bits.weighted_rowsum([[1]])


def test_popcount_of_a_0d_array_is_a_0d_array(device):
    """"Same shape" holds for 0-d input too: a 0-d array on X's device, not a NumPy scalar (the CPU
    backend's bitwise_count returned np.int32, which spla.device.array_device refuses)."""
    X = _dev.to_device(np.array(-1, dtype=np.int16), device)
    got = bits.popcount(X)
    assert _dev.array_device(got) == device
    assert got.shape == () and got.dtype == np.int32
    assert int(_dev.to_numpy(got)) == 16


def test_popcount_of_a_non_array_says_what_it_needs():
    with pytest.raises(TypeError, match="expected a NumPy or CuPy array, got list"):
        bits.popcount([1, 2])


def test_weighted_rowsum_overflow_is_inf_without_warnings(device):
    """A sum past float64's range is inf, +inf and -inf weights of set bits give NaN: on the CPU as on
    the GPU, without NumPy's RuntimeWarnings (which the GPU has none of)."""
    import warnings

    X = np.array([[2**64 - 1], [3]], dtype=np.uint64)
    w = np.full(64, 1.0e308)
    w[1] = -np.inf
    w[0] = np.inf
    X, w = _dev.to_device(X, device), _dev.to_device(w, device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _dev.to_numpy(bits.weighted_rowsum(X, w))
        big = _dev.to_numpy(bits.weighted_rowsum(X[:1], _dev.to_device(np.full(64, 1.0e308), device)))
    assert np.isnan(got[0]) and np.isnan(got[1])
    np.testing.assert_array_equal(big, [np.inf])
