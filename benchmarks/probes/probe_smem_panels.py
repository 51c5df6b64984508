"""Shared-memory row panels for k = 32 block products, against the engine's row kernel (device time):
does reading U's rows from shared memory, a panel of R rows at a time, beat reading them from L2 on the
graphs whose entries cluster into dense tiles (Mycielski)?

    PYTHONPATH=. python3 tools/probe_smem_panels.py [--graphs myc16,myc17] [--out DIR]

The sixth 2026-11-24 session built this as an engine kernel (spla_vecsc_panels below, chosen for
unmasked k-blocks when the tiles' reuse nnz / (tiles * R) is at least 4: Mycielski 16/17 18.7 / 18.3,
Kronecker, BA, ws2M and grid2000 below 1), passed the GPU tests against the dense reference, measured it
slower than the row kernel and moved it here; docs/benchmarks.md has the numbers.  The design:

* panel_tiles: A cut into tiles of R rows by C columns, the non-empty tiles sorted by (column group,
  panel), each entry one word (local column << 16 | local row); a tile of >= R entries is dense (its
  panel is loaded), else sparse (its rows are read from U); a group's tiles cut into work items of equal
  cost (dense: E + 2R, sparse: 2E), largest first;
* spla_vecsc_panels: one block of 1024 threads per SM takes items from an atomic counter; shared memory
  holds the group's C rows of Y and two panels of R rows of U (cp.async double buffering, the next
  tile's words prefetched into L2); a tile's entries are split evenly over the groups of L lanes, runs of
  one column reduced in registers and ADDed into Y's rows in shared memory; the block then stores its
  rows of Y (or ADDs them, when its group has several items).  k = 32 float32, H100: R = 640, C = 512.

Prints a line per case; JSON to DIR/probe_smem_panels.json.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import cupy as cp
import numpy as np

from probe_products import close, device_ms, engine_block, load_matrix, probe_args, recorder, save_json
from spla.backends import gpu as G

KERNEL = r"""
// ================================================================================================
// veCSC, block of k vectors over row panels held in shared memory ("panels" mode, unmasked).  For
// graphs whose entries cluster in dense tiles (Mycielski: a 640-row panel is read ~18 times per load),
// U's rows come from shared memory instead of L2.  The backend (panel_tiles) cuts A into tiles of R
// rows (a panel) by C columns (a column group), keeps the non-empty ones sorted by (group, panel), and
// stores each entry as one word packed = local column << 16 | local row (both < 65536), its value in
// pvals (same order).  A group's tiles are cut into work items of about equal entries (a heavy group
// gets several, item_multi = 1), sorted largest first.
//
// Thread mapping: a block (SPLA_PANEL_BLOCK threads, one block per SM) takes the next item from an
// atomic counter.  Its dynamic shared memory holds ys (C rows of Y: the item's group, as 16-byte
// pieces, starting at the identity) and two panels of R rows of U (double-buffered: cp.async copies
// the next tile's panel while the block reduces the current one; barriers between).  For one tile of
// E entries, group q of L lanes (q < G = blockDim.x / L) owns the entries [E q / G, E (q + 1) / G)
// of the tile -- a balanced share whatever the columns' lengths -- and lane g of the group owns the
// pieces pc = g, g + L, ... < P of each row (as spla_vecsc_rows: every lane reads the same packed
// word, then its 16-byte piece of the row from the panel).  A run of the group's entries in one column
// is reduced in registers, then ADDed into ys: with ADD's atomic for the run at either end of the
// group's share (it may share its column with the neighbouring group), with a plain read-add-write
// for the runs inside it (their column is the group's alone within this tile).  After its last tile
// the block writes ys to y: stored under the output semantics (spla_piece_store, every component
// computed) when the item is its group's only one, else ADDed with ADD's atomic per component that is
// not the identity (the backend stored the identity there first unless accum is ADD).
//   packed (nnz,) unsigned int, pvals (nnz,) T (unread when PATTERN), tile_panel (ntiles,) int,
//   tile_ptr (ntiles+1,) long long, item_group/item_t0/item_t1 (nitems,) int, item_multi (nitems,)
//   unsigned char, counter: one zeroed unsigned int, u (nrows, k) T, y (ncols, k) T; k * sizeof(T) a
//   multiple of 16, u and y 16-byte aligned; shared memory (C + 2 R) * P * 16 bytes.
// ================================================================================================
#ifndef SPLA_PANEL_BLOCK
#define SPLA_PANEL_BLOCK 1024
#endif
#ifndef SPLA_PANEL_MIN_BLOCKS
#define SPLA_PANEL_MIN_BLOCKS 1
#endif
// Prefetch the next tile's packed words (and values) into L2 while the block reduces the current tile.
// Entries per step of the two-pieces-per-lane walk.
#ifndef SPLA_PANEL_PAIR_UNROLL
#define SPLA_PANEL_PAIR_UNROLL 2
#endif
#ifndef SPLA_PANEL_PREFETCH
#define SPLA_PANEL_PREFETCH 1
#endif

