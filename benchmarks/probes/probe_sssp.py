"""The GPU's batched weighted shortest paths (spla.backends.gpu.sssp) under each frontier policy, beside
the bytes their distances must move: the measurement behind the tunable sssp_delta.

    PYTHONPATH=. python -m benchmarks.probes.probe_sssp [--graphs-dir DIR] [--deltas none,1,2,4,8,16,32]
        [--graphs rome99,USA-road-d.NY,celegansneural,kron16] [--ny-sources 1000] [--repeat 5] [--deps]
        [--phases] [--latency] [--small] [--rows none,2,4,8] [--rows-sweep] [--rows-arcs 1,2,4] [--out OUT.json]

Graphs: DIR/weighted/rome99.gr.gz with every vertex a source, DIR/weighted/USA-road-d.NY.gr.gz with
--ny-sources sources drawn with seed 0 (DIR: --graphs-dir, else $SPLA_GRAPHS_DIR, else ../shared/graphs
beside the repository, shared/graphs in it, or benchmarks/data/graphs).  The DIMACS files are read here (lines
``a u v w``, 1-based; a pair listed twice keeps its shortest arc).  Low-diameter weighted graphs:
DIR/weighted/celegansneural.gml.gz (every vertex a source, parallel arcs at their shortest) and
``kronS``, Graph500's Kronecker graph of scale S with Graph500's SSSP lengths (uniform in (0, 1], seed
S) and --ny-sources sources.

The ``--deltas`` rows run the list rounds (``sssp_small_bytes=0``); ``--small`` adds a row for the small
path (a thread block per source, ``spla_sssp_small`` and ``spla_sssp_small_deps``) on the graphs it
takes.  ``--phases`` times each phase of one block's Brandes sums (distances, h, σ, δ) between CUDA events;
``--latency`` the launch of an empty resident-grid kernel back to back and a host read of a counter
(the per-round and per-read costs a deep search pays).  ``--rows`` times the row path
(``spla_sssp_rows``: a thread block per source, its distances in global memory) at each of its
bucket widths on the graphs too large for the small path, beside the list rounds, both through
``shortest_paths`` (the (k, n) distances), with the phases each source took; with ``--deps`` also
the Brandes sums whose distances come from each; ``--rows-sweep`` the threads a block and the sizes of
its queue and far lists; ``--rows-arcs`` the arcs a lane relaxes at once (SPLA_ROWS_ARCS, compiled in).

Per graph and policy (sssp_delta = none: Bellman-Ford over an active-entry frontier; a number: delta-
stepping with buckets of that many mean arc lengths): the distances of one block of the sources
(spla.backends.gpu.sssp._distances, timed between CUDA events: one warm-up, then the median of
--repeat), its rounds, far-list epochs and relaxed entries, the bytes-moved floors below and the
share of the device's peak bandwidth the time reaches on them.  With --deps also the whole Brandes
sums (dependencies, vertex sums) per policy.  The first sources' distances are checked against
SciPy's Dijkstra, bit for bit.

Bytes-moved floors of the distances of k sources (8-byte distances, 4-byte indices, 8-byte lengths):

* ``output``: every entry written once, n·k·8, plus the graph read once ((n+1)·4 + m·12);
* ``settle``: what a work-optimal search moves when each reached entry (v, s) is settled once: its
  distance written (8) and, for each out-arc of v, the head's distance read (8), plus the graph once:
  Σ_s Σ_{v reached by s} (8 + 8·outdeg(v)) + (n+1)·4 + m·12.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import spla
from spla.backends.gpu import sssp, sssp_rows, sssp_small

REPO = Path(__file__).resolve().parents[2]
FILES = {"rome99": "weighted/rome99.gr.gz", "USA-road-d.NY": "weighted/USA-road-d.NY.gr.gz",
         "celegansneural": "weighted/celegansneural.gml.gz"}
#: graphs whose every vertex is a source
ALL_SOURCES = {"rome99", "celegansneural"}


def graphs_dir(arg):
    """The first folder holding weighted/rome99.gr.gz among the argument and the usual places."""
    for d in (arg, os.environ.get("SPLA_GRAPHS_DIR"), REPO.parent / "shared" / "graphs", REPO / "shared" / "graphs",
              REPO / "benchmarks" / "data" / "graphs"):
        if d and (Path(d) / FILES["rome99"]).is_file():
            return Path(d)
    raise SystemExit("no weighted graphs found: pass --graphs-dir DIR (DIR/weighted/rome99.gr.gz)")


def read_dimacs(path):
    """(n, scipy CSC of the arcs u -> v with length w) of a DIMACS shortest-path file; a pair listed
    more than once keeps its shortest arc."""
    n = None
    rows, cols, vals = [], [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith("a "):
                _, u, v, w = line.split()
                rows.append(int(u) - 1)
                cols.append(int(v) - 1)
                vals.append(float(w))
            elif line.startswith("p "):
                n = int(line.split()[2])
    r, c, w = np.array(rows), np.array(cols), np.array(vals, dtype=np.float64)
    order = np.lexsort((w, c, r))  # by pair, shortest first
    r, c, w = r[order], c[order], w[order]
    first = np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])]
    S = sp.csc_matrix((w[first], (r[first], c[first])), shape=(n, n))
    S.sort_indices()
    return n, S


def load(root, name):
    """(n, scipy CSC of the lengths) of a probe graph (module docstring)."""
    if name.startswith("kron") and name[4:].isdigit():
        from benchmarks import graphs

        scale = int(name[4:])
        src, dst, n, _ = graphs.kronecker(scale, 16, seed=scale)
        src, dst = graphs.clean_edges(src, dst)
        w = 1.0 - np.random.default_rng(scale).random(src.size)  # Graph500's SSSP lengths, never 0
        A = spla.Matrix.from_edges(np.r_[src, dst], np.r_[dst, src], n=n, directed=True,
                                   values=np.r_[w, w], dup="min", device="cpu")
        return n, A.to_scipy(keep_dtype=True).tocsc()
    path = root / FILES[name]
    if not path.is_file():
        return None, None
    if path.name.endswith(".gr.gz"):
        return read_dimacs(path)
    from spla import io as spla_io

    A = spla_io.read_graph(str(path), directed=True).to_matrix(device="cpu", drop_self_loops=True, dup="min")
    return A.shape[0], A.to_scipy(keep_dtype=True).tocsc()


def phases_ms(A, block):
    """{phase: ms} of one block's Brandes sums, each phase between CUDA events (after a warm-up)."""
    import cupy as cp

    S = sssp._arcs(A)

    def once():
        B = sssp._Block(S, block, cp)
        marks = [cp.cuda.Event() for _ in range(5)]
        marks[0].record()
        dist = sssp._distances(B)
        marks[1].record()
        hops = sssp._hops(B, dist)
        marks[2].record()
        sigma, lists, scale = sssp._sigma(B, dist, hops)
        marks[3].record()
        sssp._delta(B, dist, hops, sigma, lists, scale)
        marks[4].record()
        marks[4].synchronize()
        names = ("distances", "hops", "sigma", "delta")
        return {k: cp.cuda.get_elapsed_time(marks[i], marks[i + 1]) for i, k in enumerate(names)}

    once()
    return once()


