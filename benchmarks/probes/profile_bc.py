"""Where single-source betweenness spends its time on the device (host-side profile).

    PYTHONPATH=. python3 tools/profile_bc.py
"""
import cProfile
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pstats
import time

import numpy as np

from spla import algorithms
import spla
from benchmarks import graphs

for name in ("ws100k", "grid400"):
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    algorithms.betweenness_centrality(A, sources=[0], kernel="scCSC")  # warm-up / compile
    import cupy as cp
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    algorithms.betweenness_centrality(A, sources=[0], kernel="scCSC")
    cp.cuda.Device().synchronize()
    dt = time.perf_counter() - t
    depth = int(algorithms.bfs_levels(A, 0).max())
    print(f"{name}: {dt * 1e3:.2f} ms, depth {depth}, {dt / (2 * depth) * 1e6:.1f} us per level step")
    prof = cProfile.Profile()
    prof.enable()
    algorithms.betweenness_centrality(A, sources=[0], kernel="scCSC")
    cp.cuda.Device().synchronize()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(22)
