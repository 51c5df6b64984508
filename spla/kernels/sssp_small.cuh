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
// Kernels: spla_sssp_small<I, UNIT> (the distances), spla_sssp_small_sums<I, UNIT> (each source's
//   sums over the vertices it reaches) and spla_sssp_small_deps<I, UNIT> (h, σ and δ, from the
//   distances spla_sssp_small wrote).
//   I: the matrix's index type; UNIT: every length 1.
// Thread mapping: one thread block per source, grid-stride over the k sources (block b takes
//   s = b, b + gridDim.x, ...).  Inside a block every phase is a sequence of rounds, a group of G
//   lanes per vertex u (G a power of two <= 32), lane g walking u's out-arcs g, g + G, ...; a round
//   ends at a __syncthreads, and a phase when a round has nothing left.  The distances' rounds
//   take their vertices from a frontier bitmap (groups stride over 0..n-1 and skip unset bits: a
//   bit a vertex keeps the shared memory small, so more sources are in flight on each SM); h, σ
//   and δ take theirs from 16-bit vertex lists (groups stride over the list).
// Shapes: ocolptr (n+1,), orowidx (m,) I and olen (m,) double: out-arcs as the CSC of A^T (olen never
//   read when UNIT); src (k,) long long; dist, sigma, delta (n*k,) double and hops (n*k,) int,
//   vertex-major (entry (v, s) at v*k + s); failed (k,) int; dsum, harm (k,) double, reach (k,)
//   long long.
// What a thread block owns, in dynamic shared memory:
//   spla_sssp_small and spla_sssp_small_sums (SPLA_SSSP_SMALL_BYTES(n)): d (n,) unsigned long long,
//     the bits of d(s, v) (non-negative doubles order as their bits; +inf's bits: unreached),
//     lowered by atomicMin; two frontier bitmaps of SPLA_SSSP_SMALL_WORDS(n) words, the round's
//     and the next round's (a vertex is set in the next when the round lowers its d).
//   spla_sssp_small_deps (SPLA_SSSP_SMALL_DEPS_BYTES(n, with_h)): d as above, read from dist
//     (spla_sssp_small's: that search runs at its own occupancy, higher than this kernel's shared
//     memory allows); sg (n,) double, σ(v) and, once δ(v) is known, (1 + δ(v)) / σ(v), the term
//     every DAG predecessor of v pulls; with with_h, h (n,) int (without, every h is 0: the host
//     found that no tight arc of the block can join equal distances); aux, the DAG in-arcs of
//     each vertex not yet counted, 16 bits a vertex packed two to a word; two 16-bit lists (n
//     slots, then n + 2): h's lists, then Kahn's queue of the reached vertices (level after level)
//     and the levels' starts.  22 bytes a vertex without h, so three blocks share an SM where
//     32 would leave two.
//   and in static shared memory the list lengths and the block's partial sums.
// Writes: spla_sssp_small every entry of dist; spla_sssp_small_sums dsum[s] = Σ d(s, v) and
//   reach[s] = |{v : d(s, v) < inf}| (v = s included) and harm[s] = Σ 1/d(s, v) over 0 < d < inf,
//   each summed in the block's fixed order.  spla_sssp_small_deps every entry of hops and sigma
//   with counts (sigma 0 where unreached; null pointers without), delta at the reached entries (0 at the source: its
//   own dependency is not betweenness; the host zeroes the rest), and failed[s] = 1 where σ passes
//   2^512 (the list rounds, which rescale, run that block again; its other writes are then void).
//   Where no tight arc can join equal distances (every length above half the spacing of the
//   source's farthest distance: sssp_small.py's ties_possible, decided per source) h orders nothing:
//   every hops entry of the source is 0 and h's rounds are skipped, as the list rounds do.
// Host guarantees: blockDim.x a multiple of 32 and of G, at most 1024; the dynamic shared memory
//   above; n < 2^31, and n < 2^16 for spla_sssp_small_deps (its 16-bit lists and counts); with_h
//   wherever a tight arc of the block may join equal distances.

#ifndef SPLA_SSSP_SMALL_CUH
#define SPLA_SSSP_SMALL_CUH

#include "sssp.cuh"  // spla_sssp_len, spla_sssp_dag_order

