// spla/kernels/spmv/functors.cuh -- the semiring functors every product kernel is instantiated with.
//
// Kernels: none.  ADD monoids spla_add_plus, _min, _max, _lor, _bor, _any (op, identity<T>(),
//   atomic, IDEMPOTENT) and MUL operators spla_mul_times, _plus, _first, _second, _pair, _land,
//   _min, _max, _band (op(x, a): x from u, a from A, already in the domain).  ADD_FUNCTORS and
//   MUL_FUNCTORS in spla/backends/gpu/compile.py map spla.semirings' names onto them, with the
//   domains each one compiles for: a new monoid or operator needs an entry here and there.
// Templates: T, the domain of each member function.
// Host guarantees: the identities and operations match spla.semirings exactly; bor and band reach
//   only bool and integer domains.

#ifndef SPLA_SPMV_FUNCTORS_CUH
#define SPLA_SPMV_FUNCTORS_CUH

#include "common.cuh"
#include "atomics.cuh"

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

#endif  // SPLA_SPMV_FUNCTORS_CUH
