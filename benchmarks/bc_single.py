"""Section ``bc_single``: single-source betweenness (TurboBC's Algorithm 1) per kernel.

For each graph of TurboBC's table, a few sources are drawn (vertices with an arc)
and ``algorithms.betweenness_centrality(A, sources=[s], normalized=False,
kernel=K, batch_size=1)`` is timed for K in auto, scCSC, veCSC, scCOOC.  The
median over sources is the graph's time; MTEPS = stored arcs / time.  Each
kernel's result for every source is checked against the SciPy Brandes reference
(networkx's ``betweenness_centrality_subset`` semantics), on the first call (which
learns the replayed plan) and again after the timed calls (which replay it).  Also timed:
one call with all the drawn sources, still one at a time (``sources=srcs,
batch_size=1``), divided by their number -- the time per source that TurboBC
reports, without the call's set-up and the (n,) result's copy to the host --
checked against the sum of the sources' references.  TurboBC's H200 times (issue
#3) are printed beside; the spla CPU backend and networkx are timed on one
source where they fit the mode's limits.
"""

from __future__ import annotations

import numpy as np

from .anchors import TARGETS, TURBOBC_NOTES, TURBOBC_SINGLE_MS
from .core import Bench, host
from .reference import allclose_report, betweenness_subset
from .tables import chk, claim, geomean, mem_cell, mib, ms, num, ratio, table
from .timing import call_peak_bytes

NAME = "bc_single"
KERNELS = ("auto", "scCSC", "veCSC", "scCOOC")

GRAPHS = {
    "tiny": ["myc7", "kron9", "grid20", "ws1k"],
    "quick": ["myc15", "myc16", "kron18", "kron20", "ws100k", "ba1M_m4", "grid400"],
    "full": ["myc15", "myc16", "myc17", "kron18", "kron20", "kron21", "ws100k", "ba1M_m4", "grid400"],
}
NSOURCES = {"tiny": 2, "quick": 3, "full": 5}
CPU_PEER_ARCS = {"tiny": 10**9, "quick": 5 * 10**6, "full": 4 * 10**7}
NX_PEER_ARCS = {"tiny": 10**9, "quick": 1_200_000, "full": 3_000_000}


def bc_check(want: np.ndarray):
    """Check closure: float64 BC against the reference at 1e-7 relative."""
    scale = float(np.abs(want).max()) if want.size else 0.0

    def check(got):
        return allclose_report(host(got), want, rtol=1e-7, atol=1e-9 * (1.0 + scale))
    return check


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        arcs = gf["arcs"]
        b.selection(name, A)
        directed = b.graph(name)[3]
        srcs = b.sources(name, NSOURCES[b.opts.mode])
        want: dict[int, np.ndarray] = {}

        def reference(s):
            if s not in want:
                want[s] = betweenness_subset(b.ref(name), [s], directed)
            return want[s]

        def derive(rec):
            return {"mteps": arcs / (rec["median_ms"] * 1e-3) / 1e6}

        for kernel in KERNELS:
            for i, s in enumerate(srcs):
                b.measure(NAME, {**gf, "measure": "bc_single", "system": "spla", "kernel": kernel,
                                 "source": s, "source_index": i},
                          lambda s=s, kernel=kernel: alg.betweenness_centrality(
                              A, sources=[s], normalized=False, kernel=kernel, batch_size=1),
                          check=lambda got, s=s: bc_check(reference(s))(got),
                          memory=(i == 0), derive=derive)
        if srcs:
            def check_many(got):
                return bc_check(np.sum([reference(s) for s in srcs], axis=0))(got)

            b.measure(NAME, {**gf, "measure": "bc_single_many", "system": "spla", "kernel": "auto",
                             "sources_per_call": len(srcs)},
                      lambda: alg.betweenness_centrality(A, sources=srcs, normalized=False, batch_size=1),
                      check=check_many, memory=False,
                      derive=lambda rec: {"per_source_ms": rec["median_ms"] / len(srcs),
                                          "mteps": arcs * len(srcs) / (rec["median_ms"] * 1e-3) / 1e6})
        if name in TURBOBC_SINGLE_MS:
            b.note(NAME, {**gf, "measure": "bc_single", "system": "turbobc", "anchor": True,
                          "median_ms": TURBOBC_SINGLE_MS[name], "where": "H200, issue #3",
                          "remark": TURBOBC_NOTES.get(name, ""),
                          "mteps": arcs / (TURBOBC_SINGLE_MS[name] * 1e-3) / 1e6 if arcs else None})
        s0 = srcs[0] if srcs else 0
        if not b.opts.peers:
            continue
        # spla's CPU backend on one source
        if b.gpu:
            if arcs > CPU_PEER_ARCS[b.opts.mode]:
                b.skip(NAME, {**gf, "measure": "bc_single", "system": "spla-cpu"},
                       "graph too large for the CPU peer in this mode")
            else:
                Ac = b.matrix(name, "cpu")
                b.measure(NAME, {**gf, "measure": "bc_single", "system": "spla-cpu", "kernel": "auto",
                                 "source": s0, "source_index": 0},
                          lambda: alg.betweenness_centrality(Ac, sources=[s0], normalized=False),
                          check=lambda got: bc_check(reference(s0))(got), on="cpu", once=True,
                          derive=derive)
        # networkx on one source
        if arcs > NX_PEER_ARCS[b.opts.mode]:
            b.skip(NAME, {**gf, "measure": "bc_single", "system": "networkx"},
                   "graph too large for networkx in this mode")
        else:
            from .peers import nx_bc_subset

            Gx = b.nx_graph(name)
            b.measure(NAME, {**gf, "measure": "bc_single", "system": "networkx", "source": s0, "source_index": 0},
                      lambda: nx_bc_subset(Gx, [s0]), check=lambda got: bc_check(reference(s0))(got),
                      on="cpu", once=True, derive=derive)


