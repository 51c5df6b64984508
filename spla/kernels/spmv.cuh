// spla/kernels/spmv.cuh -- semiring SpMV kernels of the spla GPU backend.
//
//   y[j] = ADD_{i : u[i] != ADD.identity} MUL(u[i], A[i, j])          (vxm over the columns j of A)
//
// A is stored CSC (colptr (ncols+1,), rowidx (nnz,), vals (nnz,) or none for a pattern matrix whose
// entries are all 1) and, for scCOOC, also COOC (colidx (nnz,): the column of every stored entry).
// u is (nrows,) or a row-major block (nrows, k); y is (ncols,) or (ncols, k).  Every product kernel
// here is a template over (spla_sccsc_tiles and spla_vecsc_rows add one bool; spla_merge,
// spla_vecsc_long_finish and the worklists take only Add, T and I)
//
//     Add      the ADD monoid functor   (spla_add_plus, _min, _max, _lor, _bor, _any)
//     Mul      the MUL operator functor (spla_mul_times, _plus, _first, _second, _pair, _land,
//                                        _min, _max, _band); MUL(x, a): x from u, a from A
//     T        the domain (bool, int, long long, unsigned int, unsigned long long, float, double)
//     I        the index type of colptr/rowidx/colidx (int or long long)
//     PATTERN  true when A has no values (a == 1); vals is then never read
//
// The Python side (spla/backends/gpu.py) instantiates them through CuPy/NVRTC name expressions such as
// "spla_sccsc<spla_add_plus, spla_mul_times, float, int, true>"; tests/test_kernels_compile.py
// instantiates every combination the backend can request with nvcc.  MUL(a, x) (mxv through A^T) is
// handled in Python by exchanging first and second; every other operator is commutative.
//
// This file must stay compilable by NVRTC: no #include, no standard library, only builtin types.
//
// Output semantics (spla_store): `computed` = no mask, or mask[j(, c)] != complement.
//     flags & SPLA_FRESH  (no `out`):  y = computed ? t : identity
//     otherwise (y is the caller's out):
//         computed:      y = accum ? accum(y, t) : t
//         not computed:  y = (flags & SPLA_REPLACE) ? identity : y   (unchanged, not even read)
// Masks are bool arrays addressed as mask[j * mask_js + c * mask_cs] (element strides), which covers a
// (ncols,) mask, a (ncols, k) mask and a (ncols,) mask shared by the k vectors of a block (mask_cs = 0).
//
// See docs/kernels.md for the thread mappings and the bytes moved per arc.

#ifndef SPLA_SPMV_CUH
#define SPLA_SPMV_CUH

#define SPLA_FRESH 1
#define SPLA_REPLACE 2

#define SPLA_ACCUM_NONE 0
#define SPLA_ACCUM_PLUS 1
#define SPLA_ACCUM_MIN 2
#define SPLA_ACCUM_MAX 3
#define SPLA_ACCUM_LOR 4
#define SPLA_ACCUM_BOR 5
#define SPLA_ACCUM_FIRST 6
#define SPLA_ACCUM_SECOND 7

#define SPLA_MASK_NONE 0
#define SPLA_MASK_MASK 1
#define SPLA_MASK_COMPLEMENT 2

#define SPLA_DEV __device__ __forceinline__

// Threads per block of every launch (the backend passes its BLOCK; spla_sccsc_tiles may launch fewer,
// down to one warp, and sizes its shared memory for SPLA_BLOCK) and the resident blocks per SM asked
// of ptxas for the row-piece kernels (__launch_bounds__: at most 40 registers, 48 warps in flight
// instead of 40; k = 32 float32, H100: ws2M 0.49 -> 0.41 ms, kron20 0.80 -> 0.74, BA n=2M 0.81 ->
// 0.77; the listed chunks ran slower so bounded, spilling).
#ifndef SPLA_BLOCK
#define SPLA_BLOCK 256
#endif
#ifndef SPLA_ROWS_MIN_BLOCKS
#define SPLA_ROWS_MIN_BLOCKS 6
#endif
// bfloat16 parts per float in the windows kernel's MMAs: 3 (exact, the product's); 1 only in
// tools/probe_windows.py, to time the kernel without the two smaller parts' MMAs (inexact results).
#ifndef SPLA_WINDOWS_PARTS
#define SPLA_WINDOWS_PARTS 3
#endif
// 1: the windows kernel sums each 16 rows in a fresh MMA accumulator and adds that into its running
// sums on the CUDA cores (rounding to nearest); 0: the running sums are the MMAs' accumulators.
#ifndef SPLA_WINDOWS_FRESH
#define SPLA_WINDOWS_FRESH 1
#endif
// int4 vectors of rowidx a lane of the warp-per-chunk kernels (spla_warp_chunk_add) loads at once for a
// chunk of at most 128 SPLA_GROUP_SHORT entries (spla_group_reduce's SHORT; 0: never).
#ifndef SPLA_GROUP_SHORT
#define SPLA_GROUP_SHORT 4
#endif
// Entries in flight per lane in the row-piece walk (spla_piece_reduce): 4 or 8.
#ifndef SPLA_ROWS_UNROLL
#define SPLA_ROWS_UNROLL 4
#endif
// Resident blocks per SM asked of ptxas for the masked tiles (0: no __launch_bounds__): 5 gives 48
// registers instead of 60 (24 bytes spilled), 40 warps per SM instead of 32; 90%-masked products,
// H100: grid2000 0.0461 -> 0.0416 ms, ws2M 0.0318 -> 0.0296, BA n=2M 0.0392 -> 0.0383, the Kronecker
// and Mycielski graphs unchanged; 6 spills 188 bytes and is slower everywhere.
#ifndef SPLA_TILE_MIN_BLOCKS
#define SPLA_TILE_MIN_BLOCKS 5
#endif
#if SPLA_TILE_MIN_BLOCKS > 0
#define SPLA_TILE_BOUNDS __launch_bounds__(SPLA_BLOCK, SPLA_TILE_MIN_BLOCKS)
#else
#define SPLA_TILE_BOUNDS
#endif

// ------------------------------------------------------------------------------------------------
// Loads through the read-only data cache.  bool has no __ldg overload: read the byte.
// ------------------------------------------------------------------------------------------------
template <class T>
SPLA_DEV T spla_ld(const T* p) { return __ldg(p); }
template <>
SPLA_DEV bool spla_ld<bool>(const bool* p) { return __ldg(reinterpret_cast<const unsigned char*>(p)) != 0; }

// Warp shuffle (xor butterfly) within a group of `width` lanes; bool travels as int.
template <class T>
SPLA_DEV T spla_shfl_xor(unsigned int members, T v, int lane_mask, int width)
{
    return __shfl_xor_sync(members, v, lane_mask, width);
}
template <>
SPLA_DEV bool spla_shfl_xor<bool>(unsigned int members, bool v, int lane_mask, int width)
{
    return __shfl_xor_sync(members, (int)v, lane_mask, width) != 0;
}

// ------------------------------------------------------------------------------------------------
// Limits of each domain: top = identity of min, bottom = identity of max.
// ------------------------------------------------------------------------------------------------
template <class T> struct spla_limits;
template <> struct spla_limits<bool> {
    static SPLA_DEV bool top() { return true; }
    static SPLA_DEV bool bottom() { return false; }
};
template <> struct spla_limits<int> {
    static SPLA_DEV int top() { return 0x7fffffff; }
    static SPLA_DEV int bottom() { return -0x7fffffff - 1; }
};
template <> struct spla_limits<long long> {
    static SPLA_DEV long long top() { return 0x7fffffffffffffffLL; }
    static SPLA_DEV long long bottom() { return -0x7fffffffffffffffLL - 1LL; }
};
template <> struct spla_limits<unsigned int> {
    static SPLA_DEV unsigned int top() { return 0xffffffffu; }
    static SPLA_DEV unsigned int bottom() { return 0u; }
};
template <> struct spla_limits<unsigned long long> {
    static SPLA_DEV unsigned long long top() { return 0xffffffffffffffffULL; }
    static SPLA_DEV unsigned long long bottom() { return 0ULL; }
};
template <> struct spla_limits<float> {
    static SPLA_DEV float top() { return __int_as_float(0x7f800000); }            // +inf
    static SPLA_DEV float bottom() { return __int_as_float((int)0xff800000u); }   // -inf
};
template <> struct spla_limits<double> {
    static SPLA_DEV double top() { return __longlong_as_double(0x7ff0000000000000LL); }
    static SPLA_DEV double bottom() { return __longlong_as_double((long long)0xfff0000000000000ULL); }
};

// Bitwise or; only integer domains reach it with bor (ops.py rejects bor on floats), the float
// overloads exist so that the run-time accum switch compiles for every T.
template <class T>
SPLA_DEV T spla_bitor(T a, T b) { return (T)(a | b); }
template <>
SPLA_DEV bool spla_bitor<bool>(bool a, bool b) { return a || b; }
template <>
SPLA_DEV float spla_bitor<float>(float a, float b) { return b; }
template <>
SPLA_DEV double spla_bitor<double>(double a, double b) { return b; }

// min and max propagate NaN whichever operand holds it, as NumPy's minimum / maximum (and the CPU
// backend) do: a NaN in a reduction makes its result NaN in any order, on every kernel.  A tie
// (+0.0 and -0.0) gives b, as NumPy does, so that a reduction in entry order (scCSC, the CPU's
// reduceat) returns the same zero; where the order is not fixed (shuffles, atomics) its sign is
// not either.  For integers `x != x` is false and compiles away.
template <class T>
SPLA_DEV T spla_min(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T>
SPLA_DEV T spla_max(T a, T b) { return (b < a || a != a) ? a : b; }

// ------------------------------------------------------------------------------------------------
// Atomics used by scCOOC.  Native where the hardware has them; the rest are CAS loops:
//   * int64 add     : unsigned long long atomicAdd (two's complement makes it the same addition)
//   * float min/max : CAS loop on the 32/64-bit pattern
//   * bool or/and   : atomicOr/atomicAnd on the aligned 32-bit word that contains the byte
//                     (the buffer is a CuPy allocation, so the whole word is inside it)
// ------------------------------------------------------------------------------------------------
SPLA_DEV void spla_atomic_add(int* p, int v) { atomicAdd(p, v); }
SPLA_DEV void spla_atomic_add(unsigned int* p, unsigned int v) { atomicAdd(p, v); }
SPLA_DEV void spla_atomic_add(long long* p, long long v)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);
}
SPLA_DEV void spla_atomic_add(unsigned long long* p, unsigned long long v) { atomicAdd(p, v); }
SPLA_DEV void spla_atomic_add(float* p, float v) { atomicAdd(p, v); }
SPLA_DEV void spla_atomic_add(double* p, double v) { atomicAdd(p, v); }

SPLA_DEV unsigned int* spla_word_of(bool* p, unsigned int* shift)
{
    unsigned long long addr = reinterpret_cast<unsigned long long>(p);
    *shift = (unsigned int)(addr & 3ULL) * 8u;
    return reinterpret_cast<unsigned int*>(addr & ~3ULL);
}
SPLA_DEV void spla_atomic_or_bool(bool* p, bool v)
{
    if (!v) return;
    unsigned int shift;
    unsigned int* w = spla_word_of(p, &shift);
    atomicOr(w, 1u << shift);
}
SPLA_DEV void spla_atomic_and_bool(bool* p, bool v)
{
    if (v) return;
    unsigned int shift;
    unsigned int* w = spla_word_of(p, &shift);
    atomicAnd(w, ~(0xffu << shift));
}

