"""The GPU backend: semiring SpMV kernels (TurboBC's scCSC, veCSC, scCOOC, and push) through CuPy.

The CUDA source lives in ``spla/kernels/spmv.cuh`` (SpMV) and ``spla/kernels/bits.cuh`` (bit
words).  Kernels are C++ templates over (ADD monoid, MUL operator, domain T, index type I,
pattern-or-valued); this module compiles them at run time with CuPy's NVRTC path
(``cupy.RawModule(..., name_expressions=...)``), each kernel of an (ADD, MUL, T, I, pattern, device)
as a module of its own when first used, cached for the life of the process (CuPy also keeps the
compiled binaries in its on-disk kernel cache).  See ``docs/kernels.md`` for the thread
mappings and the bytes moved per arc.

Everything up to the kernel launch is plain Python/NumPy, so :func:`supports`,
:func:`name_expressions`, :func:`vecsc_group_size` and :func:`push_group_size` work without
CuPy (the selection logic and ``tests/test_kernels_compile.py`` use them on machines with no GPU).

Entry points (called by ``spla.ops`` / ``spla.bits`` after validation):
    vxm(u, A, semiring, mask, complement, accum, out, replace, kernel, swap=False)
    supports(kernel, semiring, dtype) -> (bool, reason)
    popcount(X), weighted_rowsum(X, weights)
"""

from __future__ import annotations

import functools
import logging
import math
import weakref
from pathlib import Path

import numpy as np

from .. import device as _dev
from .. import semirings as _sr
from .. import tuning as _tuning
from ..errors import DomainMismatch, KernelUnavailable, NoGPUError, UnknownNameError

log = logging.getLogger("spla")

KERNELS = ("scCSC", "veCSC", "scCOOC", "push")
#: Kernels that reduce with ADD's atomics (the others reduce in registers).
ATOMIC_KERNELS = ("scCOOC", "push")
KERNEL_DIR = Path(__file__).resolve().parent.parent / "kernels"
SPMV_SOURCE = KERNEL_DIR / "spmv.cuh"
BITS_SOURCE = KERNEL_DIR / "bits.cuh"
BLOCK = 256  # threads per block of every launch (a multiple of 32; SPLA_BLOCK in spmv.cuh)
NVRTC_OPTIONS = ("-std=c++17", f"-DSPLA_BLOCK={BLOCK}")
WORKLIST_PER = 16  # columns per thread of spla_mask_worklist (SPLA_WORKLIST_PER in spmv.cuh)
WINDOW = 32  # columns per window of spla_vecsc_windows (the kernel's bit words)
WINDOWS_WARPS_PER_SM = 16  # spla_vecsc_windows' __launch_bounds__(256, 2)

# Every tunable of this backend (split lengths, variant switches, rule thresholds) is a field of
# spla.tuning.Tuning, read once per call with spla.tuning.current(); docs/decisions/tuning.md gives
# the reason for each value.

# ---------------------------------------------------------------------------------------------
# Names: NumPy dtype -> C type, monoid/operator name -> C++ functor, and where each is defined.
# ---------------------------------------------------------------------------------------------
C_TYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}
INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}

_BOOL = (np.dtype(np.bool_),)
_INTS = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ALL = _BOOL + _INTS + _FLOATS

# monoid name -> (functor, domains the functor and its scCOOC atomic are written for)
ADD_FUNCTORS = {
    "plus": ("spla_add_plus", _INTS + _FLOATS),
    "min": ("spla_add_min", _ALL),
    "max": ("spla_add_max", _ALL),
    "lor": ("spla_add_lor", _BOOL),
    "bor": ("spla_add_bor", _BOOL + _INTS),
    "any": ("spla_add_any", _ALL),
}
# operator name -> (functor, domains)
MUL_FUNCTORS = {
    "times": ("spla_mul_times", _ALL),
    "plus": ("spla_mul_plus", _ALL),
    "first": ("spla_mul_first", _ALL),
    "second": ("spla_mul_second", _ALL),
    "pair": ("spla_mul_pair", _ALL),
    "land": ("spla_mul_land", _ALL),
    "min": ("spla_mul_min", _ALL),
    "max": ("spla_mul_max", _ALL),
    "band": ("spla_mul_band", _BOOL + _INTS),
}
ACCUM_CODES = {None: 0, "plus": 1, "min": 2, "max": 3, "lor": 4, "bor": 5, "first": 6, "second": 7}
#: monoid -> the accum that is the same operation: an atomic kernel may ADD straight into out then
SAME_ACCUM = {"plus": "plus", "min": "min", "max": "max", "lor": "lor", "bor": "bor"}
FRESH, REPLACE = 1, 2
MASK_NONE, MASK_MASK, MASK_COMPLEMENT = 0, 1, 2


def _atomic_used(add, dtype):
    """How scCOOC performs ``t[j] = ADD(t[j], v)`` for this monoid and domain (for reasons/docs)."""
    if dtype == np.bool_:
        return "atomicOr/atomicAnd on the containing 32-bit word"
    if add == "plus":
        return "atomicAdd (unsigned long long, two's complement)" if dtype == np.int64 else "atomicAdd"
    if add in ("min", "max", "any"):
        op = "atomicMax" if add in ("max", "any") else "atomicMin"
        return f"an atomicCAS loop ({op} has no {dtype} version)" if dtype.kind == "f" else op
    return "atomicOr"


def swap_op(mul_name, swap):
    """The operator computing MUL(a, x) from MUL(x, a): first <-> second; the others commute."""
    if swap and mul_name == "first":
        return "second"
    if swap and mul_name == "second":
        return "first"
    return mul_name


def supports(kernel, semiring, dtype):
    """Whether GPU ``kernel`` can run ``semiring`` on domain ``dtype``: ``(ok, reason)``.

    Every kernel runs every (monoid, operator, dtype) that has a C++ functor: scCOOC uses
    native atomics where they exist and CAS-based ones elsewhere (float min/max, bool or/and,
    int64 add through the unsigned 64-bit atomicAdd).  ``False`` only for unknown kernel
    names, dtypes without a C type (float16, complex, ...) and monoids/operators that have no
    functor in ``spla/kernels/spmv.cuh`` (a user-defined Semiring).
    """
    if kernel not in KERNELS:
        return False, f"unknown GPU kernel {kernel!r}; the GPU kernels are {', '.join(KERNELS)}"
    try:
        sr = _sr.get(semiring)
    except UnknownNameError as e:
        return False, str(e)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return False, f"{dtype!r} is not a dtype"
    if dtype not in C_TYPES:
        return False, (f"the GPU kernels have no C type for {dtype}; "
                       f"they run {', '.join(str(d) for d in C_TYPES)}")
    add, mul = sr.add.name, sr.mul.name
    if add not in ADD_FUNCTORS:
        return False, f"monoid {add!r} has no CUDA functor (add one to spla/kernels/spmv.cuh and ADD_FUNCTORS)"
    if mul not in MUL_FUNCTORS:
        return False, f"operator {mul!r} has no CUDA functor (add one to spla/kernels/spmv.cuh and MUL_FUNCTORS)"
    if dtype not in ADD_FUNCTORS[add][1]:
        return False, f"the CUDA monoid {add} is not defined on {dtype}"
    if dtype not in MUL_FUNCTORS[mul][1]:
        return False, f"the CUDA operator {mul} is not defined on {dtype}"
    if kernel in ATOMIC_KERNELS:
        return True, f"{kernel} reduces with {_atomic_used(add, dtype)}"
    return True, f"{kernel} reduces in registers, no atomics"


@functools.lru_cache(maxsize=4096)
def _supports_cached(kernel, sr, dtype):
    return supports(kernel, sr, dtype)


# ---------------------------------------------------------------------------------------------
# Template instantiation names
# ---------------------------------------------------------------------------------------------
def name_expressions(add, mul, dtype, index_dtype, pattern):
    """NVRTC name expressions of the module for one (ADD, MUL, T, I, pattern).

    ``add``/``mul``: monoid/operator names (after :func:`swap_op`).  Returns a dict
    ``{"scCSC", "scCSC_tiles", "scCSC_tiles_listed", "listed_chunks", "veCSC", "veCSC_block", "veCSC_rows",
    "veCSC_rows_ordered", "veCSC_rows_items", "veCSC_long_chunks", "veCSC_long_finish", "scCOOC", "push",
    "push_long_chunks", "merge", "mask_worklist", "input_worklist"} -> "spla_...<...>"``, and "veCSC_windows"
    for plus over float32 with MUL(x, a) = x on a pattern A (:func:`_windows_semiring`).
    """
    a, m = ADD_FUNCTORS[add][0], MUL_FUNCTORS[mul][0]
    t = C_TYPES[np.dtype(dtype)]
    i = INDEX_TYPES[np.dtype(index_dtype)]
    p = "true" if pattern else "false"
    args = f"<{a}, {m}, {t}, {i}, {p}>"
    return {
        "scCSC": f"spla_sccsc{args}",
        "veCSC": f"spla_vecsc{args}",
        "veCSC_block": f"spla_vecsc_block{args}",
        "scCSC_tiles": f"spla_sccsc_tiles<{a}, {m}, {t}, {i}, {p}, false>",
        "scCSC_tiles_listed": f"spla_sccsc_tiles<{a}, {m}, {t}, {i}, {p}, true>",
        "listed_chunks": f"spla_listed_chunks{args}",
        "veCSC_rows": f"spla_vecsc_rows<{a}, {m}, {t}, {i}, {p}, false>",
        "veCSC_rows_ordered": f"spla_vecsc_rows<{a}, {m}, {t}, {i}, {p}, true>",
        "veCSC_rows_items": f"spla_vecsc_rows_items{args}",
        "veCSC_long_chunks": f"spla_vecsc_long_chunks{args}",
        "veCSC_long_finish": f"spla_vecsc_long_finish<{a}, {t}, {i}>",
        "scCOOC": f"spla_sccooc{args}",
        "push": f"spla_push{args}",
        "push_long_chunks": f"spla_push_long_chunks{args}",
        "merge": f"spla_merge<{a}, {t}>",
        "mask_worklist": f"spla_mask_worklist<{a}, {t}, {i}>",
        "input_worklist": f"spla_input_worklist<{a}, {t}, {i}>",
        # one instantiation per index type, named in every float32 plus_times/plus_first pattern module
        **({"veCSC_windows": f"spla_vecsc_windows<{i}>", "windows_scan": "spla_windows_scan<float>"}
           if _windows_semiring(add, mul, dtype, pattern) else {}),
    }


