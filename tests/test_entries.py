"""spla.select, spla.apply_arcs, the Matrix conversions they rest on (against dense NumPy references),
and spla.memory."""

import types

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import device as _dev
from spla.testing import matrices, to_dense


def _entries(A):
    """{(i, j): value} of A's stored entries (value None for a pattern-only matrix), on the host."""
    colptr = _dev.to_numpy(A.colptr).astype(np.int64)
    rows = _dev.to_numpy(A.rowidx).astype(np.int64)
    cols = np.repeat(np.arange(A.shape[1]), np.diff(colptr))
    vals = [None] * A.nnz if A.values is None else _dev.to_numpy(A.values).tolist()
    return {(int(i), int(j)): v for i, j, v in zip(rows, cols, vals)}


# ------------------------------------------------------------------ select
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_select_offdiag_equals_the_dense_reference(data, device):
    A = data.draw(matrices(max_rows=14, device=device), label="A")
    C = spla.select(A, "offdiag")
    want = {ij: v for ij, v in _entries(A).items() if ij[0] != ij[1]}
    got = _entries(C)
    assert got.keys() == want.keys()
    if A.values is not None:
        for ij, v in want.items():
            assert got[ij] == v or (v != v and got[ij] != got[ij])  # NaN stays NaN
    assert (C.shape, C.is_pattern, C.directed, C.is_symmetric, C.device, C.dtype) == \
        (A.shape, A.is_pattern, A.directed, A.is_symmetric, A.device, A.dtype)
    if C.is_symmetric:
        assert C.T is C
    values, present = to_dense(A)
    off = present & ~np.eye(*A.shape, dtype=bool)
    assert np.array_equal(to_dense(C)[1], off)
    if not present.diagonal().any():
        assert C is A  # nothing to drop
    assert spla.select(A, "offdiag") is C  # cached


def test_select_keeps_stored_zeros_and_false():
    """Only the diagonal goes: an off-diagonal stored 0 or False is still an arc."""
    for data in (np.array([0.0, 1.0, 1.0]), np.array([False, True, True])):
        S = sp.csc_array((data, (np.array([0, 1, 2]), np.array([1, 2, 2]))), shape=(3, 3))
        A = spla.Matrix.from_scipy(S, directed=True, device="cpu")
        B = spla.select(A, "offdiag")
        assert B.nnz == 2 and B.to_scipy()[0, 1] == 0 and B.to_scipy()[1, 2] == 1
        assert B.dtype == A.dtype
    P = spla.Matrix.from_edges([0, 1], [1, 2], directed=True, device="cpu")
    assert spla.select(P, "offdiag") is P


def test_select_refuses_unknown_selectors_and_inputs():
    A = spla.Matrix.from_edges([0, 1], [1, 1], device="cpu")
    with pytest.raises(spla.UnknownNameError, match="offdiag"):
        spla.select(A, "diagonal")
    with pytest.raises(TypeError, match="spla.Matrix"):
        spla.select(A.to_scipy(), "offdiag")


def test_select_is_dropped_with_its_cache_key():
    A = spla.Matrix.from_edges([0, 1], [1, 1], device="cpu")
    C = spla.select(A, "offdiag")
    assert A.peek_cached(("select", "offdiag")) is C
    A.drop_cached("select")
    assert A.peek_cached(("select", "offdiag")) is None


# ------------------------------------------------------------------ apply_arcs
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_apply_arcs_equals_the_dense_reference(data, device):
    A = data.draw(matrices(max_rows=14, square=True, device=device), label="A")
    n = A.shape[0]
    k = data.draw(st.integers(1, 4), label="k")
    width = data.draw(st.sampled_from([1, k, 1 << 24]), label="width")  # 2^24: one entry per chunk
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    x = rng.standard_normal((n, k))
    y = rng.integers(-3, 4, size=n)
    start = rng.standard_normal(A.nnz)
    xp = A.xp
    out = xp.asarray(start.copy())
    X, Y = xp.asarray(x), xp.asarray(y)
    got = spla.apply_arcs(A, lambda tail, head: (tail(X) * head(Y)[:, None]).sum(axis=1) + tail(Y), out, width=width)
    assert got is out
    want = start.copy()
    for p, (i, j) in enumerate(_entries(A)):
        want[p] += (x[i] * y[j]).sum() + y[i]
    np.testing.assert_allclose(_dev.to_numpy(got), want, rtol=1e-12, atol=1e-12)


