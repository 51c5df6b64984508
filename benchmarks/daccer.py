"""Section ``daccer``: DACCER volumes at radius 0, 1, 2 on the Barabasi-Albert family.

``algorithms.daccer_volumes(A, radius=r)`` with vol_r(v) = sum of the degrees of
the vertices within r hops of v (the CUDACCER seed).  Checked on a vertex sample
against depth-limited BFS on the SciPy reference (and in full for r <= 1, where
vol_0 = deg and vol_1 = deg + A @ deg on a simple graph).  Targets (issue #3):
n=1M m=4, radius 1 <= 50 ms, radius 2 <= 1 s.
"""

from __future__ import annotations

import numpy as np

from .anchors import TARGETS
from .closeness import sample_check
from .core import Bench, host
from .reference import allclose_report, daccer_volume_of
from .tables import chk, claim, ms, num, table

NAME = "daccer"
SIZES = {"tiny": [1000], "quick": [10_000, 1_000_000], "full": [10_000, 100_000, 1_000_000]}
MS = {"tiny": [1, 4], "quick": [4], "full": [1, 2, 3, 4]}
_N = {1000: "1k", 10_000: "10k", 100_000: "100k", 1_000_000: "1M"}


def graphs_for(mode: str) -> list[str]:
    """Registry names of the BA graphs of this mode (quick: 10k and 1M with m=4)."""
    return [f"ba{_N[n]}_m{m}" for n in SIZES[mode] for m in MS[mode]]


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("daccer_volumes")
    for name, A, gf in b.each_graph(NAME, graphs_for(b.opts.mode)):
        ref = b.ref(name)
        deg = np.diff(ref.indptr).astype(np.float64)
        full_ref = {0: deg, 1: deg + ref @ deg}
        for r in (0, 1, 2):
            sample = sample_check(b, name, lambda vs, r=r: daccer_volume_of(ref, vs, r), sample=16, rtol=0.0)

            def check(got, r=r, sample=sample):
                ok, detail = sample(got)
                if r in full_ref:
                    ok2, d2 = allclose_report(host(got), full_ref[r], rtol=0.0, atol=0.0)
                    return ok and ok2, f"{detail}; all vertices: {d2}"
                return ok, detail

            b.measure(NAME, {**gf, "measure": "daccer", "system": "spla", "radius": r},
                      lambda r=r: alg.daccer_volumes(A, radius=r), check=check)


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("median_ms") is None:
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "ms": {}, "checked": {}})
        g["ms"][r["radius"]] = r["median_ms"]
        g["checked"][r["radius"]] = r.get("checked")
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    rows = []
    for g in summarize(recs).values():
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs"))]
                    + [ms(g["ms"].get(r)) for r in (0, 1, 2)]
                    + [chk(all(v for v in g["checked"].values() if v is not None))])
    return ("Targets (issue #3): BA n=1M m=4, radius 1 <= 50 ms, radius 2 <= 1 s.\n\n"
            + table(["graph", "n", "arcs", "radius 0", "radius 1", "radius 2", "checked"], rows))


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args):
        out.append(claim(*args))

    d = summarize(recs).get("ba1M_m4")
    if d:
        r1, r2 = d["ms"].get(1), d["ms"].get(2)
        if r1 is not None:
            add("DACCER BA n=1M m=4, radius 1", ms(r1), f"<= {TARGETS['daccer_ba1M_m4_r1_ms']:.0f} ms",
                r1 <= TARGETS["daccer_ba1M_m4_r1_ms"])
        if r2 is not None:
            add("DACCER BA n=1M m=4, radius 2", ms(r2), f"<= {TARGETS['daccer_ba1M_m4_r2_ms'] / 1e3:.0f} s",
                r2 <= TARGETS["daccer_ba1M_m4_r2_ms"])
    return out