def _windows_semiring(add, mul, dtype, pattern):
    """Whether spla_vecsc_windows computes MUL's product: plus over float32, MUL(x, a) = x on a pattern A."""
    return add == "plus" and mul in ("times", "first") and np.dtype(dtype) == np.float32 and bool(pattern)


def all_name_expressions(registered_only=True):
    """Every name expression the backend can request (sorted, unique).

    registered_only: the registered semirings on their domains, with MUL(a, x) variants
    (first <-> second) for mxv; False: every (monoid, operator, dtype) :func:`supports` accepts.
    """
    combos = set()
    if registered_only:
        for name in _sr.names():
            sr = _sr.get(name)
            for dt in sr.dtypes:
                if supports("scCSC", sr, dt)[0]:
                    for swap in (False, True):
                        combos.add((sr.add.name, swap_op(sr.mul.name, swap), np.dtype(dt)))
    else:
        for add, (_, adts) in ADD_FUNCTORS.items():
            for mul, (_, mdts) in MUL_FUNCTORS.items():
                for dt in adts:
                    if dt in mdts:
                        combos.add((add, mul, dt))
    names = set()
    for add, mul, dt in combos:
        for idx in INDEX_TYPES:
            for pattern in (False, True):
                names.update(name_expressions(add, mul, dt, idx, pattern).values())
    names.add("spla_weighted_rowsum<true>")
    names.add("spla_weighted_rowsum<false>")
    return sorted(names)


def vecsc_group_size(A, k=1, fill_threads=None, t=None):
    """Lanes per column of veCSC: a power of two in {2, 4, 8, 16, 32}.

    k == 1: the power of two nearest (in log scale) to the mean column length / vecsc_lane_entries,
    clamped to [2, 32], so that each lane walks about that many entries of a typical column; then
    doubled while ncols * G < ``fill_threads`` (the threads the device holds at once; None:
    vecsc_fill_threads), so that a graph of few columns spreads each over more lanes instead of
    leaving the device idle.  The tuning's vecsc_group overrides.  k > 1: lanes span the k
    components, G = min(32, next power of two >= k).  ``t``: the spla.tuning.Tuning (None: current).
    """
    if k > 1:
        return int(min(32, max(2, 1 << (int(k) - 1).bit_length())))
    t = _tuning.current() if t is None else t
    if t.vecsc_group is not None:
        return int(t.vecsc_group)
    ncols = int(A.shape[1])
    mean = A.nnz / ncols if ncols else 0.0
    g = 2
    if mean > 0:
        g = int(min(32, max(2, 2 ** round(math.log2(mean / t.vecsc_lane_entries)))))
    fill = t.vecsc_fill_threads if fill_threads is None else int(fill_threads)
    while g < 32 and ncols * g < fill:
        g *= 2
    return g


def push_group_size(R, t=None):
    """Lanes per input of push (k == 1): the smallest power of two >= R's mean column length (the
    out-arcs per input), clamped to [2, 32] (the tuning's vecsc_group overrides, as for veCSC).  Its
    best group follows the frontier's size, which the host does not know at launch
    (docs/decisions/tuning.md#vecsc_group)."""
    t = _tuning.current() if t is None else t
    if t.vecsc_group is not None:
        return int(t.vecsc_group)
    ncols = R.shape[1]
    mean = R.nnz / ncols if ncols else 0.0
    need = max(1, math.ceil(mean))
    return int(min(32, max(2, 1 << (need - 1).bit_length())))


def vecsc_long_split(xp, colptr, long_len, chunk):
    """The long-column split of veCSC for one CSC column pointer (array module ``xp``).

    Returns None when no column has more than ``long_len`` entries, else a dict with
      long_cols   (nlong,) colptr.dtype: the columns with more than long_len entries (ascending)
      chunk_col   (nchunks,) int32: index into long_cols of each chunk's column
      chunk_begin, chunk_end (nchunks,) colptr.dtype: the chunk's entries [begin, end), at most
                  ``chunk`` consecutive entries of its column; the chunks of a column tile it
      col_chunk0  (nlong+1,) int32: the chunks of long column c are [col_chunk0[c], col_chunk0[c+1])
      col_slot    (nlong,) int32: the column's index among those of more than one chunk, or -1
      nlong, nchunks, nmulti (columns of more than one chunk), long_len: ints
    Vectorised (no Python loop over columns).
    """
    if long_len is None or long_len <= 0 or chunk <= 0:
        return None
    idx_dtype = colptr.dtype
    cp64 = colptr.astype(np.int64)
    lens = cp64[1:] - cp64[:-1]
    long_cols = xp.nonzero(lens > long_len)[0]
    nlong = int(long_cols.shape[0])
    if nlong == 0:
        return None
    starts = cp64[long_cols]
    ends = cp64[long_cols + 1]
    nch = (ends - starts + (chunk - 1)) // chunk  # >= 1 each
    last = xp.cumsum(nch)  # inclusive: chunks of long column c are [last[c] - nch[c], last[c])
    nchunks = int(last[-1])
    q = xp.arange(nchunks, dtype=np.int64)
    col = xp.searchsorted(last, q, side="right")  # the long column of chunk q
    within = q - (last[col] - nch[col])
    begin = starts[col] + within * chunk
    end = xp.minimum(begin + chunk, ends[col])
    multi = nch > 1
    nmulti = _dev.count_true(multi)
    col_slot = xp.full(nlong, -1, dtype=np.int32)
    col_slot[multi] = xp.arange(nmulti, dtype=np.int32)
    return {"long_cols": long_cols.astype(idx_dtype), "chunk_col": col.astype(np.int32),
            "chunk_begin": begin.astype(idx_dtype), "chunk_end": end.astype(idx_dtype),
            "col_chunk0": xp.concatenate([xp.zeros(1, dtype=np.int32), last.astype(np.int32)]),
            "col_slot": col_slot, "nmulti": nmulti,
            "nlong": nlong, "nchunks": nchunks, "long_len": int(long_len)}


def interleaved_chunks(xp, split):
    """The chunks of a :func:`vecsc_long_split` in interleaved order, for the fused tiles: every long
    column's first chunk (columns ascending), then every second chunk, and so on -- so that the chunks
    one warp tests belong to different columns, and a kept hub column's chunks are spread over many
    warps instead of queueing in one.

    Returns a dict of (nchunks,) arrays in that order:
      chunk_j      colptr.dtype: the chunk's output column (long_cols[chunk_col])
      chunk_begin, chunk_end  colptr.dtype: its entries [begin, end)
      chunk_col    int32: its long column's index (into col_slot, col_chunk0)
      chunk_part   int32: its position in the column-major order, col_chunk0[col] + its rank in the
                   column (where the fused kernel leaves its partial)
    """
    col = split["chunk_col"].astype(np.int64)
    q = xp.arange(split["nchunks"], dtype=np.int64)
    within = q - split["col_chunk0"][:-1].astype(np.int64)[col]
    order = xp.argsort(within * split["nlong"] + col)  # keys are distinct: (rank, column) ascending
    return {"chunk_j": split["long_cols"][col[order]], "chunk_begin": split["chunk_begin"][order],
            "chunk_end": split["chunk_end"][order], "chunk_col": split["chunk_col"][order],
            "chunk_part": order.astype(np.int32)}


def rows_order(xp, colptr, min_cv, short_len):
    """The column order of spla_vecsc_rows for one CSC column pointer: the columns by length, longest
    first (a stable sort: equal lengths keep their order), as colptr's dtype; None when the lengths
    of the columns of at most ``short_len`` entries (the tuning's rows_long) have a coefficient of
    variation (std / mean) of at most ``min_cv`` (nearly equal lengths: the index order loses
    nothing) or there are none."""
    lens = (colptr[1:] - colptr[:-1]).astype(np.int64)
    short = lens[lens <= short_len].astype(np.float64)
    if short.size == 0:
        return None
    # float64 sums only (CuPy's mean of int64 and std compile on first use, std runs in one block)
    mean = float(short.sum()) / short.size
    if mean == 0.0 or math.sqrt(float(((short - mean) ** 2).sum()) / short.size) / mean <= min_cv:
        return None
    ncols = int(lens.shape[0])
    # distinct keys (length descending, then index), so any sort gives the same order
    return xp.argsort(-lens * ncols + xp.arange(ncols, dtype=np.int64)).astype(colptr.dtype)


