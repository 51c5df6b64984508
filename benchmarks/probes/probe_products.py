"""Masked 1-D products and k = 32 blocks, kernel variants side by side in one process (device time).

    PYTHONPATH=. python -m benchmarks.probes.probe_products [--graphs a,b,...] [--out DIR] [--quick]

Per graph (the spmv benchmark's big graphs by default):

* k = 1: the unmasked product with each kernel, and a mask keeping 10% of the columns (the
  benchmark's mask, rng seed 0) written into out with replace: scCSC's warp tiles (tile_r,
  tile_long / tile_chunk, chunks_per_warp and static chunks varied), scCSC and veCSC with the mask
  worklist (sccsc_tiles=False), scCOOC, auto; a mask keeping every column through each kernel;
* k = 32 float32 blocks: scCSC, veCSC component by component (spla_vecsc_block, vecsc_rows=False),
  veCSC in 16-byte row pieces (spla_vecsc_rows; rows_long / rows_chunk varied), cuSPARSE SpMM
  (column-major U);
* wall time of one call (CUDA events around the Python call) for unmasked k = 1 auto and the k = 32
  variants, as the benchmark's headline ratios use.

Device time: DEV_REPEAT products recorded once as a CUDA graph (spla.Replay) and replayed; the
median over REPLAYS replays / DEV_REPEAT.  Tunables are changed with ``spla.tuning.override`` while
recording.  Every result is compared with the unmasked scCSC product (float32, rtol 1e-4).  Prints a
line per case; JSON to DIR/probe_products.json.

The helpers below (device_ms, wall_ms, recorder, ...) serve the other probes too.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import spla
from benchmarks import graphs

DEV_REPEAT = 16
REPLAYS = 15
BIG = ["kron20", "kron21", "myc16", "myc17", "ws2M", "grid2000", "ba2M_m4"]


def wall_ms(f, reps=15):
    """Median CUDA-event time of ``f()`` (ms) over ``reps`` calls after two warm-up calls."""
    import cupy as cp

    f()
    f()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        e0.record()
        f()
        e1.record()
        e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(ts)


def device_ms(step, name):
    """(device time of one product, replay mode): ``step`` (DEV_REPEAT products) recorded as a CUDA
    graph, replayed REPLAYS times, median / DEV_REPEAT."""
    rep = spla.Replay(step, "gpu:0", name=name)
    rep()  # warm-up; the next call records
    return wall_ms(rep, REPLAYS) / DEV_REPEAT, rep.mode


def save_json(out, name, data):
    """Write ``data`` as DIR/name (indent 1) when a directory ``out`` was given."""
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        Path(out, name).write_text(json.dumps(data, indent=1))


def recorder(rows, width=44):
    """rec(graph, case, ms, ok, **extra): append a result dict to ``rows`` and print it as one line
    (``case`` padded to ``width``)."""
    def rec(graph, case, ms, ok, **extra):
        rows.append({"graph": graph, "case": case, "ms": ms, "ok": ok, **extra})
        print(f"{graph:10s} {case:{width}s} {ms:9.4f} ms  {'ok' if ok else 'WRONG'} "
              f"{' '.join(f'{k}={v}' for k, v in extra.items())}", flush=True)
    return rec


def probe_args(default_graphs):
    """The command line of a probe: --graphs (comma-separated benchmark graph names, default
    ``default_graphs``) and --out (folder of the JSON results, default: none written)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=default_graphs)
    ap.add_argument("--out", default=None)
    return ap.parse_args()


def load_matrix(name):
    """Graph ``name`` of the benchmark registry (benchmarks.graphs) as a spla.Matrix on the GPU."""
    (src, dst, n, directed), _ = graphs.load_edges(name)
    return spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")


def masked_inputs(A):
    """(u, mask) for the masked k = 1 probes, as the spmv benchmark draws them (rng seed 0): u (nrows,)
    float32 uniform in [0, 1), mask (ncols,) bool keeping about 10% of the columns; cupy arrays."""
    import cupy as cp

    rng = np.random.default_rng(0)
    u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
    return u, cp.asarray(rng.random(int(A.shape[1])) < 0.10)


def engine_block(A, U, name):
    """(Y, ref, ms) for the engine's plus_times block product Y = U +.* A (kernel veCSC, the row kernel
    for 16-byte rows): Y the (ncols, k) buffer the timed products wrote, ref an untimed product, ms the
    device time of one product."""
    import cupy as cp

    Y = cp.empty((int(A.shape[1]),) + tuple(U.shape[1:]), dtype=U.dtype)
    ref = spla.vxm(U, A, "plus_times", kernel="veCSC")

    def step():
        for _ in range(DEV_REPEAT):
            spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")  # Y = U +.* A
    ms, _ = device_ms(step, f"{name} engine rows")
    return Y, ref, ms


