// spla/kernels/sssp.cuh -- batched weighted shortest paths: the distances, hop counts, path counts
// and Brandes dependencies of k sources at once (spla/backends/gpu/sssp.py).
//
// Definition (the contract of spla.paths' weighted searches), arc u -> v of length w(u, v) >= 0:
//     d(s) = 0;   d(v) = min over arcs u -> v of fl(d(u) + w(u, v))
//     tight arc u -> v:  u != v and fl(d(u) + w(u, v)) == d(v)
//     h(s) = 0;   h(v) = min over tight arcs u -> v of h(u) + 1
//     DAG arc:    a tight arc u -> v with d(u) < d(v), or d(u) == d(v) and h(u) < h(v)
//     σ(s) = 1;   σ(v) = Σ_{DAG arcs u -> v} σ(u)
//     δ(v) = Σ_{DAG arcs v -> w} σ(v)/σ(w) · (1 + δ(w))
// σ is stored scaled, σ(v, s) = sigma(v, s) · 2^scale(v, s), where the host rescales a source whose
// counts approach float64's range (spla/backends/gpu/sssp.py); scale is null while none has been.
// Every sum d(u) + w is one IEEE round-to-nearest add (__dadd_rn, never contracted into an FMA), so
// it is the float64 sum networkx's Dijkstra forms.
//
// Layout: a block of k sources over n vertices is vertex-major: entry (v, s) has flat index
//   q = v*k + s in every (n, k) array: dist double (+inf: unreached), hops int (-1: unreached), dag
//   int (DAG in-arcs not yet counted), sigma double, scale int, delta double, mark and far_mark int.
// The graph: out-arcs as the CSC of A^T (column v lists the heads w of the arcs v -> w: ocolptr,
//   orowidx, olen) and in-arcs as the CSC of A (column w lists the tails u of the arcs u -> w:
//   icolptr, irowidx, ilen); lengths are float64 in each array's order, never read when UNIT (every
//   length 1: a pattern-only matrix).
// Entry lists: the rounds of spla_sssp_relax and spla_sssp_hops each work on a list of entries q
//   and append the next round's entries to another (at most cap of them), warp-aggregated;
//   spla_sssp_sigma and spla_sssp_delta work on the levels of one queue (level t: queue[start[t] :
//   start[t] + levels[t]]).  An entry enters a list at most once: relax swaps the list's tag into
//   mark[q] (tags are never reused, so marks need no clearing), hops claims h by atomicCAS, sigma
//   lists an entry when its last DAG in-arc is counted.
// Rounds on the device: a search's state (which buffer is the list, its length, the level, the
//   bucket's bound, the tags) lives in a control array ctl of unsigned long long (the SPLA_SSSP_*
//   slots below), and the last block of a round to finish (spla_sssp_last_block) sets it for the
//   next round.  So every round of a phase is the same launch with the same arguments: the host
//   queues many (recorded once as a CUDA graph), reads ctl now and then, and a round launched past
//   the end finds the phase done and returns.  A launch's grid is the device's resident blocks.
//
// Kernels: spla_sssp_relax<Q, I, UNIT>, spla_sssp_hops<Q, I, UNIT>, spla_sssp_sigma<Q, I, UNIT>,
//   spla_sssp_delta<Q, I, UNIT> (over an entry list) and spla_sssp_dag_count<I, UNIT>,
//   spla_sssp_arc_sums<I, UNIT> (over every vertex); spla_sssp_small<I, UNIT> and
//   spla_sssp_small_deps<I, UNIT> (sssp_small.cuh, included at the end: a thread block per source,
//   for graphs that fit its shared memory) and spla_sssp_rows<I, UNIT> (sssp_rows.cuh: a thread block
//   per source, its queue in shared memory, its distances a row in global memory).
//   Q: the flat index type (int when n*k < 2^31, else long long); I: the matrix's index type (int or
//   long long); UNIT: every length 1.
// Thread mapping: entry-list kernels: a group of G lanes per listed entry (G a power of two <= 32,
//   from the mean out-degree), grid-stride over the list, group-uniform bounds; lane g walks the
//   entry's arcs g, g + G, ...  Vertex kernels: a group of G lanes per vertex, grid-stride over
//   0..n-1; lane g owns the sources g, g + G, ... < k, so a group reads G consecutive entries of a
//   row, and walks the vertex's in-arcs for each source it owns.
// Host guarantees: launched with blockDim.x a multiple of 32; every list buffer holds n*k entries
//   (an entry is in a list at most once); every array as above, on one device.
//   NVRTC compiles the text with lists.cuh inlined (spla/backends/cuda_source.py): no system #include.

