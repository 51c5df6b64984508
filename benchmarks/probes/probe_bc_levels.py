"""Device time of each engine product inside one single-source betweenness (sync-timed).

    PYTHONPATH=. python3 tools/probe_bc_levels.py
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp

from spla import algorithms
import spla
from benchmarks import graphs

log = []
_vxm, _mxv = spla.vxm, spla.mxv


def timed(fn, name):
    def wrapper(*a, **kw):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        r = fn(*a, **kw)
        cp.cuda.Device().synchronize()
        u = a[0] if name == "vxm" else a[1]
        m = kw.get("mask")
        frac = float(m.mean()) if m is not None else 1.0
        nz = int(cp.count_nonzero(u))
        log.append((name, kw.get("kernel"), (time.perf_counter() - t) * 1e3, frac, kw.get("complement"), nz))
        return r
    return wrapper


for name in ("myc15", "kron18", "ws100k", "myc16", "kron20"):
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    for kern in ("auto", "scCSC", "veCSC", "scCOOC"):
        f = lambda: algorithms.betweenness_centrality(A, sources=[1], batch_size=1, kernel=kern)
        f(); f(); cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(3):
            f()
        cp.cuda.Device().synchronize()
        total = (time.perf_counter() - t0) / 3 * 1e3
        spla.vxm, spla.mxv = timed(_vxm, "vxm"), timed(_mxv, "mxv")
        log.clear()
        t0 = time.perf_counter()
        f()
        cp.cuda.Device().synchronize()
        inst = (time.perf_counter() - t0) * 1e3
        spla.vxm, spla.mxv = _vxm, _mxv
        prod = sum(r[2] for r in log)
        print(f"{name} kernel={kern}: {total:.2f} ms; instrumented {inst:.2f} ms, products {prod:.2f} ms", flush=True)
        if kern in ("auto", "scCOOC"):
            for r in log:
                print(f"    {r[0]} {r[1]} {r[2]:.3f} ms maskfrac={r[3]:.3f} compl={r[4]} nnz_in={r[5]}", flush=True)
    del A