def summarize(records: list[dict]) -> dict:
    """Per graph: median over sources per (system, kernel), best kernel, TurboBC ratio."""
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("median_ms") is None:
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "t": {}, "checked": {}, "mem": None})
        if r.get("measure") == "bc_single_many":  # one call, all the drawn sources: time per source
            g["many_ms"] = r["median_ms"] / r["sources_per_call"]
            g["many_checked"] = r.get("checked")
            continue
        key = (r.get("system"), r.get("kernel") or "")
        g["t"].setdefault(key, []).append(r["median_ms"])
        if r.get("checked") is not None:
            g["checked"][key] = r["checked"]
        if r.get("mem_peak_bytes") and key == ("spla", "auto"):
            g["mem"], g["mem_first"] = call_peak_bytes(r), call_peak_bytes(r, "first")
    for g in per.values():
        g["ms"] = {k: float(np.median(v)) for k, v in g["t"].items()}
        ks = {k: g["ms"][("spla", k)] for k in KERNELS[1:] if ("spla", k) in g["ms"]}
        if ks:
            g["best_kernel"] = min(ks, key=ks.get)
            g["best_ms"] = ks[g["best_kernel"]]
        g["auto_ms"] = g["ms"].get(("spla", "auto"))
        tb = g["ms"].get(("turbobc", ""))
        if tb and g["auto_ms"]:
            g["vs_turbobc"] = tb / g["auto_ms"]
        if tb and g.get("many_ms"):
            g["many_vs_turbobc"] = tb / g["many_ms"]
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    s = summarize(recs)
    rows = []
    for g in s.values():
        m = g["ms"]
        a = g.get("auto_ms")
        rows.append([f"`{g['graph']}`", num(g.get("arcs")), ms(a),
                     num(g["arcs"] / (a * 1e-3) / 1e6 if a and g.get("arcs") else None),
                     ms(m.get(("spla", "scCSC"))), ms(m.get(("spla", "veCSC"))), ms(m.get(("spla", "scCOOC"))),
                     ms(g.get("many_ms")), ms(m.get(("turbobc", ""))), ratio(g.get("vs_turbobc")),
                     ratio(g.get("many_vs_turbobc")),
                     ms(m.get(("spla-cpu", "auto"))), ms(m.get(("networkx", ""))),
                     chk(all(g["checked"].values()) and g.get("many_checked") is not False
                         if g["checked"] else None), mem_cell(g),
                     mib(4 * (g["n"] + 1 + g["arcs"]) if g.get("n") and g.get("arcs") else None)])
    return ("Median over sources of one single-source BC call (`sources=[s], batch_size=1`: set-up, the "
            "sweeps, and the (n,) result copied to the host); \"in one call\": one call over all the drawn sources, "
            "still one at a time (`sources=srcs, batch_size=1`), per source. "
            "TurboBC: its own code on an H200 (issue #3), best of its kernels, time per source excluding upload and "
            "launch gaps.\n\n"
            + table(["graph", "arcs", "spla auto", "MTEPS", "scCSC", "veCSC", "scCOOC", "auto, in one call",
                     "TurboBC (H200)", "TurboBC/spla", "TurboBC/spla in one call", "spla CPU", "networkx", "checked",
                     "GPU mem: repeat call (first)", "(n+1+m)·4 B"], rows))


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args):
        out.append(claim(*args))

    bs = summarize(recs).values()
    v = [g["vs_turbobc"] for g in bs if g.get("vs_turbobc") and (g.get("arcs") or 0) >= 10**6]
    if v:
        add("single-source BC (auto) vs TurboBC, graphs >= 1M arcs", f"{geomean(v):.2f}× geomean, {min(v):.2f}× min",
            f">= {TARGETS['bc_single_vs_turbobc_geomean']}× geomean, > 1× each",
            geomean(v) >= TARGETS["bc_single_vs_turbobc_geomean"] and min(v) > 1)
    v = [g["many_vs_turbobc"] for g in bs if g.get("many_vs_turbobc") and (g.get("arcs") or 0) >= 10**6]
    if v:
        add("single-source BC (auto) vs TurboBC, per source of one call over the drawn sources, graphs >= 1M arcs",
            f"{geomean(v):.2f}× geomean, {min(v):.2f}× min",
            f">= {TARGETS['bc_single_vs_turbobc_geomean']}× geomean, > 1× each",
            geomean(v) >= TARGETS["bc_single_vs_turbobc_geomean"] and min(v) > 1)
    return out