#ifndef SPLA_SSSP_CUH
#define SPLA_SSSP_CUH

#include "lists.cuh"  // SPLA_LIST_GROUPS / SPLA_LIST_FIRST, spla_list_append

// Slots of the control array ctl (spla/backends/gpu/sssp.py names them alike).
#define SPLA_SSSP_IN 0        // length of the round's list
#define SPLA_SSSP_OUT 1       // length of the list the round appends to (0 on entry)
#define SPLA_SSSP_SEL 2       // which buffer is which: list | next << 2 | far << 4 (buffers 0, 1, 2)
#define SPLA_SSSP_DONE 3      // 1 once the phase has nothing left; later rounds return at once
#define SPLA_SSSP_ARRIVED 4   // blocks of the round that have finished (0 between rounds)
#define SPLA_SSSP_T 5         // relax: the mark tag of the next list; hops, sigma, delta: the level
#define SPLA_SSSP_ROUNDS 6    // rounds that found a non-empty list
#define SPLA_SSSP_LISTED 7    // entries listed over those rounds
#define SPLA_SSSP_FAR 8       // relax: length of the far list
#define SPLA_SSSP_FAR_MIN 9   // relax: smallest d the far list holds, as bits (+inf's when empty)
#define SPLA_SSSP_FAR_TAG 10  // relax: the mark tag of the far list (one per bucket)
#define SPLA_SSSP_BOUND 11    // relax: the bucket's bound, as bits (+inf: Bellman-Ford)
#define SPLA_SSSP_WIDTH 12    // relax: the bucket width Δ, as bits (+inf: Bellman-Ford)
#define SPLA_SSSP_SLOTS 13

// Buffer b of three.
template <class Q>
__device__ __forceinline__ Q* spla_sssp_buffer(Q* b0, Q* b1, Q* b2, unsigned long long b)
{
    return b == 0 ? b0 : (b == 1 ? b1 : b2);
}

// Whether this block is the round's last to finish (thread 0 answers; the block's writes are
// visible device-wide before it counts itself, so the last block sees every block's).
__device__ __forceinline__ bool spla_sssp_last_block(unsigned long long* ctl)
{
    __syncthreads();
    if (threadIdx.x != 0) return false;
    __threadfence();
    const bool last = atomicAdd(ctl + SPLA_SSSP_ARRIVED, 1ull) == (unsigned long long)gridDim.x - 1ull;
    if (last) __threadfence();
    return last;
}

// The next round of a ping-pong search (hops; relax once its far list is empty): the appended list
// becomes the round's list, or the phase is done.
__device__ __forceinline__ void spla_sssp_next_round(volatile unsigned long long* c, unsigned long long nlist)
{
    c[SPLA_SSSP_ROUNDS] += nlist > 0 ? 1ull : 0ull;
    c[SPLA_SSSP_LISTED] += nlist;
    const unsigned long long sel = c[SPLA_SSSP_SEL];
    const unsigned long long nout = c[SPLA_SSSP_OUT];
    c[SPLA_SSSP_IN] = nout;
    c[SPLA_SSSP_OUT] = 0;
    c[SPLA_SSSP_T] += 1;
    if (nout) c[SPLA_SSSP_SEL] = ((sel >> 2) & 3ull) | ((sel & 3ull) << 2) | (sel & ~15ull);
    else c[SPLA_SSSP_DONE] = 1;
    c[SPLA_SSSP_ARRIVED] = 0;
}

// The round's list (buffer SEL & 3, nlist entries) and the buffer it appends to (SEL >> 2 & 3).
template <class Q>
__device__ __forceinline__ void spla_sssp_lists(const unsigned long long* ctl, Q* b0, Q* b1, Q* b2,
                                                const Q*& list, Q*& next, long long& nlist)
{
    const unsigned long long sel = ctl[SPLA_SSSP_SEL];
    list = spla_sssp_buffer<Q>(b0, b1, b2, sel & 3ull);
    next = spla_sssp_buffer<Q>(b0, b1, b2, (sel >> 2) & 3ull);
    nlist = (long long)ctl[SPLA_SSSP_IN];
}

