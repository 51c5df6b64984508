"""veCSC against scCOOC on the graphs that choose_kernel sends to veCSC, by size (device and call times).

    PYTHONPATH=. python -m benchmarks.probes.probe_small [--graphs a,b,...] [--ws N:D:P,...] [--sources S]
        [--out DIR]

The rule sends graphs without hubs whose scale-free metric is >= vector_scf to veCSC, except small
ones: fewer arcs than cooc_small_waves waves of the device go to scCOOC.  This probe measures where
scCOOC stops beating veCSC on such graphs, for what the algorithms run on them, each kernel forced
(the calibration of the tunable cooc_small_waves):

* the unmasked product y = u +.* A (plus_times float32), device time;
* the benchmark's 90%-masked product y<m, replace> = u +.* A (a random tenth of the columns kept);
* single-source betweenness's forward step, y<!reached> += x +.first A (float64, accum plus, half
  of the vertices reached), device time;
* single-source betweenness, one call per source (``sources=[s]``; per source the CUDA-event median
  of 5 calls after two warm-up calls), median over --sources sources, results of the two kernels
  compared;
* PageRank to its default tolerance, CUDA-event median of 5 calls after two warm-up calls.

Graphs: --graphs (benchmark registry names) and --ws (Watts-Strogatz n:d:p, built here).  JSON to
DIR/probe_small.json.
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, load_matrix, recorder, save_json, wall_ms
from spla import algorithms

KERNELS = ("veCSC", "scCOOC")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc12,myc13,myc14,myc15,musae-facebook,ca-AstroPh")
    ap.add_argument("--ws", default="10000:40:0.1,25000:40:0.1,50000:40:0.1,100000:40:0.1,250000:40:0.1,"
                                    "25000:40:1.0,100000:40:1.0")
    ap.add_argument("--sources", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    rows = []
    rec = recorder(rows, 30)
    cases = [(g, None) for g in args.graphs.split(",") if g]
    cases += [(f"ws n={c.split(':')[0]} d={c.split(':')[1]} p={c.split(':')[2]}", c) for c in args.ws.split(",") if c]
    for name, ws in cases:
        if ws is None:
            A = load_matrix(name)
        else:
            n, d, p = ws.split(":")
            src, dst, n, directed = graphs.watts_strogatz(int(n), int(d), float(p), seed=1)
            A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
            del src, dst
        n = int(A.shape[0])
        facts = dict(n=int(n), arcs=int(A.nnz), mean=round(A.nnz / max(1, A.shape[1]), 1),
                     scf=round(spla.scale_free_metric(A), 1), pick=spla.choose_kernel(A)[0])
        print(f"# {name}: {facts}", flush=True)
        rng = np.random.default_rng(0)
        ncols = int(A.shape[1])
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        mask = cp.asarray(rng.random(ncols) < 0.10)
        reached = cp.asarray(rng.random(ncols) < 0.5)
        x = cp.asarray(np.where(rng.random(int(A.shape[0])) < 0.2, rng.random(int(A.shape[0])), 0.0))
        acc0 = cp.asarray(rng.random(ncols))
        y = cp.empty(ncols, dtype=np.float32)
        z = cp.empty(ncols, dtype=np.float64)
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        ref_m = cp.where(mask, ref, 0)
        ref_f = spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=acc0.copy(),
                         kernel="scCSC")

        for kernel in KERNELS:
            def unmasked():
                for _ in range(DEV_REPEAT):
                    spla.vxm(u, A, "plus_times", out=y, kernel=kernel)  # y = u +.* A
            ms, _ = device_ms(unmasked, f"{name} {kernel}")
            rec(name, f"product {kernel}", ms, close(y, ref), **facts)

            def masked():
                for _ in range(DEV_REPEAT):
                    spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel=kernel)  # y<m, r> = u +.* A
            ms, _ = device_ms(masked, f"{name} masked {kernel}")
            rec(name, f"masked90 {kernel}", ms, close(y, ref_m), **facts)

            def forward():
                z[...] = acc0
                for _ in range(DEV_REPEAT):
                    # z<!reached> += x +.first A  (DEV_REPEAT times: z grows, timed only)
                    spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=z, kernel=kernel)
            ms, _ = device_ms(forward, f"{name} forward {kernel}")
            z[...] = acc0
            spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=z, kernel=kernel)
            rec(name, f"bc forward step {kernel}", ms, close(z, ref_f), **facts)

        srcs = [int(s) for s in np.random.default_rng(1).choice(int(n), size=min(args.sources, int(n)),
                                                                 replace=False)]
        got = {}
        for kernel in KERNELS:
            times = []
            for s in srcs:
                times.append(wall_ms(lambda s=s: algorithms.betweenness_centrality(
                    A, sources=[s], normalized=False, kernel=kernel, batch_size=1), reps=5))
            got[kernel] = cp.asnumpy(algorithms.betweenness_centrality(A, sources=[srcs[0]], normalized=False,
                                                                       kernel=kernel, batch_size=1))
            ok = kernel == KERNELS[0] or np.allclose(got[kernel], got[KERNELS[0]], rtol=1e-9, atol=1e-9)
            rec(name, f"bc single {kernel}", statistics.median(times), ok, **facts)
        pr = {}
        for kernel in KERNELS:
            ms = wall_ms(lambda: algorithms.pagerank(A, kernel=kernel), reps=5)
            pr[kernel] = cp.asnumpy(algorithms.pagerank(A, kernel=kernel))
            ok = kernel == KERNELS[0] or np.allclose(pr[kernel], pr[KERNELS[0]], rtol=1e-5, atol=1e-9)
            rec(name, f"pagerank {kernel}", ms, ok, **facts)
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_small.json", rows)


if __name__ == "__main__":
    main()
