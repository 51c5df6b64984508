"""Section ``shortness``: sum of distances of every vertex (the homework seed).

``algorithms.sum_of_distances(A)`` (sum over reachable t of d(s, t)) on the real
graphs, checked on a vertex sample against BFS from the SciPy reference;
throughput n*arcs/t, the work of n breadth-first searches.
"""

from __future__ import annotations

import numpy as np

from .closeness import sample_check
from .core import Bench
from .reference import sum_of_distances_of
from .tables import chk, mem_cell, ms, num, table
from .timing import call_peak_bytes

NAME = "shortness"
GRAPHS = {
    "tiny": ["jazz", "3elt"],
    "quick": ["musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n15", "delaunay_n16"],
    "full": ["musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n15", "delaunay_n16", "wave",
             "luxembourg_osm"],
}


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("sum_of_distances")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        n, arcs = gf["n"], gf["arcs"]
        ref = b.ref(name)
        check = sample_check(b, name, lambda vs: sum_of_distances_of(ref, vs), rtol=0.0)
        b.measure(NAME, {**gf, "measure": "sum_of_distances", "system": "spla"},
                  lambda: alg.sum_of_distances(A), check=check,
                  derive=lambda rec: {"nm_per_s": n * arcs / (rec["median_ms"] * 1e-3)})
        if b.opts.peers and arcs <= 2_000_000:
            import networkx as nx

            Gx = b.nx_graph(name)
            verts = b.sources(name, 3, seed=5)
            b.measure(NAME, {**gf, "measure": "sod_estimate", "system": "networkx", "sources": len(verts),
                             "estimated": True},
                      lambda: [sum(nx.single_source_shortest_path_length(Gx, v).values()) for v in verts],
                      on="cpu", once=True,
                      check=lambda got: (bool(np.array_equal(np.array(got, float), sum_of_distances_of(ref, verts))),
                                         "networkx vs reference on the same vertices"),
                      derive=lambda rec: {"est_total_ms": rec["median_ms"] * n / len(verts)})


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok":
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"), "ms": {}})
        if r.get("measure") == "sum_of_distances" and r.get("median_ms") is not None:
            g["ms"]["spla"] = r["median_ms"]
            g["checked"] = r.get("checked")
            g["nm_per_s"] = r.get("nm_per_s")
            g["mem"], g["mem_first"] = call_peak_bytes(r), call_peak_bytes(r, "first")
        elif r.get("est_total_ms") is not None:
            g["ms"][r["system"] + " (est.)"] = r["est_total_ms"]
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    rows = []
    for g in summarize(recs).values():
        m = g["ms"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     num(g.get("nm_per_s")), "~" + ms(m["networkx (est.)"]) if m.get("networkx (est.)") else "–",
                     chk(g.get("checked")), mem_cell(g)])
    return table(["graph", "n", "arcs", "spla", "n·m/t", "networkx", "checked", "GPU mem: repeat call (first)"], rows)


def headlines(recs) -> list[dict]:
    """The section's performance claims: none."""
    return []