def close(a, b, rtol=1e-4):
    """Whether a and b (device or host arrays) agree within ``rtol``, in float64 on the host."""
    import cupy as cp

    a, b = cp.asnumpy(a).astype(np.float64), cp.asnumpy(b).astype(np.float64)
    return bool(np.allclose(a, b, rtol=rtol, atol=1e-5 * max(1.0, float(np.abs(b).max(initial=0)))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(BIG))
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true", help="fewer variants")
    ap.add_argument("--no-block", action="store_true")
    ap.add_argument("--no-mask", action="store_true")
    args = ap.parse_args()
    import cupy as cp

    rows = []
    rec = recorder(rows)

    for name in args.graphs.split(","):
        t0 = time.perf_counter()
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        del src, dst
        ncols = int(A.shape[1])
        print(f"# {name}: n={n} arcs={A.nnz} mean={A.nnz / ncols:.1f} built in {time.perf_counter() - t0:.1f} s",
              flush=True)
        rng = np.random.default_rng(0)
        u = cp.asarray(rng.random(int(A.shape[0]), dtype=np.float32))
        mask_h = rng.random(ncols) < 0.10
        mask = cp.asarray(mask_h)
        y = cp.empty(ncols, dtype=np.float32)
        ref = spla.vxm(u, A, "plus_times", kernel="scCSC")
        ref_m = cp.where(mask, ref, 0)

        def k1(kernel, m, label):
            """The k = 1 product under the tunables in force (callers change them with override)."""
            def step():
                for _ in range(DEV_REPEAT):
                    # y<m, replace> = u +.* A
                    spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y, kernel=kernel)
            y.fill(7)
            ms, mode = device_ms(step, label)
            ok = close(y, ref if m is None else ref_m)
            rec(name, label, ms, ok, mode=mode)
            return ms

        if not args.no_mask:
            unm = {}
            for kern in ("scCSC", "veCSC", "scCOOC", "auto"):
                unm[kern] = k1(kern, None, f"k1 unmasked {kern}")
            rec(name, "k1 unmasked auto (wall)", wall_ms(lambda: spla.vxm(u, A, "plus_times")), True)
            for kern in ("scCSC", "scCOOC", "auto"):
                k1(kern, mask, f"k1 masked {kern}")
            with spla.tuning.override(sccsc_tiles=False):
                k1("scCSC", mask, "k1 masked scCSC worklist (no tiles)")
            with spla.tuning.override(tile_chunks="static"):
                k1("scCSC", mask, "k1 masked scCSC tiles, static chunks")
            for cpw in (1, 8):
                with spla.tuning.override(chunks_per_warp=cpw):
                    k1("veCSC", mask, f"k1 masked veCSC worklist chunks/warp={cpw}")
            if not args.quick:
                for R in (2, 8):
                    with spla.tuning.override(tile_r=R):
                        k1("scCSC", mask, f"k1 masked scCSC tiles R={R}")
                for long, chunk in ((64, 256), (16, 256), (32, 128), (32, 512)):
                    with spla.tuning.override(tile_long=long, tile_chunk=chunk):
                        k1("scCSC", mask, f"k1 masked scCSC tiles LONG={long} CHUNK={chunk}")
                for cpw in (1, 2, 4, 16):
                    with spla.tuning.override(chunks_per_warp=cpw):
                        k1("scCSC", mask, f"k1 masked scCSC tiles chunks/warp={cpw}")
            full = cp.ones(ncols, dtype=cp.bool_)
            ref_m, keep = ref, mask
            mask = full
            k1("scCSC", full, "k1 mask=all scCSC tiles")
            with spla.tuning.override(sccsc_tiles=False):
                k1("scCSC", full, "k1 mask=all scCSC (no tiles)")
            k1("veCSC", full, "k1 mask=all veCSC")
            k1("scCOOC", full, "k1 mask=all scCOOC")
            mask = keep
            ref_m = cp.where(mask, ref, 0)
            ms = wall_ms(lambda: spla.vxm(u, A, "plus_times", mask=mask, kernel="scCSC"))
            rec(name, "k1 masked scCSC tiles fresh (wall)", ms, True)

        if args.no_block:
            continue
        mask = y = None
        cp.get_default_memory_pool().free_all_blocks()
        K = 32
        U = cp.asarray(rng.random((int(A.shape[0]), K), dtype=np.float32))
        U[:, 0] = u
        Y = cp.empty((ncols, K), dtype=np.float32)
        yref = spla.vxm(U[:, 7].copy(), A, "plus_times", kernel="scCSC")

        def blk(kernel, label):
            """The k = 32 product under the tunables in force (callers change them with override)."""
            def step():
                for _ in range(DEV_REPEAT):
                    # Y = U +.* A
                    spla.vxm(U, A, "plus_times", out=Y, kernel=kernel)
            Y.fill(7)
            ms, mode = device_ms(step, label)
            ok = close(Y[:, 7], yref) and close(Y[:, 0], ref)
            wall = wall_ms(lambda: spla.vxm(U, A, "plus_times", kernel=kernel), reps=7)
            rec(name, label, ms, ok, mode=mode, wall_ms=round(wall, 4), arcs=int(A.nnz))

        blk("scCSC", "k32 scCSC")
        with spla.tuning.override(vecsc_rows=False):
            blk("veCSC", "k32 veCSC scalar")
        with spla.tuning.override(vecsc_rows=True):
            blk("veCSC", "k32 veCSC rows")
        if not args.quick:
            for long, chunk in ((512, 256), (256, 128), (64, 32)):
                with spla.tuning.override(vecsc_rows=True, rows_long=long, rows_chunk=chunk, rows_heavy_chunk=chunk):
                    blk("veCSC", f"k32 veCSC rows LONG={long} CHUNK={chunk}")
        try:
            from benchmarks.peers import transpose_csr

            S = transpose_csr(A, np.float32, gpu=True)
            Uf = cp.asfortranarray(U)
            ms = wall_ms(lambda: S @ Uf, reps=7)
            rec(name, "k32 cuSPARSE SpMM (wall)", ms, close((S @ Uf)[:, 7], yref))
            S = Uf = None
        except Exception as e:  # noqa: BLE001
            print(f"cuSPARSE: {type(e).__name__}: {e}")
        U = Y = A = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_products.json", rows)


if __name__ == "__main__":
    main()
