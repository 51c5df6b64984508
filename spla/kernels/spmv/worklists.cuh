// spla/kernels/spmv/worklists.cuh -- compaction of the items a k == 1 product works on, so that a
// sparse mask or a sparse input costs threads only for what it keeps.
//
// Kernels: spla_mask_worklist<Add, T, I>, spla_input_worklist<Add, T, I>.
// Thread mapping: a block per chunk of SPLA_WORKLIST_PER * blockDim.x consecutive items (grid-stride
//   over chunks); in round i thread t tests item chunk + i * blockDim.x + t; one atomic per chunk
//   reserves its slots in the list.
// Inputs: spla_mask_worklist: mask (ncols,) bool at mask[j * mask_js], colptr (ncols+1,) I or null;
//   spla_input_worklist: u (nin,) T.
// Outputs: list (nitems,) I, whose first *count entries are written (in no fixed order across
//   chunks); count (1,) unsigned long long; spla_mask_worklist also stores y (ncols,) T of every
//   column it does not list.
// Templates: Add (functors.cuh, for the identity); T, the domain; I, int or long long.
// Host guarantees: *count is zero; blockDim.x a multiple of 32 and at most 1024.

#ifndef SPLA_SPMV_WORKLISTS_CUH
#define SPLA_SPMV_WORKLISTS_CUH

#include "reduce.cuh"

// ================================================================================================
// Worklists (k == 1) -- compact the items a product will work on, so that a sparse selection costs
// threads only for what it keeps.  spla_compact is the shared scheme: a block takes chunks of
// SPLA_WORKLIST_PER * blockDim.x consecutive items (block-uniform grid-stride loop; blockDim.x a
// multiple of 32, <= 1024); in round i thread t tests item chunk + i * blockDim.x + t with keep(j)
// (coalesced reads) and keeps the warp's ballot of kept items.  Appending is chunk-aggregated: each
// warp's count is the popcount of its ballots, thread 0 turns the warp counts into offsets and
// reserves the chunk's slots with ONE atomicAdd on *count (one per 4096 items with 256 threads: an
// atomic per 256 items serialises on the counter; docs/kernels.md, "The mask worklist"), then every
// lane writes its kept items at its warp's offset plus its rank.  Order inside a chunk is by warp,
// then round, then lane; chunks land in any order.
//   list (nitems,) I: the first *count entries are written; count (1,) unsigned long long, zero
//   beforehand.  Thread t of a block owns the items it tests (and, for spla_mask_worklist, their y).
//
// spla_mask_worklist: the computed columns of a masked product (mask (ncols,) bool at
//   mask[j * mask_js]; y (ncols,) T) that have entries.  It also stores every not-computed y[j] (the identity under
//   SPLA_FRESH or SPLA_REPLACE, else nothing) and every computed EMPTY column's result (the identity,
//   through spla_store with accum), so that scCSC / veCSC in worklist mode touch only listed columns
//   and no thread is spent on columns with nothing to reduce (a BFS's unreachable vertices).
//   colptr (ncols+1,) I, or null: no column is tested for emptiness (the backend passes null when
//   few columns are empty: the test is a load that depends on the mask's, a cost with nothing to
//   gain when no column is empty; docs/kernels.md, "The mask worklist").
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

#endif  // SPLA_SPMV_WORKLISTS_CUH
