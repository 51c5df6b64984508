// spla/kernels/lists.cuh -- what the kernels over entry lists share: lane groups that walk a list
// grid-stride, and the warp-aggregated append that builds the next list
// (spla/kernels/frontier.cuh, spla/kernels/sssp.cuh).
//
// Thread mapping: a group of G lanes (G a power of two <= 32, so a group never straddles a warp) owns
//   list entry i = SPLA_LIST_FIRST(G), then i + SPLA_LIST_GROUPS(G), ...; the loop bound depends on
//   the group only, so every lane of a group runs the same iterations and may shuffle within it.
// Appends: each appending lane writes one entry; the lanes of a warp that append together take their
//   positions with one atomicAdd on the list's length.
// Host guarantees: blockDim.x a multiple of 32.
//   NVRTC compiles the inlined text (spla/backends/cuda_source.py): no system #include.

#ifndef SPLA_LISTS_CUH
#define SPLA_LISTS_CUH

// Groups of G lanes in the grid, and the first list entry this thread's group owns.
#define SPLA_LIST_GROUPS(G) (((long long)gridDim.x * blockDim.x) / (G))
#define SPLA_LIST_FIRST(G) (((long long)blockIdx.x * blockDim.x + threadIdx.x) / (G))

// Appends r to out[] at a position taken from *count, one atomicAdd per set of lanes that append
// together (warp-aggregated).  Positions at or beyond cap are never written: the caller sizes out[]
// for every entry that can be appended, so none is dropped.
template <class Q>
__device__ __forceinline__ void spla_list_append(Q r, Q* __restrict__ out, unsigned long long* count,
                                                 unsigned long long cap)
{
    const unsigned int active = __activemask();
    const unsigned int lane = threadIdx.x & 31u;
    const int leader = __ffs(active) - 1;
    const unsigned int rank = __popc(active & ((1u << lane) - 1u));
    unsigned long long base = 0;
    if ((int)lane == leader) base = atomicAdd(count, (unsigned long long)__popc(active));
    base = __shfl_sync(active, base, leader);
    if (base + rank < cap) out[base + rank] = r;
}

#endif  // SPLA_LISTS_CUH
