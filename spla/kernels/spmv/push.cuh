// spla/kernels/spmv/push.cuh -- push: the product from the input side (SuiteSparse's saxpy, the push
// step of direction-optimising BFS), ADDing into the outputs with atomics.
//
// Kernels: spla_push<Add, Mul, T, I, PATTERN>, spla_push_long_chunks<Add, Mul, T, I, PATTERN>.
// Thread mapping: spla_push: a group of G lanes owns input i (k == 1: lane g walks entries
//   colptr[i] + g, + G, ...; k > 1: lane g owns components g, g + G, ... < k).
//   spla_push_long_chunks: a warp per chunk of a long input column.
// Inputs: the input-side CSC R (colptr (nin+1,) I, rowidx (nnz,) I output indices, vals (nnz,) T,
//   unread if PATTERN), u (nin*k,) T, the mask (reduce.cuh), list and count from
//   spla_input_worklist or both null; the chunk arrays as spla_push_long_chunks says.
// Output: t (nout*k,) T, ADDed into atomically.
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN.
// Host guarantees: t holds ADD's identity beforehand, or is y itself where ADD is the accumulator;
//   long_len is 0 when k > 1; ADD has an atomic on T.

#ifndef SPLA_SPMV_PUSH_CUH
#define SPLA_SPMV_PUSH_CUH

#include "reduce.cuh"
#include "atomics.cuh"

