// spla/kernels/frontier.cuh -- level-structured sparse blocks: the push and pull products of k
// level-synchronous traversals (one per source) that walk only their frontiers' arcs.
//
// A block of k traversals over an n-vertex graph is stored vertex-major: entry (v, s) has flat index
// q = v*k + s, and block[2q] is its value, block[2q + 1] its level (-1: not reached) -- an (n, k, 2)
// double array.  A queue of flat indices lists the entries level by level: each level's slice is
// a frontier, the coordinate list of a sparse (n, k) matrix whose values sit in the dense block.
//
// The graph is one CSC matrix: colptr (n+1,), rowidx (nnz,) of index type I; column v lists the
// vertices w of the arcs v -> w (the caller passes A^T of an adjacency A[i, j] = arc i -> j, which is
// A itself when A is symmetric).  Values of the matrix are never read (pattern semantics).
//
// Kernels: spla_frontier_push<Q, I>, spla_frontier_pull<Q, I, DIVIDE, FEED>, instantiated by
//   spla/backends/gpu/compile.py (frontier_name_expressions) as e.g. "spla_frontier_push<int, int>".
// Thread mapping: a group of G lanes (a power of two <= 32) per frontier entry, grid-stride over the
//   level's entries (group-uniform); lane g walks the entry's arcs g, g + G, ...
// Inputs / outputs: the block, the queue and its bookkeeping (start, count, top) as each kernel says.
// Templates: Q, the flat index type of the block (int when n*k < 2^31, else long long); I, the
//   matrix's index type; DIVIDE and FEED (pull), as spla_frontier_pull says.
// Host guarantees: the queue holds every entry a traversal can reach (n*k); count[d+1] and top[d]
//   are zero before level d's push.
//   NVRTC compiles the text with lists.cuh inlined (spla/backends/cuda_source.py): no system #include.

#ifndef SPLA_FRONTIER_CUH
#define SPLA_FRONTIER_CUH

#include "lists.cuh"  // SPLA_LIST_GROUPS / SPLA_LIST_FIRST, spla_list_append (sized for n*k entries)

// The queue's bookkeeping, all on the device so that the host can enqueue levels without reading
// anything back: level d's entries are queue[start[d] : start[d] + count[d]].  A push of level d
// reads start[d] and count[d], appends level d+1 at start[d+1] = start[d] + count[d] (stored by
// thread 0 of the launch for the next one) and counts it in count[d+1] (zero on entry).
//   start (levels,) long long, count (levels,) unsigned long long, top (levels,) unsigned long long.

// ================================================================================================
// spla_frontier_push -- block'<¬reached ∪ level == depth+1> += frontier_depth +.first A, building the
// next frontier.  block is (n*k, 2) double: block[q][0] the entry's value, block[q][1] its level
// (-1: not reached), interleaved so that one 32-byte sector holds both for an arc's target.
//     for every entry q = (v, s) of level `depth` and every arc v -> w:
//         r = (w, s);  if level(r) == -1: level(r) = depth + 1 (atomicCAS on its bits), r appended;
//                      if level(r) == depth + 1: value(r) += value(q)            (atomicAdd, double)
// Thread mapping: a group of G lanes per frontier entry (grid-stride over entries, group-uniform);
// lane g walks the arcs colptr[v] + g, + G, + 2G, ... of v (a plain loop: docs/kernels.md, "Sparse
// frontiers", says why it is not unrolled).  A group owns its entry's value;
// targets are shared and updated only by atomics.  top[depth] (zero on entry): the largest value of
// the level, as the bits of a non-negative double (atomicMax on the bits orders them as numbers).
//   colptr (n+1,), rowidx (nnz,) I;  queue (cap,) Q;  block (n*k*2,) double.
// ================================================================================================
template <class Q, class I>
__global__ void spla_frontier_push(const I* __restrict__ colptr, const I* __restrict__ rowidx, Q* queue,
                                   unsigned long long cap, long long k, int depth, double* block,
                                   long long* start, unsigned long long* count, unsigned long long* top, int G)
{
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const double next = (double)(depth + 1);
    const unsigned long long unreached = (unsigned long long)__double_as_longlong(-1.0);
    const unsigned long long claim = (unsigned long long)__double_as_longlong(next);
    const long long lo = start[depth];
    const long long nf = (long long)count[depth];
    const unsigned long long base = (unsigned long long)(lo + nf);
    if (blockIdx.x == 0 && threadIdx.x == 0) start[depth + 1] = (long long)base;
    const Q* __restrict__ frontier = queue + lo;
    Q* __restrict__ out = queue + base;
    double best = 0.0;
    for (long long i = SPLA_LIST_FIRST(G); i < nf; i += SPLA_LIST_GROUPS(G)) {
        const Q q = frontier[i];
        const long long v = (long long)(q / (Q)k);
        const long long s = (long long)q - v * k;
        const double x = block[2 * (long long)q];
        best = fmax(best, x);
        const long long end = (long long)colptr[v + 1];
        for (long long p = (long long)colptr[v] + g; p < end; p += G) {  // 64-bit: int32 positions near 2^31 would wrap
            const long long r = (long long)__ldg(rowidx + p) * k + s;
            double l = *((volatile double*)(block + 2 * r + 1));
            if (l == -1.0) {
                const unsigned long long was = atomicCAS((unsigned long long*)(block + 2 * r + 1), unreached, claim);
                l = __longlong_as_double((long long)was);
                if (was == unreached) {
                    l = next;
                    spla_list_append<Q>((Q)r, out, count + depth + 1, cap - base);
                }
            }
            if (l == next) atomicAdd(block + 2 * r, x);
        }
    }
    for (int off = 16; off > 0; off >>= 1) best = fmax(best, __shfl_xor_sync(0xffffffffu, best, off));
    if ((threadIdx.x & 31u) == 0 && best > 0.0)
        atomicMax(top + depth, (unsigned long long)__double_as_longlong(best));
}