// 16-byte global -> shared copy that bypasses registers (cp.async, sm_80 and later); older devices copy
// through registers, so wait/commit are then no-ops.
SPLA_DEV void spla_copy16_async(void* smem, const void* gmem)
{
#if __CUDA_ARCH__ >= 800
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
#else
    *reinterpret_cast<uint4*>(smem) = __ldg(reinterpret_cast<const uint4*>(gmem));
#endif
}
SPLA_DEV void spla_copy_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
SPLA_DEV void spla_copy_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// Ask L2 for the packed words (and values) [e0, e1) of a tile, a 128-byte line per thread.
template <class T, bool PATTERN>
SPLA_DEV void spla_prefetch_l2(const unsigned int* packed, const T* pvals, long long e0, long long e1)
{
#if SPLA_PANEL_PREFETCH
    for (long long q = (e0 >> 5) + threadIdx.x; q <= ((e1 - 1) >> 5); q += blockDim.x)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(packed + (q << 5)));
    if (!PATTERN) {
        const long long per = 128 / (long long)sizeof(T);
        for (long long q = e0 / per + threadIdx.x; q <= (e1 - 1) / per; q += blockDim.x)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(pvals + q * per));
    }
#endif
}

// Copy the rows [panel * R, min(nrows, panel * R + rows)) of u (P pieces each) into buf, asynchronously,
// as one commit group (empty when rows == 0: a sparse tile, read from u directly).
SPLA_DEV void spla_panel_load(uint4* buf, const uint4* __restrict__ u4, long long panel, int R, int want, int P,
                              long long nrows)
{
    const long long r0 = panel * R;
    const long long rows = nrows - r0 < want ? nrows - r0 : want;
    const long long count = rows * P;
    const uint4* src = u4 + r0 * P;
    for (long long q = threadIdx.x; q < count; q += blockDim.x) spla_copy16_async(buf + q, src + q);
    spla_copy_commit();
}

// ys piece = ADD(ys piece, acc): atomically per component (identity components skipped) or plainly.
template <class Add, class T>
SPLA_DEV void spla_panel_flush(uint4* dst, const spla_piece<T>& acc, bool atomic, T ident)
{
    if (atomic) {
        T* d = reinterpret_cast<T*>(dst);
#pragma unroll
        for (int v = 0; v < (int)(16 / sizeof(T)); ++v)
            if (acc.v[v] != ident) spla_atomic_update<Add, T>(d + v, acc.v[v]);
    } else {
        spla_piece<T> o;
        o.raw = *dst;
#pragma unroll
        for (int v = 0; v < (int)(16 / sizeof(T)); ++v) o.v[v] = Add::op(o.v[v], acc.v[v]);
        *dst = o.raw;
    }
}

