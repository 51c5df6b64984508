// spla/kernels/sssp_rows.cuh -- weighted distances of k sources, a thread block per source: each
// source's distances are its row of the (k, n) output in global memory, its waiting vertices a work
// queue in the block's shared memory and two far lists in a global scratch of the block's own
// (spla/backends/gpu/sssp_rows.py, the row path: graphs too large for a whole search in shared
// memory).  No device-wide round, no control array, one launch for every source of the block.
// spla_sssp_rows_deps, below, goes on from those rows to the Brandes dependencies on the same kind
// of queue.
//
// Definition: sssp.cuh's d.  Any order of monotone min-updates that relaxes every arc whose tail was
// lowered reaches the values of spla_sssp_relax's rounds, bit for bit (sssp_small.cuh says the same).
// Buckets (delta-stepping, bucket width Δ = width; +inf: Bellman-Ford): a phase relaxes, in any order
// and with no barrier between them, the out-arcs of every vertex whose d falls below the bound, and of
// every vertex such a relaxation lowers below it (the work queue); a vertex lowered to the bound or past
// it waits in a far list.  When the queue is spent the bound moves one bucket past the smallest waiting
// d (never less than the next float above it, so a bucket narrower than the rounding step still
// advances), as spla_sssp_relax_next moves the list rounds' bound, and the far vertices below it fill
// the next phase's queue.
//
// Relaxation: a lane reads d(w) (from L2), and where fl(d(u) + w(u, w)) is below what it read, lowers
//   d(w) by an atomic min whose old value it never waits for and enqueues (w, fl(d(u) + w(u, w))) in the
//   queue when below the bound, else in the far list.  d only falls, so a read is never below d(w) now:
//   every relaxation that lowers d(w) enqueues, and one that races with a lower one enqueues an entry
//   that its visit skips.  A visit reads d(u) and skips the entry when it is lower than the entry's d (a
//   later entry carries it), so each vertex is relaxed about once at each value it holds, with no bitmap
//   to keep the lists free of repeats.
// Kernel: spla_sssp_rows<I, UNIT>.  I: the matrix's index type; UNIT: every length 1.
// Thread mapping: one thread block per source (block b takes s = b, b + gridDim.x, ...).  In a phase a
//   warp's first lane claims queue slots that enqueues have taken (a compare-and-swap on the queue's
//   head), one for each group of G lanes of the warp (G a power of two <= 32) or as many as there are;
//   with none, it waits until some are taken or until every claimed entry is done and no slot is left
//   (the phase is over).  A group visits its entry: its first lane reads d(u), lane g relaxes u's
//   out-arcs g, g + G, ..., SPLA_ROWS_ARCS of them at once.  The warp claims and visits as one, so
//   lanes with an entry never wait behind lanes that wait for one.  Slots are taken and
//   claimed in order, so a phase runs its entries first in, first out.  Between phases the block's
//   barriers: the far minimum's reduction and the far list's split.
// Shapes: ocolptr (n+1,), orowidx (m,) I and olen (m,) double: out-arcs as the CSC of A^T (olen never
//   read when UNIT); src (k,) long long; dist (k*n,) double, source-major: row s (dist + s*n) is
//   d(src[s], ·), +inf where unreached; spill (k*SPLA_SSSP_SMALL_WORDS(n),) unsigned int, zero on
//   entry and on exit; far (gridDim.x*3*fcap,) double, scratch: block b's far lists, their d at
//   far + b*3*fcap (list p at + p*fcap), their vertices (int) after them; rounds (k,) int or null: the
//   phases each source took.
// What a thread block owns: its source's row of dist (every entry written: +inf, then lowered by
//   atomic min on the float64 bits: non-negative doubles order as their bits) and its row of spill (a
//   bit a vertex whose entry found its list full: swept back between phases) and its slice of far:
//   two far lists (fcap entries each, by phase parity: the one being filled, the one being split),
//   read back only after the block's barriers; in dynamic shared memory SPLA_SSSP_ROWS_BYTES(cap):
//   the queue (cap slots: a vertex, -1 until filled, and its d), which the lanes poll; in static
//   shared memory the queue's head, tail and count of entries done, the far lists' lengths, the
//   spill flag and the warps' far minima.  The far lists stay out of shared memory so that the SM's
//   L1 keeps room for the arcs its searches read (docs/decisions/tuning.md, sssp_rows).
// Host guarantees: blockDim.x a multiple of 32 and of G, at most SPLA_ROWS_THREADS; the dynamic shared
//   memory above; 0 < n < 2^31; cap, fcap >= 1; width > 0 (+inf for Bellman-Ford); spill zeroed; far
//   of gridDim.x*3*fcap doubles.

