"""Host time of one masked k = 1 product per kernel: what a Python loop of ``vxm`` calls pays per call.
The host-time side of the kernel choice for masked products (spla.choose_kernel's rules for masks,
the tunable unknown_tiles_waves) rests on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_host_path [--graphs a,b] [--profile GRAPH:KERNEL]
        [--noop] [--launch]

Per graph and kernel (scCSC: its warp tiles, veCSC, scCOOC): ``spla.vxm(u, A, "plus_times", mask=m)``
with a random mask keeping 10% of the columns, fresh output; the median over 300 calls of the time
each call takes to return (perf_counter around the call; the device is synchronised every 100 calls
so that the launch queue never fills), and the wall time of one call between CUDA events (median of
30, device idle before each).  With --profile, cProfile of 300 calls of that product, the top 30
functions by own time.  With --noop, also the same calls with every engine kernel replaced by a
no-op callable (spla.backends.gpu.compile's spmv_module wrapped for the measurement) (the Python work of a call alone, allocations included; results not checked): the
rest of the host time is CuPy's kernel launches.  With --launch, the host time of launching an empty
kernel of 4, 16, 32 and 48 arguments (int64 scalars; and as many device pointers), CuPy's share.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np

import spla
from benchmarks.probes.probe_products import load_matrix, masked_inputs

KERNELS = ("scCSC", "veCSC", "scCOOC")


def enqueue_us(fn, reps=300):
    """Median host time (µs) that ``fn()`` takes to return, over ``reps`` calls after 20 warm-up calls."""
    import cupy as cp

    for _ in range(20):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for i in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if i % 100 == 99:
            cp.cuda.Device().synchronize()
    return statistics.median(times) * 1e6


def event_us(fn, reps=30):
    """Median wall time (µs) of one ``fn()`` between CUDA events, the device idle before each."""
    import cupy as cp

    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc16,kron18,kron20")
    ap.add_argument("--profile", default=None)
    ap.add_argument("--noop", action="store_true")
    ap.add_argument("--launch", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    from spla.backends.gpu import compile as gpu  # private: spmv_module (a seam for --noop)
    if args.launch:
        buf = cp.zeros(64, dtype=np.int64)
        for nargs in (4, 16, 32, 48):
            params = ", ".join(f"long long a{i}" for i in range(nargs))
            empty = cp.RawKernel(f'extern "C" __global__ void empty({params}) {{}}', "empty")
            scalars = tuple(np.int64(i) for i in range(nargs))
            pointers = tuple(np.uint64(buf.data.ptr) for _ in range(nargs))
            arrays = tuple(buf for _ in range(nargs))
            print(f"launch of {nargs:2d} args: numpy int64 {enqueue_us(lambda: empty((1,), (32,), scalars)):6.1f} us, "
                  f"uint64 pointers {enqueue_us(lambda: empty((1,), (32,), pointers)):6.1f} us, "
                  f"cupy arrays {enqueue_us(lambda: empty((1,), (32,), arrays)):6.1f} us", flush=True)
    for name in [g for g in args.graphs.split(",") if g]:
        A = load_matrix(name)
        u, mask = masked_inputs(A)
        for kern in KERNELS:
            def call(kern=kern):
                # y<mask> = u +.* A
                return spla.vxm(u, A, "plus_times", mask=mask, kernel=kern)
            print(f"{name:8s} {kern:7s} host {enqueue_us(call):7.1f} us  one call between events "
                  f"{event_us(call):7.1f} us", flush=True)
            if args.noop:
                real = gpu.spmv_module
                launches = {}

                class Recorder:
                    """The module's kernels, each replaced by a callable that only keeps its arguments."""

                    def __init__(self, inner):
                        self.inner = inner

                    def __getitem__(self, key):
                        fn = self.inner[key]

                        def record(*a, key=key, fn=fn):
                            launches[key] = len(a)
                        return record

                def noop_module(*a, **kw):
                    return Recorder(real(*a, **kw))
                gpu.spmv_module = noop_module
                try:
                    python_only = enqueue_us(call)
                finally:
                    gpu.spmv_module = real
                cp.cuda.Device().synchronize()
                print(f"{name:8s} {kern:7s} python alone {python_only:7.1f} us; kernels: {', '.join(launches)}",
                      flush=True)
            if args.profile == f"{name}:{kern}":
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(300):
                    call()
                prof.disable()
                cp.cuda.Device().synchronize()
                pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        A = None
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
