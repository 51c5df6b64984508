// spla/kernels/spmv/tiles.cuh -- scCSC for masked k == 1 products on warp tiles, and the chunks of
// long columns that the tiles list.
//
// Kernels: spla_sccsc_tiles<Add, Mul, T, I, PATTERN, LISTED>, spla_listed_chunks<Add, Mul, T, I,
//   PATTERN>.
// Thread mapping: spla_sccsc_tiles: a warp per item, grid-stride by global warp id: a fused group of
//   per_warp long-column chunks, or a tile of 32 R consecutive columns whose lane l tests the mask of
//   columns first + 32 r + l before groups of G lanes walk the kept ones.  spla_listed_chunks: a warp
//   per listed chunk, lane 0 ADDing its total into y[j].
// Inputs: colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unread if PATTERN), u (nrows,) T,
//   mask (ncols,) bool at mask[j * mask_js]; the chunk and listing arrays as each kernel says.
// Output: y (ncols,) T under the output semantics (reduce.cuh); a long column's chunks reach it
//   through per-chunk partials (fused, deterministic) or ADD into it atomically (listed, static).
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN; LISTED, the tiles
//   list their long computed columns' chunks for spla_listed_chunks.
// Host guarantees: blockDim.x a multiple of 32 and at most SPLA_BLOCK; R <= SPLA_TILE_R; group_max
//   a power of two in [1, 32]; done and listing_count are zero before a launch (the kernels leave
//   them zero); spla_listed_chunks runs on at most the device's resident blocks.

#ifndef SPLA_SPMV_TILES_CUH
#define SPLA_SPMV_TILES_CUH

#include "reduce.cuh"

// Resident blocks per SM asked of ptxas for the masked tiles (0: no __launch_bounds__): 5 trades a
// few spilled bytes for more warps per SM; 6 spills more and is slower.  The measurements behind 5:
// docs/kernels.md, "scCSC tiles" (benchmarks/probes/probe_tuning.py).
#ifndef SPLA_TILE_MIN_BLOCKS
#define SPLA_TILE_MIN_BLOCKS 5
#endif
#if SPLA_TILE_MIN_BLOCKS > 0
#define SPLA_TILE_BOUNDS __launch_bounds__(SPLA_BLOCK, SPLA_TILE_MIN_BLOCKS)
#else
#define SPLA_TILE_BOUNDS
#endif

// ================================================================================================
// scCSC tiles (k == 1, masked): a warp per tile of 32 * R consecutive columns (R <= SPLA_TILE_R).  A
// sparse mask costs a column one coalesced mask byte, and the kept columns of a tile are spread over
// the warp's lanes, so a mask that keeps a tenth of the columns still gives most lanes a column -- the
// worklist's compaction done inside the warp, with no global list of columns.  One tile (spla_tile):
//   1. Lane l tests the mask of columns first + 32 r + l (r < R; the R loads issued together),
//      stores the not-computed ones (the identity under FRESH / REPLACE), and ballots the computed
//      ones into the warp's shared list (column offsets in the tile, in column order).
//   2. A group of G lanes walks each listed column (G: the largest power of two <= group_max with
//      G * kept <= 32, so a sparse mask still fills the warp in one round; G = 1 when the tile keeps more
//      than 32 / 2 columns): lane g of the group reduces entries start + g, + G, ... (spla_column_reduce,
//      four gathers in flight), the group combines with an xor butterfly, and its first lane stores
//      y[j] with spla_store.  Listed columns q0 + l / G for rounds q0 = 0, 32 / G, ...
//   long_len > 0: a computed column with more than long_len entries is skipped in step 2 (with
//   long_init != 0 its y[j] is set to the identity first) and produced a warp per chunk, so hub
//   columns do not stall a lane, in one of three ways:
//   * fused (chunk_groups > 0): the first chunk_groups items of the grid are
//     spla_tile_chunk_group's groups of per_warp static chunks (long_init must be 0);
//   * listed (LISTED): the warp lists its long computed columns' chunks of `chunk`
//     entries and spla_listed_chunks ADDs them into y;
//   * static (chunk_groups == 0): spla_vecsc_long_chunks (and spla_vecsc_long_finish)
//     walk the static chunks of every long column afterwards, testing their masks.
//   The listing is compiled only into the LISTED instantiation (it costs the others registers).
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T, u (nrows,) T, y (ncols,) T, mask (ncols,)
//   bool at mask[j * mask_js]; group_max a power of two in [1, 32].  Shared memory: 32 * SPLA_TILE_R
//   bytes per warp of SPLA_BLOCK threads.
// ================================================================================================
#define SPLA_TILE_R 8

