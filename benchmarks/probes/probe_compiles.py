"""Which kernels an all-sources betweenness call compiles, with CuPy's disk cache empty: the measurement
behind keeping CuPy's CUB-based reductions out of the engine's first calls (spla.device).

    PYTHONPATH=. python -m benchmarks.probes.probe_compiles --graphs-dir DIR [--files a,b] [--frontier sparse]

One process, CUPY_CACHE_DIR a fresh temporary folder; per file: a 64-source call, then an all-sources
call, each timed, with every NVRTC compile it triggered (program name, seconds, the start of its source).
"""
import argparse
import os
import tempfile
import time
from pathlib import Path

from spla import algorithms
from spla.io import read_graph

FILES = ("snap/cit-HepTh.txt.gz,snap/email-Eu-core.txt.gz,snap/p2p-Gnutella31.txt.gz,"
         "snap/p2p-Gnutella24.txt.gz,snap/ca-CondMat.txt.gz")


def trace_compiles(events):
    """Wrap CuPy's NVRTC compile so that every compile appends (program name, seconds, what) to ``events``."""
    from cupy.cuda import compiler

    orig = compiler._NVRTCProgram.compile

    def traced(self, *args, **kwargs):
        t = time.perf_counter()
        try:
            return orig(self, *args, **kwargs)
        finally:
            src = getattr(self, "src", b"")
            src = src.decode(errors="replace") if isinstance(src, bytes) else str(src)
            names = getattr(self, "name_expressions", None)
            key = (f"{len(names)} name expressions, e.g. {names[0]}" if names else
                   " ".join(line.strip() for line in src.splitlines() if "__global__" in line)[:200])
            key = key or src[:160].replace("\n", " ")
            if "cupy_cub_" in key:  # who asked for it: the innermost spla / algorithms frame
                import traceback
                ours = [f for f in traceback.extract_stack() if "/spla/" in f.filename or "/algorithms/" in f.filename]
                if ours:
                    key = f"{ours[-1].filename.split('/')[-2]}/{ours[-1].filename.split('/')[-1]}:{ours[-1].lineno}: " + key
            events.append((getattr(self, "name", "?"), time.perf_counter() - t, key))

    compiler._NVRTCProgram.compile = traced


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs-dir", required=True)
    ap.add_argument("--files", default=FILES)
    ap.add_argument("--frontier", default="sparse")
    a = ap.parse_args()
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy_cache_")  # before CuPy is imported
    import cupy as cp

    events = []
    trace_compiles(events)
    for f in a.files.split(","):
        A = read_graph(str(Path(a.graphs_dir) / f)).to_matrix(device="gpu", drop_self_loops=True, weighted=False)
        for what, kw in (("64 sources", dict(sources=range(min(64, A.shape[0])))), ("all sources", {})):
            del events[:]
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            algorithms.betweenness_centrality(A, frontier=a.frontier, **kw)
            cp.cuda.Device().synchronize()
            dt = time.perf_counter() - t
            print(f"{Path(f).name:24s} {what:12s} {dt:7.3f} s, {len(events)} compiles, "
                  f"{sum(e[1] for e in events):.3f} s", flush=True)
            for name, s, key in events:
                print(f"    {s:6.3f} s  {name}: {key}", flush=True)


if __name__ == "__main__":
    main()