// The vertex v and source s of the flat entry q = v*k + s.
template <class Q>
__device__ __forceinline__ void spla_sssp_entry(Q q, long long k, long long& v, long long& s)
{
    v = (long long)(q / (Q)k);
    s = (long long)q - v * k;
}

// Length of arc p (1 when UNIT).
template <bool UNIT>
__device__ __forceinline__ double spla_sssp_len(const double* __restrict__ len, long long p)
{
    return UNIT ? 1.0 : __ldg(len + p);
}

// Reads that see other threads' writes of this launch (no stale L1 line).
__device__ __forceinline__ double spla_sssp_vol(const double* p) { return *((const volatile double*)p); }
__device__ __forceinline__ int spla_sssp_vol(const int* p) { return *((const volatile int*)p); }

// Lists entry r in the list tagged `tag` unless it is there already.
template <class Q>
__device__ __forceinline__ void spla_sssp_list(Q r, int* mark, int tag, Q* __restrict__ out,
                                               unsigned long long* count, unsigned long long cap)
{
    if (spla_sssp_vol(mark + r) != tag && atomicExch(mark + r, tag) != tag) spla_list_append<Q>(r, out, count, cap);
}

// Whether the tight arc u -> v (u != v and d(u) + w == d(v), checked by the caller) is a DAG arc.
__device__ __forceinline__ bool spla_sssp_dag_order(double du, double dv, int hu, int hv)
{
    return du < dv || (du == dv && hu < hv);
}

// The distance bits atomicMin orders: a non-negative double's bits order as the number does.
__device__ __forceinline__ unsigned long long spla_sssp_bits(double x)
{
    return (unsigned long long)__double_as_longlong(x);
}

// ================================================================================================
// spla_sssp_relax -- one round of the distance search over the listed entries:
//     for every listed q = (v, s) with d(v, s) < bound, every arc v -> w, r = (w, s):
//         d(w, s) = min(d(w, s), fl(d(v, s) + w(v, w)))    (atomicMin on the bits)
//         where it lowers d(w, s): r listed in next (mark, tag), or, when the new d >= bound, in far
//     every listed q with d(v, s) >= bound waits for a later bucket: q listed in far
// far has its own marks and tag, and far_min = min over what it lists of d, as bits.  An entry
// lowered while it is being relaxed is listed again, so the next round relaxes its new d.
// bound = +inf: Bellman-Ford with an active-entry frontier; finite: one bucket of delta-stepping.
// The round's last block sets the next: next becomes the list; when it is empty and far is not, the
// bound moves one bucket past far_min (at least past it, where a bucket is below its rounding step:
// bound = max(fl(max(bound, far_min) + Δ), nextafter(far_min, +inf))) and far becomes the list;
// when both are empty the search is done.
//   ocolptr (n+1,), orowidx (m,) I; olen (m,) double; b0, b1, b2 (cap,) Q: the list, next and far
//   buffers as ctl's SEL says; dist (n*k,) double; mark, far_mark (n*k,) int; ctl (SPLA_SSSP_SLOTS,).
// ================================================================================================
__device__ __forceinline__ void spla_sssp_relax_next(volatile unsigned long long* c, unsigned long long nlist)
{
    const unsigned long long nfar = c[SPLA_SSSP_FAR];
    if (c[SPLA_SSSP_OUT] || !nfar) {
        spla_sssp_next_round(c, nlist);
        return;
    }
    c[SPLA_SSSP_ROUNDS] += nlist > 0 ? 1ull : 0ull;
    c[SPLA_SSSP_LISTED] += nlist;
    const double far_min = __longlong_as_double((long long)c[SPLA_SSSP_FAR_MIN]);
    const double bound = __longlong_as_double((long long)c[SPLA_SSSP_BOUND]);
    const double width = __longlong_as_double((long long)c[SPLA_SSSP_WIDTH]);
    const double moved = fmax(__dadd_rn(fmax(bound, far_min), width), nextafter(far_min, __longlong_as_double(0x7ff0000000000000LL)));
    c[SPLA_SSSP_BOUND] = (unsigned long long)__double_as_longlong(moved);
    const unsigned long long sel = c[SPLA_SSSP_SEL];
    const unsigned long long list = sel & 3ull, next = (sel >> 2) & 3ull, far = (sel >> 4) & 3ull;
    c[SPLA_SSSP_SEL] = far | (next << 2) | (list << 4);  // the far list is listed; the spent list waits as far
    c[SPLA_SSSP_IN] = nfar;
    c[SPLA_SSSP_FAR] = 0;
    c[SPLA_SSSP_FAR_MIN] = 0x7ff0000000000000ull;
    c[SPLA_SSSP_FAR_TAG] += 1;
    c[SPLA_SSSP_T] += 1;
    c[SPLA_SSSP_ARRIVED] = 0;
}

