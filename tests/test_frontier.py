"""spla.frontier: push and pull over sparse (vertex, source) frontiers against a naive loop, on every device."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import device as _dev
from spla import frontier
from spla.testing import matrices, scaled, to_dense


def out_arcs(A):
    """{v: [w, ...]} for the arcs v -> w of A (A[v, w] stored, whatever its value)."""
    present = to_dense(A)[1]
    return {v: list(np.flatnonzero(present[v])) for v in range(A.shape[0])}


def naive_push(arcs, entries, depth, k, values, level):
    values, level, new = values.copy(), level.copy(), []
    for q in entries:
        v, s = divmod(int(q), k)
        for w in arcs[v]:
            r = w * k + s
            if level[r] == -1:
                level[r] = depth + 1
                new.append(r)
            if level[r] == depth + 1:
                values[r] += values[q]
    return values, level, sorted(new)


def naive_pull(arcs, entries, depth, k, level, values, out, scale, feed, divide):
    values, out = values.copy(), out.copy()
    for q in entries:
        v, s = divmod(int(q), k)
        t = 0.0
        for w in arcs[v]:
            r = w * k + s
            if level[r] == depth + 1:
                t += values[r]
        if scale is not None:
            t = float(np.ldexp(t, -int(scale[s])))
        out[q] = t / values[q] if divide else t
        if feed:
            values[q] += t
    return values, out


@st.composite
def states(draw):
    """(A, k, depth, level, values, entries, offset): a block in which push and pull are defined.

    ``entries`` (the level's flat indices) sit in the queue at ``offset`` (levels before it)."""
    A = draw(matrices(0, 10, square=True))
    n = A.shape[0]
    k = draw(st.integers(1, 5))
    depth = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    level = rng.choice([-1, depth - 1, depth, depth + 1], size=n * k).astype(np.float64)
    level[level < -1] = -1
    values = rng.integers(1, 9, size=n * k) / 4.0
    values[level == -1] = 0.0
    at_depth = np.flatnonzero(level == depth)
    entries = rng.permutation(at_depth)[: rng.integers(0, at_depth.size + 1)]
    return A, k, depth, level, values, entries, int(rng.integers(0, 3))


def device_state(state, device):
    """(matrix, queue, block, start, count, top) on ``device`` for a drawn state."""
    A, k, depth, level, values, entries, offset = state
    n = A.shape[0]
    qdt = frontier.index_dtype(n, k)
    queue = np.full(n * k + offset + 1, -7, dtype=qdt)
    queue[offset:offset + entries.size] = entries
    start = np.zeros(depth + 3, dtype=np.int64)
    count = np.zeros(depth + 3, dtype=np.uint64)
    start[depth], count[depth] = offset, entries.size
    block = np.stack([values, level], axis=1).reshape(n, k, 2)
    on = lambda x: _dev.to_device(np.array(x, copy=True), device)  # noqa: E731
    return A.to(device), on(queue), on(block), on(start), on(count), on(np.zeros(depth + 3, dtype=np.uint64))


@settings(max_examples=scaled(60), deadline=None)
@given(state=states())
def test_push_matches_naive_loop(state, device):
    A, k, depth, level, values, entries, offset = state
    want_values, want_level, want_new = naive_push(out_arcs(A), entries, depth, k, values, level)
    M, queue, block, start, count, top = device_state(state, device)
    frontier.push(M, queue, depth, block, start, count, top)
    start, count, top, queue, block = (_dev.to_numpy(x) for x in (start, count, top, queue, block))
    base = offset + entries.size
    assert start[depth + 1] == base
    assert count[depth + 1] == len(want_new)
    assert sorted(queue[base:base + len(want_new)].tolist()) == want_new
    np.testing.assert_array_equal(block[..., 1].reshape(-1), want_level)
    np.testing.assert_allclose(block[..., 0].reshape(-1), want_values, rtol=1e-15)
    assert top[depth:depth + 1].view(np.float64)[0] == (float(values[entries].max()) if entries.size else 0.0)


@settings(max_examples=scaled(60), deadline=None)
@given(state=states(), feed=st.booleans(), divide=st.booleans(), scaled_=st.booleans(), data=st.data())
def test_pull_matches_naive_loop(state, feed, divide, scaled_, data, device):
    A, k, depth, level, values, entries, offset = state
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
    out0 = rng.integers(-8, 9, size=values.size) / 8.0
    scale = rng.integers(-3, 4, size=k).astype(np.int32) if scaled_ else None
    want_values, want_out = naive_pull(out_arcs(A), entries, depth, k, level, values, out0, scale, feed, divide)
    M, queue, block, start, count, _ = device_state(state, device)
    out = _dev.to_device(out0.reshape(-1, k) if k else out0.reshape(0, 0), device)
    sc = None if scale is None else _dev.to_device(scale, device)
    frontier.pull(M, queue, depth, block, start, count, out, scale=sc, feed=feed, divide=divide)
    block = _dev.to_numpy(block)
    np.testing.assert_allclose(block[..., 0].reshape(-1), want_values, rtol=1e-15, atol=0)
    np.testing.assert_allclose(_dev.to_numpy(out).reshape(-1), want_out, rtol=1e-15, atol=0)


@pytest.mark.parametrize("values, want", [([-2.0, np.nan, 0.5], 0.5), ([-2.0, 0.0, np.nan], 0.0),
                                          ([3.0, 7.0, 1.0], 7.0)])
def test_push_top_is_the_largest_positive_value(values, want, device):
    """top[depth] is the kernel's fmax from 0 over the level's values, on both backends."""
    A = spla.Matrix.from_edges([0], [1], n=2, directed=True, device=device)
    xp, k = A.xp, 3
    block = xp.zeros((2, k, 2))
    block[1, :, 1] = -1.0
    block[0, :, 0] = xp.asarray(values)
    queue = xp.full(2 * k, -1, dtype=np.int32)
    queue[:k] = xp.arange(k, dtype=np.int32)
    start, count, top = xp.zeros(3, dtype=np.int64), xp.zeros(3, dtype=np.uint64), xp.zeros(3, dtype=np.uint64)
    count[0] = k
    frontier.push(A, queue, 0, block, start, count, top)
    assert _dev.to_numpy(top)[:1].view(np.float64)[0] == want
    np.testing.assert_array_equal(_dev.to_numpy(block)[1, :, 0], values)


def test_push_walks_long_rows_and_chains_levels(device):
    """A hub with 3000 out-arcs, 2 sources at it, then a second push from the 6000 new entries: each
    level's range is read on the device from the previous push."""
    n, k = 3001, 2
    A = spla.Matrix.from_edges(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), n=n, directed=True, device=device)
    xp = A.xp
    block = xp.zeros((n, k, 2))
    block[..., 1] = -1.0
    block[0, :, 1] = 0.0
    block[0, 0, 0], block[0, 1, 0] = 2.0, 3.0
    queue = xp.zeros(n * k, dtype=np.int32)
    queue[:k] = xp.arange(k)
    start, count, top = xp.zeros(4, dtype=np.int64), xp.zeros(4, dtype=np.uint64), xp.zeros(4, dtype=np.uint64)
    count[0] = k
    frontier.push(A, queue, 0, block, start, count, top)
    frontier.push(A, queue, 1, block, start, count, top)  # no out-arcs: an empty level 2
    got = _dev.to_numpy(block)
    np.testing.assert_array_equal(got[1:, :, 0], np.tile([2.0, 3.0], (n - 1, 1)))
    np.testing.assert_array_equal(got[1:, :, 1], 1.0)
    assert _dev.to_numpy(count).tolist() == [k, (n - 1) * k, 0, 0]
    assert _dev.to_numpy(start).tolist()[:3] == [0, k, n * k]
    assert _dev.to_numpy(top)[:2].view(np.float64).tolist() == [3.0, 3.0]
    assert sorted(_dev.to_numpy(queue)[k:].tolist()) == list(range(k, n * k))


