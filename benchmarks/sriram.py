"""Section ``sriram``: approximate BC from 2^12 sampled sources on Graph500 scale 18.

``algorithms.betweenness_centrality(A, k=4096, seed=0, normalized=False)`` (the
Sriram et al. seed's Table 1 setting).  Checked before timing, assuming the
documented networkx sampling (``random.Random(seed).sample(list(G), k)``):

- against ``betweenness_centrality(A, sources=S, normalized=False)`` with that S,
  rescaled as networkx rescales a k-sample (networkx >= 3.5: n-1 over k-1 for the
  sampled vertices and over k for the others; older: n/k for all);
- ``sources=S[:2]`` against the SciPy Brandes reference;
- on the tiny graph, against ``networkx.betweenness_centrality(G, k, seed)`` directly.

Throughput: k * arcs / t.
"""

from __future__ import annotations

import random

import numpy as np

from .core import Bench, host
from .reference import allclose_report, betweenness_subset
from .tables import chk, mem_cell, ms, num, table
from .timing import call_peak_bytes

NAME = "sriram"
CASES = {"tiny": [("kron10", 64)], "quick": [("kron18", 4096)], "full": [("kron18", 4096)]}


def nx_sample(n: int, k: int, seed: int) -> list[int]:
    """The sources networkx draws for ``betweenness_centrality(G, k, seed=seed)``."""
    return random.Random(seed).sample(list(range(n)), k)


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality")
    samples = dict(CASES[b.opts.mode])
    for name, A, gf in b.each_graph(NAME, samples):
        k = samples[name]
        n, arcs = gf["n"], gf["arcs"]
        directed = b.graph(name)[3]
        S = nx_sample(n, k, 0)

        def check(got):
            x = host(got).astype(np.float64)
            notes = []
            ok_all = True
            # 1. sources=S path, rescaled as networkx does
            r_S = host(alg.betweenness_centrality(A, sources=S, normalized=False)).astype(np.float64)
            in_S = np.zeros(n, bool)
            in_S[S] = True
            N = n - 1
            new = np.where(in_S, r_S * N / max(k - 1, 1), r_S * N / k)
            old = r_S * n / k
            ok_new, d_new = allclose_report(x, new, rtol=1e-7, atol=1e-9 * (1 + float(np.abs(new).max())))
            ok_old, _ = allclose_report(x, old, rtol=1e-7, atol=1e-9 * (1 + float(np.abs(old).max())))
            ok_all &= ok_new or ok_old
            notes.append("k-sample = networkx-sampled sources rescaled ("
                         + ("networkx>=3.5 rule" if ok_new else "n/k rule" if ok_old else f"MISMATCH: {d_new}") + ")")
            # 2. two of the sources against the reference
            want = betweenness_subset(b.ref(name), S[:2], directed)
            got2 = host(alg.betweenness_centrality(A, sources=S[:2], normalized=False))
            ok2, d2 = allclose_report(got2, want, rtol=1e-7, atol=1e-9 * (1 + float(np.abs(want).max())))
            ok_all &= ok2
            notes.append(f"sources=S[:2] vs reference: {d2}")
            # 3. tiny graphs: networkx itself
            if arcs <= 50_000:
                import networkx as nx

                d = nx.betweenness_centrality(b.nx_graph(name), k=k, seed=0, normalized=False)
                ok3, d3 = allclose_report(x, [d[v] for v in range(n)], rtol=1e-7, atol=1e-9)
                ok_all &= ok3
                notes.append(f"vs networkx k={k} seed=0: {d3}")
            return ok_all, "; ".join(notes)

        b.measure(NAME, {**gf, "measure": "bc_sampled", "system": "spla", "k": k, "seed": 0},
                  lambda: alg.betweenness_centrality(A, k=k, seed=0, normalized=False), check=check,
                  derive=lambda rec: {"teps": k * arcs / (rec["median_ms"] * 1e-3)})


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("median_ms") is None:
            continue
        per[r["graph"]] = {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"), "k": r.get("k"),
                           "ms": r["median_ms"], "teps": r.get("teps"), "checked": r.get("checked"),
                           "mem": call_peak_bytes(r), "mem_first": call_peak_bytes(r, "first")}
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    rows = [[f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), num(g.get("k")), ms(g.get("ms")),
             num(g.get("teps")), chk(g.get("checked")), mem_cell(g)]
            for g in summarize(recs).values()]
    return table(["graph", "n", "arcs", "k sources", "spla", "k·m/t", "checked", "GPU mem: repeat call (first)"], rows)


def headlines(recs) -> list[dict]:
    """The section's performance claims: none."""
    return []
