"""Markdown tables and headline ratios from a results JSON (see benchmarks/core.py).

``markdown_report(data)`` renders one device's results: headlines with the
issues' targets, the graph table (sizes, generation/build/upload times,
scale-free metric and kernel choice) and one table per section, with the seeds'
anchors beside our numbers, then the list of failed/skipped measurements.
Used by the harness (``<date>.md`` next to the JSON) and by ``benchmarks.plot``
(docs/benchmarks.md).
"""

from __future__ import annotations

import math

from . import bc_all, bc_single, closeness, daccer, pagerank, shortness, spmv, sriram, yin
from .anchors import CUSPARSE_H200_GARCS, TARGETS


# ----------------------------------------------------------------------------- format
def ms(v) -> str:
    """Human time from milliseconds: '0.412 ms', '12.3 ms', '4.56 s'."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, str):
        return v
    if v >= 1000:
        return f"{v / 1000:.3g} s"
    if v >= 1:
        return f"{v:.3g} ms"
    return f"{v:.3f} ms"


def num(v, digits=3) -> str:
    if v is None:
        return "–"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) < 1e15):
        return f"{int(v):,}"
    return f"{v:.{digits}g}"


def ratio(v) -> str:
    return "–" if v is None else f"{v:.2f}×"


def chk(v) -> str:
    return {True: "yes", False: "**NO**", None: "–"}.get(v, str(v))


def mib(v) -> str:
    return "–" if not v else f"{v / 2**20:,.1f} MiB"


def mem_cell(g: dict) -> str:
    """Peak device memory of a repeated call, with the first call's (which builds the lazy
    caches) in parentheses when it differs."""
    warm, first = g.get("mem"), g.get("mem_first")
    if first is None or warm is None or abs(first - warm) < 2**20:
        return mib(warm if warm is not None else first)
    return f"{mib(warm)} ({mib(first)})"

def table(headers: list[str], rows: list[list]) -> str:
    if not rows:
        return "_no results_\n"
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def geomean(xs) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# -------------------------------------------------------------------------- headlines
def headlines(data: dict) -> list[dict]:
    """The issues' performance claims, each with our value, the target and pass/fail."""
    recs = data.get("records", [])
    out = []

    def add(what, value, target, ok, detail=""):
        out.append({"what": what, "value": value, "target": target, "ok": ok, "detail": detail})

    sp = [g for g in spmv.summarize(recs).values() if g.get("big")]
    v = [g["best_vs_peer"] for g in sp if g.get("best_vs_peer")]
    peer = "cuSPARSE" if any(r.get("system") == "cusparse" for r in recs) else "SciPy (CPU run)"
    if v:
        add(f"best spla kernel vs {peer} CSR SpMV (throughput, graphs >= 10M arcs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean over {len(v)}",
            f">= {TARGETS['spmv_best_vs_cusparse']}× on each", min(v) >= TARGETS["spmv_best_vs_cusparse"])
    v = [g["mask_speedup"] for g in sp if g.get("mask_speedup")]
    if v:
        add("90%-masked vxm speed-up over unmasked", f"{min(v):.2f}× min, {geomean(v):.2f}× geomean",
            f">= {TARGETS['spmv_mask90_speedup']}×", min(v) >= TARGETS["spmv_mask90_speedup"])
    v = [g["mask_speedup_dev"] for g in sp if g.get("mask_speedup_dev")]
    if v:
        add("90%-masked vxm speed-up over unmasked, device time (replayed CUDA graphs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean", f">= {TARGETS['spmv_mask90_speedup']}×",
            min(v) >= TARGETS["spmv_mask90_speedup"])
    v = [g["block_ratio"] for g in sp if g.get("block_ratio")]
    if v:
        add("k=32 block: arc·vectors/s over k=1", f"{min(v):.2f}× min, {geomean(v):.2f}× geomean",
            f">= {TARGETS['spmv_block32_vs_k1']}×", min(v) >= TARGETS["spmv_block32_vs_k1"])
    v = [g["block_ratio_dev"] for g in sp if g.get("block_ratio_dev")]
    if v:
        add("k=32 block: arc·vectors/s over k=1, device time (replayed CUDA graphs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean", f">= {TARGETS['spmv_block32_vs_k1']}×",
            min(v) >= TARGETS["spmv_block32_vs_k1"])
    bs = bc_single.summarize(recs).values()
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
    ba = bc_all.summarize(recs).values()
    v = [g["vs_turbobc"] for g in ba if g.get("vs_turbobc")]
    if v:
        add("all-sources BC vs TurboBC", f"{min(v):.1f}× min", f">= {TARGETS['bc_all_vs_turbobc']}×",
            min(v) >= TARGETS["bc_all_vs_turbobc"])
    v = [g["vs_networkit-16t"] for g in ba if g.get("vs_networkit-16t")]
    if v:
        add("all-sources BC vs NetworKit (16 threads)", f"{min(v):.1f}× min, {geomean(v):.1f}× geomean",
            f">= {TARGETS['bc_all_vs_networkit']}× each", min(v) >= TARGETS["bc_all_vs_networkit"])
    v = [g["vs_networkit"] for g in closeness.summarize(recs).values() if g.get("vs_networkit")]
    if v:
        add("closeness vs NetworKit (16 threads)", f"{min(v):.1f}× min, {geomean(v):.1f}× geomean",
            f">= {TARGETS['closeness_vs_networkit']}× each", min(v) >= TARGETS["closeness_vs_networkit"])
    d = daccer.summarize(recs).get("ba1M_m4")
    if d:
        r1, r2 = d["ms"].get(1), d["ms"].get(2)
        if r1 is not None:
            add("DACCER BA n=1M m=4, radius 1", ms(r1), f"<= {TARGETS['daccer_ba1M_m4_r1_ms']:.0f} ms",
                r1 <= TARGETS["daccer_ba1M_m4_r1_ms"])
        if r2 is not None:
            add("DACCER BA n=1M m=4, radius 2", ms(r2), f"<= {TARGETS['daccer_ba1M_m4_r2_ms'] / 1e3:.0f} s",
                r2 <= TARGETS["daccer_ba1M_m4_r2_ms"])
    v = [g["iter_vs_spmv"] for g in pagerank.summarize(recs).values() if g.get("iter_vs_spmv")]
    if v:
        add(f"PageRank iteration / one {peer} SpMV (float64)", f"{max(v):.2f}× worst",
            f"<= {TARGETS['pagerank_iter_vs_spmv']}×", max(v) <= TARGETS["pagerank_iter_vs_spmv"])
    return out


