// spla/kernels/sssp_small.cuh -- weighted shortest paths of a block of k sources on a graph small
// enough that one source's whole search lives in a thread block's shared memory
// (spla/backends/gpu/sssp.py, the small path): no device-wide round, no control array, one launch
// for every source of the block.
//
// Definition: sssp.cuh's (its header): d, tight arcs, h, the DAG, σ and δ.  Any order of monotone
// min-updates that relaxes every arc whose tail was lowered reaches the values of spla_sssp_relax's
// rounds, bit for bit; h is claimed level by level as spla_sssp_hops claims it; σ and δ sweep the
// same Kahn levels as spla_sssp_sigma and spla_sssp_delta, δ with the same lanes and butterfly.
//
// Kernels: spla_sssp_small<I, UNIT> (the distances) and spla_sssp_small_deps<I, UNIT> (distances,
//   h, σ and δ).  I: the matrix's index type; UNIT: every length 1.
// Thread mapping: one thread block per source, grid-stride over the k sources (block b takes
//   s = b, b + gridDim.x, ...).  Inside a block every phase is a sequence of rounds over a list of
//   vertices held in shared memory, a group of G lanes per listed vertex u (G a power of two <= 32):
//   groups stride over the list, lane g walks u's out-arcs g, g + G, ...; a round ends at a
//   __syncthreads, and a phase when a round lists nothing.
// Shapes: ocolptr (n+1,), orowidx (m,) I and olen (m,) double: out-arcs as the CSC of A^T (olen never
//   read when UNIT); src (k,) long long; dist, sigma, delta (n*k,) double and hops (n*k,) int,
//   vertex-major (entry (v, s) at v*k + s); failed (k,) int.
// What a thread block owns, in dynamic shared memory:
//   spla_sssp_small (SPLA_SSSP_SMALL_BYTES(n)): d (n,) unsigned long long, the bits of d(s, v)
//     (non-negative doubles order as their bits; +inf's bits: unreached), lowered by atomicMin;
//     mark (n,) int, the round a vertex was last listed for (rounds count from 1: no clearing
//     between rounds); two lists of n ints, each vertex at most once per list by its mark.
//   spla_sssp_small_deps (SPLA_SSSP_SMALL_DEPS_BYTES(n)): d as above; sg (n,) double, σ(v) and, once
//     δ(v) is known, (1 + δ(v)) / σ(v), the term every DAG predecessor of v pulls; h (n,) int; aux
//     (n,) int, the mark of the distances, then the DAG in-arcs not yet counted; the two lists (n
//     ints, then n + 2): the rounds' lists, then Kahn's queue of the reached vertices (level after
//     level) and the levels' starts.
//   and in static shared memory the list lengths.
// Writes: spla_sssp_small every entry of dist.  spla_sssp_small_deps every entry of dist, hops and
//   sigma (0 where unreached), delta at the reached entries (the host zeroes it), and failed[s] = 1
//   where σ passes 2^512 (the list rounds, which rescale, run that block again; its other writes are
//   then void).
// Host guarantees: blockDim.x a multiple of 32 and of G; the dynamic shared memory above; n < 2^31.

#ifndef SPLA_SSSP_SMALL_CUH
#define SPLA_SSSP_SMALL_CUH

#include "sssp.cuh"  // spla_sssp_len, spla_sssp_dag_order

// Dynamic shared memory of one source's search: d (8 bytes), mark and two list slots (4 each) a vertex.
#define SPLA_SSSP_SMALL_BYTES(n) (20ll * (long long)(n))
// ... of one source's Brandes sums: d and sg (8 bytes each), h, aux and two list slots (4 each) a
// vertex, and two more slots for the levels' starts.
#define SPLA_SSSP_SMALL_DEPS_BYTES(n) (32ll * (long long)(n) + 8ll)
// σ above this sends the block to the list rounds, which rescale (RESCALE_ABOVE in sssp.py).
#define SPLA_SSSP_SMALL_SIGMA_MAX 0x1p512

__device__ __forceinline__ double spla_small_d(const unsigned long long* d, int v)
{
    return __longlong_as_double((long long)*((const volatile unsigned long long*)(d + v)));
}

// Lists s0 alone for a phase's first round (lists[0] = s0, lengths 1 and 0), once the block has
// written its initial values; the block is in step after.
__device__ __forceinline__ void spla_small_first(int s0, int* lists, int* count)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        lists[0] = s0;
        count[0] = 1;
        count[1] = 0;
    }
    __syncthreads();
}

// Ends a round: once every thread is done with it, the spent list's length is zeroed (it is the
// list two rounds on) and the appended list becomes the round's (cur flips); the block is in step.
__device__ __forceinline__ void spla_small_flip(int* count, int& cur)
{
    __syncthreads();
    if (threadIdx.x == 0) count[cur] = 0;
    cur = 1 - cur;
    __syncthreads();
}

