"""Where the device time of a 90%-masked tiles product goes: its kernels against the graph nodes around
them.  The masked tiles' launch design (no memset node in front of a product: the listing and the
per-column counters kept per stream and reset by the kernels themselves) rests on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_tile_nodes [--graphs a,b] [--ncu]

Per graph (the benchmark's u and 10% mask, out=y with replace, kernel "scCSC": the warp tiles), device
time of one product (DEV_REPEAT products recorded as a CUDA graph with spla.Replay, replayed): the
product; DEV_REPEAT 8-byte memsets alone; DEV_REPEAT empty one-block kernels alone (what a graph node
costs with no work); the unmasked product; the host time of one masked call (perf_counter, median of
300, a fresh output each) -- and checks the masked result against the unmasked one.  With --ncu,
only three eager masked products per graph after a warm-up, for ``ncu --clock-control none --metrics
gpu__time_duration.sum -k regex:spla`` to time each kernel alone: the product's device time less its
kernels' is what its nodes cost.
"""
from __future__ import annotations

import argparse

import numpy as np

import spla
from benchmarks.probes.probe_host_path import enqueue_us
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, load_matrix, masked_inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc16,myc17,kron20,ba2M_m4")
    ap.add_argument("--ncu", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    empty = cp.RawKernel('extern "C" __global__ void spla_probe_empty(long long a) {}', "spla_probe_empty")
    scratch = cp.zeros(8, dtype=np.int64)
    stream = lambda: cp.cuda.get_current_stream().ptr  # noqa: E731

    def memsets():
        for _ in range(DEV_REPEAT):
            cp.cuda.runtime.memsetAsync(scratch.data.ptr, 0, 8, stream())

    def empties():
        for _ in range(DEV_REPEAT):
            empty((1,), (32,), (np.int64(0),))

    if not args.ncu:
        print(f"memset node {device_ms(memsets, 'memsets')[0] * 1e3:6.2f} us, empty kernel node "
              f"{device_ms(empties, 'empties')[0] * 1e3:6.2f} us", flush=True)
    for name in [g for g in args.graphs.split(",") if g]:
        A = load_matrix(name)
        u, mask = masked_inputs(A)
        y = cp.zeros(int(A.shape[1]), dtype=np.float32)

        def masked():
            # y<mask, replace> = u +.* A
            spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel="scCSC")

        if args.ncu:
            masked()
            cp.cuda.Device().synchronize()
            for _ in range(3):
                masked()
            cp.cuda.Device().synchronize()
            print(f"{name}: 3 masked products", flush=True)
        else:
            def step(f=masked):
                for _ in range(DEV_REPEAT):
                    f()

            def unmasked_step():
                for _ in range(DEV_REPEAT):
                    spla.vxm(u, A, "plus_times", out=y)  # y = u +.* A
            m = device_ms(step, f"{name} masked")[0] * 1e3
            masked_y = y.copy()
            full = device_ms(unmasked_step, f"{name} unmasked")[0] * 1e3
            ok = close(masked_y, cp.where(mask, y, 0))
            host = enqueue_us(lambda: spla.vxm(u, A, "plus_times", mask=mask, kernel="scCSC"))  # y<mask> = u +.* A
            print(f"{name:10s} masked tiles {m:7.2f} us  unmasked auto {full:7.2f} us  ratio {full / m:5.2f}  "
                  f"host {host:6.1f} us/call  equal {ok}", flush=True)
        A = None
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