# ---------------------------------------------------------------------------- sections
def _graphs_table(data: dict) -> str:
    rows = []
    for name, g in data.get("graphs", {}).items():
        ck = g.get("choose_kernel") or ["–"]
        rows.append([f"`{name}`", g.get("label", ""), num(g.get("n")), num(g.get("arcs")),
                     f"{g['gen_s']:.2f}" + (" (cache)" if g.get("cached") else "") if g.get("gen_s") is not None else "–",
                     f"{g['build_s']:.2f}" if g.get("build_s") is not None else "–",
                     ms(g["upload_s"] * 1e3) if g.get("upload_s") is not None else "–",
                     num(g.get("scale_free_metric")), ck[0]])
    return table(["graph", "what", "n", "arcs (stored)", "made/loaded s", "Matrix build s", "upload",
                  "scale-free metric", "choose_kernel"], rows)


def _spmv(recs) -> str:
    s = spmv.summarize(recs)
    rows = []
    for g in s.values():
        t = g.get("t", {})
        fr = g.get("frac", {})
        cells = [f"`{g['graph']}`", num(g.get("arcs"))]
        for k in spmv.KERNELS + ("auto",):
            key = ("vxm", "spla", k)
            v = t.get(key)
            cells.append("–" if v is None else f"{ms(v)} ({g['arcs'] / (v * 1e-3) / 1e9:.3g}"
                         + (f", {fr[key] * 100:.0f}%" if key in fr else "") + ")")
        peer_key = ("vxm", "cusparse", "csr") if ("vxm", "cusparse", "csr") in t else ("vxm", "scipy", "csr")
        pv = t.get(peer_key)
        cells.append("–" if pv is None else f"{ms(pv)} ({g['arcs'] / (pv * 1e-3) / 1e9:.3g}"
                     + (f", {fr[peer_key] * 100:.0f}%" if peer_key in fr else "") + ")")
        cells += [ratio(g.get("best_vs_peer")), ratio(g.get("mask_speedup")), ratio(g.get("block_ratio")),
                  chk(all(v for v in g.get("checked", {}).values() if v is not None) if g.get("checked") else None)]
        rows.append(cells)
    txt = ("Time per product, in parentheses G arcs/s and the fraction of the measured copy bandwidth "
           "that the bytes the product must move reach. Ratios: best kernel vs the CSR peer "
           "(cuSPARSE on the GPU, SciPy on the CPU; throughput, higher is better), 90%-masked speed-up "
           "(best unmasked / best masked), k=32 block arc·vectors/s over k=1. "
           f"Anchor: cuSPARSE reached {CUSPARSE_H200_GARCS[0]:.0f}–{CUSPARSE_H200_GARCS[1]:.0f} G arcs/s on an H200.\n\n")
    gpu_run = any(r.get("section") == "spmv" and r.get("device") == "gpu" for r in recs)
    cpu = [r for r in recs if r.get("section") == "spmv" and r.get("system") in ("spla-cpu", "scipy")
           and r.get("measure") == "vxm" and r.get("median_ms") is not None] if gpu_run else []
    extra = ""
    if cpu:
        extra = "\nCPU peers (same graphs, host):\n\n" + table(
            ["graph", "system", "time", "G arcs/s", "checked"],
            [[f"`{r['graph']}`", r["system"], ms(r["median_ms"]), num(r.get("gteps")), chk(r.get("checked"))]
             for r in cpu])
    dev_rows = [[f"`{g['graph']}`", num(g.get("arcs")), ms(g["dev_best_ms"]), ms(g["mask_dev_best_ms"]),
                 ratio(g.get("mask_speedup_dev")), ms(g.get("mask_dev_auto_ms")), ms(g.get("mask_list_dev_best_ms")),
                 ratio(g.get("mask_speedup_dev_list")), ms(g.get("mask_walk_dev_best_ms")),
                 ratio(g.get("mask_speedup_dev_walk")), ms(g.get("block_dev_ms")), ratio(g.get("block_ratio_dev"))]
                for g in s.values() if g.get("mask_speedup_dev")]
    if dev_rows:
        extra += ("\nDevice time of one product (16 back-to-back products recorded once as a CUDA graph with "
                  "`spla.Replay`, replayed, time / 16; best kernel): unmasked; 90%-masked with the defaults "
                  "(scCSC's warp tiles, veCSC's mask worklist by its rule), the kernel `kernel=\"auto\"` picks "
                  "for it (the masked auto column: a mask of unknown density), and without scCSC's tiles with "
                  "the worklist forced on and off (every column tests its own mask), all in the same run; the "
                  "k = 32 block product (auto) and its arc·vectors/s over the best unmasked k = 1 product's.\n\n"
                  + table(["graph", "arcs", "unmasked", "masked", "speed-up", "masked auto", "worklist on", "speed-up",
                           "column walk", "speed-up", "k=32", "k=32 ratio"], dev_rows))
    return txt + table(["graph", "arcs", "scCSC", "veCSC", "scCOOC", "auto", "CSR peer", "best/peer",
                        "mask 90%", "k=32", "checked"], rows) + extra