SPLA_DEV void spla_atomic_min(int* p, int v) { atomicMin(p, v); }
SPLA_DEV void spla_atomic_min(unsigned int* p, unsigned int v) { atomicMin(p, v); }
SPLA_DEV void spla_atomic_min(long long* p, long long v) { atomicMin(p, v); }
SPLA_DEV void spla_atomic_min(unsigned long long* p, unsigned long long v) { atomicMin(p, v); }
SPLA_DEV void spla_atomic_min(bool* p, bool v) { spla_atomic_and_bool(p, v); }
SPLA_DEV void spla_atomic_max(int* p, int v) { atomicMax(p, v); }
SPLA_DEV void spla_atomic_max(unsigned int* p, unsigned int v) { atomicMax(p, v); }
SPLA_DEV void spla_atomic_max(long long* p, long long v) { atomicMax(p, v); }
SPLA_DEV void spla_atomic_max(unsigned long long* p, unsigned long long v) { atomicMax(p, v); }
SPLA_DEV void spla_atomic_max(bool* p, bool v) { spla_atomic_or_bool(p, v); }

template <bool MIN>
SPLA_DEV void spla_atomic_minmax_cas(float* p, float v)
{
    unsigned int* w = reinterpret_cast<unsigned int*>(p);
    unsigned int old = *reinterpret_cast<volatile unsigned int*>(w), assumed;
    do {
        assumed = old;
        float cur = __uint_as_float(assumed);
        float nv = MIN ? spla_min(cur, v) : spla_max(cur, v);
        unsigned int nbits = __float_as_uint(nv);
        if (nbits == assumed) return;
        old = atomicCAS(w, assumed, nbits);
    } while (old != assumed);
}
template <bool MIN>
SPLA_DEV void spla_atomic_minmax_cas(double* p, double v)
{
    unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(w), assumed;
    do {
        assumed = old;
        double cur = __longlong_as_double((long long)assumed);
        double nv = MIN ? spla_min(cur, v) : spla_max(cur, v);
        unsigned long long nbits = (unsigned long long)__double_as_longlong(nv);
        if (nbits == assumed) return;
        old = atomicCAS(w, assumed, nbits);
    } while (old != assumed);
}
SPLA_DEV void spla_atomic_min(float* p, float v) { spla_atomic_minmax_cas<true>(p, v); }
SPLA_DEV void spla_atomic_min(double* p, double v) { spla_atomic_minmax_cas<true>(p, v); }
SPLA_DEV void spla_atomic_max(float* p, float v) { spla_atomic_minmax_cas<false>(p, v); }
SPLA_DEV void spla_atomic_max(double* p, double v) { spla_atomic_minmax_cas<false>(p, v); }

SPLA_DEV void spla_atomic_or(int* p, int v) { atomicOr(p, v); }
SPLA_DEV void spla_atomic_or(unsigned int* p, unsigned int v) { atomicOr(p, v); }
SPLA_DEV void spla_atomic_or(long long* p, long long v)
{
    atomicOr(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);
}
SPLA_DEV void spla_atomic_or(unsigned long long* p, unsigned long long v) { atomicOr(p, v); }
SPLA_DEV void spla_atomic_or(bool* p, bool v) { spla_atomic_or_bool(p, v); }

// ------------------------------------------------------------------------------------------------
// ADD monoids.  op: the monoid operation; identity<T>(): its identity; atomic: y[j] = op(y[j], v)
// atomically; IDEMPOTENT: op(a, a) == a, so scCOOC may skip the atomic when a plain read of y[j]
// already absorbs v (values only move one way, so a stale read can only cause an unneeded atomic).
// `any` is max with identity 0 (bool: or), as documented in spla/semirings.py.
// ------------------------------------------------------------------------------------------------
struct spla_add_plus {
    static const bool IDEMPOTENT = false;
    template <class T> static SPLA_DEV T identity() { return (T)0; }
    template <class T> static SPLA_DEV T op(T a, T b) { return (T)(a + b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_add(p, v); }
};
struct spla_add_min {
    static const bool IDEMPOTENT = true;
    template <class T> static SPLA_DEV T identity() { return spla_limits<T>::top(); }
    template <class T> static SPLA_DEV T op(T a, T b) { return spla_min(a, b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_min(p, v); }
};
struct spla_add_max {
    static const bool IDEMPOTENT = true;
    template <class T> static SPLA_DEV T identity() { return spla_limits<T>::bottom(); }
    template <class T> static SPLA_DEV T op(T a, T b) { return spla_max(a, b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_max(p, v); }
};
struct spla_add_lor {
    static const bool IDEMPOTENT = true;
    template <class T> static SPLA_DEV T identity() { return (T)0; }
    template <class T> static SPLA_DEV T op(T a, T b) { return (T)(a || b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_or(p, v); }
};
struct spla_add_bor {
    static const bool IDEMPOTENT = true;
    template <class T> static SPLA_DEV T identity() { return (T)0; }
    template <class T> static SPLA_DEV T op(T a, T b) { return spla_bitor(a, b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_or(p, v); }
};
struct spla_add_any {
    static const bool IDEMPOTENT = true;
    template <class T> static SPLA_DEV T identity() { return (T)0; }
    template <class T> static SPLA_DEV T op(T a, T b) { return spla_max(a, b); }
    template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_atomic_max(p, v); }
};

// ------------------------------------------------------------------------------------------------
// MUL operators: op(x, a), x the vector entry, a the matrix entry (already in the domain T).
// ------------------------------------------------------------------------------------------------
struct spla_mul_times  { template <class T> static SPLA_DEV T op(T x, T a) { return (T)(x * a); } };
struct spla_mul_plus   { template <class T> static SPLA_DEV T op(T x, T a) { return (T)(x + a); } };
struct spla_mul_first  { template <class T> static SPLA_DEV T op(T x, T a) { return x; } };
struct spla_mul_second { template <class T> static SPLA_DEV T op(T x, T a) { return a; } };
struct spla_mul_pair   { template <class T> static SPLA_DEV T op(T x, T a) { return (T)1; } };
struct spla_mul_land   { template <class T> static SPLA_DEV T op(T x, T a) { return (T)(x && a); } };
struct spla_mul_min    { template <class T> static SPLA_DEV T op(T x, T a) { return spla_min(x, a); } };
struct spla_mul_max    { template <class T> static SPLA_DEV T op(T x, T a) { return spla_max(x, a); } };
struct spla_mul_band   { template <class T> static SPLA_DEV T op(T x, T a) { return (T)(x & a); } };

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

// Write the result t of output element y[idx] under the semantics at the top of this file.
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

// ================================================================================================
// scCSC -- CSC scalar.  One thread per output element (j, c): t = j * k + c, so c varies fastest and
// the k threads of one column read the same rowidx[p] (one broadcast transaction) and the contiguous
// row u[i, 0..k).  With k == 1 it is TurboBC's scCSC: one thread per column.
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows*k,) T,
//   y (ncols*k,) T, mask: see top.  Grid-stride loop over the ncols*k outputs.
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

// ================================================================================================
// veCSC -- CSC vector, one vector (k == 1).  A group of G lanes (G in {2,4,8,16,32}, a power of two
// dividing 32, chosen by the backend's vecsc_group_size from the mean column length and the number of
// columns) per column j: lane g of the group reads entries p = colptr[j] + g, + G, ... (coalesced over
// the group), keeps a partial ADD, and the group reduces with an xor butterfly of __shfl_xor_sync
// whose member mask names exactly the G lanes of the group (groups of one warp may be in different
// iterations; no implicit warp synchrony is assumed).  Lane 0 of the group owns y[j].
//   G lanes per column; blockDim.x a multiple of 32; grid-stride loop over columns (group-uniform, so
//   every lane of a group executes the same shuffles).  A masked-out column costs one mask byte.
//   vec4 != 0: 32-bit rowidx is read with 16-byte loads (spla_group_reduce).
//   long_len > 0: a COMPUTED column with more than long_len entries is skipped (spla_vecsc_long_chunks,
//   and spla_vecsc_long_finish unless the chunks ADD straight into y, produce it); with long_init != 0
//   lane 0 first stores ADD's identity into its y[j], for chunks that ADD straight into y.  A
//   not-computed long column is still stored here.  long_len <= 0: no column is skipped.
//   Worklist mode (list != nullptr): group q takes column list[q] for q < *count (the computed
//   columns, compacted by spla_mask_worklist, which stored the others); long columns as above.
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows,) T,
//   y (ncols,) T, mask (ncols,) bool at mask[j * mask_js]; list (ncols,) I and count (1,)
//   unsigned long long, or both null.
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_vecsc(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                           const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                           const bool* __restrict__ mask, long long mask_js, int mask_mode,
                           long long ncols, int G, int accum, int flags, long long long_len, int long_init,
                           int vec4, const I* __restrict__ list, const unsigned long long* __restrict__ count)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int glane = lane & (unsigned int)(G - 1);
    const unsigned int members = (G == 32) ? 0xffffffffu : (((1u << G) - 1u) << (lane & ~(unsigned int)(G - 1)));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    const long long items = list != nullptr ? (long long)*count : ncols;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; q < items; q += groups) {
        const long long j = list != nullptr ? (long long)spla_ld(list + q) : q;
        const bool comp = list != nullptr || spla_computed(mask, mask_mode, j * mask_js);
        if (!comp) {
            if (glane == 0) spla_store(y, j, false, ident, ident, accum, flags);
            continue;
        }
        const long long start = spla_ld(colptr + j), end = spla_ld(colptr + j + 1);
        // Long-column split: a computed column longer than long_len is left to spla_vecsc_long_chunks /
        // spla_vecsc_long_finish (group-uniform: every lane of the group read the same bounds).
        if (long_len > 0 && end - start > long_len) {
            if (long_init && glane == 0) y[j] = ident;
            continue;
        }
        T acc = spla_group_reduce<Add, Mul, T, PATTERN>(rowidx, vals, u, start, end, (long long)glane,
                                                        (long long)G, vec4, ident);
        for (int off = G >> 1; off > 0; off >>= 1)
            acc = Add::op(acc, spla_shfl_xor(members, acc, off, G));
        if (glane == 0) spla_store(y, j, true, acc, ident, accum, flags);
    }
}

// ================================================================================================
// veCSC, block of k vectors.  A group of G lanes per column j (G = min(32, next power of two >= k);
// a full warp per column when k > 16); lane g owns the components c = g, g + G, ... < k of y[j, :]
// and walks the column's entries for each, reading the broadcast rowidx[p] and u[i, c] coalesced
// over the group.  No shuffle: each component has exactly one owner.
//   colptr, rowidx, vals, mask as scCSC; u (nrows*k,) T, y (ncols*k,) T; no worklist.  Grid-stride
//   loop over columns by group.
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_vecsc_block(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                                 const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                                 const bool* __restrict__ mask, long long mask_js, long long mask_cs,
                                 int mask_mode, long long ncols, long long k, int G, int accum, int flags)
{
    const T ident = Add::template identity<T>();
    const long long glane = (long long)(threadIdx.x & (unsigned int)(G - 1));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    for (long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; j < ncols; j += groups) {
        for (long long c = glane; c < k; c += G) {
            const bool comp = spla_computed(mask, mask_mode, j * mask_js + c * mask_cs);
            T acc = ident;
            if (comp) {
                const long long start = spla_ld(colptr + j), end = spla_ld(colptr + j + 1);
                acc = spla_column_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u, k, c, start, end, 1LL, acc,
                                                                  ident);
            }
            spla_store(y, j * k + c, comp, acc, ident, accum, flags);
        }
    }
}

