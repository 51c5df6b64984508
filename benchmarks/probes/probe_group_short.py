"""spla_group_reduce's short path on and off (SPLA_GROUP_SHORT 4 / 0), side by side in one process
(device time): the unmasked k = 1 product (kernel "auto") and the benchmark's 90%-masked product
(scCSC tiles, replace into out) per graph.  The macro's value in spla/kernels/spmv.cuh rests on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_group_short [--graphs myc16,myc17] [--out DIR]

The macro is a compile-time constant, not a tunable: the probe recompiles the spmv modules with it
(spla.backends.gpu's NVRTC_OPTIONS, its module cache cleared).
"""
from __future__ import annotations

import argparse

import numpy as np

import spla
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, load_matrix, masked_inputs, recorder, save_json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc16,myc17")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    from spla.backends.gpu import compile as gpu  # private: defines
    rows = []
    rec = recorder(rows, 36)
    for name in args.graphs.split(","):
        A = load_matrix(name)
        u, mask = masked_inputs(A)
        y = cp.empty(int(A.shape[1]), dtype=np.float32)
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        for short in (0, 4, 0, 4):  # twice each, alternating
            for label, m, want in (("unmasked", None, ref), ("masked", mask, cp.where(mask, ref, 0))):
                def step(m=m):
                    for _ in range(DEV_REPEAT):
                        # y<m, replace> = u +.* A
                        spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y)
                with gpu.defines(SPLA_GROUP_SHORT=short):
                    ms, _ = device_ms(step, f"{name} {label} {short}")
                rec(name, f"k=1 {label} SPLA_GROUP_SHORT={short}", ms, close(y, want))
    save_json(args.out, "probe_group_short.json", rows)


if __name__ == "__main__":
    main()
