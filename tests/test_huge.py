"""More than 2**31 stored entries: int64 indices end to end (issue #2: "more than 2^31 arcs must work,
never overflow silently").

The matrix, pattern-only and symmetric:

    A[i, j] = 1  iff  (i + j) % 7 != 0,      n = 51,800 (a multiple of 7)

Every column holds 6n/7 = 44,400 entries, 2,299,920,000 in all (2**31 - 1 is 2,147,483,647), so the
last 152 million entries sit past int32's range: 18.4 GB of int64 row indices.  Its products have
closed forms.  With S[r] = Σ u[i] over i ≡ r (mod 7) and r_j = -j mod 7, the residue column j lacks:

    (u +.* A)[j]   = Σ_r S[r] - S[r_j]
    (u min.+ A)[j] = min over r != r_j of (min of u[i], i ≡ r) + 1

BFS from s reaches the vertices v with (s + v) % 7 != 0 at level 1 and the rest at level 2; every
vertex has the same degree, so PageRank is uniform.

At that size it needs about 56 GB of device memory (row indices, the COOC column indices scCOOC
builds, and their running sum while it is built) and about 80 GB of host memory for the CPU leg, so
by default the same tests run on n = 70 (int32 indices); ``SPLA_TEST_HUGE=1 pytest tests/test_huge.py``
runs them at n = 51,800 (``-m gpu`` for the GPU leg alone).
"""

import os

import numpy as np
import pytest

from spla import algorithms
import spla
from spla.testing import device_params

HUGE = os.environ.get("SPLA_TEST_HUGE") == "1"
N = 51_800 if HUGE else 70
PER_COLUMN = 6 * N // 7
NNZ = N * PER_COLUMN
GPU_BYTES = 56 * 2**30
HOST_BYTES = 80 * 2**30


def huge_csc():
    """The CSC arrays (colptr (N+1,) int64, rowidx (NNZ,) int64), built a slab of columns at a time."""
    colptr = np.arange(N + 1, dtype=np.int64) * PER_COLUMN
    rowidx = np.empty(NNZ, dtype=np.int64)
    columns = rowidx.reshape(N, PER_COLUMN)
    # column j skips the rows i ≡ r (mod 7), r = -j mod 7: its t-th entry is 7·(t // 6) + t % 6,
    # plus one from t % 6 = r on
    t = np.arange(PER_COLUMN, dtype=np.int64)
    block, offset = 7 * (t // 6), t % 6
    for r in range(7):
        columns[(-r) % 7::7] = block + offset + (offset >= r)
    return colptr, rowidx


def _memory_or_skip(device):
    if not HUGE:
        return
    if device == "cpu":
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
        if have < HOST_BYTES:
            pytest.skip(f"the CPU leg needs ~{HOST_BYTES / 2**30:.0f} GiB free host memory, {have / 2**30:.0f} GiB free")
    else:
        import cupy

        free, _ = cupy.cuda.Device(0).mem_info
        if free < GPU_BYTES:
            pytest.skip(f"needs ~{GPU_BYTES / 2**30:.0f} GiB free device memory, {free / 2**30:.0f} GiB free")


@pytest.fixture(scope="module", params=device_params())
def huge(request):
    """(device, the Matrix on it)."""
    device = request.param
    _memory_or_skip(device)
    colptr, rowidx = huge_csc()
    A = spla.Matrix.from_csc(colptr, rowidx, None, (N, N), directed=False, device=device)
    del colptr, rowidx
    yield device, A
    del A
    if device != "cpu":
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()


def _kernels(device):
    return ("auto",) if device == "cpu" else ("auto",) + tuple(spla.KERNELS)


def _residue_sums(u):
    """(7,) + u.shape[1:] sums of u over each residue class of the row index."""
    return np.stack([u[r::7].sum(axis=0) for r in range(7)])


def _skipped_residue(n_cols):
    return (-np.arange(n_cols)) % 7


def test_huge_is_stored_with_int64_indices(huge):
    device, A = huge
    assert A.nnz == NNZ
    assert NNZ > 2**31 if HUGE else NNZ < 2**31
    word = np.dtype(np.int64 if HUGE else np.int32)
    assert A.index_dtype == word and A.rowidx.dtype == word
    assert A.is_pattern and A.T is A
    assert A.nbytes == word.itemsize * (N + 1 + NNZ)
    assert int(A.colptr[-1]) == NNZ
    deg = spla.device.to_numpy(A.in_degree())
    assert (deg == PER_COLUMN).all()


def test_huge_plus_times_each_kernel(huge):
    device, A = huge
    xp = A.xp
    rng = np.random.default_rng(1)
    u = rng.integers(0, 1000, N).astype(np.int64)
    S = _residue_sums(u)
    want = S.sum() - S[_skipped_residue(N)]
    for kernel in _kernels(device):
        y = spla.vxm(xp.asarray(u), A, "plus_times", kernel=kernel)  # y = u +.* A
        np.testing.assert_array_equal(spla.device.to_numpy(y), want, err_msg=f"kernel={kernel}")


def test_huge_min_plus_each_kernel(huge):
    device, A = huge
    xp = A.xp
    rng = np.random.default_rng(2)
    u = rng.integers(-10**6, 10**6, N).astype(np.int64)
    low = np.array([u[r::7].min() for r in range(7)])
    # the least residue minimum over the six residues column j has
    order = np.argsort(low)
    skip = _skipped_residue(N)
    want = np.where(skip == order[0], low[order[1]], low[order[0]]) + 1
    for kernel in _kernels(device):
        y = spla.vxm(xp.asarray(u), A, "min_plus", kernel=kernel)  # y = u min.+ A
        np.testing.assert_array_equal(spla.device.to_numpy(y), want, err_msg=f"kernel={kernel}")


def test_huge_masked_accumulate_each_kernel(huge):
    device, A = huge
    xp = A.xp
    rng = np.random.default_rng(3)
    u = rng.integers(0, 4, N).astype(np.float64)
    mask = rng.random(N) < 0.1
    old = rng.integers(0, 9, N).astype(np.float64)
    S = _residue_sums(u)
    product = S.sum() - S[_skipped_residue(N)]
    want = np.where(mask, old + product, old)
    for kernel in _kernels(device):
        out = xp.asarray(old)
        # out<mask> += u +.* A
        spla.vxm(xp.asarray(u), A, "plus_times", mask=xp.asarray(mask), accum="plus", out=out, kernel=kernel)
        np.testing.assert_array_equal(spla.device.to_numpy(out), want, err_msg=f"kernel={kernel}")


def test_huge_block_each_kernel(huge):
    device, A = huge
    xp = A.xp
    rng = np.random.default_rng(4)
    U = rng.integers(0, 4, (N, 4)).astype(np.float64)
    S = _residue_sums(U)
    want = S.sum(axis=0) - S[_skipped_residue(N)]
    for kernel in _kernels(device):
        Y = spla.mxv(A, xp.asarray(U), "plus_times", kernel=kernel)  # Y = A +.* U (A symmetric)
        np.testing.assert_array_equal(spla.device.to_numpy(Y), want, err_msg=f"kernel={kernel}")


def test_huge_bfs_and_pagerank(huge):
    device, A = huge
    source = N // 4 + 3
    level = algorithms.bfs_levels(A, source)
    want = np.where((source + np.arange(N)) % 7 != 0, 1, 2)
    want[source] = 0
    np.testing.assert_array_equal(level, want)
    rank = algorithms.pagerank(A)
    np.testing.assert_allclose(rank, np.full(N, 1.0 / N), rtol=1e-9)
