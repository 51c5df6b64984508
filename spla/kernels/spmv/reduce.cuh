// spla/kernels/spmv/reduce.cuh -- the mask test, the output merge and the column reductions that the
// product kernels share.
//
// Kernels: none.  spla_computed (the mask test), spla_accum and spla_store (the output semantics
//   below), spla_entry (A's entry; 1 for a pattern A), spla_column_reduce (a thread's entries
//   first, first + step, ... of one column, any k), spla_group_reduce (lane g of G lanes over one
//   column, k == 1, reading int32 rowidx with 16-byte loads) and spla_warp_chunk_add (a warp's
//   chunk of a long column, ADDed into its target atomically by lane 0).
// Templates: Add, Mul (functors.cuh); T, the domain; I, the index type (int or long long);
//   PATTERN, A has no values (vals never read); SHORT, spla_group_reduce's int4 vectors a lane of a
//   short chunk loads at once (0: never).
// Output semantics (spla_store): computed = no mask, or mask[j * mask_js + c * mask_cs] != complement.
//     flags & SPLA_FRESH  (no out):  y = computed ? t : identity
//     otherwise (y is the caller's out):
//         computed:      y = accum ? accum(y, t) : t
//         not computed:  y = (flags & SPLA_REPLACE) ? identity : y   (unchanged, not even read)
//   Masks are bool arrays addressed by element strides, which covers a (ncols,) mask, a (ncols, k)
//   mask and a (ncols,) mask shared by the k vectors of a block (mask_cs = 0).
// Host guarantees: rowidx is 4-byte aligned (the 16-byte loads start at its first 16-byte boundary
//   inside the column); every lane of a warp calls spla_warp_chunk_add with the same arguments.

#ifndef SPLA_SPMV_REDUCE_CUH
#define SPLA_SPMV_REDUCE_CUH

#include "common.cuh"
#include "atomics.cuh"

// int4 vectors of rowidx a lane of the warp-per-chunk kernels (spla_warp_chunk_add) loads at once for a
// chunk of at most 128 SPLA_GROUP_SHORT entries (spla_group_reduce's SHORT; 0: never).
#ifndef SPLA_GROUP_SHORT
#define SPLA_GROUP_SHORT 4
#endif

// ------------------------------------------------------------------------------------------------
// Mask test and the output merge shared by every kernel.
// ------------------------------------------------------------------------------------------------
SPLA_DEV bool spla_computed(const bool* __restrict__ mask, int mask_mode, long long midx)
{
    if (mask_mode == SPLA_MASK_NONE) return true;
    bool m = spla_ld(mask + midx);
    return mask_mode == SPLA_MASK_MASK ? m : !m;
}

template <class T>
SPLA_DEV T spla_accum(int accum, T old, T t)
{
    switch (accum) {
    case SPLA_ACCUM_PLUS:  return (T)(old + t);
    case SPLA_ACCUM_MIN:   return spla_min(old, t);
    case SPLA_ACCUM_MAX:   return spla_max(old, t);
    case SPLA_ACCUM_LOR:   return (T)(old || t);
    case SPLA_ACCUM_BOR:   return spla_bitor(old, t);
    case SPLA_ACCUM_FIRST: return old;
    default:               return t;  // SPLA_ACCUM_SECOND
    }
}

// Write the result t of output element y[idx] under the output semantics at the top of this file.
template <class T>
SPLA_DEV void spla_store(T* __restrict__ y, long long idx, bool computed, T t, T identity, int accum,
                         int flags)
{
    if (computed) {
        if (accum == SPLA_ACCUM_NONE || (flags & SPLA_FRESH)) y[idx] = t;
        else y[idx] = spla_accum(accum, y[idx], t);
    } else if (flags & (SPLA_FRESH | SPLA_REPLACE)) {
        y[idx] = identity;
    }
}

template <class T, bool PATTERN>
SPLA_DEV T spla_entry(const T* __restrict__ vals, long long p)
{
    return PATTERN ? (T)1 : spla_ld(vals + p);
}

// The four indices idx[p + q * step], q = 0..3, as 64-bit positions: loaded together, before any use,
// so that the unrolled loops below keep four independent loads in flight.
template <class I>
SPLA_DEV void spla_load4(const I* __restrict__ idx, long long p, long long step, long long (&out)[4])
{
#pragma unroll
    for (int q = 0; q < 4; ++q) out[q] = (long long)spla_ld(idx + p + q * step);
}

