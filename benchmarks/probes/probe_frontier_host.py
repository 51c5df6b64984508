"""How much of sparse-frontier betweenness is host time in spla.frontier's per-call checks: the
measurement behind checking every spla.frontier.push / pull call at the door.

    PYTHONPATH=. python -m benchmarks.probes.probe_frontier_host --graphs-dir DIR

Times all-sources betweenness (warm, median of 3, synchronised) as it is, with
``spla.frontier._check`` reduced to returning k (no checks), and with push/pull calling the
backend directly (no wrapper at all).  Also counts the calls and the host time spent in them.
"""
import argparse
import statistics
import time
from pathlib import Path

import spla.frontier as fr
from spla import algorithms
from spla.backends import for_device
from spla.io import read_graph

FILES = ["suitesparse_dimacs10/delaunay_n16.mtx.gz", "suitesparse_dimacs10/3elt.mtx.gz",
         "suitesparse_dimacs10/delaunay_n15.mtx.gz"]

calls = {"n": 0, "s": 0.0}


def timed(fn):
    def wrap(*args, **kw):
        t = time.perf_counter()
        fn(*args, **kw)
        calls["s"] += time.perf_counter() - t
        calls["n"] += 1
    return wrap


def fast_check(A, queue, depth, block, start, count, top=None):
    return block.shape[1]


def direct_push(A, queue, depth, block, start, count, top):
    for_device(A.device).frontier_push(A, queue, int(depth), block.shape[1], block, start, count, top)


def direct_pull(A, queue, depth, block, start, count, out, *, scale=None, feed=False, divide=False):
    for_device(A.device).frontier_pull(A, queue, int(depth), block.shape[1], block, start, count, out, scale,
                                       bool(feed), bool(divide))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs-dir", required=True)
    a = ap.parse_args()
    import cupy as cp

    orig_check, orig_push, orig_pull = fr._check, fr.push, fr.pull
    for f in FILES:
        g = read_graph(str(Path(a.graphs_dir) / f))
        A = g.to_matrix(device="gpu", drop_self_loops=True, weighted=False)
        ref = algorithms.betweenness_centrality(A)
        for name, check, push, pull in (("as is", orig_check, orig_push, orig_pull),
                                        ("no checks", fast_check, orig_push, orig_pull),
                                        ("direct", fast_check, direct_push, direct_pull),
                                        ("as is", orig_check, orig_push, orig_pull)):
            # spla.frontier's functions replaced for the measurement (instrumentation, not tunables)
            fr._check, fr.push, fr.pull = check, timed(push), timed(pull)
            ts = []
            for _ in range(3):
                calls.update(n=0, s=0.0)
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                bc = algorithms.betweenness_centrality(A)
                cp.cuda.Device().synchronize()
                ts.append(time.perf_counter() - t)
            err = float(abs(bc - ref).max())
            print(f"{Path(f).name:26s} n={A.shape[0]:7d} arcs={A.nnz:8d} {name:10s} median {statistics.median(ts):.3f} s "
                  f"({' '.join(f'{t:.3f}' for t in ts)}); {calls['n']} push/pull calls, {calls['s']:.3f} s host in them, "
                  f"{calls['s'] / max(calls['n'], 1) * 1e6:.1f} us each; max diff {err:.1e}", flush=True)
        fr._check, fr.push, fr.pull = orig_check, orig_push, orig_pull


if __name__ == "__main__":
    main()
