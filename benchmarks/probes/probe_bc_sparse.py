"""All-sources betweenness with dense (n, k) blocks against sparse frontiers (spla.frontier), on the device.

    PYTHONPATH=. python -m benchmarks.probes.probe_bc_sparse --out DIR [--graphs a,b] [--sweep GRAPH]
        [--dense-max-s S]

* ``compare``: per graph, all-sources ``betweenness_centrality(A, kernel="auto")`` with
  frontier="dense" and frontier="sparse" (batch "auto"), wall time of one call after a warm-up
  call on 64 sources, peak pool bytes; the BFS depth from the first vertex with an arc; the two
  results compared (max relative difference).  The dense run is skipped where its expected
  time (SLOW_DENSE, seconds) exceeds --dense-max-s, and 256 sources are compared instead.
* ``sweep``: on one graph, the sparse path's all-sources time for batch sizes (sparse_max_batch's
  range) and lanes per entry (the tunable frontier_group), with and without the sources' locality
  order (``_locality_order`` replaced by the identity), on the graph and on a random relabelling.

Writes DIR/bc_sparse.json and prints a summary.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

GRAPHS = ["myc12", "ba20k_m4", "musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16", "grid400",
          "ws100k", "luxembourg_osm"]
#: graphs whose dense all-sources run takes about this many seconds or more
SLOW_DENSE = {"delaunay_n16": 20.0, "grid400": 60.0, "luxembourg_osm": 600.0, "ws100k": 30.0}


def load(name):
    import spla
    from benchmarks import graphs

    (src, dst, n, directed), _ = graphs.load_edges(name)
    return spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")


def timed(cp, fn):
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    t = time.perf_counter()
    out = fn()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t, out


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)) if a.size else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--sweep", default="delaunay_n16")
    ap.add_argument("--dense-max-s", type=float, default=10.0)
    args = ap.parse_args()
    import cupy as cp

    from spla import algorithms
    from spla.algorithms import betweenness_sparse as betweenness  # private: sample_reach, use_sparse_frontier, locality_order

    res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "compare": {}, "sweep": []}
    bc = algorithms.betweenness_centrality
    for name in [g for g in args.graphs.split(",") if g]:
        A = load(name)
        n = A.shape[0]
        first = int(np.flatnonzero(np.diff(A.colptr.get()) > 0)[0])
        rec = {"n": n, "arcs": A.nnz, "depth": betweenness.sample_reach(A.pattern(), [first])[0]}
        t = time.perf_counter()
        rec["auto_sparse"] = bool(betweenness.use_sparse_frontier(A.pattern(), np.arange(n)))
        rec["auto_rule_ms"] = 1e3 * (time.perf_counter() - t)
        S = list(range(min(64, n)))
        betweenness.locality_order(A.pattern(), np.arange(n), 512)  # compile min_first
        bc(A, sources=S, frontier="sparse")  # compile and warm
        bc(A, sources=S, frontier="dense")
        ts, xs = timed(cp, lambda: bc(A, frontier="sparse"))
        rec["sparse_s"] = ts
        rec["sparse_peak_mib"] = cp.get_default_memory_pool().total_bytes() / 2 ** 20
        if SLOW_DENSE.get(name, 0.0) <= args.dense_max_s:
            td, xd = timed(cp, lambda: bc(A, frontier="dense"))
            rec["dense_s"] = td
            rec["max_rel_diff"] = rel(xs, xd)
        else:
            S = list(range(0, n, max(1, n // 256)))[:256]
            a = bc(A, sources=S, frontier="sparse", normalized=False)
            b = bc(A, sources=S, frontier="dense", normalized=False)
            rec["max_rel_diff_256"] = rel(a, b)
        res["compare"][name] = rec
        print(name, json.dumps(rec), flush=True)
        A = None
        cp.get_default_memory_pool().free_all_blocks()
    if args.sweep:
        import spla

        A = load(args.sweep)
        n = A.shape[0]
        perm = np.random.default_rng(1).permutation(n)
        S = A.to_scipy().tocoo()
        shuffled = spla.Matrix.from_edges(perm[S.row], perm[S.col], n=n, directed=False, device="gpu")
        betweenness.locality_order(A.pattern(), np.arange(n), 512)  # compile min_first
        plain = betweenness.locality_order
        runs = [(A, True, 1, kb) for kb in (256, 512, 1024)] + [(A, True, 2, 512), (A, False, 1, 512),
                                                             (shuffled, True, 1, 512), (shuffled, False, 1, 512)]
        ref = None
        for M, ordered, G, kb in runs:
            betweenness.locality_order = plain if ordered else (lambda P, src, kb: src)
            with spla.tuning.override(frontier_group=G):
                ts, x = timed(cp, lambda: bc(M, frontier="sparse", batch_size=kb))
            if M is shuffled:
                x = x[perm]
            ref = x if ref is None else ref
            row = {"graph": "shuffled" if M is shuffled else args.sweep, "ordered": ordered, "group": G,
                   "batch": kb, "s": ts, "max_rel_diff": rel(x, ref),
                   "peak_mib": cp.get_default_memory_pool().total_bytes() / 2 ** 20}
            res["sweep"].append(row)
            print("sweep", json.dumps(row), flush=True)
        betweenness.locality_order = plain
    Path(args.out).mkdir(parents=True, exist_ok=True)
    Path(args.out, "bc_sparse.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
