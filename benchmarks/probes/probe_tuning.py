"""Compile-time variants of the latency-bound kernels and tunables of their launches, side by side in
one process (device time).  The tunables listed_chunk, tile_chunks, tile_fused_max_chunks,
rows_heavy_* and rows_order and the spmv.cuh macros SPLA_GROUP_SHORT, SPLA_ROWS_* and SPLA_TILE_*
rest on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_tuning [--graphs a,b,...] [--out DIR] [--no-block] [--no-mask]

Each variant is a set of spmv.cuh macros (SPLA_ROWS_MIN_BLOCKS, SPLA_ROWS_UNROLL, SPLA_TILE_MIN_BLOCKS,
SPLA_GROUP_SHORT; passed to NVRTC through spla.backends.gpu's NVRTC_OPTIONS, the module cache cleared
between variants) and of tunables (spla.tuning: tile_group, tile_min_warps, tile_lane_entries,
tile_chunk, tile_long, tile_chunks, listed_chunk, chunks_per_warp, rows_order, rows_long, rows_chunk,
rows_heavy_*), overridden while recording.  Per graph and variant: the benchmark's 90%-masked k = 1
product (scCSC tiles, replace into out) and the k = 32 float32 block (veCSC rows), in device time
(probe_products.device_ms), each checked against the unmasked scCSC product.  Edit the variant
tables below to compare other values.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import BIG, DEV_REPEAT, close, device_ms, recorder, save_json, wall_ms


def _checked(variants):
    """``variants`` after checking every tunable name and value at the door (an unknown one raises)."""
    for _macros, tunables in variants:
        with spla.tuning.override(**tunables):
            pass
    return variants


#: (spmv.cuh macros, tunables of spla.tuning) per variant
MASK_VARIANTS = _checked([({}, {}), ({"SPLA_GROUP_SHORT": 0}, {}), ({}, {"listed_chunk": 256}),
                          ({}, {"listed_chunk": 1024}), ({"SPLA_GROUP_SHORT": 8}, {"listed_chunk": 1024}),
                          ({}, {"tile_chunks": "listed"}), ({}, {"tile_chunks": "fused"})])
#: rows_heavy_min_chunks = inf: the rule never picks the heavy chunks
ROWS_VARIANTS = _checked([({}, {}), ({}, {"rows_heavy_min_chunks": math.inf})])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(BIG))
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-block", action="store_true")
    ap.add_argument("--no-mask", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    from spla.backends.gpu import compile as gpu  # private: defines

    rows = []
    rec = recorder(rows, 60)
    for name in args.graphs.split(","):
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        del src, dst
        ncols = int(A.shape[1])
        rng = np.random.default_rng(0)
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        mask = cp.asarray(rng.random(ncols) < 0.10)
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        ref_m = cp.where(mask, ref, 0)
        y = cp.empty(ncols, dtype=np.float32)
        if not args.no_mask:
            unmasked = True
            for d, sw in MASK_VARIANTS:
                with gpu.defines(**d), spla.tuning.override(**sw):
                    for kern, m, want in (("scCSC", mask, ref_m),) + ((("auto", None, ref),) if unmasked else ()):
                        def step(kern=kern, m=m):
                            for _ in range(DEV_REPEAT):
                                # y<m, replace> = u +.* A
                                spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y, kernel=kern)
                        y.fill(7)
                        ms, mode = device_ms(step, f"{name} {d} {kern}")
                        rec(name, f"k1 {'masked' if m is not None else 'unmasked'} {kern} {d} {sw}", ms,
                            close(y, want), mode=mode)
                unmasked = False
        if args.no_block:
            continue
        mask = y = None
        K = 32
        U = cp.asarray(rng.random((int(A.shape[0]), K), dtype=np.float32))
        U[:, 0] = u
        Y = cp.empty((ncols, K), dtype=np.float32)
        ref7 = spla.vxm(U[:, 7].copy(), A, "plus_times", kernel="scCSC")
        for d, sw in ROWS_VARIANTS:
            with gpu.defines(**d), spla.tuning.override(**sw):
                def bstep():
                    for _ in range(DEV_REPEAT):
                        # Y = U +.* A
                        spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")
                try:
                    Y.fill(7)
                    ms, mode = device_ms(bstep, f"{name} {d} rows")
                    wall = wall_ms(lambda: spla.vxm(U, A, "plus_times", kernel="veCSC"), reps=7)
                    rec(name, f"k32 veCSC rows {d} {sw}", ms, close(Y[:, 0], ref) and close(Y[:, 7], ref7),
                        mode=mode, wall_ms=round(wall, 4))
                except Exception as e:  # noqa: BLE001
                    print(f"{name} {d} {sw}: {type(e).__name__}: {e}", flush=True)
        U = Y = A = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_tuning.json", rows)


if __name__ == "__main__":
    main()