// A device-scope acquire-release fence (lighter than __threadfence's sequentially consistent one).
SPLA_DEV void spla_fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// The listing of spla_sccsc_tiles<LISTED> lives in device memory that outlives the launches (the backend
// keeps one per stream): listing_count[0] counts the listed chunks, listing_count[1] the blocks of
// spla_listed_chunks that have read that count; both zero before the tiles and zeroed by the last such
// block, so no memset precedes a product.

// One group of static long-column chunks inside spla_sccsc_tiles (fused chunks, k == 1), in the
// interleaved order of interleaved_chunks (every column's first chunk, then every second, ...: a kept
// hub's chunks land in many groups).  Lane l < per_warp reads chunk q = grp * per_warp + l (output
// column chunk_j[q], entries [chunk_begin[q], chunk_end[q])) and tests j's mask; the warp then
// reduces each computed chunk in turn (spla_group_reduce over 32 lanes, full-mask xor butterfly).  A
// column of one chunk (col_slot[idx] < 0, idx = chunk_col[q]) is stored at once (spla_store: any
// accum, any flags).  A column of n > 1 chunks stores its chunk's partial in part[chunk_part[q]]
// (its column-major position), fences, and counts itself on done[col_slot[idx]]; the chunk that
// arrives last (the threadfence-reduction pattern: nobody waits, so no co-residency is needed) reads
// the column's n partials part[col_chunk0[idx] ..) in chunk order (volatile: L1 is not coherent),
// reduces them, stores y[j] and sets its counter back to zero.  No ADD atomic on T, and a fixed
// reduction order: deterministic results for every monoid.
//   chunk_j, chunk_begin, chunk_end (nchunks,) I; chunk_col, chunk_part (nchunks,) int;
//   col_chunk0 (nlong+1,) int; col_slot (nlong,) int; part (nchunks,) T, no initial value;
//   done (slots,) unsigned int, zero beforehand and afterwards (the backend keeps it between launches).
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV void spla_tile_chunk_group(long long grp, int per_warp, long long nchunks, const I* __restrict__ chunk_j,
                                    const I* __restrict__ chunk_begin, const I* __restrict__ chunk_end,
                                    const int* __restrict__ chunk_col, const int* __restrict__ chunk_part,
                                    const int* __restrict__ col_chunk0, const int* __restrict__ col_slot,
                                    T* __restrict__ part, unsigned int* __restrict__ done,
                                    const I* __restrict__ rowidx, const T* __restrict__ vals,
                                    const T* __restrict__ u, T* __restrict__ y, const bool* __restrict__ mask,
                                    long long mask_js, int mask_mode, int accum, int flags, int vec4)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const long long mine = grp * per_warp + lane;
    bool comp = false;
    long long my_j = 0, my_begin = 0, my_end = 0;
    if ((int)lane < per_warp && mine < nchunks) {
        my_j = (long long)spla_ld(chunk_j + mine);
        my_begin = (long long)spla_ld(chunk_begin + mine);
        my_end = (long long)spla_ld(chunk_end + mine);
        comp = spla_computed(mask, mask_mode, my_j * mask_js);
    }
    unsigned int todo = __ballot_sync(0xffffffffu, comp);
    while (todo) {  // warp-uniform
        const int l = __ffs(todo) - 1;
        todo &= todo - 1u;
        const long long q = grp * per_warp + l;
        const long long j = __shfl_sync(0xffffffffu, my_j, l);
        const long long begin = __shfl_sync(0xffffffffu, my_begin, l);
        const long long end = __shfl_sync(0xffffffffu, my_end, l);
        const int idx = spla_ld(chunk_col + q);  // issued before the reduction, used after it
        T acc = spla_group_reduce<Add, Mul, T, PATTERN>(rowidx, vals, u, begin, end, (long long)lane, 32LL, vec4,
                                                        ident);
        for (int off = 16; off > 0; off >>= 1)
            acc = Add::op(acc, spla_shfl_xor(0xffffffffu, acc, off, 32));
        const int slot = spla_ld(col_slot + idx);  // warp-uniform
        if (slot < 0) {
            if (lane == 0) spla_store(y, j, true, acc, ident, accum, flags);
            continue;
        }
        const int c0 = spla_ld(col_chunk0 + idx), n = spla_ld(col_chunk0 + idx + 1) - c0;
        unsigned int before = 0;
        if (lane == 0) {
            part[spla_ld(chunk_part + q)] = acc;
            spla_fence_acq_rel();  // release: the partial is visible device-wide before the count says so
            before = atomicAdd(done + slot, 1u);
        }
        before = __shfl_sync(0xffffffffu, before, 0);
        if ((int)before != n - 1) continue;  // warp-uniform: not the column's last chunk
        spla_fence_acq_rel();  // acquire: the other chunks' partials, which their counts released
        __syncwarp();  // lane 0 made the acquiring read: order its fence before every lane's reads below
        T total = ident;
        for (int c = (int)lane; c < n; c += 32)
            total = Add::op(total, *(const volatile T*)(part + c0 + c));
        for (int off = 16; off > 0; off >>= 1)
            total = Add::op(total, spla_shfl_xor(0xffffffffu, total, off, 32));
        if (lane == 0) {
            spla_store(y, j, true, total, ident, accum, flags);
            done[slot] = 0u;  // every other chunk of the column has counted: ready for the next launch
        }
    }
}

