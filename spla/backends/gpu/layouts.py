"""Auxiliary layouts of a matrix that the GPU kernels walk, built with array operations (NumPy or
CuPy: no Python loop over columns) and cached on the matrix (``A.cached``) under the names declared
here: the long-column split and its chunks, the row kernel's column order and work items, and the
fraction of empty columns.  The pure builders take an array module ``xp``; the ``*_of`` functions
cache them on a matrix, their keys carrying every setting the value depends on.
"""

from __future__ import annotations

import math

import numpy as np

from ... import device as _dev
from ... import tuning as _tuning
from ...matrix import declare_cache
from .compile import BLOCK
from .launch import resident_blocks

LONG_SPLIT_KEY = declare_cache("vecsc_long", "a GPU kernel's long-column split (vecsc_long_split) of the matrix")
TILE_CHUNKS_KEY = declare_cache("tile_chunks", "the tiles' long-column chunks in interleaved order")
ROWS_ITEMS_KEY = declare_cache("rows_items", "the row kernel's work items (rows_items) at one item length")
ROWS_CHUNK_KEY = declare_cache("rows_chunk", "the row kernel's item length (rows_chunk) for one device")
ROWS_ORDER_KEY = declare_cache("rows_order", "the row kernel's column order, longest first (rows_order)")
EMPTY_FRACTION_KEY = declare_cache("empty_column_fraction", "the fraction of the matrix's columns with no entries")


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


def long_split_of(cp, A, colptr, group, long, chunk):
    """:func:`vecsc_long_split` of A for groups of ``group`` lanes, cached on A.

    A column is long when it has more than ``long`` * group / 32 entries: the same entries per lane
    whatever the group, so a short group does not walk a hub column alone (one warp per ``chunk``
    entries does instead).  ``long``, ``chunk``: the tuning's long and chunk (veCSC), push_long and
    push_chunk (push) or tile_long and tile_chunk (tiles); ``long`` None or <= 0: no split."""
    long_len = None if long is None or long <= 0 else max(1, int(long) * int(group) // 32)
    chunk = int(chunk)
    key = (LONG_SPLIT_KEY, long_len, chunk, np.dtype(colptr.dtype).str, colptr.device.id)
    return A.cached(key, lambda: vecsc_long_split(cp, colptr, long_len, chunk))


def interleaved_chunks_of(cp, A, colptr, split, t):
    """:func:`interleaved_chunks` of A's tile split (the tuning's tile_long, tile_chunk), cached on A."""
    key = (TILE_CHUNKS_KEY, split["long_len"], t.tile_chunk, np.dtype(colptr.dtype).str, colptr.device.id)
    return A.cached(key, lambda: interleaved_chunks(cp, split))


def rows_items_of(cp, A, colptr, chunk):
    """:func:`rows_items` of A at ``chunk`` (cached on A)."""
    key = (ROWS_ITEMS_KEY, int(chunk), np.dtype(colptr.dtype).str, colptr.device.id)
    return A.cached(key, lambda: rows_items(cp, colptr, int(chunk)))


def rows_chunk_of(A, colptr, group, device_id, t):
    """:func:`rows_chunk` of A at the tuning's rows_long for groups of ``group`` lanes (cached on A):
    the item length, or None when no column is long."""
    groups = resident_blocks(device_id) * BLOCK // group
    key = (ROWS_CHUNK_KEY, t.rows_long, t.rows_chunk, t.rows_heavy_chunk, t.rows_heavy_share, t.rows_heavy_min_chunks,
           groups, device_id)
    return A.cached(key, lambda: rows_chunk(colptr, t.rows_long, groups, t))


def rows_order_of(cp, A, colptr, t):
    """:func:`rows_order` of A (the tuning's rows_order; cached on A), or None: walk in index order."""
    if t.rows_order is False:
        return None
    min_cv = -1.0 if t.rows_order is True else t.rows_order_min_cv
    key = (ROWS_ORDER_KEY, t.rows_long, min_cv, np.dtype(colptr.dtype).str, colptr.device.id)
    return A.cached(key, lambda: rows_order(cp, colptr, min_cv, t.rows_long))


def empty_fraction(A, colptr):
    """The fraction of A's columns with no entries (computed once, cached on A)."""
    ncols = int(colptr.shape[0]) - 1
    return A.cached((EMPTY_FRACTION_KEY, colptr.device.id),
                   lambda: _dev.count_true(colptr[1:] == colptr[:-1]) / ncols if ncols else 0.0)
