"""Triangle counting by masked SpGEMM against cuSPARSE's unmasked product then the mask.

spla:      L = tril(A, -1);  C<L> = L +.pair L';  t = sum(C)        (``algorithms.triangle_count``'s
           products, the mask computed inside the product)
cuSPARSE:  C = L @ L' (``cupyx.scipy.sparse``, float32 ones, every entry of the product);
           t = sum(C .* L)                                          (the mask applied afterwards)

Both from the same L on the GPU (building L is not timed).  Median wall time of ``--repeat`` calls
after a warm-up, synchronised with CUDA events; peak memory is what CuPy's pool holds after one
call that started from an empty pool.  Counts are checked against each other.

    PYTHONPATH=. python -m benchmarks.probes.probe_triangles [--graphs kron16,myc13,...] [--out F.json]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

DEFAULT = "kron14,kron16,kron18,myc11,myc12,myc13,ca-AstroPh,email-Enron,musae-facebook,delaunay_n16,wave"


def _timed(cp, fn, repeat):
    fn()  # warm-up: compiles, pool grown
    times = []
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times)), out


def _peak(cp, fn):
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    base = pool.total_bytes()
    fn()
    cp.cuda.Device().synchronize()
    return int(pool.total_bytes() - base)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", default=DEFAULT)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out")
    args = p.parse_args(argv)

    import cupy as cp
    import cupyx.scipy.sparse as cpsp

    import spla
    from benchmarks.graphs import load_edges

    rows = []
    for name in args.graphs.split(","):
        (src, dst, n, _directed), _ = load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=False, device="gpu")
        A = spla.select(A, "offdiag")
        L = spla.select(A, "tril", -1)
        Lc = cpsp.csc_matrix((cp.ones(L.nnz, dtype=np.float32), cp.asarray(L.rowidx), cp.asarray(L.colptr)),
                             shape=L.shape).tocsr()

        def ours():
            C = spla.mxm(L, L.T, "plus_pair", mask=L)          # C<L> = L +.pair L'
            return int(spla.reduce_scalar(C, "plus"))

        def cusparse():
            C = Lc @ Lc.T                                       # every entry of L L'
            return int(round(float(C.multiply(Lc).sum())))      # then the mask

        row = dict(graph=name, n=int(n), arcs=int(A.nnz))
        for label, fn in (("spla", ours), ("cusparse", cusparse)):
            try:
                ms, count = _timed(cp, fn, args.repeat)
                row[f"{label}_ms"], row[f"{label}_triangles"] = round(ms, 3), count
                row[f"{label}_peak_bytes"] = _peak(cp, fn)
            except Exception as exc:  # noqa: BLE001 - report and go on (out of memory on the unmasked product)
                row[f"{label}_error"] = f"{type(exc).__name__}: {exc}"[:200]
        if "spla_ms" in row and "cusparse_ms" in row:
            row["cusparse/spla"] = round(row["cusparse_ms"] / row["spla_ms"], 2)
            row["checked"] = row["spla_triangles"] == row["cusparse_triangles"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
