"""spla.fuse: one fused kernel on the GPU, plain NumPy on the CPU, same results."""

import numpy as np

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