// Whether skipping identity inputs can be left out of the panel walk: a pattern matrix (a == 1) under
// plus with times or first adds MUL(0, 1) = 0, which leaves every sum as it is (+0 + -0 = +0, and a
// sum that starts at +0 never becomes -0), so the per-component test is dropped.
template <class Add, class Mul, bool PATTERN> struct spla_skip_free { static const bool value = false; };
template <> struct spla_skip_free<spla_add_plus, spla_mul_times, true> { static const bool value = true; };
template <> struct spla_skip_free<spla_add_plus, spla_mul_first, true> { static const bool value = true; };

template <class Add, class Mul, class T, bool PATTERN>
SPLA_DEV void spla_panel_add(spla_piece<T>& acc, const spla_piece<T>& x, T a, T ident)
{
    if (spla_skip_free<Add, Mul, PATTERN>::value) {
#pragma unroll
        for (int v = 0; v < (int)(16 / sizeof(T)); ++v) acc.v[v] = Add::op(acc.v[v], x.v[v]);
    } else {
        spla_piece_add<Add, Mul, T>(acc, x, a, ident);
    }
}

// Row piece pc of local row r of the tile: from the shared panel, or (GLOBAL: a sparse tile, whose
// panel is not loaded) from u itself, row row0 + r.
template <bool GLOBAL>
SPLA_DEV uint4 spla_panel_row(const uint4* src, long long row0, unsigned int r, int P, int pc)
{
    if (GLOBAL) return __ldg(src + (row0 + (long long)r) * P + pc);
    return src[(int)r * P + pc];
}

// Reduce the pieces pc[0..PPL) of the entries [a, b) of one tile into ys, run by run (src, row0:
// spla_panel_row), UNR entries per step, the next step's words loaded one step ahead.
template <class Add, class Mul, class T, bool PATTERN, bool GLOBAL, int PPL, int UNR>
SPLA_DEV void spla_panel_walk(const unsigned int* __restrict__ packed, const T* __restrict__ pvals,
                              const uint4* src, long long row0, uint4* ys, int P, int pc0, int pc1, long long a,
                              long long b, T ident)
{
    if (a >= b) return;
    int pc[PPL];
#pragma unroll
    for (int j = 0; j < PPL; ++j) pc[j] = j == 0 ? pc0 : pc1;
    spla_piece<T> none, acc[PPL];
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v) none.v[v] = ident;
#pragma unroll
    for (int j = 0; j < PPL; ++j) acc[j] = none;
    unsigned int col = __ldg(packed + a) >> 16;
    bool first = true;  // the run at the start of the share: its column may continue in the group before
    long long p = a;
    unsigned int w[UNR];
    if (b - p >= UNR) {
#pragma unroll
        for (int q = 0; q < UNR; ++q) w[q] = __ldg(packed + p + q);
    }
    for (; b - p >= UNR; p += UNR) {
        spla_piece<T> x[UNR][PPL];
#pragma unroll
        for (int q = 0; q < UNR; ++q)
#pragma unroll
            for (int j = 0; j < PPL; ++j) x[q][j].raw = spla_panel_row<GLOBAL>(src, row0, w[q] & 0xffffu, P, pc[j]);
        unsigned int wn[UNR];
        if (b - p >= 2 * UNR) {  // the next step's words, in flight while this step reduces
#pragma unroll
            for (int q = 0; q < UNR; ++q) wn[q] = __ldg(packed + p + UNR + q);
        }
#pragma unroll
        for (int q = 0; q < UNR; ++q) {
            const unsigned int c = w[q] >> 16;
            if (c != col) {
#pragma unroll
                for (int j = 0; j < PPL; ++j) {
                    spla_panel_flush<Add, T>(ys + (int)col * P + pc[j], acc[j], first, ident);
                    acc[j] = none;
                }
                first = false;
                col = c;
            }
            const T e = spla_entry<T, PATTERN>(pvals, p + q);
#pragma unroll
            for (int j = 0; j < PPL; ++j) spla_panel_add<Add, Mul, T, PATTERN>(acc[j], x[q][j], e, ident);
        }
#pragma unroll
        for (int q = 0; q < UNR; ++q) w[q] = wn[q];
    }
    for (; p < b; ++p) {
        const unsigned int w1 = __ldg(packed + p);
        spla_piece<T> x[PPL];
#pragma unroll
        for (int j = 0; j < PPL; ++j) x[j].raw = spla_panel_row<GLOBAL>(src, row0, w1 & 0xffffu, P, pc[j]);
        if ((w1 >> 16) != col) {
#pragma unroll
            for (int j = 0; j < PPL; ++j) {
                spla_panel_flush<Add, T>(ys + (int)col * P + pc[j], acc[j], first, ident);
                acc[j] = none;
            }
            first = false;
            col = w1 >> 16;
        }
        const T e = spla_entry<T, PATTERN>(pvals, p);
#pragma unroll
        for (int j = 0; j < PPL; ++j) spla_panel_add<Add, Mul, T, PATTERN>(acc[j], x[j], e, ident);
    }
