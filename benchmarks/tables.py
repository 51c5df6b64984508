"""Formatting of the benchmark tables (markdown) and of the claims they are judged by."""

from __future__ import annotations

import math


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


def claim(what, value, target, ok, detail="", roofline=None) -> dict:
    """One headline: a performance claim, our value, the target and whether it is met; ``roofline``
    names the floor that bounds it (``benchmarks.rooflines``: "masked" or "block"), if any."""
    return {"what": what, "value": value, "target": target, "ok": ok, "detail": detail, "roofline": roofline}


def peer_name(recs) -> str:
    """The CSR product the spla products are compared with: cuSPARSE on a GPU run, SciPy on a CPU run."""
    return "cuSPARSE" if any(r.get("system") == "cusparse" for r in recs) else "SciPy (CPU run)"

