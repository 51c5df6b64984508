// spla/kernels/sssp_rows.cuh -- weighted distances of k sources, a thread block per source: each
// source's distances are its row of the (k, n) output in global memory, its frontier (two bitmaps,
// two lists) in the block's shared memory (spla/backends/gpu/sssp_rows.py, the row path: graphs too
// large for a whole search in shared memory, whose frontier still fits).  No device-wide round, no
// control array, one launch for every source of the block.
//
// Definition: sssp.cuh's d.  Any order of monotone min-updates that relaxes every arc whose tail was
// lowered reaches the values of spla_sssp_relax's rounds, bit for bit (sssp_small.cuh says the same).
// Buckets (delta-stepping, bucket width Δ = width; +inf: Bellman-Ford): a round relaxes the out-arcs
// of the set vertices u with d(u) < bound and keeps the others set for a later round (far), the block
// keeping the smallest far d; a round that relaxes nothing moves the bound to one bucket past that
// smallest d (never less than the next float above it, so a bucket narrower than the rounding step
// still advances), as spla_sssp_relax_next moves the list rounds' bound.
//
// Kernel: spla_sssp_rows<I, UNIT>.  I: the matrix's index type; UNIT: every length 1.
// Thread mapping: one thread block per source, grid-stride over the k sources (block b takes
//   s = b, b + gridDim.x, ...).  A round visits the vertices its frontier holds: a group of G lanes
//   per vertex (G a power of two <= 32, the lanes of one warp), the groups striding over the round's
//   list, or, when the frontier outgrew the list (more than cap vertices), over the words of its
//   bitmap, a group taking a word's set vertices one after another.  The group's first lane reads
//   d(u) and decides near or far for all of them; lane g relaxes u's out-arcs g, g + G, ...,
//   SPLA_ROWS_ARCS of them at once.  A round ends at a __syncthreads.
// Shapes: ocolptr (n+1,), orowidx (m,) I and olen (m,) double: out-arcs as the CSC of A^T (olen never
//   read when UNIT); src (k,) long long; dist (k*n,) double, source-major: row s (dist + s*n) is
//   d(src[s], ·), +inf where unreached; rounds (k,) int or null: the rounds each source took.
// What a thread block owns: its source's row of dist (every entry written: +inf, then lowered by
//   atomicMin on the float64 bits: non-negative doubles order as their bits); in dynamic shared memory
//   SPLA_SSSP_ROWS_BYTES(n, cap): two frontier bitmaps of SPLA_SSSP_SMALL_WORDS(n) words, the round's
//   and the next round's (a vertex is set in the next when the round lowers its d, or when it waits
//   far), and two lists of cap vertices, the round's and the next's (a vertex is appended when its bit
//   is first set: the bitmap keeps each list free of repeats); in static shared memory the lists'
//   lengths (by round parity) and the far minimum (each thread keeps its own in a register; the
//   block takes their minimum only in a round that relaxed nothing).
// Host guarantees: blockDim.x a multiple of 32 and of G, at most SPLA_ROWS_THREADS; the dynamic shared
//   memory above; 0 < n < 2^31; cap >= 1; width > 0 (+inf for Bellman-Ford).

#ifndef SPLA_SSSP_ROWS_CUH
#define SPLA_SSSP_ROWS_CUH

#include "lists.cuh"       // spla_list_append
#include "sssp_small.cuh"  // spla_sssp_len, SPLA_SSSP_SMALL_WORDS, spla_small_groups

// Dynamic shared memory of one source's row search: two frontier bitmaps and two lists of cap entries.
#define SPLA_SSSP_ROWS_BYTES(n, cap) (8ll * SPLA_SSSP_SMALL_WORDS(n) + 8ll * (long long)(cap))

// Sets w in the next round's bitmap and, the first time this round, appends it to the next list
// (warp-aggregated; past cap entries only the count grows: that round scans the bitmap instead).
__device__ __forceinline__ void spla_rows_push(int w, unsigned int* nxt, int* lnxt, unsigned long long* nnext,
                                               int cap)
{
    const unsigned int bit = 1u << (w & 31);
    if (atomicOr(nxt + (w >> 5), bit) & bit) return;  // set already this round
    spla_list_append<int>(w, lnxt, nnext, (unsigned long long)cap);
}

