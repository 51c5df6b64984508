// spla/kernels/spmv/common.cuh -- what every SpMV kernel file builds on.
//
// Kernels: none.  The constants the backend passes (output flags SPLA_FRESH / SPLA_REPLACE, the
//   accumulators SPLA_ACCUM_*, the mask modes SPLA_MASK_*: the same numbers as FRESH, REPLACE,
//   ACCUM_CODES and MASK_* in spla/backends/gpu/compile.py), SPLA_DEV, SPLA_BLOCK, loads through the
//   read-only cache (spla_ld), xor shuffles of any domain (spla_shfl_xor), the limits of each domain
//   (spla_limits), bitwise or of any domain (spla_bitor) and the NaN-propagating spla_min / spla_max.
// Templates: T, a domain: bool, int, long long, unsigned int, unsigned long long, float or double.
// Host guarantees: compiled as C++17 by NVRTC (or nvcc in the tests) with no standard header, so
//   builtin types only; -DSPLA_BLOCK=<threads per block of every launch>, a multiple of 32.

#ifndef SPLA_SPMV_COMMON_CUH
#define SPLA_SPMV_COMMON_CUH

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
// down to one warp, and sizes its shared memory for SPLA_BLOCK).
#ifndef SPLA_BLOCK
#define SPLA_BLOCK 256
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

#endif  // SPLA_SPMV_COMMON_CUH
