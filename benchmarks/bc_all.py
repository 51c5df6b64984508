"""Section ``bc_all``: exact betweenness over all sources (TurboBC's and NetworKit's tables).

``algorithms.betweenness_centrality(A, kernel="auto")`` (networkx's default
normalisation) on Mycielski-12, Barabasi-Albert n=20,000 m=4 and the four real
graphs; throughput n*arcs/t.  Checks, before timing:

1. a sample: ``betweenness_centrality(A, sources=S, normalized=False)`` for four
   sources against the SciPy Brandes reference (the batched code path);
2. the full result: finite, non-negative, the right length; and, when
   ``algorithms.sum_of_distances`` exists, the identity
   sum_v BC(v) (n-1)(n-2) = sum over ordered reachable pairs s != t of (d(s,t) - 1)
   for undirected graphs (ties BC's sigma/delta sweep to the BFS distances).

Peers: TurboBC and NetworKit anchors (issue #3); networkx and spla's CPU backend
extrapolated from a few sources (marked as estimates); NetworKit and igraph
timed when importable.
"""

from __future__ import annotations

import numpy as np

from .anchors import NETWORKIT_BC_S, TARGETS, TURBOBC_ALL_S, TURBOBC_NOTES
from .core import Bench, host
from .reference import allclose_report, betweenness_subset
from .tables import chk, claim, geomean, mem_cell, mib, ms, num, ratio, table
from .timing import call_peak_bytes

NAME = "bc_all"
GRAPHS = {
    "tiny": ["myc7", "jazz"],
    "quick": ["myc12", "ba20k_m4", "musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16"],
    "full": ["myc12", "ba20k_m4", "musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16"],
}
SAMPLE = 4
NX_ARCS = {"tiny": 10**9, "quick": 10**6, "full": 2 * 10**6}


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        n, arcs = gf["n"], gf["arcs"]
        src, dst, _, directed = b.graph(name)
        S = b.sources(name, SAMPLE)
        want_S = betweenness_subset(b.ref(name), S, directed)
        scale = float(np.abs(want_S).max()) if want_S.size else 0.0

        def check_sample(got):
            return allclose_report(host(got), want_S, rtol=1e-7, atol=1e-9 * (1 + scale))

        b.measure(NAME, {**gf, "measure": "bc_sample", "system": "spla", "kernel": "auto", "sources": S},
                  lambda: alg.betweenness_centrality(A, sources=S, normalized=False, kernel="auto"),
                  check=check_sample, repeat=1)

        def check_full(got):
            x = host(got).astype(np.float64)
            if x.shape != (n,):
                return False, f"shape {x.shape}, expected ({n},)"
            if not np.isfinite(x).all() or (x < -1e-12).any():
                return False, "non-finite or negative values"
            b.memo[("bc_all", name)] = x
            detail = "finite, non-negative"
            if directed or not hasattr(alg, "sum_of_distances") or b.remaining() < 5:
                return True, detail + " (identity not checked)"
            sod = host(alg.sum_of_distances(A)).astype(np.float64)
            from scipy.sparse.csgraph import connected_components

            _, lab = connected_components(b.ref(name), directed=False)
            reach = np.bincount(lab)[lab]
            lhs = x.sum() * (n - 1) * (n - 2)
            rhs = float((sod - (reach - 1)).sum())
            ok = abs(lhs - rhs) <= 1e-8 * max(abs(rhs), 1.0)
            return ok, detail + f"; identity sum(BC)(n-1)(n-2)={lhs:.10g} vs sum(d-1)={rhs:.10g}"

        b.measure(NAME, {**gf, "measure": "bc_all", "system": "spla", "kernel": "auto"},
                  lambda: alg.betweenness_centrality(A, kernel="auto"), check=check_full,
                  derive=lambda rec: {"nm_per_s": n * arcs / (rec["median_ms"] * 1e-3)})
        for anchor, system in ((TURBOBC_ALL_S, "turbobc"), (NETWORKIT_BC_S, "networkit-16t")):
            if name in anchor:
                b.note(NAME, {**gf, "measure": "bc_all", "system": system, "anchor": True,
                              "median_ms": anchor[name] * 1e3, "where": "H200 machine, issue #3",
                              "remark": TURBOBC_NOTES.get(name, "") if system == "turbobc" else ""})
        if not b.opts.peers:
            continue
        _peers(b, alg, name, gf, S, want_S, check_sample)


