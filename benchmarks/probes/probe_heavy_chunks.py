"""The k-block row kernel's chunk rule on and off, side by side in one process: the k = 32 float32
block product (device time) and all-sources betweenness (wall time, CUDA events, median of 5; graphs
of at most 70,000 vertices) on small and mid graphs.  Each line gives the chunk length the rule chose.
The tunables rows_heavy_chunk, rows_heavy_share and rows_heavy_min_chunks rest on it.

    PYTHONPATH=. python -m benchmarks.probes.probe_heavy_chunks [--graphs a,b,...] [--out DIR] [--no-bc]

"Never" is rows_heavy_min_chunks = inf: no graph has that many chunks per resident group, so the rule
never picks the heavy chunks.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import device_ms, save_json, wall_ms
from spla.algorithms import betweenness_centrality


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc12,myc15,ca-AstroPh,musae-facebook,kron16,kron18")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-bc", action="store_true", help="time only the k = 32 product")
    args = ap.parse_args()
    import cupy as cp

    from spla.backends.gpu import launch, layouts  # private: rows_chunk_of, rows_group

    rows = []
    for name in args.graphs.split(","):
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        U = cp.asarray(np.random.default_rng(0).random((n, 32), dtype=np.float32))
        Y = cp.empty_like(U)
        for heavy in ("never", "rule", "never", "rule"):
            min_chunks = math.inf if heavy == "never" else spla.tuning.current().rows_heavy_min_chunks
            with spla.tuning.override(rows_heavy_min_chunks=min_chunks):
                chunk = layouts.rows_chunk_of(A, A.colptr, launch.rows_group(32, np.dtype(np.float32)), 0,
                                              spla.tuning.current())

                def step():
                    for _ in range(16):
                        spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")  # Y = U +.* A
                k32, _ = device_ms(step, f"{name} k32 {heavy}")
                bc = wall_ms(lambda: betweenness_centrality(A, normalized=False), reps=5) if n <= 70000 and not args.no_bc else None
            row = {"graph": name, "heavy_chunks": heavy, "chunk": chunk, "k32_ms": k32, "bc_all_ms": bc}
            rows.append(row)
            print(row, flush=True)
        A = U = Y = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_heavy_chunks.json", rows)


if __name__ == "__main__":
    main()
