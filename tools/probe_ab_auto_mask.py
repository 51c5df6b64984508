"""The callers of ``kernel="auto"`` with a mask, timed for two trees run one after the other.

    PYTHONPATH=<tree> python3 tools/probe_ab_auto_mask.py LABEL OUT.json graph [graph ...]

Per graph (benchmarks' generator and cache): ``spla.vxm(u, A, "plus_times", mask=m, replace=True,
out=y)`` by "auto" with random masks keeping 100%, 50% and 10% of the columns, in device time (16
products recorded as one CUDA graph by spla.Replay, per product); ``algorithms.bfs_levels`` from 4
fixed sources in wall time between CUDA events (median after warm-up; single-source betweenness has
its own A/B in tools/probe_bc_direction.py); the kernel "auto" picks for each mask kind.  Results are appended to
OUT.json as {label: {graph: {measure: value}}}; the first source's BFS levels and betweenness are
saved under /tmp/probe_ab_auto_mask and compared with every earlier label's (equal_to_LABEL).  Alternate the trees in one call on one
machine: sub-millisecond wall times drift between runs.
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

REPEAT = 16  # products per replayed step
SAVED = Path("/tmp/probe_ab_auto_mask")  # the first source's results per label and graph
label, out_path, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
res = json.loads(out_path.read_text()) if out_path.exists() else {}
mine = res.setdefault(label, {})
for name in names:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    rng = np.random.default_rng(0)
    u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
    draw = cp.asarray(rng.random(int(A.shape[1])))
    y = cp.empty(int(A.shape[1]), dtype=np.float32)
    deg = np.bincount(np.asarray(src), minlength=n)
    sources = [int(s) for s in rng.choice(np.flatnonzero(deg > 0), 5, replace=False)]
    row = mine.setdefault(name, {})
    for masked in (True, "dense", "sparse"):
        try:
            row[f"choice_{masked}"] = spla.choose_kernel(A, masked=masked)[0]
        except ValueError:  # a tree without masked="dense"
            row[f"choice_{masked}"] = None
    for p in (1.0, 0.5, 0.1):
        mask = draw < p

        def step(mask=mask):
            for _ in range(REPEAT):
                # y<mask, replace> = u +.* A
                spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y)
        rep = spla.Replay(step, A.device, name=f"masked {p} auto")
        rep()
        rep()  # warm-up, then recorded: the timed calls replay the graph (device time)
        row[f"masked{p:g}_auto_dev"] = gpu_time(rep, warmup=2, repeat=15)["median_ms"] / REPEAT
    row["bfs_4_sources"] = gpu_time(lambda: [algorithms.bfs_levels(A, s) for s in sources[:4]],
                                    warmup=2, repeat=10)["median_ms"] / 4
    levels = np.asarray(algorithms.bfs_levels(A, sources[0]))
    bc = np.asarray(algorithms.betweenness_centrality(A, sources=[sources[0]], normalized=False, batch_size=1))
    SAVED.mkdir(exist_ok=True)
    for other in sorted(SAVED.glob(f"*.{name}.npz")):  # another tree's (or run's) results on this graph
        z = np.load(other)
        row[f"equal_to_{other.name.split('.')[0]}"] = bool(np.array_equal(z["levels"], levels) and np.allclose(
            z["bc"], bc, rtol=1e-9, atol=1e-9 * (1 + np.abs(bc).max(initial=0))))
    np.savez(SAVED / f"{label}.{name}.npz", levels=levels, bc=bc)
    print(label, name, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
    A = None
    cp.get_default_memory_pool().free_all_blocks()
out_path.write_text(json.dumps(res, indent=1))
