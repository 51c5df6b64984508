"""Section ``closeness``: closeness of all vertices on the four real graphs of issue #3.

``algorithms.closeness_centrality(A)`` (networkx's definition, wf_improved=True),
checked on a sample of vertices against BFS distances from the SciPy reference,
beside NetworKit's 16-thread times (anchors), networkx extrapolated from a few
vertices, and NetworKit/igraph when importable.
"""

from __future__ import annotations

import numpy as np

from .anchors import NETWORKIT_CLOSENESS_S, TARGETS
from .core import Bench, host
from .reference import allclose_report, closeness_of
from .tables import chk, claim, geomean, mem_cell, ms, num, ratio, table
from .timing import call_peak_bytes

NAME = "closeness"
GRAPHS = {
    "tiny": ["jazz", "celegans_metabolic"],
    "quick": ["musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16"],
    "full": ["musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16"],
}
SAMPLE = 8


def sample_check(b: Bench, name: str, values_of, sample: int = SAMPLE, rtol: float = 1e-9):
    """Check closure comparing ``got[v]`` with ``values_of(vertices)`` on a vertex sample."""
    verts = b.sources(name, sample, seed=777)

    def check(got):
        g = host(got).astype(np.float64)
        n = b.graph(name)[2]
        if g.shape != (n,):
            return False, f"shape {g.shape}, expected ({n},)"
        ok, detail = allclose_report(g[verts], values_of(verts), rtol=rtol, atol=1e-12)
        return ok, f"{len(verts)} sampled vertices: {detail}"
    return check


def check_peer(b: Bench, name: str, sample_check):
    """Check of a peer's closeness of all vertices: against spla's checked result when there is
    one (peers report 0 for a vertex that reaches nothing, as networkx does), else on the sample."""
    def check(got):
        g = np.asarray(got, np.float64)
        full = b.memo.get(("closeness", name))
        if full is None:
            ok, detail = sample_check(g)
            return ok, "no spla result to compare with; " + detail
        ok, detail = allclose_report(np.nan_to_num(g), full, rtol=1e-6, atol=1e-9)
        return ok, "against spla's result: " + detail
    return check


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("closeness_centrality")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        n = gf["n"]
        src, dst, _, directed = b.graph(name)
        ref_in = b.ref_in(name)
        check = sample_check(b, name, lambda vs: closeness_of(ref_in, vs))

        def keep(got, check=check, name=name):
            ok, detail = check(got)
            if ok:  # the peers' yardstick: only a result that passed its check
                b.memo[("closeness", name)] = host(got).astype(np.float64)
            return ok, detail

        b.measure(NAME, {**gf, "measure": "closeness", "system": "spla"},
                  lambda: alg.closeness_centrality(A), check=keep,
                  derive=lambda rec: {"nm_per_s": n * gf["arcs"] / (rec["median_ms"] * 1e-3)})
        if name in NETWORKIT_CLOSENESS_S:
            b.note(NAME, {**gf, "measure": "closeness", "system": "networkit-16t", "anchor": True,
                          "median_ms": NETWORKIT_CLOSENESS_S[name] * 1e3, "where": "H200 machine, issue #3"})
        if not b.opts.peers:
            continue
        from . import peers

        Gx = b.nx_graph(name)
        verts = b.sources(name, 3, seed=99)
        b.measure(NAME, {**gf, "measure": "closeness_estimate", "system": "networkx", "sources": len(verts),
                         "estimated": True},
                  lambda: [peers.nx_closeness_one(Gx, v) for v in verts], on="cpu", once=True,
                  check=lambda got, verts=verts, ref_in=ref_in: allclose_report(
                      np.asarray(got, np.float64), closeness_of(ref_in, verts), rtol=1e-9, atol=1e-12),
                  derive=lambda rec: {"est_total_ms": rec["median_ms"] * n / len(verts)})
        for system, make, algo in (("networkit", peers.networkit_graph, peers.networkit_closeness),
                                   ("igraph", peers.igraph_graph, peers.igraph_closeness)):
            try:
                g = make(src, dst, n, directed)
            except peers.PeerUnavailable as e:
                b.skip(NAME, {**gf, "measure": "closeness", "system": system}, str(e))
                continue
            except Exception as e:  # noqa: BLE001
                b.note(NAME, {**gf, "measure": "closeness", "system": system, "status": "error", "error": str(e)})
                continue
            b.measure(NAME, {**gf, "measure": "closeness", "system": system}, lambda g=g, algo=algo: algo(g),
                      on="cpu", once=True, check=check_peer(b, name, check))


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok":
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"), "ms": {}})
        if r.get("measure") == "closeness" and r.get("median_ms") is not None:
            g["ms"][r["system"]] = r["median_ms"]
            if r["system"] == "spla":
                g["checked"] = r.get("checked")
                g["mem"], g["mem_first"] = call_peak_bytes(r), call_peak_bytes(r, "first")
        elif r.get("est_total_ms") is not None:
            g["ms"][r["system"] + " (est.)"] = r["est_total_ms"]
    for g in per.values():
        if g["ms"].get("spla") and g["ms"].get("networkit-16t"):
            g["vs_networkit"] = g["ms"]["networkit-16t"] / g["ms"]["spla"]
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    rows = []
    for g in summarize(recs).values():
        m = g["ms"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     ms(m.get("networkit-16t")), ratio(g.get("vs_networkit")), ms(m.get("networkit")),
                     ms(m.get("igraph")), "~" + ms(m["networkx (est.)"]) if m.get("networkx (est.)") else "–",
                     chk(g.get("checked")), mem_cell(g)])
    return table(["graph", "n", "arcs", "spla", "NetworKit 16t (anchor)", "NetworKit/spla", "NetworKit here",
                  "igraph here", "networkx", "checked", "GPU mem: repeat call (first)"], rows)


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args):
        out.append(claim(*args))

    v = [g["vs_networkit"] for g in summarize(recs).values() if g.get("vs_networkit")]
    if v:
        add("closeness vs NetworKit (16 threads)", f"{min(v):.1f}× min, {geomean(v):.1f}× geomean",
            f">= {TARGETS['closeness_vs_networkit']}× each", min(v) >= TARGETS["closeness_vs_networkit"])
    return out
