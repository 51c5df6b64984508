"""The GPU backend's kernels against a dense NumPy reference.

Every kernel (scCSC, veCSC, scCOOC, push) runs every registered semiring on every dtype it accepts
(and the MUL(a, x) form used by mxv), as a single vector and as k-blocks (k = 3 and k = 33 > 32
lanes), with masks / complemented masks / replace / accum / out, on matrices that include 0x0,
1x1, empty rows/columns, a column of more than 32 and one of more than 1024 entries, self loops
and rectangular shapes; int32 and int64 indices; pattern and valued matrices.

All test data are small integers (also in floating point), so every result is exact whatever the
order of the reduction (scCOOC's atomics) and comparisons are exact.

The reference (``reference`` below) is the definition:
    t[j] = ADD over i with u[i] != identity of MUL(u[i], A[i, j])  (identity where none)
    out is None: y = identity everywhere, y[C] = t[C]
    else:        on C: out = accum(out, t) if accum else t; off C: out unless replace (identity)
where C is the set of outputs the mask (or its complement) selects, all outputs without a mask.

Needs CuPy and a CUDA device (skipped otherwise).  Speed is not tested here: the throughput
targets are measured by ``python -m benchmarks --only spmv`` (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
import logging
import zlib

import numpy as np
import pytest

cp = pytest.importorskip("cupy")
try:
    _NDEV = cp.cuda.runtime.getDeviceCount()
except Exception:  # no driver, no device, ...
    _NDEV = 0

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from spla import semirings, tuning  # noqa: E402
from spla.backends import gpu  # noqa: E402
from spla.backends.gpu import compile as gpu_compile  # noqa: E402
from spla.backends.gpu import launch, layouts  # noqa: E402
from spla.backends.gpu import tiles as gpu_tiles  # noqa: E402
from spla.errors import KernelUnavailable  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(_NDEV < 1, reason="CuPy sees no CUDA device")]

KERNELS = gpu.KERNELS


# ---------------------------------------------------------------------------------------------
# Test matrices: the attributes of spla.Matrix that the backend reads, built from COO triplets
# ---------------------------------------------------------------------------------------------
class Kept:
    """spla.Matrix's cache gateway (cached, peek_cached) for the test doubles; ``kept`` holds the values."""

    def __init__(self):
        self.kept = {}

    def cached(self, key, build):
        if key not in self.kept:
            self.kept[key] = build()
        return self.kept[key]

    def peek_cached(self, key, default=None):
        return self.kept.get(key, default)


class CSC(Kept):
    """colptr/rowidx/values/colidx on the GPU (sorted, duplicates dropped) + the NumPy COO."""

    def __init__(self, shape, rows, cols, vals=None, index_dtype=np.int32):
        super().__init__()
        m, n = shape
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        key, first = np.unique(cols * max(m, 1) + rows, return_index=True)  # sorted by (col, row)
        self.np_rows, self.np_cols = rows[first], cols[first]
        self.np_vals = None if vals is None else np.asarray(vals)[first]
        self.shape = (m, n)
        self.nnz = int(key.shape[0])
        colptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.np_cols, minlength=n), out=colptr[1:])
        self.colptr = cp.asarray(colptr.astype(index_dtype))
        self.rowidx = cp.asarray(self.np_rows.astype(index_dtype))
        self.colidx = cp.asarray(self.np_cols.astype(index_dtype))
        self.values = None if self.np_vals is None else cp.asarray(self.np_vals)
        self._T = None

    @property
    def T(self):
        """The transpose (the input side that the push kernel walks), built once."""
        if self._T is None:
            self._T = CSC(self.shape[::-1], self.np_cols, self.np_rows, self.np_vals, self.colptr.dtype)
            self._T._T = self
        return self._T

    def __repr__(self):
        kind = "pattern" if self.values is None else str(self.np_vals.dtype)
        return f"CSC{self.shape} nnz={self.nnz} {kind} {self.colptr.dtype}"


def _structures():
    """name -> (shape, rows, cols): the shapes every kernel must handle."""
    rng = np.random.default_rng(20240601)
    s = {
        "0x0": ((0, 0), [], []),
        "1x1": ((1, 1), [0], [0]),
        "1x1-empty": ((1, 1), [], []),
        "0x4": ((0, 4), [], []),
        "5x0": ((5, 0), [], []),
    }
    m, n = 37, 53  # rectangular, random, every 7th column empty
    dense = rng.random((m, n)) < 0.12
    dense[:, ::7] = False
    s["rect"] = ((m, n), *np.nonzero(dense))
    m, n = 1200, 40  # column 3: 40 entries (> one warp), column 7: 1100 (> one block), 0 and 39 empty
    rows = [rng.choice(m, 40, replace=False), rng.choice(m, 1100, replace=False), rng.integers(0, m, 150)]
    cols = [np.full(40, 3), np.full(1100, 7), rng.integers(1, n - 1, 150)]
    s["heavy"] = ((m, n), np.concatenate(rows), np.concatenate(cols))
    n = 30  # square with every self loop
    dense = rng.random((n, n)) < 0.1
    np.fill_diagonal(dense, True)
    s["loops"] = ((n, n), *np.nonzero(dense))
    return s


STRUCTURES = _structures()