#pragma unroll
    for (int j = 0; j < PPL; ++j)  // the last run may continue in the next group
        spla_panel_flush<Add, T>(ys + (int)col * P + pc[j], acc[j], true, ident);
}

// The tile's walk for one lane: two pieces per lane when P == 2 L (ppl == 2; groups of odd index take
// their second half first, so that two groups that share a quarter-warp read different banks), else
// the pieces glane, glane + L, ... one by one.
template <class Add, class Mul, class T, bool PATTERN, bool GLOBAL>
SPLA_DEV void spla_panel_tile(const unsigned int* __restrict__ packed, const T* __restrict__ pvals,
                              const uint4* src, long long row0, uint4* ys, int P, int L, int ppl, int glane,
                              long long gid, long long a, long long b, T ident)
{
    if (ppl == 2) {
        const int s = (int)(gid & 1);
        spla_panel_walk<Add, Mul, T, PATTERN, GLOBAL, 2, SPLA_PANEL_PAIR_UNROLL>(packed, pvals, src, row0, ys, P, glane + L * s,
                                                           glane + L * (1 - s), a, b, ident);
    } else {
        for (int q = glane; q < P; q += L)
            spla_panel_walk<Add, Mul, T, PATTERN, GLOBAL, 1, 4>(packed, pvals, src, row0, ys, P, q, q, a, b, ident);
    }
}