def test_index_dtype():
    assert frontier.index_dtype(10, 3) == np.int32
    assert frontier.index_dtype(2 ** 16, 2 ** 15) == np.int64
    assert frontier.index_dtype(2 ** 16, 2 ** 15 - 1) == np.int32


def test_bad_arguments():
    A = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")
    block = np.zeros((3, 2, 2))
    q = np.zeros(6, dtype=np.int32)
    start, count, top = np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.uint64), np.zeros(3, dtype=np.uint64)
    with pytest.raises(TypeError, match="spla.Matrix"):
        frontier.push(A.to_scipy(), q, 0, block, start, count, top)
    with pytest.raises(spla.DimensionMismatch, match="square"):
        frontier.push(spla.Matrix.from_scipy(A.to_scipy()[:2], device="cpu"), q, 0, block, start, count, top)
    with pytest.raises(spla.DimensionMismatch, match="block must be a C-contiguous \\(n, k, 2\\) array with n = 3"):
        frontier.push(A, q, 0, np.zeros((3, 2)), start, count, top)
    with pytest.raises(spla.DomainMismatch, match="block must have dtype float64"):
        frontier.push(A, q, 0, block.astype(np.float32), start, count, top)
    with pytest.raises(spla.DomainMismatch, match="queue must be a 1-D int32"):
        frontier.push(A, q.astype(np.int64), 0, block, start, count, top)
    with pytest.raises(spla.DimensionMismatch, match="queue holds 5 entries; it needs n\\*k = 6"):
        frontier.push(A, q[:5], 0, block, start, count, top)
    with pytest.raises(spla.DomainMismatch, match="count must be a 1-D uint64"):
        frontier.push(A, q, 0, block, start, count.astype(np.int64), top)
    with pytest.raises(spla.DimensionMismatch, match="depth 1 needs start to hold at least 3 levels, it holds 2"):
        frontier.push(A, q, 1, block, start[:2], count, top)
    for bad in (-1, 0.9, True):
        with pytest.raises(ValueError, match=rf"depth must be an integer >= 0 \(the level to expand\), got {bad!r}"):
            frontier.push(A, q, bad, block, start, count, top)
    with pytest.raises(spla.DimensionMismatch, match="out must be a C-contiguous float64 array of shape \\(3, 2\\)"):
        frontier.pull(A, q, 0, block, start, count, np.zeros((3, 3)))
    with pytest.raises(spla.DomainMismatch, match="scale must be a \\(2,\\) int32"):
        frontier.pull(A, q, 0, block, start, count, np.zeros((3, 2)), scale=np.zeros(3, dtype=np.int32))


