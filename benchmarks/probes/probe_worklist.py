"""Single-source betweenness with the mask worklist off, on and by its rule, side by side in one process.
The tunables mask_worklist, worklist_min_waves and worklist_skip_empty rest on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_worklist [graph ...]

For each graph: a fresh Matrix per setting of mask_worklist (the single-source workspace and its
recorded CUDA graphs are cached on the matrix, so each setting records its own), the same five
sources, CUDA-event medians of ``betweenness_centrality(A, sources=[s], batch_size=1, kernel=K)``
for auto, scCSC and veCSC after two warm-up calls; the first source's result with the worklist off
and on compared; prints one line per (graph, kernel) and writes JSON to $OUT/probe_worklist.json
when OUT is set.
"""
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

import spla
from benchmarks import graphs
from spla import algorithms

GRAPHS = ["myc15", "kron18", "ws100k", "ba1M_m4", "grid400", "kron20", "myc16"]


def main():
    import cupy as cp

    names = sys.argv[1:] or GRAPHS
    rows = []
    for name in names:
        (src, dst, n, directed), _ = graphs.load_edges(name)
        rng = np.random.default_rng(0)
        deg = np.bincount(np.asarray(src), minlength=n)
        sources = rng.choice(np.nonzero(deg)[0], 5, replace=False)
        mats = {}
        settings = (False, True, "auto")
        for flag in settings:
            mats[flag] = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        for kern in ("auto", "scCSC", "veCSC"):
            res = {}
            for flag in settings:
                A = mats[flag]
                times = []
                with spla.tuning.override(mask_worklist=flag):
                    for s in sources:
                        f = lambda: algorithms.betweenness_centrality(A, sources=[int(s)], normalized=False,  # noqa: E731
                                                                      batch_size=1, kernel=kern)
                        f()
                        f()
                        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                        t = []
                        for _ in range(3):
                            e0.record()
                            f()
                            e1.record()
                            e1.synchronize()
                            t.append(cp.cuda.get_elapsed_time(e0, e1))
                        times.append(min(t))
                res[flag] = statistics.median(times)
            with spla.tuning.override(mask_worklist=False):
                ref = algorithms.betweenness_centrality(mats[False], sources=[int(sources[0])], normalized=False,
                                                        batch_size=1, kernel=kern)
            with spla.tuning.override(mask_worklist=True):
                got = algorithms.betweenness_centrality(mats[True], sources=[int(sources[0])], normalized=False,
                                                        batch_size=1, kernel=kern)
            same = bool(np.allclose(ref, got, rtol=1e-9, atol=0))
            rows.append({"graph": name, "kernel": kern, "column_walk_ms": res[False], "worklist_ms": res[True],
                         "rule_ms": res["auto"], "same": same})
            print(f"{name:10s} {kern:7s} column walk {res[False]:8.3f} ms  worklist {res[True]:8.3f} ms  "
                  f"rule {res['auto']:8.3f} ms  equal={same}", flush=True)
        mats = None
        cp.get_default_memory_pool().free_all_blocks()
    if os.environ.get("OUT"):
        Path(os.environ["OUT"], "probe_worklist.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
