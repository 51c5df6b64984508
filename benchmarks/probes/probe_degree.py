"""The k = 1 kernels against the mean column length on graphs without hubs (device time).

    PYTHONPATH=. python -m benchmarks.probes.probe_degree [--arcs M] [--degrees 10,20,...] [--p 0.1,1.0]
        [--graphs a,b,...] [--out DIR]

For each degree d and rewiring probability p: a Watts-Strogatz graph (benchmarks.graphs.watts_strogatz)
of about M arcs (n = M / d vertices, every column about d entries, no hubs; p = 0.1 keeps most
neighbours near each other, p = 1.0 scatters them), and its unmasked plus_times float32 product
y = u +.* A through scCSC, scCOOC, veCSC at every group size (the tunable vecsc_group = 2 .. 32; the
engine's own choice, vecsc_group=None, follows vecsc_lane_entries) and "auto", in device time
(probe_products.device_ms), each checked against scCSC.  Beside them: the scale-free metric and choose_kernel's pick.  This is
where the selection rule's veCSC threshold meets graphs whose metric is high only because their
degree is (scf = d^2 for a d-regular graph).  --graphs adds graphs of the benchmark registry
(benchmarks.graphs).  For every graph also the benchmark's 90%-masked product (a random tenth of the
columns kept, rng seed 0, written into out with replace) through veCSC at every group size and "auto".
--degrees "" measures only --graphs.  JSON to DIR/probe_degree.json.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, masked_inputs, recorder, save_json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arcs", type=float, default=20e6)
    ap.add_argument("--degrees", default="10,20,40,80,160,320")
    ap.add_argument("--p", default="0.1,1.0")
    ap.add_argument("--graphs", default="")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    rows = []
    rec = recorder(rows, 24)
    cases = [(f"ws d={d} p={p:g}", d, p) for p in (float(x) for x in args.p.split(","))
             for d in (int(x) for x in args.degrees.split(",") if x)]
    cases += [(g, None, None) for g in args.graphs.split(",") if g]
    for name, d, p in cases:
        if d is None:
            (src, dst, n, directed), _ = graphs.load_edges(name)
        else:
            src, dst, n, directed = graphs.watts_strogatz(int(args.arcs) // d, d, p, seed=1)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        del src, dst
        mean = A.nnz / max(1, A.shape[1])  # the mean column length
        t0 = time.perf_counter()
        scf = spla.scale_free_metric(A)
        pick = spla.choose_kernel(A)[0]
        print(f"# {name}: n={n} arcs={A.nnz} scf={scf:.4g} choose_kernel={pick} "
              f"({time.perf_counter() - t0:.2f} s)", flush=True)
        u, mask = masked_inputs(A)
        y = cp.empty(int(A.shape[1]), dtype=np.float32)
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        ref_m = cp.where(mask, ref, 0)

        def k1(kernel, label, m=None):
            """The k = 1 product under the tunables in force (callers change them with override)."""
            def step():
                for _ in range(DEV_REPEAT):
                    # y<m, replace> = u +.* A   (y = u +.* A without a mask)
                    spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y, kernel=kernel)
            y.fill(7)
            ms, _ = device_ms(step, f"{name} {label}")
            ok = close(y, ref if m is None else ref_m)
            rec(name, label, ms, ok, mean=round(mean, 2), p=p, n=n, arcs=int(A.nnz), scf=scf, pick=pick)

        for kernel in ("scCSC", "scCOOC", "auto"):
            k1(kernel, kernel)
        for g in (2, 4, 8, 16, 32):
            with spla.tuning.override(vecsc_group=g):
                k1("veCSC", f"veCSC G={g}")
        k1("auto", "masked auto", mask)
        for g in (2, 4, 8, 16, 32):
            with spla.tuning.override(vecsc_group=g):
                k1("veCSC", f"masked veCSC G={g}", mask)
    save_json(args.out, "probe_degree.json", rows)


if __name__ == "__main__":
    main()
