// spla/kernels/spmv/sccsc.cuh -- scCSC, CSC scalar: one thread per output element (TurboBC's scCSC
// when k == 1).
//
// Kernels: spla_sccsc<Add, Mul, T, I, PATTERN>.
// Thread mapping: thread t owns y[j, c] with t = j * k + c (c fastest, so the k threads of a column
//   share each rowidx[p] and read the row u[i, 0..k) coalesced), grid-stride over ncols * k; in
//   worklist mode (k == 1) thread q owns y[list[q]] for q < *count.
// Inputs: colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unread if PATTERN), u (nrows*k,) T
//   row-major, the mask (reduce.cuh); list (ncols,) I and count (1,) unsigned long long, or both null.
// Output: y (ncols*k,) T under the output semantics (reduce.cuh).
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN.
// Host guarantees: worklist mode only with k == 1, after spla_mask_worklist stored every column it
//   did not list.

#ifndef SPLA_SPMV_SCCSC_CUH
#define SPLA_SPMV_SCCSC_CUH

#include "reduce.cuh"

// ================================================================================================
// scCSC -- CSC scalar.  One thread per output element (j, c): t = j * k + c, so c varies fastest and
// the k threads of one column read the same rowidx[p] (one broadcast transaction) and the contiguous
// row u[i, 0..k).  With k == 1 it is TurboBC's scCSC: one thread per column.
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows*k,) T,
//   y (ncols*k,) T, mask: see reduce.cuh.  Grid-stride loop over the ncols*k outputs.
// A thread owns y[j, c]: it tests the mask first and returns before reading colptr/rowidx when the
// output is not computed.
//   Worklist mode (list != nullptr; k == 1): the computed columns were compacted by
//   spla_mask_worklist, which also stored the not-computed ones; thread q owns y[list[q]] for
//   q < *count (grid-stride), so a sparse mask costs threads only for the columns it keeps.
//   list (ncols,) I and count (1,) unsigned long long, or both null (every output walked).
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_sccsc(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                           const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                           const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode,
                           long long ncols, long long k, int accum, int flags,
                           const I* __restrict__ list, const unsigned long long* __restrict__ count)
{
    const T ident = Add::template identity<T>();
    const long long total = ncols * k;
    const long long stride = (long long)gridDim.x * blockDim.x;
    if (list != nullptr) {
        const long long kept = (long long)*count;
        for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < kept; q += stride) {
            const long long j = (long long)spla_ld(list + q);
            const long long start = spla_ld(colptr + j), end = spla_ld(colptr + j + 1);
            const T acc = spla_column_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u, 1LL, 0LL, start, end, 1LL,
                                                                      ident, ident);
            spla_store(y, j, true, acc, ident, accum, flags);
        }
        return;
    }
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        long long j = t, c = 0;
        if (k != 1) { j = t / k; c = t - j * k; }
        const bool comp = spla_computed(mask, mask_mode, j * mask_js + c * mask_cs);
        T acc = ident;
        if (comp) {
            const long long start = spla_ld(colptr + j), end = spla_ld(colptr + j + 1);
            acc = spla_column_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u, k, c, start, end, 1LL, acc, ident);
        }
        spla_store(y, t, comp, acc, ident, accum, flags);
    }
}

#endif  // SPLA_SPMV_SCCSC_CUH
