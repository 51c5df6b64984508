"""``python -m benchmarks``: run the benchmark sections and write results.

Examples::

    python -m benchmarks --quick                       # smaller graph lists, fewer repeats
    python -m benchmarks                               # everything
    python -m benchmarks --only spmv,bc_single --out /tmp/res
    python -m benchmarks --tiny --device cpu --only spmv   # seconds, no GPU (tests)
    python -m benchmarks --list                        # sections and graphs
    python -m benchmarks --cpu                         # the CPU comparisons (bc_cpu), on the CPU

Results: ``<out>/<device-slug>/<YYYY-MM-DD>.json`` (default out:
benchmarks/results), rewritten after every measurement, and ``<date>.md`` with
the tables.  Re-running sections on the same day and device replaces those
sections' records and keeps the others.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

from . import graphs
from .core import DEFAULT_BUDGET_S, Bench, Options, SkipSection, log
from .report import markdown_report
from .sections import BY_NAME, CPU_SECTIONS, SECTIONS, SHARES


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Reproduce the seeds' experiments with spla on this machine's GPU (or CPU) "
                    "beside cuSPARSE, the CPU peers and the published anchors.")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help=f"smaller graph lists, fewer repeats (budget {DEFAULT_BUDGET_S['quick']:.0f} s)")
    size.add_argument("--tiny", action="store_true",
                      help="toy graphs only: a smoke test of the harness (CPU friendly, seconds)")
    p.add_argument("--only", metavar="SECTION[,SECTION]",
                   help="run only these sections: " + ", ".join(BY_NAME))
    p.add_argument("--skip", metavar="SECTION[,SECTION]", help="run all sections but these")
    p.add_argument("--device", choices=["auto", "cpu", "gpu"], default="auto",
                   help="where spla runs (auto: the GPU when CuPy sees one)")
    p.add_argument("--cpu", action="store_true",
                   help=f"the CPU comparisons: --device cpu and, unless --only says otherwise, --only "
                        f"{','.join(CPU_SECTIONS)}")
    p.add_argument("--out", metavar="DIR", type=Path,
                   help="results folder (default benchmarks/results); files go to DIR/<device>/<date>.json/.md")
    p.add_argument("--budget-s", type=float, metavar="S",
                   help="stop starting measurements after S seconds (default: tiny "
                        f"{DEFAULT_BUDGET_S['tiny']:.0f}, quick {DEFAULT_BUDGET_S['quick']:.0f}, "
                        f"full {DEFAULT_BUDGET_S['full']:.0f}); each section gets a share")
    p.add_argument("--measure-cap-s", type=float, metavar="S",
                   help="hard limit of a single measurement (default 30/60/240 s by mode)")
    p.add_argument("--no-peers", action="store_true", help="skip the CPU peers (spla CPU, networkx, NetworKit, igraph)")
    p.add_argument("--no-cache", action="store_true", help="regenerate graphs instead of using the .npz cache")
    p.add_argument("--list", action="store_true", help="list sections and graphs, then exit")
    return p.parse_args(argv)


def _sections(args) -> list[str]:
    chosen = list(BY_NAME)
    if args.only:
        chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    if args.skip:
        skip = {s.strip() for s in args.skip.split(",")}
        chosen = [s for s in chosen if s not in skip]
    bad = [s for s in chosen + ([s.strip() for s in args.skip.split(",")] if args.skip else []) if s not in BY_NAME]
    if bad:
        raise SystemExit(f"unknown section(s) {bad}; known: {', '.join(BY_NAME)}")
    return chosen


def _list() -> None:
    for s in SECTIONS:
        print(f"{s.name:10s} {s.summary}")
    print()
    for name, spec in graphs.GRAPHS.items():
        print(f"{name:20s} {'quick' if spec.quick else '     '} ~{spec.approx_arcs:>12,} arcs  {spec.label}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        _list()
        return 0
    mode = "tiny" if args.tiny else "quick" if args.quick else "full"
    if args.cpu:
        if args.device == "gpu":
            raise SystemExit("--cpu runs on the CPU; drop --device gpu")
        args.device = "cpu"
        args.only = args.only or ",".join(CPU_SECTIONS)
    opts = Options(mode=mode, device=args.device, out=args.out, budget_s=args.budget_s,
                   measure_cap_s=args.measure_cap_s, use_cache=not args.no_cache,
                   peers=not args.no_peers, sections=_sections(args),
                   argv=list(sys.argv[1:] if argv is None else argv))
    b = Bench(opts, shares=SHARES, render=lambda data: markdown_report(data, SECTIONS))
    try:
        for i, name in enumerate(opts.sections):
            t0 = time.perf_counter()
            b.start_section(name, opts.sections[i:])
            try:
                BY_NAME[name].run(b)
                b.end_section(name, "ok", t0=t0)
            except SkipSection as e:
                b.end_section(name, "skipped", str(e), t0=t0)
            except Exception as e:  # noqa: BLE001 - one section's failure must not stop the run
                log(traceback.format_exc())
                b.end_section(name, "error", f"{type(e).__name__}: {e}"[:500], t0=t0)
    except KeyboardInterrupt:
        log("interrupted: results so far are saved")
        b.save()
        return 130
    b.save()
    nrec = sum(1 for r in b.data["records"] if r.get("status") == "ok")
    bad = sum(1 for r in b.data["records"] if r.get("checked") is False)
    log(f"done in {time.perf_counter() - b.t0:.1f} s: {nrec} measurements ok, {bad} failed checks; "
        f"{b.json_path} and {b.md_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