template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void __launch_bounds__(SPLA_PANEL_BLOCK, SPLA_PANEL_MIN_BLOCKS) spla_vecsc_panels(
    const unsigned int* __restrict__ packed, const T* __restrict__ pvals, const int* __restrict__ tile_panel,
    const long long* __restrict__ tile_ptr, const unsigned char* __restrict__ tile_dense,
    const int* __restrict__ item_group, const int* __restrict__ item_t0,
    const int* __restrict__ item_t1, const unsigned char* __restrict__ item_multi, int nitems,
    unsigned int* __restrict__ counter, const T* __restrict__ u, T* __restrict__ y, long long nrows,
    long long ncols, long long k, int L, int ppl, int R, int C, int accum, int flags)
{
    extern __shared__ uint4 spla_panel_smem[];
    __shared__ int item_s;
    const T ident = Add::template identity<T>();
    const int V = (int)(16 / sizeof(T));
    const int P = (int)(k / V);
    const int glane = (int)(threadIdx.x & (unsigned int)(L - 1));
    const long long gid = threadIdx.x / L, G = blockDim.x / L;
    const uint4* __restrict__ u4 = reinterpret_cast<const uint4*>(u);
    uint4* __restrict__ y4 = reinterpret_cast<uint4*>(y);
    uint4* ys = spla_panel_smem;
    uint4* panels = spla_panel_smem + (long long)C * P;  // two buffers of R * P pieces
    const long long panel_size = (long long)R * P;
    spla_piece<T> none;
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v) none.v[v] = ident;
    const unsigned int all = (V == 32) ? 0xffffffffu : ((1u << V) - 1u);
    for (;;) {
        __syncthreads();  // the previous item's ys is written out, item_s read by every thread
        if (threadIdx.x == 0) item_s = (int)atomicAdd(counter, 1u);
        __syncthreads();
        const int item = item_s;
        if (item >= nitems) return;
        const long long j0 = (long long)__ldg(item_group + item) * C;
        const int t0 = __ldg(item_t0 + item), t1 = __ldg(item_t1 + item);
        for (long long q = threadIdx.x; q < (long long)C * P; q += blockDim.x) ys[q] = none.raw;
        if (t0 < t1) {
            spla_panel_load(panels, u4, __ldg(tile_panel + t0), R, __ldg(tile_dense + t0) ? R : 0, P, nrows);
            spla_prefetch_l2<T, PATTERN>(packed, pvals, tile_ptr[t0], tile_ptr[t0 + 1]);
        }
        for (int t = t0; t < t1; ++t) {
            const uint4* cur = panels + ((t - t0) & 1) * panel_size;
            if (t + 1 < t1) {  // the other buffer was last read before the barrier that ended tile t - 1
                spla_panel_load(panels + ((t + 1 - t0) & 1) * panel_size, u4, __ldg(tile_panel + t + 1), R,
                                __ldg(tile_dense + t + 1) ? R : 0, P, nrows);
                spla_prefetch_l2<T, PATTERN>(packed, pvals, tile_ptr[t + 1], tile_ptr[t + 2]);
                spla_copy_wait<1>();
            } else {
                spla_copy_wait<0>();
            }
            __syncthreads();  // tile t's panel (every thread's copies) and ys's fill are visible
            const long long e0 = tile_ptr[t], E = tile_ptr[t + 1] - e0;
            const long long a = e0 + E * gid / G, b = e0 + E * (gid + 1) / G;
            if (__ldg(tile_dense + t))
                spla_panel_tile<Add, Mul, T, PATTERN, false>(packed, pvals, cur, 0, ys, P, L, ppl, glane, gid, a, b,
                                                             ident);
            else
                spla_panel_tile<Add, Mul, T, PATTERN, true>(packed, pvals, u4, (long long)__ldg(tile_panel + t) * R, ys,
                                                            P, L, ppl, glane, gid, a, b, ident);
            __syncthreads();  // every group is done with this panel and with ys for this tile
        }
        if (t0 >= t1) __syncthreads();  // an empty item: ys's fill
        const bool multi = __ldg(item_multi + item) != 0;
        const long long count = ((ncols - j0 < C) ? ncols - j0 : C) * P;
        for (long long q = threadIdx.x; q < count; q += blockDim.x) {
            const long long j = j0 + q / P, pc = q - (q / P) * P;
            spla_piece<T> t;
            t.raw = ys[q];
            if (multi) {
                for (int v = 0; v < V; ++v)
                    if (t.v[v] != ident) spla_atomic_update<Add, T>(y + j * k + pc * V + v, t.v[v]);
            } else {
                spla_piece_store<T>(y4, j * P + pc, all, t, ident, accum, flags);
            }
        }
    }
}

