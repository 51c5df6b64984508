"""Row-panel k = 32 block product against the engine's row kernel (device time): does stepping every
block's columns through U one row panel at a time buy the on-chip reuse of U's rows that the missed
k = 32 targets need?

    PYTHONPATH=. python3 tools/probe_panels.py [--graphs a,b,...] [--out DIR]

The probe kernel (plus_times, float32, pattern, int32 indices, k = 32, unmasked):

* work items: every non-empty column cut into runs of at most CH entries (a column of several runs
  ADDs its runs' sums into Y with atomics, Y zeroed first), sorted longest first and dealt in rounds
  of G * CPG items (G = BLOCK / 8 groups of 8 lanes per block, CPG items per group, snake order so
  that every group gets a similar share); a block takes the next round from an atomic counter;
* lane g of a group owns the 16-byte piece g of its items' rows of Y, accumulated in registers;
* a round walks the row panels [r0, r0 + R): every group reduces its items' entries whose row lies
  in the panel (rows are sorted within a column: a prefix of what is left), then the block waits at a
  barrier (SYNC=1), so that the block reads the rows of one panel at a time and finds them in L1;
  R = None (nrows): one panel, i.e. the engine's walk over length-sorted items in one kernel;
* STREAM=1: the index loads and Y stores bypass L2 residency (ld/st .cs), so that U keeps more of L2.

Results (H100, the fifth 2026-11-24 session) are in docs/benchmarks.md.  The panel variants take
tens of milliseconds per product on sparse graphs (one barrier step per R rows): run them on the
Mycielski graphs.  Prints a line per case; JSON to DIR/probe_panels.json.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import cupy as cp
import numpy as np

import spla
from probe_products import close, device_ms, engine_block, load_matrix, probe_args, recorder, save_json

SOURCE = r"""
#ifndef CPG
#define CPG 4
#endif
#ifndef UNR
#define UNR 4
#endif
#ifndef SYNC
#define SYNC 1
#endif
#ifndef STREAM
#define STREAM 0
#endif
#ifndef MINB
#define MINB 1
#endif
#if STREAM
#define LD_IDX(p) __ldcs(p)
#else
#define LD_IDX(p) __ldg(p)
#endif

__device__ __forceinline__ void add4(float4& a, const float4& x) { a.x += x.x; a.y += x.y; a.z += x.z; a.w += x.w; }

