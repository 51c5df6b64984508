"""Section ``yin``: BC, closeness and PageRank on musae-facebook and wave, and their
Pearson correlations (the Yin et al. seed's Table 3).

Each centrality is timed (results already computed and checked by the ``bc_all``
and ``closeness`` sections of the same run are reused for the correlations, and
their times are not measured twice).  The correlations come from
``algorithms.rank_correlation(x, y, method)`` and are checked against NumPy
(Pearson) and SciPy (Spearman).
"""

from __future__ import annotations

import numpy as np

from . import bc_all, closeness
from .core import Bench, host
from .tables import chk, ms, num, table

NAME = "yin"
GRAPHS = {"tiny": ["jazz"], "quick": ["musae-facebook"], "full": ["musae-facebook", "wave"]}


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality", "closeness_centrality", "pagerank", "rank_correlation")
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        vals: dict[str, np.ndarray] = {}
        calls = {
            "betweenness": (("bc_all", name), lambda: alg.betweenness_centrality(A)),
            "closeness": (("closeness", name), lambda: alg.closeness_centrality(A)),
            "pagerank": (None, lambda: alg.pagerank(A)),
        }
        for label, (memo_key, fn) in calls.items():
            if memo_key in b.memo:
                vals[label] = b.memo[memo_key]
                b.note(NAME, {**gf, "measure": label, "system": "spla",
                              "reused_from": memo_key[0], "status": "reused"})
                continue

            def keep(got, label=label):
                x = host(got).astype(np.float64)
                vals[label] = x
                ok = x.shape == (gf["n"],) and bool(np.isfinite(x).all())
                return ok, "finite, right length (values checked in the bc_all/closeness/pagerank sections)"

            b.measure(NAME, {**gf, "measure": label, "system": "spla"}, fn, check=keep)
        names = list(vals)
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                x, y = vals[names[i]], vals[names[j]]
                for method in ("pearson", "spearman"):
                    rec = {**gf, "measure": "correlation", "system": "spla", "method": method,
                           "pair": f"{names[i]}~{names[j]}"}
                    try:
                        got = float(alg.rank_correlation(x, y, method=method))
                        if method == "pearson":
                            want = float(np.corrcoef(x, y)[0, 1])
                        else:
                            from scipy.stats import spearmanr

                            want = float(spearmanr(x, y).statistic)
                        ok = abs(got - want) <= 1e-9 * max(1.0, abs(want)) or (np.isnan(got) and np.isnan(want))
                        b.note(NAME, {**rec, "value": got, "reference": want, "checked": bool(ok)})
                    except Exception as e:  # noqa: BLE001
                        b.note(NAME, {**rec, "status": "error", "error": f"{type(e).__name__}: {e}"})


def summarize(records: list[dict]) -> dict:
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") not in ("ok", "reused"):
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "ms": {}, "corr": {}})
        if r.get("measure") == "correlation":
            g["corr"][(r["pair"], r["method"])] = (r.get("value"), r.get("checked"))
        elif r.get("median_ms") is not None:
            g["ms"][r["measure"]] = r["median_ms"]
        elif r.get("status") == "reused":
            g["ms"].setdefault(r["measure"], "see " + r.get("reused_from", ""))
    return per


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    ball = bc_all.summarize(recs)
    clo = closeness.summarize(recs)
    rows = []
    crow = []
    for g in summarize(recs).values():
        m = g["ms"]
        bc_t = m.get("betweenness")
        if isinstance(bc_t, str):
            bc_t = ball.get(g["graph"], {}).get("ms", {}).get("spla", bc_t)
        cl_t = m.get("closeness")
        if isinstance(cl_t, str):
            cl_t = clo.get(g["graph"], {}).get("ms", {}).get("spla", cl_t)
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(bc_t), ms(cl_t),
                     ms(m.get("pagerank"))])
        for (pair, method), (val, ok) in sorted(g["corr"].items()):
            crow.append([f"`{g['graph']}`", pair.replace("~", " ~ "), method, num(val, 4), chk(ok)])
    return (table(["graph", "n", "arcs", "BC (all sources)", "closeness", "PageRank"], rows) + "\n"
            + table(["graph", "pair", "method", "correlation", "checked"], crow))


def headlines(recs) -> list[dict]:
    """The section's performance claims: none."""
    return []
