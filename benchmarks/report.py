"""Markdown tables and headline ratios from a results JSON (see benchmarks/core.py).

``markdown_report(data, sections)`` renders one device's results: headlines with the
issues' targets, the graph table (sizes, generation/build/upload times,
scale-free metric and kernel choice) and one table per section, with the seeds'
anchors beside our numbers, then the list of failed/skipped measurements.
The sections (``benchmarks.sections.SECTIONS``) are given by the caller: each brings its
title, its table and its headlines.  Used by the harness (``<date>.md`` next to the JSON),
by ``benchmarks.plot`` and by ``benchmarks.docs`` (docs/benchmarks.md).
"""

from __future__ import annotations

from .tables import ms, num, table


# -------------------------------------------------------------------------- headlines
def headlines(data: dict, sections) -> list[dict]:
    """The issues' performance claims, each with our value, the target and pass/fail, in the
    order of ``sections``."""
    recs = data.get("records", [])
    return [h for section in sections for h in section.headlines(recs)]


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


def markdown_tables(data: dict, sections, level: int = 2, dated: bool = True) -> str:
    """Headlines, graphs and per-section tables of one results dict (no page title); ``sections``:
    the registry's sections (``benchmarks.sections.SECTIONS``), in the order of the report;
    ``dated``: whether the device line gives the results' date."""
    h = "#" * level
    recs = data.get("records", [])
    dev = data.get("device", {})
    parts = []
    bw = dev.get("copy_bandwidth", {}).get("GBps")
    runs = data.get("runs", [])
    modes = sorted({r.get("mode", "?") for r in runs})
    vers = dev.get("versions", {})
    parts.append(f"Device: **{dev.get('name', '?')}**"
                 + (f", {dev['host_cpus']} cores" if dev.get("kind") == "cpu" and dev.get("host_cpus") else "")
                 + (f", {dev['memory_total_bytes'] / 2**30:.0f} GiB" if dev.get("memory_total_bytes") else "")
                 + (f"; device-to-device copy {bw:,.0f} GB/s (read + write)" if bw else "")
                 + (f". Date {data.get('date', '?')}; mode " if dated else "; mode ") + f"{', '.join(modes)}; "
                 + ", ".join(f"{k} {v}" for k, v in vers.items() if v) + ".\n")
    hl = headlines(data, sections)
    if hl:
        parts.append(f"{h} Headlines\n\n" + table(
            ["claim", "measured", "target", "met"],
            [[x["what"], x["value"], x["target"], "yes" if x["ok"] else "**no**"] for x in hl]))
    parts.append(f"{h} Graphs\n\nUpload = `Matrix.to(\"gpu\")` of the CSC arrays (not included in any time below).\n\n"
                 + _graphs_table(data))
    present = {r.get("section") for r in recs}
    for section in sections:
        key, title = section.name, section.title
        if key not in present:
            continue
        sec = data.get("sections", {}).get(key, {})
        status = f" (section {sec.get('status')}" + (f": {sec['error']}" if sec.get("error") else "") + ")" \
            if sec.get("status") not in (None, "ok") else ""
        parts.append(f"{h} {title}{status}\n\n" + section.table(recs))
    skipped = {k: v for k, v in data.get("sections", {}).items() if v.get("status") not in ("ok",)}
    if skipped:
        parts.append(f"{h} Sections not completed\n\n" + table(
            ["section", "status", "message"],
            [[k, v.get("status"), (v.get("error") or "").replace("|", "/")[:200]] for k, v in skipped.items()]))
    probs = _problems(recs)
    if not probs.startswith("_no"):
        parts.append(f"{h} Failed, unchecked or skipped measurements\n\n" + probs)
    return "\n".join(parts)


def markdown_report(data: dict, sections) -> str:
    """The stand-alone markdown file written next to the JSON."""
    dev = data.get("device", {})
    return (f"# spla benchmarks: {dev.get('name', '?')}, {data.get('date', '?')}\n\n"
            "Generated by `python -m benchmarks`; `python -m benchmarks.docs` writes docs/benchmarks.md.\n\n"
            + markdown_tables(data, sections))