template <class Q, class I, bool UNIT>
__global__ void spla_sssp_relax(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                const double* __restrict__ olen, Q* b0, Q* b1, Q* b2, long long k, int G,
                                double* dist, int* mark, int* far_mark, unsigned long long cap,
                                unsigned long long* ctl)
{
    if (ctl[SPLA_SSSP_DONE]) return;
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const Q* list;
    Q* next;
    long long nlist;
    spla_sssp_lists<Q>(ctl, b0, b1, b2, list, next, nlist);
    Q* __restrict__ far = spla_sssp_buffer<Q>(b0, b1, b2, (ctl[SPLA_SSSP_SEL] >> 4) & 3ull);
    const double bound = __longlong_as_double((long long)ctl[SPLA_SSSP_BOUND]);
    const int tag = (int)ctl[SPLA_SSSP_T], far_tag = (int)ctl[SPLA_SSSP_FAR_TAG];
    unsigned long long* next_count = ctl + SPLA_SSSP_OUT;
    unsigned long long* far_count = ctl + SPLA_SSSP_FAR;
    unsigned long long* far_min = ctl + SPLA_SSSP_FAR_MIN;
    for (long long i = SPLA_LIST_FIRST(G); i < nlist; i += SPLA_LIST_GROUPS(G)) {
        const Q q = list[i];
        long long v, s;
        spla_sssp_entry<Q>(q, k, v, s);
        const double dv = spla_sssp_vol(dist + q);
        if (!(dv < bound)) {
            if (g == 0) {
                spla_sssp_list<Q>(q, far_mark, far_tag, far, far_count, cap);
                atomicMin(far_min, spla_sssp_bits(dv));
            }
            continue;
        }
        const long long end = (long long)ocolptr[v + 1];
        for (long long p = (long long)ocolptr[v] + g; p < end; p += G) {
            const long long r = (long long)__ldg(orowidx + p) * k + s;
            const double c = __dadd_rn(dv, spla_sssp_len<UNIT>(olen, p));
            if (c < spla_sssp_vol(dist + r)) {
                const unsigned long long bits = spla_sssp_bits(c);
                if (bits < atomicMin((unsigned long long*)(dist + r), bits)) {
                    if (c < bound) {
                        spla_sssp_list<Q>((Q)r, mark, tag, next, next_count, cap);
                    } else {  // beyond the bucket: straight to the far list
                        spla_sssp_list<Q>((Q)r, far_mark, far_tag, far, far_count, cap);
                        atomicMin(far_min, bits);
                    }
                }
            }
        }
    }
    if (spla_sssp_last_block(ctl)) spla_sssp_relax_next(ctl, (unsigned long long)nlist);
}

