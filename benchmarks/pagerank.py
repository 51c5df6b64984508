"""Section ``pagerank``: one PageRank iteration against one cuSPARSE SpMV.

``algorithms.pagerank`` returns only the vector, so iterations are counted by
forcing them: ``pagerank(A, max_iter=K, tol=1e-300)`` runs exactly K iterations
and then raises its non-convergence error, which the harness catches.  The time
of one iteration is (t(K2) - t(K1)) / (K2 - K1), free of set-up cost; t(K2)/K2 is
reported too.  The yardstick is one cuSPARSE CSR SpMV (float64, and float32) on
the same graph (target: one iteration <= 1.5x one SpMV).

Checked before and after timing:
* ``pagerank(A, tol=1e-4/n)`` (so the sum of |change| < 1e-4 stops it, as networkx's
  rule n*tol) against the SciPy reference run with the same rule, which follows
  networkx's ``_pagerank_scipy``; both make the same iterates, so they agree to rounding.
* A forced run must end in spla's ConvergenceError whose ``iterations`` is K and whose
  ``last_change`` is finite: it ran all K iterations, none of them produced NaN, and nothing else failed.
  (The iterates themselves are what the converged run checks.)  The per-iteration figure
  is checked when both forced runs are.
* The yardstick SpMVs against a float64 SciPy product of the reference adjacency.
"""

from __future__ import annotations

import numpy as np

from .anchors import TARGETS
from .core import Bench, host
from .reference import allclose_report
from .reference import pagerank as ref_pagerank
from .tables import chk, claim, ms, num, peer_name, ratio, table

NAME = "pagerank"
GRAPHS = {
    "tiny": ["kron10", "jazz"],
    "quick": ["kron20", "grid2000", "musae-facebook", "wave"],
    "full": ["kron20", "kron21", "myc16", "ws2M", "grid2000", "ba2M_m4", "musae-facebook", "wave"],
}
K1, K2 = 5, 105  # 100 iterations apart: a small graph's iteration is shorter than the set-up's noise
#: K2 when the iteration reaches its fixed point exactly (a change of 0.0 stops any tol) before 105
K2_FALLBACK = (55, 30, 15)
REF_ARCS = {"tiny": 10**9, "quick": 4 * 10**7, "full": 8 * 10**7}
#: float32 SpMV against a float64 reference: the spmv section's tolerance (see benchmarks.spmv.RTOL)
SPMV_F32_RTOL = 1e-4


def _is_nonconvergence(e: Exception) -> bool:
    try:
        from spla.errors import ConvergenceError  # type: ignore

        if isinstance(e, ConvergenceError):
            return True
    except Exception:  # noqa: BLE001
        pass
    return "converge" in f"{type(e).__name__} {e}".lower()


def forced_iterations(alg, A, k: int):
    """A callable running exactly k PageRank iterations (non-convergence is expected).

    Returns the non-convergence error, or None when the call returned (converged early:
    fewer than k iterations ran)."""
    def fn():
        try:
            alg.pagerank(A, max_iter=k, tol=1e-300)
        except Exception as e:  # noqa: BLE001
            if not _is_nonconvergence(e):
                raise
            return e
        return None
    return fn


def check_forced(k: int):
    """Check of a ``forced_iterations(alg, A, k)`` result: all k iterations ran, the last change finite."""
    def check(error):
        if error is None:
            return False, f"converged before max_iter={k}: fewer than {k} iterations were timed"
        ran, change = getattr(error, "iterations", None), getattr(error, "last_change", None)
        ok = ran == k and change is not None and bool(np.isfinite(change))
        return ok, f"{type(error).__name__} after {ran} iterations (max_iter={k}); last change {change}"
    return check