def _values(rng, dtype, size):
    """Small integers in dtype (so that sums and products are exact)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(size) < 0.7
    if dt.kind == "u":
        return rng.integers(0, 4, size).astype(dt)
    return rng.integers(-3, 4, size).astype(dt)


def _vector(rng, dtype, shape, ident):
    """Small values with about a third of the entries equal to the identity (skipped)."""
    x = _values(rng, dtype, shape)
    x[rng.random(shape) < 0.3] = ident
    return x


_MATRIX_CACHE = {}


def matrix(name, dtype, pattern=False, index_dtype=np.int32):
    """Catalogue matrix ``name`` with values of ``dtype`` (or pattern), cached on the GPU."""
    key = (name, np.dtype(dtype).str, pattern, np.dtype(index_dtype).str)
    if key not in _MATRIX_CACHE:
        shape, rows, cols = STRUCTURES[name]
        rng = np.random.default_rng(len(_MATRIX_CACHE))
        vals = None if pattern else _values(rng, dtype, len(rows))
        _MATRIX_CACHE[key] = CSC(shape, rows, cols, vals, index_dtype)
    return _MATRIX_CACHE[key]


# ---------------------------------------------------------------------------------------------
# The reference
# ---------------------------------------------------------------------------------------------
def reference(u, A, sr, swap=False, mask=None, complement=False, accum=None, out=None, replace=False):
    """Dense NumPy vxm with spla's semantics (see the module docstring).  u (nrows,) or (nrows, k)."""
    dtype = u.dtype
    ident = sr.add.identity(dtype)
    U = u[:, None] if u.ndim == 1 else u
    ncols, k = A.shape[1], U.shape[1]
    t = np.full((ncols, k), ident, dtype=dtype)
    if A.nnz and k:
        x = U[A.np_rows]  # (nnz, k): u[i, c] of every stored entry
        a = np.ones(A.nnz, dtype) if A.np_vals is None else A.np_vals.astype(dtype)
        a = np.ascontiguousarray(np.broadcast_to(a[:, None], x.shape))
        with np.errstate(all="ignore"):
            prod = sr.mul.apply(a, x, np) if swap else sr.mul.apply(x, a, np)
        prod = np.where(x != ident, np.asarray(prod).astype(dtype), ident).astype(dtype)
        sr.add.ufunc.at(t, A.np_cols, prod)
    comp = None
    if mask is not None:
        comp = ~mask if complement else mask
        comp = comp[:, None] if comp.ndim == 1 else comp
    if out is None:
        y = t if comp is None else np.where(comp, t, ident)
    else:
        old = out.reshape(ncols, k)
        with np.errstate(all="ignore"):
            z = t if accum is None else semirings.accum_apply(accum, old, t, np)
        y = z if comp is None else np.where(comp, z, ident if replace else old)
    return np.asarray(y).astype(dtype).reshape((ncols,) + u.shape[1:])


# ---------------------------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------------------------
def _configs(dtype):
    """Every (mask kind, complement, accum, out, replace) combination valid for dtype."""
    accums = [None] + [a for a in semirings.ACCUM_OPS if np.dtype(dtype) in semirings.accum_dtypes(a)]
    res = []
    for mask_kind, complement in (("none", False), ("full", False), ("full", True), ("shared", False),
                                  ("shared", True)):
        for use_out, replace, accum in itertools.product((False, True), (False, True), accums):
            if accum is not None and not use_out:
                continue
            if replace and (not use_out or mask_kind == "none"):
                continue
            res.append((mask_kind, complement, accum, use_out, replace))
    return res


def run_case(A, sr, dtype, kernel, k, config, rng, swap=False):
    """One gpu.vxm call against the reference.  k None: a 1-D vector; else an (nrows, k) block."""
    mask_kind, complement, accum, use_out, replace = config
    dtype = np.dtype(dtype)
    ident = sr.add.identity(dtype)
    nrows, ncols = A.shape
    ushape = (nrows,) if k is None else (nrows, k)
    yshape = (ncols,) if k is None else (ncols, k)
    u = _vector(rng, dtype, ushape, ident)
    mask = None
    if mask_kind == "full" or (mask_kind == "shared" and k is None):
        mask = rng.random(yshape) < 0.5
    elif mask_kind == "shared":
        mask = rng.random(ncols) < 0.5
    out = _values(rng, dtype, yshape) if use_out else None
    expected = reference(u, A, sr, swap, mask, complement, accum, out, replace)
    out_d = None if out is None else cp.asarray(out)
    got = gpu.vxm(cp.asarray(u), A, sr, None if mask is None else cp.asarray(mask), complement, accum, out_d,
                  replace, kernel, swap=swap)
    if out_d is not None:
        assert got is out_d, "the backend must write into out and return it"
    assert got.shape == yshape and got.dtype == dtype
    np.testing.assert_array_equal(
        cp.asnumpy(got), expected,
        err_msg=f"{kernel} {sr.name}{' swapped' if swap else ''} {dtype} k={k} {A} config={config}")


def _combos():
    """(semiring name, dtype, swap) for every registered semiring and dtype; swap only where it matters."""
    res = []
    for name in semirings.names():
        sr = semirings.get(name)
        for dt in sr.dtypes:
            res.append(pytest.param(name, np.dtype(dt), False, id=f"{name}-{np.dtype(dt)}"))
            if sr.mul.name in ("first", "second"):
                res.append(pytest.param(name, np.dtype(dt), True, id=f"{name}-{np.dtype(dt)}-swap"))
    return res


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,dtype,swap", _combos())
def test_every_semiring_dtype_kernel(name, dtype, swap):
    """All kernels x catalogue matrices x (1-D, k=3, k=33) with configurations taken in turn."""
    sr = semirings.get(name)
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype}-{swap}".encode()))
    configs = itertools.cycle(_configs(dtype))
    dtypes = sr.dtypes
    pattern_too = np.dtype(dtypes[semirings.names().index(name) % len(dtypes)]) == dtype  # one dtype each
    for kernel in KERNELS:
        for mname in STRUCTURES:
            for pattern in (False, True) if pattern_too else (False,):
                A = matrix(mname, dtype, pattern)
                ks = (None, 3, 33) if mname in ("heavy", "rect") else (None, 3)
                for k in ks:
                    run_case(A, sr, dtype, kernel, k, next(configs), rng, swap)


CASES = [("plus_times", np.float32), ("min_plus", np.int32), ("lor_land", np.bool_), ("bor_first", np.uint64),
         ("any_pair", np.int64), ("max_first", np.float64)]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name,dtype", CASES)
def test_every_mask_accum_out_combination(name, dtype, kernel):
    """Exhaustive mask/complement/replace/accum/out for a few semirings, 1-D and blocks."""
    sr = semirings.get(name)
    rng = np.random.default_rng(1)
    for mname in ("rect", "heavy", "loops"):
        A = matrix(mname, dtype)
        for config in _configs(dtype):
            for k in (None, 4):
                run_case(A, sr, dtype, kernel, k, config, rng)


def _index64_combos():
    res = []
    for i, name in enumerate(semirings.names()):
        dts = semirings.get(name).dtypes
        res.append(pytest.param(name, np.dtype(dts[i % len(dts)]), id=f"{name}-{np.dtype(dts[i % len(dts)])}"))
    return res


