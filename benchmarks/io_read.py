"""How fast ``spla.io.read_graph`` reads a large SNAP-style edge list.

    python -m benchmarks.io_read [--edges 10000000] [--vertices 2000000] [--gzip] [--keep]

Writes a SNAP-style file (``#`` comment header, tab-separated ``src dst`` lines with
CRLF-free LF ends, random integer ids) to /tmp, reads it with ``read_graph`` and prints
the wall and CPU time.  The goal (issue 4): 10M edges in under 15 s on a 2-core machine.
With ``--gzip`` the file is gzip-compressed (decompression adds its own time).
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--vertices", type=int, default=2_000_000)
    ap.add_argument("--gzip", action="store_true", help="gzip the file")
    ap.add_argument("--keep", action="store_true", help="keep the generated file in /tmp")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from spla.io import read_graph

    path = f"/tmp/spla_io_read_{args.edges}_{args.vertices}.txt" + (".gz" if args.gzip else "")
    if not os.path.exists(path):
        t = time.perf_counter()
        write_snap_file(path, args.edges, args.vertices, compress=args.gzip)
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
