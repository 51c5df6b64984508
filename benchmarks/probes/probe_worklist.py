"""Single-source betweenness with the mask worklist off, on and by its rule, side by side in one process.

    PYTHONPATH=. python3 tools/probe_worklist.py [graph ...]

For each graph: a fresh Matrix per setting (the single-source workspace and its recorded CUDA
graphs are cached on the matrix, so each setting records its own), the same five sources, CUDA-event
medians of ``betweenness_centrality(A, sources=[s], batch_size=1, kernel=K)`` for auto, scCSC,
veCSC and scCOOC after two warm-up calls; prints one line per (graph, kernel) and writes JSON to
$OUT/probe_worklist.json when OUT is set.
"""
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp
import numpy as np

from spla import algorithms
import spla
from benchmarks import graphs
from spla.backends import gpu as gpu_backend

names = sys.argv[1:] or ["myc15", "kron18", "ws100k", "ba1M_m4", "grid400", "kron20", "myc16"]
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
            gpu_backend.MASK_WORKLIST = flag
            A = mats[flag]
            times = []
            for s in sources:
                f = lambda: algorithms.betweenness_centrality(A, sources=[int(s)], normalized=False,
                                                              batch_size=1, kernel=kern)
                f(); f()
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                t = []
                for _ in range(3):
                    e0.record(); f(); e1.record(); e1.synchronize()
                    t.append(cp.cuda.get_elapsed_time(e0, e1))
                times.append(min(t))
            res[flag] = statistics.median(times)
        ref = algorithms.betweenness_centrality(mats[False], sources=[int(sources[0])], normalized=False,
                                                batch_size=1, kernel=kern)
        gpu_backend.MASK_WORKLIST = True
        got = algorithms.betweenness_centrality(mats[True], sources=[int(sources[0])], normalized=False,
                                                batch_size=1, kernel=kern)
        same = bool(np.allclose(ref, got, rtol=1e-9, atol=0))
        gpu_backend.MASK_WORKLIST = "auto"
        rows.append({"graph": name, "kernel": kern, "column_walk_ms": res[False], "worklist_ms": res[True],
                     "rule_ms": res["auto"], "same": same})
        print(f"{name:10s} {kern:7s} column walk {res[False]:8.3f} ms  worklist {res[True]:8.3f} ms  "
              f"rule {res['auto']:8.3f} ms  equal={same}", flush=True)
    del mats
    cp.get_default_memory_pool().free_all_blocks()
if os.environ.get("OUT"):
    Path(os.environ["OUT"], "probe_worklist.json").write_text(json.dumps(rows, indent=1))