@pytest.mark.parametrize("name,dtype", _index64_combos())
def test_int64_indices(name, dtype):
    sr = semirings.get(name)
    rng = np.random.default_rng(2)
    configs = itertools.cycle(_configs(dtype))
    for kernel in KERNELS:
        for mname in ("heavy", "rect", "1x1", "0x0"):
            for pattern in (False, True):
                A = matrix(mname, dtype, pattern, np.int64)
                for k in (None, 5):
                    run_case(A, sr, dtype, kernel, k, next(configs), rng)


@pytest.mark.parametrize("group", [2, 4, 8, 16, 32])
@pytest.mark.parametrize("name,dtype", CASES)
def test_vecsc_group_sizes(group, name, dtype):
    """veCSC's shuffle reduction for every group size and shuffled type (bool, 32/64-bit)."""
    sr = semirings.get(name)
    rng = np.random.default_rng(group)
    m, n = 700, 300
    rows, cols = rng.integers(0, m, 9000), rng.integers(0, n, 9000)
    A = CSC((m, n), np.r_[rows, np.arange(m)], np.r_[cols, np.full(m, 5)], None)  # column 5 has > 700
    with tuning.override(vecsc_group=group):
        for config in [("none", False, None, False, False), ("full", True, None, True, True)]:
            run_case(A, sr, dtype, "veCSC", None, config, rng)
        assert launch.vecsc_group_size(A) == group


@pytest.mark.parametrize("ncols,mean", [(65_536, 6), (1000, 40), (100_000, 40)])
def test_vecsc_group_fills_this_device(caplog, ncols, mean):
    """veCSC's group for one vector is chosen for the device it runs on: the columns fill the threads
    it holds at once (SMs x threads per SM), not a fixed count.  65,536 columns of 6 entries sit at
    2^18 lanes with 4 lanes each, so the device's count decides between 4 and 8 lanes.  The result is
    checked against the reference."""
    rng = np.random.default_rng(ncols + mean)
    cols = np.repeat(np.arange(ncols), mean)
    A = CSC((2 * ncols, ncols), rng.integers(0, 2 * ncols, cols.size), cols, None)
    want = launch.vecsc_group_size(A, 1, launch.resident_blocks(0) * gpu_compile.BLOCK)
    with caplog.at_level(logging.DEBUG, logger="spla"):
        run_case(A, semirings.get("plus_times"), np.float32, "veCSC", None, ("none", False, None, False, False), rng)
    lines = [r.getMessage() for r in caplog.records if "kernel=veCSC" in r.getMessage()]
    assert lines and f" group={want} " in lines[-1], caplog.text


@pytest.mark.parametrize("kernel,k,shape,heavy,want", [
    ("veCSC", None, (9000, 50), 9000, "cut into"),  # a column longer than the split's threshold
    ("veCSC", 3, (300, 50), 0, "(block:"),  # 3 float32 values a row: not 16-byte pieces
    ("scCOOC", None, (300, 50), 0, "(atomics into"),
    ("scCOOC", None, (300, 50), None, "nothing launched"),  # no entries
    ("push", None, (300, 50), 0, "(atomics into"),
])
def test_debug_line_names_the_variant(caplog, kernel, k, shape, heavy, want):
    """The DEBUG line of each product names how the kernel ran, not only which one (and the result
    is checked against the reference)."""
    rng = np.random.default_rng(5)
    m, n = shape
    if heavy is None:
        A = CSC(shape, [], [], None)
    else:
        rows, cols = rng.integers(0, m, 4 * n), rng.integers(0, n, 4 * n)
        A = CSC(shape, np.r_[rows, np.arange(heavy)], np.r_[cols, np.zeros(heavy, np.int64)], None)
    with caplog.at_level(logging.DEBUG, logger="spla"):
        run_case(A, semirings.get("plus_times"), np.float32, kernel, k, ("none", False, None, False, False), rng)
    lines = [r.getMessage() for r in caplog.records if f"kernel={kernel}" in r.getMessage()]
    assert lines and want in lines[-1], caplog.text


LONG_CASES = CASES + [("max_times", np.int64), ("plus_pair", np.uint32)]


def _long_matrix(rng, index_dtype=np.int32, pattern=False, dtype=np.float32):
    """60,000 x 40: column 5 has 10,000 entries, column 17 has 50,000 (both > tuning long = 4096, the
    second spans 25 chunks), column 30 exactly 4096 (not long), the others 0 to ~60."""
    m, n = 60000, 40
    rows = [rng.choice(m, 10000, replace=False), rng.choice(m, 50000, replace=False),
            rng.choice(m, 4096, replace=False), rng.integers(0, m, 1500)]
    cols = [np.full(10000, 5), np.full(50000, 17), np.full(4096, 30), rng.integers(0, n, 1500)]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    keep = ~np.isin(cols, (5, 17, 30)) | (np.arange(len(cols)) < 64096)  # short columns stay short
    rows, cols = rows[keep], cols[keep]
    return CSC((m, n), rows, cols, None if pattern else _values(rng, dtype, len(rows)), index_dtype)


@pytest.mark.parametrize("name,dtype", LONG_CASES)
def test_vecsc_long_columns(name, dtype):
    """Columns longer than the tuning's long take the chunked path (chunk warps + atomics + finish); every
    mask/complement/replace/accum/out configuration against the reference, int32 and int64 indices."""
    sr = semirings.get(name)
    rng = np.random.default_rng(zlib.crc32(f"long-{name}-{np.dtype(dtype)}".encode()))
    for index_dtype, pattern in ((np.int32, False), (np.int64, True)):
        A = _long_matrix(rng, index_dtype, pattern, dtype)
        assert launch.vecsc_group_size(A) == 32  # long means > long * 32 / 32 entries
        t = tuning.current()
        split = layouts.long_split_of(cp, A, A.colptr, 32, t.long, t.chunk)
        assert split is not None and split["nlong"] == 2 and split["long_len"] == t.long == 4096
        assert cp.asnumpy(split["long_cols"]).tolist() == [5, 17] and split["nchunks"] == 5 + 25
        configs = _configs(dtype) if index_dtype == np.int32 else _configs(dtype)[::3]
        for config in configs:
            run_case(A, sr, dtype, "veCSC", None, config, rng)


