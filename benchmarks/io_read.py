"""How fast ``spla.io.read_graph`` reads a large SNAP-style edge list.

    python -m benchmarks.io_read [--edges 10000000] [--vertices 2000000] [--gzip] [--keep]
                                 [--kind snap|strings|quoted-csv|quoted-ws]

Writes a SNAP-style file (``#`` comment header, tab-separated ``src dst`` lines with
CRLF-free LF ends, random integer ids) to /tmp, reads it with ``read_graph`` and prints
the wall and CPU time.  The goal (issue 4): 10M edges in under 15 s on a 2-core machine.
With ``--gzip`` the file is gzip-compressed (decompression adds its own time).

``--kind`` writes the other shapes the edge-list reader has paths for, weighted:
``strings`` (``user000042 user001337 0.5``: string labels), ``quoted-csv`` (a
``source,target,weight`` header, then ``"City 42","City 1337",0.5``) and ``quoted-ws``
(``"City 42" "City 1337" 0.5``: quoted labels separated by blanks, as shlex splits them).
The file is written once and reused by later runs with the same parameters
(``--keep`` leaves it in /tmp; by default it is deleted after the run).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time

import numpy as np


def write_snap_file(path: str, m: int, n: int, seed: int = 0, compress: bool = False) -> None:
    """A SNAP-style directed edge list of m random arcs over ids 0..n-1 (vectorised writer)."""
    rng = np.random.default_rng(seed)
    header = (f"# Directed graph (random, for benchmarks/io_read.py)\n# Nodes: {n} Edges: {m}\n"
              f"# FromNodeId\tToNodeId\n").encode()
    opener = gzip.open if compress else open
    with opener(path, "wb") as f:
        f.write(header)
        chunk = 1_000_000
        for start in range(0, m, chunk):
            k = min(chunk, m - start)
            e = rng.integers(0, n, size=(k, 2))
            lines = np.char.add(np.char.add(e[:, 0].astype("U"), "\t"), e[:, 1].astype("U"))
            f.write(("\n".join(lines.tolist()) + "\n").encode())


def write_labelled_file(path: str, m: int, n: int, kind: str, seed: int = 0) -> None:
    """A weighted edge list of m random arcs over n string labels, as ``--kind`` describes."""
    rng = np.random.default_rng(seed)
    if kind == "strings":
        names = np.char.add("user", np.char.zfill(np.arange(n).astype("U"), 6))
        sep, head = " ", "# string labels (benchmarks/io_read.py)\n"
    else:
        names = np.char.add(np.char.add('"City ', np.arange(n).astype("U")), '"')
        sep, head = ("," if kind == "quoted-csv" else " "), ""
        if kind == "quoted-csv":
            head = "source,target,weight\n"
    with open(path, "w") as f:
        f.write(head)
        chunk = 1_000_000
        for start in range(0, m, chunk):
            k = min(chunk, m - start)
            u, v = names[rng.integers(0, n, k)], names[rng.integers(0, n, k)]
            w = rng.random(k).round(4).astype("U")
            lines = np.char.add(np.char.add(np.char.add(np.char.add(u, sep), v), sep), w)
            f.write("\n".join(lines.tolist()) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--vertices", type=int, default=2_000_000)
    ap.add_argument("--gzip", action="store_true", help="gzip the file")
    ap.add_argument("--keep", action="store_true", help="keep the generated file in /tmp")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--kind", choices=("snap", "strings", "quoted-csv", "quoted-ws"), default="snap",
                    help="the file's shape (default: SNAP, integer ids)")
    args = ap.parse_args(argv)

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from spla.io import read_graph

    kind = "" if args.kind == "snap" else f"_{args.kind}"
    ext = ".csv" if args.kind == "quoted-csv" else ".txt"
    path = f"/tmp/spla_io_read_{args.edges}_{args.vertices}{kind}{ext}" + (".gz" if args.gzip else "")
    if not os.path.exists(path):
        t = time.perf_counter()
        if args.kind == "snap":
            write_snap_file(path, args.edges, args.vertices, compress=args.gzip)
        else:
            if args.gzip:
                ap.error("--gzip is for --kind snap only")
            write_labelled_file(path, args.edges, args.vertices, args.kind)
        print(f"wrote {path} ({os.path.getsize(path) / 2**20:.1f} MiB) in {time.perf_counter() - t:.1f} s")
    try:
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            g = read_graph(path)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"read_graph: {g.src.size:,} edges, {g.n:,} vertices in {wall:.2f} s wall, {cpu:.2f} s CPU "
                  f"({g.src.size / wall / 1e6:.2f} M edges/s)")
    finally:
        if not args.keep:
            os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