// Arcs a lane relaxes at once: their atomics are issued together, so a vertex's round waits for one
// atomic's latency instead of one per arc.
#ifndef SPLA_ROWS_ARCS
#define SPLA_ROWS_ARCS 4
#endif

// One set vertex u of the round, by its group: relaxes u's out-arcs when d(u) < bound and returns 1;
// else sets u again for a later round, lowers the thread's far minimum (far, the bits of the smallest
// d that waits) and returns 0.
template <class I, bool UNIT>
__device__ __forceinline__ int spla_rows_visit(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                               const double* __restrict__ olen, unsigned long long* d, int u,
                                               double bound, unsigned int* nxt, int* lnxt,
                                               unsigned long long* nnext, int cap, unsigned long long& far,
                                               int lane, unsigned int members, int G)
{
    // u's arcs are read before d(u) is known, so that both loads are in flight at once
    const long long first = (long long)__ldg(ocolptr + u);
    const long long end = (long long)__ldg(ocolptr + u + 1);
    // d(u) now, read once for the group: at least as low as every lowering before this round
    double du = 0.0;
    if (lane == 0) du = __longlong_as_double((long long)*((volatile unsigned long long*)(d + u)));
    du = __shfl_sync(members, du, 0, G);
    if (!(du < bound)) {  // past the bucket: u waits
        if (lane == 0) {
            spla_rows_push(u, nxt, lnxt, nnext, cap);
            far = min(far, (unsigned long long)__double_as_longlong(du));
        }
        return 0;
    }
    for (long long p0 = first + lane; p0 < end; p0 += SPLA_ROWS_ARCS * G) {
        int w[SPLA_ROWS_ARCS];
        unsigned long long nb[SPLA_ROWS_ARCS], old[SPLA_ROWS_ARCS];
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t) {
            const long long p = p0 + (long long)t * G;
            w[t] = p < end ? (int)__ldg(orowidx + p) : u;  // u: no arc (a self-loop lies on no shortest path)
            nb[t] = w[t] == u ? 0ull
                              : (unsigned long long)__double_as_longlong(__dadd_rn(du, spla_sssp_len<UNIT>(olen, p)));
        }
        // d(w) = min(d(w), fl(d(u) + w(u, w))) for each of the lane's arcs
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t) old[t] = w[t] == u ? 0ull : atomicMin(d + w[t], nb[t]);
        // where it lowered d(w), w is in the next round
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t)
            if (nb[t] < old[t]) spla_rows_push(w[t], nxt, lnxt, nnext, cap);
    }
    return 1;
}

// At most SPLA_ROWS_THREADS threads a block (the host launches that many), with registers for
// SPLA_ROWS_BLOCKS_PER_SM such blocks an SM and none spilled (the frontier of a road network of about
// 300,000 vertices leaves shared memory for three).
#define SPLA_ROWS_THREADS 256
#define SPLA_ROWS_BLOCKS_PER_SM 4