// ================================================================================================
// scCOOC -- COO-by-column scalar.  One thread per (stored entry p, component c), c fastest: it reads
// j = colidx[p], skips when y[j, c] is masked out (before reading rowidx or u), reads i = rowidx[p]
// and x = u[i, c], skips when x is ADD's identity, else ADD-s v = MUL(x, a) into t[j, c] atomically.
// t must hold ADD's identity beforehand; the merge into `out` is spla_merge (or nothing when there
// is no out).  Idempotent monoids first peek at t[j, c] and skip atomics that cannot change it.
//
// k == 1 adds warp aggregation: the 32 lanes of a warp hold 32 consecutive entries, and colidx is
// sorted (it is the CSC order; REQUIRED), so equal columns sit in contiguous lanes.  A segmented
// reduction (5 steps of __shfl_down_sync over the full warp, each lane adding the partial of the lane
// `off` above it only when that lane has the same column) leaves each column's warp-local total in
// its first lane, which issues the only atomic for that column (none when the total is the
// identity).  The loop is warp-uniform (lanes past the end hold column -1 and the identity), so
// every lane reaches every shuffle.  Masked-out and identity-x entries contribute the identity.
//   rowidx, colidx (nnz,) I; vals (nnz,) T; u (nrows*k,) T; t (ncols*k,) T; mask: see top.
//   Grid-stride over nnz*k (k == 1: by warp, 32 consecutive entries per warp per step).
// ================================================================================================
template <class Add, class T>
SPLA_DEV void spla_atomic_update(T* dst, T v)
{
    if (Add::IDEMPOTENT) {
        const T cur = *reinterpret_cast<volatile T*>(dst);
        if (Add::op(cur, v) == cur) return;
    }
    Add::template atomic<T>(dst, v);
}

template <class T>
SPLA_DEV T spla_shfl_down(T v, unsigned int delta) { return __shfl_down_sync(0xffffffffu, v, delta); }
template <>
SPLA_DEV bool spla_shfl_down<bool>(bool v, unsigned int delta)
{
    return __shfl_down_sync(0xffffffffu, (int)v, delta) != 0;
}

template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_sccooc(const I* __restrict__ rowidx, const I* __restrict__ colidx,
                            const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ t,
                            const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode,
                            long long nnz, long long k)
{
    const T ident = Add::template identity<T>();
    const long long stride = (long long)gridDim.x * blockDim.x;  // a multiple of 32
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k == 1) {
        const unsigned int lane = threadIdx.x & 31u;
        for (long long base = tid - lane; base < nnz; base += stride) {  // warp-uniform
            const long long p = base + lane;
            I j = (I)-1;
            T v = ident;
            if (p < nnz) {
                j = spla_ld(colidx + p);
                if (spla_computed(mask, mask_mode, (long long)j * mask_js)) {
                    const T x = spla_ld(u + (long long)spla_ld(rowidx + p));
                    if (x != ident) v = Mul::op(x, spla_entry<T, PATTERN>(vals, p));
                }
            }
            const I jprev = __shfl_up_sync(0xffffffffu, j, 1u);
            for (unsigned int off = 1; off < 32; off <<= 1) {
                const T vn = spla_shfl_down(v, off);
                const I jn = __shfl_down_sync(0xffffffffu, j, off);
                if (lane + off < 32 && jn == j) v = Add::op(v, vn);
            }
            if (p < nnz && (lane == 0 || jprev != j) && v != ident)
                spla_atomic_update<Add, T>(t + (long long)j, v);
        }
        return;
    }
    for (long long q = tid; q < nnz * k; q += stride) {
        const long long p = q / k, c = q - p * k;
        const long long j = (long long)spla_ld(colidx + p);
        if (!spla_computed(mask, mask_mode, j * mask_js + c * mask_cs)) continue;
        const T x = spla_ld(u + (long long)spla_ld(rowidx + p) * k + c);
        if (x == ident) continue;
        spla_atomic_update<Add, T>(t + j * k + c, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
    }
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

// ================================================================================================
// scCSC tiles (k == 1, masked): a warp per tile of 32 * R consecutive columns (R <= SPLA_TILE_R).  A
// sparse mask costs a column one coalesced mask byte, and the kept columns of a tile are spread over
// the warp's lanes, so a mask that keeps a tenth of the columns still gives most lanes a column -- the
// worklist's compaction done inside the warp, with no global list of columns.  One tile (spla_tile):
//   1. Lane l tests the mask of columns first + 32 r + l (r < R; the R loads issued together),
//      stores the not-computed ones (the identity under FRESH / REPLACE), and ballots the computed
//      ones into the warp's shared list (column offsets in the tile, in column order).
//   2. A group of G lanes walks each listed column (G: the largest power of two <= group_max with
//      G * kept <= 32, so a sparse mask still fills the warp in one round; G = 1 when the tile keeps more
//      than 32 / 2 columns): lane g of the group reduces entries start + g, + G, ... (spla_column_reduce,
//      four gathers in flight), the group combines with an xor butterfly, and its first lane stores
//      y[j] with spla_store.  Listed columns q0 + l / G for rounds q0 = 0, 32 / G, ...
//   long_len > 0: a computed column with more than long_len entries is skipped in step 2 (with
//   long_init != 0 its y[j] is set to the identity first) and produced a warp per chunk, so hub
//   columns do not stall a lane, in one of three ways:
//   * fused (chunk_groups > 0): the first chunk_groups items of the grid are
//     spla_tile_chunk_group's groups of per_warp static chunks (long_init must be 0);
//   * listed (LISTED): the warp lists its long computed columns' chunks of `chunk`
//     entries and spla_listed_chunks ADDs them into y;
//   * static (chunk_groups == 0): spla_vecsc_long_chunks (and spla_vecsc_long_finish)
//     walk the static chunks of every long column afterwards, testing their masks.
//   The listing is compiled only into the LISTED instantiation (it costs the others registers).
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T, u (nrows,) T, y (ncols,) T, mask (ncols,)
//   bool at mask[j * mask_js]; group_max a power of two in [1, 32].  Shared memory: 32 * SPLA_TILE_R
//   bytes per warp of SPLA_BLOCK threads.
// ================================================================================================
#define SPLA_TILE_R 8

// A device-scope acquire-release fence (lighter than __threadfence's sequentially consistent one).
SPLA_DEV void spla_fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// The listing of spla_sccsc_tiles<LISTED> lives in device memory that outlives the launches (the backend
// keeps one per stream): listing_count[0] counts the listed chunks, listing_count[1] the blocks of
// spla_listed_chunks that have read that count; both zero before the tiles and zeroed by the last such
// block, so no memset precedes a product.

// One group of static long-column chunks inside spla_sccsc_tiles (fused chunks, k == 1), in the
// interleaved order of interleaved_chunks (every column's first chunk, then every second, ...: a kept
// hub's chunks land in many groups).  Lane l < per_warp reads chunk q = grp * per_warp + l (output
// column chunk_j[q], entries [chunk_begin[q], chunk_end[q])) and tests j's mask; the warp then
// reduces each computed chunk in turn (spla_group_reduce over 32 lanes, full-mask xor butterfly).  A
// column of one chunk (col_slot[idx] < 0, idx = chunk_col[q]) is stored at once (spla_store: any
// accum, any flags).  A column of n > 1 chunks stores its chunk's partial in part[chunk_part[q]]
// (its column-major position), fences, and counts itself on done[col_slot[idx]]; the chunk that
// arrives last (the threadfence-reduction pattern: nobody waits, so no co-residency is needed) reads
// the column's n partials part[col_chunk0[idx] ..) in chunk order (volatile: L1 is not coherent),
// reduces them, stores y[j] and sets its counter back to zero.  No ADD atomic on T, and a fixed
// reduction order: deterministic results for every monoid.
//   chunk_j, chunk_begin, chunk_end (nchunks,) I; chunk_col, chunk_part (nchunks,) int;
//   col_chunk0 (nlong+1,) int; col_slot (nlong,) int; part (nchunks,) T, no initial value;
//   done (slots,) unsigned int, zero beforehand and afterwards (the backend keeps it between launches).
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV void spla_tile_chunk_group(long long grp, int per_warp, long long nchunks, const I* __restrict__ chunk_j,
                                    const I* __restrict__ chunk_begin, const I* __restrict__ chunk_end,
                                    const int* __restrict__ chunk_col, const int* __restrict__ chunk_part,
                                    const int* __restrict__ col_chunk0, const int* __restrict__ col_slot,
                                    T* __restrict__ part, unsigned int* __restrict__ done,
                                    const I* __restrict__ rowidx, const T* __restrict__ vals,
                                    const T* __restrict__ u, T* __restrict__ y, const bool* __restrict__ mask,
                                    long long mask_js, int mask_mode, int accum, int flags, int vec4)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const long long mine = grp * per_warp + lane;
    bool comp = false;
    long long my_j = 0, my_begin = 0, my_end = 0;
    if ((int)lane < per_warp && mine < nchunks) {
        my_j = (long long)spla_ld(chunk_j + mine);
        my_begin = (long long)spla_ld(chunk_begin + mine);
        my_end = (long long)spla_ld(chunk_end + mine);
        comp = spla_computed(mask, mask_mode, my_j * mask_js);
    }
    unsigned int todo = __ballot_sync(0xffffffffu, comp);
    while (todo) {  // warp-uniform
        const int l = __ffs(todo) - 1;
        todo &= todo - 1u;
        const long long q = grp * per_warp + l;
        const long long j = __shfl_sync(0xffffffffu, my_j, l);
        const long long begin = __shfl_sync(0xffffffffu, my_begin, l);
        const long long end = __shfl_sync(0xffffffffu, my_end, l);
        const int idx = spla_ld(chunk_col + q);  // issued before the reduction, used after it
        T acc = spla_group_reduce<Add, Mul, T, PATTERN>(rowidx, vals, u, begin, end, (long long)lane, 32LL, vec4,
                                                        ident);
        for (int off = 16; off > 0; off >>= 1)
            acc = Add::op(acc, spla_shfl_xor(0xffffffffu, acc, off, 32));
        const int slot = spla_ld(col_slot + idx);  // warp-uniform
        if (slot < 0) {
            if (lane == 0) spla_store(y, j, true, acc, ident, accum, flags);
            continue;
        }
        const int c0 = spla_ld(col_chunk0 + idx), n = spla_ld(col_chunk0 + idx + 1) - c0;
        unsigned int before = 0;
        if (lane == 0) {
            part[spla_ld(chunk_part + q)] = acc;
            spla_fence_acq_rel();  // release: the partial is visible device-wide before the count says so
            before = atomicAdd(done + slot, 1u);
        }
        before = __shfl_sync(0xffffffffu, before, 0);
        if ((int)before != n - 1) continue;  // warp-uniform: not the column's last chunk
        spla_fence_acq_rel();  // acquire: the other chunks' partials, which their counts released
        __syncwarp();  // lane 0 made the acquiring read: order its fence before every lane's reads below
        T total = ident;
        for (int c = (int)lane; c < n; c += 32)
            total = Add::op(total, *(const volatile T*)(part + c0 + c));
        for (int off = 16; off > 0; off >>= 1)
            total = Add::op(total, spla_shfl_xor(0xffffffffu, total, off, 32));
        if (lane == 0) {
            spla_store(y, j, true, total, ident, accum, flags);
            done[slot] = 0u;  // every other chunk of the column has counted: ready for the next launch
        }
    }
}