// ================================================================================================
// spla_sssp_hops -- one level of the breadth-first search over tight arcs that gives h:
//     for every listed q = (v, s) (h(v, s) == t), every tight arc v -> w with h(w, s) == -1:
//         h(w, s) = t + 1 (claimed by atomicCAS), (w, s) listed in next
// The round's last block makes next the list of level t + 1, or ends the search when it is empty.
//   ocolptr, orowidx, olen as in spla_sssp_relax; b0, b1 (cap,) Q: the list and next as ctl's SEL
//   says; dist (n*k,) double; hops (n*k,) int; ctl (SPLA_SSSP_SLOTS,), T the level t.
// ================================================================================================
template <class Q, class I, bool UNIT>
__global__ void spla_sssp_hops(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                               const double* __restrict__ olen, Q* b0, Q* b1, long long k, int G,
                               const double* __restrict__ dist, int* hops, unsigned long long cap,
                               unsigned long long* ctl)
{
    if (ctl[SPLA_SSSP_DONE]) return;
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const Q* list;
    Q* next;
    long long nlist;
    spla_sssp_lists<Q>(ctl, b0, b1, b1, list, next, nlist);
    unsigned long long* next_count = ctl + SPLA_SSSP_OUT;
    const int t = (int)ctl[SPLA_SSSP_T];
    for (long long i = SPLA_LIST_FIRST(G); i < nlist; i += SPLA_LIST_GROUPS(G)) {
        const Q q = list[i];
        long long v, s;
        spla_sssp_entry<Q>(q, k, v, s);
        const double dv = dist[q];
        const long long end = (long long)ocolptr[v + 1];
        for (long long p = (long long)ocolptr[v] + g; p < end; p += G) {
            const long long w = (long long)__ldg(orowidx + p);
            const long long r = w * k + s;
            if (w != v && spla_sssp_vol(hops + r) == -1 && __dadd_rn(dv, spla_sssp_len<UNIT>(olen, p)) == dist[r]) {
                if (atomicCAS(hops + r, -1, t + 1) == -1) spla_list_append<Q>((Q)r, next, next_count, cap);
            }
        }
    }
    if (spla_sssp_last_block(ctl)) spla_sssp_next_round(ctl, (unsigned long long)nlist);
}

// ================================================================================================
// spla_sssp_dag_count -- dag(w, s) = the DAG arcs u -> w of source s (0 where w is unreached), for
// every vertex w: a pull over w's in-arcs, no atomics.
//   icolptr (n+1,), irowidx (m,) I; ilen (m,) double; dist, hops, dag (n*k,).
// ================================================================================================
template <class I, bool UNIT>
__global__ void spla_sssp_dag_count(const I* __restrict__ icolptr, const I* __restrict__ irowidx,
                                    const double* __restrict__ ilen, long long n, long long k, int G,
                                    const double* __restrict__ dist, const int* __restrict__ hops,
                                    int* __restrict__ dag)
{
    const int sub = (int)(threadIdx.x & (unsigned int)(G - 1));
    for (long long w = SPLA_LIST_FIRST(G); w < n; w += SPLA_LIST_GROUPS(G)) {
        const long long a0 = (long long)icolptr[w], a1 = (long long)icolptr[w + 1];
        for (long long s = sub; s < k; s += G) {
            const long long r = w * k + s;
            const double dw = dist[r];
            int c = 0;
            if (dw < __longlong_as_double(0x7ff0000000000000LL)) {
                const int hw = hops[r];
                for (long long p = a0; p < a1; ++p) {
                    const long long u = (long long)__ldg(irowidx + p);
                    if (u == w) continue;
                    const long long q = u * k + s;
                    const double du = dist[q];
                    if (__dadd_rn(du, spla_sssp_len<UNIT>(ilen, p)) == dw && spla_sssp_dag_order(du, dw, hops[q], hw))
                        ++c;
                }
            }
            dag[r] = c;
        }
    }
}

