"""The kernels of one 90%-masked product (scCSC tiles) or one k = 32 block product, for Nsight Compute.

    ncu --clock-control none --cache-control none -k regex:spla_ --csv --metrics gpu__time_duration.sum \
        python3 tools/probe_masked_kernels.py [--block] myc16 ba2M_m4

Builds each graph, then runs the benchmark's masked product (mask keeping 10% of the columns, rng seed 0,
replace into out), or with --block the k = 32 float32 block product (veCSC, into out), three times; ncu
lists each launch with its duration.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp
import numpy as np

import spla
from benchmarks import graphs

block = "--block" in sys.argv[1:]
for name in [a for a in sys.argv[1:] if not a.startswith("--")]:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    rng = np.random.default_rng(0)
    if block:
        U = cp.asarray(rng.random((int(A.shape[0]), 32), dtype=np.float32))
        Y = cp.empty((int(A.shape[1]), 32), dtype=np.float32)
        for _ in range(3):
            # Y = U +.* A
            spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")
    else:
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        mask = cp.asarray(rng.random(int(A.shape[1])) < 0.10)
        y = cp.empty(int(A.shape[1]), dtype=np.float32)
        for _ in range(3):
            # y<mask, replace> = u +.* A
            spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel="scCSC")
    cp.cuda.Device().synchronize()
    print(f"# {name} done", flush=True)