// One tile of columns [first, first + 32 R) (steps 1 and 2 above), by the whole warp; `list` is the
// warp's shared list.  LISTED: the long computed columns' chunks of `chunk` entries are listed (one
// atomicAdd on *count per round of step 2 that holds a long column reserves the slots of all of its long
// columns -- a warp scan of their chunk counts -- which the warp's lanes fill column by column).
template <class Add, class Mul, class T, class I, bool PATTERN, bool LISTED>
SPLA_DEV void spla_tile(long long first, unsigned char* list, const I* __restrict__ colptr,
                        const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u,
                        T* __restrict__ y, const bool* __restrict__ mask, long long mask_js, int mask_mode,
                        long long ncols, int R, int accum, int flags, long long long_len, int long_init,
                        int group_max, long long* __restrict__ item_col, long long* __restrict__ item_first,
                        long long* __restrict__ item_last, unsigned long long* __restrict__ count, long long chunk)
{
    const T ident = Add::template identity<T>();
    const unsigned int lane = threadIdx.x & 31u;
    const unsigned int below = (1u << lane) - 1u;
    bool comp[SPLA_TILE_R];
#pragma unroll
    for (int r = 0; r < SPLA_TILE_R; ++r) {
        const long long j = first + 32LL * r + lane;
        comp[r] = r < R && j < ncols && spla_computed(mask, mask_mode, j * mask_js);
    }
    int kept = 0;  // warp-uniform
#pragma unroll
    for (int r = 0; r < SPLA_TILE_R; ++r) {
        if (r >= R) break;
        const long long j = first + 32LL * r + lane;
        if (!comp[r] && j < ncols && (flags & (SPLA_FRESH | SPLA_REPLACE))) y[j] = ident;
        const unsigned int b = __ballot_sync(0xffffffffu, comp[r]);
        if (comp[r]) list[kept + __popc(b & below)] = (unsigned char)(32 * r + lane);
        kept += __popc(b);
    }
    __syncwarp();
    // G lanes per listed column: the most (<= group_max) that still walk every kept column in one round
    int G = group_max;
    while (G > 1 && G * kept > 32) G >>= 1;  // warp-uniform
    const int g = (int)lane & (G - 1);
    for (int q0 = 0; q0 < kept; q0 += 32 / G) {  // warp-uniform
        const int q = q0 + (int)lane / G;
        long long j = 0, start = 0, end = 0;
        bool is_long = false;
        T acc = ident;
        if (q < kept) {
            j = first + (long long)list[q];
            start = spla_ld(colptr + j);
            end = spla_ld(colptr + j + 1);
            is_long = long_len > 0 && end - start > long_len;
            if (!is_long)
                acc = spla_column_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u, 1LL, 0LL, start + g, end,
                                                                  (long long)G, ident, ident);
        }
        for (int off = G >> 1; off > 0; off >>= 1)  // the group's lanes combine (aligned groups of G)
            acc = Add::op(acc, spla_shfl_xor(0xffffffffu, acc, off, 32));
        if (q < kept && g == 0) {
            if (!is_long) spla_store(y, j, true, acc, ident, accum, flags);
            else if (long_init) y[j] = ident;  // the chunks ADD the result into it
        }
        if (!LISTED) continue;  // fused or static chunks test their own masks
        is_long = is_long && g == 0;  // a long column is listed once, by its group's first lane
        unsigned int todo = __ballot_sync(0xffffffffu, is_long);
        if (todo == 0) continue;
        const long long nch = is_long ? (end - start + chunk - 1) / chunk : 0;
        long long incl = nch;
        for (unsigned int d = 1; d < 32; d <<= 1) {
            const long long o = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += o;
        }
        unsigned long long at = 0;
        if (lane == 31) at = atomicAdd(count, (unsigned long long)incl);
        at = __shfl_sync(0xffffffffu, at, 31);
        const long long mine = (long long)at + incl - nch;
        while (todo) {
            const int l = __ffs(todo) - 1;
            todo &= todo - 1u;
            const long long jl = __shfl_sync(0xffffffffu, j, l);
            const long long sl = __shfl_sync(0xffffffffu, start, l);
            const long long el = __shfl_sync(0xffffffffu, end, l);
            const long long nl = __shfl_sync(0xffffffffu, nch, l);
            const long long bl = __shfl_sync(0xffffffffu, mine, l);
            for (long long c = lane; c < nl; c += 32) {
                const long long f = sl + c * chunk;
                item_col[bl + c] = jl;
                item_first[bl + c] = f;
                item_last[bl + c] = f + chunk < el ? f + chunk : el;
            }
        }
    }
}

template <class Add, class Mul, class T, class I, bool PATTERN, bool LISTED>
__global__ void SPLA_TILE_BOUNDS spla_sccsc_tiles(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                                 const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                                 const bool* __restrict__ mask, long long mask_js, int mask_mode, long long ncols,
                                 int R, int accum, int flags, long long long_len, int long_init, int group_max,
                                 long long chunk_groups, int per_warp, long long nchunks,
                                 const I* __restrict__ chunk_j, const I* __restrict__ chunk_begin,
                                 const I* __restrict__ chunk_end, const int* __restrict__ chunk_col,
                                 const int* __restrict__ chunk_part, const int* __restrict__ col_chunk0,
                                 const int* __restrict__ col_slot, T* __restrict__ part,
                                 unsigned int* __restrict__ done, int vec4, long long* __restrict__ item_col,
                                 long long* __restrict__ item_first, long long* __restrict__ item_last,
                                 unsigned long long* __restrict__ listing_count, long long chunk)
// Grid-stride over items by global warp id, so every loop is warp-uniform; items [0, chunk_groups) are
// fused chunk groups (spla_tile_chunk_group), the rest tiles (spla_tile).
//   Fused: chunk_groups, per_warp, nchunks and the chunk arrays, part and done as spla_tile_chunk_group
//   (else 0 and null).  LISTED: item_col, item_first, item_last (capacity,) long long, capacity = every
//   long column's chunks of `chunk` entries; listing_count (2,) as above (else null).
{
    __shared__ unsigned char s_list[SPLA_BLOCK / 32][32 * SPLA_TILE_R];  // blockDim.x <= SPLA_BLOCK
    unsigned char* list = s_list[threadIdx.x >> 5];
    const long long tile_cols = 32LL * R;
    const long long tiles = (ncols + tile_cols - 1) / tile_cols;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long item = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; item < chunk_groups + tiles;
         item += nwarps) {
        if (!LISTED && item < chunk_groups) {  // warp-uniform: the fused chunk groups come first
            spla_tile_chunk_group<Add, Mul, T, I, PATTERN>(item, per_warp, nchunks, chunk_j, chunk_begin, chunk_end,
                                                           chunk_col, chunk_part, col_chunk0, col_slot, part, done,
                                                           rowidx, vals, u, y, mask, mask_js, mask_mode, accum, flags,
                                                           vec4);
            continue;
        }
        spla_tile<Add, Mul, T, I, PATTERN, LISTED>((item - chunk_groups) * tile_cols, list, colptr, rowidx, vals, u,
                                                   y, mask, mask_js, mask_mode, ncols, R, accum, flags, long_len,
                                                   long_init, group_max, item_col, item_first, item_last,
                                                   listing_count, chunk);
        __syncwarp();  // the next tile rewrites the list
    }
}

// spla_listed_chunks (k == 1): the chunks that spla_sccsc_tiles<LISTED> listed (item_col, item_first,
// item_last (capacity,) long long; listing_count[0] of them), a warp per chunk (grid-stride by global
// warp id; the grid is the device's resident blocks, the count being known only on the device): lane l
// reduces entries first + l, + 32, ... < last (spla_warp_chunk_add), the warp reduces with a full-mask
// xor butterfly, and lane 0 ADDs the total (nothing when it is the identity) straight into y[j] with
// ADD's atomic.  Only computed long columns are listed, so no mask is read here.  Thread 0 of each block
// reads the count, then counts its block on listing_count[1]; the last block to do so zeroes both.
//   rowidx (nnz,) I, vals (nnz,) T (unused if PATTERN), u (nrows,) T, y (ncols,) T.
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_listed_chunks(const long long* __restrict__ item_col, const long long* __restrict__ item_first,
                                   const long long* __restrict__ item_last, unsigned long long* listing_count,
                                   const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u,
                                   T* __restrict__ y, int vec4)
{
    __shared__ unsigned long long s_count;
    volatile unsigned long long* vc = listing_count;
    if (threadIdx.x == 0) s_count = vc[0];
    __syncthreads();
    const long long items = (long long)s_count;
    if (threadIdx.x == 0 && atomicAdd(listing_count + 1, 1ULL) == gridDim.x - 1) {  // every block has read it
        vc[0] = 0;
        vc[1] = 0;
    }
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; q < items; q += nwarps) {
        const long long j = spla_ld(item_col + q);
        const long long begin = spla_ld(item_first + q), end = spla_ld(item_last + q);
        spla_warp_chunk_add<Add, Mul, T, I, PATTERN>(rowidx, vals, u, begin, end, y + j, vec4);
    }
}

// ================================================================================================
// veCSC, block of k vectors read in 16-byte row pieces ("rows" mode).  The row u[i, 0..k) is
// P = k * sizeof(T) / 16 pieces of V = 16 / sizeof(T) values (the backend checks that k * sizeof(T)
// is a multiple of 16 and that u and y are 16-byte aligned).  A group of L lanes (L = min(32, next
// power of two >= P), a power of two dividing 32) owns column j; lane g owns the pieces pc = g,
// g + L, ... < P, i.e. y[j, pc*V .. pc*V + V).  For each owned piece with at least one computed
// component the lane walks the column: every lane of the group reads the same rowidx[p] (one
// broadcast transaction per group) and gathers u[i, piece] with one 16-byte load, so the group
// reads the whole 16 P-byte row coalesced; the walk is unrolled by 4 (four index loads, then four
// 16-byte gathers in flight per lane).  k = 32 float: L = 8, four columns per warp, 64 bytes in
// flight per lane per step.  Every component of a walked piece is reduced (entries whose u value
// is ADD's identity are skipped per component) and not-computed components are discarded at the
// store, so the mask costs nothing inside the walk.  The piece is stored with one 16-byte store
// (the old piece is read first only when accum or an untouched not-computed component needs it).
// No shuffles: lanes never exchange values.
//   colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T, u (nrows, k) T, y (ncols, k) T; mask as
//   scCSC.  Grid-stride over columns by group: group q owns column q, or with ORDERED column order[q]
//   (order (ncols,) I, a permutation: the columns by length, descending, so that a warp's columns are
//   about equally long and no lane waits for a longer neighbour; its own instantiation, because the
//   extra index costs the other one registers).  Where the backend cuts long columns into chunks,
//   spla_vecsc_rows_items runs instead.
//   long_len > 0: a column with more than long_len entries is skipped (with long_init != 0 its y[j, :]
//   gets the identity), for a caller that reduces those columns itself.  The backend passes 0: it
//   walks every column here or none.  The branch stays because the kernel without it measured 9-13%
//   slower on the graphs that use it (k = 32 float32, H100, device time, same process: ws2M 0.408 ->
//   0.462 ms, grid2000 0.542 -> 0.592; the generated code differs, not the work).
// ================================================================================================
template <class T>
union spla_piece {
    uint4 raw;
    T v[16 / sizeof(T)];
};