@pytest.mark.parametrize("strided", ["queue", "start", "count", "top", "scale"])
def test_strided_views_are_refused(strided, device):
    """The kernels index queue, start, count, top and scale as contiguous memory: a strided view (which
    NumPy would read correctly) is refused on every device rather than read at the wrong elements."""
    A = spla.Matrix.from_edges([0, 1, 2, 3], [1, 2, 3, 4], device=device)
    xp, n, k = A.xp, 5, 2
    block = xp.zeros((n, k, 2))
    block[..., 1] = -1.0
    block[0, :, :] = xp.asarray([1.0, 0.0])
    arrays = {"queue": xp.zeros(n * k, dtype=np.int32), "start": xp.zeros(4, dtype=np.int64),
              "count": xp.zeros(4, dtype=np.uint64), "top": xp.zeros(4, dtype=np.uint64),
              "scale": xp.zeros(k, dtype=np.int32)}
    arrays[strided] = xp.zeros(2 * arrays[strided].shape[0], dtype=arrays[strided].dtype)[::2]
    a = arrays
    with pytest.raises(ValueError, match=rf"{strided} must be a contiguous array, got a strided view"):
        if strided == "scale":
            frontier.pull(A, a["queue"], 0, block, a["start"], a["count"], xp.zeros((n, k)), scale=a["scale"])
        else:
            frontier.push(A, a["queue"], 0, block, a["start"], a["count"], a["top"])


# ---------------------------------------------------------------------------------------------
# int32 positions near 2^31 (GPU only: the CPU backend walks arcs with NumPy's int64 arithmetic,
# and its twin of this matrix would need ~26 GB of host memory).  With int32 indices the kernels'
# walk p = colptr[v] + g, p += G must not wrap for the arcs within G of 2^31.  The matrix
# (symmetric, pattern): a dense block of 46,340 vertices (46,340^2 arcs, self-loops included), 430
# vertices with a self-loop, and a clique of 296 vertices (self-loops included) whose columns come
# last and end at nnz = 2^31 - 2, the most int32 indices hold.  Mean degree ~45,600: 32 lanes per entry.
# ---------------------------------------------------------------------------------------------
_M, _LOOPS, _CLIQUE = 46_340, 430, 296
_NNZ = _M * _M + _LOOPS + _CLIQUE * _CLIQUE