@pytest.mark.parametrize("long_chunk", [(64, 32), (100, 7), (2, 1), (600, 577)])
@pytest.mark.parametrize("name,dtype", CASES)
def test_vecsc_long_split_small(long_chunk, name, dtype):
    """Small long/chunk: many chunks per column, columns just above/below long (groups of 32 lanes,
    whose threshold is long itself), tiny grids; then groups of 4 lanes (threshold long / 8).  Chunks of
    577 entries take spla_group_reduce's loop (more than 4 vectors a lane), the others its short path."""
    long, chunk = long_chunk
    sr = semirings.get(name)
    rng = np.random.default_rng(zlib.crc32(f"small-{long_chunk}-{name}".encode()))
    m, n = 700, 120
    lens = rng.integers(0, 3 * long_chunk[0] + 3, n)
    lens[:6] = [0, long_chunk[0], long_chunk[0] + 1, long_chunk[0] - 1, min(m, 650), 1]
    lens = np.minimum(lens, m)
    rows = np.concatenate([rng.choice(m, int(c), replace=False) for c in lens])
    cols = np.repeat(np.arange(n), lens)
    mats = [CSC((m, n), rows, cols, _values(rng, dtype, len(rows))), CSC((m, n), rows, cols, None, np.int64),
            matrix("heavy", dtype), matrix("rect", dtype, True)]
    configs = _configs(dtype)
    with tuning.override(long=long, chunk=chunk, vecsc_group=32):
        for i, A in enumerate(mats):
            for c in range(0, len(configs), 2):
                run_case(A, sr, dtype, "veCSC", None, configs[(c + i) % len(configs)], rng)
    with tuning.override(long=long, chunk=chunk, vecsc_group=4):
        assert layouts.long_split_of(cp, mats[0], mats[0].colptr, 4, long, chunk)["long_len"] == max(1, long // 8)
        for config in configs[::7]:
            run_case(mats[0], sr, dtype, "veCSC", None, config, rng)
        with tuning.override(max_blocks=1):  # grid-stride over chunks and long columns
            for config in configs[::5]:
                run_case(mats[0], sr, dtype, "veCSC", None, config, rng)


@pytest.mark.parametrize("off", [None, 0])
def test_vecsc_long_disabled(off):
    """long = None (or <= 0) turns the split off (same results)."""
    rng = np.random.default_rng(9)
    A = _long_matrix(rng)
    with tuning.override(long=off):
        assert layouts.long_split_of(cp, A, A.colptr, 32, off, tuning.current().chunk) is None
        run_case(A, semirings.get("plus_times"), np.float32, "veCSC", None, ("full", False, "plus", True, False),
                 rng)


@pytest.mark.parametrize("vec4", [True, False])
@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_vecsc_vec4_unaligned_rowidx(vec4, shift):
    """16-byte rowidx loads (int32) with rowidx starting 0-3 entries past a 16-byte boundary, every
    group size, column lengths 0..~70 (heads/tails of 0-3 entries), and the chunked long path."""
    rng = np.random.default_rng(100 + shift)
    m, n = 300, 90
    lens = np.minimum(m, np.r_[np.arange(0, 9), rng.integers(0, 70, n - 9)])
    rows = np.concatenate([rng.choice(m, int(c), replace=False) for c in lens])
    cols = np.repeat(np.arange(n), lens)
    for name, dtype in (("plus_times", np.float32), ("min_plus", np.int32), ("lor_land", np.bool_)):
        sr = semirings.get(name)
        A = CSC((m, n), rows, cols, _values(rng, dtype, len(rows)))
        pad = cp.zeros(len(rows) + 4, dtype=np.int32)
        pad[shift:shift + len(rows)] = A.rowidx
        A.rowidx = pad[shift:shift + len(rows)]  # a contiguous view at a 4 * shift byte offset
        assert A.rowidx.data.ptr % 16 == (4 * shift) % 16 or shift == 0
        for group in (2, 4, 8, 32):
            with tuning.override(vecsc_vec4=vec4, vecsc_group=group):
                run_case(A, sr, dtype, "veCSC", None, ("none", False, None, False, False), rng)
                run_case(A, sr, dtype, "veCSC", None, ("full", True, "plus" if dtype != np.bool_ else "lor", True,
                                                       False), rng)
        with tuning.override(vecsc_vec4=vec4, vecsc_group=32, long=20, chunk=9):
            run_case(A, sr, dtype, "veCSC", None, ("full", False, None, True, True), rng)


@pytest.mark.parametrize("kernel", KERNELS)
def test_grid_stride_loops(kernel):
    """Tiny grids: every kernel must cover all columns / entries by looping."""
    rng = np.random.default_rng(3)
    m, n = 900, 5000
    A = CSC((m, n), rng.integers(0, m, 30000), rng.integers(0, n, 30000), _values(rng, np.float64, 30000))
    with tuning.override(max_blocks=2):
        for name, dtype in (("plus_times", np.float64), ("min_plus", np.int64), ("any_pair", np.bool_)):
            for k in (None, 3):
                run_case(A, semirings.get(name), dtype, kernel, k, ("full", False, None, True, False), rng)


@pytest.mark.parametrize("skip_empty", [0.0, 1.0])
@pytest.mark.parametrize("worklist", [True, False, "auto"])
@pytest.mark.parametrize("kernel", ["scCSC", "veCSC"])
def test_mask_worklist(kernel, worklist, skip_empty):
    """Masked 1-D products with and without the compacted worklist of computed columns: more columns
    than the device holds threads (the list kernels loop), masks keeping none, a tenth, half or all
    columns, a column longer than veCSC's split threshold, replace/accum/out; empty computed columns
    left out of the list (and stored by the worklist kernel) or walked (skip_empty 0.0 / 1.0)."""
    rng = np.random.default_rng(11)
    m, n, nnz = 2000, 300_000, 1_200_000
    rows = np.concatenate([rng.integers(0, m, nnz), np.arange(m), np.arange(m)])
    cols = np.concatenate([rng.integers(0, n, nnz), np.full(m, 17), np.full(m, n - 1)])  # two long columns
    A = CSC((m, n), rows, cols, _values(rng, np.float64, len(rows)))
    assert 0.0 < layouts.empty_fraction(A, A.colptr) < 1.0  # some columns are empty (about 1.8%)
    # scCSC's masked walk without tiles (test_sccsc_tiles)
    settings_ = dict(mask_worklist=worklist, worklist_skip_empty=skip_empty, sccsc_tiles=False, long=1024, chunk=512)
    for name, dtype in (("plus_times", np.float64), ("min_plus", np.int32), ("lor_land", np.bool_)):
        sr = semirings.get(name)
        ident = sr.add.identity(np.dtype(dtype))
        u = _vector(rng, dtype, (m,), ident)
        for keep in (0.0, 0.1, 0.5, 1.0):
            mask = rng.random(n) < keep
            for complement, accum, use_out, replace in ((False, None, False, False), (True, None, False, False),
                                                        (False, "acc", True, False), (True, None, True, True)):
                accum = ("lor" if dtype == np.bool_ else "plus") if accum == "acc" else accum
                out = _values(rng, dtype, (n,)) if use_out else None
                want = reference(u, A, sr, False, mask, complement, accum, out, replace)
                with tuning.override(**settings_):
                    got = gpu.vxm(cp.asarray(u), A, sr, cp.asarray(mask), complement, accum,
                                  None if out is None else cp.asarray(out), replace, kernel)
                np.testing.assert_array_equal(cp.asnumpy(got), want,
                                              err_msg=f"{kernel} {name} keep={keep} complement={complement} "
                                                      f"accum={accum} out={use_out} replace={replace}")


@pytest.mark.parametrize("tiles", [True, False])
@pytest.mark.parametrize("name,dtype", CASES)
def test_sccsc_tiles(tiles, name, dtype):
    """Masked 1-D scCSC as warp tiles (tiles of 1, 2 and 8 warps' columns) and as the column walk,
    every mask/accum/out configuration on the catalogue (whose 1100-entry column is longer than the
    tiles' split threshold); then a larger matrix with tiny grids (warps loop over tiles and over
    groups of chunks), long columns cut into chunks that do not divide them (ADDed straight into y or
    through the finish kernel), the computed long columns' chunks listed by the tiles or every long
    column's chunks testing their masks (one or several per warp), and masks keeping none, a tenth or
    all columns."""
    sr = semirings.get(name)
    rng = np.random.default_rng(21)
    if tiles:
        t = tuning.current()  # sccsc_tiles "auto", by the rule: a catalogue column is long
        assert gpu_tiles.use_tiles(cp, matrix("heavy", dtype), matrix("heavy", dtype).colptr, 40, 0, t)
        assert not gpu_tiles.use_tiles(cp, matrix("loops", dtype), matrix("loops", dtype).colptr, 30, 0, t)
    # lanes per kept column: up to 1, 4, 32 or the rule's; tile_min_warps 0: R and BLOCK as set, 8: narrowed
    # (R=1, 1 warp)
    for R, group, min_warps in ((1, 1, 0), (2, 4, 0), (8, 32, 0), (8, "auto", 8)) if tiles else ((8, 1, 0),):
        with tuning.override(sccsc_tiles=tiles, tile_r=R, tile_group=group, tile_min_warps=min_warps):
            for mname in ("rect", "heavy", "loops", "0x4", "1x1", "1x1-empty"):
                A = matrix(mname, dtype)
                for config in _configs(dtype):
                    if config[0] != "none":
                        run_case(A, sr, dtype, "scCSC", None, config, rng)
    m, n = 400, 5000
    rows = np.concatenate([rng.integers(0, m, 20000), np.arange(m), np.arange(m)])
    cols = np.concatenate([rng.integers(0, n, 20000), np.full(m, 3), np.full(m, n - 1)])  # two long columns
    A = CSC((m, n), rows, cols, _values(rng, dtype, len(rows)))
    ident = sr.add.identity(np.dtype(dtype))
    accum = "lor" if np.dtype(dtype) == np.bool_ else ("bor" if name == "bor_first" else "min")
    # listed chunks shorter than tile_chunk (more listed chunks than static ones), longer, and equal
    for per_warp, chunks, group, listed_chunk in (
            (1, "static", 1, 512), (8, "static", 2, 512), (32, "static", "auto", 512), (8, "listed", 8, 5),
            (8, "listed", 32, 16), (8, "listed", 4, 7), (1, "fused", 1, 512), (8, "fused", "auto", 512),
            (32, "fused", 4, 512), (8, "auto", "auto", 3)):
        settings_ = dict(sccsc_tiles=tiles, tile_r=8, tile_min_warps=8 if tiles else 0, tile_long=9, tile_chunk=7,
                         max_blocks=1, listed_chunk=listed_chunk, chunks_per_warp=per_warp, tile_chunks=chunks,
                         tile_group=group)
        for keep in (0.0, 0.1, 1.0):
            for complement, acc, use_out, replace in ((False, None, False, False), (True, None, True, True),
                                                      (False, accum, True, False), (False, None, True, False)):
                u = _vector(rng, dtype, (m,), ident)
                mask = rng.random(n) < keep
                out = _values(rng, dtype, (n,)) if use_out else None
                want = reference(u, A, sr, False, mask, complement, acc, out, replace)
                with tuning.override(**settings_):
                    got = gpu.vxm(cp.asarray(u), A, sr, cp.asarray(mask), complement, acc,
                                  None if out is None else cp.asarray(out), replace, "scCSC")
                np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=(
                    f"tiles={tiles} per_warp={per_warp} chunks={chunks} group={group} listed_chunk={listed_chunk} "
                    f"keep={keep} complement={complement} "
                    f"accum={acc} out={use_out} replace={replace}"))