// acc[v] = ADD(acc[v], MUL(x[v], a)) for the V components of one gathered piece (identity x skipped).
template <class Add, class Mul, class T>
SPLA_DEV void spla_piece_add(spla_piece<T>& acc, const spla_piece<T>& x, T a, T ident)
{
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v)
        if (x.v[v] != ident) acc.v[v] = Add::op(acc.v[v], Mul::op(x.v[v], a));
}

// The reduction of one row piece pc over the entries [first, end) of a column, unrolled by 4.
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV spla_piece<T> spla_piece_reduce(const I* __restrict__ rowidx, const T* __restrict__ vals,
                                         const uint4* __restrict__ u4, long long P, long long pc,
                                         long long first, long long end, T ident)
{
    spla_piece<T> acc;
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v) acc.v[v] = ident;
    long long p = first;
    constexpr int U = SPLA_ROWS_UNROLL;
    for (; end - p > U - 1; p += U) {
        long long i[U];
#pragma unroll
        for (int q = 0; q < U; ++q) i[q] = (long long)spla_ld(rowidx + p + q);
        spla_piece<T> x[U];
#pragma unroll
        for (int q = 0; q < U; ++q) x[q].raw = __ldg(u4 + i[q] * P + pc);
#pragma unroll
        for (int q = 0; q < U; ++q) spla_piece_add<Add, Mul, T>(acc, x[q], spla_entry<T, PATTERN>(vals, p + q), ident);
    }
    for (; p < end; ++p) {
        spla_piece<T> x;
        x.raw = __ldg(u4 + (long long)spla_ld(rowidx + p) * P + pc);
        spla_piece_add<Add, Mul, T>(acc, x, spla_entry<T, PATTERN>(vals, p), ident);
    }
    return acc;
}

// Bit v set: component pc * V + v of y[j, :] is computed.
template <class T>
SPLA_DEV unsigned int spla_piece_computed(const bool* __restrict__ mask, int mask_mode, long long mask_js,
                                          long long mask_cs, long long j, long long pc)
{
    const int V = (int)(16 / sizeof(T));
    unsigned int comp = 0;
    for (int v = 0; v < V; ++v)
        if (spla_computed(mask, mask_mode, j * mask_js + (pc * V + v) * mask_cs)) comp |= 1u << v;
    return comp;
}

// Store piece pc of y[j, :] under the semantics at the top of this file (t: the reduced piece).
template <class T>
SPLA_DEV void spla_piece_store(uint4* __restrict__ y4, long long at, unsigned int comp, const spla_piece<T>& t,
                               T ident, int accum, int flags)
{
    const int V = (int)(16 / sizeof(T));
    const unsigned int all = (V == 32) ? 0xffffffffu : ((1u << V) - 1u);
    const bool clears = (flags & (SPLA_FRESH | SPLA_REPLACE)) != 0;
    if (comp == 0 && !clears) return;  // nothing computed, nothing replaced: y unchanged, not read
    spla_piece<T> out;
    const bool need_old = (!(flags & SPLA_FRESH) && accum != SPLA_ACCUM_NONE && comp != 0) || (comp != all && !clears);
    if (need_old) out.raw = y4[at];
#pragma unroll
    for (int v = 0; v < V; ++v) {
        if ((comp >> v) & 1u)
            out.v[v] = (accum == SPLA_ACCUM_NONE || (flags & SPLA_FRESH)) ? t.v[v] : spla_accum(accum, out.v[v], t.v[v]);
        else if (clears)
            out.v[v] = ident;
    }
    y4[at] = out.raw;
}

template <class Add, class Mul, class T, class I, bool PATTERN, bool ORDERED>
__global__ void __launch_bounds__(SPLA_BLOCK, SPLA_ROWS_MIN_BLOCKS) spla_vecsc_rows(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                                const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
                                const bool* __restrict__ mask, long long mask_js, long long mask_cs,
                                int mask_mode, long long ncols, long long k, int L, int accum, int flags,
                                long long long_len, int long_init, const I* __restrict__ order)
{
    const T ident = Add::template identity<T>();
    const long long V = (long long)(16 / sizeof(T));
    const long long P = k / V;
    const long long glane = (long long)(threadIdx.x & (unsigned int)(L - 1));
    const long long groups = ((long long)gridDim.x * blockDim.x) / L;
    const uint4* __restrict__ u4 = reinterpret_cast<const uint4*>(u);
    uint4* __restrict__ y4 = reinterpret_cast<uint4*>(y);
    spla_piece<T> none;
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v) none.v[v] = ident;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / L; q < ncols; q += groups) {
        const long long j = ORDERED ? (long long)spla_ld(order + q) : q;
        long long start = 0, end = -1;  // read by the first piece that needs them
        for (long long pc = glane; pc < P; pc += L) {
            const unsigned int comp = spla_piece_computed<T>(mask, mask_mode, mask_js, mask_cs, j, pc);
            spla_piece<T> t = none;
            if (comp != 0) {
                if (end < 0) {
                    start = spla_ld(colptr + j);
                    end = spla_ld(colptr + j + 1);
                }
                if (long_len > 0 && end - start > long_len) {  // reduced by the caller
                    if (long_init) y4[j * P + pc] = none.raw;
                    continue;
                }
                t = spla_piece_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u4, P, pc, start, end, ident);
            }
            spla_piece_store<T>(y4, j * P + pc, comp, t, ident, accum, flags);
        }
    }
}

// ================================================================================================
// veCSC, block of k vectors in 16-byte row pieces over length-sorted work items ("rows, items"): what
// runs instead of spla_vecsc_rows where the backend cuts long columns into chunks (a column of more
// than ROWS_LONG entries, and the output semantics allow ADDs into y: _adds_into_y).  Every column is
// cut into items of at most CHUNK consecutive entries [item_begin[q], item_end[q]) (an empty column
// is one empty item), sorted longest first, so that the groups of a round reduce about equally long
// items and the short tails come last.
// Thread mapping: a block takes the next round of blockDim.x / L items from an atomic counter; group
// q of L lanes reduces item round * (blockDim.x / L) + q, lane g its pieces pc = g, g + L, ... exactly
// as spla_vecsc_rows does (spla_piece_reduce), then
//   * an item that is its column's only one (item_multi 0) stores the piece under the output
//     semantics (spla_piece_store: the mask, accum, fresh and replace as everywhere);
//   * an item of a column of several ADDs every computed component that is not the identity into
//     y[j, c] with ADD's atomic (the backend stored the identity into those columns first when y
//     becomes the result; otherwise accum is ADD and y keeps its value where not computed).
//   item_col, item_begin, item_end (nitems,) I; item_multi (nitems,) unsigned char; counter: one
//   zeroed unsigned int; rowidx, vals, u (nrows, k), y (ncols, k), mask: as spla_vecsc_rows.
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void __launch_bounds__(SPLA_BLOCK, SPLA_ROWS_MIN_BLOCKS) spla_vecsc_rows_items(
    const I* __restrict__ item_col, const I* __restrict__ item_begin, const I* __restrict__ item_end,
    const unsigned char* __restrict__ item_multi, long long nitems, unsigned int* __restrict__ counter,
    const I* __restrict__ rowidx, const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ y,
    const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode, long long k, int L,
    int accum, int flags)
{
    __shared__ unsigned int round_s;
    const T ident = Add::template identity<T>();
    const int V = (int)(16 / sizeof(T));
    const long long P = k / V;
    const long long glane = (long long)(threadIdx.x & (unsigned int)(L - 1));
    const long long per_round = blockDim.x / L;
    const uint4* __restrict__ u4 = reinterpret_cast<const uint4*>(u);
    uint4* __restrict__ y4 = reinterpret_cast<uint4*>(y);
    spla_piece<T> none;
#pragma unroll
    for (int v = 0; v < (int)(16 / sizeof(T)); ++v) none.v[v] = ident;
    for (;;) {
        if (threadIdx.x == 0) round_s = atomicAdd(counter, 1u);
        __syncthreads();
        const long long first = (long long)round_s * per_round;
        __syncthreads();  // round_s is read by every thread before thread 0 overwrites it
        if (first >= nitems) return;
        const long long q = first + threadIdx.x / L;
        if (q >= nitems) continue;
        const long long j = (long long)spla_ld(item_col + q);
        const long long begin = (long long)spla_ld(item_begin + q), end = (long long)spla_ld(item_end + q);
        const bool multi = __ldg(item_multi + q) != 0;
        for (long long pc = glane; pc < P; pc += L) {
            const unsigned int comp = spla_piece_computed<T>(mask, mask_mode, mask_js, mask_cs, j, pc);
            if (multi) {
                if (comp == 0) continue;
                const spla_piece<T> t = spla_piece_reduce<Add, Mul, T, I, PATTERN>(rowidx, vals, u4, P, pc, begin,
                                                                                   end, ident);
                for (int v = 0; v < V; ++v)
                    if (((comp >> v) & 1u) && t.v[v] != ident)
                        spla_atomic_update<Add, T>(y + j * k + pc * V + v, t.v[v]);
            } else {
                const spla_piece<T> t = comp != 0 ? spla_piece_reduce<Add, Mul, T, I, PATTERN>(
                                                        rowidx, vals, u4, P, pc, begin, end, ident) : none;
                spla_piece_store<T>(y4, j * P + pc, comp, t, ident, accum, flags);
            }
        }
    }
}