// Words of one frontier bitmap (a bit a vertex).
#define SPLA_SSSP_SMALL_WORDS(n) (((long long)(n) + 31ll) / 32ll)
// Dynamic shared memory of one source's search: d (8 bytes a vertex) and two frontier bitmaps.
#define SPLA_SSSP_SMALL_BYTES(n) (8ll * (long long)(n) + 8ll * SPLA_SSSP_SMALL_WORDS(n))
// ... of one source's Brandes sums: d and sg (8 bytes each), with_h an int h, then 16-bit counts
// (two a word), a 16-bit queue (an even number of slots) and the levels' 16-bit starts (n + 2).
#define SPLA_SSSP_SMALL_DEPS_BYTES(n, with_h) \
    (16ll * (long long)(n) + ((with_h) ? 4ll * (long long)(n) : 0ll) + 4ll * (((long long)(n) + 1ll) / 2ll) + \
     2ll * ((long long)(n) + ((long long)(n) & 1ll)) + 2ll * ((long long)(n) + 2ll))
// σ above this sends the block to the list rounds, which rescale (RESCALE_ABOVE in sssp_scale.py).
#define SPLA_SSSP_SMALL_SIGMA_MAX 0x1p512

// This thread's place among its block's groups of G lanes (G a power of two <= 32, so a group lies in
// one warp): its lane in the group, its group, the block's groups, and its group's lanes of the warp
// (the mask the group's shuffles name).
struct spla_small_lanes {
    int lane, group, groups;
    unsigned int members;
};

__device__ __forceinline__ spla_small_lanes spla_small_groups(int G)
{
    spla_small_lanes g;
    g.lane = (int)(threadIdx.x & (unsigned int)(G - 1));
    g.group = (int)(threadIdx.x / (unsigned int)G);
    g.groups = (int)(blockDim.x / (unsigned int)G);
    const unsigned int wl = threadIdx.x & 31u;
    g.members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (wl & ~(unsigned int)(G - 1)));
    return g;
}

__device__ __forceinline__ double spla_small_d(const unsigned long long* d, int v)
{
    return __longlong_as_double((long long)*((const volatile unsigned long long*)(d + v)));
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

// The distances from s0 into d (every vertex's bits), over rounds of a frontier bitmap: bits (two
// bitmaps of SPLA_SSSP_SMALL_WORDS(n) words, the round's and the next's).  A round relaxes the
// out-arcs of the vertices set in its bitmap, setting in the next one each head whose d it lowers,
// then clears its own for the round after.  Ends with the block in step.
template <class I, bool UNIT>
__device__ __forceinline__ void spla_small_search(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                                  const double* __restrict__ olen, int s0, int n, int G,
                                                  unsigned long long* d, unsigned int* bits)
{
    const spla_small_lanes L = spla_small_groups(G);
    const int lane = L.lane, group = L.group, groups = L.groups;
    const int words = (int)SPLA_SSSP_SMALL_WORDS(n);
    unsigned int* cur = bits;
    unsigned int* nxt = bits + words;
    for (int v = threadIdx.x; v < n; v += blockDim.x) d[v] = v == s0 ? 0ull : 0x7ff0000000000000ull;
    for (int i = threadIdx.x; i < 2 * words; i += blockDim.x)
        bits[i] = i == (s0 >> 5) ? 1u << (s0 & 31) : 0u;  // the first round's frontier: s0 alone
    __syncthreads();
    for (;;) {
        for (int u = group; u < n; u += groups) {
            if (!((cur[u >> 5] >> (u & 31)) & 1u)) continue;  // a warp's vertices share a word
            // d(u) now: at least as low as every lowering of the rounds before this one
            const double du = spla_small_d(d, u);
            const long long end = (long long)__ldg(ocolptr + u + 1);
            for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                const int w = (int)__ldg(orowidx + p);
                if (w == u) continue;  // a self-loop lies on no shortest path
                const unsigned long long nb =
                    (unsigned long long)__double_as_longlong(__dadd_rn(du, spla_sssp_len<UNIT>(olen, p)));
                if (nb >= *((volatile unsigned long long*)(d + w))) continue;
                // d(w) = min(d(w), fl(d(u) + w(u, w))); where it lowers d(w), w is in the next round
                if (nb < atomicMin(d + w, nb)) atomicOr(nxt + (w >> 5), 1u << (w & 31));
            }
        }
        __syncthreads();  // the round's relaxations are done: its bitmap is spent, the next one whole
        int more = 0;
        for (int i = threadIdx.x; i < words; i += blockDim.x) {
            cur[i] = 0u;
            more |= nxt[i] != 0u;
        }
        if (!__syncthreads_or(more)) break;
        unsigned int* t = cur;
        cur = nxt;
        nxt = t;
    }
}

// Whether the arc u -> w (u != w) of length len is a DAG arc, d and h final; h null: every h 0 (no
// tight arc joins equal distances, so the order is d's alone).
__device__ __forceinline__ bool spla_small_dag(const unsigned long long* d, const int* h, int u, double du,
                                               int w, double len)
{
    const double dw = __longlong_as_double((long long)d[w]);
    return __dadd_rn(du, len) == dw && (h ? spla_sssp_dag_order(du, dw, h[u], h[w]) : du < dw);
}

