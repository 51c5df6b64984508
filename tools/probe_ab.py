"""Side-by-side timings of the paths a change may touch, for two trees run one after the other.

    PYTHONPATH=<tree> python3 tools/probe_ab.py LABEL OUT.json graph [graph ...]

Per graph (benchmarks' generator and cache): the 90%-masked product, scCSC (tiles) and veCSC, in
device time (20 products recorded as one CUDA graph by spla.Replay, per product), and single-source
betweenness (auto) from 8 fixed sources, which reads a level count to the host every level
(HostCopy), in wall time between CUDA events.  Medians after warm-up; results appended to OUT.json
as {label: {graph: {measure: ms}}}.  Compare the labels' medians in one call on one machine, and
alternate the trees: sub-millisecond wall times drift by tens of percent between runs.
"""
import json
import sys
from pathlib import Path

import cupy as cp
import numpy as np

import algorithms
import spla
from benchmarks import graphs
from benchmarks.timing import gpu_time

REPEAT = 20  # products per replayed step
label, out_path, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
res = json.loads(out_path.read_text()) if out_path.exists() else {}
mine = res.setdefault(label, {})
for name in names:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    rng = np.random.default_rng(0)
    u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
    mask = cp.asarray(rng.random(int(A.shape[1])) < 0.10)
    y = cp.empty(int(A.shape[1]), dtype=np.float32)
    sources = [int(s) for s in rng.choice(int(A.shape[0]), 8, replace=False)]
    row = mine.setdefault(name, {})

    def masked(kernel):
        def step():
            for _ in range(REPEAT):
                # y<mask, replace> = u +.* A
                spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel=kernel)
        return step

    for kernel in ("scCSC", "veCSC"):
        rep = spla.Replay(masked(kernel), A.device, name=f"masked90 {kernel}")
        rep()
        rep()  # warm-up, then recorded: the timed calls replay the graph (device time, no launch overhead)
        row[f"masked90_{kernel}_dev"] = gpu_time(rep, warmup=2, repeat=20)["median_ms"] / REPEAT
    row["bc_8_sources"] = gpu_time(lambda: [algorithms.betweenness_centrality(A, sources=[s], normalized=False)
                                            for s in sources], warmup=1, repeat=5)["median_ms"]
    print(label, name, row, flush=True)
    out_path.write_text(json.dumps(res, indent=1))
    A = u = mask = y = rep = None  # free the graph before the next one
    cp.get_default_memory_pool().free_all_blocks()
