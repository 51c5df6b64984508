"""The main job end to end: ``spla centrality GRAPH --out FILE`` (every measure) on real graph files.

    python -m benchmarks.cli_job [--graphs-dir DIR] [--files a,b,... [--undirected]] [--device gpu] [--runs 2]
                                 [--out FILE.json]

Each file is run ``--runs`` times as a separate process, the way a user runs it: Python start,
imports, reading and parsing the file, building the matrix, every measure, writing the CSV.  The
first run of the first file also fills CuPy's on-disk kernel cache (later processes load the
compiled kernels); each run is reported separately.  Per measure, the time is the one the
command's report prints (wall time of that measure, device work included: the algorithms read
their results back to the host).  Checks: exit status 0 and one CSV row per vertex.

Default files: the largest real graphs of ``../shared/graphs`` (see its README), plus a mesh.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (file under the graphs folder, extra CLI arguments): undirected unless the file says otherwise
FILES = [
    ("other/soc-brightkite.txt.gz", ["--undirected"]),
    ("snap/musae_git_edges.csv.gz", ["--undirected"]),
    ("snap/Email-Enron.txt.gz", ["--undirected"]),
    ("snap/ca-AstroPh.txt.gz", ["--undirected"]),
    ("snap/cit-HepTh.txt.gz", []),
    ("suitesparse_dimacs10/delaunay_n16.mtx.gz", []),
]


def default_graphs_dir() -> Path:
    here = Path(__file__).resolve().parents[1]
    for d in (os.environ.get("SPLA_GRAPHS_DIR"), here.parent / "shared" / "graphs", here / "benchmarks" / "data" / "graphs"):
        if d and Path(d).is_dir():
            return Path(d)
    raise SystemExit("no graphs folder: pass --graphs-dir or set SPLA_GRAPHS_DIR")


def run_once(path: Path, extra, device: str, workdir: Path) -> dict:
    out = workdir / "scores.csv"
    cmd = [sys.executable, "-m", "spla", "centrality", str(path), "--device", device, "--out", str(out),
           "--top", "0", *extra]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    rec = {"cmd": " ".join(cmd[1:]), "rc": res.returncode, "wall_s": wall}
    if res.returncode != 0:
        rec["stderr"] = res.stderr[-2000:]
        return rec
    report = res.stderr
    rec["measures_s"] = {m: float(t) for m, t in re.findall(r"^([a-z-]+) +(\d+\.\d+) s$", report, re.M)}
    size = re.search(r"^size +([\d,]+) vert(?:ex|ices), (?:([\d,]+) undirected edges? \()?([\d,]+) arcs?", report, re.M)
    rec["n"] = int(size.group(1).replace(",", ""))
    rec["arcs"] = int(size.group(3).replace(",", ""))
    rec["device"] = re.search(r"^device +(\S+)", report, re.M).group(1)
    rec["kernel"] = re.search(r"^kernel +(.*)$", report, re.M).group(1)
    with open(out, newline="") as f:
        rows = sum(1 for _ in csv.reader(f)) - 1
    rec["rows_ok"] = rows == rec["n"]
    return rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs-dir", type=Path, default=None)
    ap.add_argument("--files", default=None, help="comma-separated paths under the graphs folder (default: FILES)")
    ap.add_argument("--undirected", action="store_true", help="pass --undirected for the --files given")
    ap.add_argument("--device", default="gpu", choices=("auto", "cpu", "gpu"))
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="write the records as JSON")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error(f"--runs must be >= 1, got {args.runs}")
    root = args.graphs_dir or default_graphs_dir()
    files = FILES if args.files is None else [(f, ["--undirected"] if args.undirected else [])
                                              for f in args.files.split(",")]
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in files:
            path = root / name
            if not path.is_file():
                print(f"{name}: not found under {root}, skipped", flush=True)
                continue
            for run in range(1, args.runs + 1):
                rec = {"file": name, "run": run, **run_once(path, extra, args.device, Path(tmp))}
                records.append(rec)
                if rec["rc"] != 0:
                    print(f"{name} run {run}: exit {rec['rc']}: {rec.get('stderr', '')[-300:]}", flush=True)
                    continue
                per = ", ".join(f"{m} {t:.3f}" for m, t in rec["measures_s"].items())
                print(f"{name} run {run}: n={rec['n']:,} arcs={rec['arcs']:,} on {rec['device']}: "
                      f"{rec['wall_s']:.2f} s wall (rows ok: {rec['rows_ok']}); {per}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(records, indent=1))
    return 0 if all(r["rc"] == 0 and r.get("rows_ok") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