@pytest.fixture(scope="module")
def int32_edge_matrix():
    cp = pytest.importorskip("cupy")
    if not spla.gpu_available():
        pytest.skip("no GPU")
    free, _ = cp.cuda.Device(0).mem_info
    if free < 12 * 2**30:
        pytest.skip(f"needs ~12 GiB of free device memory, {free / 2**30:.1f} GiB free")
    assert _NNZ == 2**31 - 2
    n = _M + _LOOPS + _CLIQUE
    assert spla.matrix.index_dtype(_NNZ, n, n) == np.int32
    rowidx = cp.empty(_NNZ, dtype=np.int32)
    rowidx[: _M * _M].reshape(_M, _M)[...] = cp.arange(_M, dtype=np.int32)[None, :]
    rowidx[_M * _M: _M * _M + _LOOPS] = cp.arange(_M, _M + _LOOPS, dtype=np.int32)
    c0 = _M + _LOOPS
    rowidx[_M * _M + _LOOPS:].reshape(_CLIQUE, _CLIQUE)[...] = cp.arange(c0, n, dtype=np.int32)[None, :]
    lengths = np.concatenate([np.full(_M, _M), np.ones(_LOOPS), np.full(_CLIQUE, _CLIQUE)]).astype(np.int64)
    colptr = np.concatenate([[0], np.cumsum(lengths)])
    assert colptr[-1] == _NNZ
    with _dev.activate("gpu:0"):
        A = spla.Matrix(cp.asarray(colptr.astype(np.int32)), rowidx, None, (n, n), directed=False, device="gpu:0",
                        _symmetric=True)
    assert A.T is A and A.index_dtype == np.int32
    yield A, n, c0
    del A, rowidx
    cp.get_default_memory_pool().free_all_blocks()


def _clique_state(cp, n, c0, source, level1_value):
    """Level 0 = the last clique vertex; with level1_value, the other clique vertices at level 1."""
    block = cp.zeros((n, 1, 2))
    block[..., 1] = -1.0
    block[source, 0] = cp.asarray([1.0, 0.0])
    if level1_value is not None:
        others = cp.arange(c0, source)
        block[others, 0, 1] = 1.0
        block[others, 0, 0] = level1_value
    queue = cp.zeros(n, dtype=np.int32)
    queue[0] = source
    start, count, top = cp.zeros(4, dtype=np.int64), cp.zeros(4, dtype=np.uint64), cp.zeros(4, dtype=np.uint64)
    count[0] = 1
    return block, queue, start, count, top


@pytest.mark.gpu
def test_pull_int32_positions_near_2_31(int32_edge_matrix):
    import cupy as cp

    A, n, c0 = int32_edge_matrix
    source = n - 1  # its arcs are the matrix's last 296: [2^31 - 298, 2^31 - 2)
    block, queue, start, count, _ = _clique_state(cp, n, c0, source, 0.5)
    out = cp.zeros((n, 1))
    frontier.pull(A, queue, 0, block, start, count, out)
    assert float(out[source, 0]) == 0.5 * (_CLIQUE - 1)  # the 295 other clique vertices, one level down


@pytest.mark.gpu
def test_push_int32_positions_near_2_31(int32_edge_matrix):
    import cupy as cp

    A, n, c0 = int32_edge_matrix
    source = n - 1
    block, queue, start, count, top = _clique_state(cp, n, c0, source, None)
    frontier.push(A, queue, 0, block, start, count, top)
    want = np.arange(c0, source)
    assert _dev.to_numpy(count).tolist() == [1, _CLIQUE - 1, 0, 0]
    assert sorted(_dev.to_numpy(queue)[1:_CLIQUE].tolist()) == want.tolist()
    got = _dev.to_numpy(block)
    assert (got[want, 0, 1] == 1.0).all() and (got[want, 0, 0] == 1.0).all()
    assert np.flatnonzero(got[:, 0, 1] >= 0).tolist() == want.tolist() + [source]


def test_frontier_group_setting_is_checked():
    """A lanes-per-entry setting the kernel cannot take (not a power of two <= 32) is refused by name."""
    from spla import tuning
    from spla.backends.gpu.frontier import frontier_group

    assert frontier_group(6.0) == 1 and frontier_group(1000.0) == 32
    with tuning.override(frontier_group=16):
        assert frontier_group(6.0) == 16
    for bad in (3, 64, 2.0, True):
        with pytest.raises(ValueError, match=rf"spla\.tuning: frontier_group must be one of None or one of 1, 2, 4, "
                                             rf"8, 16, 32, got {bad!r}"):
            with tuning.override(frontier_group=bad):
                pass
    assert frontier_group(6.0) == 1
