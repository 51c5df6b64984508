"""push's lanes per input (k = 1) against the frontier's size, on the graphs single-source betweenness pushes.

    PYTHONPATH=. python -m benchmarks.probes.probe_push_group [--graphs a,b,...] [--arcs 1e3,1e4,...] [--out DIR]

push walks the rows of the inputs that are not the identity, a group of G lanes per input
(spla.backends.gpu.launch.push_group_size: the smallest power of two >= the mean row length, in [2, 32];
the tunable vecsc_group, when set, fixes G for push as for veCSC).  The rule rests on this probe.
For each graph and frontier size (random vertices until their out-arcs reach --arcs),
betweenness's forward step y<!reached> += x +.first A (float64, accum plus, half of the vertices
reached) by push at G = 2 .. 32 (vecsc_group) and at the rule's G, in device time
(probe_products.device_ms), each checked against scCSC.  JSON to DIR/probe_push_group.json.
"""
from __future__ import annotations

import argparse

import numpy as np

import spla
from benchmarks.probes.probe_products import DEV_REPEAT, close, device_ms, load_matrix, recorder, save_json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="kron18,kron20,ba1M_m4,ws2M,myc15,grid2000")
    ap.add_argument("--arcs", default="1e3,1e4,1e5,1e6")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import cupy as cp

    from spla.backends.gpu import launch  # private: push_group_size

    rows = []
    rec = recorder(rows, 30)
    rule = launch.push_group_size
    for name in args.graphs.split(","):
        A = load_matrix(name)
        n = int(A.shape[0])
        deg = A.out_degree().get()
        rule_g = rule(A.T)
        print(f"# {name}: n={n} arcs={A.nnz} mean={A.nnz / n:.1f} rule G={rule_g}", flush=True)
        rng = np.random.default_rng(0)
        order = rng.permutation(n)
        reached = cp.asarray(rng.random(n) < 0.5)
        dst0 = cp.asarray(rng.random(n))
        dst = cp.empty(n, dtype=np.float64)
        for target in (float(a) for a in args.arcs.split(",")):
            take = int(np.searchsorted(np.cumsum(deg[order]), target)) + 1
            frontier = order[:take]
            x = np.zeros(n)
            x[frontier] = rng.random(take) + 0.5
            x = cp.asarray(x)
            want = spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=dst0.copy(),
                            kernel="scCSC")
            facts = dict(inputs=take, arcs_pushed=int(deg[frontier].sum()), rule=rule_g)
            for g in (2, 4, 8, 16, 32):
                def step():
                    dst[...] = dst0
                    for _ in range(DEV_REPEAT):
                        # dst<!reached> += x +.first A, pushed from x's non-identity inputs
                        spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=dst,
                                 kernel="push")
                with spla.tuning.override(vecsc_group=g):  # push's group too
                    ms, _ = device_ms(step, f"{name} push G={g}")
                    dst[...] = dst0
                    spla.vxm(x, A, "plus_first", mask=reached, complement=True, accum="plus", out=dst, kernel="push")
                    ok = close(dst, want)
                rec(name, f"{int(target):>8d} arcs G={g}{' (rule)' if g == rule_g else ''}", ms, ok, **facts)
        cp.get_default_memory_pool().free_all_blocks()
    save_json(args.out, "probe_push_group.json", rows)


if __name__ == "__main__":
    main()