// A 16-bit count of vertex v among n packed two to a 32-bit word, changed by delta with an atomic
// on the word; returns the count before.  Counts stay in 0..65535 (in-degrees of n < 2^16 vertices),
// so no carry or borrow reaches the other half.
__device__ __forceinline__ unsigned int spla_small_count_add(unsigned int* words, int v, int delta)
{
    const unsigned int shift = (unsigned int)(v & 1) * 16u;
    const unsigned int old = atomicAdd(words + (v >> 1), (unsigned int)delta << shift);
    return (old >> shift) & 0xffffu;
}

template <class I, bool UNIT>
__global__ void spla_sssp_small(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                const double* __restrict__ olen, const long long* __restrict__ src,
                                long long k, int n, int G, double* __restrict__ dist)
{
    extern __shared__ unsigned long long spla_small_smem[];
    unsigned long long* d = spla_small_smem;
    unsigned int* bits = (unsigned int*)(d + n);
    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        // d = d(s, ·): the min.plus closure from s
        spla_small_search<I, UNIT>(ocolptr, orowidx, olen, (int)src[s], n, G, d, bits);
        for (int v = threadIdx.x; v < n; v += blockDim.x)
            dist[(long long)v * k + s] = __longlong_as_double((long long)d[v]);
        __syncthreads();  // d and the bitmaps are the next source's
    }
}

// The block's sum of x (one value a thread) into every thread, in a fixed order: within each warp,
// then over the warps by thread 0.  part holds 32 partials; the block is in step after.
template <class T>
__device__ __forceinline__ T spla_small_block_sum(T x, T* part)
{
    for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
    if ((threadIdx.x & 31u) == 0) part[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        T total = part[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); ++w) total += part[w];
        part[0] = total;
    }
    __syncthreads();
    const T total = part[0];
    __syncthreads();  // part is free again
    return total;
}

template <class I, bool UNIT>
__global__ void spla_sssp_small_sums(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                     const double* __restrict__ olen, const long long* __restrict__ src,
                                     long long k, int n, int G, double* __restrict__ dsum,
                                     long long* __restrict__ reach, double* __restrict__ harm)
{
    extern __shared__ unsigned long long spla_small_smem[];
    unsigned long long* d = spla_small_smem;
    unsigned int* bits = (unsigned int*)(d + n);
    __shared__ double dpart[32];
    __shared__ long long cpart[32];
    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        // d = d(s, ·), then (Σ d, |reached|, Σ 1/d) over the vertices s reaches
        spla_small_search<I, UNIT>(ocolptr, orowidx, olen, (int)src[s], n, G, d, bits);
        double sd = 0.0, sh = 0.0;
        long long c = 0;
        for (int v = threadIdx.x; v < n; v += blockDim.x) {
            const double dv = __longlong_as_double((long long)d[v]);
            if (dv == __longlong_as_double(0x7ff0000000000000ll)) continue;
            sd += dv;
            ++c;
            if (dv > 0.0) sh += 1.0 / dv;
        }
        sd = spla_small_block_sum(sd, dpart);
        sh = spla_small_block_sum(sh, dpart);
        c = spla_small_block_sum(c, cpart);
        if (threadIdx.x == 0) {
            dsum[s] = sd;
            reach[s] = c;
            harm[s] = sh;
        }
    }
}