@pytest.mark.parametrize("chunks", ["listed", "fused"])
def test_tile_state_between_launches(monkeypatch, chunks):
    """The listed tiles' listing and the fused chunks' counters outlive a launch, one per stream, and every
    launch leaves its counters at zero (no memset per product): products repeated on the default stream,
    on two other streams at once, and replayed as a CUDA graph recorded on a third all equal the
    reference; a stream's state goes when the stream does."""
    import gc
    import weakref

    import spla

    with tuning.override(sccsc_tiles=True, tile_chunks=chunks, tile_long=9, tile_chunk=7, listed_chunk=5):
        sr = semirings.get("plus_times")
        rng = np.random.default_rng(5)
        m, n = 300, 4000
        rows = np.concatenate([rng.integers(0, m, 30000), np.arange(m), np.arange(m)])
        cols = np.concatenate([rng.integers(0, n, 30000), np.full(m, 3), np.full(m, n - 1)])
        A = CSC((m, n), rows, cols, rng.integers(1, 4, len(rows)).astype(np.float64))
        u = rng.integers(0, 3, m).astype(np.float64)
        mask = rng.random(n) < 0.5
        want = reference(u, A, sr, False, mask)
        du, dmask = cp.asarray(u), cp.asarray(mask)

        def product(out=None):
            # y<mask, replace> = u +.* A
            return gpu.vxm(du, A, sr, dmask, False, None, out, out is not None, "scCSC")

        def counters(stream):
            """The stream's counters, read back (the listing's two, or the fused chunks' per column)."""
            if chunks == "listed":
                room, buf = gpu_tiles.LISTINGS[0][stream][-1]
                return cp.asnumpy(buf[3 * room:])
            key = next(k for k in A.kept if k[0] == "tile_done")
            return cp.asnumpy(A.kept[key][stream])

        for _ in range(3):
            np.testing.assert_array_equal(cp.asnumpy(product()), want)
        assert not counters(cp.cuda.get_current_stream()).any()
        if chunks == "listed":
            # a listing whose second kernel did not launch is dropped, and the next product gets a fresh one
            real = gpu_compile.spmv_module

            class Failing:
                def __init__(self, inner):
                    self.inner = inner

                def __getitem__(self, key):
                    if key != "listed_chunks":
                        return self.inner[key]

                    def fail(*args):
                        raise RuntimeError("launch failed")
                    return fail

            monkeypatch.setattr(gpu_compile, "spmv_module", lambda *a: Failing(real(*a)))
            with pytest.raises(RuntimeError, match="launch failed"):
                product()
            assert cp.cuda.get_current_stream() not in gpu_tiles.LISTINGS[0]
            monkeypatch.setattr(gpu_compile, "spmv_module", real)
            np.testing.assert_array_equal(cp.asnumpy(product()), want)
            assert not counters(cp.cuda.get_current_stream()).any()
        s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
        got = []
        for _ in range(4):
            for s in (s1, s2):
                with s:
                    got.append(product())
        s1.synchronize()
        s2.synchronize()
        for g in got:
            np.testing.assert_array_equal(cp.asnumpy(g), want)
        assert not counters(s1).any() and not counters(s2).any()
        y = cp.full(n, 7.0)
        step = spla.Replay(lambda: product(y), "gpu:0", name="tiles state")
        for _ in range(5):
            y.fill(7.0)
            step()
            np.testing.assert_array_equal(cp.asnumpy(y), want)
        assert step.mode == "graph"
        held = gpu_tiles.LISTINGS[0] if chunks == "listed" else next(v for k, v in A.kept.items() if k[0] == "tile_done")
        before = len(held)
        streams = [weakref.ref(s) for s in (s1, s2, step._stream)]
        del s1, s2, step, got
        gc.collect()
        # a dead stream's state is gone, a live one's kept (CuPy may hold on to a stream it last entered)
        dead = sum(ref() is None for ref in streams)
        assert dead >= 1 and len(held) == before - dead
        assert all(ref() in held for ref in streams if ref() is not None)


