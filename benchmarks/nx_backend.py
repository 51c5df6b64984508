"""Section ``networkx``: networkx's betweenness and PageRank through the spla backend, beside networkx.

On each graph, as a networkx graph (nodes 0..n-1), for ``betweenness_centrality`` (exact) and
``pagerank`` (networkx's defaults):

* ``networkx``: networkx itself.  Betweenness from ``SOURCES`` sampled sources (``k=``, extrapolated
  to all n, as the other sections estimate networkx), exact in tiny runs; PageRank exact.
* ``spla-backend-first``: ``backend="spla"`` on a graph not converted yet (``G.__networkx_cache__``
  emptied before each call): conversion, computation and the result dict.
* ``spla-backend``: ``backend="spla"`` again, the conversion cached in ``G.__networkx_cache__``.
* ``spla-direct``: ``spla.algorithms`` on the harness's matrix of the same graph (no conversion,
  an array instead of a dict): what the backend adds is the difference.
* ``nx-cugraph-first`` / ``nx-cugraph``: ``backend="cugraph"`` the same two ways, when nx-cugraph
  is importable (skipped with a note otherwise).

The backend runs on the run's device (``nx.config.backends.spla.device``).

Checks: spla's direct betweenness by bc_all's identity (undirected graphs: Σ bc · (n-1)(n-2) equals
Σ over reached pairs of (d - 1), with ``sum_of_distances``) and its PageRank against the SciPy
reference with networkx's stopping rule; every other betweenness and PageRank against spla's direct
result (rtol 1e-9; nx-cugraph's 1e-6); networkx's sampled betweenness against the backend's with
the same ``k`` and seed (networkx's sample: the same sources).
"""

from __future__ import annotations

import warnings

import numpy as np

from .core import Bench, SkipSection, host
from .reference import allclose_report
from .reference import pagerank as ref_pagerank
from .tables import chk, ms, num, ratio, table

NAME = "networkx"
GRAPHS = {
    "tiny": ["karate", "jazz"],
    "quick": ["ca-AstroPh", "email-Enron"],
    "full": ["ca-AstroPh", "email-Enron"],
}
#: sources of networkx's sampled betweenness, by mode (None: exact)
SOURCES = {"tiny": None, "quick": 8, "full": 32}
SEED = 7
SYSTEMS = ("networkx", "spla-backend-first", "spla-backend", "spla-direct", "nx-cugraph-first", "nx-cugraph")


def as_array(d: dict, n: int) -> np.ndarray:
    """A result dict keyed by the nodes 0..n-1 as an array."""
    return np.fromiter((d[v] for v in range(n)), dtype=np.float64, count=n)


def _cugraph_available() -> str | None:
    """None when networkx can dispatch to nx-cugraph, else why not."""
    import networkx as nx

    try:
        import nx_cugraph  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return f"nx-cugraph not importable ({type(e).__name__}: {e})"
    if "cugraph" not in nx.utils.backends.backends:
        return "nx-cugraph is importable but not registered with networkx"
    return None


def _both_backends(b, G, function, gf, measure, against, cugraph_missing):
    """``function`` through the spla backend, then through nx-cugraph (or its skip, saying why)."""
    _backend_calls(b, G, function, "spla", gf, measure, against(measure))
    if cugraph_missing:
        b.skip(NAME, {**gf, "measure": measure, "system": "nx-cugraph"}, cugraph_missing)
    else:
        _backend_calls(b, G, function, "cugraph", gf, measure, against(measure, rtol=1e-6))


def _backend_calls(b: Bench, G, fn_name: str, backend: str, gf: dict, measure: str, check) -> None:
    """Time ``nx.<fn_name>(G, backend=...)`` first (conversion included) and cached."""
    import networkx as nx

    f = getattr(nx, fn_name)
    label = "spla-backend" if backend == "spla" else "nx-cugraph"

    def first():
        G.__networkx_cache__.clear()
        return f(G, backend=backend)

    b.measure(NAME, {**gf, "measure": measure, "system": f"{label}-first"}, first, check=check)
    # the last first() left its conversion in the cache, which the cached calls use
    b.measure(NAME, {**gf, "measure": measure, "system": label}, lambda: f(G, backend=backend), check=check)
    G.__networkx_cache__.clear()


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality", "pagerank", "sum_of_distances")
    try:
        import networkx as nx
    except ImportError as e:
        raise SkipSection(f"networkx not importable: {e}") from e
    if "spla" not in nx.utils.backends.backends:
        raise SkipSection("spla is not registered with networkx (pip install -e . installs its entry points)")
    nx.config.warnings_to_ignore.add("cache")
    warnings.filterwarnings("ignore", message="Note: conversions to backend graphs are saved to cache")
    device = nx.config.backends.spla.device
    nx.config.backends.spla.device = "gpu" if b.gpu else "cpu"
    cugraph_missing = _cugraph_available()
    try:
        for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
            _graph(b, alg, nx, name, A, gf, cugraph_missing)
    finally:
        nx.config.backends.spla.device = device