def _peers(b: Bench, alg, name, gf, S, want_S, check_sample) -> None:
    """CPU-side peers: estimates from a few sources, and NetworKit/igraph when present."""
    n = gf["n"]
    src, dst, _, directed = b.graph(name)
    if b.gpu:
        Ac = b.matrix(name, "cpu")
        b.measure(NAME, {**gf, "measure": "bc_all_estimate", "system": "spla-cpu", "sources": len(S),
                         "estimated": True},
                  lambda: alg.betweenness_centrality(Ac, sources=S, normalized=False), check=check_sample,
                  on="cpu", once=True,
                  derive=lambda rec: {"est_total_ms": rec["median_ms"] * n / len(S)})
    if gf["arcs"] <= NX_ARCS[b.opts.mode]:
        from .peers import nx_bc_subset

        Gx = b.nx_graph(name)
        k = 2
        b.measure(NAME, {**gf, "measure": "bc_all_estimate", "system": "networkx", "sources": k,
                         "estimated": True},
                  lambda: nx_bc_subset(Gx, S[:k]), on="cpu", once=True,
                  check=lambda got: allclose_report(got, betweenness_subset(b.ref(name), S[:k], directed),
                                                    rtol=1e-9, atol=1e-9),
                  derive=lambda rec: {"est_total_ms": rec["median_ms"] * n / k})
    else:
        b.skip(NAME, {**gf, "measure": "bc_all_estimate", "system": "networkx"}, "graph too large for networkx here")
    from . import peers

    for system, make, algo in (("networkit", peers.networkit_graph, peers.networkit_bc),
                               ("igraph", peers.igraph_graph, peers.igraph_bc)):
        try:
            g = make(src, dst, n, directed)
        except peers.PeerUnavailable as e:
            b.skip(NAME, {**gf, "measure": "bc_all", "system": system}, str(e))
            continue
        except Exception as e:  # noqa: BLE001
            b.note(NAME, {**gf, "measure": "bc_all", "system": system, "status": "error", "error": str(e)})
            continue
        full = b.memo.get(("bc_all", name))

        def check(got, full=full):
            if full is None:
                return False, "no spla result to compare with"
            # spla's result is normalised (networkx default); peers return raw values
            raw = full * (n - 1) * (n - 2) / (1 if directed else 2)
            return allclose_report(np.asarray(got, float), raw, rtol=1e-6, atol=1e-6)

        b.measure(NAME, {**gf, "measure": "bc_all", "system": system,
                         "threads": peers.networkit_threads() if system == "networkit" else 1},
                  lambda g=g, algo=algo: algo(g), check=check, on="cpu", once=True)


def summarize(records: list[dict]) -> dict:
    """Per graph: spla time, n*m/t, anchors and peers, speed-ups."""
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok":
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "ms": {}, "checked": {}})
        if r.get("measure") == "bc_all" and r.get("median_ms") is not None:
            g["ms"][r["system"]] = r["median_ms"]
            if r.get("checked") is not None:
                g["checked"][r["system"]] = r["checked"]
            if r["system"] == "spla":
                g["nm_per_s"] = r.get("nm_per_s")
                g["mem"], g["mem_first"] = call_peak_bytes(r), call_peak_bytes(r, "first")
        elif r.get("measure") == "bc_all_estimate" and r.get("est_total_ms") is not None:
            g["ms"][r["system"] + " (est.)"] = r["est_total_ms"]
        elif r.get("measure") == "bc_sample":
            g["sample_checked"] = r.get("checked")
    for g in per.values():
        s = g["ms"].get("spla")
        for other in ("turbobc", "networkit-16t"):
            if s and g["ms"].get(other):
                g[f"vs_{other}"] = g["ms"][other] / s
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    s = summarize(recs)
    rows = []
    for g in s.values():
        m = g["ms"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     num(g.get("nm_per_s")), ms(m.get("turbobc")), ratio(g.get("vs_turbobc")),
                     ms(m.get("networkit-16t")), ratio(g.get("vs_networkit-16t")),
                     ms(m.get("networkit")), ms(m.get("igraph")),
                     "~" + ms(m["networkx (est.)"]) if m.get("networkx (est.)") else "–",
                     "~" + ms(m["spla-cpu (est.)"]) if m.get("spla-cpu (est.)") else "–",
                     chk(g.get("sample_checked")), chk(g["checked"].get("spla")), mem_cell(g),
                     mib(4 * (g["n"] + 1 + g["arcs"]) if g.get("n") and g.get("arcs") else None)])
    return ("Exact BC over all sources. n·m/t in arc traversals per second. Anchors: TurboBC (H200) and "
            "NetworKit 11.2 with 16 threads on the same machine (issue #3). ~ = extrapolated from a few sources.\n\n"
            + table(["graph", "n", "arcs", "spla", "n·m/t", "TurboBC", "TurboBC/spla", "NetworKit 16t (anchor)",
                     "NetworKit/spla", "NetworKit here", "igraph here", "networkx", "spla CPU", "sample checked",
                     "full checked", "GPU mem: repeat call (first)", "(n+1+m)·4 B"], rows))


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args):
        out.append(claim(*args))

    ba = summarize(recs).values()
    v = [g["vs_turbobc"] for g in ba if g.get("vs_turbobc")]
    if v:
        add("all-sources BC vs TurboBC", f"{min(v):.1f}× min", f">= {TARGETS['bc_all_vs_turbobc']}×",
            min(v) >= TARGETS["bc_all_vs_turbobc"])
    v = [g["vs_networkit-16t"] for g in ba if g.get("vs_networkit-16t")]
    if v:
        add("all-sources BC vs NetworKit (16 threads)", f"{min(v):.1f}× min, {geomean(v):.1f}× geomean",
            f">= {TARGETS['bc_all_vs_networkit']}× each", min(v) >= TARGETS["bc_all_vs_networkit"])
    return out
