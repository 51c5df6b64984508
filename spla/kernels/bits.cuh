// spla/kernels/bits.cuh -- bit-word kernels for bit-parallel BFS (64 sources per uint64 word).
//
// Kernels: spla_weighted_rowsum<WEIGHTED>, instantiated by spla/backends/gpu/compile.py as
//   "spla_weighted_rowsum<true>" (weights) and "spla_weighted_rowsum<false>" (plain counts).
// Thread mapping: a group of G = min(32, next power of two >= W) lanes per row v (grid-stride over
//   rows); lane g owns the words g, g + G, ... of the row, and lane 0 of the group writes out[v].
// Inputs: X (n, W) row-major unsigned long long words, bit b of word w in row v standing for source
//   64*w + b; weights (64*W,) double (WEIGHTED).
// Outputs: out (n,) double (WEIGHTED) or cnt (n,) long long (!WEIGHTED).
// Templates: WEIGHTED, sum the weights of the set bits instead of counting them.
// Host guarantees: blockDim.x a multiple of 32 (a group never straddles warps); G a power of two.
//   NVRTC compiles the file as it is: no #include, no standard library.

#ifndef SPLA_BITS_CUH
#define SPLA_BITS_CUH

// ================================================================================================
// weighted_rowsum -- out[v] = sum_{w, b : bit b of X[v, w] set} weights[64*w + b]   (WEIGHTED, double)
//                    cnt[v] = sum_w popcount(X[v, w])                                (!WEIGHTED, long long)
// A group of G lanes (G in {1,2,4,8,16,32}, G = min(32, next power of two >= W)) per row v; lane g
// owns the words w = g, g + G, ... of row v (coalesced over the group), walks their set bits with
// __ffsll, and the group reduces with __shfl_xor_sync over exactly its G lanes.  Lane 0 of the group
// writes out[v].  Grid-stride loop over rows (group-uniform).
//   X (n*W,) unsigned long long, weights (64*W,) double (unused if !WEIGHTED),
//   out (n,) double if WEIGHTED, cnt (n,) long long if !WEIGHTED (the other pointer is unused).
// ================================================================================================
template <bool WEIGHTED>
__global__ void spla_weighted_rowsum(const unsigned long long* __restrict__ X, const double* __restrict__ weights,
                                     double* __restrict__ out, long long* __restrict__ cnt, long long n,
                                     long long W, int G)
{
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int glane = lane & (unsigned int)(G - 1);
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; v < n; v += groups) {
        double s = 0.0;
        long long c = 0;
        for (long long w = glane; w < W; w += G) {
            unsigned long long bits = __ldg(X + v * W + w);
            if (WEIGHTED) {
                const double* wt = weights + 64 * w;
                while (bits) {
                    const int b = __ffsll((long long)bits) - 1;
                    s += __ldg(wt + b);
                    bits &= bits - 1ULL;
                }
            } else {
                c += __popcll(bits);
            }
        }
        for (int off = G >> 1; off > 0; off >>= 1) {
            if (WEIGHTED) s += __shfl_xor_sync(members, s, off, G);
            else c += __shfl_xor_sync(members, c, off, G);
        }
        if (glane == 0) {
            if (WEIGHTED) out[v] = s;
            else cnt[v] = c;
        }
    }
}

#endif  // SPLA_BITS_CUH