// ================================================================================================
// spla_frontier_pull -- t<frontier_depth> = 2^-scale .* (A +.second value<level == depth+1>):
//     for every entry q = (v, s) of level `depth`:
//         t = 2^-scale[s] * sum_{arcs v -> w, level((w, s)) == depth + 1} value((w, s))
//         out[q] = DIVIDE ? t / value(q) : t;      if FEED: value(q) += t
// (scale may be null: no scaling.)  Brandes' backward step with value = 1/σ + δ/σ: t = δ(q)/σ(q),
// out = δ, FEED makes value(q) = 1/σ + δ/σ for the level above.  No atomics: each entry is written
// only by its own group.  Thread mapping: a group of G lanes per frontier entry (grid-stride,
// group-uniform); lane g sums the arcs colptr[v] + g, + G, + 2G, ...; the group reduces with
// __shfl_xor_sync over its G lanes and lane 0 writes.  Reads level depth+1's values, writes level
// depth's.  The level's range comes from start/count as in spla_frontier_push.
//   colptr (n+1,), rowidx (nnz,) I;  queue Q;  block (n*k*2,) double;  out (n*k,) double;
//   scale (k,) int or null.
// ================================================================================================
template <class Q, class I, bool DIVIDE, bool FEED>
__global__ void spla_frontier_pull(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                                   const Q* __restrict__ queue, long long k, int depth, double* block,
                                   double* __restrict__ out, const int* __restrict__ scale,
                                   const long long* __restrict__ start, const unsigned long long* __restrict__ count,
                                   int G)
{
    const int g = (int)(threadIdx.x & (unsigned int)(G - 1));
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    const double child = (double)(depth + 1);
    const Q* __restrict__ frontier = queue + start[depth];
    const long long nf = (long long)count[depth];
    for (long long i = SPLA_LIST_FIRST(G); i < nf; i += SPLA_LIST_GROUPS(G)) {
        const Q q = frontier[i];
        const long long v = (long long)(q / (Q)k);
        const long long s = (long long)q - v * k;
        double t = 0.0;
        const long long end = (long long)colptr[v + 1];
        for (long long p = (long long)colptr[v] + g; p < end; p += G) {  // 64-bit: int32 positions near 2^31 would wrap
            const double2 e = *((const double2*)(block + 2 * ((long long)__ldg(rowidx + p) * k + s)));
            if (e.y == child) t += e.x;
        }
        for (int off = G >> 1; off > 0; off >>= 1) t += __shfl_xor_sync(members, t, off, G);
        if (g == 0) {
            if (scale != nullptr) t = ldexp(t, -__ldg(scale + s));
            const double mine = block[2 * (long long)q];
            out[q] = DIVIDE ? t / mine : t;
            if (FEED) block[2 * (long long)q] = mine + t;
        }
    }
}

#endif  // SPLA_FRONTIER_CUH