def test_tile_geometry_and_group():
    """The tiles' launch shape: a graph with enough tiles keeps tile_r and BLOCK; a small one gets narrower
    tiles and smaller blocks (every SM at least two); the lanes per kept column follow the mean short
    column (empty and long columns left out), a power of two in [1, 8]."""
    sms = launch.sm_count(0)
    t = tuning.current()
    assert gpu_tiles.tile_geometry(10**8, 0, t) == (t.tile_r, gpu_compile.BLOCK)
    R, block = gpu_tiles.tile_geometry(49151, 0, t)
    ntiles = -(-49151 // (32 * R))
    assert R < t.tile_r and (R == 1 or ntiles >= t.tile_min_warps * sms)
    assert block == 32 or -(-ntiles // (block // 32)) >= 2 * sms
    assert gpu_tiles.tile_geometry(1, 0, t) == (1, 32)
    lengths = {"grid": [4] * 100, "ba": [8] * 90 + [500] * 10 + [0] * 50, "dense": [33] * 10, "ws": [12] * 10,
               "wide": [32] * 10}
    want = {"grid": 1, "ba": 2, "dense": 1, "ws": 4, "wide": 8}
    for name, lens in lengths.items():
        colptr = cp.asarray(np.concatenate([[0], np.cumsum(lens)]).astype(np.int32))
        A = Kept()
        assert gpu_tiles.tile_group(cp, A, colptr, t) == want[name], name
        assert list(A.kept.values()) == [want[name]]  # cached on the matrix
    with tuning.override(tile_group=4) as t4:
        assert gpu_tiles.tile_group(cp, Kept(), colptr, t4) == 4


@pytest.mark.parametrize("rows,order", [(True, "auto"), (True, True), (True, False), (False, "auto")])
@pytest.mark.parametrize("name,dtype", CASES)
def test_vecsc_rows_blocks(caplog, rows, order, name, dtype):
    """k-blocks whose rows are whole 16-byte pieces (1, 2, 8 and 40 pieces: one lane per column up to
    32 lanes each looping over pieces) read in pieces (columns walked longest first or in index
    order), or component by component; every mask/accum/out configuration; columns longer than the
    rows' split threshold, every column then cut into length-sorted work items of both lengths
    (rows_chunk, rows_heavy_chunk), with tiny grids; a block that is not 16-byte aligned falls back to
    the scalar loads."""
    sr = semirings.get(name)
    rng = np.random.default_rng(22)
    per = 16 // np.dtype(dtype).itemsize
    configs = itertools.cycle(_configs(dtype))
    with tuning.override(vecsc_rows=rows, rows_order=order):
        for pieces in (1, 2, 8, 40):
            for mname in ("rect", "heavy", "loops"):
                A = matrix(mname, dtype)
                for _ in range(6 if pieces == 8 else 2):
                    run_case(A, sr, dtype, "veCSC", pieces * per, next(configs), rng)
    for share, chunk in ((2.0, 7), (0.0, 11)):  # never / always the heavy chunks
        with tuning.override(vecsc_rows=rows, rows_order=order, rows_long=30, rows_chunk=7, rows_heavy_chunk=11,
                             rows_heavy_min_chunks=0.0, max_blocks=1, rows_heavy_share=share) as t:
            A = matrix("heavy", dtype)
            assert layouts.rows_chunk_of(A, A.colptr, launch.rows_group(8 * per, np.dtype(dtype)), 0, t) == chunk
            caplog.clear()
            with caplog.at_level(logging.DEBUG, logger="spla"):
                for config in _configs(dtype):
                    run_case(A, sr, dtype, "veCSC", 8 * per, config, rng)
        if rows:  # the DEBUG line names the items' length
            assert any(f"items of at most {chunk} entries" in r.getMessage() for r in caplog.records), caplog.text
    k = 8 * per
    ident = sr.add.identity(np.dtype(dtype))
    u = _vector(rng, dtype, (A.shape[0] * k + 1,), ident)
    u_view = cp.asarray(u)[1:].reshape(A.shape[0], k)  # data pointer off a 16-byte boundary
    with tuning.override(vecsc_rows=rows, rows_order=order, rows_long=30, rows_chunk=7, rows_heavy_chunk=11,
                         rows_heavy_min_chunks=0.0, max_blocks=1, rows_heavy_share=0.0) as t:
        assert not launch.rows_fit(u_view, u_view, k, np.dtype(dtype), t)
        want = reference(u[1:].reshape(A.shape[0], k), A, sr)
        got = gpu.vxm(u_view, A, sr, None, False, None, None, False, "veCSC")
    np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("long", [30, 10**9])
@pytest.mark.parametrize("name,pattern", [("plus_times", True), ("plus_first", False), ("plus_first", True)])
def test_rows_signed_zero_inputs_are_skipped(long, name, pattern):
    """Row pieces with signed zeros: inputs of -0.0 and +0.0 (both plus's identity) are skipped, so a
    column of only such inputs is +0.0, bit for bit as the reference, with whole columns and with
    work items (rows_long 30: "heavy" has longer columns), pattern and valued."""
    sr = semirings.get(name)
    rng = np.random.default_rng(41)
    for mname in ("rect", "heavy", "loops"):
        A = matrix(mname, np.float32, pattern)
        u = rng.integers(-3, 4, (A.shape[0], 8)).astype(np.float32)
        u[rng.random(u.shape) < 0.5] = -0.0
        u[: A.shape[0] // 2, 3] = -0.0  # column 3 of the block: mostly negative zeros
        for accum, out in ((None, None), ("plus", _values(rng, np.float32, (A.shape[1], 8)))):
            want = reference(u, A, sr, accum=accum, out=None if out is None else out.copy())
            with tuning.override(rows_long=long, rows_chunk=7):
                got = cp.asnumpy(gpu.vxm(cp.asarray(u), A, sr, None, False, accum,
                                         None if out is None else cp.asarray(out), False, "veCSC"))
            np.testing.assert_array_equal(got, want)
            assert (np.signbit(got) == np.signbit(want)).all(), f"{name} {mname} accum={accum}"


@pytest.mark.parametrize("worklist", [True, False, "auto"])
def test_push_sparse_inputs_and_long_rows(worklist):
    """push with inputs that are mostly the identity (the input worklist compacts the others; more
    inputs than the device holds threads, so its kernels loop), rows longer than the split threshold
    (one warp per chunk), and out/accum/replace/mask: ADD straight into out when accum is the monoid,
    a buffer and the merge otherwise."""
    settings_ = dict(mask_worklist=worklist, push_long=1024, push_chunk=97)  # chunks that do not divide the rows
    rng = np.random.default_rng(12)
    m, n, nnz = 700_000, 3000, 2_800_000  # m inputs (rows of A), n outputs
    rows = np.concatenate([rng.integers(0, m, nnz), np.full(n, 17), np.full(n, m - 1)])  # two long rows
    cols = np.concatenate([rng.integers(0, n, nnz), np.arange(n), np.arange(n)])
    A = CSC((m, n), rows, cols, _values(rng, np.float64, len(rows)))
    split = layouts.long_split_of(cp, A.T, A.T.colptr, launch.push_group_size(A.T), 1024, 97)
    assert split["nlong"] == 2 and split["nchunks"] == 2 * -(-n // 97)
    for name, dtype, other in (("plus_times", np.float64, "max"), ("min_plus", np.int32, "plus"),
                               ("lor_land", np.bool_, "second")):
        sr = semirings.get(name)
        ident = sr.add.identity(np.dtype(dtype))
        same = gpu_compile.SAME_ACCUM[sr.add.name]
        for live in (0.0, 0.001, 0.3, 1.0):
            u = _vector(rng, dtype, (m,), ident)
            u[rng.random(m) >= live] = ident
            if live:
                u[17] = u[m - 1] = 1  # the long rows contribute
            mask = rng.random(n) < 0.5
            for use_mask, complement, accum, use_out, replace in (
                    (False, False, None, False, False), (True, True, None, False, False),
                    (True, False, same, True, False), (False, False, same, True, False),
                    (True, True, other, True, False), (True, False, None, True, True)):
                out = _values(rng, dtype, (n,)) if use_out else None
                want = reference(u, A, sr, False, mask if use_mask else None, complement, accum, out, replace)
                with tuning.override(**settings_):
                    got = gpu.vxm(cp.asarray(u), A, sr, cp.asarray(mask) if use_mask else None, complement, accum,
                                  None if out is None else cp.asarray(out), replace, "push")
                np.testing.assert_array_equal(cp.asnumpy(got), want,
                                              err_msg=f"push {name} live={live} mask={use_mask} "
                                                      f"complement={complement} accum={accum} out={use_out}")


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.bool_, np.float32])
def test_values_are_cast_to_the_domain(kernel, dtype):
    rng = np.random.default_rng(4)
    A = CSC((50, 60), rng.integers(0, 50, 400), rng.integers(0, 60, 400), rng.integers(0, 4, 400).astype(np.float64))
    name = "lor_land" if dtype == np.bool_ else "plus_times"
    run_case(A, semirings.get(name), dtype, kernel, None, ("none", False, None, False, False), rng)
    run_case(A, semirings.get(name), dtype, kernel, 2, ("none", False, None, False, False), rng)


@pytest.mark.parametrize("kernel", KERNELS)
def test_broadcast_mask_view_and_out_aliasing_u(kernel):
    rng = np.random.default_rng(5)
    A = matrix("loops", np.float64)
    sr = semirings.get("plus_times")
    n, k = A.shape[1], 6
    u = _vector(rng, np.float64, (n, k), 0.0)
    m = rng.random(n) < 0.5
    mask_view = cp.broadcast_to(cp.asarray(m)[:, None], (n, k))  # strides (1, 0)
    got = gpu.vxm(cp.asarray(u), A, sr, mask_view, False, None, None, False, kernel)
    np.testing.assert_array_equal(cp.asnumpy(got), reference(u, A, sr, mask=np.broadcast_to(m[:, None], (n, k))))
    # out is u itself: the kernel must not read entries it has already overwritten
    expected = reference(u, A, sr, accum="plus", out=u.copy())
    ud = cp.array(u)
    got = gpu.vxm(ud, A, sr, None, False, "plus", ud, False, kernel)
    assert got is ud
    np.testing.assert_array_equal(cp.asnumpy(got), expected)


def test_empty_block_and_unsupported():
    A = matrix("rect", np.float32)
    u = cp.zeros((A.shape[0], 0), dtype=np.float32)
    for kernel in KERNELS:
        assert gpu.vxm(u, A, "plus_times", None, False, None, None, False, kernel).shape == (A.shape[1], 0)
    weird = semirings.Semiring(semirings.plus, semirings.BinaryOp("weird", lambda x, a, xp: x), [np.float32])
    ok, why = gpu.supports("scCSC", weird, np.float32)
    assert not ok and "weird" in why
    with pytest.raises(KernelUnavailable, match="weird"):
        gpu.vxm(cp.ones(A.shape[0], np.float32), A, weird, None, False, None, None, False, "scCSC")
    with pytest.raises(KernelUnavailable):
        gpu.vxm(cp.ones(A.shape[0], np.float16), A, "plus_times", None, False, None, None, False, "veCSC")


@settings(max_examples=40, deadline=None)
@given(m=st.integers(0, 70), n=st.integers(0, 70), density=st.floats(0, 0.5), k=st.sampled_from([None, 1, 2, 32]),
       case=st.sampled_from(CASES), pattern=st.booleans(), seed=st.integers(0, 2**32 - 1),
       config=st.integers(0, 10**6))
def test_random_matrices_agree(m, n, density, k, case, pattern, seed, config):
    rng = np.random.default_rng(seed)
    name, dtype = case
    dense = rng.random((m, n)) < density
    rows, cols = np.nonzero(dense)
    A = CSC((m, n), rows, cols, None if pattern else _values(rng, dtype, len(rows)))
    configs = _configs(dtype)
    for kernel in KERNELS:
        run_case(A, semirings.get(name), dtype, kernel, k, configs[config % len(configs)], rng)


# ---------------------------------------------------------------------------------------------
# Bit words
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.int64, np.int32, np.uint8, np.int8, np.bool_])
@pytest.mark.parametrize("shape", [(0,), (1,), (1000,), (37, 5)])
def test_popcount(dtype, shape):
    rng = np.random.default_rng(6)
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    if info is None:
        X = rng.random(shape) < 0.5
    else:
        X = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    got = gpu.popcount(cp.asarray(X))
    assert got.dtype == np.int32 and got.shape == X.shape
    bits = X.view(np.dtype(f"u{X.itemsize}"))  # the two's-complement bit pattern (np.bitwise_count: |x|)
    np.testing.assert_array_equal(cp.asnumpy(got), np.bitwise_count(bits).astype(np.int32))