// The distances from s0 into d (every vertex's bits), over the rounds of a vertex list: mark (n,)
// and lists (2n,) as the header says; count (2,) the lists' lengths.  Ends with the block in step.
template <class I, bool UNIT>
__device__ __forceinline__ void spla_small_search(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                                  const double* __restrict__ olen, int s0, int n, int G,
                                                  unsigned long long* d, int* mark, int* lists, int* count)
{
    const int lane = (int)(threadIdx.x & (unsigned int)(G - 1));
    const int group = (int)(threadIdx.x / (unsigned int)G);
    const int groups = (int)(blockDim.x / (unsigned int)G);
    for (int v = threadIdx.x; v < n; v += blockDim.x) {
        d[v] = v == s0 ? 0ull : 0x7ff0000000000000ull;
        mark[v] = v == s0 ? 1 : 0;
    }
    spla_small_first(s0, lists, count);
    int cur = 0;
    for (int round = 1;; ++round) {
        const int nlist = count[cur];
        if (nlist == 0) break;  // block-uniform: read after the round's __syncthreads
        const int* list = lists + (cur ? n : 0);
        int* next = lists + (cur ? 0 : n);
        int* nnext = count + (1 - cur);
        for (int i = group; i < nlist; i += groups) {
            const int u = list[i];
            // d(u) now: at least as low as every lowering of the rounds before this one
            const double du = spla_small_d(d, u);
            const long long end = (long long)__ldg(ocolptr + u + 1);
            for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                const int w = (int)__ldg(orowidx + p);
                if (w == u) continue;  // a self-loop lies on no shortest path
                const unsigned long long nb =
                    (unsigned long long)__double_as_longlong(__dadd_rn(du, spla_sssp_len<UNIT>(olen, p)));
                if (nb >= *((volatile unsigned long long*)(d + w))) continue;
                // d(w) = min(d(w), fl(d(u) + w(u, w))); where it lowers d(w), w is listed for round + 1
                if (nb < atomicMin(d + w, nb) && atomicExch(mark + w, round + 1) != round + 1)
                    next[atomicAdd(nnext, 1)] = w;
            }
        }
        spla_small_flip(count, cur);
    }
}

// Whether the arc u -> w (u != w) of length len is a DAG arc, d and h final.
__device__ __forceinline__ bool spla_small_dag(const unsigned long long* d, const int* h, int u, double du,
                                               int w, double len)
{
    const double dw = __longlong_as_double((long long)d[w]);
    return __dadd_rn(du, len) == dw && spla_sssp_dag_order(du, dw, h[u], h[w]);
}

template <class I, bool UNIT>
__global__ void spla_sssp_small(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                const double* __restrict__ olen, const long long* __restrict__ src,
                                long long k, int n, int G, double* __restrict__ dist)
{
    extern __shared__ unsigned long long spla_small_smem[];
    unsigned long long* d = spla_small_smem;
    int* mark = (int*)(d + n);
    __shared__ int count[2];
    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        // d = d(s, ·): the min.plus closure from s
        spla_small_search<I, UNIT>(ocolptr, orowidx, olen, (int)src[s], n, G, d, mark, mark + n, count);
        for (int v = threadIdx.x; v < n; v += blockDim.x)
            dist[(long long)v * k + s] = __longlong_as_double((long long)d[v]);
        __syncthreads();  // d and the lists are the next source's
    }
}