"""

SMEM = 227 * 1024  # shared memory per block (H100 opt-in maximum less 1 KiB)

def panel_geometry(row_bytes, smem_bytes):
    """(R, C) of spla_vecsc_panels for rows of ``row_bytes`` bytes (a multiple of 16) and ``smem_bytes``
    of shared memory per block, or None when they hold fewer than 64 rows of each kind.

    The block holds C rows of Y and two panels of R rows of U: (C + 2 R) * row_bytes <= smem_bytes,
    with C the power of two at most 2/7 of the rows that fit and R the rest halved, rounded down to a
    multiple of 32; both at most 65536 (16-bit local indices).  128-byte rows (k = 32 float32) in
    227 KiB: R = 640, C = 512."""
    rows = int(smem_bytes) // int(row_bytes)
    if rows * 2 < 7 * 64:
        return None
    C = min(65536, 1 << int(math.floor(math.log2(rows * 2 / 7))))
    R = min(65536, (rows - C) // 2 // 32 * 32)
    return (R, C) if R >= 64 else None


def panel_reuse_bound(xp, colptr, rowidx, R, C):
    """An upper bound of :func:`panel_tiles`' reuse without its sort (a float; one host sync).

    colptr (ncols+1,), rowidx (nnz,) int32/int64 (NumPy or CuPy, rows sorted within each column).
    With runs = the (column, panel of R rows) pairs that hold entries: a tile holds at most C of them,
    so tiles >= runs / C and reuse = nnz / (tiles * R) <= nnz * C / (runs * R)."""
    nnz = int(rowidx.shape[0])
    if nnz == 0:
        return 0.0
    panel = rowidx // R
    new = xp.ones(nnz, dtype=bool)
    new[1:] = panel[1:] != panel[:-1]
    lens = colptr[1:] - colptr[:-1]
    new[colptr[:-1][lens > 0]] = True  # every column's first entry starts a run
    return nnz * C / (int(new.sum()) * R)


def panel_tiles(xp, colptr, rowidx, nrows, R, C, items):
    """The panel-tile copy of a CSC matrix that spla_vecsc_panels walks (array module ``xp``).

    colptr (ncols+1,), rowidx (nnz,) int32/int64, rows sorted within each column; tiles of R rows
    (panel) by C columns (group), R, C <= 65536; items: about how many work items to make (>= 1).
    A tile of E entries is dense when E >= R (its panel is loaded into shared memory; cost E + 2 R:
    the load and its barrier) and sparse otherwise (its rows are read from U; cost 2 E).
    Returns a dict:
      packed      (nnz,) uint32: the entries sorted by (group, panel, column, row), each as
                  (column % C) << 16 | (row % R)
      perm        (nnz,) int64: packed[q] is entry perm[q] of the CSC (its value: values[perm[q]])
      tile_panel  (ntiles,) int32: the non-empty tiles' panels, tiles in (group, panel) order
      tile_ptr    (ntiles+1,) int64: tile t's entries are packed[tile_ptr[t]:tile_ptr[t+1]]
      tile_dense  (ntiles,) uint8: 1 for a dense tile
      item_group, item_t0, item_t1 (nitems,) int32: work item q reduces tiles [t0, t1) of its group
                  (t0 == t1: a group without entries); a group's tiles are cut where their cost
                  within the group crosses a multiple of target = ceil(total cost / items); items
                  sorted by cost, descending
      item_multi  (nitems,) uint8: 1 when the item's group has several items (their partial sums are
                  ADDed into y)
      multi_cols  (nmc,) int64: the columns of the groups that have several items
      ntiles, ndense, nitems, nmulti (groups of several items), target: ints; reuse: nnz / (ntiles * R) (0.0
      if empty), dense_share: the share of the entries in dense tiles
    Vectorised; one sort of the nnz entries."""
    i64 = np.int64
    ncols = int(colptr.shape[0]) - 1
    lens = (colptr[1:] - colptr[:-1]).astype(i64)
    nnz = int(rowidx.shape[0])
    groups = -(-ncols // C)
    npanels = max(1, -(-int(nrows) // R))
    col = xp.repeat(xp.arange(ncols, dtype=i64), lens)
    row = rowidx.astype(i64)
    tile = (col // C) * npanels + row // R
    perm = xp.argsort((tile * C + col % C) * R + row % R)  # distinct keys: (group, panel, column, row)
    tile, col, row = tile[perm], col[perm], row[perm]
    packed = (((col % C) << 16) | (row % R)).astype(np.uint32)
    del col, row
    first = xp.ones(nnz, dtype=bool)
    first[1:] = tile[1:] != tile[:-1]
    starts = xp.flatnonzero(first)
    tkey = tile[starts]
    del tile, first
    ntiles = int(starts.shape[0])
    tile_ptr = xp.concatenate([starts.astype(i64), xp.full(1, nnz, dtype=i64)])
    tile_group = tkey // npanels
    cnt = tile_ptr[1:] - tile_ptr[:-1]
    dense = cnt >= R
    cost = xp.where(dense, cnt + 2 * R, 2 * cnt)
    done = xp.concatenate([xp.zeros(1, dtype=i64), xp.cumsum(cost)])  # cost of the tiles before each tile
    target = max(1, -(-int(done[-1]) // max(1, int(items))))
    group_first = xp.searchsorted(tile_group, tile_group, side="left")
    slot = (done[:-1] - done[group_first]) // target  # the tile's item within its group
    new = xp.ones(ntiles, dtype=bool)
    new[1:] = (tile_group[1:] != tile_group[:-1]) | (slot[1:] != slot[:-1])
    t0 = xp.flatnonzero(new)
    t1 = xp.concatenate([t0[1:], xp.full(1, ntiles, dtype=t0.dtype)])
    igroup = tile_group[t0]
    per_group = xp.bincount(igroup, minlength=groups) if ntiles else xp.zeros(groups, dtype=i64)
    empty = xp.flatnonzero(per_group == 0)
    icost = xp.concatenate([done[t1] - done[t0], xp.zeros(empty.shape[0], dtype=i64)])
    igroup = xp.concatenate([igroup, empty])
    t0 = xp.concatenate([t0, xp.zeros(empty.shape[0], dtype=t0.dtype)])
    t1 = xp.concatenate([t1, xp.zeros(empty.shape[0], dtype=t1.dtype)])
    nitems = int(igroup.shape[0])
    order = xp.argsort(-icost * nitems + xp.arange(nitems, dtype=i64))  # distinct keys
    multi_groups = xp.flatnonzero(per_group > 1)
    multi_cols = (multi_groups[:, None] * C + xp.arange(C, dtype=i64)[None, :]).ravel()
    return {"packed": packed, "perm": perm.astype(i64), "tile_panel": (tkey % npanels).astype(np.int32),
            "tile_ptr": tile_ptr, "tile_dense": dense.astype(np.uint8), "item_group": igroup[order].astype(np.int32),
            "item_t0": t0[order].astype(np.int32), "item_t1": t1[order].astype(np.int32),
            "item_multi": (per_group[igroup[order]] > 1).astype(np.uint8),
            "multi_cols": multi_cols[multi_cols < ncols], "ntiles": ntiles, "ndense": int(dense.sum()),
            "nitems": nitems, "nmulti": int(multi_groups.shape[0]), "target": target,
            "reuse": nnz / (ntiles * R) if ntiles else 0.0,
            "dense_share": float(cnt[dense].sum()) / nnz if nnz else 0.0}


def panel_lanes(k, itemsize, pairs):
    """(L, ppl): lanes per group and 16-byte pieces per lane per entry (two when the row's pieces are
    2 L for a power of two L <= 32 and ``pairs``; else the row kernel's group, one piece)."""
    pieces = k * itemsize // 16
    if pairs and pieces % 2 == 0 and pieces // 2 <= 32 and (pieces // 2) & (pieces // 2 - 1) == 0:
        return pieces // 2, 2
    return int(min(32, 1 << (pieces - 1).bit_length())), 1


def module(defines=()):
    """The panel kernel for plus_times float32 pattern int32, compiled after spmv.cuh's helpers."""
    code = G._source(str(G.SPMV_SOURCE)).replace("#endif  // SPLA_SPMV_CUH", "") + KERNEL + "\n#endif\n"
    opts = G.NVRTC_OPTIONS + tuple(f"-D{d}" for d in defines)
    expr = "spla_vecsc_panels<spla_add_plus, spla_mul_times, float, int, true>"
    mod = cp.RawModule(code=code, options=opts, name_expressions=[expr])
    return mod.get_function(expr)


def panels_vxm(func, t, U, Y, R, C, L, ppl, blocks, block):
    """Y = U +.* A (pattern A, plus_times float32, fresh Y) with the panel kernel and tiles ``t``."""
    k = U.shape[1]
    nbytes = (C + 2 * R) * k * 4
    if t["nmulti"]:
        Y[t["multi_cols"]] = 0  # the several items of a group ADD into Y
    func((min(t["nitems"], blocks),), (block,), (
        t["packed"], U, t["tile_panel"], t["tile_ptr"], t["tile_dense"], t["item_group"], t["item_t0"],
        t["item_t1"], t["item_multi"], np.int32(t["nitems"]), cp.zeros(1, dtype=np.uint32), U, Y,
        np.int64(U.shape[0]), np.int64(Y.shape[0]), np.int64(k), np.int32(L), np.int32(ppl), np.int32(R),
        np.int32(C), np.int32(0), np.int32(1)), shared_mem=nbytes)


#: (NVRTC defines, pieces per lane: pairs?, items per SM, blocks per SM: SMEM / blocks each)
VARIANTS = [((), False, 4, 1), ((), False, 16, 1), ((), False, 32, 1), (("SPLA_PANEL_PREFETCH=0",), False, 16, 1),
            ((), True, 16, 1), (("SPLA_PANEL_BLOCK=512", "SPLA_PANEL_PAIR_UNROLL=4"), True, 16, 1),
            (("SPLA_PANEL_BLOCK=512", "SPLA_PANEL_MIN_BLOCKS=2"), False, 16, 2),
            (("SPLA_PANEL_BLOCK=512", "SPLA_PANEL_MIN_BLOCKS=2"), False, 32, 2)]


def main():
    args = probe_args("myc16,myc17")
    rows = []
    rec = recorder(rows, 60)
    sms = G._sm_count(0)
    for name in args.graphs.split(","):
        A = load_matrix(name)
        n, K = int(A.shape[0]), 32
        U = cp.asarray(np.random.default_rng(0).random((n, K), dtype=np.float32))
        Y, ref, ms = engine_block(A, U, name)
        rec(name, "k32 engine (rows)", ms, close(Y, ref))
        for defines, pairs, per_sm, per_block in VARIANTS:
            smem = SMEM // per_block - (1024 if per_block > 1 else 0)
            R, C = panel_geometry(K * 4, smem)
            bound = panel_reuse_bound(cp, A.colptr, A.rowidx, R, C)
            if bound < 1.0:
                print(f"{name}: reuse bound {bound:.2f} at {R} x {C}: not run", flush=True)
                break
            t = panel_tiles(cp, A.colptr, A.rowidx, n, R, C, per_sm * sms)
            if t["reuse"] < 1.0:
                print(f"{name}: reuse {t['reuse']:.2f} at {R} x {C}: a panel per few entries, not run", flush=True)
                break
            func = module(defines)
            func.max_dynamic_shared_size_bytes = (C + 2 * R) * K * 4
            L, ppl = panel_lanes(K, 4, pairs)
            block = 512 if "SPLA_PANEL_BLOCK=512" in defines else 1024

            def step(func=func, t=t, L=L, ppl=ppl, block=block, R=R, C=C, blocks=per_block * sms):
                for _ in range(16):
                    panels_vxm(func, t, U, Y, R, C, L, ppl, blocks, block)
            Y.fill(7)
            ms, _ = device_ms(step, f"{name} panels")
            rec(name, f"k32 panels {R}x{C} {' '.join(defines)} pairs={pairs} items/SM={per_sm} blocks/SM={per_block}",
                ms, close(Y, ref), ntiles=t["ntiles"], ndense=t["ndense"], nitems=t["nitems"],
                reuse=round(t["reuse"], 2))
        step = None  # the closure holds U, Y and the tiles
    save_json(args.out, "probe_smem_panels.json", rows)


if __name__ == "__main__":
    main()
