// spla/kernels/spmv/sccooc.cuh -- scCOOC, COO-by-column scalar: one thread per stored entry (and
// component), ADDing into the output with atomics.
//
// Kernels: spla_sccooc<Add, Mul, T, I, PATTERN>.
// Thread mapping: thread q owns entry p = q / k and component c = q % k, grid-stride over nnz * k;
//   with k == 1 a warp holds 32 consecutive entries and combines equal columns over its lanes, so one
//   lane issues the column's atomic.
// Inputs: rowidx, colidx (nnz,) I, vals (nnz,) T (unread if PATTERN), u (nrows*k,) T, the mask
//   (reduce.cuh).
// Output: t (ncols*k,) T, ADDed into atomically; spla_merge (merge.cuh) merges it into out where t is
//   not y itself (atomic_target in spla/backends/gpu/launch.py).
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN.
// Host guarantees: colidx is sorted (the CSC order); t holds ADD's identity beforehand, or is y
//   itself where ADD is the accumulator; gridDim.x * blockDim.x is a multiple of 32; ADD has an
//   atomic on T.

#ifndef SPLA_SPMV_SCCOOC_CUH
#define SPLA_SPMV_SCCOOC_CUH

#include "reduce.cuh"
#include "atomics.cuh"

// ================================================================================================
// scCOOC -- COO-by-column scalar.  One thread per (stored entry p, component c), c fastest: it reads
// j = colidx[p], skips when y[j, c] is masked out (before reading rowidx or u), reads i = rowidx[p]
// and x = u[i, c], skips when x is ADD's identity, else ADD-s v = MUL(x, a) into t[j, c] atomically.
// t must hold ADD's identity beforehand; the merge into `out` is spla_merge (or nothing when there
// is no out).  Idempotent monoids first peek at t[j, c] and skip atomics that cannot change it.
//
// k == 1 adds warp aggregation: the 32 lanes of a warp hold 32 consecutive entries, and colidx is
// sorted (it is the CSC order; REQUIRED), so equal columns sit in contiguous lanes.  A segmented
// reduction (5 steps of __shfl_down_sync over the full warp, each lane adding the partial of the lane
// `off` above it only when that lane has the same column) leaves each column's warp-local total in
// its first lane, which issues the only atomic for that column (none when the total is the
// identity).  The loop is warp-uniform (lanes past the end hold column -1 and the identity), so
// every lane reaches every shuffle.  Masked-out and identity-x entries contribute the identity.
//   rowidx, colidx (nnz,) I; vals (nnz,) T; u (nrows*k,) T; t (ncols*k,) T; mask: see reduce.cuh.
//   Grid-stride over nnz*k (k == 1: by warp, 32 consecutive entries per warp per step).
// ================================================================================================
template <class T>
SPLA_DEV T spla_shfl_down(T v, unsigned int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
template <>
SPLA_DEV bool spla_shfl_down<bool>(bool v, unsigned int delta)
{
    return __shfl_down_sync(0xffffffffu, (int)v, delta) != 0;
}

template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_sccooc(const I* __restrict__ rowidx, const I* __restrict__ colidx,
                            const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ t,
                            const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode,
                            long long nnz, long long k)
{
    const T ident = Add::template identity<T>();
    const long long stride = (long long)gridDim.x * blockDim.x;  // a multiple of 32
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k == 1) {
        const unsigned int lane = threadIdx.x & 31u;
        for (long long base = tid - lane; base < nnz; base += stride) {  // warp-uniform
            const long long p = base + lane;
            I j = (I)-1;
            T v = ident;
            if (p < nnz) {
                j = spla_ld(colidx + p);
                if (spla_computed(mask, mask_mode, (long long)j * mask_js)) {
                    const T x = spla_ld(u + (long long)spla_ld(rowidx + p));
                    if (x != ident) v = Mul::op(x, spla_entry<T, PATTERN>(vals, p));
                }
            }
            const I jprev = __shfl_up_sync(0xffffffffu, j, 1u);
            for (unsigned int off = 1; off < 32; off <<= 1) {
                const T vn = spla_shfl_down(v, off);
                const I jn = __shfl_down_sync(0xffffffffu, j, off);
                if (lane + off < 32 && jn == j) v = Add::op(v, vn);
            }
            if (p < nnz && (lane == 0 || jprev != j) && v != ident)
                spla_atomic_update<Add, T>(t + (long long)j, v);
        }
        return;
    }
    for (long long q = tid; q < nnz * k; q += stride) {
        const long long p = q / k, c = q - p * k;
        const long long j = (long long)spla_ld(colidx + p);
        if (!spla_computed(mask, mask_mode, j * mask_js + c * mask_cs)) continue;
        const T x = spla_ld(u + (long long)spla_ld(rowidx + p) * k + c);
        if (x == ident) continue;
        spla_atomic_update<Add, T>(t + j * k + c, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
    }
}

#endif  // SPLA_SPMV_SCCOOC_CUH