// ================================================================================================
// veCSC windows on tensor cores ("windows"): a k-block product of plus over float with a pattern A
// (plus_times, plus_first), k a multiple of 32, no mask, where a window's columns share many rows.
//
//   Y[j, c] = sum over the rows i stored in column j of U[i, c]
//
// A's columns are grouped in windows of 32: window w holds columns 32w .. 32w + 31.  Its slots
// [slot_ptr[w], slot_ptr[w + 1]) (a multiple of 16 of them) list its distinct rows, ascending, each as
// two words slots[2p] = i and slots[2p + 1] = the columns of the window that store row i, bit 4b + c
// standing for column 32w + b + 8c (b < 8, c < 4: lane g of the MMAs below finds its four columns in
// bits 4g .. 4g + 3); the last slots of a window repeat its last row with no bits (padding).  A row
// gathered once then serves every column of the window that stores it (Mycielski-16: 4.5 columns per
// row on average, against 1 for the row kernel, which gathers a row per entry).  The backend cuts each
// window's slots into items of at most SEG slots (rows_items, SEG a multiple of 16): item q is slots
// [item_begin[q], item_end[q]) of window item_col[q].
//
// Thread mapping: a warp per (item q, slab s of 32 components c = 32s .. 32s + 31), grid-stride over
// nitems * (k / 32) warps.  The warp walks its slots 16 at a time.  Lane l (g = l / 4, t = l % 4) reads
// the slots 2t, 2t + 1 and 2t + 8, 2t + 9 of the 16 (two 16-byte loads) and the 16-byte pieces U[i,
// 32s + 4g .. 32s + 4g + 3] of those rows (a warp load instruction reads four whole 128-byte rows).
// Software pipeline: while the MMAs of 16 slots run, the rows of the next 16 and the slots of the 16
// after them are in flight.  Each float is split into three bfloat16 parts whose sum is the float
// exactly; the warp builds each half-window's 0/1 tile (16 columns x 16 rows, bfloat16) from the bits
// and issues mma.sync.m16n8k16 (bfloat16 in, float32 accumulate): 2 halves x 4 n-tiles x 3 parts per 16
// slots, into a fresh accumulator that is then added into the running sums (SPLA_WINDOWS_FRESH).
// Column n of n-tile nt is component 32s + 4n + nt, so lane l accumulates components 32s + 8t .. 32s +
// 8t + 7 of window columns 16h + g and 16h + g + 8 (h = 0, 1): 32 floats a lane.
//
// A value that is not finite (0 x inf is NaN in a tile) or below 2^-100 in magnitude (its smallest part
// would fall below the normal range) is not on the tensor cores' exact path.  spla_windows_scan sets
// *check when U holds one; then every warp tests the values it loads, and a warp that loads one
// recomputes its item on the CUDA cores, lane l owning component 32s + l of the 32 columns in
// registers, rows in ascending order (the row kernel's order and result).
//
// Output: an item that is its window's only one stores its 32 x 32 results under the output semantics
// (spla_store, everything computed: there is no mask; 16-byte stores when fresh or without accum); the
// items of a window of several ADD into y (red.global.add.v4.f32 per four components, ADD's atomic on
// the exact path; the backend stored the identity into those windows' columns first when y becomes
// the result; otherwise accum is plus and y keeps its value).  Columns >= ncols are not stored.
//   item_col, item_begin, item_end (nitems,) I; item_multi (nitems,) unsigned char; slots (2 nslots,)
//   unsigned int (8-byte aligned); check (1,) int; u (nrows, k) float and y (ncols, k) float, 16-byte
//   aligned.
// ================================================================================================
// The bfloat16 parts of two floats a (k row r) and b (k row r + 1), packed as MMA operand registers
// (a in the low half): part0 keeps the top 8 significant bits (the high half of the float's bits), part1
// the next 8 of what is left, part2 the rest.  Each subtraction is exact (same sign and exponent), and
// part0 + part1 + part2 == the float for every finite float that is 0 or at least 2^-100 in magnitude
// (spla_windows_bad); split_bf16x3 in gpu.py is the NumPy twin.
SPLA_DEV void spla_split_bf16x3(float a, float b, unsigned int& p0, unsigned int& p1, unsigned int& p2)
{
    const float ar = a - __uint_as_float(__float_as_uint(a) & 0xffff0000u);
    const float br = b - __uint_as_float(__float_as_uint(b) & 0xffff0000u);
    const float ar2 = ar - __uint_as_float(__float_as_uint(ar) & 0xffff0000u);
    const float br2 = br - __uint_as_float(__float_as_uint(br) & 0xffff0000u);
    p0 = __byte_perm(__float_as_uint(a), __float_as_uint(b), 0x7632);  // the two high halves
    p1 = __byte_perm(__float_as_uint(ar), __float_as_uint(br), 0x7632);
    p2 = __byte_perm(__float_as_uint(ar2), __float_as_uint(br2), 0x7632);
}

// Whether a value leaves the tensor-core path: not finite (0 x inf is NaN in a tile), or nonzero and
// below 2^-100 in magnitude (its last part would not be a normal bfloat16): biased exponent outside
// [27, 254] and not zero.
SPLA_DEV bool spla_windows_bad(float v)
{
    const unsigned int mag = __float_as_uint(v) & 0x7fffffffu;
    return mag != 0u && mag - 0x0d800000u >= 0x7f800000u - 0x0d800000u;
}

// spla_windows_scan: *check = 1 when some value of u (count floats, count a multiple of 4, u 16-byte
// aligned) is spla_windows_bad; *check is 0 beforehand.  A thread per 16-byte piece, grid-stride.
template <class T>
__global__ void spla_windows_scan(const T* __restrict__ u, long long count, int* __restrict__ check)
{
    const long long pieces = count >> 2;
    const long long stride = (long long)gridDim.x * blockDim.x;
    bool bad = false;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < pieces; p += stride) {
        const float4 v = __ldcs(reinterpret_cast<const float4*>(u) + p);
        bad |= spla_windows_bad(v.x) | spla_windows_bad(v.y) | spla_windows_bad(v.z) | spla_windows_bad(v.w);
    }
    if (__any_sync(0xffffffffu, bad) && (threadIdx.x & 31u) == 0u) *check = 1;
}

SPLA_DEV void spla_mma_bf16(float (&d)[4], unsigned int a0, unsigned int a1, unsigned int a2, unsigned int a3,
                            unsigned int b0, unsigned int b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// bfloat16 1.0 in the low half when bit c of pair is set and in the high half when bit 16 + c is
// (c < 4): 0x3f80 = 2^7 * 0x7f, so the masked bit times 0x3f80 >> c lands exactly on 0x3f80.
SPLA_DEV unsigned int spla_tile_pair(unsigned int pair, int c)
{
    return (pair & (0x00010001u << c)) * (0x3f80u >> c);
}

// The window column of bit position b of a slot's bits (b = 4 * (column % 8) + column / 8).
SPLA_DEV int spla_window_col(int b) { return (b >> 2) + 8 * (b & 3); }

// Store (single item) or atomically add (an item of several) one result of window column j: the exact
// path's output.
SPLA_DEV void spla_window_emit(float* __restrict__ y, long long j, long long ncols, long long idx, float t,
                               bool multi, int accum, int flags)
{
    if (j >= ncols) return;
    if (multi) {
        if (t != 0.0f) spla_atomic_update<spla_add_plus, float>(y + idx, t);
    } else {
        spla_store<float>(y, idx, true, t, 0.0f, accum, flags);
    }
}

// The same for four consecutive results y[idx .. idx + 3] (idx a multiple of 4): one 16-byte store, or
// one vector reduction (red.global.add.v4.f32, sm_90): the tensor-core path's output.
SPLA_DEV void spla_window_emit4(float* __restrict__ y, long long j, long long ncols, long long idx,
                                const float (&t)[4], bool multi, int accum, int flags)
{
    if (j >= ncols) return;
    if (multi) {
        if (t[0] != 0.0f || t[1] != 0.0f || t[2] != 0.0f || t[3] != 0.0f)
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};"
                         :: "l"(y + idx), "f"(t[0]), "f"(t[1]), "f"(t[2]), "f"(t[3]) : "memory");
    } else if ((flags & SPLA_FRESH) || accum == SPLA_ACCUM_NONE) {
        *reinterpret_cast<float4*>(y + idx) = make_float4(t[0], t[1], t[2], t[3]);
    } else {
#pragma unroll
        for (int v = 0; v < 4; ++v) spla_store<float>(y, idx + v, true, t[v], 0.0f, accum, flags);
    }
}