def _bc_single(recs) -> str:
    s = bc_single.summarize(recs)
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


def _bc_all(recs) -> str:
    s = bc_all.summarize(recs)
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


def _closeness(recs) -> str:
    rows = []
    for g in closeness.summarize(recs).values():
        m = g["ms"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     ms(m.get("networkit-16t")), ratio(g.get("vs_networkit")), ms(m.get("networkit")),
                     ms(m.get("igraph")), "~" + ms(m["networkx (est.)"]) if m.get("networkx (est.)") else "–",
                     chk(g.get("checked")), mem_cell(g)])
    return table(["graph", "n", "arcs", "spla", "NetworKit 16t (anchor)", "NetworKit/spla", "NetworKit here",
                  "igraph here", "networkx", "checked", "GPU mem: repeat call (first)"], rows)


def _shortness(recs) -> str:
    rows = []
    for g in shortness.summarize(recs).values():
        m = g["ms"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     num(g.get("nm_per_s")), "~" + ms(m["networkx (est.)"]) if m.get("networkx (est.)") else "–",
                     chk(g.get("checked")), mem_cell(g)])
    return table(["graph", "n", "arcs", "spla", "n·m/t", "networkx", "checked", "GPU mem: repeat call (first)"], rows)


def _daccer(recs) -> str:
    rows = []
    for g in daccer.summarize(recs).values():
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs"))]
                    + [ms(g["ms"].get(r)) for r in (0, 1, 2)]
                    + [chk(all(v for v in g["checked"].values() if v is not None))])
    return ("Targets (issue #3): BA n=1M m=4, radius 1 <= 50 ms, radius 2 <= 1 s.\n\n"
            + table(["graph", "n", "arcs", "radius 0", "radius 1", "radius 2", "checked"], rows))