// ADD-reduce MUL(u[i, c], A[i, j]) over the entries p = first, first + step, ... < end of one column
// (u row-major with k components; entries whose x is ADD's identity are skipped).  Unrolled by 4 with
// all four rowidx loads, then all four u loads, issued before any use, so a thread keeps four
// independent gathers in flight instead of one dependent chain.  The reduction order is the entry
// order, so results are deterministic.
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV T spla_column_reduce(const I* __restrict__ rowidx, const T* __restrict__ vals,
                              const T* __restrict__ u, long long k, long long c, long long first,
                              long long end, long long step, T acc, T ident)
{
    // 64-bit positions: with int32 indices nnz may be just below 2^31, and p + 4 * step must not wrap.
    long long p = first;
    for (; end - p > 3 * step; p += 4 * step) {
        long long i[4];
        spla_load4(rowidx, p, step, i);
        const T x0 = spla_ld(u + i[0] * k + c);
        const T x1 = spla_ld(u + i[1] * k + c);
        const T x2 = spla_ld(u + i[2] * k + c);
        const T x3 = spla_ld(u + i[3] * k + c);
        if (x0 != ident) acc = Add::op(acc, Mul::op(x0, spla_entry<T, PATTERN>(vals, p)));
        if (x1 != ident) acc = Add::op(acc, Mul::op(x1, spla_entry<T, PATTERN>(vals, p + step)));
        if (x2 != ident) acc = Add::op(acc, Mul::op(x2, spla_entry<T, PATTERN>(vals, p + 2 * step)));
        if (x3 != ident) acc = Add::op(acc, Mul::op(x3, spla_entry<T, PATTERN>(vals, p + 3 * step)));
    }
    for (; p < end; p += step) {
        const T x = spla_ld(u + (long long)spla_ld(rowidx + p) * k + c);
        if (x != ident) acc = Add::op(acc, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
    }
    return acc;
}

// The part of one column (k == 1) that lane g of a group of G lanes reduces: entries start + g,
// + G, ... < end.  spla_group_reduce with vec4 != 0 and 32-bit indices reads rowidx with 16-byte
// loads instead: the 16-byte-aligned body [a, b) of the column (a = the first entry whose address
// is a multiple of 16, b - a a multiple of 4) is split into int4 vectors, lane g takes vectors
// g, g + G, ... (two per iteration: 8 independent u gathers in flight), and the at most 3 entries
// before a and 3 after b are read one by one (p = start + g, + G, ... < a and b + g, ... < end).
// With SHORT > 0, a short part (G >= 4, at most SHORT vectors a lane: a chunk of up to 128 SHORT
// entries for a warp) issues all of its loads at once instead: the lane's head index, tail index and vectors, then
// every gather, so a chunk costs two memory latencies, not two per step of the loop (the sums are
// added in the loop's order: the same result).  Every entry is visited exactly once; identity-x
// entries are skipped as in spla_column_reduce.  64-bit indices (and vec4 == 0) use
// spla_column_reduce unchanged.
template <class Add, class Mul, class T, bool PATTERN>
SPLA_DEV T spla_x_add(T acc, T x, const T* __restrict__ vals, long long p, T ident)
{
    return x != ident ? Add::op(acc, Mul::op(x, spla_entry<T, PATTERN>(vals, p))) : acc;
}

template <class Add, class Mul, class T, bool PATTERN, int SHORT = 0>
SPLA_DEV T spla_group_reduce(const long long* __restrict__ rowidx, const T* __restrict__ vals,
                             const T* __restrict__ u, long long start, long long end, long long g, long long G,
                             int vec4, T ident)
{
    return spla_column_reduce<Add, Mul, T, long long, PATTERN>(rowidx, vals, u, 1LL, 0LL, start + g, end, G,
                                                               ident, ident);
}

template <class Add, class Mul, class T, bool PATTERN, int SHORT = 0>
SPLA_DEV T spla_group_reduce(const int* __restrict__ rowidx, const T* __restrict__ vals,
                             const T* __restrict__ u, long long start, long long end, long long g, long long G,
                             int vec4, T ident)
{
    if (!vec4)
        return spla_column_reduce<Add, Mul, T, int, PATTERN>(rowidx, vals, u, 1LL, 0LL, start + g, end, G,
                                                             ident, ident);
    // entry offset of rowidx from a 16-byte boundary (rowidx itself is 4-byte aligned)
    const long long off = (long long)((reinterpret_cast<unsigned long long>(rowidx) >> 2) & 3ULL);
    long long a = ((start + off + 3) & ~3LL) - off;  // first 16-byte-aligned entry >= start
    if (a > end) a = end;
    const long long nvec = (end - a) >> 2;            // int4 vectors in the aligned body
    const long long b = a + 4 * nvec;
    T acc = ident;
    const int4* __restrict__ r4 = reinterpret_cast<const int4*>(rowidx + a);
    constexpr int NS = SHORT > 0 ? SHORT : 1;
    if (SHORT > 0 && G >= 4 && nvec <= SHORT * G) {  // at most one head and one tail entry a lane
        const long long hp = start + g, tp = b + g;
        const bool head = hp < a, tail = tp < end;
        const int hi = head ? __ldg(rowidx + hp) : 0, ti = tail ? __ldg(rowidx + tp) : 0;
        int4 r[NS];
#pragma unroll
        for (int v = 0; v < NS; ++v)
            r[v] = g + v * G < nvec ? __ldg(r4 + g + v * G) : make_int4(0, 0, 0, 0);
        const T xh = head ? spla_ld(u + (long long)hi) : ident, xt = tail ? spla_ld(u + (long long)ti) : ident;
        T x[NS][4];
#pragma unroll
        for (int v = 0; v < NS; ++v) {
            const bool in = g + v * G < nvec;
            x[v][0] = in ? spla_ld(u + (long long)r[v].x) : ident;
            x[v][1] = in ? spla_ld(u + (long long)r[v].y) : ident;
            x[v][2] = in ? spla_ld(u + (long long)r[v].z) : ident;
            x[v][3] = in ? spla_ld(u + (long long)r[v].w) : ident;
        }
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, xh, vals, hp, ident);
#pragma unroll
        for (int v = 0; v < NS; ++v) {
            const long long p = a + 4 * (g + v * G);
#pragma unroll
            for (int e = 0; e < 4; ++e) acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x[v][e], vals, p + e, ident);
        }
        return spla_x_add<Add, Mul, T, PATTERN>(acc, xt, vals, tp, ident);
    }
    for (long long p = start + g; p < a; p += G)      // head (< 4 entries)
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, spla_ld(u + (long long)spla_ld(rowidx + p)), vals, p, ident);
    long long q = g;
    for (; q + G < nvec; q += 2 * G) {
        const int4 r = __ldg(r4 + q);
        const int4 s = __ldg(r4 + q + G);
        const T x0 = spla_ld(u + (long long)r.x), x1 = spla_ld(u + (long long)r.y);
        const T x2 = spla_ld(u + (long long)r.z), x3 = spla_ld(u + (long long)r.w);
        const T x4 = spla_ld(u + (long long)s.x), x5 = spla_ld(u + (long long)s.y);
        const T x6 = spla_ld(u + (long long)s.z), x7 = spla_ld(u + (long long)s.w);
        const long long p = a + 4 * q, p2 = a + 4 * (q + G);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x0, vals, p, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x1, vals, p + 1, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x2, vals, p + 2, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x3, vals, p + 3, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x4, vals, p2, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x5, vals, p2 + 1, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x6, vals, p2 + 2, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x7, vals, p2 + 3, ident);
    }
    if (q < nvec) {                                   // at most one vector left for this lane
        const int4 r = __ldg(r4 + q);
        const T x0 = spla_ld(u + (long long)r.x), x1 = spla_ld(u + (long long)r.y);
        const T x2 = spla_ld(u + (long long)r.z), x3 = spla_ld(u + (long long)r.w);
        const long long p = a + 4 * q;
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x0, vals, p, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x1, vals, p + 1, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x2, vals, p + 2, ident);
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, x3, vals, p + 3, ident);
    }
    for (long long p = b + g; p < end; p += G)        // tail (< 4 entries)
        acc = spla_x_add<Add, Mul, T, PATTERN>(acc, spla_ld(u + (long long)spla_ld(rowidx + p)), vals, p, ident);
    return acc;
}

// One warp's chunk of a long column (k == 1): lane l reduces entries begin + l, + 32, ... < end
// (spla_group_reduce: coalesced rowidx, identity inputs skipped, a short chunk's loads all at once), the warp reduces with a full-mask
// xor butterfly, and lane 0 ADDs the total into *dst with ADD's atomic (nothing when it is the
// identity).  Every lane of the warp must call it, with the same arguments.
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV void spla_warp_chunk_add(const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u,
                                  long long begin, long long end, T* dst, int vec4)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    T acc = spla_group_reduce<Add, Mul, T, PATTERN, SPLA_GROUP_SHORT>(rowidx, vals, u, begin, end, (long long)lane,
                                                                      32LL, vec4, ident);
    for (int off = 16; off > 0; off >>= 1)
        acc = Add::op(acc, spla_shfl_xor(0xffffffffu, acc, off, 32));
    if (lane == 0 && acc != ident) spla_atomic_update<Add, T>(dst, acc);
}

#endif  // SPLA_SPMV_REDUCE_CUH
