// spla/kernels/spmv/vecsc.cuh -- veCSC for one vector (k == 1): a group of lanes per column, and the
// long-column split that keeps a hub column from holding up its group.
//
// Kernels: spla_vecsc<Add, Mul, T, I, PATTERN>, spla_vecsc_long_chunks<Add, Mul, T, I, PATTERN>,
//   spla_vecsc_long_finish<Add, T, I>.
// Thread mapping: spla_vecsc: a group of G lanes (G in {2, 4, 8, 16, 32}) owns column j; lane g
//   walks entries colptr[j] + g, + G, ..., the group reduces with an xor butterfly over exactly its
//   lanes, and lane 0 of the group owns y[j].  spla_vecsc_long_chunks: a warp per group of per_warp
//   chunks of the long columns; lane 0 ADDs each computed chunk's total.  spla_vecsc_long_finish: a
//   thread per long column.
// Inputs: colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unread if PATTERN), u (nrows,) T,
//   mask (ncols,) bool at mask[j * mask_js]; the worklist and the chunk arrays as each kernel says.
// Outputs: y (ncols,) T under the output semantics (reduce.cuh); tl (nlong,) T, the long columns'
//   totals, ADDed into atomically.
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN.
// Host guarantees: blockDim.x a multiple of 32 (a group never straddles warps, every warp is full);
//   G a power of two; tl holds ADD's identity before the chunks run, and y[j] with `direct` holds
//   the identity (long_init) or the value the result is ADDed to; the launches run in order on one
//   stream.

#ifndef SPLA_SPMV_VECSC_CUH
#define SPLA_SPMV_VECSC_CUH

#include "reduce.cuh"

// ================================================================================================
// veCSC -- CSC vector, one vector (k == 1).  A group of G lanes (G in {2,4,8,16,32}, a power of two
// dividing 32, chosen by the backend's vecsc_group_size from the mean column length and the number of
// columns) per column j: lane g of the group reads entries p = colptr[j] + g, + G, ... (coalesced over
// the group), keeps a partial ADD, and the group reduces with an xor butterfly of __shfl_xor_sync
// whose member mask names exactly the G lanes of the group (groups of one warp may be in different
// iterations; no implicit warp synchrony is assumed).  Lane 0 of the group owns y[j].
//   G lanes per column; blockDim.x a multiple of 32; grid-stride loop over columns (group-uniform, so
//   every lane of a group executes the same shuffles).  A masked-out column costs one mask byte.
//   vec4 != 0: 32-bit rowidx is read with 16-byte loads (spla_group_reduce).
//   long_len > 0: a COMPUTED column with more than long_len entries is skipped (spla_vecsc_long_chunks,
//   and spla_vecsc_long_finish unless the chunks ADD straight into y, produce it); with long_init != 0
//   lane 0 first stores ADD's identity into its y[j], for chunks that ADD straight into y.  A
//   not-computed long column is still stored here.  long_len <= 0: no column is skipped.
//   Worklist mode (list != nullptr): group q takes column list[q] for q < *count (the computed
//   columns, compacted by spla_mask_worklist, which stored the others); long columns as above.
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows,) T,
//   y (ncols,) T, mask (ncols,) bool at mask[j * mask_js]; list (ncols,) I and count (1,)
//   unsigned long long, or both null.
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_vecsc(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                           const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                           const bool* __restrict__ mask, long long mask_js, int mask_mode,
                           long long ncols, int G, int accum, int flags, long long long_len, int long_init,
                           int vec4, const I* __restrict__ list, const unsigned long long* __restrict__ count)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int glane = lane & (unsigned int)(G - 1);
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    const long long items = list != nullptr ? (long long)*count : ncols;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; q < items; q += groups) {
        const long long j = list != nullptr ? (long long)spla_ld(list + q) : q;
        const bool comp = list != nullptr || spla_computed(mask, mask_mode, j * mask_js);
        if (!comp) {
            if (glane == 0) spla_store(y, j, false, ident, ident, accum, flags);
            continue;
        }
        const long long start = spla_ld(colptr + j), end = spla_ld(colptr + j + 1);
        // Long-column split: a computed column longer than long_len is left to spla_vecsc_long_chunks /
        // spla_vecsc_long_finish (group-uniform: every lane of the group read the same bounds).
        if (long_len > 0 && end - start > long_len) {
            if (long_init && glane == 0) y[j] = ident;
            continue;
        }
        T acc = spla_group_reduce<Add, Mul, T, PATTERN>(rowidx, vals, u, start, end, (long long)glane,
                                                        (long long)G, vec4, ident);
        for (int off = G >> 1; off > 0; off >>= 1)
            acc = Add::op(acc, spla_shfl_xor(members, acc, off, G));
        if (glane == 0) spla_store(y, j, true, acc, ident, accum, flags);
    }
}

