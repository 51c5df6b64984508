// spla/kernels/spmv/atomics.cuh -- the atomic updates of the kernels that ADD into a shared output
// (scCOOC, push, the long-column chunks, the row work items, the windows cut into several items).
//
// Kernels: none.  spla_atomic_add / _min / _max / _or overloaded on every domain that reaches them
//   (native where the hardware has the operation, CAS loops or word operations otherwise), and
//   spla_atomic_update<Add, T>, which ADDs one value into *dst with the monoid's atomic, and
//   spla_atomic_cas<Add, T>, the compare-and-swap loop over Add::op of user-defined monoids.
// Templates: Add, an ADD monoid functor (functors.cuh); T, a domain.
// Host guarantees: a bool target lies in a CuPy allocation, so the aligned 32-bit word that contains
//   it lies inside the buffer; supports() admits a monoid on a domain only where its atomic exists.

#ifndef SPLA_SPMV_ATOMICS_CUH
#define SPLA_SPMV_ATOMICS_CUH

#include "common.cuh"

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
// spla_atomic_cas<Add, T>::update(p, v): *p = Add::op(*p, v) as a compare-and-swap loop over the word
// that holds *p -- the atomic of a user-defined monoid (spla/backends/gpu/user_functors.py) on a domain
// it gives no atomic for.  Read the word, compute Add::op(old, v), atomicCAS it in; when another thread
// changed the word in between, retry from the value it left.  No write when Add::op leaves the value
// as it is.  A bool is updated inside the aligned 32-bit word that contains it (a CuPy allocation, so
// the whole word lies inside the buffer).  spla_word<T> reads T's bits as the unsigned word atomicCAS
// takes.
// ------------------------------------------------------------------------------------------------
template <class T> struct spla_word;
template <> struct spla_word<int> {
    typedef unsigned int W;
    static SPLA_DEV W bits(int x) { return (W)x; }
    static SPLA_DEV int value(W w) { return (int)w; }
};
template <> struct spla_word<unsigned int> {
    typedef unsigned int W;
    static SPLA_DEV W bits(unsigned int x) { return x; }
    static SPLA_DEV unsigned int value(W w) { return w; }
};
template <> struct spla_word<long long> {
    typedef unsigned long long W;
    static SPLA_DEV W bits(long long x) { return (W)x; }
    static SPLA_DEV long long value(W w) { return (long long)w; }
};
template <> struct spla_word<unsigned long long> {
    typedef unsigned long long W;
    static SPLA_DEV W bits(unsigned long long x) { return x; }
    static SPLA_DEV unsigned long long value(W w) { return w; }
};
template <> struct spla_word<float> {
    typedef unsigned int W;
    static SPLA_DEV W bits(float x) { return __float_as_uint(x); }
    static SPLA_DEV float value(W w) { return __uint_as_float(w); }
};
template <> struct spla_word<double> {
    typedef unsigned long long W;
    static SPLA_DEV W bits(double x) { return (W)__double_as_longlong(x); }
    static SPLA_DEV double value(W w) { return __longlong_as_double((long long)w); }
};

template <class Add, class T>
struct spla_atomic_cas {
    static SPLA_DEV void update(T* p, T v)
    {
        typedef typename spla_word<T>::W W;
        W* w = reinterpret_cast<W*>(p);
        W old = *reinterpret_cast<volatile W*>(w), assumed;
        do {
            assumed = old;
            const W nbits = spla_word<T>::bits(Add::template op<T>(spla_word<T>::value(assumed), v));
            if (nbits == assumed) return;
            old = atomicCAS(w, assumed, nbits);
        } while (old != assumed);
    }
};
template <class Add>
struct spla_atomic_cas<Add, bool> {
    static SPLA_DEV void update(bool* p, bool v)
    {
        unsigned int shift;
        unsigned int* w = spla_word_of(p, &shift);
        unsigned int old = *reinterpret_cast<volatile unsigned int*>(w), assumed;
        do {
            assumed = old;
            const bool cur = ((assumed >> shift) & 0xffu) != 0u;
            const bool nv = Add::template op<bool>(cur, v);
            const unsigned int nbits = (assumed & ~(0xffu << shift)) | ((nv ? 1u : 0u) << shift);
            if (nbits == assumed) return;
            old = atomicCAS(w, assumed, nbits);
        } while (old != assumed);
    }
};

// *dst = ADD(*dst, v) with ADD's atomic.  Idempotent monoids first read *dst and skip the atomic when
// it already absorbs v (values only move one way, so a stale read can only cause an unneeded atomic).
template <class Add, class T>
SPLA_DEV void spla_atomic_update(T* dst, T v)
{
    if (Add::IDEMPOTENT) {
        const T cur = *reinterpret_cast<volatile T*>(dst);
        if (Add::op(cur, v) == cur) return;
    }
    Add::template atomic<T>(dst, v);
}

#endif  // SPLA_SPMV_ATOMICS_CUH