// ================================================================================================
// push -- the product from the input side (direction-optimising BFS's push; SuiteSparse's saxpy).
//
//   y[j] = ADD_{i : u[i] != identity} MUL(u[i], A[i, j]),  computed by walking, for every input i
//   whose u[i] is not ADD's identity, the outputs j it reaches and ADD-ing MUL(u[i], A[i, j]) into
//   t[j] with ADD's atomic (spla_atomic_update: idempotent monoids peek first).
//
// R is the INPUT-side CSC: column i of R lists the outputs j reached from input i (R = A^T for vxm,
// A itself when A is symmetric; R = A for mxv).  The work is the arcs leaving the inputs that are not
// the identity, not the arcs entering the computed outputs as in scCSC / veCSC / scCOOC: cheap when u
// is sparse (a small BFS frontier), wasteful when it is dense.  Masks are tested per arc (one byte
// gathered at j), so masked-out outputs receive nothing; the backend merges t into out afterwards
// unless out can take the atomics directly (atomic_target in spla/backends/gpu/launch.py).
//
// k == 1: a group of G lanes owns input i (list[q] for q < *count in worklist mode, the non-identity
//   inputs compacted by spla_input_worklist; else grid-stride over all nin inputs).  The group reads
//   x = u[i] and leaves when it is the identity, or when the column is long (more than long_len > 0
//   entries: spla_push_long_chunks walks it); lane g walks entries start + g, + G, ... (coalesced
//   rowidx), tests the mask of j and updates t[j] (spla_push_entries: four entries per lane per
//   iteration, their index and mask loads issued before the atomics, so a lane keeps four chains in
//   flight instead of one).  No shuffles: lanes never exchange values.
// k > 1:  a group of G lanes owns input i; lane g owns components c = g, g + G, ... < k and, for each
//   owned c whose x = u[i, c] is not the identity, walks the column and updates t[j, c] where
//   computed (mask[j * mask_js + c * mask_cs]).  long_len is ignored (0) for blocks.
//   colptr (nin+1,) I; rowidx (nnz,) I (output indices); vals (nnz,) T; u (nin*k,) T; t (nout*k,) T
//   holding ADD's identity beforehand (or y itself when ADD is the accumulator); list (nin,) I and
//   count (1,) unsigned long long, or null.
// ================================================================================================
// t[j] = ADD(t[j], MUL(x, a_p)) for the entries p = first, first + step, ... < end whose j = rowidx[p] is
// computed (k == 1): unrolled by 4, loads first.
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV void spla_push_entries(const I* __restrict__ rowidx, const T* __restrict__ vals, T x, T* __restrict__ t,
                                const bool* __restrict__ mask, long long mask_js, int mask_mode, long long first,
                                long long end, long long step)
{
    long long p = first;
    for (; end - p > 3 * step; p += 4 * step) {
        long long j[4];
        spla_load4(rowidx, p, step, j);
        bool comp[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) comp[q] = spla_computed(mask, mask_mode, j[q] * mask_js);
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (comp[q]) spla_atomic_update<Add, T>(t + j[q], Mul::op(x, spla_entry<T, PATTERN>(vals, p + q * step)));
    }
    for (; p < end; p += step) {
        const long long j = (long long)spla_ld(rowidx + p);
        if (spla_computed(mask, mask_mode, j * mask_js))
            spla_atomic_update<Add, T>(t + j, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
    }
}

template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_push(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                          const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ t,
                          const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode,
                          long long nin, long long k, int G, long long long_len,
                          const I* __restrict__ list, const unsigned long long* __restrict__ count)
{
    const T ident = Add::template identity<T>();
    const long long glane = (long long)(threadIdx.x & (unsigned int)(G - 1));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    const long long items = list != nullptr ? (long long)*count : nin;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; q < items; q += groups) {
        const long long i = list != nullptr ? (long long)spla_ld(list + q) : q;
        if (k == 1) {
            const T x = spla_ld(u + i);
            if (x == ident) continue;  // group-uniform
            const long long start = spla_ld(colptr + i), end = spla_ld(colptr + i + 1);
            if (long_len > 0 && end - start > long_len) continue;
            spla_push_entries<Add, Mul, T, I, PATTERN>(rowidx, vals, x, t, mask, mask_js, mask_mode, start + glane,
                                                       end, (long long)G);
            continue;
        }
        const long long start = spla_ld(colptr + i), end = spla_ld(colptr + i + 1);
        for (long long c = glane; c < k; c += G) {
            const T x = spla_ld(u + i * k + c);
            if (x == ident) continue;
            for (long long p = start; p < end; ++p) {
                const long long j = (long long)spla_ld(rowidx + p);
                if (spla_computed(mask, mask_mode, j * mask_js + c * mask_cs))
                    spla_atomic_update<Add, T>(t + j * k + c, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
            }
        }
    }
}

// spla_push_long_chunks (k == 1): the long input columns of spla_push, cut by the backend exactly as
// veCSC's long columns (vecsc_long_split of R's colptr with the tuning's push_long and push_chunk:
// chunks of at most push_chunk consecutive entries [chunk_begin[q], chunk_end[q]) of column
// long_cols[chunk_col[q]]).  One warp per chunk (grid-stride by global warp id: warp-uniform, every
// warp full): it reads x = u[i] of the chunk's input i and leaves when x is the identity (nothing
// else read); lane l walks entries begin + l, + 32, ... and updates t[j] where computed, as
// spla_push.
//   chunk_col (nchunks,) int; chunk_begin, chunk_end (nchunks,) I; long_cols (nlong,) I; rowidx, vals,
//   u, t, mask as spla_push with k == 1.
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_push_long_chunks(const int* __restrict__ chunk_col, const I* __restrict__ chunk_begin,
                                      const I* __restrict__ chunk_end, const I* __restrict__ long_cols,
                                      const I* __restrict__ rowidx, const T* __restrict__ vals,
                                      const T* __restrict__ u, T* __restrict__ t,
                                      const bool* __restrict__ mask, long long mask_js, int mask_mode,
                                      long long nchunks)
{
    const T ident = Add::template identity<T>();
    const long long lane = (long long)(threadIdx.x & 31u);
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; q < nchunks; q += nwarps) {
        const long long i = (long long)spla_ld(long_cols + spla_ld(chunk_col + q));
        const T x = spla_ld(u + i);
        if (x == ident) continue;  // warp-uniform
        const long long begin = (long long)spla_ld(chunk_begin + q), end = (long long)spla_ld(chunk_end + q);
        spla_push_entries<Add, Mul, T, I, PATTERN>(rowidx, vals, x, t, mask, mask_js, mask_mode, begin + lane, end,
                                                   32LL);
    }
}

#endif  // SPLA_SPMV_PUSH_CUH
