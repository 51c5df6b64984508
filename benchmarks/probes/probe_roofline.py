"""Measured memory rooflines of the device, and the floors they put under the spmv benchmark's
masked (90%) and k = 32 products: what bounds the benchmark's product targets, whatever the kernel.

    PYTHONPATH=. python -m benchmarks.probes.probe_roofline [--graphs a,b,...] [--out DIR]

Rates (probe_products.wall_ms: CUDA events, median of REPS after two warm-up calls):

* ``copy``: a device-to-device copy of 2 GiB (bytes read + written per second);
* ``gather S x 32 B``: random runs of S consecutive 32-byte sectors (S = 1, 2, 4: the isolated
  sector of a colptr entry or a u value, a short column's rowidx, a 128-byte row of a k = 32 float32
  block) read from an array far larger than L2 (4 GiB, "dram") or resident in it (8 MiB, "l2"):
  sectors * 32 bytes per second.  A group of S lanes reads the run, one 4-byte value per sector,
  8 runs in flight per lane; run positions come from a cheap hash, so no index array is read.
  These are lower estimates of the hardware's rates (a kernel could do a little better), so the
  floors below are, if anything, a little high.

Floors per graph (float32 values, int32 indices, the benchmark's u and mask: rng seed 0, 10% kept):

* masked k = 1 product, y written whole (replace): mask and y at the copy rate, plus the distinct
  sectors it must touch -- colptr around each kept column, each kept column's rowidx run, the u
  values of its rows -- at the gather rate of their run length.  Each distinct sector is counted
  once (perfect caching), so this is a floor for any kernel that reads CSC in this layout.
* k = 32 block: U's rows and Y's rows are 128 bytes.  "ideal": every distinct row of U read once
  and Y written once at the copy rate, plus rowidx and colptr (a kernel with perfect reuse);
  "no reuse": every arc's U row gathered at the 128-byte gather rate of where U lives (L2 when it
  fits in half of L2, else DRAM), the floor of a kernel without on-chip reuse of rows.

Beside each floor: the measured device time (probe_products.device_ms: replayed products)
of the best unmasked k = 1 product ("auto"), the 90%-masked scCSC product and the k = 32 "auto"
product, and the best ratio each floor allows.  JSON to DIR/probe_roofline.json.
"""
from __future__ import annotations

import argparse

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import BIG, DEV_REPEAT, device_ms, save_json, wall_ms

REPS = 10
SECTOR = 32
GATHER_SOURCE = r"""
// A group of `run` lanes (run divides 32) reads random runs of `run` consecutive 32-byte sectors of
// src (nruns runs, a power of two), lane g of the group one float of sector g; `per` runs per group,
// 8 in flight.  Run numbers come from a cheap 32-bit integer hash (a handful of instructions per
// load, so the loads, not the arithmetic, bound the kernel).  The sum is stored only if it equals a
// value it never takes, so the loads stay live.
__device__ __forceinline__ unsigned int spla_hash32(unsigned int x)
{
    x *= 0x9e3779b1u;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    return x;
}

extern "C" __global__ void spla_gather_runs(const float* __restrict__ src, float* __restrict__ out,
                                            unsigned int nruns, int run, int per, unsigned int seed)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int group = t / run;
    const int g = (int)(t % run);
    float acc = 0.f;
    for (int q = 0; q < per; q += 8) {
        float v[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) {
            const unsigned int s = spla_hash32(seed + group * per + q + r) & (nruns - 1u);
            v[r] = __ldg(src + ((unsigned long long)s * run + g) * 8);
        }
#pragma unroll
        for (int r = 0; r < 8; ++r) acc += v[r];
    }
    if (acc == -1.f) out[t] = acc;
}
"""


