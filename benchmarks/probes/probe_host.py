"""Host-side cost of spla calls on the device, and whether CUDA-graph replay removes it.

    PYTHONPATH=. python3 tools/probe_host.py
"""
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp
import numpy as np

from spla import algorithms
import spla
from benchmarks import graphs


def mat(name):
    (src, dst, n, directed), _ = graphs.load_edges(name)
    return spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")


def per_call(fn, reps=300):
    fn(); cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    t1 = time.perf_counter()
    cp.cuda.Device().synchronize()
    t2 = time.perf_counter()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    e0.record()
    for _ in range(reps):
        fn()
    e1.record(); e1.synchronize()
    return (t1 - t0) / reps * 1e6, (t2 - t0) / reps * 1e6, cp.cuda.get_elapsed_time(e0, e1) / reps * 1e3


def top(prof, n=18):
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(n)
    return s.getvalue()


for name in ("ws100k", "ws2M", "kron20"):
    A = mat(name)
    n = A.shape[0]
    x = cp.random.random(n).astype(cp.float32)
    rng = np.random.default_rng(1)
    mask = cp.asarray(rng.random(n) < 0.1)
    for kern in ("scCSC", "scCOOC", "veCSC", "auto"):
        un = per_call(lambda: spla.vxm(x, A, "plus_times", kernel=kern))
        ma = per_call(lambda: spla.vxm(x, A, "plus_times", mask=mask, kernel=kern))
        print(f"{name} {kern}: unmasked host {un[0]:.1f} us wall {un[1]:.1f} event {un[2]:.1f} | "
              f"masked host {ma[0]:.1f} wall {ma[1]:.1f} event {ma[2]:.1f}", flush=True)
    # graph capture of the masked product: private pool, replay
    pool = cp.cuda.MemoryPool()
    s = cp.cuda.Stream(non_blocking=True)
    y = cp.empty(n, dtype=cp.float32)
    for kern in ("scCSC", "auto"):
        spla.vxm(x, A, "plus_times", mask=mask, kernel=kern, out=y)
        cp.cuda.Device().synchronize()
        with s, cp.cuda.using_allocator(pool.malloc):
            s.begin_capture()
            spla.vxm(x, A, "plus_times", mask=mask, kernel=kern, out=y)
            g = s.end_capture()
        g.upload(s) if hasattr(g, "upload") else None
        def rep():
            g.launch(s)
        s.synchronize()
        t0 = time.perf_counter()
        for _ in range(300):
            g.launch(s)
        t1 = time.perf_counter()
        s.synchronize()
        t2 = time.perf_counter()
        ref = spla.vxm(x, A, "plus_times", mask=mask, kernel=kern)
        cp.cuda.Device().synchronize()
        ok = bool(cp.allclose(ref[mask], y[mask]))
        print(f"{name} graph-replayed masked {kern}: host {(t1-t0)/300*1e6:.1f} us wall {(t2-t0)/300*1e6:.1f} us ok={ok}",
              flush=True)
    if name == "ws2M":
        prof = cProfile.Profile(); prof.enable()
        for _ in range(300):
            spla.vxm(x, A, "plus_times", mask=mask, kernel="scCSC")
        cp.cuda.Device().synchronize(); prof.disable()
        print(top(prof), flush=True)
    del A

# elementary CuPy costs
a = cp.zeros(1000, dtype=cp.float64)
print("cupy a+a host/wall/event us:", ["%.1f" % v for v in per_call(lambda: a + a)])
print("cupy a.max() :", ["%.1f" % v for v in per_call(lambda: a.max())])
print("cupy a.max().get():", ["%.1f" % v for v in per_call(lambda: a.max().get())])
print("cupy empty:", ["%.1f" % v for v in per_call(lambda: cp.empty(1000))])

for name in ("myc15", "kron18", "ws100k"):
    A = mat(name)
    f = lambda: algorithms.betweenness_centrality(A, sources=[1], batch_size=1)
    f(); f(); cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        f()
    cp.cuda.Device().synchronize()
    dt = (time.perf_counter() - t0) / 5
    depth = int(algorithms.bfs_levels(A, 1).max())
    print(f"BC single {name}: {dt*1e3:.2f} ms depth {depth}", flush=True)
    prof = cProfile.Profile(); prof.enable()
    for _ in range(5):
        f()
    cp.cuda.Device().synchronize(); prof.disable()
    print(top(prof, 25), flush=True)
