"""k-block products as windows on tensor cores (spla_vecsc_windows): the layout they read (each
window of 32 columns as its distinct rows with their bit words, in slots padded to sixteens), the rule
that chooses them, and the NumPy twins of the kernel's operand split and exactness test.
"""

from __future__ import annotations

import numpy as np

from ... import device as _dev
from ... import tuning as _tuning
from ...matrix import declare_cache
from .compile import MASK_NONE, windows_semiring
from .launch import compute_capability, sm_count
from .layouts import rows_items

WINDOW = 32  # columns per window of spla_vecsc_windows (the kernel's bit words)
WINDOWS_WARPS_PER_SM = 16  # spla_vecsc_windows' __launch_bounds__(256, 2)

WINDOW_SLOTS_KEY = declare_cache("window_slots", "the windows kernel's slots of the matrix, its item length and items")
WINDOW_REUSE_KEY = declare_cache("window_reuse", "sampled entries per distinct row and rows per window (window_reuse)")


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


def window_layout_of(cp, A, colptr, rowidx, k, device_id, t):
    """:func:`window_slots` of A (cached on A; the lists they come from are not kept), the item length
    (the tuning's windows_seg), and the items of at most that many slots (:func:`rows_items` over
    slot_ptr) with the columns of the windows of several items.  Returns (slots, items, seg)."""
    seg = t.windows_seg
    key = (WINDOW_SLOTS_KEY, WINDOW, np.dtype(colptr.dtype).str, colptr.device.id)
    slots = A.cached(key, lambda: window_slots(cp, window_lists(cp, colptr, rowidx, int(A.shape[0]))))
    if seg == "auto":  # one host copy of the window lengths and one choice per k / 32, cached
        slabs = k // WINDOW
        seg = A.cached(key + ("seg", slabs, tuple(t.windows_segs), float(t.windows_min_waves)),
                       lambda: windows_seg(cp.asnumpy(cp.diff(slots["slot_ptr"])), slabs,
                                           sm_count(device_id) * WINDOWS_WARPS_PER_SM, t))
    seg = int(seg)

    def build_items():
        items = rows_items(cp, slots["slot_ptr"], seg)
        ncols = int(colptr.shape[0]) - 1
        cols = (items["multi_cols"][:, None] * WINDOW + cp.arange(WINDOW, dtype=np.int64)).ravel()
        items["multi_window_cols"] = cols[cols < ncols]
        return items

    return slots, A.cached(key + ("items", seg), build_items), seg


def use_windows(cp, A, colptr, rowidx, add, mul, dtype, pattern, k, mode, adds, device_id, t):
    """Whether a k-block veCSC product runs as windows on tensor cores (the tuning's vecsc_windows)."""
    if t.vecsc_windows is False:
        return False
    if not (windows_semiring(add, mul, dtype, pattern) and mode == MASK_NONE and k % WINDOW == 0 and adds
            and int(A.shape[0]) < 2**31 and k * 4 < 2**32 and compute_capability(device_id) >= 80):
        return False
    if t.vecsc_windows == "auto":
        key = (WINDOW_REUSE_KEY, WINDOW, int(t.windows_sample), colptr.device.id)
        reuse, rows = A.cached(key, lambda: window_reuse(cp, colptr, rowidx, int(A.shape[0]),
                                                         int(t.windows_sample)))
        return reuse >= t.windows_min_reuse and rows >= t.windows_min_rows
    return True
