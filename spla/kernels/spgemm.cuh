// spla/kernels/spgemm.cuh -- the dot-product SpGEMM of spla.mxm on the GPU.
//
//   C(i, j) = ADD_{k : A(i, k) and B(k, j) stored} MUL(A(i, k), B(k, j))     for each listed (i, j)
//
// Kernel: spla_spgemm_dot<Add, Mul, T, I, A_PATTERN, B_PATTERN, G>
//   Thread mapping: a group of G lanes (G a power of two, 1..32) per listed entry e = (rows[e],
//   cols[e]), 32 / G consecutive entries per warp and round; the warps of the grid stride over the
//   list by rounds, so every lane of a warp runs the same number of rounds and the shuffles see all
//   32 lanes.  The group intersects row i of A with column j of B, both index lists sorted ascending:
//   each lane owns the entries sub, sub + G, ... of the shorter list (sub: its rank in the group),
//   finds its index in the longer one by binary search and folds MUL(a, b) into a partial of its own
//   with Add (a from A, b from B, whichever list is the shorter); an xor butterfly of width G then
//   combines the group's partials.  The group's first lane owns the outputs of entry e: vals[e] (the
//   ADD of the products, the identity when none) and found[e] (1 when at least one k is stored in
//   both, else 0: no entry C(i, j)).
// Shapes: A (m, kdim) as CSR: arowptr (m + 1,), acolidx (nnz A,), avals (nnz A,) unless A_PATTERN
//   (the CSC arrays of A's transpose); B (kdim, n) as CSC: bcolptr (n + 1,), browidx (nnz B,), bvals
//   (nnz B,) unless B_PATTERN; rows, cols, found, vals (nlist,).  Entries of a pattern operand are 1.
// Templates: Add, Mul: the functors of spmv/functors.cuh; T: the domain; I: the index type of every
//   index array (int or long long); A_PATTERN, B_PATTERN: whether avals / bvals are never read; G:
//   the lanes per entry (1, 2, 4, 8, 16 or 32), about the mean length of the shorter list.
// Host guarantees (spla/backends/gpu/spgemm.py): values already cast to T; rows[e] < m, cols[e] < n;
//   launched with blockDim.x == SPLA_BLOCK (a multiple of 32).

#ifndef SPLA_SPGEMM_CUH
#define SPLA_SPGEMM_CUH

#include "spmv/common.cuh"
#include "spmv/functors.cuh"

// The first position p in [lo, hi) with idx[p] >= key (hi when none).
template <class I>
SPLA_DEV I spla_lower_bound(const I* idx, I lo, I hi, I key)
{
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (spla_ld(idx + mid) < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

template <class Add, class Mul, class T, class I, bool A_PATTERN, bool B_PATTERN, int G>
__global__ void spla_spgemm_dot(const I* __restrict__ arowptr, const I* __restrict__ acolidx,
                                const T* __restrict__ avals, const I* __restrict__ bcolptr,
                                const I* __restrict__ browidx, const T* __restrict__ bvals,
                                const I* __restrict__ rows, const I* __restrict__ cols, long long nlist,
                                T* __restrict__ vals, unsigned char* __restrict__ found)
{
    const int lane = threadIdx.x & 31;
    const int sub = lane & (G - 1);   // the lane's rank in its group
    const int group = lane / G;       // the group's rank in its warp
    const unsigned int group_lanes = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (group * G));
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    // the loop runs alike on all 32 lanes (its bounds depend on the warp only), so the shuffles and the
    // ballot below always see the whole warp; a group past the list's end idles through the round
    for (long long base = warp * (32 / G); base < nlist; base += warps * (32 / G)) {
        const long long e = base + group;
        const bool live = e < nlist;
        T acc = Add::template identity<T>();
        bool hit = false;
        if (live) {
            const I i = rows[e];
            const I j = cols[e];
            const I a0 = arowptr[i], a1 = arowptr[i + 1];
            const I b0 = bcolptr[j], b1 = bcolptr[j + 1];
            const bool a_short = (a1 - a0) <= (b1 - b0);
            // the shorter list is walked, the longer one searched
            const I s0 = a_short ? a0 : b0, s1 = a_short ? a1 : b1;
            const I l0 = a_short ? b0 : a0, l1 = a_short ? b1 : a1;
            const I* sidx = a_short ? acolidx : browidx;
            const I* lidx = a_short ? browidx : acolidx;
            for (I p = s0 + sub; p < s1; p += G) {
                const I k = spla_ld(sidx + p);
                const I q = spla_lower_bound(lidx, l0, l1, k);
                if (q < l1 && spla_ld(lidx + q) == k) {
                    const I pa = a_short ? p : q;
                    const I pb = a_short ? q : p;
                    const T a = A_PATTERN ? (T)1 : spla_ld(avals + pa);
                    const T b = B_PATTERN ? (T)1 : spla_ld(bvals + pb);
                    const T prod = Mul::template op<T>(a, b);
                    acc = hit ? Add::template op<T>(acc, prod) : prod;
                    hit = true;
                }
            }
        }
        // lanes without a product hold the identity, which ADD absorbs; xor partners stay in the group
        for (int width = G / 2; width >= 1; width >>= 1) {
            acc = Add::template op<T>(acc, spla_shfl_xor<T>(0xffffffffu, acc, width, G));
        }
        const unsigned int hits = __ballot_sync(0xffffffffu, hit);
        if (live && sub == 0) {
            vals[e] = acc;
            found[e] = (hits & group_lanes) ? 1 : 0;
        }
    }
}

#endif  // SPLA_SPGEMM_CUH