template <class I, bool UNIT>
__global__ void spla_sssp_small_deps(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                     const double* __restrict__ olen, const long long* __restrict__ src,
                                     long long k, int n, int G, double* __restrict__ dist,
                                     int* __restrict__ hops, double* __restrict__ sigma,
                                     double* __restrict__ delta, int* __restrict__ failed)
{
    extern __shared__ unsigned long long spla_small_smem[];
    unsigned long long* d = spla_small_smem;
    double* sg = (double*)(d + n);
    int* h = (int*)(sg + n);
    int* aux = h + n;
    int* queue = aux + n;   // the distances' and h's first list, then Kahn's queue
    int* starts = queue + n;  // their second list, then the levels' starts (n + 2 slots)
    __shared__ int count[2];
    __shared__ int qend;
    __shared__ int too_big;
    const int lane = (int)(threadIdx.x & (unsigned int)(G - 1));
    const int group = (int)(threadIdx.x / (unsigned int)G);
    const int groups = (int)(blockDim.x / (unsigned int)G);
    const unsigned int wl = threadIdx.x & 31u;
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (wl & ~(unsigned int)(G - 1)));

    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        const int s0 = (int)src[s];
        // d = d(s, ·)
        spla_small_search<I, UNIT>(ocolptr, orowidx, olen, s0, n, G, d, aux, queue, count);

        // h<tight, h == -1> = t + 1 over the out-arcs of level t, level after level
        for (int v = threadIdx.x; v < n; v += blockDim.x) h[v] = v == s0 ? 0 : -1;
        spla_small_first(s0, queue, count);
        int cur = 0;
        for (int t = 0;; ++t) {
            const int nlist = count[cur];
            if (nlist == 0) break;
            const int* list = cur ? starts : queue;
            int* next = cur ? queue : starts;
            for (int i = group; i < nlist; i += groups) {
                const int u = list[i];
                const double du = __longlong_as_double((long long)d[u]);
                const long long end = (long long)__ldg(ocolptr + u + 1);
                for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                    const int w = (int)__ldg(orowidx + p);
                    if (w == u || __dadd_rn(du, spla_sssp_len<UNIT>(olen, p)) != __longlong_as_double((long long)d[w]))
                        continue;
                    if (*((volatile int*)(h + w)) == -1 && atomicCAS(h + w, -1, t + 1) == -1)
                        next[atomicAdd(count + (1 - cur), 1)] = w;
                }
            }
            spla_small_flip(count, cur);
        }

        // aux(w) = the DAG in-arcs of w; sg = 0
        for (int v = threadIdx.x; v < n; v += blockDim.x) {
            aux[v] = 0;
            sg[v] = 0.0;
        }
        __syncthreads();
        for (int u = group; u < n; u += groups) {
            if (h[u] < 0) continue;
            const double du = __longlong_as_double((long long)d[u]);
            const long long end = (long long)__ldg(ocolptr + u + 1);
            for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                const int w = (int)__ldg(orowidx + p);
                if (w != u && spla_small_dag(d, h, u, du, w, spla_sssp_len<UNIT>(olen, p))) atomicAdd(aux + w, 1);
            }
        }
        if (threadIdx.x == 0) {
            sg[s0] = 1.0;
            queue[0] = s0;
            starts[0] = 0;
            starts[1] = 1;
            qend = 1;
            too_big = 0;
        }
        __syncthreads();

        // σ(w) += σ(u) over the DAG arcs out of level t; w joins level t + 1 when its count reaches 0
        int depth = 0;
        for (int t = 0;; ++t) {
            const int lo = starts[t], hi = starts[t + 1];
            if (lo == hi) {
                depth = t - 1;
                break;
            }
            for (int i = lo + group; i < hi; i += groups) {
                const int u = queue[i];
                const double du = __longlong_as_double((long long)d[u]);
                const double su = sg[u];
                const long long end = (long long)__ldg(ocolptr + u + 1);
                for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                    const int w = (int)__ldg(orowidx + p);
                    if (w == u || !spla_small_dag(d, h, u, du, w, spla_sssp_len<UNIT>(olen, p))) continue;
                    atomicAdd(sg + w, su);
                    if (atomicSub(aux + w, 1) == 1) queue[atomicAdd(&qend, 1)] = w;
                }
            }
            __syncthreads();
            if (threadIdx.x == 0) starts[t + 2] = qend;
            __syncthreads();
        }
        for (int v = threadIdx.x; v < n; v += blockDim.x) {
            const long long q = (long long)v * k + s;
            const double sv = sg[v];
            if (!(sv <= SPLA_SSSP_SMALL_SIGMA_MAX)) too_big = 1;
            dist[q] = __longlong_as_double((long long)d[v]);
            hops[q] = h[v];
            sigma[q] = sv;
        }
        __syncthreads();
        if (too_big) {
            if (threadIdx.x == 0) failed[s] = 1;
            continue;  // block-uniform; the loop's next source starts with a __syncthreads
        }

        // δ(u) = σ(u) Σ_{DAG u -> w} (1 + δ(w)) / σ(w), levels deepest first; then sg(u) holds u's term
        for (int t = depth; t >= 0; --t) {
            const int lo = starts[t], hi = starts[t + 1];
            for (int i = lo + group; i < hi; i += groups) {
                const int u = queue[i];
                const double du = __longlong_as_double((long long)d[u]);
                double acc = 0.0;
                const long long end = (long long)__ldg(ocolptr + u + 1);
                for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                    const int w = (int)__ldg(orowidx + p);
                    if (w != u && spla_small_dag(d, h, u, du, w, spla_sssp_len<UNIT>(olen, p))) acc += sg[w];
                }
                for (int off = G >> 1; off > 0; off >>= 1) acc += __shfl_xor_sync(members, acc, off, G);
                if (lane == 0) {
                    const double su = sg[u];
                    const double du_ = su * acc;
                    delta[(long long)u * k + s] = du_;
                    sg[u] = (1.0 + du_) / su;
                }
            }
            __syncthreads();
        }
    }
}

#endif  // SPLA_SSSP_SMALL_CUH
