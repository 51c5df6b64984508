"""Side-by-side timings of the paths a change may touch, for two trees run one after the other.

    PYTHONPATH=. python -m benchmarks.probes.probe_ab LABEL OUT.json graph [graph ...]
    PYTHONPATH=<tree> python <this tree>/benchmarks/probes/probe_ab.py LABEL OUT.json graph [...]

The second form times the engine of another tree (spla and benchmarks.graphs from <tree>, which
need not hold this probe).  Per graph (benchmarks' generator and cache), in device time (20
products recorded as one CUDA graph by spla.Replay, per product): the 90%-masked product by scCSC
(tiles) and veCSC, and by "auto" with random masks keeping 100%, 50% and 10% of the columns; in
wall time between CUDA events: single-source betweenness (auto) from 8 fixed sources and
``algorithms.bfs_levels`` from 4 of them, both reading a level count to the host every level.  Also
the kernel ``choose_kernel`` picks for each mask hint (None where the tree lacks the hint).  Medians
after warm-up; results appended to OUT.json as {label: {graph: {measure: value}}}.  The first
source's BFS levels and betweenness are kept under /tmp/probe_ab and compared with every earlier
label's (``equal_to_LABEL``).  Compare the labels' medians in one call on one machine, and alternate
the trees: sub-millisecond wall times drift between runs.
"""
import json
import sys
from pathlib import Path

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.timing import gpu_time
from spla import algorithms

REPEAT = 20  # products per replayed step
SAVED = Path("/tmp/probe_ab")  # the first source's results per label and graph


def main():
    import cupy as cp

    label, out_path, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    res = json.loads(out_path.read_text()) if out_path.exists() else {}
    mine = res.setdefault(label, {})
    for name in names:
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        rng = np.random.default_rng(0)
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        draw = rng.random(int(A.shape[1]))
        y = cp.empty(int(A.shape[1]), dtype=np.float32)
        sources = [int(s) for s in rng.choice(int(A.shape[0]), 8, replace=False)]
        row = mine.setdefault(name, {})
        for hint in (True, "dense", "sparse"):
            try:
                row[f"choice_{hint}"] = spla.choose_kernel(A, masked=hint)[0]
            except ValueError:  # a tree without this hint
                row[f"choice_{hint}"] = None

        def masked(kernel, mask):
            def step():
                for _ in range(REPEAT):
                    # y<mask, replace> = u +.* A
                    spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel=kernel)
            return step

        cases = [(f"masked90_{kernel}_dev", kernel, 0.10) for kernel in ("scCSC", "veCSC")]
        cases += [(f"masked{p:g}_auto_dev", "auto", p) for p in (1.0, 0.5, 0.1)]
        for measure, kernel, keep in cases:
            rep = spla.Replay(masked(kernel, cp.asarray(draw < keep)), A.device, name=f"{measure}")
            rep()
            rep()  # warm-up, then recorded: the timed calls replay the graph (device time, no launch overhead)
            row[measure] = gpu_time(rep, warmup=2, repeat=20)["median_ms"] / REPEAT
        row["bc_8_sources"] = gpu_time(lambda: [algorithms.betweenness_centrality(A, sources=[s], normalized=False)
                                                for s in sources], warmup=1, repeat=5)["median_ms"]
        row["bfs_4_sources"] = gpu_time(lambda: [algorithms.bfs_levels(A, s) for s in sources[:4]],
                                        warmup=2, repeat=10)["median_ms"] / 4
        levels = np.asarray(algorithms.bfs_levels(A, sources[0]))
        bc = np.asarray(algorithms.betweenness_centrality(A, sources=[sources[0]], normalized=False))
        SAVED.mkdir(exist_ok=True)
        for other in sorted(SAVED.glob(f"*.{name}.npz")):  # another tree's (or run's) results on this graph
            z = np.load(other)
            row[f"equal_to_{other.name.split('.')[0]}"] = bool(np.array_equal(z["levels"], levels) and np.allclose(
                z["bc"], bc, rtol=1e-9, atol=1e-9 * (1 + np.abs(bc).max(initial=0))))
        np.savez(SAVED / f"{label}.{name}.npz", levels=levels, bc=bc)
        print(label, name, row, flush=True)
        out_path.write_text(json.dumps(res, indent=1))
        A = u = y = rep = None  # free the graph before the next one
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