#ifndef SPLA_SSSP_ROWS_CUH
#define SPLA_SSSP_ROWS_CUH

#include "sssp_small.cuh"  // spla_sssp_len, SPLA_SSSP_SMALL_WORDS, spla_small_groups

// Dynamic shared memory of one source's row search: the queue (cap entries), an entry a 32-bit vertex
// and a float64 d (the d's first, for their alignment).
#define SPLA_SSSP_ROWS_BYTES(cap) (12ll * (long long)(cap))

// Arcs a lane relaxes at once: their atomics are issued together, so a visit waits for one atomic's
// latency instead of one per arc.
#ifndef SPLA_ROWS_ARCS
#define SPLA_ROWS_ARCS 4
#endif

// The block's queue, far lists and counters.
struct spla_rows_ctl {
    int head;      // queue slots claimed
    int tail;      // queue slots taken by enqueues (past cap: those entries spilled)
    int done;      // claimed entries visited to the end
    int spilled;   // some entry went to the spill bitmap since its last sweep
    int fcount[2]; // the far lists' lengths
    unsigned long long part[32];  // the warps' far minima
};

struct spla_rows_lists {
    volatile int* qu;  // queue vertices, -1 until filled
    double* qd;        // their d
    int* fu;           // far list being filled: vertices
    double* fd;        // ... their d (the far lists live in global memory)
    int* fcount;       // ... its length
    unsigned int* spill;
    spla_rows_ctl* ctl;
    int cap, fcap;
};

// A slot for this lane among the lanes of its warp that append to the same list now, taken with one
// atomicAdd on the list's length (warp-aggregated; the caller's branch keeps the two lists' lanes apart).
__device__ __forceinline__ int spla_rows_take(int* length)
{
    const unsigned int active = __activemask();
    const unsigned int lane = threadIdx.x & 31u;
    const int leader = __ffs(active) - 1;
    int base = 0;
    if ((int)lane == leader) base = atomicAdd(length, __popc(active));
    return __shfl_sync(active, base, leader) + __popc(active & ((1u << lane) - 1u));
}

// Enqueues (w, x), the d a relaxation just lowered w to: in the queue when x < bound, else in the far
// list; where that is full, w's spill bit (the phase's end reads d(w) again).  A list seen full takes
// no slot, so its length stays within its cap and a warp's worth of lanes.
__device__ __forceinline__ void spla_rows_enqueue(int w, double x, double bound, const spla_rows_lists& L)
{
    if (x < bound) {
        if (*(volatile int*)&L.ctl->tail < L.cap) {
            const int t = spla_rows_take(&L.ctl->tail);
            if (t < L.cap) {
                L.qd[t] = x;
                __threadfence_block();  // the d before the vertex that publishes it
                L.qu[t] = w;
                return;
            }
        }
    } else if (*(volatile int*)L.fcount < L.fcap) {
        const int t = spla_rows_take(L.fcount);
        if (t < L.fcap) {
            L.fu[t] = w;
            L.fd[t] = x;
            return;
        }
    }
    atomicOr(L.spill + (w >> 5), 1u << (w & 31));
    *(volatile int*)&L.ctl->spilled = 1;
}