extern "C" __global__ void __launch_bounds__(BLOCK, MINB)
panel_rows(const int* __restrict__ item_col, const int* __restrict__ item_begin, const int* __restrict__ item_end,
           const unsigned char* __restrict__ item_atomic, const int* __restrict__ rowidx,
           const float4* __restrict__ u4, float4* __restrict__ y4, int nitems, int nrows, int R,
           unsigned int* __restrict__ counter, int nrounds)
{
    const int G = BLOCK / 8;
    const int glane = threadIdx.x & 7, gid = threadIdx.x >> 3;
    __shared__ int round_s;
    for (;;) {
        if (threadIdx.x == 0) round_s = (int)atomicAdd(counter, 1u);
        __syncthreads();
        const int round = round_s;
        __syncthreads();
        if (round >= nrounds) return;
        int p[CPG], e[CPG], j[CPG];
        float4 acc[CPG];
#pragma unroll
        for (int c = 0; c < CPG; ++c) {
            const int slot = c * G + ((c & 1) ? (G - 1 - gid) : gid);
            const long long q = (long long)round * G * CPG + slot;
            j[c] = q < nitems ? (int)q : -1;
            p[c] = j[c] >= 0 ? __ldg(item_begin + q) : 0;
            e[c] = j[c] >= 0 ? __ldg(item_end + q) : 0;
            acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
        }
        for (int r1 = R;; r1 += R) {
#pragma unroll
            for (int c = 0; c < CPG; ++c) {
                while (p[c] < e[c]) {
                    int i[UNR];
#pragma unroll
                    for (int q = 0; q < UNR; ++q) i[q] = p[c] + q < e[c] ? LD_IDX(rowidx + p[c] + q) : 0x7fffffff;
                    float4 x[UNR];
#pragma unroll
                    for (int q = 0; q < UNR; ++q)
                        x[q] = i[q] < r1 ? __ldg(u4 + (long long)i[q] * 8 + glane) : make_float4(0.f, 0.f, 0.f, 0.f);
                    int n = 0;
#pragma unroll
                    for (int q = 0; q < UNR; ++q) {
                        add4(acc[c], x[q]);
                        n += i[q] < r1;
                    }
                    p[c] += n;
                    if (n < UNR) break;
                }
            }
            if (r1 >= nrows) break;
#if SYNC
            __syncthreads();
#endif
        }
#pragma unroll
        for (int c = 0; c < CPG; ++c)
            if (j[c] >= 0) {
                float4* t = y4 + (long long)__ldg(item_col + j[c]) * 8 + glane;
                if (__ldg(item_atomic + j[c])) {
                    atomicAdd(&t->x, acc[c].x); atomicAdd(&t->y, acc[c].y);
                    atomicAdd(&t->z, acc[c].z); atomicAdd(&t->w, acc[c].w);
                } else {
#if STREAM
                    __stcs(t, acc[c]);
#else
                    *t = acc[c];
#endif
                }
            }
    }
}
"""

#: (CPG, UNR, BLOCK, MINB, SYNC, STREAM, R or None = nrows, CH: longest item)
VARIANTS = [
    (4, 4, 1024, 1, 1, 0, 1024, 256), (4, 4, 1024, 1, 0, 0, 1024, 256), (4, 4, 1024, 1, 1, 0, 2048, 256),
    (4, 4, 1024, 1, 1, 0, None, 256), (4, 4, 1024, 1, 1, 1, None, 256), (2, 4, 1024, 1, 1, 0, None, 256),
    (1, 4, 256, 6, 1, 0, None, 256), (1, 4, 256, 6, 1, 0, None, 128),
]


def kernel(cpg, unr, block, minb, sync, stream):
    opts = ("-std=c++17", f"-DCPG={cpg}", f"-DUNR={unr}", f"-DBLOCK={block}", f"-DMINB={minb}", f"-DSYNC={sync}",
            f"-DSTREAM={stream}")
    return cp.RawKernel(SOURCE, "panel_rows", options=opts)


def items(A, CH):
    """Work items: every non-empty column cut into runs of at most CH entries, longest first:
    (item_col, item_begin, item_end) int32 and item_atomic uint8 (the column has several items)."""
    colptr = A.colptr.astype(cp.int64)
    lens = cp.diff(colptr)
    nch = (lens + CH - 1) // CH
    col = cp.repeat(cp.arange(lens.size, dtype=cp.int64), nch)
    first = cp.cumsum(nch) - nch
    k = cp.arange(col.size, dtype=cp.int64) - cp.repeat(first, nch)
    begin = colptr[col] + k * CH
    end = cp.minimum(begin + CH, colptr[col + 1])
    order = cp.argsort(-(end - begin), kind="stable")
    col, begin, end = col[order], begin[order], end[order]
    return (col.astype(cp.int32), begin.astype(cp.int32), end.astype(cp.int32), (nch[col] > 1).astype(cp.uint8))


def main():
    args = probe_args("myc16,myc17")
    rows = []
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

    rec = recorder(rows, 55)

    for name in args.graphs.split(","):
        A = load_matrix(name)
        ncols, nrows = int(A.shape[1]), int(A.shape[0])
        rng = np.random.default_rng(0)
        u = cp.asarray(rng.random(nrows, dtype=np.float32))
        y1 = cp.empty(ncols, dtype=np.float32)

        def step1():
            for _ in range(16):
                spla.vxm(u, A, "plus_times", out=y1)  # y1 = u +.* A
        ms1, _ = device_ms(step1, f"{name} k1")
        rec(name, "k1 auto", ms1, True)
        K = 32
        U = cp.asarray(rng.random((nrows, K), dtype=np.float32))
        Y, ref, ms = engine_block(A, U, name)
        rec(name, "k32 engine veCSC rows", ms, close(Y, ref), ratio=round(32 * ms1 / ms, 2))
        counter = cp.zeros(1, dtype=cp.uint32)
        for cpg, unr, block, minb, sync, stream, R, CH in VARIANTS:
            it = items(A, CH)
            f = kernel(cpg, unr, block, minb, sync, stream)
            per_round = block // 8 * cpg
            nitems = int(it[0].size)
            nrounds = -(-nitems // per_round)
            Rv = nrows if R is None else R
            grid = min(nrounds, sms * minb)

            def stepp():
                for _ in range(16):
                    counter.fill(0)
                    Y.fill(0)
                    f((grid,), (block,), (*it, A.rowidx, U, Y, np.int32(nitems), np.int32(nrows),
                                          np.int32(Rv), counter, np.int32(nrounds)))
            try:
                Y.fill(7)
                ms, _ = device_ms(stepp, f"{name} panels")
                case = (f"k32 panels CPG={cpg} UNR={unr} BLOCK={block}x{minb} SYNC={sync} STREAM={stream} R={R} "
                        f"CH={CH}")
                rec(name, case, ms, close(Y, ref), ratio=round(32 * ms1 / ms, 2))
            except Exception as e:  # noqa: BLE001
                print(f"{name} {cpg, unr, block, sync, stream, R}: {type(e).__name__}: {e}", flush=True)
        del U, Y, A, ref
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_panels.json", rows)


if __name__ == "__main__":
    main()