def _pagerank(recs) -> str:
    rows = []
    per = pagerank.summarize(recs)
    for g in per.values():
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(g.get("iter_ms")),
                     ms(g.get("iter_incl_ms")), ms(g.get("spmv_f64_ms")), ms(g.get("spmv_f32_ms")),
                     ratio(g.get("iter_vs_spmv")), ms(g.get("converged_ms")), chk(g.get("checked"))])
    short = sorted({f"`{g['graph']}` {g['iterations'][1]}" for g in per.values()
                    if g.get("iterations") and g["iterations"][1] != pagerank.K2})
    return (f"One iteration = (t(K2 it.) − t({pagerank.K1} it.)) / (K2 − {pagerank.K1}), K2 = {pagerank.K2}"
            + (f" (fewer where the iterates reach their fixed point exactly before: {', '.join(short)})" if short else "")
            + "; 'incl. set-up' = t(K2)/K2. Target: one iteration <= 1.5× one SpMV. 'checked': the converged "
            "result against the reference, the forced runs (all K iterations ran, finite) and both SpMVs.\n\n"
            + table(["graph", "n", "arcs", "1 iteration", "incl. set-up", "SpMV f64", "SpMV f32", "iter/SpMV f64",
                     "to tol 1e-4/n", "checked"], rows))


def _yin(recs) -> str:
    ball = bc_all.summarize(recs)
    clo = closeness.summarize(recs)
    rows = []
    crow = []
    for g in yin.summarize(recs).values():
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


def _sriram(recs) -> str:
    rows = [[f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), num(g.get("k")), ms(g.get("ms")),
             num(g.get("teps")), chk(g.get("checked")), mem_cell(g)]
            for g in sriram.summarize(recs).values()]
    return table(["graph", "n", "arcs", "k sources", "spla", "k·m/t", "checked", "GPU mem: repeat call (first)"], rows)


SECTION_TITLES = [
    ("spmv", "Products: spla kernels vs cuSPARSE (issue #2)", _spmv),
    ("bc_single", "Single-source betweenness per kernel vs TurboBC", _bc_single),
    ("bc_all", "Exact betweenness, all sources", _bc_all),
    ("closeness", "Closeness of all vertices", _closeness),
    ("daccer", "DACCER volumes (CUDACCER seed)", _daccer),
    ("pagerank", "PageRank iteration vs one SpMV", _pagerank),
    ("yin", "BC, closeness, PageRank and their correlations (Yin et al.)", _yin),
    ("sriram", "Approximate BC, 2^12 sampled sources (Sriram et al.)", _sriram),
    ("shortness", "Sum of distances (shortness seed)", _shortness),
]