// The warp's claim, by its first lane, of up to per_warp queue slots among those that enqueues have
// taken below cap: the first slot h and their count c (the same in every lane), c = 0 when the phase is
// over.  Read in this order, done == head == the taken slots means that at the first read no entry was
// being visited and none waited, so none can come.  Called by every lane of the warp.
__device__ __forceinline__ void spla_rows_claim(spla_rows_ctl& ctl, int cap, int per_warp, int& h, int& c)
{
    h = c = 0;
    if ((threadIdx.x & 31u) == 0) {
        for (;;) {
            const int fin = *(volatile int*)&ctl.done;
            const int head = *(volatile int*)&ctl.head;
            const int avail = min(*(volatile int*)&ctl.tail, cap) - head;
            if (avail > 0) {
                const int want = min(avail, per_warp);
                if (atomicCAS(&ctl.head, head, head + want) == head) {
                    h = head;
                    c = want;
                    break;
                }
            } else {
                if (fin == head) break;
                __nanosleep(64);
            }
        }
    }
    h = __shfl_sync(0xffffffffu, h, 0);
    c = __shfl_sync(0xffffffffu, c, 0);
}

// *p = min(*p, x) in global memory, with no value returned (a reduction: the lane does not wait for it).
__device__ __forceinline__ void spla_rows_lower(unsigned long long* p, unsigned long long x)
{
    asm volatile("red.global.min.u64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
}

// *p by an acquire load at the block's scope: the lane's later reads come after it, and see what the
// writer of *p wrote before its fence.
__device__ __forceinline__ int spla_rows_acquire(const volatile int* p)
{
    int v;
    asm volatile("ld.acquire.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// The vertex in queue slot i, read by the group's first lane once the enqueue that took the slot has
// filled it (-1 until then), and broadcast to the group.  The read is an acquire: the lane's reads of
// the entry's other fields see what the enqueue wrote before the vertex, with no fence (which would
// also order every earlier memory operation of the lane).
__device__ __forceinline__ int spla_rows_slot(volatile int* q, int i, int lane, unsigned int members, int G)
{
    int u = -1;
    if (lane == 0)
        while ((u = spla_rows_acquire(q + i)) < 0) {
        }
    return __shfl_sync(members, u, 0, G);
}

// Drains the queue q of the deps kernel's sweeps: the warp claims slots (spla_rows_claim, at most cap
// of them in a sweep) until the sweep is over, and each group with a claimed slot runs visit(v) on its
// vertex; the claimed entries count as done once the warp's visits (and their enqueues) are.  Called
// by every lane of the warp.
template <class Visit>
__device__ __forceinline__ void spla_rows_drain(spla_rows_ctl& ctl, volatile int* q, int cap, int per_warp, int slot,
                                                int lane, unsigned int members, int G, Visit visit)
{
    for (;;) {
        int h, c;
        spla_rows_claim(ctl, cap, per_warp, h, c);
        if (c == 0) return;  // the sweep is over (the whole warp leaves)
        if (slot < c) visit(spla_rows_slot(q, h + slot, lane, members, G));
        __syncwarp();  // the warp's enqueues taken before its entries count as done
        if ((threadIdx.x & 31u) == 0) atomicAdd(&ctl.done, c);
    }
}

// Visits entry (u, x) by its group: skipped when d(u) is lower than x; else relaxes u's out-arcs from x,
// enqueuing each head it lowers.
template <class I, bool UNIT>
__device__ __forceinline__ void spla_rows_visit(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                                const double* __restrict__ olen, unsigned long long* d, int u,
                                                double x, double bound, const spla_rows_lists& L, int lane,
                                                unsigned int members, int G)
{
    // u's arcs are read before d(u) is known, so that both loads are in flight at once
    const long long first = (long long)__ldg(ocolptr + u);
    const long long end = (long long)__ldg(ocolptr + u + 1);
    double du = 0.0;
    if (lane == 0) du = __longlong_as_double((long long)*((volatile unsigned long long*)(d + u)));
    du = __shfl_sync(members, du, 0, G);
    if (du < x) return;  // lowered again since: a later entry relaxes u from there
    for (long long p0 = first + lane; p0 < end; p0 += SPLA_ROWS_ARCS * G) {
        int w[SPLA_ROWS_ARCS];
        unsigned long long nb[SPLA_ROWS_ARCS], old[SPLA_ROWS_ARCS];
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t) {
            const long long p = p0 + (long long)t * G;
            w[t] = p < end ? (int)__ldg(orowidx + p) : u;  // u: no arc (a self-loop lies on no shortest path)
            nb[t] = w[t] == u ? 0ull
                              : (unsigned long long)__double_as_longlong(__dadd_rn(x, spla_sssp_len<UNIT>(olen, p)));
        }
        // d(w) = min(d(w), fl(d(u) + w(u, w))) for each of the lane's arcs that the read says it lowers:
        // the reads' latency is paid once, the reductions' not at all
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t) old[t] = w[t] == u ? 0ull : __ldcg(d + w[t]);
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t)
            if (nb[t] < old[t]) spla_rows_lower(d + w[t], nb[t]);
#pragma unroll
        for (int t = 0; t < SPLA_ROWS_ARCS; ++t)
            if (nb[t] < old[t]) spla_rows_enqueue(w[t], __longlong_as_double((long long)nb[t]), bound, L);
    }
}

