"""Section ``pagerank``: one PageRank iteration against one cuSPARSE SpMV.

``algorithms.pagerank`` returns only the vector, so iterations are counted by
forcing them: ``pagerank(A, max_iter=K, tol=1e-300)`` runs exactly K iterations
and then raises its non-convergence error, which the harness catches.  The time
of one iteration is (t(K2) - t(K1)) / (K2 - K1), free of set-up cost; t(K2)/K2 is
reported too.  The yardstick is one cuSPARSE CSR SpMV (float64, and float32) on
the same graph (target: one iteration <= 1.5x one SpMV).

Checked before timing: ``pagerank(A, tol=1e-4/n)`` (so the sum of |change| <
1e-4 stops it, as networkx's rule n*tol) against the SciPy reference run with the
same rule, which follows networkx's ``_pagerank_scipy``; both make the same
iterates, so they agree to rounding.
"""

from __future__ import annotations

import numpy as np

from .core import Bench, host
from .reference import allclose_report
from .reference import pagerank as ref_pagerank

NAME = "pagerank"
GRAPHS = {
    "tiny": ["kron10", "jazz"],
    "quick": ["kron20", "grid2000", "musae-facebook", "wave"],
    "full": ["kron20", "kron21", "myc16", "ws2M", "grid2000", "ba2M_m4", "musae-facebook", "wave"],
}
K1, K2 = 5, 105  # 100 iterations apart: small graphs iterate in tens of µs, below the set-up noise
REF_ARCS = {"tiny": 10**9, "quick": 4 * 10**7, "full": 8 * 10**7}


def _is_nonconvergence(e: Exception) -> bool:
    try:
        from spla.errors import ConvergenceError  # type: ignore

        if isinstance(e, ConvergenceError):
            return True
    except Exception:  # noqa: BLE001
        pass
    return "converge" in f"{type(e).__name__} {e}".lower()


def forced_iterations(alg, A, k: int):
    """A callable running exactly k PageRank iterations (non-convergence is expected)."""
    def fn():
        try:
            alg.pagerank(A, max_iter=k, tol=1e-300)
        except Exception as e:  # noqa: BLE001
            if not _is_nonconvergence(e):
                raise
        return None
    return fn


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("pagerank")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        n, arcs = gf["n"], gf["arcs"]
        tol = 1e-4 / max(n, 1)

        if arcs <= REF_ARCS[b.opts.mode]:
            def check(got):
                want, it = ref_pagerank(b.ref(name), tol=tol)
                ok, detail = allclose_report(host(got), want, rtol=1e-7, atol=1e-13)
                return ok, f"reference stopped after {it} iterations; {detail}"
        else:
            def check(got):
                x = host(got)
                ok = x.shape == (n,) and np.isfinite(x).all() and abs(x.sum() - 1) < 1e-6
                return bool(ok), "graph too large for the CPU reference in this mode: sum(x)=1 and finite only"

        b.measure(NAME, {**gf, "measure": "pagerank_converged", "system": "spla", "tol": tol},
                  lambda: alg.pagerank(A, tol=tol), check=check)
        r1 = b.measure(NAME, {**gf, "measure": f"pagerank_iter{K1}", "system": "spla", "iterations": K1},
                       forced_iterations(alg, A, K1))
        r2 = b.measure(NAME, {**gf, "measure": f"pagerank_iter{K2}", "system": "spla", "iterations": K2},
                       forced_iterations(alg, A, K2))
        if r1.get("median_ms") is not None and r2.get("median_ms") is not None:
            b.note(NAME, {**gf, "measure": "pagerank_per_iteration", "system": "spla",
                          "median_ms": (r2["median_ms"] - r1["median_ms"]) / (K2 - K1),
                          "incl_setup_ms": r2["median_ms"] / K2, "derived_from": [K1, K2]})
        # the yardstick: one CSR SpMV on the same graph
        try:
            from .peers import transpose_csr

            xp = b.xp
            for dt, label in ((np.float64, "f64"), (np.float32, "f32")):
                S = transpose_csr(A, dt, gpu=b.gpu)
                x = xp.asarray(np.random.default_rng(1).random(n).astype(dt))
                b.measure(NAME, {**gf, "measure": f"spmv_{label}", "system": "cusparse" if b.gpu else "scipy"},
                          lambda S=S, x=x: S @ x)
                del S, x
        except Exception as e:  # noqa: BLE001
            b.note(NAME, {**gf, "measure": "spmv", "status": "error", "error": f"{type(e).__name__}: {e}"})


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("median_ms") is None:
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs")})
        m = r.get("measure")
        if m == "pagerank_per_iteration":
            g["iter_ms"] = r["median_ms"]
            g["iter_incl_ms"] = r.get("incl_setup_ms")
        elif m == "pagerank_converged":
            g["converged_ms"] = r["median_ms"]
            g["checked"] = r.get("checked")
        elif m in ("spmv_f64", "spmv_f32"):
            g[m + "_ms"] = r["median_ms"]
            g["peer"] = r.get("system")
    for g in per.values():
        if g.get("iter_ms") and g.get("spmv_f64_ms"):
            g["iter_vs_spmv"] = g["iter_ms"] / g["spmv_f64_ms"]
    return per
