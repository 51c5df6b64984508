// spla/kernels/spmv/vecsc_block.cuh -- veCSC for a block of k vectors: a lane group per column, by
// component (spla_vecsc_block) or by 16-byte row piece (spla_vecsc_rows), and the row pieces over
// length-sorted work items (spla_vecsc_rows_items).
//
// Kernels: spla_vecsc_block<Add, Mul, T, I, PATTERN>, spla_vecsc_rows<Add, Mul, T, I, PATTERN,
//   ORDERED>, spla_vecsc_rows_items<Add, Mul, T, I, PATTERN>.
// Thread mapping: spla_vecsc_block: G = min(32, next power of two >= k) lanes per column; lane g owns
//   components g, g + G, ... < k of y[j, :].  spla_vecsc_rows: L = min(32, next power of two >= P)
//   lanes per column, P = k * sizeof(T) / 16 pieces per row; lane g owns pieces g, g + L, ... < P.
//   spla_vecsc_rows_items: the same L lanes per work item, a block taking rounds of items from an
//   atomic counter.  No shuffles: every output component has exactly one owner lane.
// Inputs: colptr (ncols+1,) I, rowidx (nnz,) I, vals (nnz,) T (unread if PATTERN), u (nrows, k) T
//   row-major, the mask (reduce.cuh); order (ncols,) I with ORDERED; the items' arrays as
//   spla_vecsc_rows_items says.
// Output: y (ncols, k) T under the output semantics (reduce.cuh); the items of a column cut into
//   several ADD into y atomically.
// Templates: Add, Mul (functors.cuh); T, the domain; I, int or long long; PATTERN; ORDERED, columns
//   walked in the order of a permutation (longest first) instead of index order.
// Host guarantees: the row kernels run only with k * sizeof(T) a multiple of 16 and u, y 16-byte
//   aligned; before spla_vecsc_rows_items, counter is zero and every column cut into several items
//   holds ADD's identity or the value the result is ADDed to.

#ifndef SPLA_SPMV_VECSC_BLOCK_CUH
#define SPLA_SPMV_VECSC_BLOCK_CUH

#include "reduce.cuh"
#include "atomics.cuh"

// Resident blocks per SM asked of ptxas for the row-piece kernels (__launch_bounds__): fewer
// registers a thread, so more warps in flight per SM (the figures: docs/kernels.md, "veCSC").
// spla_listed_chunks carries no such bound: bounded, it spills.
#ifndef SPLA_ROWS_MIN_BLOCKS
#define SPLA_ROWS_MIN_BLOCKS 6
#endif
// Entries in flight per lane in the row-piece walk (spla_piece_reduce): 4 or 8.
#ifndef SPLA_ROWS_UNROLL
#define SPLA_ROWS_UNROLL 4
#endif

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
//   walks every column here or none.  The branch stays because it changes the generated code, and the
//   code without it is the slower one (docs/kernels.md, "veCSC").
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

// Store piece pc of y[j, :] under the output semantics (reduce.cuh; t: the reduced piece).
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
// than the tuning's rows_long entries, and the output semantics allow ADDs into y: adds_into_y).
// Every column is cut into items of at most rows_chunk (or rows_heavy_chunk) consecutive entries
// [item_begin[q], item_end[q]) (an empty column is one empty item), sorted longest first, so that
// the groups of a round reduce about equally long items and the short tails come last.
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

#endif  // SPLA_SPMV_VECSC_BLOCK_CUH