def rows_chunk(colptr, long_len, groups, t=None):
    """Item length of a k-block row-piece product (spla_vecsc_rows_items), or None when no column has
    more than ``long_len`` entries (spla_vecsc_rows walks whole columns then).  One host sync.

    colptr (ncols+1,) int32/int64, NumPy or CuPy: a CSC column pointer; long_len, groups: ints; t:
    the spla.tuning.Tuning (None: current).  With L = the entries of the columns longer than
    ``long_len`` (L > 0) and nnz = all entries: rows_heavy_chunk when L >= rows_heavy_share * nnz and
    L >= rows_heavy_min_chunks * groups * rows_heavy_chunk (enough chunks for ``groups`` resident
    groups of lanes), else rows_chunk."""
    t = _tuning.current() if t is None else t
    lens = (colptr[1:] - colptr[:-1]).astype(np.int64)
    nnz = int(lens.sum())
    long_entries = int(lens[lens > long_len].sum())
    if long_entries == 0:
        return None
    heavy = (long_entries >= t.rows_heavy_share * nnz
             and long_entries >= t.rows_heavy_min_chunks * groups * t.rows_heavy_chunk)
    return int(t.rows_heavy_chunk if heavy else t.rows_chunk)


def rows_items(xp, colptr, chunk):
    """The work items of spla_vecsc_rows_items for one CSC column pointer (array module ``xp``).

    colptr (ncols+1,) int32/int64; chunk >= 1.  Every column is cut into items of at most ``chunk``
    consecutive entries (an empty column is one empty item), and the items are sorted by length,
    longest first (ties: column, then position).  Returns a dict:
      item_col, item_begin, item_end (nitems,) colptr.dtype: item q is entries [begin, end) of column
                  item_col[q]
      item_multi  (nitems,) uint8: 1 when the item's column has several items
      multi_cols  (nmc,) int64: the columns of several items (ascending)
      nitems: int
    Vectorised (no Python loop over columns)."""
    i64 = np.int64
    c64 = colptr.astype(i64)
    lens = c64[1:] - c64[:-1]
    ncols = int(lens.shape[0])
    nch = xp.maximum(1, (lens + (chunk - 1)) // chunk)
    last = xp.cumsum(nch)  # inclusive: the items of column j are [last[j] - nch[j], last[j])
    nitems = int(last[-1]) if ncols else 0
    q = xp.arange(nitems, dtype=i64)
    col = xp.searchsorted(last, q, side="right")
    begin = c64[col] + (q - (last[col] - nch[col])) * chunk
    end = xp.minimum(begin + chunk, c64[col + 1])
    order = xp.argsort(-(end - begin) * max(1, nitems) + q)  # distinct keys: length descending, then q
    col, begin, end = col[order], begin[order], end[order]
    return {"item_col": col.astype(colptr.dtype), "item_begin": begin.astype(colptr.dtype),
            "item_end": end.astype(colptr.dtype), "item_multi": (nch[col] > 1).astype(np.uint8),
            "multi_cols": xp.flatnonzero(nch > 1).astype(i64), "nitems": nitems}


def window_lists(xp, colptr, rowidx, nrows, width=WINDOW):
    """The distinct rows of every window of ``width`` consecutive columns of a CSC pattern (array module
    ``xp``): what spla_vecsc_windows walks.

    colptr (ncols+1,) int32/int64 and rowidx (nnz,) of one CSC matrix without duplicate entries (rows
    in any order within a column); nrows: A's row count; 1 <= width <= 32.  Window w holds columns
    width*w .. width*w + width - 1, nwin = ceil(ncols / width).  Returns a dict:
      win_ptr  (nwin+1,) colptr.dtype: window w's rows are p in [win_ptr[w], win_ptr[w+1])
      win_rows (total,) int32: the distinct rows stored in the window, ascending
      win_bits (total,) uint32: bit b set when A[win_rows[p], width*w + b] is stored
      reuse    float: entries per distinct (window, row), nnz / total (0.0 without entries)
    One sort of nnz 64-bit keys (window, row, column in window); no Python loop over columns."""
    i64 = np.int64
    if not 1 <= width <= 32:
        raise ValueError(f"window width must be 1..32 (bits of a word), got {width}")
    ncols = int(colptr.shape[0]) - 1
    nnz = int(rowidx.shape[0])
    nwin = -(-ncols // width)
    c64 = colptr.astype(i64)
    col = xp.searchsorted(c64[1:], xp.arange(nnz, dtype=i64), side="right")
    key = xp.sort(((col // width) * nrows + rowidx.astype(i64)) * width + col % width)
    bit = xp.left_shift(xp.ones(nnz, dtype=np.uint64), (key % width).astype(np.uint64))
    key //= width  # window * nrows + row
    first = xp.ones(nnz, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    starts = xp.flatnonzero(first)
    # the bits of one (window, row) are distinct powers of two: their OR is their sum
    csum = xp.zeros(nnz + 1, dtype=np.uint64)
    xp.cumsum(bit, out=csum[1:])
    ends = xp.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1:] = nnz
    ukey = key[starts]
    win = ukey // max(1, nrows)
    return {"win_ptr": xp.searchsorted(win, xp.arange(nwin + 1, dtype=i64), side="left").astype(colptr.dtype),
            "win_rows": (ukey - win * nrows).astype(np.int32),
            "win_bits": (csum[ends] - csum[starts]).astype(np.uint32),
            "reuse": nnz / int(starts.shape[0]) if nnz else 0.0}


def window_reuse(xp, colptr, rowidx, nrows, sample, width=WINDOW):
    """(reuse, rows) over ``sample`` evenly spaced windows of ``width`` columns: entries per distinct
    (window, row) and distinct rows per window, as :func:`window_lists` would give for those windows
    ((0.0, 0.0) when they hold no entry).  Two host syncs."""
    i64 = np.int64
    ncols = int(colptr.shape[0]) - 1
    nwin = -(-ncols // width)
    if nwin == 0 or sample < 1:
        return 0.0, 0.0
    c64 = colptr.astype(i64)
    ws = xp.unique(xp.linspace(0, nwin - 1, min(int(sample), nwin)).astype(i64))
    lo = c64[ws * width]
    lens = c64[xp.minimum(ws * width + width, ncols)] - lo
    total = int(lens.sum())
    if total == 0:
        return 0.0, 0.0
    last = xp.cumsum(lens)
    pos = xp.arange(total, dtype=i64)
    owner = xp.searchsorted(last, pos, side="right")
    entry = lo[owner] + pos - (last[owner] - lens[owner])
    key = xp.sort(owner * max(1, nrows) + rowidx[entry].astype(i64))
    distinct = 1 + int(_dev.count_true(key[1:] != key[:-1]))
    return total / distinct, distinct / int(ws.shape[0])


def window_bit(col):
    """The bit of a window column (0..31) in the words of :func:`window_slots`: 4 (col % 8) + col // 8, so
    that the MMA lane g of spla_vecsc_windows finds its columns g, g + 8, g + 16, g + 24 in bits 4g ..
    4g + 3.  col: int or integer array."""
    return 4 * (col % 8) + col // 8


def window_slots(xp, lists):
    """The layout spla_vecsc_windows reads, from :func:`window_lists` (width 32; array module ``xp``).

    Each window's distinct rows, ascending, padded to a multiple of 16 slots with its last row and no
    bits.  Returns a dict:
      slot_ptr (nwin+1,) win_ptr.dtype: window w's slots are p in [slot_ptr[w], slot_ptr[w+1]), a
               multiple of 16 of them
      slots    (2 * nslots,) uint32: slots[2p] the row, slots[2p + 1] its bits, bit window_bit(b) set
               when column 32w + b of A stores the row (0 for padding)
      reuse    float: the lists' entries per distinct (window, row)
    Vectorised: 32 whole-array passes to move the bits, no loop over windows."""
    i64 = np.int64
    win_ptr = lists["win_ptr"].astype(i64)
    nwin = int(win_ptr.shape[0]) - 1
    rows, bits = lists["win_rows"], lists["win_bits"]
    count = win_ptr[1:] - win_ptr[:-1]
    slot_ptr = xp.zeros(nwin + 1, dtype=i64)
    xp.cumsum((count + 15) // 16 * 16, out=slot_ptr[1:])
    nslots = int(slot_ptr[-1]) if nwin else 0
    moved = xp.zeros_like(bits)
    for b in range(32):
        moved |= ((bits >> np.uint32(b)) & np.uint32(1)) << np.uint32(window_bit(b))
    slots = xp.zeros((nslots, 2), dtype=np.uint32)
    if nslots:
        win_of_slot = xp.searchsorted(slot_ptr[1:], xp.arange(nslots, dtype=i64), side="right")
        last_row = rows[xp.maximum(win_ptr[1:] - 1, 0)].astype(np.uint32)  # a padded window has a row
        slots[:, 0] = last_row[win_of_slot]
        total = int(rows.shape[0])
        win_of_row = xp.searchsorted(win_ptr[1:], xp.arange(total, dtype=i64), side="right")
        dest = slot_ptr[win_of_row] + xp.arange(total, dtype=i64) - win_ptr[win_of_row]
        slots[dest, 0] = rows.astype(np.uint32)
        slots[dest, 1] = moved
    return {"slot_ptr": slot_ptr.astype(lists["win_ptr"].dtype), "slots": slots.ravel(),
            "reuse": lists["reuse"]}


def split_bf16x3(x):
    """The NumPy twin of spmv.cuh's spla_split_bf16x3 (the windows kernel's operand split).

    x: float32 array.  Returns (p0, p1, p2), float32 arrays of x's shape whose values are bfloat16
    numbers (the low 16 bits are zero): p0 is x truncated to 8 significant bits, p1 the next 8 of
    what is left, p2 the rest.  For finite x that is 0 or at least WINDOWS_TINY in magnitude, p2 is
    exact and p0 + p1 + p2 == x; every other x is recomputed on the exact path (:func:`windows_exact`)."""
    x = np.asarray(x, dtype=np.float32)
    top = np.uint32(0xFFFF0000)
    p0 = (x.view(np.uint32) & top).view(np.float32)
    r1 = x - p0
    p1 = (r1.view(np.uint32) & top).view(np.float32)
    r2 = r1 - p1
    p2 = (r2.view(np.uint32) & top).view(np.float32)
    return p0, p1, p2


#: Magnitudes below this take the windows kernel's exact path (their last part would be subnormal).
WINDOWS_TINY = np.float32(2.0 ** -100)


def windows_exact(x):
    """Where the windows kernel's tensor-core path is exact for a value of U (the twin of its test):
    finite, and 0 or at least WINDOWS_TINY in magnitude.  x: float32 array; returns a bool array."""
    a = np.abs(np.asarray(x, dtype=np.float32))
    return np.isfinite(a) & ((a == 0) | (a >= WINDOWS_TINY))


def windows_seg(counts, slabs, resident_warps, t=None):
    """The item length of windows_seg = "auto": the longest seg of the tuning's windows_segs whose items
    (every window cut into ceil(count / seg) items, at least one) times ``slabs`` reach
    windows_min_waves x ``resident_warps``, else the shortest.  Longer items add fewer partial sums into
    y; too few warps leave SMs idle; and below 256 slots an item's 32 x 32 outputs cost more than its
    rows save (docs/decisions/tuning.md#windows_seg).  counts: (nwin,) int array (NumPy) of slots per
    window; slabs = k / 32; resident_warps: the device's warps of this kernel at once; t: the
    spla.tuning.Tuning (None: current)."""
    t = _tuning.current() if t is None else t
    counts = np.asarray(counts, dtype=np.int64)
    for seg in t.windows_segs:
        items = int(np.maximum(1, -(-counts // seg)).sum())
        if items * slabs >= t.windows_min_waves * resident_warps:
            return int(seg)
    return int(t.windows_segs[-1])


def _window_lists(cp, A, colptr, rowidx, k, device_id, t):
    """:func:`window_slots` of A (cached on A; the lists they come from are not kept), the item length
    (the tuning's windows_seg), and the items of at most that many slots (:func:`rows_items` over
    slot_ptr) with the columns of the windows of several items.  Returns (slots, items, seg)."""
    seg = t.windows_seg
    key = ("window_slots", WINDOW, np.dtype(colptr.dtype).str, colptr.device.id)
    slots = _cached(A, key, lambda: window_slots(cp, window_lists(cp, colptr, rowidx, int(A.shape[0]))))
    if seg == "auto":  # one host copy of the window lengths and one choice per k / 32, cached
        slabs = k // WINDOW
        seg = _cached(A, key + ("seg", slabs, tuple(t.windows_segs), float(t.windows_min_waves)),
                      lambda: windows_seg(cp.asnumpy(cp.diff(slots["slot_ptr"])), slabs,
                                          _sm_count(device_id) * WINDOWS_WARPS_PER_SM, t))
    seg = int(seg)

    def build_items():
        items = rows_items(cp, slots["slot_ptr"], seg)
        ncols = int(colptr.shape[0]) - 1
        cols = (items["multi_cols"][:, None] * WINDOW + cp.arange(WINDOW, dtype=np.int64)).ravel()
        items["multi_window_cols"] = cols[cols < ncols]
        return items

    return slots, _cached(A, key + ("items", seg), build_items), seg


@functools.lru_cache(maxsize=None)
def _compute_capability(device_id):
    return int(_cupy().cuda.Device(device_id).compute_capability)


def _use_windows(cp, A, colptr, rowidx, add, mul, dtype, pattern, k, mode, adds, device_id, t):
    """Whether a k-block veCSC product runs as windows on tensor cores (the tuning's vecsc_windows)."""
    if t.vecsc_windows is False:
        return False
    if not (_windows_semiring(add, mul, dtype, pattern) and mode == MASK_NONE and k % WINDOW == 0 and adds
            and int(A.shape[0]) < 2**31 and k * 4 < 2**32 and _compute_capability(device_id) >= 80):
        return False
    if t.vecsc_windows == "auto":
        key = ("window_reuse", WINDOW, int(t.windows_sample), colptr.device.id)
        reuse, rows = _cached(A, key, lambda: window_reuse(cp, colptr, rowidx, int(A.shape[0]),
                                                              int(t.windows_sample)))
        return reuse >= t.windows_min_reuse and rows >= t.windows_min_rows
    return True


def _rows_items(cp, A, colptr, chunk):
    """:func:`rows_items` of A at ``chunk`` (cached on A)."""
    key = ("rows_items", int(chunk), np.dtype(colptr.dtype).str, colptr.device.id)
    return _cached(A, key, lambda: rows_items(cp, colptr, int(chunk)))


def _rows_chunk(A, colptr, group, device_id, t):
    """:func:`rows_chunk` of A at the tuning's rows_long for groups of ``group`` lanes (cached on A):
    the item length, or None when no column is long."""
    groups = _resident_blocks(device_id) * BLOCK // group
    key = ("rows_chunk", t.rows_long, t.rows_chunk, t.rows_heavy_chunk, t.rows_heavy_share, t.rows_heavy_min_chunks,
           groups, device_id)
    return _cached(A, key, lambda: rows_chunk(colptr, t.rows_long, groups, t))


def _rows_order(cp, A, colptr, t):
    """:func:`rows_order` of A (the tuning's rows_order; cached on A), or None: walk in index order."""
    if t.rows_order is False:
        return None
    min_cv = -1.0 if t.rows_order is True else t.rows_order_min_cv
    key = ("rows_order", t.rows_long, min_cv, np.dtype(colptr.dtype).str, colptr.device.id)
    return _cached(A, key, lambda: rows_order(cp, colptr, min_cv, t.rows_long))


def _tile_chunks(cp, A, colptr, split, t):
    """:func:`interleaved_chunks` of A's tile split (the tuning's tile_long, tile_chunk), cached on A."""
    key = ("tile_chunks", split["long_len"], t.tile_chunk, np.dtype(colptr.dtype).str, colptr.device.id)
    return _cached(A, key, lambda: interleaved_chunks(cp, split))


def _tile_chunk_mode(split, ncols, direct, can_split, t):
    """How a tiles product reduces its long columns: None (no long column), "fused", "listed" or
    "static" (the tuning's tile_chunks; "auto": listed above tile_fused_max_chunks chunks per column,
    else fused).  Listing needs chunks that ADD straight into y (``direct``), else the static chunks;
    static chunks need ADD's atomic on T (``can_split``), else fused."""
    if split is None:
        return None
    chunks = t.tile_chunks
    if chunks == "auto":
        chunks = "listed" if direct and split["nchunks"] > t.tile_fused_max_chunks * ncols else "fused"
    if chunks == "listed" and not direct:
        chunks = "static"
    if chunks == "static" and not can_split:
        chunks = "fused"
    return chunks


def _vecsc_long(cp, A, colptr, group, long, chunk):
    """:func:`vecsc_long_split` of A for groups of ``group`` lanes, cached on A.

    A column is long when it has more than ``long`` * group / 32 entries: the same entries per lane
    whatever the group, so a short group does not walk a hub column alone (one warp per ``chunk``
    entries does instead).  ``long``, ``chunk``: the tuning's long and chunk (veCSC), push_long and
    push_chunk (push) or tile_long and tile_chunk (tiles); ``long`` None or <= 0: no split."""
    long_len = None if long is None or long <= 0 else max(1, int(long) * int(group) // 32)
    chunk = int(chunk)
    key = ("vecsc_long", long_len, chunk, np.dtype(colptr.dtype).str, colptr.device.id)
    return _cached(A, key, lambda: vecsc_long_split(cp, colptr, long_len, chunk))


_listings = {}  # device id -> WeakKeyDictionary: stream -> [(capacity, buffer), ...], newest last


def _tile_listing(cp, device_id, capacity):
    """(item_col, item_first, item_last, listing_count) pointers (np.uint64) of the current stream's tile
    listing on the current device, with room for ``capacity`` chunks: three int64 arrays with no initial
    value and two uint64 counters, zero, which spla_listed_chunks zeroes again (no memset per product).

    One listing per stream: the launches of a stream run in order, so they never share it at once, while
    launches on two streams may.  A CUDA graph recorded on a stream (spla.Replay records on a private
    one) keeps using that stream's listing when replayed, so a listing lives as long as its stream and is
    never freed or moved before: a bigger one is a new buffer (at least twice the room), the old one
    kept.  Its counters are zeroed on the stream, so a graph that recorded the creation zeroes them first."""
    streams = _listings.setdefault(device_id, weakref.WeakKeyDictionary())
    stream = cp.cuda.get_current_stream()
    held = streams.get(stream)
    if held is None or held[-1][0] < capacity:
        room = max(int(capacity), 2 * held[-1][0] if held else 1024)
        buf = cp.empty(3 * room + 2, dtype=np.int64)
        buf[3 * room:].fill(0)
        held = (held or []) + [(room, buf)]
        streams[stream] = held
    room, buf = held[-1]
    base = buf.data.ptr
    return tuple(np.uint64(base + 8 * room * i) for i in range(4))


def _tile_done(cp, A, split, device_id, t):
    """The fused chunks' counters (split["nmulti"],) uint32 of A on the current stream (a cupy array):
    zero when created, and every launch leaves them zero (a column's last chunk resets its
    counter), so no memset per product.  Kept in ``A._cache`` per stream, for the reasons
    :func:`_tile_listing` gives (a fresh zeroed array for an object without a cache)."""
    key = ("tile_done", split["long_len"], t.tile_chunk, device_id)
    streams = _cached(A, key, weakref.WeakKeyDictionary)
    stream = cp.cuda.get_current_stream()
    done = streams.get(stream)
    if done is None:
        done = cp.zeros(max(1, int(split["nmulti"])), dtype=np.uint32)
        streams[stream] = done
    return done


def _cached(A, key, build):
    """``build()``, kept in the matrix's lazy-cache dict ``A._cache`` under ``key`` (the key names every
    switch the value depends on); an object without a ``_cache`` dict gets a fresh ``build()``."""
    cache = getattr(A, "_cache", None)
    if not isinstance(cache, dict):
        return build()
    if key not in cache:
        cache[key] = build()
    return cache[key]


# ---------------------------------------------------------------------------------------------
# CuPy plumbing
# ---------------------------------------------------------------------------------------------
def _cupy():
    try:
        import cupy
    except ImportError:
        raise NoGPUError("the GPU backend needs CuPy: install spla[cuda12] or spla[cuda13], "
                         "or use device='cpu'") from None
    return cupy


@functools.lru_cache(maxsize=None)
def _source(path):
    return Path(path).read_text()


class _SpmvKernels:
    """{kernel key -> cupy.RawKernel} for one (ADD, MUL, T, I, pattern) on one device, each kernel
    compiled when first used, as a module of its own.

    A product uses two or three of the 17 kernels: NVRTC takes 0.05-0.4 s for one of them and
    2.6 s for all 17 in one module (H100 host, tools/probe_cold_start.py), which a first run on a
    machine, with CuPy's disk cache empty, pays for every (semiring, dtype) it meets.
    """

    def __init__(self, add, mul, dtype_str, index_str, pattern, device_id):
        self.names = name_expressions(add, mul, np.dtype(dtype_str), np.dtype(index_str), pattern)
        self.device_id = device_id
        self.funcs = {}

    def __getitem__(self, key):
        fn = self.funcs.get(key)
        if fn is None:
            cp = _cupy()
            expr = self.names[key]
            with cp.cuda.Device(self.device_id):
                mod = cp.RawModule(code=_source(str(SPMV_SOURCE)), options=NVRTC_OPTIONS, name_expressions=[expr])
                fn = self.funcs[key] = mod.get_function(expr)
            log.debug("gpu: loaded spmv kernel %s", expr)
        return fn


@functools.lru_cache(maxsize=None)
def _spmv_module(add, mul, dtype_str, index_str, pattern, device_id):
    """The kernels of one (ADD, MUL, T, I, pattern) on one device (:class:`_SpmvKernels`)."""
    return _SpmvKernels(add, mul, dtype_str, index_str, pattern, device_id)


@functools.lru_cache(maxsize=None)
def _bits_module(device_id):
    cp = _cupy()
    names = {True: "spla_weighted_rowsum<true>", False: "spla_weighted_rowsum<false>"}
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=_source(str(BITS_SOURCE)), options=NVRTC_OPTIONS,
                           name_expressions=list(names.values()))
        return {w: mod.get_function(expr) for w, expr in names.items()}


#: Body of the popcount ElementwiseKernel (T: a 4- or 8-byte integer; y: int).
POPCOUNT_OP = "y = (sizeof(T) == 8) ? __popcll((unsigned long long)x) : __popc((unsigned int)x)"


@functools.lru_cache(maxsize=None)
def _popcount_kernel():
    cp = _cupy()
    return cp.ElementwiseKernel("T x", "int32 y", POPCOUNT_OP, "spla_popcount")


def _grid(threads, max_blocks):
    """Blocks of BLOCK threads for ``threads`` threads, at most ``max_blocks`` (the tuning's max_blocks:
    the kernels loop grid-stride beyond it)."""
    return int(max(1, min(max_blocks, -(-int(threads) // BLOCK))))


@functools.lru_cache(maxsize=None)
def _sm_count(device_id):
    """Streaming multiprocessors of the device."""
    return int(_cupy().cuda.Device(device_id).attributes["MultiProcessorCount"])


@functools.lru_cache(maxsize=None)
def _resident_blocks(device_id):
    """Blocks of BLOCK threads the device holds at once (SMs x threads per SM / BLOCK): the grid of
    a worklist launch, whose length is known only on the device."""
    per_sm = int(_cupy().cuda.Device(device_id).attributes["MaxThreadsPerMultiProcessor"])
    return max(1, _sm_count(device_id) * max(1, per_sm // BLOCK))


def resident_threads(device):
    """Threads the device holds at once (an int: SMs x threads per SM, in whole blocks of BLOCK) for a
    device string "gpu:N" (a Matrix's ``device``; "gpu" is GPU 0); the tuning's vecsc_fill_threads
    (about an H100's or H200's count) for "cpu", so that a rule that scales with the device decides on
    the CPU as it would on such a GPU."""
    from ..device import gpu_index, is_gpu

    if not is_gpu(device):
        return _tuning.current().vecsc_fill_threads
    return _resident_blocks(gpu_index(device) if ":" in device else 0) * BLOCK


def _use_worklist(walk_threads, device_id, t):
    """Whether a masked k == 1 product compacts its computed columns first (the tuning's mask_worklist;
    "auto": when walking every column would take worklist_min_waves full waves of the device)."""
    if t.mask_worklist == "auto":
        return walk_threads >= t.worklist_min_waves * _resident_blocks(device_id) * BLOCK
    return bool(t.mask_worklist)


def _empty_fraction(A, colptr):
    """The fraction of A's columns with no entries (computed once, cached in ``A._cache``)."""
    ncols = int(colptr.shape[0]) - 1
    return _cached(A, ("empty_column_fraction", colptr.device.id),
                   lambda: _dev.count_true(colptr[1:] == colptr[:-1]) / ncols if ncols else 0.0)


def _mask_worklist(cp, funcs, colptr, marr, js, mode, ncols, y, acc, flags, index_dtype, max_blocks):
    """Compact the computed columns of a 1-D mask: (list (ncols,) index_dtype, count (1,) uint64).

    Also stores y[j] for every not-computed column (the identity under FRESH or REPLACE) and, when
    ``colptr`` is not None, every computed empty one (its result, the identity, with accum), which
    it leaves out of the list."""
    worklist = cp.empty(ncols, dtype=index_dtype)
    count = cp.zeros(1, dtype=np.uint64)
    # list = [j : mask[j] != complement, column j not empty];  y<!computed> = identity (fresh or replace)
    grid = _grid(-(-ncols // WORKLIST_PER), max_blocks)
    funcs["mask_worklist"]((grid,), (BLOCK,), (np.uint64(0) if colptr is None else colptr, marr, np.int64(js),
                                               np.int32(mode), np.int64(ncols), y, acc, np.int32(flags), worklist,
                                               count))
    return worklist, count


def _input_worklist(cp, funcs, u, nin, index_dtype, max_blocks):
    """Compact the inputs that contribute (u[i] != identity) of a k == 1 push:
    (list (nin,) index_dtype, count (1,) uint64)."""
    worklist = cp.empty(nin, dtype=index_dtype)
    count = cp.zeros(1, dtype=np.uint64)
    # list = [i : u[i] != identity]
    funcs["input_worklist"]((_grid(-(-nin // WORKLIST_PER), max_blocks),), (BLOCK,), (u, np.int64(nin), worklist,
                                                                              count))
    return worklist, count


def _adds_into_y(add, flags, mode, accum, replace):
    """When atomic ADDs straight into y give the output semantics: (becomes, adds).

    becomes: every output becomes the result or the identity (a fresh output; or no accum with no
    mask or replace), so y may be set to the identity first and ADDed into; adds: that, or accum is
    the monoid ``add`` itself and nothing is replaced (out = ADD(out, result) where computed is what
    the atomics do).  Otherwise an atomic kernel needs a buffer and the merge."""
    becomes = bool(flags & FRESH) or (accum is None and (mode == MASK_NONE or replace))
    return becomes, becomes or (accum is not None and accum == SAME_ACCUM.get(add) and not replace)


def _atomic_target(cp, sr, dtype, y, flags, mode, accum, replace, out_shape):
    """The buffer an atomic kernel (scCOOC, push) ADDs into, and whether spla_merge must then combine it
    into y: y itself, filled with the identity or as it is (:func:`_adds_into_y`), else a new buffer."""
    ident = sr.add.identity(dtype)
    becomes, adds = _adds_into_y(sr.add.name, flags, mode, accum, replace)
    if becomes:
        y.fill(ident)
    if adds:
        return y, False
    return cp.full(out_shape, ident, dtype=dtype), True


def _merge(funcs, target, y, marr, js, cs, mode, ncols, k, acc, flags, max_blocks):
    """y = computed ? accum(y, target) : (replace ? identity : y), elementwise (after an atomic kernel)."""
    funcs["merge"]((_grid(ncols * k, max_blocks),), (BLOCK,), (target, y, marr, np.int64(js), np.int64(cs),
                                                                np.int32(mode), np.int64(ncols), np.int64(k), acc,
                                                                np.int32(flags)))


def _values_as(A, dtype):
    """A's values cast to the domain (cached on the Matrix when it has a ``_cache`` dict)."""
    v = A.values
    if v.dtype == dtype:
        return v
    return _cached(A, ("gpu_values_as", dtype.str), lambda: v.astype(dtype))


def _mask_args(cp, mask, complement, ncols, k):
    """(mask array or None, js, cs, mode): mask[j, c] lives at mask[j * js + c * cs] (elements)."""
    if mask is None:
        return None, 0, 0, MASK_NONE
    if mask.dtype != np.bool_:
        mask = mask.astype(np.bool_)
    if any(s < 0 for s in mask.strides):
        mask = cp.ascontiguousarray(mask)
    mode = MASK_COMPLEMENT if complement else MASK_MASK
    item = mask.itemsize
    if mask.ndim == 1:
        if mask.shape[0] != ncols:
            raise ValueError(f"mask of shape {mask.shape} for {ncols} output columns")
        return mask, mask.strides[0] // item, 0, mode
    if mask.ndim == 2 and mask.shape[0] == ncols and mask.shape[1] in (1, k):
        cs = mask.strides[1] // item if mask.shape[1] == k and k > 1 else 0
        return mask, mask.strides[0] // item, cs, mode
    raise ValueError(f"mask of shape {mask.shape} does not fit an output of {ncols} x {k}")


def _use_tiles(cp, A, colptr, ncols, device_id, t):
    """Whether a masked k == 1 scCSC product runs as warp tiles (the tuning's sccsc_tiles): "auto" when
    walking every column would take at least worklist_min_waves waves of the device, or when a column is
    longer than tile_long (the tiles split it; the walk would leave it to one thread).  Smaller graphs of
    short columns keep the walk, whose thread per column has more parallelism than a warp per tile."""
    if t.sccsc_tiles != "auto":
        return bool(t.sccsc_tiles)
    if _use_worklist(ncols, device_id, t):
        return True
    return _vecsc_long(cp, A, colptr, 32, t.tile_long, t.tile_chunk) is not None


def _tile_group(cp, A, colptr, t):
    """spla_sccsc_tiles' group_max for A (the tuning's tile_group; "auto": the least power of two G <= 8
    giving a lane at most tile_lane_entries entries of the mean non-empty column with at most tile_long
    entries), cached on A."""
    if t.tile_group != "auto":
        return int(t.tile_group)

    def build():
        lengths = cp.diff(colptr)
        short = (lengths > 0) & (lengths <= t.tile_long)
        count = _dev.count_true(short)
        # an int64 sum: CuPy sums int32 into int64 with a CUB block reduction compiled on first use
        mean = float(lengths[short].astype(np.int64).sum()) / count if count else 0.0
        group = 1
        while group < 8 and mean > group * t.tile_lane_entries:
            group *= 2
        return group
    return _cached(A, ("tile_group", t.tile_long, t.tile_lane_entries, colptr.device.id), build)


def _tile_geometry(ncols, device_id, t):
    """(R, threads per block) of a spla_sccsc_tiles launch over ncols columns: the tuning's tile_r
    (at most SPLA_TILE_R = 8 of spmv.cuh), halved while the graph has fewer than tile_min_warps tiles
    per SM; BLOCK, halved (down to one warp) while the grid would give an SM fewer than two blocks."""
    sms = _sm_count(device_id)
    R = int(t.tile_r)
    while R > 1 and -(-ncols // (32 * R)) < t.tile_min_warps * sms:
        R //= 2
    tiles = -(-ncols // (32 * R))
    block = BLOCK
    while block > 32 and -(-tiles // (block // 32)) < 2 * sms:
        block //= 2
    return R, block


def _rows_fit(u, y, k, dtype, t):
    """Whether a k > 1 veCSC product can read 16-byte row pieces (spla_vecsc_rows): the tuning's
    vecsc_rows, rows a multiple of 16 bytes, u and y 16-byte aligned."""
    return (t.vecsc_rows and k > 1 and (k * dtype.itemsize) % 16 == 0
            and u.data.ptr % 16 == 0 and y.data.ptr % 16 == 0)


def _rows_group(k, dtype):
    """Lanes per column of spla_vecsc_rows: min(32, next power of two >= the 16-byte pieces of a row)."""
    pieces = k * dtype.itemsize // 16
    return int(min(32, 1 << (pieces - 1).bit_length()))


def _vecsc_long_chunks(cp, funcs, sr, dtype, split, direct, rowidx, vals, u, y, marr, js, mode, acc, flags, vec4,
                       max_blocks, per_warp=1):
    """The long columns of a k == 1 veCSC or scCSC-tiles product (the main kernel skipped them): a warp
    per ``per_warp`` chunks, ADDed straight into y (``direct``) or into a buffer that
    spla_vecsc_long_finish stores."""
    i64, i32 = np.int64, np.int32
    nlong, nchunks = split["nlong"], split["nchunks"]
    tl = y if direct else cp.full(nlong, sr.add.identity(dtype), dtype=dtype)
    # y<mask>[long columns] += chunk partials (atomic ADD), or tl = those partials
    funcs["veCSC_long_chunks"]((_grid(-(-nchunks // per_warp) * 32, max_blocks),), (BLOCK,),
                               (split["chunk_col"], split["chunk_begin"], split["chunk_end"], split["long_cols"],
                                rowidx, vals, u, tl, y, i32(1 if direct else 0), marr, i64(js), i32(mode),
                                i64(nchunks), vec4, i32(per_warp)))
    if not direct:
        # y<mask>[long columns] = accum(y, tl)
        funcs["veCSC_long_finish"]((_grid(nlong, max_blocks),), (BLOCK,), (split["long_cols"], tl, y, marr, i64(js),
                                                                            i32(mode), i64(nlong), acc, i32(flags)))


def vxm(u, A, semiring, mask, complement, accum, out, replace, kernel, swap=False):
    """y[j] = ADD_i MUL(u[i], A[i, j]) on the GPU with kernel scCSC, veCSC or scCOOC.

    u      cupy (nrows,) or (nrows, k), dtype = the domain T
    A      CSC matrix: colptr (ncols+1,), rowidx (nnz,), values (nnz,) or None (pattern),
           colidx (nnz,) (scCOOC only); int32 or int64 indices; cupy arrays on u's device
    mask   None, or cupy bool of the output's shape, or (ncols,) shared by a block's k vectors
    complement, replace: bool; accum: None or a name in spla.semirings.ACCUM_OPS (needs out)
    out    None or a cupy array of the output's shape and dtype (written in place and returned)
    kernel "scCSC", "veCSC", "scCOOC" or "push" (push walks the input side, A.T: a Matrix's cached
           transpose, A itself when symmetric); swap: MUL(a, x) instead of MUL(x, a) (mxv via A.T)
    Returns the (ncols,) or (ncols, k) result: ``out`` itself when given.
    Raises KernelUnavailable when :func:`supports` says no.
    """
    cp = _cupy()
    t = _tuning.current()
    mb = t.max_blocks
    sr = _sr.get(semiring)
    dtype = np.dtype(u.dtype)
    ok, why = _supports_cached(kernel, sr, dtype)
    if not ok:
        raise KernelUnavailable(f"GPU kernel {kernel} cannot run {sr.name} on {dtype}: {why}")
    if accum not in ACCUM_CODES:
        raise UnknownNameError(f"unknown accum {accum!r}; use one of {', '.join(_sr.ACCUM_OPS)}")
    if accum is not None and dtype not in _sr.accum_dtypes(accum):
        raise DomainMismatch(f"accum {accum!r} is not defined on dtype {dtype}")
    add, mul = sr.add.name, swap_op(sr.mul.name, swap)
    ncols = int(A.shape[1])
    k = 1 if u.ndim == 1 else int(u.shape[1])
    out_shape = (ncols,) + tuple(u.shape[1:])
    index_dtype = np.dtype(A.colptr.dtype)
    if index_dtype not in INDEX_TYPES:
        raise KernelUnavailable(f"GPU kernels need int32 or int64 indices, A has {index_dtype}")
    device_id = u.device.id

    # spla.ops runs every product with A's GPU current (spla.device.activate)
    if not u.flags.c_contiguous:
        u = cp.ascontiguousarray(u)
    if out is None:
        y, flags = cp.empty(out_shape, dtype=dtype), FRESH
    else:
        # work on out in place unless it is strided or overlaps an input that the kernel reads
        aliased = any(x is not None and cp.may_share_memory(out, x) for x in (u, mask))
        y = out if out.flags.c_contiguous and not aliased else out.copy(order="C")
        flags = REPLACE if replace else 0
    if ncols * k == 0:
        return y if out is None else out

    pattern = A.values is None
    vals = u if pattern else cp.ascontiguousarray(_values_as(A, dtype))  # u: unused placeholder
    colptr, rowidx = A.colptr, A.rowidx  # a Matrix's index arrays are contiguous and of one dtype
    marr, js, cs, mode = _mask_args(cp, mask, complement, ncols, k)
    if marr is None:
        marr = u  # unused placeholder pointer
    funcs = _spmv_module(add, mul, dtype.str, index_dtype.str, pattern, device_id)
    i64, i32 = np.int64, np.int32
    acc = i32(ACCUM_CODES[accum])
    group = vecsc_group_size(A, k, _resident_blocks(device_id) * BLOCK, t) if kernel == "veCSC" else 1
    variant, threads_per_block = "", BLOCK  # the kernel's mode and block, for the DEBUG line
    debug = log.isEnabledFor(logging.DEBUG)  # the variants below are formatted only for that line
    tiles = kernel == "scCSC" and k == 1 and mode != MASK_NONE and _use_tiles(cp, A, colptr, ncols, device_id, t)
    listed = not tiles and mode != MASK_NONE and k == 1 and kernel in ("scCSC", "veCSC") and _use_worklist(
        ncols * group, device_id, t)
    if listed:
        skip_empty = _empty_fraction(A, colptr) > t.worklist_skip_empty
        worklist, count = _mask_worklist(cp, funcs, colptr if skip_empty else None, marr, js, mode, ncols, y, acc,
                                         flags, index_dtype, mb)
    else:
        worklist = count = np.uint64(0)  # null pointers: every column is walked
    # long-column split (k == 1): needs ADD's atomic on T (every functor has one; checked anyway); the
    # chunks ADD straight into y when y[j] becomes the result (the main kernel stores the identity
    # first) or ADD(y[j], result)
    can_split = k == 1 and _supports_cached("scCOOC", sr, dtype)[0]
    becomes, adds = _adds_into_y(add, flags, mode, accum, replace)
    vec4 = i32(1 if t.vecsc_vec4 else 0)

    if tiles:
        split = _vecsc_long(cp, A, colptr, 32, t.tile_long, t.tile_chunk)
        direct = split is not None and can_split and adds
        chunks = _tile_chunk_mode(split, ncols, direct, can_split, t)
        R, tile_block = _tile_geometry(ncols, device_id, t)
        group_max = _tile_group(cp, A, colptr, t)
        variant = debug and (f" (tiles of {32 * R} columns, up to {group_max} lanes a column"
                   + (f", {split['nchunks']} long-column chunks {chunks}" if chunks else "") + ")")
        threads_per_block = tile_block
        long_len = i64(split["long_len"] if split is not None else 0)
        null = np.uint64(0)
        chunk_groups, fused_args, listing = 0, (i64(0), i32(1), i64(0)) + (null,) * 9, (null,) * 4
        if chunks == "fused":
            ichunks = _tile_chunks(cp, A, colptr, split, t)
            per_warp = int(t.chunks_per_warp)
            chunk_groups = -(-split["nchunks"] // per_warp)
            part = cp.empty(split["nchunks"], dtype=dtype)  # a partial per chunk, no initial value
            fused_args = (i64(chunk_groups), i32(per_warp), i64(split["nchunks"]), ichunks["chunk_j"],
                          ichunks["chunk_begin"], ichunks["chunk_end"], ichunks["chunk_col"], ichunks["chunk_part"],
                          split["col_chunk0"], split["col_slot"], part,
                          _tile_done(cp, A, split, device_id, t) if split["nmulti"] else null)
        elif chunks == "listed":
            # room for every long column's chunks of listed_chunk entries: ceil(len / listed_chunk) <=
            # ceil(len / tile_chunk) * ceil(tile_chunk / listed_chunk)
            listing = _tile_listing(cp, device_id, split["nchunks"] * -(-int(t.tile_chunk) // int(t.listed_chunk)))
        ntiles = -(-ncols // (32 * R))
        grid = int(max(1, min(-(-(chunk_groups + ntiles) // (tile_block // 32)), mb)))
        # y<mask> = u +.* A: a warp per tile of columns, the computed ones spread over its lanes (and a
        # warp per group of long-column chunks first, when fused)
        funcs["scCSC_tiles_listed" if chunks == "listed" else "scCSC_tiles"]((grid,), (tile_block,), (
            colptr, rowidx, vals, u, y, marr, i64(js), i32(mode), i64(ncols), i32(R), acc, i32(flags), long_len,
            i32(1 if chunks in ("static", "listed") and direct and becomes else 0), i32(group_max), *fused_args,
            vec4, *listing, i64(t.listed_chunk)))
        if chunks == "listed":
            try:
                # y<mask>[long computed columns] += their chunks (atomic ADD)
                funcs["listed_chunks"]((_resident_blocks(device_id),), (BLOCK,), (*listing, rowidx, vals, u, y, vec4))
            except BaseException:
                # the tiles counted into the listing and nothing will zero it: the stream gets a fresh one
                _listings[device_id].pop(cp.cuda.get_current_stream(), None)
                raise
        elif chunks == "static":
            _vecsc_long_chunks(cp, funcs, sr, dtype, split, direct, rowidx, vals, u, y, marr, js, mode, acc,
                               flags, vec4, mb, int(t.chunks_per_warp))
    elif kernel == "scCSC":
        threads = ncols * k
        grid = min(_grid(threads, mb), _resident_blocks(device_id)) if listed else _grid(threads, mb)
        funcs["scCSC"]((grid,), (BLOCK,), (colptr, rowidx, vals, u, y, marr, i64(js), i64(cs), i32(mode),
                                            i64(ncols), i64(k), acc, i32(flags), worklist, count))
    elif kernel == "veCSC" and k == 1:
        grid = _grid(ncols * group, mb)
        if listed:
            grid = min(grid, _resident_blocks(device_id))
        split = _vecsc_long(cp, A, colptr, group, t.long, t.chunk) if can_split else None
        direct = split is not None and adds
        funcs["veCSC"]((grid,), (BLOCK,), (colptr, rowidx, vals, u, y, marr, i64(js), i32(mode),
                                            i64(ncols), i32(group), acc, i32(flags),
                                            i64(split["long_len"] if split is not None else 0),
                                            i32(1 if direct and becomes else 0), vec4, worklist, count))
        if split is not None:
            variant = debug and (f" (columns over {split['long_len']} entries cut into {split['nchunks']} chunks, "
                       + ("added into out)" if direct else "reduced through a buffer)"))
            _vecsc_long_chunks(cp, funcs, sr, dtype, split, direct, rowidx, vals, u, y, marr, js, mode, acc,
                               flags, vec4, mb)
    elif kernel == "veCSC" and _rows_fit(u, y, k, dtype, t) and _use_windows(
            cp, A, colptr, rowidx, add, mul, dtype, pattern, k, mode, adds, device_id, t):
        windows, items, seg = _window_lists(cp, A, colptr, rowidx, k, device_id, t)
        if becomes and items["multi_window_cols"].size:
            y[items["multi_window_cols"]] = 0.0  # their items ADD into it
        nitems = items["nitems"]
        grid = _grid(nitems * (k // WINDOW) * 32, mb)
        variant = debug and (f" (windows of {WINDOW} columns on tensor cores: {nitems} items of at most "
                             f"{seg} distinct rows, {windows['reuse']:.2f} entries a row)")
        # check = whether U holds a value off the tensor cores' exact path (not finite, or tiny)
        check = cp.zeros(1, dtype=np.int32)
        funcs["windows_scan"]((_grid(u.size // 4, mb),), (BLOCK,), (u, i64(u.size), check))
        # Y = U +.* A, a warp per item of a window's distinct rows and 32 components, on tensor cores
        funcs["veCSC_windows"]((grid,), (BLOCK,), (
            items["item_col"], items["item_begin"], items["item_end"], items["item_multi"], i64(nitems),
            windows["slots"], check, u, y, i64(ncols), i64(k), acc, i32(flags)))
    elif kernel == "veCSC" and _rows_fit(u, y, k, dtype, t):
        group = _rows_group(k, dtype)
        # long columns: every column cut into items of at most `chunk` entries, which needs ADD's atomic
        # on T and output semantics that ADDs into y give
        chunk = (_rows_chunk(A, colptr, group, device_id, t)
                 if adds and _supports_cached("scCOOC", sr, dtype)[0] else None)
        if chunk is not None:
            items = _rows_items(cp, A, colptr, chunk)
            if becomes:
                y[items["multi_cols"]] = sr.add.identity(dtype)  # their items ADD into it
            nitems = items["nitems"]
            grid = max(1, min(-(-nitems // (BLOCK // group)), _resident_blocks(device_id), mb))
            variant = debug and f" (rows, {nitems} items of at most {chunk} entries, longest first)"
            # Y<mask> = U +.* A, a group of lanes per work item of one column
            funcs["veCSC_rows_items"]((grid,), (BLOCK,), (
                items["item_col"], items["item_begin"], items["item_end"], items["item_multi"], i64(nitems),
                cp.zeros(1, dtype=np.uint32), rowidx, vals, u, y, marr, i64(js), i64(cs), i32(mode), i64(k),
                i32(group), acc, i32(flags)))
        else:
            grid = _grid(ncols * group, mb)
            order = _rows_order(cp, A, colptr, t)
            variant = " (rows, longest first)" if order is not None else " (rows)"
            # Y<mask> = U +.* A, a group of lanes per column reading 16-byte pieces of U's rows
            funcs["veCSC_rows" if order is None else "veCSC_rows_ordered"](
                (grid,), (BLOCK,), (colptr, rowidx, vals, u, y, marr, i64(js), i64(cs), i32(mode), i64(ncols),
                                    i64(k), i32(group), acc, i32(flags), i64(0), i32(0),
                                    np.uint64(0) if order is None else order))
    elif kernel == "veCSC":
        grid = _grid(ncols * group, mb)
        variant = " (block: U's or Y's rows are not 16-byte pieces, or the rows kernel is off)"
        funcs["veCSC_block"]((grid,), (BLOCK,), (colptr, rowidx, vals, u, y, marr, i64(js), i64(cs),
                                                  i32(mode), i64(ncols), i64(k), i32(group), acc,
                                                  i32(flags)))
    elif kernel == "scCOOC":  # atomics into a buffer holding the identity, then merge into out if needed
        nnz = int(A.nnz)
        target, merge = _atomic_target(cp, sr, dtype, y, flags, mode, accum, replace, out_shape)
        grid = _grid(nnz * k, mb)
        if nnz:
            funcs["scCOOC"]((grid,), (BLOCK,), (A.rowidx, A.colidx, vals, u, target, marr, i64(js), i64(cs),
                                                 i32(mode), i64(nnz), i64(k)))
        variant = debug and (" (no entries: nothing launched" if not nnz else " (atomics into "
                   + ("a buffer of the identity, merged into out" if merge else "the output")) + ")"
        if merge:
            _merge(funcs, target, y, marr, js, cs, mode, ncols, k, acc, flags, mb)
    else:  # push: walk the input side R = A.T, atomics as scCOOC
        R = A.T
        nin = int(R.shape[1])
        target, merge = _atomic_target(cp, sr, dtype, y, flags, mode, accum, replace, out_shape)
        group = push_group_size(R, t) if k == 1 else vecsc_group_size(R, k, None, t)
        grid = _grid(nin * group, mb)
        split = _vecsc_long(cp, R, R.colptr, group, t.push_long, t.push_chunk) if k == 1 else None
        listed = k == 1 and _use_worklist(nin * group, device_id, t)
        if listed:
            worklist, count = _input_worklist(cp, funcs, u, nin, index_dtype, mb)
            grid = min(grid, _resident_blocks(device_id))
        rvals = u if pattern else cp.ascontiguousarray(_values_as(R, dtype))
        if R.nnz and nin:
            funcs["push"]((grid,), (BLOCK,), (R.colptr, R.rowidx, rvals, u, target, marr, i64(js), i64(cs), i32(mode),
                                               i64(nin), i64(k), i32(group),
                                               i64(split["long_len"] if split is not None else 0),
                                               worklist, count))
            variant = debug and (" (atomics into " + ("a buffer of the identity, merged into out" if merge else "the output")
                       + (f"; inputs over {split['long_len']} entries cut into {split['nchunks']} chunks"
                          if split is not None else "") + ")")
            if split is not None:
                funcs["push_long_chunks"]((_grid(split["nchunks"] * 32, mb),), (BLOCK,),
                                          (split["chunk_col"], split["chunk_begin"], split["chunk_end"],
                                           split["long_cols"], R.rowidx, rvals, u, target, marr, i64(js), i32(mode),
                                           i64(split["nchunks"])))
        else:
            variant = " (no entries or inputs: nothing launched)"
        if merge:
            _merge(funcs, target, y, marr, js, cs, mode, ncols, k, acc, flags, mb)
    if debug:
        log.debug("gpu vxm: kernel=%s%s semiring=%s_%s%s T=%s I=%s %s k=%d grid=%d block=%d group=%d "
                  "mask=%s%s accum=%s out=%s replace=%s", kernel, variant, add, mul, " (swapped)" if swap else "",
                  dtype, index_dtype, "pattern" if pattern else "valued", k, grid, threads_per_block, group,
                  ("none", "mask", "~mask")[mode],
                  (" (inputs listed)" if kernel == "push" else " (worklist)") if listed else "", accum, out is not None,
                  replace)
    if out is not None and y is not out:
        out[...] = y
        return out
    return y


# ---------------------------------------------------------------------------------------------
# Bit words
# ---------------------------------------------------------------------------------------------
def popcount(X):
    """Elementwise popcount of a cupy integer (or bool) array, any shape -> int32, same shape.

    uint64/int64 use ``__popcll``, 32-bit types ``__popc``; narrower types are widened by their
    unsigned bit pattern first (so a negative int8 counts its 8 bits, not 32).
    """
    cp = _cupy()
    if not isinstance(X, cp.ndarray):  # cupy.asarray would copy a CuPy array of another GPU to the current one
        X = cp.asarray(X)
    dt = np.dtype(X.dtype)
    if dt.kind not in "biu":
        raise DomainMismatch(f"popcount needs an integer array, got dtype {dt}")
    with cp.cuda.Device(X.device.id):
        if dt.itemsize < 4:
            X = (X.view(np.dtype(f"u{dt.itemsize}")) if dt.kind != "b" else X).astype(np.uint32)
        return _popcount_kernel()(X)


def weighted_rowsum(X, weights=None):
    """Per-row weighted bit count of a block of bit words.

    X        cupy (n, W) uint64 (made C-contiguous)
    weights  cupy (64*W,) float64, or None
    Returns  (n,) float64: out[v] = sum_{w, b} bit_b(X[v, w]) * weights[64*w + b];
             (n,) int64 row popcounts when weights is None.
    One group of G = min(32, next power of two >= W) lanes per row (see spla/kernels/bits.cuh).
    """
    cp = _cupy()
    if X.ndim != 2 or X.dtype != np.uint64:
        raise DomainMismatch(f"weighted_rowsum needs a 2-D uint64 array, got {X.dtype} of shape {X.shape}")
    n, W = (int(s) for s in X.shape)
    weighted = weights is not None
    with cp.cuda.Device(X.device.id):
        X = cp.ascontiguousarray(X)
        if weighted:
            weights = cp.ascontiguousarray(weights, dtype=np.float64)
            if weights.shape != (64 * W,):
                raise ValueError(f"weights must have shape ({64 * W},), got {weights.shape}")
            res = cp.zeros(n, dtype=np.float64)
        else:
            res = cp.zeros(n, dtype=np.int64)
        if n == 0 or W == 0:
            return res
        G = int(min(32, 1 << (W - 1).bit_length()))
        grid = _grid(n * G, _tuning.current().max_blocks)
        fn = _bits_module(X.device.id)[weighted]
        wts = weights if weighted else X  # unused placeholder pointer when not weighted
        fn((grid,), (BLOCK,), (X, wts, res if weighted else X, X if weighted else res, np.int64(n), np.int64(W),
                               np.int32(G)))
        if log.isEnabledFor(logging.DEBUG):
            log.debug("gpu weighted_rowsum: n=%d W=%d weighted=%s grid=%d block=%d group=%d",
                      n, W, weighted, grid, BLOCK, G)
        return res


# ---------------------------------------------------------------------------------------------
# Level-structured sparse blocks (spla.frontier)
# ---------------------------------------------------------------------------------------------
FRONTIER_SOURCE = KERNEL_DIR / "frontier.cuh"


def frontier_group(mean_degree, t=None):
    """Lanes per frontier entry: the power of two at most a quarter of the mean out-degree, in [1, 32]
    (the tuning's frontier_group overrides; ``t``: the spla.tuning.Tuning, None: current).

    A mesh (6 arcs per vertex) gets 1: its entries' few arcs are best walked by one lane each, the
    parallelism coming from the level's many entries.
    """
    t = _tuning.current() if t is None else t
    if t.frontier_group is not None:
        return int(t.frontier_group)
    quarter = max(1.0, float(mean_degree) / 4.0)
    return int(min(32, 1 << int(math.floor(math.log2(quarter)))))


def frontier_name_expressions(qtype, itype):
    """{key: name expression} of the frontier kernels for one (flat index, matrix index) type pair."""
    q, i = INDEX_TYPES[np.dtype(qtype)], INDEX_TYPES[np.dtype(itype)]
    names = {"push": f"spla_frontier_push<{q}, {i}>"}
    for divide in (False, True):
        for feed in (False, True):
            names[("pull", divide, feed)] = (f"spla_frontier_pull<{q}, {i}, {str(divide).lower()}, "
                                             f"{str(feed).lower()}>")
    return names


@functools.lru_cache(maxsize=None)
def _frontier_module(qtype, itype, device_id):
    cp = _cupy()
    names = frontier_name_expressions(qtype, itype)
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=_source(str(FRONTIER_SOURCE)), options=NVRTC_OPTIONS,
                           name_expressions=list(names.values()))
        return {key: mod.get_function(expr) for key, expr in names.items()}


def _frontier_setup(A, queue):
    """(out-arc CSC of A, its kernels, lanes per entry, grid) for a queue of A's device.

    The grid is the device's resident blocks: a level's length is known only on the device, and the
    kernels walk it grid-stride.
    """
    out_csc = A.T  # column v of A^T lists the targets w of the arcs v -> w
    t = _tuning.current()
    key = ("frontier_setup", np.dtype(queue.dtype).str, t.frontier_group)
    got = A._cache.get(key)
    if got is None:
        G = frontier_group(out_csc.nnz / max(A.shape[0], 1), t)
        funcs = _frontier_module(np.dtype(queue.dtype).str, np.dtype(out_csc.colptr.dtype).str, queue.device.id)
        got = A._cache[key] = (out_csc, funcs, G, _resident_blocks(queue.device.id))
    return got


def frontier_push(A, queue, depth, k, block, start, count, top):
    """value'<¬reached ∪ level == depth+1> += frontier +.first A: one launch, nothing read back."""
    cp = _cupy()
    with cp.cuda.Device(queue.device.id):
        out_csc, funcs, G, grid = _frontier_setup(A, queue)
        funcs["push"]((grid,), (BLOCK,), (out_csc.colptr, out_csc.rowidx, queue, np.uint64(queue.shape[0]),
                                          np.int64(k), np.int32(depth), block, start, count, top, np.int32(G)))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("gpu frontier push: level %d (k=%d, %d lanes per entry, grid %d)", depth, k, G, grid)


def frontier_pull(A, queue, depth, k, block, start, count, out, scale, feed, divide):
    """t<frontier> = 2^-scale ⊙ (A +.second value<level == depth+1>): one launch, nothing read back."""
    cp = _cupy()
    with cp.cuda.Device(queue.device.id):
        out_csc, funcs, G, grid = _frontier_setup(A, queue)
        funcs[("pull", divide, feed)]((grid,), (BLOCK,), (
            out_csc.colptr, out_csc.rowidx, queue, np.int64(k), np.int32(depth), block, out,
            scale if scale is not None else np.uint64(0), start, count, np.int32(G)))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("gpu frontier pull: level %d (k=%d, %d lanes per entry, grid %d)", depth, k, G, grid)