def latency_us(repeat=2000):
    """(µs per empty resident-grid launch queued back to back, µs per host read of 8 bytes)."""
    import time

    import cupy as cp
    from spla.backends.gpu.launch import resident_blocks
    from spla.device import HostCopy

    k = cp.RawKernel(r'''extern "C" __global__ void empty(const unsigned long long* n, int* out)
        { if (threadIdx.x + blockIdx.x * blockDim.x < *n) out[0] = 1; }''', "empty")
    n = cp.zeros(1, dtype=np.uint64)
    out = cp.zeros(1, dtype=np.int32)
    grid = resident_blocks(cp.cuda.Device().id)
    k((grid,), (256,), (n, out))
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(repeat):
        k((grid,), (256,), (n, out))
    end.record()
    end.synchronize()
    launch = cp.cuda.get_elapsed_time(start, end) * 1e3 / repeat
    host = HostCopy(n)
    t = time.perf_counter()
    for _ in range(repeat // 4):
        host.read()
    read = (time.perf_counter() - t) * 1e6 / (repeat // 4)
    return launch, read


def device_peak_bytes_per_s():
    import cupy as cp

    attrs = cp.cuda.Device().attributes
    # memory clock (kHz) x bus width (bits) x 2 (double data rate) / 8 bits
    return attrs["MemoryClockRate"] * 1e3 * attrs["GlobalMemoryBusWidth"] * 2 / 8


def floors(S, dist):
    """{"output", "settle"}: the bytes-moved floors of one block's distances (module docstring)."""
    n, m = S.shape[0], S.nnz
    k = dist.shape[1]
    graph = (n + 1) * 4 + m * 12
    outdeg = np.diff(S.tocsr().indptr)
    reached = np.isfinite(dist)
    settle = int((reached.sum(axis=1) * (8 + 8 * outdeg)).sum())
    return {"output": n * k * 8 + graph, "settle": settle + graph}


def timed_ms(fn, repeat):
    import cupy as cp

    fn()  # warm-up: compiles, pools
    times = []
    for _ in range(repeat):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times), times


def run_distances(A, src):
    """One block's distances and the search's counts: (dist (n, k) CuPy, {rounds, epochs, listed})."""
    S = sssp._arcs(A)
    import cupy as cp

    B = sssp._Block(S, src, cp)
    return sssp._distances(B), dict(B.stats)


def rows_rows(name, A, S, block, check, deltas, repeat, peak, deps):
    """The row path's (k, n) distances at each bucket width beside the list rounds' (default width), both
    through shortest_paths: time, phases per source, the floors' share of peak, bit-equality; with
    ``deps`` the Brandes sums with their distances from each path (default width)."""
    import cupy as cp

    out = []
    with spla.tuning.override(sssp_max_batch=max(len(block), 1), sssp_rows=False, sssp_small_bytes=0):
        want = cp.asnumpy(sssp.shortest_paths(A, block, counts=False)[0])
        lms, _ = timed_ms(lambda: sssp.shortest_paths(A, block, counts=False), repeat)
    fl = floors(S, want.T)
    print(f"  list rounds (default width), (k, n) distances: {lms:9.2f} ms  "
          f"floor share of peak: output {fl['output'] / (lms * 1e-3) / peak:.1%}, "
          f"settle {fl['settle'] / (lms * 1e-3) / peak:.1%}")
    out.append({"graph": name, "n": S.shape[0], "k": len(block), "path": "lists", "ms": lms})
    Sx = sssp._arcs(A)
    for delta in deltas:
        with spla.tuning.override(sssp_max_batch=max(len(block), 1), sssp_rows=True, sssp_small_bytes=0,
                                  sssp_rows_delta=delta):
            got = cp.asnumpy(sssp.shortest_paths(A, block, counts=False)[0])
            ms, times = timed_ms(lambda: sssp.shortest_paths(A, block, counts=False), repeat)
            B = sssp._Block(Sx, block, cp)
            rounds = cp.zeros(len(block), dtype=np.int32)
            sssp_rows.row_distances(B, sssp.bucket_width(Sx.mean_length, rows=True), rounds=rounds)
            r = cp.asnumpy(rounds)
        same = bool(np.array_equal(got.view(np.uint64), want.view(np.uint64)))
        same_scipy = bool(np.array_equal(got[:check.shape[0]], check))
        share = {key: v / (ms * 1e-3) / peak for key, v in fl.items()}
        print(f"  row path sssp_delta={delta!s:>5}: distances {ms:9.2f} ms  phases per source mean {r.mean():8.1f} "
              f"max {r.max():6d}  floor share of peak: output {share['output']:.1%}, settle {share['settle']:.1%}"
              f"  ({lms / ms:.2f}x the list rounds)" + ("" if same else "  DIFFERS FROM THE LIST ROUNDS")
              + ("" if same_scipy else "  DIFFERS FROM SCIPY"))
        out.append({"graph": name, "path": "rows", "sssp_delta": delta, "ms": ms, "times_ms": times,
                    "rounds_mean": float(r.mean()), "rounds_max": int(r.max()), "share_of_peak": share, "equal_to_lists": same,
                    "equal_to_scipy": same_scipy, "lists_ms": lms, "k": len(block), "n": S.shape[0]})
    if deps:
        times = {}
        for rows in (False, True):
            with spla.tuning.override(sssp_max_batch=max(len(block), 1), sssp_rows=rows, sssp_small_bytes=0):
                times[rows], _ = timed_ms(lambda: sssp.dependencies(A, block, edges=False, endpoints=False), repeat)
        print(f"  dependencies, distances from the list rounds {times[False]:9.2f} ms, from the row path "
              f"{times[True]:9.2f} ms")
        out.append({"graph": name, "path": "dependencies", "lists_ms": times[False], "rows_ms": times[True]})
    return out


def rows_sweep(name, A, block, repeat, delta):
    """The row path's distances (bucket width ``delta``, the first of --rows) per threads a block and
    size of its queue (which, with the kernel's registers, sets the blocks an SM and what shared memory
    leaves to the L1), far lists of 1,024 and ROWS_FAR entries (global memory), with the phases each
    source took (phases past the unspilled count are the spill bitmap's sweeps)."""
    import cupy as cp

    S = sssp._arcs(A)
    B = sssp._Block(S, block, cp)
    with spla.tuning.override(sssp_rows_delta=delta):
        width = sssp.bucket_width(S.mean_length, rows=True)
    rounds = cp.zeros(len(block), dtype=np.int32)
    out = []
    grid = [(cap, sssp_rows.ROWS_FAR) for cap in (1024, 1536, 2048)] + [(sssp_rows.ROWS_QUEUE, 1024)]
    for threads in (128, 192, 256, 512):
        for cap, fcap in grid:
            ms, _ = timed_ms(lambda: sssp_rows.row_distances(B, width, rounds=rounds, cap=cap, fcap=fcap,
                                                             threads=threads), repeat)
            phases = float(cp.asnumpy(rounds).mean())
            print(f"  row path, {threads:4d} threads a block, queue {cap:5d}, far lists {fcap:5d}: {ms:9.2f} ms, "
                  f"phases per source {phases:7.1f}")
            out.append({"graph": name, "path": "rows-sweep", "threads": threads, "queue": cap, "far": fcap, "ms": ms,
                        "phases_mean": phases})
    return out


def rows_arcs(name, A, block, repeat, delta, counts):
    """The row path's distances (bucket width ``delta``) with each SPLA_ROWS_ARCS compiled in."""
    base = sssp.NVRTC_OPTIONS
    out = []
    try:
        for arcs in counts:
            sssp.NVRTC_OPTIONS = tuple(base) + (f"-DSPLA_ROWS_ARCS={arcs}",)
            sssp._module.cache_clear()
            with spla.tuning.override(sssp_max_batch=max(len(block), 1), sssp_rows=True, sssp_small_bytes=0,
                                      sssp_rows_delta=delta):
                ms, _ = timed_ms(lambda: sssp.shortest_paths(A, block, counts=False), repeat)
            print(f"  row path, SPLA_ROWS_ARCS={arcs}: {ms:9.2f} ms")
            out.append({"graph": name, "path": "rows-arcs", "arcs": arcs, "ms": ms})
    finally:
        sssp.NVRTC_OPTIONS = base
        sssp._module.cache_clear()
    return out


def parse_deltas(text):
    return [None if x.strip().lower() == "none" else float(x) for x in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs-dir", default=None)
    ap.add_argument("--deltas", default="none,1,2,4,8,16,32")
    ap.add_argument("--ny-sources", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--deps", action="store_true", help="also time the Brandes sums (dependencies)")
    ap.add_argument("--graphs", default="rome99,USA-road-d.NY")
    ap.add_argument("--phases", action="store_true", help="also time each phase of the Brandes sums")
    ap.add_argument("--latency", action="store_true", help="also time an empty launch and a host read")
    ap.add_argument("--small", action="store_true",
                    help="also time the small path (a thread block per source) where the graph fits it; the "
                         "--deltas rows run the list rounds")
    ap.add_argument("--rows", default=None, metavar="DELTAS",
                    help="also time the row path (a thread block per source, distances in global memory) at these "
                         "bucket widths (none,8,16,...) where the graph takes it, beside the list rounds' (k, n) "
                         "distances at the default width; both through shortest_paths")
    ap.add_argument("--rows-sweep", action="store_true",
                    help="with --rows: also time the row path at 128 and 256 threads a block and 1 to 3 blocks an "
                         "SM (shared memory padded past what the kernel uses), at the first of its widths")
    ap.add_argument("--rows-arcs", default=None, metavar="LIST",
                    help="with --rows: also time the row path (its defaults) with each of these "
                         "SPLA_ROWS_ARCS (arcs a lane relaxes at once), compiled in")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    import cupy as cp
    from scipy.sparse.csgraph import dijkstra

    root = graphs_dir(a.graphs_dir)
    peak = device_peak_bytes_per_s()
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, peak {peak / 1e9:.0f} GB/s")
    results = []
    if a.latency:
        launch, read = latency_us()
        print(f"empty resident-grid launch, back to back: {launch:.2f} us; host read of a counter: {read:.1f} us")
        results.append({"latency": {"launch_us": launch, "read_us": read}})
    for name in a.graphs.split(","):
        n, S = load(root, name)
        if S is None:
            print(name, "missing")
            continue
        A = spla.Matrix.from_scipy(S, directed=True, device="cpu").to("gpu")
        if name in ALL_SOURCES:
            src = np.arange(n, dtype=np.int64)
        else:
            src = np.sort(np.random.default_rng(0).choice(n, size=min(a.ny_sources, n), replace=False))
        with spla.tuning.override(sssp_max_batch=max(len(src), 1)):
            blocks = sssp._blocks(A, sssp._arcs(A), src, sssp.DIST_BYTES_PER_ENTRY, sssp.DIST_LISTS)
        block = blocks[0]
        print(f"\n{name}: n={n:,} m={S.nnz:,} sources={len(src):,} (block of {len(block):,}), "
              f"mean length {S.data.mean():.4g}")
        check = dijkstra(S, indices=block[:4])
        if a.rows and sssp_rows.runs_rows(n, 0, 1) and not sssp_small.runs_small(n, 0):
            results.extend(rows_rows(name, A, S, block, check, parse_deltas(a.rows), a.repeat, peak, a.deps))
            if a.rows_sweep:
                results.extend(rows_sweep(name, A, block, a.repeat, parse_deltas(a.rows)[0]))
            if a.rows_arcs:
                results.extend(rows_arcs(name, A, block, a.repeat, parse_deltas(a.rows)[0],
                                         [int(x) for x in a.rows_arcs.split(",")]))
        policies = [dict(sssp_delta=delta, sssp_small_bytes=0, sssp_rows=False) for delta in parse_deltas(a.deltas)]
        if a.small and sssp_small.runs_small(n, 0):
            policies.append(dict(sssp_delta=None, sssp_small_bytes=spla.tuning.DEFAULT.sssp_small_bytes,
                                 sssp_rows=False))
        for policy in policies:
            delta, small = policy["sssp_delta"], policy["sssp_small_bytes"] > 0
            with spla.tuning.override(sssp_max_batch=max(len(src), 1), **policy):
                dist, stats = run_distances(A, block)
                host = cp.asnumpy(dist)
                same = bool(np.array_equal(host[:, :4].T, check))
                fl = floors(S, host)
                del dist
                ms, times = timed_ms(lambda: run_distances(A, block), a.repeat)
                row = {"graph": name, "n": n, "m": int(S.nnz), "k": len(block), "sssp_delta": delta, "small": small,
                       "distances_ms": ms, "times_ms": times, **stats, "floors_bytes": fl,
                       "share_of_peak": {key: v / (ms * 1e-3) / peak for key, v in fl.items()},
                       "equal_to_scipy": same}
                if a.deps:
                    dms, _ = timed_ms(lambda: sssp.dependencies(A, block, edges=False, endpoints=False), a.repeat)
                    row["dependencies_ms"] = dms
                if a.phases:
                    row["phases_ms"] = phases_ms(A, block)
            results.append(row)
            counts = ("a thread block per source" + " " * 41 if small else
                      f"rounds {stats['rounds']:6d}  epochs {stats['epochs']:5d}  "
                      f"relaxed {stats['listed'] / max(1, len(block) * n):6.2f} x n·k")
            print(f"  {'small path' if small else f'sssp_delta={delta!s:>5}'}: distances {ms:9.2f} ms  {counts}  "
                  f"floor share of peak: output {row['share_of_peak']['output']:.1%}, "
                  f"settle {row['share_of_peak']['settle']:.1%}"
                  + (f"  dependencies {row['dependencies_ms']:9.2f} ms" if a.deps else "")
                  + ("  phases " + " ".join(f"{k} {v:.2f}" for k, v in row["phases_ms"].items())
                     if a.phases else "")
                  + ("" if same else "  DIFFERS FROM SCIPY"))
        if name in ALL_SOURCES:
            import time

            t = time.perf_counter()
            dijkstra(S, indices=src)
            ms = (time.perf_counter() - t) * 1e3
            print(f"  scipy.sparse.csgraph.dijkstra, all sources, one host thread: {ms:.1f} ms")
    if a.out:
        Path(a.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