@pytest.mark.parametrize("n,W", [(0, 3), (1, 1), (100, 1), (100, 3), (50, 17), (20, 40), (5, 0)])
def test_weighted_rowsum(n, W):
    rng = np.random.default_rng(n * 100 + W)
    X = rng.integers(0, 2**64, (n, W), dtype=np.uint64, endpoint=False)
    X[rng.random((n, W)) < 0.2] = 0
    if n and W:
        X[0, 0] = np.uint64(2**64 - 1)
    weights = rng.random(64 * W)
    bits = np.unpackbits(X.view(np.uint8).reshape(n, W, 8), axis=2, bitorder="little").reshape(n, 64 * W)
    got = gpu.weighted_rowsum(cp.asarray(X), cp.asarray(weights))
    assert got.dtype == np.float64 and got.shape == (n,)
    np.testing.assert_allclose(cp.asnumpy(got), bits @ weights, rtol=1e-12, atol=1e-12)
    cnt = gpu.weighted_rowsum(cp.asarray(X), None)
    assert cnt.dtype == np.int64
    np.testing.assert_array_equal(cp.asnumpy(cnt), bits.sum(axis=1))


# ---------------------------------------------------------------------------------------------
# Signed zeros in min / max, and the module settings the kernels cannot take
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kernel", ["scCSC", "veCSC", "scCOOC"])
@pytest.mark.parametrize("name", ["min_first", "max_first"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("first_zero", [0.0, -0.0])
def test_min_max_signed_zero_tie_matches_cpu(kernel, name, dtype, first_zero):
    """A tie between +0.0 and -0.0 gives the second operand, as NumPy (the CPU backend) does: one column
    of two entries is reduced in entry order by each kernel (one thread; one warp's shuffle; scCOOC's
    segmented shuffle within the warp, then one atomic)."""
    import scipy.sparse as sp

    import spla

    S = sp.csc_array(np.ones((2, 1)))
    u = np.array([first_zero, -first_zero], dtype=dtype)
    want = spla.vxm(u, spla.Matrix.from_scipy(S, device="cpu"), name)
    got = cp.asnumpy(spla.vxm(cp.asarray(u), spla.Matrix.from_scipy(S, device="gpu:0"), name, kernel=kernel))
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got).tolist() == np.signbit(want).tolist(), (kernel, name, u.tolist(), got, want)


@pytest.mark.parametrize("setting,value", [("tile_r", 16), ("tile_r", 3), ("tile_group", 64), ("tile_group", 6)])
def test_tile_settings_beyond_the_kernel_are_refused(setting, value):
    """spla_sccsc_tiles handles tiles of at most 32 * 8 columns and power-of-two groups: a setting beyond
    them is a ValueError naming it, raised before any product runs, not columns left uncomputed."""
    import scipy.sparse as sp

    import spla

    S = sp.random(300, 2048, density=0.02, format="csc", random_state=11, dtype=np.float64)
    A = spla.Matrix.from_scipy(S, directed=True, device="gpu:0")
    mask = cp.asarray(np.random.default_rng(7).random(2048) < 0.5)
    with tuning.override(sccsc_tiles=True, tile_min_warps=0):
        with pytest.raises(ValueError, match=rf"spla\.tuning: {setting} must be one of .*, got {value}"):
            with tuning.override(**{setting: value}):
                spla.vxm(cp.ones(300, dtype=np.float32), A, "plus_times", mask=mask, kernel="scCSC")
        assert tuning.current().sccsc_tiles is True  # the refused setting left the others in force
