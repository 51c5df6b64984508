"""Masked k = 1 products by kernel and mask density, side by side in one process (device time).

    PYTHONPATH=. python -m benchmarks.probes.probe_mask_density [--graphs a,b,...] [--out DIR]

Per graph and per fraction p of the columns that a random mask keeps (rng seed 0): the plus_times
float32 product ``y<mask, replace> = u +.* A`` with scCOOC, scCSC (its warp tiles) and veCSC (its
worklist rule), and the unmasked product by "auto"; device time (probe_products.device_ms),
each result compared with the unmasked scCSC product.  Also the wall time of counting the mask's
kept columns on the host side (``int(cp.count_nonzero(mask))``, a device-to-host copy), the price of
a choice that would read the mask.  It calibrates what ``kernel="auto"`` does with a mask of
unknown density (spla.choose_kernel with masked=True; the tunable unknown_tiles_waves).
"""
from __future__ import annotations

import numpy as np

import spla
from benchmarks.probes.probe_products import close, device_ms, load_matrix, probe_args, recorder, save_json, wall_ms

GRAPHS = "kron18,kron20,kron21,ba1M_m4,ba2M_m4,myc16,myc17,ws2M,grid2000,ca-AstroPh,musae-facebook"
DENSITIES = (1.0, 0.75, 0.5, 0.25, 0.1, 0.03, 0.01, 0.001)
KERNELS = ("scCOOC", "scCSC", "veCSC")
DEV_REPEAT = 16


def main():
    args = probe_args(GRAPHS)
    import cupy as cp

    rows = []
    rec = recorder(rows, 30)
    for name in args.graphs.split(","):
        A = load_matrix(name)
        ncols = int(A.shape[1])
        rng = np.random.default_rng(0)
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        draw = cp.asarray(rng.random(ncols))
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        y = cp.empty(ncols, dtype=np.float32)
        auto = spla.choose_kernel(A, masked=True)[0]

        def unmasked():
            for _ in range(DEV_REPEAT):
                # y = u +.* A
                spla.vxm(u, A, "plus_times", out=y)
        ms, _ = device_ms(unmasked, f"{name} unmasked")
        rec(name, "unmasked auto", ms, close(y, ref), auto_masked=auto)
        for p in DENSITIES:
            mask = draw < p
            want = cp.where(mask, ref, 0)
            kept = int(cp.count_nonzero(mask))
            for kern in KERNELS:
                def step(kern=kern, mask=mask):
                    for _ in range(DEV_REPEAT):
                        # y<mask, replace> = u +.* A
                        spla.vxm(u, A, "plus_times", mask=mask, replace=True, out=y, kernel=kern)
                y.fill(7)
                ms, _ = device_ms(step, f"{name} {p} {kern}")
                rec(name, f"p={p:<6g} {kern}", ms, close(y, want), kept=kept)
        mask = draw < 0.1
        ms = wall_ms(lambda: int(cp.count_nonzero(mask)))
        rec(name, "count_nonzero + copy (wall)", ms, True)
        A = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_mask_density.json", rows)


if __name__ == "__main__":
    main()
