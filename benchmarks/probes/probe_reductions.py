"""CuPy's full reductions with and without its CUB accelerator: run time (warm) and first-use compile.
The engine's bool reductions that avoid CUB's block reductions (spla.device) rest on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_reductions [--both]

CuPy compiles its CUB block reductions (``cupy_cub_*``) on first use (probe_cold_start.py times
those compiles).  This measures what the plain reductions cost per call instead: CUDA
events, 5 warm-up calls, median of 50, for bool ``any`` and the ways to get the same answer
(``max``, ``max`` of a uint8 view, ``sum``, ``count_nonzero``), float64 ``sum``/``mean``/``max``, int64
``mean``/``max``, at n = 1e3 .. 1e8; "first": the first call's wall time (its compile).  With --both,
also with CUB's accelerators switched off.
"""
import os
import sys
import tempfile
import time

import numpy as np


def device_time(fn, reps=50):
    import cupy as cp

    for _ in range(5):
        fn()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)
    return float(np.median(times))


def main():
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy_cache_")  # before CuPy is imported
    import cupy as cp
    from cupy._core import _accelerator

    print("default reduction accelerators:", _accelerator.get_reduction_accelerators(), flush=True)
    cases = [("bool any", lambda x: x.any(), np.bool_),
             ("bool max", lambda x: x.max(), np.bool_),
             ("u8view max", lambda x: x.view(cp.uint8).max(), np.bool_),
             ("bool sum", lambda x: x.sum(), np.bool_),
             ("count_nz", lambda x: cp.count_nonzero(x), np.bool_),
             ("u8 sum", lambda x: x.view(cp.uint8).sum(), np.bool_),
             ("u8 sum i64", lambda x: x.view(cp.uint8).sum(dtype=cp.int64), np.bool_),
             ("i32 sum", lambda x: x.astype(cp.int32).sum(), np.bool_),
             ("f64 std", lambda x: x.std(), np.float64),
             ("i64 mean", lambda x: x.mean(), np.int64), ("f64 sum", lambda x: x.sum(), np.float64),
             ("f64 mean", lambda x: x.mean(), np.float64), ("f64 max", lambda x: x.max(), np.float64),
             ("i64 max", lambda x: x.max(), np.int64)]
    default = _accelerator.get_reduction_accelerators()
    for accel in (default, []) if "--both" in sys.argv else (default,):
        _accelerator.set_reduction_accelerators(accel)
        for label, fn, dt in cases:
            row = []
            for n in (10**3, 10**5, 10**6, 10**7, 10**8):
                x = (cp.arange(n) % 7 == 3).astype(dt)
                t = time.perf_counter()
                fn(x)
                cp.cuda.Device().synchronize()
                first = time.perf_counter() - t
                row.append(f"n=1e{len(str(n)) - 1}: {device_time(lambda: fn(x)):8.1f} us (first {first:5.2f} s)")
            print(f"{'cub' if accel else 'plain':5s} {label:10s} " + " | ".join(row), flush=True)


if __name__ == "__main__":
    main()