template <class I>
__global__ void __launch_bounds__(SPLA_BLOCK, 2) spla_vecsc_windows(  // 128 registers: 16 warps per SM
    const I* __restrict__ item_col, const I* __restrict__ item_begin, const I* __restrict__ item_end,
    const unsigned char* __restrict__ item_multi, long long nitems, const unsigned int* __restrict__ slots,
    const int* __restrict__ check, const float* __restrict__ u, float* __restrict__ y, long long ncols,
    long long k, int accum, int flags)
{
    const unsigned int full = 0xffffffffu;
    const int lane = (int)(threadIdx.x & 31u);
    const int g = lane >> 2, t = lane & 3;
    const long long slabs = k >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const bool checking = __ldg(check) != 0;
    const unsigned int kb = (unsigned int)k * 4u;  // bytes per row of u (the backend checks it fits)
    const uint4* __restrict__ pairs = reinterpret_cast<const uint4*>(slots);  // two slots a load
    for (long long wq = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; wq < nitems * slabs; wq += warps) {
        const long long q = wq / slabs, s = wq - q * slabs;
        const long long w = (long long)spla_ld(item_col + q);
        const long long begin = (long long)spla_ld(item_begin + q), end = (long long)spla_ld(item_end + q);
        const bool multi = __ldg(item_multi + q) != 0;
        // the lane's 16-byte piece of row i of the slab is at ub + i * kb
        const char* __restrict__ ub = reinterpret_cast<const char*>(u + 32 * s + 4 * g);
        float d[2][4][4];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) d[h][nt][e] = 0.0f;
        // The lane's slots of 16 consecutive ones: (2t, 2t+1) in sl[0] and (2t+8, 2t+9) in sl[1], as
        // (row, bits, row, bits); their rows' pieces in x[0..3].  Software pipeline over two buffers:
        // while the MMAs of one 16 run, the rows of the next 16 and the slots of the 16 after them are
        // in flight.  Past the item's end the loads repeat its last 16 (no branch around them).
        const uint4* __restrict__ sp = pairs + ((begin + 2 * t) >> 1);  // the lane's first pair
        const uint4* __restrict__ sp_last = pairs + ((end - 16 + 2 * t) >> 1);
        auto slots_at = [&](const uint4* __restrict__ p, uint4 (&sl)[2]) {
            sl[0] = __ldcs(p);
            sl[1] = __ldcs(p + 4);
        };
        auto rows_of = [&](const uint4 (&sl)[2], float4 (&x)[4]) {
            x[0] = __ldg(reinterpret_cast<const float4*>(ub + (unsigned long long)sl[0].x * kb));
            x[1] = __ldg(reinterpret_cast<const float4*>(ub + (unsigned long long)sl[0].z * kb));
            x[2] = __ldg(reinterpret_cast<const float4*>(ub + (unsigned long long)sl[1].x * kb));
            x[3] = __ldg(reinterpret_cast<const float4*>(ub + (unsigned long long)sl[1].z * kb));
        };
        // One 16: cur and x are its slots and rows, nxt the next 16's slots; once x is split it receives
        // the next 16's rows, and cur the slots 32 on from base.  Returns false when the warp leaves
        // for the exact path.
        auto sixteen = [&](long long base, uint4 (&cur)[2], const uint4 (&nxt)[2], float4 (&x)[4]) -> bool {
            const unsigned int cb[4] = {cur[0].y, cur[0].w, cur[1].y, cur[1].w};
            if (checking) {
                bool bad = false;
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    bad |= spla_windows_bad(x[r].x) | spla_windows_bad(x[r].y) | spla_windows_bad(x[r].z) |
                           spla_windows_bad(x[r].w);
                if (__any_sync(full, bad)) return false;
            }
            // B fragments: part pt of n-tile nt, k rows (2t, 2t+1) [rr = 0] and (2t+8, 2t+9) [rr = 1]
            unsigned int bf[3][4][2];
#pragma unroll
            for (int rr = 0; rr < 2; ++rr) {
                const float4 lo = x[2 * rr], hi = x[2 * rr + 1];
                spla_split_bf16x3(lo.x, hi.x, bf[0][0][rr], bf[1][0][rr], bf[2][0][rr]);
                spla_split_bf16x3(lo.y, hi.y, bf[0][1][rr], bf[1][1][rr], bf[2][1][rr]);
                spla_split_bf16x3(lo.z, hi.z, bf[0][2][rr], bf[1][2][rr], bf[2][2][rr]);
                spla_split_bf16x3(lo.w, hi.w, bf[0][3][rr], bf[1][3][rr], bf[2][3][rr]);
            }
            // x is split: the next 16's rows and the slots 32 on fly during the MMAs below
            rows_of(nxt, x);
            slots_at(base + 32 < end ? sp + 8 * ((base + 32 - begin) >> 4) : sp_last, cur);
            // the lane's four columns g, g + 8, g + 16, g + 24 (bits 0..3) of k rows 2t (low half) and
            // 2t + 1 (high half) in p01, of 2t + 8 and 2t + 9 in p89
            const int sh = 4 * g;
            const unsigned int p01 = ((cb[0] >> sh) & 0xfu) | (((cb[1] >> sh) & 0xfu) << 16);
            const unsigned int p89 = ((cb[2] >> sh) & 0xfu) | (((cb[3] >> sh) & 0xfu) << 16);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                // A fragment: window columns 16h + g (bit 2h) and 16h + g + 8 (bit 2h + 1) x the k rows
                const unsigned int a0 = spla_tile_pair(p01, 2 * h), a1 = spla_tile_pair(p01, 2 * h + 1);
                const unsigned int a2 = spla_tile_pair(p89, 2 * h), a3 = spla_tile_pair(p89, 2 * h + 1);
#pragma unroll
                for (int nt = 0; nt < 4; ++nt) {
#if SPLA_WINDOWS_FRESH
                    // the 16 rows' sums in a fresh accumulator, added to d rounding to nearest: the
                    // tensor cores' own accumulation truncates, and a long chain of it drifts
                    float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
                    for (int pt = SPLA_WINDOWS_PARTS - 1; pt >= 0; --pt)  // smallest part first
                        spla_mma_bf16(part, a0, a1, a2, a3, bf[pt][nt][0], bf[pt][nt][1]);
#pragma unroll
                    for (int e = 0; e < 4; ++e) d[h][nt][e] += part[e];
#else
#pragma unroll
                    for (int pt = SPLA_WINDOWS_PARTS - 1; pt >= 0; --pt)  // smallest part first
                        spla_mma_bf16(d[h][nt], a0, a1, a2, a3, bf[pt][nt][0], bf[pt][nt][1]);
#endif
                }
            }
            return true;
        };
        bool exact = true;
        if (begin < end) {
            uint4 sl[2], nx[2];
            float4 x[4];
            slots_at(sp, sl);
            rows_of(sl, x);
            slots_at(begin + 16 < end ? sp + 8 : sp_last, nx);
            for (long long base = begin; base < end; base += 32) {  // the two slot buffers take turns
                if (!sixteen(base, sl, nx, x)) {
                    exact = false;
                    break;
                }
                if (base + 16 >= end) break;
                if (!sixteen(base + 16, nx, sl, x)) {
                    exact = false;
                    break;
                }
            }
        }
        if (exact) {
            // d[h][nt][e]: window column 16h + g + 8 * (e >> 1), component 32s + 8t + 4 * (e & 1) + nt
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const long long j = 32 * w + 16 * h + g + 8 * (e >> 1);
                    const float t4[4] = {d[h][0][e], d[h][1][e], d[h][2][e], d[h][3][e]};
                    spla_window_emit4(y, j, ncols, j * k + 32 * s + 8 * t + 4 * (e & 1), t4, multi, accum, flags);
                }
        } else {
            // exact path: lane owns component 32s + lane of the window's 32 columns (acc[b]: bit b's
            // column), rows in order; padding slots have no bits
            float acc[32];
#pragma unroll
            for (int b = 0; b < 32; ++b) acc[b] = 0.0f;
            for (long long p = begin; p < end; ++p) {
                const unsigned int m = __ldg(slots + 2 * p + 1);
                if (m == 0u) continue;
                const float v = __ldg(u + (long long)__ldg(slots + 2 * p) * k + 32 * s + lane);
                if (v == 0.0f) continue;  // ADD's identity contributes nothing
#pragma unroll
                for (int b = 0; b < 32; ++b)
                    if ((m >> b) & 1u) acc[b] += v;
            }
#pragma unroll
            for (int b = 0; b < 32; ++b) {
                const long long j = 32 * w + spla_window_col(b);
                spla_window_emit(y, j, ncols, j * k + 32 * s + lane, acc[b], multi, accum, flags);
            }
        }
    }
}
// ================================================================================================
// veCSC long-column split (k == 1).  The backend cuts every column with more than LONG entries into
// chunks of at most CHUNK consecutive entries [chunk_begin[q], chunk_end[q]) of column
// long_cols[chunk_col[q]]; the main spla_vecsc skips those columns when computed (long_len), then:
//
// spla_vecsc_long_chunks: a warp per group of per_warp consecutive chunks (grid-stride over groups by
//   global warp id, so the loop is warp-uniform; blockDim.x a multiple of 32, so every warp is full).
//   Lane l < per_warp tests the mask of chunk l's column (all per_warp tests in one load chain), and
//   the warp then reduces the chunks whose column is computed, in turn (a chunk whose column is not
//   computed costs one mask byte and nothing else; per_warp = 1: a warp per chunk, for unmasked
//   products, per_warp > 1 for sparse masks, whose kept chunks would otherwise each cost a warp's
//   whole load chain).  For each: lane l reduces entries begin + l, + 32, ... (spla_group_reduce,
//   coalesced rowidx), the warp reduces with a full-mask xor butterfly, and lane 0 ADDs the total
//   atomically (nothing when it is the identity) into
//   tl[chunk_col[q]] (tl (nlong,) T holding ADD's identity beforehand; spla_vecsc_long_finish then stores
//   it), or with direct != 0 straight into y[j]: when y[j] becomes the result itself (fresh, or no accum
//   with no mask or replace: the main kernel stored the identity there, long_init) or ADD(y[j], result)
//   (accum is ADD, no replace).  That saves tl's fill and the finish launch.
//   chunk_col (nchunks,) int; chunk_begin, chunk_end (nchunks,) I; long_cols (nlong,) I; rowidx (nnz,) I;
//   vals (nnz,) T; u (nrows,) T; y (ncols,) T; mask (ncols,) bool at mask[j * mask_js].
// ================================================================================================
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_vecsc_long_chunks(const int* __restrict__ chunk_col, const I* __restrict__ chunk_begin,
                                       const I* __restrict__ chunk_end, const I* __restrict__ long_cols,
                                       const I* __restrict__ rowidx, const T* __restrict__ vals,
                                       const T* __restrict__ u, T* __restrict__ tl, T* __restrict__ y,
                                       int direct, const bool* __restrict__ mask, long long mask_js,
                                       int mask_mode, long long nchunks, int vec4, int per_warp)
{
    const unsigned int lane = threadIdx.x & 31u;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long groups = (nchunks + per_warp - 1) / per_warp;
    for (long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < groups; g += nwarps) {
        // lane l < per_warp reads chunk g * per_warp + l (column, bounds) and tests its mask; the
        // computed chunks are then reduced in turn, their facts shuffled from the lane that read them
        const long long mine = g * per_warp + lane;
        bool comp = false;
        long long my_idx = 0, my_j = 0, my_begin = 0, my_end = 0;
        if ((int)lane < per_warp && mine < nchunks) {
            my_idx = (long long)spla_ld(chunk_col + mine);
            my_begin = (long long)spla_ld(chunk_begin + mine);
            my_end = (long long)spla_ld(chunk_end + mine);
            my_j = (long long)spla_ld(long_cols + my_idx);
            comp = spla_computed(mask, mask_mode, my_j * mask_js);
        }
        unsigned int todo = __ballot_sync(0xffffffffu, comp);
        while (todo) {  // warp-uniform
            const int l = __ffs(todo) - 1;
            todo &= todo - 1u;
            const long long idx = __shfl_sync(0xffffffffu, my_idx, l);
            const long long j = __shfl_sync(0xffffffffu, my_j, l);
            const long long begin = __shfl_sync(0xffffffffu, my_begin, l);
            const long long end = __shfl_sync(0xffffffffu, my_end, l);
            spla_warp_chunk_add<Add, Mul, T, I, PATTERN>(rowidx, vals, u, begin, end, direct ? y + j : tl + idx, vec4);
        }
    }
}

// spla_vecsc_long_finish: one thread per long column idx (grid-stride): when y[long_cols[idx]] is
// computed, spla_store(y, j, true, tl[idx], ...) (the not-computed ones were stored by spla_vecsc).
//   long_cols (nlong,) I; tl (nlong,) T; y (ncols,) T.
template <class Add, class T, class I>
__global__ void spla_vecsc_long_finish(const I* __restrict__ long_cols, const T* __restrict__ tl,
                                       T* __restrict__ y, const bool* __restrict__ mask, long long mask_js,
                                       int mask_mode, long long nlong, int accum, int flags)
{
    const T ident = Add::template identity<T>();
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < nlong; idx += stride) {
        const long long j = (long long)spla_ld(long_cols + idx);
        if (spla_computed(mask, mask_mode, j * mask_js)) spla_store(y, j, true, tl[idx], ident, accum, flags);
    }
}

// ================================================================================================
// Worklists (k == 1) -- compact the items a product will work on, so that a sparse selection costs
// threads only for what it keeps.  spla_compact is the shared scheme: a block takes chunks of
// SPLA_WORKLIST_PER * blockDim.x consecutive items (block-uniform grid-stride loop; blockDim.x a
// multiple of 32, <= 1024); in round i thread t tests item chunk + i * blockDim.x + t with keep(j)
// (coalesced reads) and keeps the warp's ballot of kept items.  Appending is chunk-aggregated: each
// warp's count is the popcount of its ballots, thread 0 turns the warp counts into offsets and
// reserves the chunk's slots with ONE atomicAdd on *count (one per 4096 items with 256 threads; one
// per 256 items serialised on the counter and was no faster than walking every column on 2M-4M
// columns), then every lane writes its kept items at its warp's offset plus its rank.  Order inside a
// chunk is by warp, then round, then lane; chunks land in any order.
//   list (nitems,) I: the first *count entries are written; count (1,) unsigned long long, zero
//   beforehand.  Thread t of a block owns the items it tests (and, for spla_mask_worklist, their y).
//
// spla_mask_worklist: the computed columns of a masked product (mask (ncols,) bool at
//   mask[j * mask_js]; y (ncols,) T) that have entries.  It also stores every not-computed y[j] (the identity under
//   SPLA_FRESH or SPLA_REPLACE, else nothing) and every computed EMPTY column's result (the identity,
//   through spla_store with accum), so that scCSC / veCSC in worklist mode touch only listed columns
//   and no thread is spent on columns with nothing to reduce (a BFS's unreachable vertices).
//   colptr (ncols+1,) I, or null: no column is tested for emptiness (the backend passes null when
//   few columns are empty: the test is a load that depends on the mask's, which a worklist over 4M
//   columns with no empty one paid for, 0.053 -> 0.072 ms, H100).
// spla_input_worklist: the inputs i with u[i] != ADD's identity (u (nin,) T), for spla_push.
// ================================================================================================
#define SPLA_WORKLIST_PER 16