def _per_iteration(b: Bench, alg, A, gf: dict) -> None:
    """One iteration's time, (t(k2) - t(K1)) / (k2 - K1), from two checked forced runs; k2 = K2 unless
    the iterates reach their fixed point exactly (a change of 0.0 stops any tol) before it."""
    k2 = next((k for k in (K2, *K2_FALLBACK) if forced_iterations(alg, A, k)() is not None), None)
    if k2 is None:
        b.skip(NAME, {**gf, "measure": "pagerank_per_iteration", "system": "spla"},
               f"the iterates reach their fixed point exactly within {K2_FALLBACK[-1]} iterations")
        return
    r1, r2 = (b.measure(NAME, {**gf, "measure": f"pagerank_iter{k}", "system": "spla", "iterations": k},
                        forced_iterations(alg, A, k), check=check_forced(k)) for k in (K1, k2))
    if r1.get("median_ms") is None or r2.get("median_ms") is None:
        return
    both = r1.get("checked") is True and r2.get("checked") is True
    b.note(NAME, {**gf, "measure": "pagerank_per_iteration", "system": "spla",
                  "median_ms": (r2["median_ms"] - r1["median_ms"]) / (k2 - K1),
                  "incl_setup_ms": r2["median_ms"] / k2, "derived_from": [K1, k2],
                  "checked": both, "check": f"from the {K1}- and {k2}-iteration runs"
                  + ("" if both else ", not both of which passed their checks")})


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
        _per_iteration(b, alg, A, gf)
        # the yardstick: one CSR SpMV on the same graph
        try:
            from .peers import transpose_csr

            xp = b.xp
            AT = b.ref_in(name)  # SciPy CSR of A^T (float64 ones): S @ x must be A^T x
            for dt, label, rtol in ((np.float64, "f64", 1e-12), (np.float32, "f32", SPMV_F32_RTOL)):
                S = transpose_csr(A, dt, gpu=b.gpu)
                x_h = np.random.default_rng(1).random(n).astype(dt)
                want = AT @ x_h.astype(np.float64)
                x = xp.asarray(x_h)
                b.measure(NAME, {**gf, "measure": f"spmv_{label}", "system": "cusparse" if b.gpu else "scipy"},
                          lambda S=S, x=x: S @ x,
                          check=lambda y, want=want, rtol=rtol: allclose_report(host(y), want, rtol=rtol, atol=1e-6))
                del S, x, want
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
            g["iterations"] = r.get("derived_from")
        elif m == "pagerank_converged":
            g["converged_ms"] = r["median_ms"]
        elif m in ("spmv_f64", "spmv_f32"):
            g[m + "_ms"] = r["median_ms"]
            g["peer"] = r.get("system")
        if m in ("pagerank_per_iteration", "pagerank_converged", "spmv_f64", "spmv_f32"):
            g.setdefault("checks", []).append(r.get("checked"))
    for g in per.values():
        # every figure in the row checked; None (no check) shows as not checked
        g["checked"] = all(c is True for c in g.pop("checks", [])) or False
    for g in per.values():
        if g.get("iter_ms") and g.get("spmv_f64_ms"):
            g["iter_vs_spmv"] = g["iter_ms"] / g["spmv_f64_ms"]
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    rows = []
    per = summarize(recs)
    for g in per.values():
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(g.get("iter_ms")),
                     ms(g.get("iter_incl_ms")), ms(g.get("spmv_f64_ms")), ms(g.get("spmv_f32_ms")),
                     ratio(g.get("iter_vs_spmv")), ms(g.get("converged_ms")), chk(g.get("checked"))])
    short = sorted({f"`{g['graph']}` {g['iterations'][1]}" for g in per.values()
                    if g.get("iterations") and g["iterations"][1] != K2})
    return (f"One iteration = (t(K2 it.) − t({K1} it.)) / (K2 − {K1}), K2 = {K2}"
            + (f" (fewer where the iterates reach their fixed point exactly before: {', '.join(short)})" if short else "")
            + "; 'incl. set-up' = t(K2)/K2. Target: one iteration <= 1.5× one SpMV. 'checked': the converged "
            "result against the reference, the forced runs (all K iterations ran, finite) and both SpMVs.\n\n"
            + table(["graph", "n", "arcs", "1 iteration", "incl. set-up", "SpMV f64", "SpMV f32", "iter/SpMV f64",
                     "to tol 1e-4/n", "checked"], rows))


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args):
        out.append(claim(*args))

    peer = peer_name(recs)
    v = [g["iter_vs_spmv"] for g in summarize(recs).values() if g.get("iter_vs_spmv")]
    if v:
        add(f"PageRank iteration / one {peer} SpMV (float64)", f"{max(v):.2f}× worst",
            f"<= {TARGETS['pagerank_iter_vs_spmv']}×", max(v) <= TARGETS["pagerank_iter_vs_spmv"])
    return out
