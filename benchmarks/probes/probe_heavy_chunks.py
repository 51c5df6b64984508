"""The k-block row kernel's chunk rule on and off (ROWS_HEAVY_SHARE 0.5 and 2.0: never the heavy
chunks), side by side in one process: the k = 32 float32 block product (device time) and all-sources
betweenness (wall time, CUDA events, median of 5; graphs of at most 70,000 vertices) on small and mid
graphs.  Each line gives the chunk length the rule chose.

    PYTHONPATH=. python3 tools/probe_heavy_chunks.py [--graphs a,b,...] [--out DIR] [--no-bc]
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
from spla.algorithms import betweenness_centrality
from benchmarks import graphs
from probe_products import Switch, device_ms, save_json, wall_ms
from spla.backends import gpu as G


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="myc12,myc15,ca-AstroPh,musae-facebook,kron16,kron18")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-bc", action="store_true", help="time only the k = 32 product")
    args = ap.parse_args()
    rows = []
    for name in args.graphs.split(","):
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
        U = cp.asarray(np.random.default_rng(0).random((n, 32), dtype=np.float32))
        Y = cp.empty_like(U)
        for share in (2.0, 0.5, 2.0, 0.5):
            with Switch(ROWS_HEAVY_SHARE=share):
                chunk = G._rows_chunk(A, A.colptr, G._rows_group(32, np.dtype(np.float32)), 0)

                def step():
                    for _ in range(16):
                        spla.vxm(U, A, "plus_times", out=Y, kernel="veCSC")  # Y = U +.* A
                k32, _ = device_ms(step, f"{name} k32 {share}")
                bc = wall_ms(lambda: betweenness_centrality(A, normalized=False), reps=5) if n <= 70000 and not args.no_bc else None
            row = {"graph": name, "share": share, "chunk": chunk, "k32_ms": k32, "bc_all_ms": bc}
            rows.append(row)
            print(row, flush=True)
        del A, U, Y
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_heavy_chunks.json", rows)


if __name__ == "__main__":
    main()