// At most SPLA_ROWS_THREADS threads a block, with registers (64 a thread) for SPLA_ROWS_BLOCKS_PER_SM
// such blocks an SM and none spilled: 1,024 threads an SM, which the host spends as four distance
// searches of 256 threads or two dependency sweeps of 512 (sssp_rows.py's ROWS_BLOCK, ROWS_DEPS_BLOCK).
#define SPLA_ROWS_THREADS 512
#define SPLA_ROWS_BLOCKS_PER_SM 2

template <class I, bool UNIT>
__global__ void __launch_bounds__(SPLA_ROWS_THREADS, SPLA_ROWS_BLOCKS_PER_SM)
    spla_sssp_rows(const I* __restrict__ ocolptr, const I* __restrict__ orowidx, const double* __restrict__ olen,
                   const long long* __restrict__ src, long long k, int n, int G, double width, int cap, int fcap,
                   double* __restrict__ dist, unsigned int* __restrict__ spill, double* __restrict__ far,
                   int* __restrict__ rounds)
{
    extern __shared__ double spla_rows_smem[];
    __shared__ spla_rows_ctl ctl;
    const unsigned long long INF = 0x7ff0000000000000ull;
    const long long words = SPLA_SSSP_SMALL_WORDS(n);
    int* const qu = (int*)(spla_rows_smem + cap);
    double* const fdbase = far + (long long)blockIdx.x * 3 * fcap;  // far list p's d at fdbase + p * fcap
    int* const fubase = (int*)(fdbase + 2 * fcap);                  // far list p's vertices at fubase + p * fcap
    const spla_small_lanes S = spla_small_groups(G);
    const int lane = S.lane;
    const unsigned int members = S.members;
    const int per_warp = 32 / G;                    // entries a warp takes at once, a group's each
    const int slot = (int)(threadIdx.x & 31u) / G;  // this group's among them

    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        unsigned long long* d = (unsigned long long*)(dist + s * (long long)n);
        const int s0 = (int)src[s];
        int fa = 0;  // the far list being filled
        spla_rows_lists L = {qu, spla_rows_smem, fubase, fdbase, ctl.fcount, spill + s * words, &ctl, cap, fcap};
        for (int v = threadIdx.x; v < n; v += blockDim.x) d[v] = v == s0 ? 0ull : INF;
        for (int i = threadIdx.x; i < cap; i += blockDim.x) qu[i] = i == 0 ? s0 : -1;
        if (threadIdx.x == 0) {
            spla_rows_smem[0] = 0.0;  // the first phase's queue: (s0, 0)
            ctl.head = 0;
            ctl.tail = 1;
            ctl.done = 0;
            ctl.spilled = 0;
            ctl.fcount[0] = ctl.fcount[1] = 0;
        }
        __syncthreads();  // the row, the queue and the counters are set for every thread
        double bound = width;  // the first bucket, [0, Δ)
        int r = 0;
        for (;;) {
            ++r;
            // the phase: every queued entry and every entry its visits enqueue below the bound
            for (;;) {
                // the warp claims an entry for each of its groups, or as many as enqueues have taken
                // slots for; with none, it waits for some or for the phase's end (c = 0)
                int h, c;
                spla_rows_claim(ctl, cap, per_warp, h, c);
                if (c == 0) break;  // the phase is over (the whole warp leaves)
                if (slot < c) {
                    const int u = spla_rows_slot(L.qu, h + slot, lane, members, G);
                    double x = 0.0;
                    // after the slot's acquire: the d the enqueue wrote before the vertex
                    if (lane == 0) x = *(volatile double*)(L.qd + h + slot);
                    x = __shfl_sync(members, x, 0, G);
                    spla_rows_visit<I, UNIT>(ocolptr, orowidx, olen, d, u, x, bound, L, lane, members, G);
                }
                __syncwarp();  // the warp's enqueues taken before its entries count as done
                if ((threadIdx.x & 31u) == 0) atomicAdd(&ctl.done, c);
            }
            __syncthreads();  // the phase is over for every group: the queue is spent
            const int used = min(ctl.tail, cap);
            const int swept = ctl.spilled;
            for (int i = threadIdx.x; i < used; i += blockDim.x) qu[i] = -1;
            __syncthreads();  // every thread read the counters
            if (threadIdx.x == 0) {
                ctl.head = ctl.tail = ctl.done = 0;
                ctl.spilled = 0;
            }
            __syncthreads();
            if (swept) {
                // the spilled vertices, enqueued again from their d now (still-full lists spill them again)
                for (long long i = threadIdx.x; i < words; i += blockDim.x) {
                    unsigned int m = atomicExch(L.spill + i, 0u);
                    while (m) {
                        const int w = (int)(i << 5) | (__ffs((int)m) - 1);
                        m &= m - 1u;
                        spla_rows_enqueue(w, __longlong_as_double((long long)*(volatile unsigned long long*)(d + w)),
                                          bound, L);
                    }
                }
                __syncthreads();
                const int queued = ctl.tail;
                __syncthreads();  // every thread read it before a visit can enqueue
                if (queued > 0) continue;  // some below the bound: the bucket goes on
            }
            // the bucket is done: every waiting vertex is in the far list being filled or spilled
            const int nfar = min(ctl.fcount[fa], fcap);
            const int still = *(volatile int*)&ctl.spilled;
            if (nfar == 0 && !still) break;
            unsigned long long far = INF;
            for (int i = threadIdx.x; i < nfar; i += blockDim.x)
                far = min(far, (unsigned long long)__double_as_longlong(fdbase[fa * fcap + i]));
            if (still) {  // the spilled ones' d, read where they wait
                for (long long i = threadIdx.x; i < words; i += blockDim.x) {
                    unsigned int m = L.spill[i];
                    while (m) {
                        const int w = (int)(i << 5) | (__ffs((int)m) - 1);
                        m &= m - 1u;
                        far = min(far, *(volatile unsigned long long*)(d + w));
                    }
                }
            }
            for (int off = 16; off > 0; off >>= 1) far = min(far, __shfl_xor_sync(0xffffffffu, far, off));
            if ((threadIdx.x & 31u) == 0) ctl.part[threadIdx.x >> 5] = far;
            __syncthreads();  // the warps' minima
            for (int w = 0; w < (int)(blockDim.x >> 5); ++w) far = min(far, ctl.part[w]);
            const double f = __longlong_as_double((long long)far);
            bound = fmax(__dadd_rn(fmax(bound, f), width), nextafter(f, __longlong_as_double((long long)INF)));
            // the far list split: below the new bound into the queue, the rest into the other far list
            L.fu = fubase + (1 - fa) * fcap;
            L.fd = fdbase + (1 - fa) * fcap;
            L.fcount = ctl.fcount + (1 - fa);
            for (int i = threadIdx.x; i < nfar; i += blockDim.x)
                spla_rows_enqueue(fubase[fa * fcap + i], fdbase[fa * fcap + i], bound, L);
            __syncthreads();  // the split is done
            if (threadIdx.x == 0) ctl.fcount[fa] = 0;
            fa = 1 - fa;
            __syncthreads();
        }
        if (rounds && threadIdx.x == 0) rounds[s] = r;
        __syncthreads();  // the queue is clear and the counters are the next source's
    }
}

