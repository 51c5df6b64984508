"""Single-source betweenness against another tree, with and without its replayed plans; and the
device time of push against every pull kernel at every BFS level (the calibration of the tunables
push_cost and push_fixed_arcs, and of the direction rule spla.choose_kernel applies per level).

    PYTHONPATH=. python -m benchmarks.probes.probe_bc_direction --out DIR [--old TREE] [--graphs a,b]
        [--calibrate a,b]

* ``time``: per graph, ``betweenness_centrality(A, sources=[s], batch_size=1)`` for 5 sources (the
  benchmark's rule: seed 12345 among vertices with an arc), 2 warm-up and 10 timed calls each (CUDA
  events), median per source, median over sources.  Also, for this tree: the same with plans off
  (every source level by level), and one call with all 5 sources (batch_size=1) divided by 5.
  With ``--old TREE`` the same timing runs in a subprocess on the tree at TREE (e.g. ``git archive
  HEAD``), one after the other on the same device, and the first source's results are compared.
* ``calibrate``: per graph, the first source's BFS levels; for every forward level the product
  ``f<!reached, replace> = f +.first A`` and for every backward level ``T<level d-1> += A +.second c``,
  each by push and by every pull kernel (scCOOC, scCSC: warp tiles, veCSC): 8 products recorded as
  one CUDA graph (spla.Replay), replayed, time / 8; beside each level's push and pull arc counts and
  the kernel ``choose_kernel`` picks from them.

Writes DIR/bc_direction.json and prints a summary.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

GRAPHS = ["myc15", "myc16", "myc17", "kron18", "kron20", "kron21", "ws100k", "ba1M_m4", "grid400"]
CALIBRATE = ["myc16", "kron20", "ba1M_m4", "ws100k", "grid400"]
#: the kernels timed at every level of ``calibrate``
KERNELS = ("push", "scCOOC", "scCSC", "veCSC")


def sources_of(src, dst, n, k=5, seed=12345):
    deg = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    cand = np.flatnonzero(deg > 0)
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(cand, size=min(k, cand.size), replace=False)]


def gpu_ms(cp, fn, warmup=2, repeat=10):
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(times)


def load(name):
    import spla
    from benchmarks import graphs

    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    return A, sources_of(src, dst, n)


def time_tree(names, tag, resdir, new):
    """Timing of the spla/algorithms importable here; results of the first source saved for comparison."""
    import cupy as cp

    from spla import algorithms

    out = {}
    for name in names:
        A, srcs = load(name)
        rec = {"n": A.shape[0], "arcs": A.nnz, "sources": srcs}
        per = []
        for s in srcs:
            per.append(gpu_ms(cp, lambda: algorithms.betweenness_centrality(A, sources=[s], normalized=False,
                                                                            batch_size=1)))
        rec["per_source_ms"] = per
        rec["median_ms"] = statistics.median(per)
        res = algorithms.betweenness_centrality(A, sources=[srcs[0]], normalized=False, batch_size=1)
        np.save(resdir / f"{tag}_{name}.npy", res)
        if new:
            from spla.algorithms import betweenness_single

            ws = betweenness_single.workspace(A.pattern(), "auto")
            rec["plan"] = None if ws.plan is None else {"depth": ws.plan.depth, "forward": ws.plan.forward,
                                                        "backward": ws.plan.backward}
            rec["hits"], rec["misses"], rec["speculate"] = ws.hits, ws.misses, ws.speculate
            rec["whole_mode"] = None if ws.whole is None else ws.whole.mode
            steps = {**{f"fwd {k}": r for k, r in ws._forward.items()}, **{f"bwd {k}": r for k, r in ws._backward.items()},
                     "between": ws.between, "whole": ws.whole}
            rec["replay_modes"] = {name: r.mode for name, r in steps.items() if r is not None}
            rec["batch5_per_source_ms"] = gpu_ms(cp, lambda: algorithms.betweenness_centrality(
                A, sources=srcs, normalized=False, batch_size=1), warmup=1, repeat=5) / len(srcs)
            # the replayed run without the call (graphs walked level by level have no whole-plan replay)
            rec["plan_only_ms"] = gpu_ms(cp, lambda: ws.run_plan(srcs[0])) if ws.whole is not None else float("nan")
            ws.speculate = False
            per = [gpu_ms(cp, lambda: algorithms.betweenness_centrality(A, sources=[s], normalized=False,
                                                                       batch_size=1)) for s in srcs]
            rec["levels_only_median_ms"] = statistics.median(per)
            ws.speculate = True
        out[name] = rec
        print(f"[{tag}] {name}: median {rec['median_ms']:.3f} ms per source" +
              (f"; plan depth {rec['plan']['depth'] if rec['plan'] else None} hits {rec['hits']} misses "
               f"{rec['misses']} graph={rec['whole_mode']}; levels only {rec['levels_only_median_ms']:.3f} ms; "
               f"5-source call {rec['batch5_per_source_ms']:.3f} ms/source; plan alone {rec['plan_only_ms']:.3f} ms; modes {sorted(set(rec['replay_modes'].values()))}"
               if new else ""), flush=True)
        A = None  # free the matrix before the next graph
        cp.get_default_memory_pool().free_all_blocks()
    return out


def calibrate(names):
    import cupy as cp

    from spla import algorithms
    import spla

    out = {}
    for name in names:
        A, srcs = load(name)
        s = srcs[0]
        level = cp.asarray(algorithms.bfs_levels(A, s))
        depth = int(level.max())
        in_deg = A.in_degree().astype(np.float64)
        out_deg = A.out_degree().astype(np.float64)
        dst = cp.zeros(A.shape[0])
        T = cp.zeros(A.shape[0])
        rows = []
        step = max(1, (depth + 1) // 40)  # at most ~40 levels each way
        for d in list(range(1, depth + 2, step)):
            f = (level == d - 1).astype(np.float64)
            reached = (level >= 0) & (level < d)
            push = float(out_deg[level == d - 1].sum())
            pull = float(in_deg[~reached].sum())
            row = {"phase": "forward", "d": d, "push_arcs": push, "pull_arcs": pull,
                   "chosen": spla.choose_kernel(A, masked=True, push_arcs=push, pull_arcs=pull)[0]}
            for kern in KERNELS:
                def prod(kern=kern):
                    for _ in range(8):
                        spla.vxm(f, A, "plus_first", mask=reached, complement=True, out=dst, replace=True,
                                 kernel=kern)
                rp = spla.Replay(prod, A.device, name="probe")
                row[kern + "_us"] = gpu_ms(cp, rp, warmup=3, repeat=10) / 8 * 1e3
            rows.append(row)
        for d in list(range(depth, 0, -step)):
            c = (level == d).astype(np.float64)
            below = level == d - 1
            push = float(in_deg[level == d].sum())
            pull = float(out_deg[level == d - 1].sum())
            row = {"phase": "backward", "d": d, "push_arcs": push, "pull_arcs": pull,
                   "chosen": spla.choose_kernel(A.T, masked=True, push_arcs=push, pull_arcs=pull)[0]}
            for kern in KERNELS:
                def prod(kern=kern):
                    for _ in range(8):
                        spla.mxv(A, c, "plus_second", mask=below, accum="plus", out=T, kernel=kern)
                rp = spla.Replay(prod, A.device, name="probe")
                row[kern + "_us"] = gpu_ms(cp, rp, warmup=3, repeat=10) / 8 * 1e3
            rows.append(row)
        out[name] = {"n": A.shape[0], "arcs": A.nnz, "source": s, "depth": depth, "levels": rows}
        for r in rows:
            times = " ".join(f"{kern} {r[kern + '_us']:8.1f}" for kern in KERNELS)
            print(f"  {name} {r['phase'][:3]} d={r['d']:4d} push {r['push_arcs']:12.0f} arcs, pull {r['pull_arcs']:12.0f} "
                  f"arcs; us: {times} -> {r['chosen']}", flush=True)
        A = None  # free the matrix before the next graph
        cp.get_default_memory_pool().free_all_blocks()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--old", default=None)
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--calibrate", default=",".join(CALIBRATE))
    ap.add_argument("--tag", default=None, help=argparse.SUPPRESS)  # the subprocess on the old tree
    args = ap.parse_args()
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    resdir = Path("/tmp/bc_direction_results")
    resdir.mkdir(exist_ok=True)
    names = [g for g in args.graphs.split(",") if g]
    if args.tag == "old":
        json.dump(time_tree(names, "old", resdir, new=False), open(outdir / "old.json", "w"))
        return
    report = {}
    if args.old:
        t = time.time()
        env = dict(os.environ, PYTHONPATH=str(Path(args.old).resolve()) + ":" + str(Path.cwd()))
        env.setdefault("SPLA_GRAPHS", str(Path.cwd() / "benchmarks" / "data" / "graphs"))  # staged real graphs
        # the old tree first on PYTHONPATH: its spla/algorithms; benchmarks.graphs from either
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--out", str(outdir.resolve()), "--graphs",
                        ",".join(names), "--tag", "old"], env=env, check=False, cwd=args.old)
        report["old"] = json.load(open(outdir / "old.json")) if (outdir / "old.json").exists() else None
        print(f"old tree timed in {time.time() - t:.0f} s", flush=True)
    report["new"] = time_tree(names, "new", resdir, new=True)
    if report.get("old"):
        for name in names:
            a, b = resdir / f"old_{name}.npy", resdir / f"new_{name}.npy"
            if a.exists() and b.exists():
                x, y = np.load(a), np.load(b)
                ok = bool(np.allclose(x, y, rtol=1e-9, atol=1e-9 * (1 + np.abs(x).max())))
                report["new"][name]["equal_to_old"] = ok
                o, nw = report["old"][name]["median_ms"], report["new"][name]["median_ms"]
                print(f"{name}: old {o:.3f} ms, new {nw:.3f} ms ({o / nw:.2f}x), equal results: {ok}", flush=True)
    report["calibrate"] = calibrate([g for g in args.calibrate.split(",") if g])
    json.dump(report, open(outdir / "bc_direction.json", "w"), indent=1, default=str)


if __name__ == "__main__":
    main()