// ================================================================================================
// spla_sssp_sigma -- one level of the topological sweep of the DAG (Kahn's order: an entry's level
// is the longest DAG path to it, in arcs):
//     for every q = (v, s) of level t (σ(v, s) final), every DAG arc v -> w, r = (w, s):
//         σ(w, s) += σ(v, s)  (atomicAdd);  dag(w, s) -= 1  (atomicSub);  r appended to level t + 1
//         when its count reaches 0
// σ(w, s) is complete when its count reaches 0 and is first read by a later launch.  Level t is
// queue[start[t] : start[t] + levels[t]]; level t + 1 starts at start[t + 1] = start[t] + levels[t]
// (stored by the launch's first thread) and is counted in levels[t + 1] (zero on entry).  top[t]
// (zero on entry): the largest σ of level t, as the bits of a non-negative double (atomicMax).  The
// round's last block moves T to t + 1 (an empty level leaves the next empty: the host reads levels).
//   ocolptr, orowidx, olen as in spla_sssp_relax; dist, hops, dag, sigma (n*k,); queue (cap,) Q;
//   start (levels,) long long; levels, top (levels,) ull; ctl (SPLA_SSSP_SLOTS,), T the level t.
// ================================================================================================
template <class Q, class I, bool UNIT>
__global__ void spla_sssp_sigma(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                const double* __restrict__ olen, Q* queue, unsigned long long cap, long long* start,
                                unsigned long long* levels, unsigned long long* top, long long k, int G,
                                const double* __restrict__ dist, const int* __restrict__ hops, int* dag,
                                double* sigma, unsigned long long* ctl)
{
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const long long t = (long long)ctl[SPLA_SSSP_T];
    const long long lo = start[t];
    const long long nlist = (long long)levels[t];
    const unsigned long long base = (unsigned long long)(lo + nlist);
    if (blockIdx.x == 0 && threadIdx.x == 0) start[t + 1] = (long long)base;
    const Q* __restrict__ list = queue + lo;
    Q* __restrict__ next = queue + base;
    double best = 0.0;
    for (long long i = SPLA_LIST_FIRST(G); i < nlist; i += SPLA_LIST_GROUPS(G)) {
        const Q q = list[i];
        long long v, s;
        spla_sssp_entry<Q>(q, k, v, s);
        const double dv = dist[q];
        const int hv = hops[q];
        const double sv = sigma[q];
        best = fmax(best, sv);
        const long long end = (long long)ocolptr[v + 1];
        for (long long p = (long long)ocolptr[v] + g; p < end; p += G) {
            const long long w = (long long)__ldg(orowidx + p);
            if (w == v) continue;
            const long long r = w * k + s;
            const double dw = dist[r];
            if (__dadd_rn(dv, spla_sssp_len<UNIT>(olen, p)) == dw && spla_sssp_dag_order(dv, dw, hv, hops[r])) {
                atomicAdd(sigma + r, sv);
                if (atomicSub(dag + r, 1) == 1) spla_list_append<Q>((Q)r, next, levels + t + 1, cap - base);
            }
        }
    }
    // every lane of the warp reaches this point (no lane leaves the loop early)
    for (int off = 16; off > 0; off >>= 1) best = fmax(best, __shfl_xor_sync(0xffffffffu, best, off));
    if ((threadIdx.x & 31u) == 0 && best > 0.0) atomicMax(top + t, spla_sssp_bits(best));
    if (spla_sssp_last_block(ctl)) {
        volatile unsigned long long* c = ctl;
        c[SPLA_SSSP_T] += 1;
        c[SPLA_SSSP_ARRIVED] = 0;
    }
}

// ================================================================================================
// spla_sssp_delta -- one level of the backward sweep, deepest level first:
//     for every q = (v, s) of level t:  δ(v, s) = σ(v, s) · Σ_{DAG arcs v -> w} (1 + δ(w, s)) / σ(w, s)
// with σ(v)/σ(w) = sigma(v)/sigma(w) · 2^(scale(v) - scale(w)) (scale null: 0).  The heads w lie on
// deeper levels, already final: a pull over v's out-arcs, no atomics; the G lanes of the entry's
// group sum with an xor butterfly and the first writes.  The round's last block moves T to t - 1;
// a round at T = -1 (past level 0) returns at once.
//   ocolptr, orowidx, olen as in spla_sssp_relax; queue, start, levels as in spla_sssp_sigma;
//   dist, hops, sigma, delta (n*k,); scale (n*k,) int or null; ctl (SPLA_SSSP_SLOTS,), T the level
//   t as a signed number.
// ================================================================================================
template <class Q, class I, bool UNIT>
__global__ void spla_sssp_delta(const I* __restrict__ ocolptr, const I* __restrict__ orowidx,
                                const double* __restrict__ olen, const Q* __restrict__ queue,
                                const long long* __restrict__ start, const unsigned long long* __restrict__ levels,
                                long long k, int G, const double* __restrict__ dist,
                                const int* __restrict__ hops, const double* __restrict__ sigma,
                                const int* __restrict__ scale, double* __restrict__ delta, unsigned long long* ctl)
{
    const long long t = (long long)ctl[SPLA_SSSP_T];
    if (t < 0) return;
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const Q* __restrict__ list = queue + start[t];
    const long long nlist = (long long)levels[t];
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    for (long long i = SPLA_LIST_FIRST(G); i < nlist; i += SPLA_LIST_GROUPS(G)) {
        const Q q = list[i];
        long long v, s;
        spla_sssp_entry<Q>(q, k, v, s);
        const double dv = dist[q];
        const int hv = hops[q];
        const int ev = scale != nullptr ? scale[q] : 0;
        double acc = 0.0;
        const long long end = (long long)ocolptr[v + 1];
        for (long long p = (long long)ocolptr[v] + g; p < end; p += G) {
            const long long w = (long long)__ldg(orowidx + p);
            if (w == v) continue;
            const long long r = w * k + s;
            const double dw = dist[r];
            if (__dadd_rn(dv, spla_sssp_len<UNIT>(olen, p)) == dw && spla_sssp_dag_order(dv, dw, hv, hops[r])) {
                const double term = (1.0 + delta[r]) / sigma[r];
                acc += scale != nullptr ? ldexp(term, ev - scale[r]) : term;
            }
        }
        for (int off = G >> 1; off > 0; off >>= 1) acc += __shfl_xor_sync(members, acc, off, G);
        if (g == 0) delta[q] = sigma[q] * acc;
    }
    if (spla_sssp_last_block(ctl)) {
        volatile unsigned long long* c = ctl;
        c[SPLA_SSSP_T] -= 1;
        c[SPLA_SSSP_ARRIVED] = 0;
    }
}