// ================================================================================================
// spla_sssp_rows_deps<I, UNIT> -- the Brandes dependencies of k sources from their row-path distances,
// a thread block per source, where no tight arc joins equal distances (sssp_small.py's ties_possible
// says none can: every h is 0 and the DAG's order is d's alone).
//
// Definition: sssp.cuh's tight arcs, DAG, σ and δ, with h = 0.  σ(v) = Σ σ(u) over v's DAG in-arcs
// u -> v, σ(s) = 1; δ(v) = σ(v) · Σ (1 + δ(w)) / σ(w) over v's DAG out-arcs v -> w, summed in the
// out-arcs' order as spla_sssp_delta sums them.
// Thread mapping: one thread block per source (block b takes s = b, b + gridDim.x, ...), groups of G
//   lanes as in spla_sssp_rows.  Three steps, each closed by the block's barrier: (1) the groups
//   stride over the vertices, counting each one's DAG in-arcs (its in-arcs' lanes, summed by a
//   butterfly); (2) Kahn's sweep: the queue's entries are claimed as in spla_sssp_rows; a visit of u
//   adds σ(u) into each DAG successor's σ (atomicAdd) and, after a fence, takes one from its count
//   (atomicSub); the lane that takes the last enqueues it; u's count becomes its DAG out-degree;
//   (3) the sweep back: the sinks (reached, out-degree 0) are enqueued, a visit of w pulls δ(w) over
//   its out-arcs (butterfly), stores it, fences, and takes one from each DAG predecessor's count,
//   enqueuing the predecessor whose count it empties.
// Shapes: the out-arcs (ocolptr, orowidx, olen) as in spla_sssp_rows and the in-arcs (icolptr (n+1,),
//   irowidx (m,) I and ilen (m,) double: the CSC of A); src (k,) long long; dist (k*n,) double,
//   source-major (spla_sssp_rows' rows); sigma, delta (k*n,) double, cnt and queue (k*n,) int,
//   source-major scratch; failed (k,) int.
// What a thread block owns: its source's rows of sigma, delta, cnt and queue (every entry written:
//   delta 0 where unreached; the queue holds each reached vertex once a sweep, so it needs no cap);
//   in static shared memory the queue's head, tail and count of entries done.
// Writes: delta's rows (the source's own entry too: the host zeroes it) and failed[s] = 1 where a σ
//   passes 2^512 (the list rounds, which rescale, run the block; the rest of its writes are void).
// Host guarantees: as spla_sssp_rows; every tight arc joins distances that differ (no ties).