template <class I, class Keep>
SPLA_DEV void spla_compact(const Keep& keep, long long nitems, I* __restrict__ list,
                           unsigned long long* __restrict__ count)
{
    __shared__ unsigned int warp_offset[32];
    __shared__ unsigned long long chunk_base;
    const unsigned int lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const unsigned int below = (1u << lane) - 1u;  // lanes under this one
    const long long chunk = (long long)SPLA_WORKLIST_PER * blockDim.x;
    for (long long first = (long long)blockIdx.x * chunk; first < nitems; first += (long long)gridDim.x * chunk) {
        unsigned int ballots[SPLA_WORKLIST_PER];
        unsigned int kept = 0;
#pragma unroll
        for (int i = 0; i < SPLA_WORKLIST_PER; ++i) {
            const long long j = first + (long long)i * blockDim.x + threadIdx.x;
            ballots[i] = __ballot_sync(0xffffffffu, j < nitems && keep(j));
            kept += __popc(ballots[i]);
        }
        if (lane == 0) warp_offset[warp] = kept;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned int total = 0;
            for (unsigned int w = 0; w < nwarps; ++w) {
                const unsigned int c = warp_offset[w];
                warp_offset[w] = total;
                total += c;
            }
            chunk_base = total ? atomicAdd(count, (unsigned long long)total) : 0ULL;
        }
        __syncthreads();
        unsigned long long pos = chunk_base + warp_offset[warp];
#pragma unroll
        for (int i = 0; i < SPLA_WORKLIST_PER; ++i) {
            if ((ballots[i] >> lane) & 1u)
                list[pos + __popc(ballots[i] & below)] = (I)(first + (long long)i * blockDim.x + threadIdx.x);
            pos += __popc(ballots[i]);
        }
        __syncthreads();  // warp_offset and chunk_base are rewritten by the next chunk
    }
}

// keep(j) of spla_mask_worklist: j is computed and has entries; other columns are stored on the way.
template <class T, class I>
struct spla_keep_computed {
    const I* colptr;
    const bool* mask;
    long long mask_js;
    int mask_mode;
    T* y;
    int accum;
    int flags;
    T ident;
    SPLA_DEV bool operator()(long long j) const
    {
        if (!spla_computed(mask, mask_mode, j * mask_js)) {
            if (flags & (SPLA_FRESH | SPLA_REPLACE)) y[j] = ident;
            return false;
        }
        if (colptr != nullptr && spla_ld(colptr + j) == spla_ld(colptr + j + 1)) {  // computed, nothing to reduce
            spla_store(y, j, true, ident, ident, accum, flags);
            return false;
        }
        return true;
    }
};

template <class Add, class T, class I>
__global__ void spla_mask_worklist(const I* __restrict__ colptr, const bool* __restrict__ mask, long long mask_js,
                                   int mask_mode, long long ncols, T* __restrict__ y, int accum, int flags,
                                   I* __restrict__ list, unsigned long long* __restrict__ count)
{
    const spla_keep_computed<T, I> keep{colptr, mask, mask_js, mask_mode, y, accum, flags, Add::template identity<T>()};
    spla_compact<I>(keep, ncols, list, count);
}

// keep(i) of spla_input_worklist: u[i] is not ADD's identity (it contributes).
template <class T>
struct spla_keep_live {
    const T* u;
    T ident;
    SPLA_DEV bool operator()(long long i) const { return spla_ld(u + i) != ident; }
};

template <class Add, class T, class I>
__global__ void spla_input_worklist(const T* __restrict__ u, long long nin, I* __restrict__ list,
                                    unsigned long long* __restrict__ count)
{
    const spla_keep_live<T> keep{u, Add::template identity<T>()};
    spla_compact<I>(keep, nin, list, count);
}

// ================================================================================================
// push -- the product from the input side (direction-optimising BFS's push; SuiteSparse's saxpy).
//
//   y[j] = ADD_{i : u[i] != identity} MUL(u[i], A[i, j]),  computed by walking, for every input i
//   whose u[i] is not ADD's identity, the outputs j it reaches and ADD-ing MUL(u[i], A[i, j]) into
//   t[j] with ADD's atomic (spla_atomic_update: idempotent monoids peek first).
//
// R is the INPUT-side CSC: column i of R lists the outputs j reached from input i (R = A^T for vxm,
// A itself when A is symmetric; R = A for mxv).  The work is the arcs leaving the inputs that are not
// the identity, not the arcs entering the computed outputs as in scCSC / veCSC / scCOOC: cheap when u
// is sparse (a small BFS frontier), wasteful when it is dense.  Masks are tested per arc (one byte
// gathered at j), so masked-out outputs receive nothing; the backend merges t into out afterwards
// unless out can take the atomics directly (see gpu.py).
//
// k == 1: a group of G lanes owns input i (list[q] for q < *count in worklist mode, the non-identity
//   inputs compacted by spla_input_worklist; else grid-stride over all nin inputs).  The group reads
//   x = u[i] and leaves when it is the identity, or when the column is long (more than long_len > 0
//   entries: spla_push_long_chunks walks it); lane g walks entries start + g, + G, ... (coalesced
//   rowidx), tests the mask of j and updates t[j] (spla_push_entries: four entries per lane per
//   iteration, their index and mask loads issued before the atomics, so a lane keeps four chains in
//   flight instead of one).  No shuffles: lanes never exchange values.
// k > 1:  a group of G lanes owns input i; lane g owns components c = g, g + G, ... < k and, for each
//   owned c whose x = u[i, c] is not the identity, walks the column and updates t[j, c] where
//   computed (mask[j * mask_js + c * mask_cs]).  long_len is ignored (0) for blocks.
//   colptr (nin+1,) I; rowidx (nnz,) I (output indices); vals (nnz,) T; u (nin*k,) T; t (nout*k,) T
//   holding ADD's identity beforehand (or y itself when ADD is the accumulator); list (nin,) I and
//   count (1,) unsigned long long, or null.
// ================================================================================================
// t[j] = ADD(t[j], MUL(x, a_p)) for the entries p = first, first + step, ... < end whose j = rowidx[p] is
// computed (k == 1): unrolled by 4, loads first.
template <class Add, class Mul, class T, class I, bool PATTERN>
SPLA_DEV void spla_push_entries(const I* __restrict__ rowidx, const T* __restrict__ vals, T x, T* __restrict__ t,
                                const bool* __restrict__ mask, long long mask_js, int mask_mode, long long first,
                                long long end, long long step)
{
    long long p = first;
    for (; end - p > 3 * step; p += 4 * step) {
        long long j[4];
        spla_load4(rowidx, p, step, j);
        bool comp[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) comp[q] = spla_computed(mask, mask_mode, j[q] * mask_js);
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (comp[q]) spla_atomic_update<Add, T>(t + j[q], Mul::op(x, spla_entry<T, PATTERN>(vals, p + q * step)));
    }
    for (; p < end; p += step) {
        const long long j = (long long)spla_ld(rowidx + p);
        if (spla_computed(mask, mask_mode, j * mask_js))
            spla_atomic_update<Add, T>(t + j, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
    }
}

template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_push(const I* __restrict__ colptr, const I* __restrict__ rowidx,
                          const T* __restrict__ vals, const T* __restrict__ u, T* __restrict__ t,
                          const bool* __restrict__ mask, long long mask_js, long long mask_cs, int mask_mode,
                          long long nin, long long k, int G, long long long_len,
                          const I* __restrict__ list, const unsigned long long* __restrict__ count)
{
    const T ident = Add::template identity<T>();
    const long long glane = (long long)(threadIdx.x & (unsigned int)(G - 1));
    const long long groups = ((long long)gridDim.x * blockDim.x) / G;
    const long long items = list != nullptr ? (long long)*count : nin;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; q < items; q += groups) {
        const long long i = list != nullptr ? (long long)spla_ld(list + q) : q;
        if (k == 1) {
            const T x = spla_ld(u + i);
            if (x == ident) continue;  // group-uniform
            const long long start = spla_ld(colptr + i), end = spla_ld(colptr + i + 1);
            if (long_len > 0 && end - start > long_len) continue;
            spla_push_entries<Add, Mul, T, I, PATTERN>(rowidx, vals, x, t, mask, mask_js, mask_mode, start + glane,
                                                       end, (long long)G);
            continue;
        }
        const long long start = spla_ld(colptr + i), end = spla_ld(colptr + i + 1);
        for (long long c = glane; c < k; c += G) {
            const T x = spla_ld(u + i * k + c);
            if (x == ident) continue;
            for (long long p = start; p < end; ++p) {
                const long long j = (long long)spla_ld(rowidx + p);
                if (spla_computed(mask, mask_mode, j * mask_js + c * mask_cs))
                    spla_atomic_update<Add, T>(t + j * k + c, Mul::op(x, spla_entry<T, PATTERN>(vals, p)));
            }
        }
    }
}

// spla_push_long_chunks (k == 1): the long input columns of spla_push, cut by the backend exactly as
// veCSC's long columns (vecsc_long_split of R's colptr: chunks of at most CHUNK consecutive entries
// [chunk_begin[q], chunk_end[q]) of column long_cols[chunk_col[q]]).  One warp per chunk (grid-stride
// by global warp id: warp-uniform, every warp full): it reads x = u[i] of the chunk's input i and
// leaves when x is the identity (nothing else read); lane l walks entries begin + l, + 32, ... and
// updates t[j] where computed, as spla_push.
//   chunk_col (nchunks,) int; chunk_begin, chunk_end (nchunks,) I; long_cols (nlong,) I; rowidx, vals,
//   u, t, mask as spla_push with k == 1.
template <class Add, class Mul, class T, class I, bool PATTERN>
__global__ void spla_push_long_chunks(const int* __restrict__ chunk_col, const I* __restrict__ chunk_begin,
                                      const I* __restrict__ chunk_end, const I* __restrict__ long_cols,
                                      const I* __restrict__ rowidx, const T* __restrict__ vals,
                                      const T* __restrict__ u, T* __restrict__ t,
                                      const bool* __restrict__ mask, long long mask_js, int mask_mode,
                                      long long nchunks)
{
    const T ident = Add::template identity<T>();
    const long long lane = (long long)(threadIdx.x & 31u);
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long q = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; q < nchunks; q += nwarps) {
        const long long i = (long long)spla_ld(long_cols + spla_ld(chunk_col + q));
        const T x = spla_ld(u + i);
        if (x == ident) continue;  // warp-uniform
        const long long begin = (long long)spla_ld(chunk_begin + q), end = (long long)spla_ld(chunk_end + q);
        spla_push_entries<Add, Mul, T, I, PATTERN>(rowidx, vals, x, t, mask, mask_js, mask_mode, begin + lane, end,
                                                   32LL);
    }
}

// ================================================================================================
// merge -- out = computed ? (accum ? accum(out, t) : t) : (replace ? identity : out), elementwise.
// One thread per output element q = j * k + c (grid-stride); used after scCOOC or push when their
// atomics went into a buffer t instead of y (gpu.py's _atomic_target).
//   t, y (n*k,) T; mask as scCSC.
// ================================================================================================
template <class Add, class T>
__global__ void spla_merge(const T* __restrict__ t, T* __restrict__ y, const bool* __restrict__ mask,
                           long long mask_js, long long mask_cs, int mask_mode, long long n, long long k,
                           int accum, int flags)
{
    const T ident = Add::template identity<T>();
    const long long total = n * k;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
        long long j = q, c = 0;
        if (k != 1) { j = q / k; c = q - j * k; }
        const bool comp = spla_computed(mask, mask_mode, j * mask_js + c * mask_cs);
        spla_store(y, q, comp, comp ? t[q] : ident, ident, accum, flags & ~SPLA_FRESH);
    }
}

#endif  // SPLA_SPMV_CUH