template <class I, bool UNIT>
__global__ void spla_sssp_small_deps(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                     const double* __restrict__ olen, const long long* __restrict__ src,
                                     long long k, int n, int G, double min_length, int with_h, int counts,
                                     const double* __restrict__ dist, int* __restrict__ hops,
                                     double* __restrict__ sigma, double* __restrict__ delta,
                                     int* __restrict__ failed)
{
    extern __shared__ unsigned long long spla_small_smem[];
    unsigned long long* d = spla_small_smem;
    double* sg = (double*)(d + n);
    int* h = with_h ? (int*)(sg + n) : nullptr;
    unsigned int* aux = (unsigned int*)(sg + n) + (with_h ? n : 0);  // n 16-bit counts, two a word
    unsigned short* queue = (unsigned short*)(aux + (n + 1) / 2);     // h's first list, then Kahn's queue
    unsigned short* starts = queue + (n + (n & 1));  // h's second list, then the levels' starts (n + 2)
    __shared__ int count[2];
    __shared__ int qend;
    __shared__ int too_big;
    __shared__ unsigned long long far;
    const spla_small_lanes L = spla_small_groups(G);
    const int lane = L.lane, group = L.group, groups = L.groups;
    const unsigned int members = L.members;

    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        const int s0 = (int)src[s];
        // d = d(s, ·), spla_sssp_small's
        if (threadIdx.x == 0) far = 0ull;
        unsigned long long mine = 0ull;
        for (int v = threadIdx.x; v < n; v += blockDim.x) {
            const unsigned long long b = (unsigned long long)__double_as_longlong(dist[(long long)v * k + s]);
            d[v] = b;
            if (b < 0x7ff0000000000000ull && b > mine) mine = b;
        }
        __syncthreads();  // far is 0 before any thread raises it
        // ties: whether a tight arc may join equal distances (sssp_small.py's ties_possible), from the
        // farthest finite d; without such arcs h orders nothing and stays 0
        if (mine) atomicMax(&far, mine);
        __syncthreads();
        const double fd = __longlong_as_double((long long)far);
        const bool ties = h && !(min_length > (__longlong_as_double(__double_as_longlong(fd) + 1ll) - fd) / 2.0);

        // h<tight, h == -1> = t + 1 over the out-arcs of level t, level after level
        if (h) {
            for (int v = threadIdx.x; v < n; v += blockDim.x) h[v] = (v == s0 || !ties) ? 0 : -1;
            if (threadIdx.x == 0) {
                queue[0] = (unsigned short)s0;
                count[0] = ties ? 1 : 0;  // no rounds without ties
                count[1] = 0;
            }
            __syncthreads();
            int cur = 0;
            for (int t = 0;; ++t) {
                const int nlist = count[cur];
                if (nlist == 0) break;
                const unsigned short* list = cur ? starts : queue;
                unsigned short* next = cur ? queue : starts;
                for (int i = group; i < nlist; i += groups) {
                    const int u = list[i];
                    const double du = __longlong_as_double((long long)d[u]);
                    const long long end = (long long)__ldg(ocolptr + u + 1);
                    for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                        const int w = (int)__ldg(orowidx + p);
                        if (w == u || __dadd_rn(du, spla_sssp_len<UNIT>(olen, p)) !=
                                          __longlong_as_double((long long)d[w]))
                            continue;
                        if (*((volatile int*)(h + w)) == -1 && atomicCAS(h + w, -1, t + 1) == -1)
                            next[atomicAdd(count + (1 - cur), 1)] = (unsigned short)w;
                    }
                }
                spla_small_flip(count, cur);
            }
        }

        // aux(w) = the DAG in-arcs of w; sg = 0
        for (int i = threadIdx.x; i < (n + 1) / 2; i += blockDim.x) aux[i] = 0u;
        for (int v = threadIdx.x; v < n; v += blockDim.x) sg[v] = 0.0;
        __syncthreads();
        for (int u = group; u < n; u += groups) {
            if (d[u] == 0x7ff0000000000000ull) continue;  // unreached
            const double du = __longlong_as_double((long long)d[u]);
            const long long end = (long long)__ldg(ocolptr + u + 1);
            for (long long p = (long long)__ldg(ocolptr + u) + lane; p < end; p += G) {
                const int w = (int)__ldg(orowidx + p);
                if (w != u && spla_small_dag(d, h, u, du, w, spla_sssp_len<UNIT>(olen, p)))
                    spla_small_count_add(aux, w, 1);
            }
        }
        if (threadIdx.x == 0) {
            sg[s0] = 1.0;
            queue[0] = (unsigned short)s0;
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
                    if (spla_small_count_add(aux, w, -1) == 1) queue[atomicAdd(&qend, 1)] = (unsigned short)w;
                }
            }
            __syncthreads();
            if (threadIdx.x == 0) starts[t + 2] = (unsigned short)qend;
            __syncthreads();
        }
        for (int v = threadIdx.x; v < n; v += blockDim.x) {
            const long long q = (long long)v * k + s;
            const double sv = sg[v];
            if (!(sv <= SPLA_SSSP_SMALL_SIGMA_MAX)) too_big = 1;
            if (counts) {
                hops[q] = h ? h[v] : 0;
                sigma[q] = sv;
            }
        }
        __syncthreads();
        if (too_big) {
            if (threadIdx.x == 0) failed[s] = 1;
            continue;  // block-uniform; the next source's first barrier orders its writes after these reads
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
                    delta[(long long)u * k + s] = u == s0 ? 0.0 : du_;  // a source's own is not betweenness
                    sg[u] = (1.0 + du_) / su;
                }
            }
            __syncthreads();
        }
    }
}

#endif  // SPLA_SSSP_SMALL_CUH
