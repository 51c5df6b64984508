"""``python -m benchmarks.plot [results.json ...]``: the plots of docs/benchmarks.md.

With no argument, takes every ``benchmarks/results/<device>/<date>.json``, merged per device
section by section (``benchmarks.results.merge``: each section from the newest file that has it).
For each device it draws, with matplotlib (Agg):

- ``docs/img/bench-times-<device>.png``: time per graph per system, log axis
  (single-source BC, all-sources BC, closeness; anchors hatched);
- ``docs/img/bench-kernels-<device>.png``: each kernel's time over the best
  kernel's, against the scale-free metric (the selection rule's calibration);
- ``docs/img/bench-memory-<device>.png``: peak device memory against n + m;

and for each run of ``benchmarks.scaling`` (``benchmarks/results_scaling/<device>-x<G>-<graph>.json``)
``docs/img/bench-scaling-<device>-x<G>-<graph>.png``: speedup against Dask workers.

``python -m benchmarks.docs`` writes the page that shows them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import bc_all, bc_single, closeness, scaling, spmv
from .results import default_inputs, merge
from .timing import call_peak_bytes

REPO = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------------- plots
def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_times(data: dict, path: Path) -> bool:
    """Grouped bars (log scale) of time per graph per system for the BC/closeness tables."""
    recs = data.get("records", [])
    panels = []
    s = bc_single.summarize(recs)
    if s:
        systems = [("spla", "auto"), ("turbobc", ""), ("spla-cpu", "auto"), ("networkx", "")]
        labels = ["spla (auto)", "TurboBC H200 (anchor)", "spla CPU", "networkx"]
        panels.append(("single-source BC", list(s), labels,
                       [[s[g]["ms"].get(k) for g in s] for k in systems]))
    a = bc_all.summarize(recs)
    if a:
        keys = ["spla", "turbobc", "networkit-16t", "networkx (est.)", "spla-cpu (est.)"]
        labels = ["spla", "TurboBC H200 (anchor)", "NetworKit 16t (anchor)", "networkx (extrapolated)",
                  "spla CPU (extrapolated)"]
        panels.append(("all-sources BC", list(a), labels, [[a[g]["ms"].get(k) for g in a] for k in keys]))
    c = closeness.summarize(recs)
    if c:
        keys = ["spla", "networkit-16t", "networkx (est.)"]
        labels = ["spla", "NetworKit 16t (anchor)", "networkx (extrapolated)"]
        panels.append(("closeness", list(c), labels, [[c[g]["ms"].get(k) for g in c] for k in keys]))
    if not panels:
        return False
    plt = _plt()
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 3.6 * len(panels)), squeeze=False)
    for ax, (title, graphs, labels, series) in zip(axes[:, 0], panels):
        width = 0.8 / len(series)
        for i, (lab, vals) in enumerate(zip(labels, series)):
            xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(graphs))]
            ys = [v if isinstance(v, (int, float)) and v > 0 else 0 for v in vals]
            ax.bar(xs, ys, width, label=lab, hatch="//" if "anchor" in lab else None,
                   alpha=0.6 if "extrapolated" in lab else 1.0)
        ax.set_yscale("log")
        ax.set_xticks(range(len(graphs)))
        ax.set_xticklabels(graphs, rotation=20, ha="right")
        ax.set_ylabel("time (ms)")
        ax.set_title(title)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8, ncol=3)
    fig.suptitle(f"{data.get('device', {}).get('name', '?')}, {data.get('date', '')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_kernels(data: dict, path: Path) -> bool:
    """Kernel time / best kernel time against the scale-free metric (spmv and bc_single)."""
    recs = data.get("records", [])
    graphs = data.get("graphs", {})
    pts = {}  # (panel, kernel) -> [(metric, ratio, graph)]
    for g in spmv.summarize(recs).values():
        t = g.get("t", {})
        # device time (replayed products) where the run has it for every kernel, else one call's time
        ks = {k: t.get(("vxm_dev", "spla", k)) for k in spmv.KERNELS}
        if not all(ks.values()):
            ks = {k: t.get(("vxm", "spla", k)) for k in spmv.KERNELS}
        ks = {k: v for k, v in ks.items() if v}
        metric = graphs.get(g["graph"], {}).get("scale_free_metric")
        if ks and metric:
            best = min(ks.values())
            for k, v in ks.items():
                pts.setdefault(("vxm plus_times float32 (device time where measured)", k), []).append(
                    (metric, v / best, g["graph"]))
    for g in bc_single.summarize(recs).values():
        ks = {k: g["ms"].get(("spla", k)) for k in bc_single.KERNELS[1:]}
        ks = {k: v for k, v in ks.items() if v}
        metric = graphs.get(g["graph"], {}).get("scale_free_metric")
        if ks and metric:
            best = min(ks.values())
            for k, v in ks.items():
                pts.setdefault(("single-source BC", k), []).append((metric, v / best, g["graph"]))
    if not pts:
        return False
    plt = _plt()
    panels = sorted({p for p, _ in pts})
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5), squeeze=False)
    markers = {"scCSC": "o", "veCSC": "s", "scCOOC": "^"}
    for ax, panel in zip(axes[0], panels):
        for (p, k), xs in sorted(pts.items()):
            if p != panel:
                continue
            ax.scatter([x[0] for x in xs], [x[1] for x in xs], marker=markers.get(k, "x"), label=k)
            if k == "scCSC":
                for m, r, gname in xs:
                    ax.annotate(gname, (m, r), fontsize=6, alpha=0.7)
        ax.set_xscale("log")
        if max(x[1] for (p, _), xs in pts.items() if p == panel for x in xs) > 4:
            ax.set_yscale("log")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xlabel("scale-free metric (spla.scale_free_metric)")
        ax.set_ylabel("time / best kernel's time")
        ax.set_title(panel)
        ax.grid(alpha=0.3, which="both")
        ax.legend()
    fig.suptitle(f"kernel choice calibration: {data.get('device', {}).get('name', '?')}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_memory(data: dict, path: Path) -> bool:
    """Device memory of each measured call (its peak above what was live, plus the pattern
    matrix's (n + 1 + m) words) against n + m (log-log)."""
    recs = [r for r in data.get("records", [])
            if r.get("mem_peak_bytes") and r.get("n") and r.get("arcs") and r.get("system") == "spla"]
    if not recs:
        return False
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 5))
    groups: dict = {}
    for r in recs:
        key = r["section"] + ("" if r["section"] != "spmv" else f" {r.get('measure')}")
        own = call_peak_bytes(r) + 4 * (r["n"] + 1 + r["arcs"])
        groups.setdefault(key, []).append((r["n"] + r["arcs"], max(own, 1)))
    for key, xs in sorted(groups.items()):
        ax.scatter([x[0] for x in xs], [x[1] / 2**20 for x in xs], label=key, s=14)
    lo = min(r["n"] + r["arcs"] for r in recs)
    hi = max(r["n"] + r["arcs"] for r in recs)
    ax.plot([lo, hi], [4 * lo / 2**20, 4 * hi / 2**20], "k--", lw=0.8, label="4 bytes × (n + m): the CSC pattern")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n + m (vertices + stored arcs)")
    ax.set_ylabel("peak CuPy pool (MiB)")
    ax.set_title(f"peak device memory: {data.get('device', {}).get('name', '?')}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


#: the plots drawn for each device: (kind, function, alt text); files docs/img/bench-<kind>-<device>.png
PLOTS = (("times", plot_times, "time per graph per system"),
         ("kernels", plot_kernels, "kernel time against the scale-free metric"),
         ("memory", plot_memory, "peak device memory against n + m"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.plot", description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="*", type=Path,
                   help="results JSON files (default: every file of every device, newest section wins)")
    p.add_argument("--docs", type=Path, default=REPO / "docs", help="docs folder (default: <repo>/docs)")
    args = p.parse_args(argv)
    paths = args.results or default_inputs()
    runs = [] if args.results else scaling.load_all()
    if not paths and not runs:
        print("no results JSON found (run `python -m benchmarks` first)", file=sys.stderr)
        return 1
    img = args.docs / "img"
    img.mkdir(parents=True, exist_ok=True)
    for stem, result in runs:
        out = img / f"bench-scaling-{stem}.png"
        if scaling.plot(result, out):
            print(f"wrote {out}")
    for slug, data in merge(paths).items():
        for kind, fn, _ in PLOTS:
            out = img / f"bench-{kind}-{slug}.png"
            try:
                if fn(data, out):
                    print(f"wrote {out}")
            except Exception as e:  # noqa: BLE001
                print(f"plot {kind} failed: {type(e).__name__}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
