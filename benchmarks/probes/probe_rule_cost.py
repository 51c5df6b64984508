"""Cost of frontier="auto"'s sample BFS on small graphs: all-sources betweenness with the rule against
frontier="dense", the rule alone, and a one-source sample (median of 15, synchronised wall time).
The tunable reach_sample (the sources the rule samples) rests on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_rule_cost [graph ...]
"""
import statistics
import sys
import time

import numpy as np

import spla
from benchmarks import graphs
from spla import algorithms


def main():
    import cupy as cp

    from spla.algorithms import betweenness_sparse as betweenness  # private: sample_reach, use_sparse_frontier, locality_order

    def t(fn, reps=15):
        fn()
        cp.cuda.Device().synchronize()
        ts = []
        for _ in range(reps):
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            fn()
            cp.cuda.Device().synchronize()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e3

    for name in sys.argv[1:] or ["myc12", "ba20k_m4"]:
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        P = A.pattern()
        print(name, "auto %.2f ms" % t(lambda: algorithms.betweenness_centrality(A)),
              "dense %.2f ms" % t(lambda: algorithms.betweenness_centrality(A, frontier="dense")),
              "rule %.2f ms" % t(lambda: betweenness.use_sparse_frontier(P, np.arange(n))),
              "sample_reach k=1 %.2f ms" % t(lambda: betweenness.sample_reach(P, [0])), flush=True)


if __name__ == "__main__":
    main()
