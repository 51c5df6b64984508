"""Windows of 32 columns on tensor cores (spla_vecsc_windows): the k-block product of plus over float32
with a pattern A, each distinct row of a window gathered once for all of its columns.

CPU (everywhere, CI included): the window lists (``window_lists``: every stored entry once, rows
ascending, as bits of 32-bit words) and the slots the kernel walks (``window_slots``: the same as
(row, bits) pairs in the MMA lanes' bit order, padded to sixteens) against the matrix, the sampled
reuse against the full one,
and the operand split (``split_bf16x3``, the NumPy twin of the kernel's) exact on every float32 that
the tensor-core path takes (``windows_exact``).

GPU (marker ``gpu``): the kernel forced on (vecsc_windows=True) against the dense NumPy reference
with every output mode (fresh, out, accum plus / min, replace), windows cut into several items (a
small windows_seg), k = 32 and 64, int32 and int64 indices, U with NaN, infinities and tiny values
(spla_windows_scan's flag and the exact path), and the "auto" rule.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import testing as T
from spla import tuning
from spla.backends import gpu
from spla.backends.gpu import compile as gpu_compile
from spla.backends.gpu import windows


def _csc(nrows, ncols, density, seed, heavy=0):
    """A random CSC pattern (scipy), optionally with ``heavy`` full-height columns."""
    rng = np.random.default_rng(seed)
    S = sp.random(nrows, ncols, density=density, format="csc", random_state=rng) if nrows * ncols else \
        sp.csc_matrix((nrows, ncols))
    S = S.tolil()
    for j in rng.choice(ncols, size=min(heavy, ncols), replace=False) if ncols else []:
        S[:, j] = 1.0
    S = S.tocsc()
    S.sort_indices()
    S.data[:] = 1.0
    return S


def _entries(w, width, rows, bits, col_of_bit):
    """The (row, column) entries of window w of ``width`` columns: rows (r,) with their bit words (r,)
    uint32, bit b standing for column width * w + col_of_bit[b]."""
    out = []
    for bit in range(len(col_of_bit)):
        hit = (bits >> np.uint32(bit)) & np.uint32(1) != 0
        out += [(int(i), w * width + int(col_of_bit[bit])) for i in rows[hit]]
    return out


def _pairs(lists, width=32):
    """The (row, column) entries that window lists describe, and checks of their form."""
    ptr, rows, bits = (np.asarray(lists[k]) for k in ("win_ptr", "win_rows", "win_bits"))
    out = []
    for w in range(ptr.shape[0] - 1):
        r, b = rows[ptr[w]:ptr[w + 1]], bits[ptr[w]:ptr[w + 1]]
        assert np.all(np.diff(r.astype(np.int64)) > 0), "a window's rows are distinct and ascending"
        assert np.all(b != 0), "a listed row is stored in some column of the window"
        out += _entries(w, width, r, b, np.arange(width))
    return sorted(out)


def _slot_pairs(slots):
    """The (row, column) entries that window_slots describe, and checks of their layout."""
    ptr = np.asarray(slots["slot_ptr"]).astype(np.int64)
    words = np.asarray(slots["slots"]).reshape(-1, 2)
    assert words.dtype == np.uint32 and words.shape[0] == ptr[-1]
    col_of_bit = np.empty(32, dtype=np.int64)
    col_of_bit[windows.window_bit(np.arange(32))] = np.arange(32)
    assert sorted(col_of_bit) == list(range(32)), "window_bit is a permutation of the 32 columns"
    out = []
    for w in range(ptr.shape[0] - 1):
        r, b = words[ptr[w]:ptr[w + 1], 0], words[ptr[w]:ptr[w + 1], 1]
        assert r.shape[0] % 16 == 0, "a window's slots come in sixteens"
        real = b != 0
        nreal = int(real.sum())
        assert np.all(real[:nreal]) and not np.any(real[nreal:]), "padding (no bits) only at the end"
        assert nreal > r.shape[0] - 16, "less than 16 slots of padding"
        assert np.all(np.diff(r[:nreal].astype(np.int64)) > 0), "rows distinct and ascending"
        if nreal < r.shape[0]:
            assert np.all(r[nreal:] == r[nreal - 1]), "padding repeats the window's last row"
        out += _entries(w, 32, r, b, col_of_bit)
    return sorted(out)


@settings(max_examples=150, deadline=None)
@given(nrows=st.integers(0, 90), ncols=st.integers(0, 140), density=st.sampled_from([0.0, 0.02, 0.2, 0.7]),
       seed=st.integers(0, 2**31), heavy=st.integers(0, 2), index=st.sampled_from([np.int32, np.int64]))
def test_window_lists_and_slots_hold_every_entry_once(nrows, ncols, density, seed, heavy, index):
    """The lists, and the kernel's layout made from them: sixteens of (row, bits) in the MMA lanes' bit
    order, padded with no bits."""
    S = _csc(nrows, ncols, density, seed, heavy if nrows else 0)
    lists = windows.window_lists(np, S.indptr.astype(index), S.indices.astype(index), nrows)
    nwin = -(-ncols // 32)
    assert lists["win_ptr"].shape == (nwin + 1,) and lists["win_ptr"].dtype == index
    assert lists["win_rows"].dtype == np.int32 and lists["win_bits"].dtype == np.uint32
    coo = S.tocoo()
    entries = sorted(zip(coo.row.tolist(), coo.col.tolist()))
    assert _pairs(lists) == entries
    distinct = int(lists["win_rows"].shape[0])
    assert lists["reuse"] == (S.nnz / distinct if S.nnz else 0.0)
    slots = windows.window_slots(np, lists)
    assert slots["slot_ptr"].shape == (nwin + 1,) and slots["slot_ptr"].dtype == index
    assert slots["reuse"] == lists["reuse"]
    assert _slot_pairs(slots) == entries
    # sampling every window gives the same reuse; sampling some gives the reuse of those windows
    reuse, rows = windows.window_reuse(np, S.indptr, S.indices, nrows, max(1, nwin))
    assert reuse == pytest.approx(lists["reuse"])
    assert rows == (pytest.approx(distinct / nwin) if S.nnz else 0.0)
    if nwin:  # one sampled window: linspace(0, nwin - 1, 1) is window 0
        ptr = lists["win_ptr"]
        first = int(S.indptr[min(32, ncols)])
        assert windows.window_reuse(np, S.indptr, S.indices, nrows, 1) == (
            (first / int(ptr[1]), float(ptr[1])) if first else (0.0, 0.0))


def test_window_lists_of_unsorted_rows_and_narrow_windows():
    # rows in any order within a column; a width below 32 uses the low bits only
    colptr = np.array([0, 3, 4, 6], dtype=np.int32)
    rowidx = np.array([4, 0, 2, 2, 2, 1], dtype=np.int32)
    lists = windows.window_lists(np, colptr, rowidx, 5, width=2)
    assert lists["win_ptr"].tolist() == [0, 3, 5]
    assert lists["win_rows"].tolist() == [0, 2, 4, 1, 2]
    assert lists["win_bits"].tolist() == [1, 3, 1, 1, 1]
    assert lists["reuse"] == 6 / 5
    with pytest.raises(ValueError, match="window width must be 1..32"):
        windows.window_lists(np, colptr, rowidx, 5, width=33)


def _float32s():
    return st.integers(0, 2**32 - 1).map(lambda b: np.array([b], dtype=np.uint32).view(np.float32)[0])


@settings(max_examples=500, deadline=None)
@given(x=st.lists(_float32s(), min_size=1, max_size=64))
def test_split_bf16x3_is_exact_where_the_tensor_cores_are_used(x):
    x = np.array(x, dtype=np.float32)
    ok = windows.windows_exact(x)
    with np.errstate(invalid="ignore", over="ignore"):
        parts = windows.split_bf16x3(x)
    for p in parts:
        assert np.all(p.view(np.uint32) & np.uint32(0xFFFF) == 0), "every part is a bfloat16 number"
        q = np.abs(p[ok])
        assert np.all((q == 0) | (q >= np.finfo(np.float32).tiny)), "no subnormal part reaches a tensor core"
    total = parts[0][ok].astype(np.float64) + parts[1][ok] + parts[2][ok]
    assert np.array_equal(total, x[ok].astype(np.float64))
    a = np.abs(x)
    assert np.array_equal(ok, np.isfinite(x) & ((a == 0) | (a >= 2.0 ** -100)))


def test_windows_setting_is_checked():
    with pytest.raises(ValueError, match="vecsc_windows must be one of 'auto', True, False, got 'yes'"):
        with tuning.override(vecsc_windows="yes"):
            pass
    with tuning.override(vecsc_windows=False) as t:  # off: no window product, whatever the rest
        assert not windows.use_windows(None, None, None, None, "plus", "times", np.dtype(np.float32), True, 32,
                                    gpu_compile.MASK_NONE, True, 0, t)


def test_windows_seg_rule():
    """"auto" takes the longest item length that still gives windows_min_waves x the resident warps."""
    t = tuning.current()
    resident = 132 * windows.WINDOWS_WARPS_PER_SM  # an H100's 132 SMs
    counts = np.full(768, 3248)  # myc15's windows, k = 32
    seg = windows.windows_seg(counts, 1, resident)
    items = lambda q: int(np.maximum(1, -(-counts // q)).sum())  # noqa: E731
    assert items(seg) >= t.windows_min_waves * resident
    longer = [q for q in t.windows_segs if q > seg]
    assert longer and all(items(q) < t.windows_min_waves * resident for q in longer)
    # myc14's 384 windows reach 2 waves with no allowed length: the shortest
    assert windows.windows_seg(np.full(384, 2144), 1, resident) == t.windows_segs[-1] == 256
    assert windows.windows_seg(np.full(3072, 7344), 1, resident) == t.windows_segs[0]  # myc17: the longest
    assert windows.windows_seg(np.full(3072, 7344), 4, resident, t) == t.windows_segs[0]
    assert windows.windows_seg(np.zeros(0, dtype=np.int64), 1, resident) == t.windows_segs[-1]  # no window
    assert windows.windows_seg(np.full(4, 16), 1, resident) == t.windows_segs[-1]  # too small for any
    # the candidates come from the tuning in force
    with tuning.override(windows_segs=(512, 32)):
        assert windows.windows_seg(np.full(3072, 7344), 1, resident) == 512
        assert windows.windows_seg(np.full(4, 16), 1, resident) == 32
    # more slabs (k = 64) never ask for shorter items
    for n in (10, 100, 1000):
        assert windows.windows_seg(np.full(n, 3000), 2, resident) >= windows.windows_seg(np.full(n, 3000), 1, resident)


@pytest.mark.parametrize("bad", ["long", 0, 8, 100, True, 2.0])
def test_windows_seg_setting_is_checked(bad):
    with pytest.raises(ValueError, match=r"windows_seg must be one of 'auto' or a positive multiple of 16, got "):
        with tuning.override(windows_seg=bad):
            pass
    with tuning.override(windows_seg=48):
        assert tuning.current().windows_seg == 48


# ---------------------------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------------------------
def _gpu():
    if not spla.gpu_available():
        pytest.skip("no GPU: CuPy is not installed or sees no CUDA device")
    import cupy
    return cupy


_MODES = [dict(), dict(out=True), dict(out=True, accum="plus"), dict(out=True, accum="min"),
          dict(out=True, replace=True), dict(out=True, accum="plus", replace=True)]


@pytest.mark.gpu
@settings(max_examples=60, deadline=None)
@given(A=T.matrices(0, 1100, 0, 140, pattern=True, dtype=np.float32, heavy_columns=None, max_nnz=30000,
                    device="gpu:0"),
       k=st.sampled_from([32, 64]), seg=st.sampled_from([16, 32, 256]), mode=st.sampled_from(_MODES),
       semiring=st.sampled_from(["plus_times", "plus_first"]), seed=st.integers(0, 2**31))
def test_windows_product_matches_dense(A, k, seg, mode, semiring, seed):
    cp = _gpu()
    rng = np.random.default_rng(seed)
    n, m = A.shape
    U = rng.integers(-4, 9, size=(n, k)).astype(np.float32)
    kw = {key: v for key, v in mode.items() if key != "out"}
    out = rng.integers(-3, 4, size=(m, k)).astype(np.float32) if mode.get("out") else None
    want = T.reference("vxm", A, U, semiring, out=None if out is None else out.copy(), **kw)
    with tuning.override(vecsc_windows=True, windows_seg=seg):
        got = spla.vxm(cp.asarray(U), A, semiring, out=None if out is None else cp.asarray(out), kernel="veCSC",
                       **kw)
    T.assert_equal(cp.asnumpy(got), want, rtol=0, atol=0)


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_windows_kernel_runs_and_splits_windows(caplog, index):
    """Both index instantiations, windows of several items (atomics) and of one, columns past the last
    full window, and the DEBUG line naming the variant."""
    cp = _gpu()

    class Pattern:
        """What the backend reads of a pattern matrix, with the cache gateway of spla.Matrix."""

        def __init__(self, S):
            self.shape, self.nnz, self.values, self.kept = S.shape, S.nnz, None, {}
            self.colptr, self.rowidx = cp.asarray(S.indptr.astype(index)), cp.asarray(S.indices.astype(index))

        def cached(self, key, build):
            if key not in self.kept:
                self.kept[key] = build()
            return self.kept[key]

        def peek_cached(self, key, default=None):
            return self.kept.get(key, default)

    S = _csc(700, 75, 0.3, 7, heavy=3)
    A = Pattern(S)
    U = np.random.default_rng(3).random((700, 32), dtype=np.float32)
    with caplog.at_level(logging.DEBUG, logger="spla"), tuning.override(vecsc_windows=True, windows_seg=32):
        got = gpu.vxm(cp.asarray(U), A, "plus_times", None, False, None, None, False, "veCSC")
    assert "windows of 32 columns on tensor cores" in caplog.text
    want = S.T.astype(np.float64) @ U.astype(np.float64)  # sums of about 200 terms in [0, 1)
    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-5, atol=1e-5)
    slots = A.peek_cached(("window_slots", 32, np.dtype(index).str, 0))
    assert slots["slot_ptr"].dtype == index


@pytest.mark.gpu
@pytest.mark.parametrize("special", ["nan", "inf", "-inf", "tiny", "subnormal", "negzero"])
def test_windows_exact_path_for_values_off_the_tensor_cores(special):
    """A value the split cannot carry exactly (or that would poison a tile: 0 x inf) sends its warp's item
    to the exact path, which gives the row kernel's result: NaN and infinities where those rows reach,
    nothing lost from tiny values, -0.0 skipped as the identity, and subnormals read as 0 as by every
    GPU kernel (CuPy compiles with -ftz=true)."""
    cp = _gpu()
    value = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "tiny": 2.0 ** -110, "subnormal": 1e-45,
             "negzero": -0.0}[special]
    S = _csc(300, 70, 0.2, 11, heavy=1).tolil()
    S[:, 69] = 0.0
    S[7, 69] = 1.0  # column 69 sums row 7 alone
    A = spla.Matrix.from_scipy(S.tocsc(), directed=True, device="gpu:0")
    rng = np.random.default_rng(5)
    U = rng.integers(1, 5, size=(300, 32)).astype(np.float32)
    U[rng.choice(300, size=4, replace=False), rng.integers(0, 32)] = np.float32(value)
    U[7, :] = np.float32(value) * np.float32(3.0) if special in ("tiny", "subnormal") else U[7, :]
    for seg in (16, 256):
        with tuning.override(windows_seg=seg, vecsc_windows=True):
            got = cp.asnumpy(spla.vxm(cp.asarray(U), A, "plus_times", kernel="veCSC"))
        with tuning.override(windows_seg=seg, vecsc_windows=False):
            rows = cp.asnumpy(spla.vxm(cp.asarray(U), A, "plus_times", kernel="veCSC"))
        # CuPy compiles every kernel with -ftz=true: the GPU reads a subnormal float32 as 0
        flushed = np.where(np.abs(U) < np.finfo(np.float32).tiny, np.float32(0), U)
        want = T.reference("vxm", A, flushed, "plus_times")
        T.assert_equal(got, want, rtol=1e-6, atol=0)
        T.assert_equal(rows, want, rtol=1e-6, atol=0)
        if special == "tiny":
            assert np.all(got[69] == np.float32(value) * np.float32(3.0)), "tiny sums are kept"


@pytest.mark.gpu
def test_windows_auto_rule(caplog):
    """"auto" runs windows where the sampled windows reach windows_min_reuse entries a row and
    windows_min_rows rows (a dense block) and the row kernel where they do not (a random sparse matrix),
    and never for masked products, other semirings or k not a multiple of 32."""
    cp = _gpu()
    assert tuning.current().vecsc_windows == "auto"
    dense = spla.Matrix.from_scipy(_csc(2000, 256, 0.5, 1), directed=True, device="gpu:0")
    sparse = spla.Matrix.from_scipy(_csc(20000, 4096, 0.0003, 2), directed=True, device="gpu:0")
    cases = [(dense, {}, True), (sparse, {}, False), (dense, {"mask": "half"}, False),
             (dense, {"semiring": "plus_second"}, False), (dense, {"k": 16}, False)]
    for A, extra, on_windows in cases:
        k = extra.get("k", 32)
        U = cp.asarray(np.random.default_rng(0).integers(-3, 9, size=(A.shape[0], k)).astype(np.float32))
        mask = None
        if extra.get("mask"):
            mask = cp.zeros(A.shape[1], dtype=bool)
            mask[::2] = True
        semiring = extra.get("semiring", "plus_times")
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="spla"):
            got = spla.vxm(U, A, semiring, mask=mask, kernel="veCSC")
        assert ("on tensor cores" in caplog.text) == on_windows, (A.shape, extra, caplog.text[-300:])
        want = T.reference("vxm", A, cp.asnumpy(U), semiring, mask=None if mask is None else cp.asnumpy(mask))
        T.assert_equal(cp.asnumpy(got), want, rtol=0, atol=0)