template <class I, bool UNIT>
__global__ void __launch_bounds__(SPLA_ROWS_THREADS, SPLA_ROWS_BLOCKS_PER_SM)
    spla_sssp_rows_deps(const I* __restrict__ ocolptr, const I* __restrict__ orowidx, const double* __restrict__ olen,
                        const I* __restrict__ icolptr, const I* __restrict__ irowidx, const double* __restrict__ ilen,
                        const long long* __restrict__ src, long long k, int n, int G, const double* __restrict__ dist,
                        double* __restrict__ sigma, double* __restrict__ delta, int* __restrict__ cnt,
                        int* __restrict__ queue, int* __restrict__ failed)
{
    __shared__ spla_rows_ctl ctl;
    const double INF = __longlong_as_double(0x7ff0000000000000ll);
    const spla_small_lanes S = spla_small_groups(G);
    const int lane = S.lane;
    const unsigned int members = S.members;
    const int per_warp = 32 / G;
    const int slot = (int)(threadIdx.x & 31u) / G;

    for (long long s = blockIdx.x; s < k; s += gridDim.x) {
        const double* __restrict__ d = dist + s * (long long)n;
        double* sg = sigma + s * (long long)n;
        double* dl = delta + s * (long long)n;
        int* c = cnt + s * (long long)n;
        volatile int* q = queue + s * (long long)n;
        const int s0 = (int)src[s];
        // (1) c(v) = |{u -> v tight, u != v}|, the DAG in-arcs; σ = [v = s0]; δ = 0; the queue empty
        for (int v = S.group; v < n; v += S.groups) {
            const double dv = d[v];
            int m = 0;
            if (dv != INF) {
                const long long end = (long long)icolptr[v + 1];
                for (long long p = (long long)icolptr[v] + lane; p < end; p += G) {
                    const int u = (int)__ldg(irowidx + p);
                    m += u != v && __dadd_rn(d[u], spla_sssp_len<UNIT>(ilen, p)) == dv;
                }
            }
            for (int off = G >> 1; off > 0; off >>= 1) m += __shfl_xor_sync(members, m, off, G);
            if (lane == 0) {
                c[v] = m;
                sg[v] = v == s0 ? 1.0 : 0.0;
                dl[v] = 0.0;
                q[v] = -1;
            }
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            q[0] = s0;
            ctl.head = 0;
            ctl.tail = 1;
            ctl.done = 0;
        }
        __syncthreads();
        // (2) σ(w) += σ(u) over the DAG arcs u -> w, u taken in Kahn's order (every DAG in-arc of u added)
        spla_rows_drain(ctl, q, n, per_warp, slot, lane, members, G, [&](int u) {
            const double du = d[u];
            const double su = __ldcg(sg + u);  // every in-arc's add fenced before its count fell
            if (lane == 0 && !(su <= SPLA_SSSP_SMALL_SIGMA_MAX)) failed[s] = 1;
            int m = 0;
            const long long end = (long long)ocolptr[u + 1];
            for (long long p = (long long)ocolptr[u] + lane; p < end; p += G) {
                const int w = (int)__ldg(orowidx + p);
                if (w == u || __dadd_rn(du, spla_sssp_len<UNIT>(olen, p)) != d[w]) continue;
                ++m;
                atomicAdd(sg + w, su);
                __threadfence();  // the add seen by whoever takes w's last count
                if (atomicSub(c + w, 1) == 1) q[spla_rows_take(&ctl.tail)] = w;
            }
            for (int off = G >> 1; off > 0; off >>= 1) m += __shfl_xor_sync(members, m, off, G);
            if (lane == 0) c[u] = m;  // its DAG out-degree: the sweep back counts it down
        });
        __syncthreads();
        const int reached = ctl.tail;
        for (int i = threadIdx.x; i < reached; i += blockDim.x) q[i] = -1;
        __syncthreads();  // every thread read the count before it is cleared
        if (threadIdx.x == 0) ctl.head = ctl.tail = ctl.done = 0;
        __syncthreads();
        // (3) the sinks first, then each vertex whose DAG successors are all done
        for (int v = threadIdx.x; v < n; v += blockDim.x)
            if (d[v] != INF && c[v] == 0) q[spla_rows_take(&ctl.tail)] = v;
        __syncthreads();  // every sink enqueued before a warp can find the sweep over
        spla_rows_drain(ctl, q, n, per_warp, slot, lane, members, G, [&](int w) {
            const double dw = d[w];
            // δ(w) = σ(w) Σ (1 + δ(x)) / σ(x) over the DAG arcs w -> x
            double acc = 0.0;
            const long long oend = (long long)ocolptr[w + 1];
            for (long long p = (long long)ocolptr[w] + lane; p < oend; p += G) {
                const int x = (int)__ldg(orowidx + p);
                if (x != w && __dadd_rn(dw, spla_sssp_len<UNIT>(olen, p)) == d[x])
                    acc += (1.0 + __ldcg(dl + x)) / __ldcg(sg + x);
            }
            for (int off = G >> 1; off > 0; off >>= 1) acc += __shfl_xor_sync(members, acc, off, G);
            if (lane == 0) {
                dl[w] = __ldcg(sg + w) * acc;
                __threadfence();  // δ(w) seen by whoever visits a predecessor it releases
            }
            __syncwarp(members);
            const long long iend = (long long)icolptr[w + 1];
            for (long long p = (long long)icolptr[w] + lane; p < iend; p += G) {
                const int u = (int)__ldg(irowidx + p);
                if (u != w && __dadd_rn(d[u], spla_sssp_len<UNIT>(ilen, p)) == dw && atomicSub(c + u, 1) == 1)
                    q[spla_rows_take(&ctl.tail)] = u;
            }
        });
        __syncthreads();  // the counters are the next source's
    }
}

#endif  // SPLA_SSSP_ROWS_CUH
