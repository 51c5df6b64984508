"""Does the order in which the k = 32 row kernel walks the columns change its row reuse?  (device time)

    PYTHONPATH=. python -m benchmarks.probes.probe_column_order [--graphs a,b,...] [--out DIR]

The row kernel (spla_vecsc_rows) walks columns in index order; U's rows a column reads are reused
on chip only when columns walked at the same time share rows.  Per graph, the k = 32 float32 product
Y = U +.* A[:, perm] for column orders perm (the matrix's columns permuted on the host, so the
kernel is unchanged and walks perm's order; Y's rows come out permuted, checked against the
unpermuted product):
  identity; by first row (each column's smallest row index); by degree (descending); reverse
  Cuthill-McKee of the symmetric pattern (scipy.sparse.csgraph); a random order (the worst case).
Prints a line per case; JSON to DIR/probe_column_order.json.  The row kernel's column order
(rows_order: longest columns first, for balance, never for reuse) rests on it.
"""
from __future__ import annotations

import argparse

import numpy as np
from scipy.sparse.csgraph import reverse_cuthill_mckee

import spla
from benchmarks import graphs
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, save_json

GRAPHS = ["myc16", "myc17", "ba2M_m4", "kron20"]


def orders(S, directed):
    """{name: column permutation} for the CSC pattern S (square; symmetric unless ``directed``)."""
    n = S.shape[1]
    lens = np.diff(S.indptr)
    first = np.where(lens > 0, S.indices[np.minimum(S.indptr[:-1], max(S.nnz - 1, 0))], n)
    out = {"identity": np.arange(n), "first row": np.argsort(first, kind="stable"),
           "degree": np.argsort(-lens, kind="stable"),
           "random": np.random.default_rng(0).permutation(n)}
    sym = (S + S.T).tocsr() if directed else S.tocsr()
    out["rcm"] = reverse_cuthill_mckee(sym, symmetric_mode=True).astype(np.int64)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    rows = []
    for name in args.graphs.split(","):
        (src, dst, n, directed), _ = graphs.load_edges(name)
        A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="cpu")
        del src, dst
        S = A.to_scipy().tocsc()
        S.sort_indices()
        K = 32
        rng = np.random.default_rng(0)
        U = cp.asarray(rng.random((n, K), dtype=np.float32))
        ref = None
        for oname, perm in orders(S, A.directed).items():
            Sp = S[:, perm].tocsc()
            Ap = spla.Matrix.from_scipy(Sp, directed=True, device="gpu")
            Y = cp.empty((n, K), dtype=np.float32)

            def step(Ap=Ap, Y=Y):
                for _ in range(DEV_REPEAT):
                    # Y = U +.* A[:, perm]
                    spla.vxm(U, Ap, "plus_times", out=Y, kernel="veCSC")
            ms, mode = device_ms(step, f"{name} {oname}")
            got = Y
            if ref is None:
                ref = Y.copy()
                ok = True
            else:
                ok = close(got, ref[cp.asarray(perm)])
            rows.append({"graph": name, "order": oname, "ms": ms, "ok": bool(ok), "mode": mode})
            print(f"{name:10s} k32 rows order={oname:10s} {ms:8.4f} ms {'ok' if ok else 'WRONG'}", flush=True)
            Ap = Y = None
            cp.get_default_memory_pool().free_all_blocks()
        U = ref = None
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_column_order.json", rows)


if __name__ == "__main__":
    main()
