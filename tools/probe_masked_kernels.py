"""The kernels of one 90%-masked product (scCSC tiles), for Nsight Compute.

    ncu --clock-control none --cache-control none -k regex:spla_ --csv --metrics gpu__time_duration.sum \
        python3 tools/probe_masked_kernels.py myc16 ba2M_m4

Builds each graph, then runs the benchmark's masked product (mask keeping 10% of the columns, rng seed 0,
replace into out) three times; ncu lists each launch with its duration.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp
import numpy as np

import spla
from benchmarks import graphs

for name in sys.argv[1:]:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    rng = np.random.default_rng(0)
    u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
    mask = cp.asarray(rng.random(int(A.shape[1])) < 0.10)
    y = cp.empty(int(A.shape[1]), dtype=np.float32)
    for _ in range(3):
        # y<mask, replace> = u +.* A
        spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel="scCSC")
    cp.cuda.Device().synchronize()
    print(f"# {name} done", flush=True)