def _problems(recs) -> str:
    """Failed, unchecked and skipped measurements; identical ones grouped over graphs."""
    groups: dict = {}
    for r in recs:
        status = r.get("status")
        if status in ("ok", "reused"):
            if r.get("checked") is False:
                status = "check failed"
            elif r.get("checked") is None and r.get("median_ms") is not None and not r.get("anchor"):
                status = "unchecked"  # timed, but its result was not compared with a reference
            else:
                continue
        what = " ".join(str(r.get(k)) for k in ("measure", "system", "kernel", "radius") if r.get(k) is not None)
        msg = (r.get("error") or r.get("reason") or r.get("check") or "")[:160].replace("|", "/")
        key = (r.get("section", ""), what, status, msg)
        groups.setdefault(key, []).append(str(r.get("graph", "")))
    rows = [[sec, ", ".join(f"`{g}`" for g in dict.fromkeys(gs)), what, st, msg]
            for (sec, what, st, msg), gs in groups.items()]
    return table(["section", "graphs", "what", "status", "message"], rows)


def markdown_tables(data: dict, level: int = 2) -> str:
    """Headlines, graphs and per-section tables of one results dict (no page title)."""
    h = "#" * level
    recs = data.get("records", [])
    dev = data.get("device", {})
    parts = []
    bw = dev.get("copy_bandwidth", {}).get("GBps")
    runs = data.get("runs", [])
    modes = sorted({r.get("mode", "?") for r in runs})
    vers = dev.get("versions", {})
    parts.append(f"Device: **{dev.get('name', '?')}**"
                 + (f", {dev['memory_total_bytes'] / 2**30:.0f} GiB" if dev.get("memory_total_bytes") else "")
                 + (f"; device-to-device copy {bw:,.0f} GB/s (read + write)" if bw else "")
                 + f". Date {data.get('date', '?')}; mode {', '.join(modes)}; "
                 + ", ".join(f"{k} {v}" for k, v in vers.items() if v) + ".\n")
    hl = headlines(data)
    if hl:
        parts.append(f"{h} Headlines\n\n" + table(
            ["claim", "measured", "target", "met"],
            [[x["what"], x["value"], x["target"], "yes" if x["ok"] else "**no**"] for x in hl]))
    parts.append(f"{h} Graphs\n\nUpload = `Matrix.to(\"gpu\")` of the CSC arrays (not included in any time below).\n\n"
                 + _graphs_table(data))
    present = {r.get("section") for r in recs}
    for key, title, fn in SECTION_TITLES:
        if key not in present:
            continue
        sec = data.get("sections", {}).get(key, {})
        status = f" (section {sec.get('status')}" + (f": {sec['error']}" if sec.get("error") else "") + ")" \
            if sec.get("status") not in (None, "ok") else ""
        parts.append(f"{h} {title}{status}\n\n" + fn(recs))
    skipped = {k: v for k, v in data.get("sections", {}).items() if v.get("status") not in ("ok",)}
    if skipped:
        parts.append(f"{h} Sections not completed\n\n" + table(
            ["section", "status", "message"],
            [[k, v.get("status"), (v.get("error") or "").replace("|", "/")[:200]] for k, v in skipped.items()]))
    probs = _problems(recs)
    if not probs.startswith("_no"):
        parts.append(f"{h} Failed, unchecked or skipped measurements\n\n" + probs)
    return "\n".join(parts)


def markdown_report(data: dict) -> str:
    """The stand-alone markdown file written next to the JSON."""
    dev = data.get("device", {})
    return (f"# spla benchmarks: {dev.get('name', '?')}, {data.get('date', '?')}\n\n"
            "Generated by `python -m benchmarks`; regenerate docs with `python -m benchmarks.plot`.\n\n"
            + markdown_tables(data))
