"""Cost of frontier="auto"'s sample BFS on small graphs: all-sources betweenness with the rule against
frontier="dense", the rule alone, and a one-source sample (H100, median of 15).

    PYTHONPATH=. python3 tools/probe_rule_cost.py
"""
import time, statistics, numpy as np, cupy as cp
import algorithms, spla
from spla.algorithms import betweenness as b
from spla.algorithms._common import pattern_of
from benchmarks import graphs
for name in ["myc12", "ba20k_m4"]:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    P = pattern_of(A)
    def t(fn, reps=15):
        fn(); cp.cuda.Device().synchronize()
        ts = []
        for _ in range(reps):
            cp.cuda.Device().synchronize(); t0 = time.perf_counter(); fn(); cp.cuda.Device().synchronize(); ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e3
    print(name, "auto %.2f ms" % t(lambda: algorithms.betweenness_centrality(A)),
          "dense %.2f ms" % t(lambda: algorithms.betweenness_centrality(A, frontier="dense")),
          "rule %.2f ms" % t(lambda: b._use_sparse_frontier(P, np.arange(n))),
          "sample_reach k=1 %.2f ms" % t(lambda: b._sample_reach(P, [0])), flush=True)
