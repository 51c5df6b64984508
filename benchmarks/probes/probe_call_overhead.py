"""Host time of one engine call and of single-source betweenness, for comparing two engine trees
side by side (wall clock; these calls are bound by the host on small graphs).

    PYTHONPATH=. python -m benchmarks.probes.probe_call_overhead GRAPH LABEL [--reps 2000] [--sources 40]
    PYTHONPATH=<tree> python <this tree>/benchmarks/probes/probe_call_overhead.py GRAPH LABEL [...]

Run it on each tree (the second form for another tree, e.g. an older commit unpacked with ``git
archive``: spla and benchmarks.graphs come from <tree>), alternating, in one device call.  Prints one
line:
the mean host time of ``spla.vxm(u, A, "plus_times")`` unmasked and with a 10% mask (u holds 1 at
every 7th vertex, float64), and the median wall time of ``betweenness_centrality(A, sources=[s])``
over ``--sources`` evenly spread sources.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import spla
from benchmarks import graphs
from spla import algorithms


def host_us(fn, reps):
    """Mean wall time of fn() in µs over ``reps`` calls, after 20 warm-up calls, device synchronised."""
    import cupy as cp

    for _ in range(20):
        fn()
    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - start) / reps * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph")
    ap.add_argument("label")
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--sources", type=int, default=40)
    args = ap.parse_args()
    import cupy as cp

    (src, dst, n, directed), _ = graphs.load_edges(args.graph)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    u = cp.zeros(n, dtype=np.float64)
    u[::7] = 1.0
    mask = cp.asarray(np.random.default_rng(0).random(n) < 0.1)
    plain = host_us(lambda: spla.vxm(u, A, "plus_times"), args.reps)            # y = u +.* A
    masked = host_us(lambda: spla.vxm(u, A, "plus_times", mask=mask), args.reps)  # y<mask> = u +.* A
    sources = list(range(0, n, max(1, n // args.sources)))[:args.sources]
    for s in sources[:3]:
        algorithms.betweenness_centrality(A, sources=[s])
    times = []
    for s in sources:
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        algorithms.betweenness_centrality(A, sources=[s])
        times.append(time.perf_counter() - start)
    print(f"{args.label} {args.graph} vxm {plain:.1f} us, masked vxm {masked:.1f} us, "
          f"bc per source median {statistics.median(times) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