def _graph(b: Bench, alg, nx, name: str, A, gf: dict, cugraph_missing: str | None) -> None:
    n = gf["n"]
    directed = b.graph(name)[3]
    G = b.nx_graph(name)
    memo = {}

    # ---- betweenness
    def check_direct_bc(got):
        x = host(got).astype(np.float64)
        if x.shape != (n,) or not np.isfinite(x).all() or (x < -1e-12).any():
            return False, f"shape {x.shape} (want ({n},)), or non-finite or negative values"
        memo["bc"] = x
        if directed:
            return True, "finite, non-negative (identity not checked: directed)"
        sod = host(alg.sum_of_distances(A)).astype(np.float64)
        from scipy.sparse.csgraph import connected_components

        _, lab = connected_components(b.ref(name), directed=False)
        reach = np.bincount(lab)[lab]
        lhs = x.sum() * (n - 1) * (n - 2)
        rhs = float((sod - (reach - 1)).sum())
        return abs(lhs - rhs) <= 1e-8 * max(abs(rhs), 1.0), f"identity Σbc(n-1)(n-2)={lhs:.10g} vs Σ(d-1)={rhs:.10g}"

    def against(key, rtol=1e-9):
        def check(got):
            want = memo.get(key)
            if want is None:
                return False, f"no checked spla-direct {key} to compare with"
            return allclose_report(as_array(got, n), want, rtol=rtol, atol=1e-12)
        return check

    b.measure(NAME, {**gf, "measure": "bc", "system": "spla-direct"}, lambda: alg.betweenness_centrality(A),
              check=check_direct_bc)
    _both_backends(b, G, "betweenness_centrality", gf, "bc", against, cugraph_missing)
    if b.opts.peers:
        k = SOURCES[b.opts.mode]
        k = None if k is None or k >= n else k
        if k is None:
            b.measure(NAME, {**gf, "measure": "bc", "system": "networkx"},
                      lambda: nx.betweenness_centrality(G, backend="networkx"), on="cpu", once=True,
                      check=against("bc"))
        else:
            def check_sampled(got):
                want = nx.betweenness_centrality(G, k=k, seed=SEED, backend="spla")
                ok, detail = allclose_report(as_array(got, n), as_array(want, n), rtol=1e-9, atol=1e-12)
                return ok, f"against the backend on the same {k} sources: {detail}"

            b.measure(NAME, {**gf, "measure": "bc_estimate", "system": "networkx", "sources": k, "estimated": True},
                      lambda: nx.betweenness_centrality(G, k=k, seed=SEED, backend="networkx"), on="cpu", once=True,
                      check=check_sampled, derive=lambda rec: {"est_total_ms": rec["median_ms"] * n / k})

    # ---- PageRank (networkx's defaults; every edge weighs 1)
    tol = 1e-6

    def check_direct_pr(got):
        want, it = ref_pagerank(b.ref(name), tol=tol)
        x = host(got).astype(np.float64)
        ok, detail = allclose_report(x, want, rtol=1e-7, atol=1e-13)
        if ok:
            memo["pagerank"] = x
        return ok, f"reference stopped after {it} iterations; {detail}"

    b.measure(NAME, {**gf, "measure": "pagerank", "system": "spla-direct"}, lambda: alg.pagerank(A, tol=tol),
              check=check_direct_pr)
    _both_backends(b, G, "pagerank", gf, "pagerank", against, cugraph_missing)
    if b.opts.peers:
        b.measure(NAME, {**gf, "measure": "pagerank", "system": "networkx"},
                  lambda: nx.pagerank(G, backend="networkx"), on="cpu", check=against("pagerank", rtol=1e-7))


def summarize(records: list[dict]) -> dict:
    """{(graph, measure): {"graph", "measure", "n", "arcs", "ms": {system: ms}, "checked": {system: bool}}}."""
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok":
            continue
        measure = "bc" if r.get("measure") in ("bc", "bc_estimate") else r.get("measure")
        t = r.get("est_total_ms") if r.get("estimated") else r.get("median_ms")
        if t is None:
            continue
        g = per.setdefault((r["graph"], measure), {"graph": r["graph"], "measure": measure, "n": r.get("n"),
                                                   "arcs": r.get("arcs"), "ms": {}, "checked": {}, "estimated": set()})
        g["ms"][r["system"]] = t
        g["checked"][r["system"]] = r.get("checked")
        if r.get("estimated"):
            g["estimated"].add(r["system"])
    return per


def markdown(recs) -> str:
    """The section's markdown table of the records ``recs``."""
    rows = []
    for g in summarize(recs).values():
        m = g["ms"]

        def cell(system):
            t = m.get(system)
            return "–" if t is None else ("~" if system in g["estimated"] else "") + ms(t)

        first, cached, direct, nxt = (m.get(s) for s in ("spla-backend-first", "spla-backend", "spla-direct",
                                                          "networkx"))
        rows.append([f"`{g['graph']}`", g["measure"], num(g.get("n")), num(g.get("arcs")),
                     *(cell(s) for s in SYSTEMS),
                     ratio(nxt / first if nxt and first else None), ratio(nxt / cached if nxt and cached else None),
                     ratio(cached / direct if cached and direct else None),
                     chk(all(v is True for k, v in g["checked"].items() if k in m) if g["checked"] else None)])
    out = table(["graph", "measure", "n", "arcs", "networkx", "spla via backend, first call",
                 "spla via backend, cached", "spla direct", "nx-cugraph, first call", "nx-cugraph, cached",
                 "networkx / first", "networkx / cached", "cached / direct", "checked"], rows)
    skipped = sorted({r.get("reason", "") for r in recs if r.get("section") == NAME and r.get("status") == "skipped"
                      and str(r.get("system", "")).startswith("nx-cugraph")})
    if skipped:
        out += "\n\nnx-cugraph: " + "; ".join(skipped) + "."
    if any(g["estimated"] for g in summarize(recs).values()):
        out += ("\n\n~: networkx's betweenness from a sample of sources (`k=`), times n / k; its result is "
                "checked against the backend's on the same sources.")
    return out


def headlines(recs) -> list[dict]:
    """No target of the issues concerns the backend: the table stands on its own."""
    return []