// One tile of columns [first, first + 32 R) (steps 1 and 2 above), by the whole warp; `list` is the
// warp's shared list.  LISTED: the long computed columns' chunks of `chunk` entries are listed (one
// atomicAdd on *count per round of step 2 that holds a long column reserves the slots of all of its long
// columns -- a warp scan of their chunk counts -- which the warp's lanes fill column by column).
template <class Add, class Mul, class T, class I, bool PATTERN, bool LISTED>
SPLA_DEV void spla_tile(long long first, unsigned char* list, const I* __restrict__ colptr,
                        const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u,
                        T* __restrict__ y, const bool* __restrict__ mask, long long mask_js, int mask_mode,
                        long long ncols, int R, int accum, int flags, long long long_len, int long_init,
                        int group_max, long long* __restrict__ item_col, long long* __restrict__ item_first,
                        long long* __restrict__ item_last, unsigned long long* __restrict__ count, long long chunk)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int below = (1u << lane) - 1u;
    bool comp[SPLA_TILE_R];
#pragma unroll
    for (int r = 0; r < SPLA_TILE_R; ++r) {
        const long long j = first + 32LL * r + lane;
        comp[r] = r < R && j < ncols && spla_computed(mask, mask_mode, j * mask_js);
    }
    int kept = 0;  // warp-uniform
#pragma unroll
    for (int r = 0; r < SPLA_TILE_R; ++r) {
        if (r >= R) break;
        const long long j = first + 32LL * r + lane;
        if (!comp[r] && j < ncols && (flags & (SPLA_FRESH | SPLA_REPLACE))) y[j] = ident;
        const unsigned int b = __ballot_sync(0xffffffffu, comp[r]);
        if (comp[r]) list[kept + __popc(b & below)] = (unsigned char)(32 * r + lane);
        kept += __popc(b);
    }
    __syncwarp();
    // G lanes per listed column: the most (<= group_max) that still walk every kept column in one round
    int G = group_max;
    while (G > 1 && G * kept > 32) G >>= 1;  // warp-uniform
    const int g = (int)lane & (G - 1);
    for (int q0 = 0; q0 < kept; q0 += 32 / G) {  // warp-uniform
        const int q = q0 + (int)lane / G;
        long long j = 0, start = 0, end = 0;
        bool is_long = false;
        T acc = ident;
        if (q < kept) {
            j = first + (long long)list[q];
            start = spla_ld(colptr + j);
            end = spla_ld(colptr + j + 1);
            is_long = long_len > 0 && end - start > long_len;
            if (!is_long)
                acc = spla_column_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u, 1LL, 0LL, start + g, end,
                                                                  (long long)G, ident, ident);
        }
        for (int off = G >> 1; off > 0; off >>= 1)  // the group's lanes combine (aligned groups of G)
            acc = Add::op(acc, spla_shfl_xor(0xffffffffu, acc, off, 32));
        if (q < kept && g == 0) {
            if (!is_long) spla_store(y, j, true, acc, ident, accum, flags);
            else if (long_init) y[j] = ident;  // the chunks ADD the result into it
        }
        if (!LISTED) continue;  // fused or static chunks test their own masks
        is_long = is_long && g == 0;  // a long column is listed once, by its group's first lane
        unsigned int todo = __ballot_sync(0xffffffffu, is_long);
        if (todo == 0) continue;
        const long long nch = is_long ? (end - start + chunk - 1) / chunk : 0;
        long long incl = nch;
        for (unsigned int d = 1; d < 32; d <<= 1) {
            const long long o = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += o;
        }
        unsigned long long at = 0;
        if (lane == 31) at = atomicAdd(count, (unsigned long long)incl);
        at = __shfl_sync(0xffffffffu, at, 31);
        const long long mine = (long long)at + incl - nch;
        while (todo) {
            const int l = __ffs(todo) - 1;
            todo &= todo - 1u;
            const long long jl = __shfl_sync(0xffffffffu, j, l);
            const long long sl = __shfl_sync(0xffffffffu, start, l);
            const long long el = __shfl_sync(0xffffffffu, end, l);
            const long long nl = __shfl_sync(0xffffffffu, nch, l);
            const long long bl = __shfl_sync(0xffffffffu, mine, l);
            for (long long c = lane; c < nl; c += 32) {
                const long long f = sl + c * chunk;
                item_col[bl + c] = jl;
                item_first[bl + c] = f;
                item_last[bl + c] = f + chunk < el ? f + chunk : el;
            }
        }
    }
}

