// spla/kernels/spmv/merge.cuh -- the elementwise merge of an atomic target t into the output.
//
// Kernels: spla_merge<Add, T>.
// Thread mapping: thread q owns y[q], q = j * k + c, grid-stride over n * k.
// Inputs: t (n*k,) T, the atomic target of scCOOC or push; the mask (reduce.cuh).
// Output: y (n*k,) T = computed ? (accum ? accum(y, t) : t) : (replace ? identity : y).
// Templates: Add (functors.cuh, for the identity); T, the domain.
// Host guarantees: y is the caller's out (the kernel ignores SPLA_FRESH).

#ifndef SPLA_SPMV_MERGE_CUH
#define SPLA_SPMV_MERGE_CUH

#include "reduce.cuh"

// ================================================================================================
// merge -- out = computed ? (accum ? accum(out, t) : t) : (replace ? identity : out), elementwise.
// One thread per output element q = j * k + c (grid-stride); used after scCOOC or push when their
// atomics went into a buffer t instead of y (atomic_target in spla/backends/gpu/launch.py).
//   t, y (n*k,) T; mask as scCSC.
// ================================================================================================
template <class Add, class T>
__global__ void spla_merge(const T* __restrict__ t, T* __restrict__ y, const bool* __restrict__ mask,
                           long long mask_js, long long mask_cs, int mask_mode, long long n, long long k,
                           int accum, int flags)
{
    const T ident = Add::template identity<T>();
    const long long total = n * k;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
        long long j = q, c = 0;
        if (k != 1) { j = q / k; c = q - j * k; }
        const bool comp = spla_computed(mask, mask_mode, j * mask_js + c * mask_cs);
        spla_store(y, q, comp, comp ? t[q] : ident, ident, accum, flags & ~SPLA_FRESH);
    }
}

#endif  // SPLA_SPMV_MERGE_CUH
