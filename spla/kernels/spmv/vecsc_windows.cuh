// spla/kernels/spmv/vecsc_windows.cuh -- veCSC windows on tensor cores: a k-block product of plus over
// float32 with a pattern A, 32 columns of A at a time, on bfloat16 MMAs whose three-part split of
// each float gives the product's exact float32 result.
//
// Kernels: spla_vecsc_windows<I>, spla_windows_scan<T> (instantiated with T = float).
// Thread mapping: a warp per (work item, slab of 32 components), grid-stride; lane l (g = l / 4,
//   t = l % 4) accumulates components 32s + 8t .. 32s + 8t + 7 of window columns 16h + g and
//   16h + g + 8 (h = 0, 1), or component 32s + l of all 32 columns on the exact path.
//   spla_windows_scan: a thread per 16-byte piece of u.
// Inputs: the windows' slots (two words per distinct row: the row and its column bits) cut into
//   items, u (nrows, k) float, check (1,) int from spla_windows_scan.
// Output: y (ncols, k) float, stored (an item that is its window's only one) or ADDed into (the
//   items of a window cut into several).
// Templates: I, the index type of the items (int or long long).
// Host guarantees: k a multiple of 32 with k * 4 bytes within an unsigned int; no mask; u and y
//   16-byte aligned, slots 8-byte aligned, each window's slots a multiple of 16; *check is zero
//   before spla_windows_scan; a window cut into several items holds 0 or the value the result is
//   added to; sm_90 (mma.sync bfloat16, red.global.add.v4.f32).

#ifndef SPLA_SPMV_VECSC_WINDOWS_CUH
#define SPLA_SPMV_VECSC_WINDOWS_CUH

#include "reduce.cuh"
#include "functors.cuh"
#include "atomics.cuh"

// bfloat16 parts per float in the windows kernel's MMAs: 3 (exact, the product's); 1 only in
// benchmarks/probes/probe_windows.py, to time the kernel without the two smaller parts' MMAs (inexact
// results).
#ifndef SPLA_WINDOWS_PARTS
#define SPLA_WINDOWS_PARTS 3
#endif
// 1: the windows kernel sums each 16 rows in a fresh MMA accumulator and adds that into its running
// sums on the CUDA cores (rounding to nearest); 0: the running sums are the MMAs' accumulators.
#ifndef SPLA_WINDOWS_FRESH
#define SPLA_WINDOWS_FRESH 1
#endif

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
// gathered once then serves every column of the window that stores it (the row kernel gathers a row
// per entry; docs/kernels.md, "veCSC windows", gives the entries per distinct row of the graphs that
// use it).  The backend cuts each window's slots into items of at most SEG slots (rows_items, SEG a
// multiple of 16): item q is slots [item_begin[q], item_end[q]) of window item_col[q].
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
// (spla_windows_bad); split_bf16x3 in spla/backends/gpu/windows.py is the NumPy twin.
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

#endif  // SPLA_SPMV_VECSC_WINDOWS_CUH
