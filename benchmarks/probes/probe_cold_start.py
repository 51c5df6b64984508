"""What the first run on a machine (CuPy's kernel cache empty) spends on compiling, and what would cut
it: the measurement behind compiling each kernel as a module of its own when first used
(spla.backends.gpu) and behind keeping CuPy's CUB reductions out of the engine (spla.device).

    PYTHONPATH=. python -m benchmarks.probes.probe_cold_start --graphs-dir DIR [--file snap/Email-Enron.txt.gz]
        [--main-job-only] [--compare-no-cub]

1. The main job, `spla centrality FILE --out ...` (all measures), in a fresh process with an empty
   ``CUPY_CACHE_DIR``, every NVRTC compile traced (seconds, which program); then the same command twice
   again with the cache it left (warm runs); with CuPy's default reduction accelerators (and with
   ``CUPY_ACCELERATORS=""``, no CUB, after them when --compare-no-cub).
2. One spmv module (every name expression of a semiring) against modules of one name expression
   each, cold.
3. Four distinct spmv modules compiled one after another against four threads (NVRTC releases the GIL).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRACE = r"""
import os, sys, time, json
from cupy.cuda import compiler
events = []
_orig = compiler._NVRTCProgram.compile
def traced(self, *a, **k):
    t = time.perf_counter()
    try:
        return _orig(self, *a, **k)
    finally:
        names = getattr(self, "name_expressions", None)
        src = getattr(self, "src", "")
        src = src.decode(errors="replace") if isinstance(src, bytes) else str(src)
        what = ("spla module: " + names[0]) if names else \
            " ".join(l.strip() for l in src.splitlines() if "__global__" in l)[:120]
        if "cupy_cub_" in what:  # who asked for it: the innermost spla / algorithms frame
            import traceback
            ours = [f for f in traceback.extract_stack() if "/spla/" in f.filename or "/algorithms/" in f.filename]
            if ours:
                what += f"  <- {ours[-1].filename.split('/')[-2]}/{ours[-1].filename.split('/')[-1]}:{ours[-1].lineno}"
        events.append((time.perf_counter() - t, what))
compiler._NVRTCProgram.compile = traced
import spla.cli
t0 = time.perf_counter()
rc = spla.cli.main(sys.argv[1:])
wall = time.perf_counter() - t0
spla_s = sum(s for s, w in events if w.startswith("spla module"))
print(f"RESULT rc={rc} wall={wall:.2f}s compiles={len(events)} compile_s={sum(s for s, _ in events):.2f} "
      f"spla_modules={sum(1 for _, w in events if w.startswith('spla module'))} spla_s={spla_s:.2f}", flush=True)
cub = [(s, w) for s, w in events if "cupy_cub_" in w]
print(f"CUB block reductions: {len(cub)} compiles, {sum(s for s, _ in cub):.2f} s; other CuPy kernels: "
      f"{len(events) - len(cub) - sum(1 for _, w in events if w.startswith('spla module'))} compiles", flush=True)
for s, w in sorted(events, reverse=True):
    if s >= 0.25 or "cupy_cub_" in w:
        print(f"    {s:6.2f} s  {w}", flush=True)
"""


def main_job(path, out_dir, accelerators=None):
    cache = tempfile.mkdtemp(prefix="cupy_cache_")
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    if accelerators is not None:
        env["CUPY_ACCELERATORS"] = accelerators
    for run in ("cold", "warm", "warm"):
        t = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", TRACE, "centrality", path, "--out", str(out_dir / "scores.csv"),
                              ], env=env, capture_output=True, text=True)
        print(f"== main job, CUPY_ACCELERATORS={accelerators!r}, {run}: process {time.perf_counter() - t:.2f} s", flush=True)
        print(res.stdout[-6000:], res.stderr[-2000:], flush=True)


def module_split():
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy_cache_")
    import cupy as cp
    import numpy as np

    from spla.backends.gpu import compile as gpu  # private: SPMV_SOURCE, NVRTC_OPTIONS, source, name_expressions

    src = gpu.source(str(gpu.SPMV_SOURCE))

    def compile_names(names):
        t = time.perf_counter()
        mod = cp.RawModule(code=src, options=gpu.NVRTC_OPTIONS, name_expressions=list(names))
        for n in names:
            mod.get_function(n)
        return time.perf_counter() - t

    whole = gpu.name_expressions("plus", "times", np.float32, np.int32, True)
    print(f"== one module, {len(whole)} names (plus_times float32 int32 pattern): "
          f"{compile_names(list(whole.values())):.2f} s", flush=True)
    single = gpu.name_expressions("plus", "times", np.float64, np.int32, True)
    total = 0.0
    for key, name in single.items():
        s = compile_names([name])
        total += s
        print(f"    alone: {key:20s} {s:.2f} s", flush=True)
    print(f"== the same {len(single)} (float64) one module each: {total:.2f} s in all", flush=True)
    combos = [("min", "plus", np.float32), ("max", "times", np.float32), ("plus", "times", np.int32),
              ("plus", "times", np.int64)]
    t = time.perf_counter()
    for add, mul, dt in combos[:2]:
        compile_names(list(gpu.name_expressions(add, mul, dt, np.int64, False).values()))
    seq = time.perf_counter() - t
    from concurrent.futures import ThreadPoolExecutor

    t = time.perf_counter()
    with ThreadPoolExecutor(4) as ex:
        list(ex.map(lambda c: compile_names(list(gpu.name_expressions(c[0], c[1], c[2], np.int64, True).values())),
                    combos))
    par = time.perf_counter() - t
    print(f"== two modules one after another: {seq:.2f} s; four modules in four threads: {par:.2f} s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs-dir", required=True)
    ap.add_argument("--file", default="snap/Email-Enron.txt.gz")
    ap.add_argument("--main-job-only", action="store_true")
    ap.add_argument("--compare-no-cub", action="store_true", help='also run with CUPY_ACCELERATORS=""')
    a = ap.parse_args()
    out = Path(tempfile.mkdtemp(prefix="cold_"))
    for accel in (None, "") if a.compare_no_cub else (None,):
        main_job(str(Path(a.graphs_dir) / a.file), out, accel)
    if not a.main_job_only:
        module_split()


if __name__ == "__main__":
    main()