template <class I, bool UNIT>
__global__ void __launch_bounds__(SPLA_ROWS_THREADS, SPLA_ROWS_BLOCKS_PER_SM)
    spla_sssp_rows(const I* __restrict__ ocolptr, const I* __restrict__ orowidx, const double* __restrict__ olen,
                   const long long* __restrict__ src, long long k, int n, int G, double width, int cap,
                   double* __restrict__ dist, int* __restrict__ rounds)
{
    extern __shared__ unsigned int spla_rows_smem[];
    __shared__ unsigned long long count[2];  // the lists' lengths, by round parity
    __shared__ unsigned long long far_min;   // the block's far minimum, when a round relaxed nothing
    __shared__ unsigned long long part[32];  // the warps' far minima
    const unsigned long long INF = 0x7ff0000000000000ull;
    const int words = (int)SPLA_SSSP_SMALL_WORDS(n);
    int* const lists = (int*)(spla_rows_smem + 2 * words);  // list p at lists + p * cap, bitmap p at smem + p * words
    const spla_small_lanes L = spla_small_groups(G);
    const int lane = L.lane, group = L.group, groups = L.groups;
    const unsigned int members = L.members;

    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        unsigned long long* d = (unsigned long long*)(dist + s * (long long)n);
        const int s0 = (int)src[s];
        for (int v = threadIdx.x; v < n; v += blockDim.x) d[v] = v == s0 ? 0ull : INF;
        for (int i = threadIdx.x; i < 2 * words; i += blockDim.x)
            spla_rows_smem[i] = i == (s0 >> 5) ? 1u << (s0 & 31) : 0u;  // the first round's frontier: s0
        if (threadIdx.x == 0) {
            lists[0] = s0;
            count[0] = 1;
            count[1] = 0;
        }
        __syncthreads();  // the row, the bitmaps and the first list are set for every thread
        double bound = width;  // the first bucket, [0, Δ)
        int r = 0;
        for (;;) {
            const int c = r & 1;
            unsigned int* cur = spla_rows_smem + c * words;
            unsigned int* nxt = spla_rows_smem + (1 - c) * words;
            const int* lcur = lists + c * cap;
            int* lnxt = lists + (1 - c) * cap;
            const long long ncur = (long long)count[c];
            int relaxed = 0;
            unsigned long long far = INF;
            if (ncur <= cap) {  // the round's vertices listed: shared evenly among the groups
                for (int j = group; j < ncur; j += groups)
                    relaxed |= spla_rows_visit<I, UNIT>(ocolptr, orowidx, olen, d, lcur[j], bound, nxt, lnxt,
                                                        count + (1 - c), cap, far, lane, members, G);
            } else {  // more than the list holds: the groups scan the bitmap's words
                for (int i = group; i < words; i += groups) {
                    unsigned int x = cur[i];
                    while (x) {
                        const int b = __ffs((int)x) - 1;
                        x &= x - 1u;
                        relaxed |= spla_rows_visit<I, UNIT>(ocolptr, orowidx, olen, d, (i << 5) | b, bound, nxt,
                                                            lnxt, count + (1 - c), cap, far, lane, members, G);
                    }
                }
            }
            const int any_relaxed = __syncthreads_or(relaxed);  // the round's visits are done
            // the round's bitmap is spent: cleared for the round after next (every bit it holds is listed)
            if (ncur <= cap) {
                for (int j = threadIdx.x; j < ncur; j += blockDim.x) cur[lcur[j] >> 5] = 0u;
            } else {
                for (int i = threadIdx.x; i < words; i += blockDim.x) cur[i] = 0u;
            }
            const unsigned long long nnext = count[1 - c];
            if (!nnext) break;  // (every thread read the same count: nothing appends past the barrier above)
            if (!any_relaxed) {
                // every set vertex waits: the bound moves one bucket past the nearest, the block's far minimum
                for (int off = 16; off > 0; off >>= 1) far = min(far, __shfl_xor_sync(0xffffffffu, far, off));
                if ((threadIdx.x & 31u) == 0) part[threadIdx.x >> 5] = far;
                __syncthreads();
                if (threadIdx.x == 0) {
                    unsigned long long m = part[0];
                    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) m = min(m, part[w]);
                    far_min = m;
                }
                __syncthreads();
                const double f = __longlong_as_double((long long)far_min);
                bound = fmax(__dadd_rn(fmax(bound, f), width), nextafter(f, __longlong_as_double((long long)INF)));
            }
            // this round's count is the round after's list length, read by now; its appends start past the barrier
            if (threadIdx.x == 0) count[c] = 0;
            __syncthreads();
            ++r;
        }
        if (rounds && threadIdx.x == 0) rounds[s] = r + 1;
        __syncthreads();  // the bitmaps are empty and the counts are the next source's
    }
}

#endif  // SPLA_SSSP_ROWS_CUH
