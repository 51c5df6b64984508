"""Where the first call of all-sources betweenness spends the time a repeat call does not: the
measurement behind growing no pool and loading no kernels ahead of a call, and behind answering "is
this a networkx graph?" without importing networkx (spla.algorithms).

    PYTHONPATH=. python -m benchmarks.probes.probe_first_call --graphs-dir DIR --out OUT.json [--files a,b]
        [--modes cold,pool,kernels,both]

Each (graph, mode) runs in a fresh process, the way the CLI does: read the file, build the matrix,
then time three calls of ``algorithms.betweenness_centrality`` (synchronised wall time).  Modes:

* cold:    nothing before the first call;
* pool:    CuPy's default pool grown first (one allocation of the size a cold first call leaves
           in the pool, freed: later allocations are split from it);
* kernels: every kernel the call uses loaded first (a call with 64 sources on the same matrix);
* both:    pool and kernels.

The cold process also counts cudaMalloc calls and their host time (a timing allocator under the
pool) and prints a cProfile of the first call.
"""
import argparse
import cProfile
import io
import json
import pstats
import subprocess
import sys
import time
from pathlib import Path

FILES = ["snap/Email-Enron.txt.gz", "snap/ca-AstroPh.txt.gz", "suitesparse_dimacs10/delaunay_n16.mtx.gz"]


def worker(path, mode, pool_bytes):
    t_start = time.perf_counter()
    import cupy as cp

    from spla import algorithms
    from spla.io import read_graph

    stats = {"mallocs": 0, "malloc_s": 0.0, "malloc_bytes": 0}

    def timed_alloc(size):
        t = time.perf_counter()
        mem = cp.cuda.memory.Memory(size)
        stats["malloc_s"] += time.perf_counter() - t
        stats["mallocs"] += 1
        stats["malloc_bytes"] += size
        return cp.cuda.memory.MemoryPointer(mem, 0)

    pool = cp.cuda.MemoryPool(allocator=timed_alloc)
    cp.cuda.set_allocator(pool.malloc)
    g = read_graph(path, directed=None if path.endswith(".mtx.gz") else False)
    A = g.to_matrix(device="gpu", drop_self_loops=True, weighted=False)
    cp.cuda.Device().synchronize()
    rec = {"file": path, "mode": mode, "n": A.shape[0], "arcs": A.nnz, "setup_s": time.perf_counter() - t_start}
    if mode in ("pool", "both") and pool_bytes:
        t = time.perf_counter()
        cp.empty(pool_bytes, dtype=cp.uint8)  # allocated and at once given back to the pool
        cp.cuda.Device().synchronize()
        rec["pool_grow_s"] = time.perf_counter() - t
    if mode in ("kernels", "both"):
        t = time.perf_counter()
        algorithms.betweenness_centrality(A, sources=range(min(64, A.shape[0])))
        cp.cuda.Device().synchronize()
        rec["kernels_s"] = time.perf_counter() - t
    before = dict(stats)
    calls = []
    for i in range(3):
        prof = cProfile.Profile() if (mode == "cold" and i == 0) else None
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        if prof:
            prof.enable()
        bc = algorithms.betweenness_centrality(A)
        cp.cuda.Device().synchronize()
        if prof:
            prof.disable()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
            rec["profile"] = s.getvalue()[-6000:]
        calls.append(time.perf_counter() - t)
        if i == 0:
            rec["first_mallocs"] = stats["mallocs"] - before["mallocs"]
            rec["first_malloc_s"] = stats["malloc_s"] - before["malloc_s"]
            rec["first_malloc_bytes"] = stats["malloc_bytes"] - before["malloc_bytes"]
    rec["calls_s"] = calls
    rec["pool_total_bytes"] = int(pool.total_bytes())
    rec["bc_sum"] = float(bc.sum())
    print("RESULT " + json.dumps(rec))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs-dir", required=True)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--modes", default="cold,pool,kernels,both")
    ap.add_argument("--out", required=True)
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], a.worker[1], int(a.worker[2]))
        return
    out = []
    for f in a.files.split(","):
        path = str(Path(a.graphs_dir) / f)
        pool_bytes = 0
        for mode in a.modes.split(","):
            res = subprocess.run([sys.executable, __file__, "--graphs-dir", a.graphs_dir, "--out", a.out,
                                  "--worker", path, mode, str(pool_bytes)], capture_output=True, text=True)
            line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
            if not line:
                print(res.stdout[-3000:], res.stderr[-3000:])
                continue
            rec = json.loads(line[0][7:])
            if mode == "cold":
                pool_bytes = rec["pool_total_bytes"]
                print(rec.pop("profile"))
            out.append(rec)
            print(f"{Path(f).name:28s} {mode:8s} setup {rec['setup_s']:.2f}s calls "
                  + " ".join(f"{c:.3f}" for c in rec["calls_s"])
                  + f"  first-call mallocs {rec['first_mallocs']} ({rec['first_malloc_bytes'] / 2**30:.1f} GiB,"
                  f" {rec['first_malloc_s'] * 1e3:.1f} ms)"
                  + "".join(f" {k} {rec[k]:.3f}s" for k in ("pool_grow_s", "kernels_s") if k in rec), flush=True)
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