// ================================================================================================
// veCSC long-column split (k == 1).  The backend cuts every column with more than long_len entries
// (the tuning's long * G / 32) into chunks of at most the tuning's chunk consecutive entries
// [chunk_begin[q], chunk_end[q]) of column long_cols[chunk_col[q]]; the main spla_vecsc skips those
// columns when computed (long_len), then:
//
// spla_vecsc_long_chunks: a warp per group of per_warp consecutive chunks (grid-stride over groups by
//   global warp id, so the loop is warp-uniform; blockDim.x a multiple of 32, so every warp is full).
//   Lane l < per_warp tests the mask of chunk l's column (all per_warp tests in one load chain), and
//   the warp then reduces the chunks whose column is computed, in turn (a chunk whose column is not
//   computed costs one mask byte and nothing else; per_warp = 1: a warp per chunk, for unmasked
//   products, per_warp > 1 for sparse masks, whose kept chunks would otherwise each cost a warp's
//   whole load chain).  For each: lane l reduces entries begin + l, + 32, ... (spla_group_reduce,
//   coalesced rowidx), the warp reduces with a full-mask xor butterfly, and lane 0 ADDs the total
//   atomically (nothing when it is the identity) into
//   tl[chunk_col[q]] (tl (nlong,) T holding ADD's identity beforehand; spla_vecsc_long_finish then stores
//   it), or with direct != 0 straight into y[j]: when y[j] becomes the result itself (fresh, or no accum
//   with no mask or replace: the main kernel stored the identity there, long_init) or ADD(y[j], result)
//   (accum is ADD, no replace).  That saves tl's fill and the finish launch.
//   chunk_col (nchunks,) int; chunk_begin, chunk_end (nchunks,) I; long_cols (nlong,) I; rowidx (nnz,) I;
//   vals (nnz,) T; u (nrows,) T; y (ncols,) T; mask (ncols,) bool at mask[j * mask_js].
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_vecsc_long_chunks(const int* __restrict__ chunk_col, const I* __restrict__ chunk_begin,
                                       const I* __restrict__ chunk_end, const I* __restrict__ long_cols,
                                       const I* __restrict__ rowidx, const T* __restrict__ vals,
                                       const T* __restrict__ u, T* __restrict__ tl, T* __restrict__ y,
                                       int direct, const bool* __restrict__ mask, long long mask_js,
                                       int mask_mode, long long nchunks, int vec4, int per_warp)
{
    const unsigned int lane = threadIdx.x & 31u;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long groups = (nchunks + per_warp - 1) / per_warp;
    for (long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < groups; g += nwarps) {
        // lane l < per_warp reads chunk g * per_warp + l (column, bounds) and tests its mask; the
        // computed chunks are then reduced in turn, their facts shuffled from the lane that read them
        const long long mine = g * per_warp + lane;
        bool comp = false;
        long long my_idx = 0, my_j = 0, my_begin = 0, my_end = 0;
        if ((int)lane < per_warp && mine < nchunks) {
            my_idx = (long long)spla_ld(chunk_col + mine);
            my_begin = (long long)spla_ld(chunk_begin + mine);
            my_end = (long long)spla_ld(chunk_end + mine);
            my_j = (long long)spla_ld(long_cols + my_idx);
            comp = spla_computed(mask, mask_mode, my_j * mask_js);
        }
        unsigned int todo = __ballot_sync(0xffffffffu, comp);
        while (todo) {  // warp-uniform
            const int l = __ffs(todo) - 1;
            todo &= todo - 1u;
            const long long idx = __shfl_sync(0xffffffffu, my_idx, l);
            const long long j = __shfl_sync(0xffffffffu, my_j, l);
            const long long begin = __shfl_sync(0xffffffffu, my_begin, l);
            const long long end = __shfl_sync(0xffffffffu, my_end, l);
            spla_warp_chunk_add<Add, Mul, T, I, PATTERN>(rowidx, vals, u, begin, end, direct ? y + j : tl + idx, vec4);
        }
    }
}

// spla_vecsc_long_finish: one thread per long column idx (grid-stride): when y[long_cols[idx]] is
// computed, spla_store(y, j, true, tl[idx], ...) (the not-computed ones were stored by spla_vecsc).
//   long_cols (nlong,) I; tl (nlong,) T; y (ncols,) T.
template <class Add, class T, class I>
__global__ void spla_vecsc_long_finish(const I* __restrict__ long_cols, const T* __restrict__ tl,
                                       T* __restrict__ y, const bool* __restrict__ mask, long long mask_js,
                                       int mask_mode, long long nlong, int accum, int flags)
{
    const T ident = Add::template identity<T>();
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < nlong; idx += stride) {
        const long long j = (long long)spla_ld(long_cols + idx);
        if (spla_computed(mask, mask_mode, j * mask_js)) spla_store(y, j, true, tl[idx], ident, accum, flags);
    }
}

#endif  // SPLA_SPMV_VECSC_CUH