def test_apply_arcs_chunks_follow_the_entry_order():
    A = spla.Matrix.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 0], directed=True, device="cpu")
    seen = []

    def fn(tail, head):
        rows = tail(np.arange(4))
        seen.append(rows.shape[0])
        return rows * 10 + head(np.arange(4))

    with spla.tuning.override(arc_chunk_elements=6):  # chunks of 3 entries at width 2
        out = spla.apply_arcs(A, fn, np.zeros(A.nnz), width=2)
    assert seen == [3, 2]
    assert out.tolist() == [30.0, 1.0, 2.0, 12.0, 23.0]  # (i, j) in CSC order: (3,0) (0,1) (0,2) (1,2) (2,3)


def test_apply_arcs_checks_its_arguments():
    A = spla.Matrix.from_edges([0], [1], directed=True, device="cpu")
    with pytest.raises(ValueError, match="shape"):
        spla.apply_arcs(A, lambda t, h: 0, np.zeros(3))
    with pytest.raises(ValueError, match="width"):
        spla.apply_arcs(A, lambda t, h: 0, np.zeros(1), width=0)
    with pytest.raises(TypeError, match="spla.Matrix"):
        spla.apply_arcs(A.to_scipy(), lambda t, h: 0, np.zeros(1))
    empty = spla.Matrix.from_edges([], [], n=3, directed=True, device="cpu")
    out = np.ones(0)
    assert spla.apply_arcs(empty, lambda t, h: pytest.fail("no entries: fn never runs"), out) is out


# ------------------------------------------------------------------ Matrix conversions
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_to_scipy_keep_dtype_and_astype(data, device):
    A = data.draw(matrices(max_rows=10, device=device), label="A")
    values, present = to_dense(A)
    S = A.to_scipy(keep_dtype=True).tocoo()
    stored = np.zeros(A.shape, dtype=bool)
    stored[S.row, S.col] = True
    assert S.dtype == A.dtype and np.array_equal(stored, present)
    D = A.to_scipy()
    assert D.dtype == (np.float64 if A.is_pattern else A.dtype)
    B = A.astype(np.float64)
    assert B.dtype == np.float64 and not B.is_pattern and B.nnz == A.nnz
    assert (B.directed, B.is_symmetric, B.device, B.shape) == (A.directed, A.is_symmetric, A.device, A.shape)
    want = present.astype(np.float64) if values is None else values.astype(np.float64)
    np.testing.assert_array_equal(to_dense(B)[0], want)
    assert B.colptr is A.colptr and B.rowidx is A.rowidx  # the structure is shared


def test_astype_refuses_unsupported_dtypes():
    A = spla.Matrix.from_edges([0], [1], device="cpu")
    with pytest.raises(spla.DomainMismatch):
        A.astype(np.complex128)


def test_is_symmetric_never_builds_the_transpose():
    D = spla.Matrix.from_edges([0, 1], [1, 0], directed=True, device="cpu")
    assert not D.is_symmetric and D.peek_cached("pattern") is None
    U = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")
    assert U.is_symmetric and U.T is U


# ------------------------------------------------------------------ spla.memory
def test_memory_on_the_cpu():
    assert spla.memory.available_bytes("cpu") is None
    assert spla.memory.release("cpu") is None


def test_memory_asks_the_named_gpu(monkeypatch):
    state = types.SimpleNamespace(current=0, freed=[])

    class Device:
        def __init__(self, index):
            self.index = index

        def __enter__(self):
            self.prev, state.current = state.current, self.index

        def __exit__(self, *exc):
            state.current = self.prev

    class Pool:
        def free_bytes(self):
            return 10 * (state.current + 1)

        def free_all_blocks(self):
            state.freed.append(state.current)

    runtime = types.SimpleNamespace(getDevice=lambda: state.current, getDeviceCount=lambda: 2,
                                    memGetInfo=lambda: (1000 * (state.current + 1), 10**6))
    cp = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime, Device=Device),
                               get_default_memory_pool=Pool)
    monkeypatch.setattr(_dev, "cupy_module", lambda: cp)
    assert spla.memory.available_bytes("gpu:1") == 2020 and state.current == 0
    assert spla.memory.available_bytes("gpu") == 1010
    spla.memory.release("gpu:1")
    assert state.freed == [1] and state.current == 0