// ================================================================================================
// spla_sssp_arc_sums -- out[p] += Σ_s σ(u, s)/σ(w, s) · (1 + δ(w, s)) over the sources s for which
// the arc p = u -> w (entry p of A's CSC: column w, row u) is a DAG arc, for every arc (grid-stride
// over the columns w), σ scaled as in spla_sssp_delta.  The G lanes of a group split the sources; an
// xor butterfly over the group sums them and the group's first lane adds to out[p], which only this
// group writes.
//   icolptr, irowidx, ilen as in spla_sssp_dag_count; dist, sigma, delta (n*k,); hops (n*k,) int or
//   null (every h 0: no tight arc joins equal distances, the row path's dependencies); scale (n*k,)
//   int or null; out (m,).
// ================================================================================================
template <class I, bool UNIT>
__global__ void spla_sssp_arc_sums(const I* __restrict__ icolptr, const I* __restrict__ irowidx,
                                   const double* __restrict__ ilen, long long n, long long k, int G,
                                   const double* __restrict__ dist, const int* __restrict__ hops,
                                   const double* __restrict__ sigma, const double* __restrict__ delta,
                                   const int* __restrict__ scale, double* __restrict__ out)
{
    const int sub = (int)(threadIdx.x & (unsigned int)(G - 1));
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    // the loop bounds depend on the group only, so every shuffle below sees the whole group
    for (long long w = SPLA_LIST_FIRST(G); w < n; w += SPLA_LIST_GROUPS(G)) {
        const long long a0 = (long long)icolptr[w], a1 = (long long)icolptr[w + 1];
        for (long long p = a0; p < a1; ++p) {
            const long long u = (long long)__ldg(irowidx + p);
            double acc = 0.0;
            if (u != w) {
                const double len = spla_sssp_len<UNIT>(ilen, p);
                for (long long s = sub; s < k; s += G) {
                    const long long q = u * k + s, r = w * k + s;
                    const double du = dist[q], dw = dist[r];
                    if (__dadd_rn(du, len) == dw &&
                        spla_sssp_dag_order(du, dw, hops != nullptr ? hops[q] : 0, hops != nullptr ? hops[r] : 0)) {
                        const double term = sigma[q] / sigma[r] * (1.0 + delta[r]);
                        acc += scale != nullptr ? ldexp(term, scale[q] - scale[r]) : term;
                    }
                }
            }
            for (int off = G >> 1; off > 0; off >>= 1) acc += __shfl_xor_sync(members, acc, off, G);
            if (sub == 0) out[p] += acc;
        }
    }
}

#include "sssp_small.cuh"  // the small path: a thread block per source
#include "sssp_rows.cuh"   // the row path: a thread block per source, its distances in global memory

#endif  // SPLA_SSSP_CUH
