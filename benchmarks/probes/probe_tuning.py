"""Compile-time variants of the latency-bound kernels, side by side in one process (device time).

    PYTHONPATH=. python3 tools/probe_tuning.py [--graphs a,b,...] [--out DIR] [--no-block] [--no-mask]

Each variant is a set of spmv.cuh macros (SPLA_ROWS_MIN_BLOCKS, SPLA_ROWS_UNROLL, SPLA_TILE_MIN_BLOCKS,
SPLA_GROUP_SHORT)
passed to NVRTC (the module cache is cleared between variants) and of module switches of
spla.backends.gpu (TILE_GROUP, TILE_MIN_WARPS, TILE_LANE_ENTRIES, TILE_CHUNK, TILE_LONG, TILE_CHUNKS,
LISTED_CHUNK, CHUNKS_PER_WARP, ROWS_ORDER, ROWS_LONG, ROWS_CHUNK, ROWS_HEAVY_SHARE), set
while recording.  Per graph and variant: the benchmark's 90%-masked k = 1 product (scCSC tiles, replace into out) and the k = 32 float32 block
(veCSC rows), in device time (tools/probe_products.device_ms), each checked against the unmasked
scCSC product.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import cupy as cp
import numpy as np

import spla
from benchmarks import graphs
from probe_products import BIG, DEV_REPEAT, close, device_ms, recorder, save_json, wall_ms
from spla.backends import gpu as G

#: (macros, module switches of spla.backends.gpu) per variant
MASK_VARIANTS = [({}, {}), ({"SPLA_GROUP_SHORT": 0}, {}), ({}, {"LISTED_CHUNK": 256}), ({}, {"LISTED_CHUNK": 1024}),
                 ({"SPLA_GROUP_SHORT": 8}, {"LISTED_CHUNK": 1024}), ({}, {"TILE_CHUNKS": "listed"}),
                 ({}, {"TILE_CHUNKS": "fused"})]
ROWS_VARIANTS = [({}, {}), ({}, {"ROWS_HEAVY_SHARE": 2.0})]
BASE_OPTIONS = G.NVRTC_OPTIONS


def use(defines):
    G.NVRTC_OPTIONS = BASE_OPTIONS + tuple(f"-D{k}={v}" for k, v in defines.items())
    G._spmv_module.cache_clear()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(BIG))
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-block", action="store_true")
    ap.add_argument("--no-mask", action="store_true")
    args = ap.parse_args()
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
        use({})
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        ref_m = cp.where(mask, ref, 0)
        y = cp.empty(ncols, dtype=np.float32)
        if not args.no_mask:
            unmasked = True
            for d, sw in MASK_VARIANTS:
                use(d)
                saved = {k: getattr(G, k) for k in sw}
                for k, v in sw.items():
                    setattr(G, k, v)
                for kern, m, want in (("scCSC", mask, ref_m),) + ((("auto", None, ref),) if unmasked else ()):
                    def step(kern=kern, m=m):
                        for _ in range(DEV_REPEAT):
                            # y<m, replace> = u +.* A
                            spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y, kernel=kern)
                    y.fill(7)
                    ms, mode = device_ms(step, f"{name} {d} {kern}")
                    rec(name, f"k1 {'masked' if m is not None else 'unmasked'} {kern} {d} {sw}", ms, close(y, want),
                        mode=mode)
                unmasked = False
                for k, v in saved.items():
                    setattr(G, k, v)
        if args.no_block:
            continue
        mask = y = None
        K = 32
        U = cp.asarray(rng.random((int(A.shape[0]), K), dtype=np.float32))
        U[:, 0] = u
        Y = cp.empty((ncols, K), dtype=np.float32)
        ref7 = spla.vxm(U[:, 7].copy(), A, "plus_times", kernel="scCSC")
        for d, sw in ROWS_VARIANTS:
            use(d)
            saved = {k: getattr(G, k) for k in sw}
            for k, v in sw.items():
                setattr(G, k, v)

            def bstep():
                for _ in range(DEV_REPEAT):
                    # Y = U +.* A
                    spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")
            try:
                Y.fill(7)
                ms, mode = device_ms(bstep, f"{name} {d} rows")
                wall = wall_ms(lambda: spla.vxm(U, A, "plus_times", kernel="veCSC"), reps=7)
                rec(name, f"k32 veCSC rows {d} {sw}", ms, close(Y[:, 0], ref) and close(Y[:, 7], ref7), mode=mode,
                    wall_ms=round(wall, 4))
            except Exception as e:  # noqa: BLE001
                print(f"{name} {d} {sw}: {type(e).__name__}: {e}", flush=True)
            for k, v in saved.items():
                setattr(G, k, v)
        use({})
        del U, Y, A
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_tuning.json", rows)


if __name__ == "__main__":
    main()
