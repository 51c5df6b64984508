"""k = 32 block products as windows on tensor cores (spla_vecsc_windows) against the row kernel, side
by side in one process (device time).  The tunables vecsc_windows, windows_min_reuse,
windows_min_rows, windows_sample, windows_seg, windows_segs and windows_min_waves rest on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_windows [--graphs a,b,...] [--out DIR] [--segs auto,256,...]
        [--k 32] [--no-diag] [--diags parts1,mma_acc] [--diag-seg auto]

Per graph (the spmv benchmark's big graphs by default): the k = 1 unmasked product (kernel "auto"),
the k = 32 float32 product Y = U +.* A with kernel veCSC as the row kernel (vecsc_windows = False)
and as windows (True) for each windows_seg, the sampled and the full reuse (entries per distinct
(window, row)) and the time to build the lists; as a diagnostic, windows with one bfloat16 part
instead of three (SPLA_WINDOWS_PARTS=1: inexact, never the product's), which times the kernel
without the two extra MMAs per tile, and windows whose running sums are the MMAs' own accumulators
(SPLA_WINDOWS_FRESH=0); both macros are compiled in through spla.backends.gpu's NVRTC_OPTIONS.
Every windows result is compared with the row kernel's (float32, rtol 1e-5).  The k = 32 / k = 1
ratio is 32 t1 / t32 (arc*vectors per second).  Prints a line per case; JSON to
DIR/probe_windows.json.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import spla
from benchmarks.probes.probe_products import BIG, DEV_REPEAT, close, device_ms, load_matrix, recorder, save_json


def block_ms(A, U, Y, name):
    """Device time of one k-block veCSC product into Y under the tunables in force."""
    spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")

    def step():
        for _ in range(DEV_REPEAT):
            spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")  # Y = U +.* A
    ms, _ = device_ms(step, name)
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(BIG))
    ap.add_argument("--out", default=None)
    ap.add_argument("--segs", default="auto,256,512,1024,2048", help="windows_seg values: 'auto' or ints")
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--no-diag", action="store_true", help="skip the compiled diagnostics")
    ap.add_argument("--diags", default="parts1,mma_acc", help="which compiled diagnostics to run (comma list)")
    ap.add_argument("--diag-seg", default="auto", help="windows_seg of the diagnostics ('auto' or an int)")
    args = ap.parse_args()
    import cupy as cp

    # private: window_reuse, window_lists, window_layout_of, use_windows, MASK_NONE, defines
    from spla.backends.gpu import compile as gpu_compile
    from spla.backends.gpu import windows

    rows = []
    rec = recorder(rows, 30)
    for name in args.graphs.split(","):
        A = load_matrix(name)
        n = int(A.shape[0])
        rng = cp.random.default_rng(0)
        u = rng.random(n, dtype=np.float32)
        y1 = cp.empty(int(A.shape[1]), dtype=np.float32)

        def step1():
            for _ in range(DEV_REPEAT):
                spla.vxm(u, A, "plus_times", out=y1)  # y = u +.* A
        t1, _ = device_ms(step1, f"{name} k=1")
        rec(name, "k=1 auto", t1, True, arcs=int(A.nnz))
        U = rng.random((n, args.k), dtype=np.float32)
        Y = cp.empty((int(A.shape[1]), args.k), dtype=np.float32)
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        sample = spla.tuning.current().windows_sample
        reuse_sample, rows_sample = windows.window_reuse(cp, A.colptr, A.rowidx, n, sample)
        cp.cuda.Device().synchronize()
        t_sample = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        lists = windows.window_lists(cp, A.colptr, A.rowidx, n)
        cp.cuda.Device().synchronize()
        t_build = (time.perf_counter() - t0) * 1e3
        rec(name, "reuse (sample / full)", t_build, True, sample=round(reuse_sample, 3),
            rows_per_window=round(rows_sample, 1),
            full=round(lists["reuse"], 3), sample_ms=round(t_sample, 2), distinct=int(lists["win_rows"].shape[0]))
        lists = None
        with spla.tuning.override(vecsc_windows=False):
            tr = block_ms(A, U, Y, f"{name} rows")
        ref = Y.copy()
        # accuracy: the largest error against a float64 product, relative to the largest result
        ref64 = spla.vxm(U.astype(np.float64), A, "plus_times", kernel="veCSC")
        scale = float(cp.abs(ref64).max())

        def err(Z):
            return float(cp.abs(Z.astype(np.float64) - ref64).max()) / scale

        rec(name, f"k={args.k} rows", tr, True, ratio=round(args.k * t1 / tr, 2), err=f"{err(ref):.2e}")
        for seg in [v if v == "auto" else int(v) for v in args.segs.split(",")]:
            Y.fill(-1)
            with spla.tuning.override(vecsc_windows=True, windows_seg=seg):
                tw = block_ms(A, U, Y, f"{name} windows {seg}")
            with spla.tuning.override(windows_seg=seg):
                chosen = windows.window_layout_of(cp, A, A.colptr, A.rowidx, args.k, cp.cuda.Device().id,
                                                  spla.tuning.current())[2]
            rec(name, f"k={args.k} windows seg={seg}", tw, close(Y, ref, 1e-5), ratio=round(args.k * t1 / tw, 2),
                vs_rows=round(tr / tw, 2), err=f"{err(Y):.2e}", seg=chosen)
        # variants compiled with other defines: one bfloat16 part instead of three (inexact: the time the
        # two extra MMAs cost) and running sums kept in the MMAs' own accumulators
        diags = {"parts1": ("1 part (inexact)", {"SPLA_WINDOWS_PARTS": 1}),
                 "mma_acc": ("MMA accumulators only", {"SPLA_WINDOWS_FRESH": 0})}
        for label, define in () if args.no_diag else [diags[d] for d in args.diags.split(",")]:
            with gpu_compile.defines(**define):
                Y.fill(-1)
                diag_seg = args.diag_seg if args.diag_seg == "auto" else int(args.diag_seg)
                with spla.tuning.override(vecsc_windows=True, windows_seg=diag_seg):
                    tw = block_ms(A, U, Y, f"{name} windows {label}")
                rec(name, f"k={args.k} windows, {label}", tw, close(Y, ref, 1e-2 if "part" in label else 1e-5),
                    ratio=round(args.k * t1 / tw, 2), vs_rows=round(tr / tw, 2), err=f"{err(Y):.2e}")
        with spla.tuning.override(vecsc_windows="auto"):
            Y.fill(-1)
            spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")
            rec(name, "auto picks windows", 0.0, close(Y, ref, 1e-5),
                windows=bool(windows.use_windows(cp, A, A.colptr, A.rowidx, "plus", "times", np.dtype(np.float32),
                                                 True, args.k, gpu_compile.MASK_NONE, True, 0,
                                                 spla.tuning.current())))
        A = U = Y = ref = ref64 = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_windows.json", rows)


if __name__ == "__main__":
    main()