template <class Add, class Mul, class T, class I, bool PATTERN, bool LISTED>
__global__ void SPLA_TILE_BOUNDS spla_sccsc_tiles(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                                 const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                                 const bool* __restrict__ mask, long long mask_js, int mask_mode, long long ncols,
                                 int R, int accum, int flags, long long long_len, int long_init, int group_max,
                                 long long chunk_groups, int per_warp, long long nchunks,
                                 const I* __restrict__ chunk_j, const I* __restrict__ chunk_begin,
                                 const I* __restrict__ chunk_end, const int* __restrict__ chunk_col,
                                 const int* __restrict__ chunk_part, const int* __restrict__ col_chunk0,
                                 const int* __restrict__ col_slot, T* __restrict__ part,
                                 unsigned int* __restrict__ done, int vec4, long long* __restrict__ item_col,
                                 long long* __restrict__ item_first, long long* __restrict__ item_last,
                                 unsigned long long* __restrict__ listing_count, long long chunk)
// Grid-stride over items by global warp id, so every loop is warp-uniform; items [0, chunk_groups) are
// fused chunk groups (spla_tile_chunk_group), the rest tiles (spla_tile).
//   Fused: chunk_groups, per_warp, nchunks and the chunk arrays, part and done as spla_tile_chunk_group
//   (else 0 and null).  LISTED: item_col, item_first, item_last (capacity,) long long, capacity = every
//   long column's chunks of `chunk` entries; listing_count (2,) as above (else null).
{
    __shared__ unsigned char s_list[SPLA_BLOCK / 32][32 * SPLA_TILE_R];  // blockDim.x <= SPLA_BLOCK
    unsigned char* list = s_list[threadIdx.x >> 5];
    const long long tile_cols = 32LL * R;
    const long long tiles = (ncols + tile_cols - 1) / tile_cols;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long item = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; item < chunk_groups + tiles;
         item += nwarps) {
        if (!LISTED && item < chunk_groups) {  // warp-uniform: the fused chunk groups come first
            spla_tile_chunk_group<Add, Mul, T, I, PATTERN>(item, per_warp, nchunks, chunk_j, chunk_begin, chunk_end,
                                                           chunk_col, chunk_part, col_chunk0, col_slot, part, done,
                                                           rowidx, vals, u, y, mask, mask_js, mask_mode, accum, flags,
                                                           vec4);
            continue;
        }
        spla_tile<Add, Mul, T, I, PATTERN, LISTED>((item - chunk_groups) * tile_cols, list, colptr, rowidx, vals, u,
                                                   y, mask, mask_js, mask_mode, ncols, R, accum, flags, long_len,
                                                   long_init, group_max, item_col, item_first, item_last,
                                                   listing_count, chunk);
        __syncwarp();  // the next tile rewrites the list
    }
}

// spla_listed_chunks (k == 1): the chunks that spla_sccsc_tiles<LISTED> listed (item_col, item_first,
// item_last (capacity,) long long; listing_count[0] of them), a warp per chunk (grid-stride by global
// warp id; the grid is the device's resident blocks, the count being known only on the device): lane l
// reduces entries first + l, + 32, ... < last (spla_warp_chunk_add), the warp reduces with a full-mask
// xor butterfly, and lane 0 ADDs the total (nothing when it is the identity) straight into y[j] with
// ADD's atomic.  Only computed long columns are listed, so no mask is read here.  Thread 0 of each block
// reads the count, then counts its block on listing_count[1]; the last block to do so zeroes both.
//   rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows,) T, y (ncols,) T.
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_listed_chunks(const long long* __restrict__ item_col, const long long* __restrict__ item_first,
                                   const long long* __restrict__ item_last, unsigned long long* listing_count,
                                   const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u,
                                   T* __restrict__ y, int vec4)
{
    __shared__ unsigned long long s_count;
    volatile unsigned long long* vc = listing_count;
    if (threadIdx.x == 0) s_count = vc[0];
    __syncthreads();
    const long long items = (long long)s_count;
    if (threadIdx.x == 0 && atomicAdd(listing_count + 1, 1ULL) == gridDim.x - 1) {  // every block has read it
        vc[0] = 0;
        vc[1] = 0;
    }
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; q < items; q += nwarps) {
        const long long j = spla_ld(item_col + q);
        const long long begin = spla_ld(item_first + q), end = spla_ld(item_last + q);
        spla_warp_chunk_add<Add, Mul, T, I, PATTERN>(rowidx, vals, u, begin, end, y + j, vec4);
    }
}

#endif  // SPLA_SPMV_TILES_CUH