def rates():
    """{"copy": B/s, ("dram" | "l2", S): B/s of sectors}."""
    import cupy as cp

    out = {}
    n = 1 << 29  # 2 GiB of float32
    a = cp.ones(n, dtype=np.float32)
    b = cp.empty_like(a)
    out["copy"] = 2 * a.nbytes / (wall_ms(lambda: cp.copyto(b, a), REPS) * 1e-3)
    b = None
    kern = cp.RawKernel(GATHER_SOURCE, "spla_gather_runs")
    dev = cp.cuda.Device()
    threads = dev.attributes["MultiProcessorCount"] * dev.attributes["MaxThreadsPerMultiProcessor"]
    per = 64
    sink = cp.empty(threads, dtype=np.float32)
    big = cp.ones(1 << 30, dtype=np.float32)  # 4 GiB
    l2 = cp.ones((8 << 20) // 4, dtype=np.float32)  # 8 MiB
    for where, src in (("dram", big), ("l2", l2)):
        sectors = src.size // 8
        for run in (1, 2, 4):
            ms = wall_ms(lambda: kern((threads // 256,), (256,), (src, sink, np.uint32(sectors // run), np.int32(run),
                                                                    np.int32(per), np.uint32(12345))), REPS)
            out[(where, run)] = threads * per * SECTOR / (ms * 1e-3)
    big = l2 = a = None
    cp.get_default_memory_pool().free_all_blocks()
    return out


def sectors_of_runs(first, last):
    """Distinct 32-byte sectors covered by the byte ranges [first, last) (int64 arrays), and how many
    of the ranges span 1, 2 and >= 3 sectors."""
    keep = last > first
    s0, s1 = first[keep] // SECTOR, (last[keep] - 1) // SECTOR
    if s0.size == 0:
        return 0, (0, 0, 0)
    top = int(s1.max()) + 2
    diff = np.zeros(top, dtype=np.int64)
    np.add.at(diff, s0, 1)
    np.add.at(diff, s1 + 1, -1)
    covered = int(np.count_nonzero(np.cumsum(diff)[:-1] > 0))
    span = s1 - s0 + 1
    return covered, (int(np.sum(span == 1)), int(np.sum(span == 2)), int(np.sum(span >= 3)))


def floors(name, R, l2_bytes):
    import cupy as cp

    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    del src, dst
    ncols, nrows, nnz = int(A.shape[1]), int(A.shape[0]), int(A.nnz)
    colptr = cp.asnumpy(A.colptr).astype(np.int64)
    rowidx = cp.asnumpy(A.rowidx).astype(np.int64)
    rng = np.random.default_rng(0)
    u_h = rng.random(nrows, dtype=np.float32)
    mask_h = rng.random(ncols) < 0.10
    kept = np.flatnonzero(mask_h)
    ib = A.rowidx.dtype.itemsize
    # masked: colptr sectors (the pair colptr[j], colptr[j+1]), rowidx runs, u sectors
    cp_sec, _ = sectors_of_runs(kept * ib, (kept + 2) * ib)
    ri_sec, ri_spans = sectors_of_runs(colptr[kept] * ib, colptr[kept + 1] * ib)
    starts, ends = colptr[kept], colptr[kept + 1]
    lens = ends - starts
    rows = rowidx[np.repeat(ends - lens.cumsum(), lens) + np.arange(int(lens.sum()))] if lens.sum() else rowidx[:0]
    u_sec = int(np.unique(rows * 4 // SECTOR).size)
    seq = ncols * 1 + ncols * 4  # mask read, y written
    # rowidx runs of >= 3 sectors at the 4-sector rate, shorter ones at theirs (per sector)
    one, two, more = ri_spans
    ri_multi = max(0, ri_sec - one - 2 * two)
    t_masked = (seq / R["copy"] + cp_sec * SECTOR / R[("dram", 1)] + one * SECTOR / R[("dram", 1)]
                + 2 * two * SECTOR / R[("dram", 2)] + ri_multi * SECTOR / R[("dram", 4)]
                + u_sec * SECTOR / R[("dram", 1)])
    # k = 32 float32
    row = 32 * 4
    distinct_rows = int(np.unique(rowidx).size)
    idx_bytes = nnz * ib + (ncols + 1) * ib
    t_ideal = (distinct_rows * row + ncols * row + idx_bytes) / R["copy"]
    where = "l2" if nrows * row <= l2_bytes // 2 else "dram"
    t_noreuse = nnz * row / R[(where, 4)] + (ncols * row + idx_bytes) / R["copy"]
    # measured device times
    u = cp.asarray(u_h)
    mask = cp.asarray(mask_h)
    y = cp.empty(ncols, dtype=np.float32)

    def step_unmasked():
        for _ in range(DEV_REPEAT):
            spla.vxm(u, A, "plus_times", out=y)  # y = u +.* A

    def step_masked():
        for _ in range(DEV_REPEAT):
            spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel="scCSC")  # y<mask, replace> = u +.* A

    d1, _ = device_ms(step_unmasked, f"{name} k1")
    dm, _ = device_ms(step_masked, f"{name} masked")
    U = cp.asarray(rng.random((nrows, 32), dtype=np.float32))
    Y = cp.empty((ncols, 32), dtype=np.float32)

    def step_block():
        for _ in range(DEV_REPEAT):
            spla.vxm(U, A, "plus_times", out=Y)  # Y = U +.* A

    d32, _ = device_ms(step_block, f"{name} k32")
    U = Y = A = None
    cp.get_default_memory_pool().free_all_blocks()
    return {
        "graph": name, "n": nrows, "arcs": nnz, "kept": int(kept.size),
        "masked_sectors": {"colptr": cp_sec, "rowidx": ri_sec, "rowidx_spans_1_2_3+": ri_spans, "u": u_sec,
                           "seq_bytes": seq},
        "masked_floor_ms": t_masked * 1e3, "unmasked_ms": d1, "masked_ms": dm,
        "mask_ratio": d1 / dm, "mask_ratio_bound": d1 / (t_masked * 1e3),
        "block_ideal_floor_ms": t_ideal * 1e3, "block_noreuse_floor_ms": t_noreuse * 1e3, "block_u_where": where,
        "block_ms": d32, "block_ratio": 32 * d1 / d32, "block_ratio_bound_ideal": 32 * d1 / (t_ideal * 1e3),
        "block_ratio_bound_noreuse": 32 * d1 / (t_noreuse * 1e3),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(BIG))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    R = rates()
    gb = {("copy" if k == "copy" else f"{k[0]} {k[1]}x32B"): v / 1e9 for k, v in R.items()}
    print("rates GB/s:", {k: round(v, 1) for k, v in gb.items()}, flush=True)
    l2_bytes = int(cp.cuda.Device().attributes["L2CacheSize"])
    rows = []
    for name in args.graphs.split(","):
        f = floors(name, R, l2_bytes)
        rows.append(f)
        print(f"{name:9s} masked {f['masked_ms']:.4f} ms (floor {f['masked_floor_ms']:.4f}) ratio "
              f"{f['mask_ratio']:.2f}x (bound {f['mask_ratio_bound']:.2f}x) | k32 {f['block_ms']:.4f} ms "
              f"(ideal {f['block_ideal_floor_ms']:.4f}, no-reuse[{f['block_u_where']}] "
              f"{f['block_noreuse_floor_ms']:.4f}) ratio {f['block_ratio']:.2f}x (bounds "
              f"{f['block_ratio_bound_ideal']:.2f}x ideal, {f['block_ratio_bound_noreuse']:.2f}x no reuse) "
              f"| sectors {f['masked_sectors']}", flush=True)
    save_json(args.out, "probe_roofline.json", {"rates_GBps": gb, "l2_bytes": l2_bytes, "graphs": rows})


if __name__ == "__main__":
    main()
