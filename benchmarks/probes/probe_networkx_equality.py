"""Does ``nx.betweenness_centrality(G, backend="spla")`` equal networkx's own result on every real graph?

Every unweighted graph of the shared collection (``graphs.tsv`` beside the graphs) is read with
``spla.io.read_graph`` as its format says (directed edge lists stay directed), turned into a networkx
Graph or DiGraph, and its betweenness computed twice: by networkx itself and through the spla backend.
Where networkx's exact betweenness costs at most ``--budget`` arc visits (n × arcs) both are exact;
otherwise both sample the same ``k`` sources (``k=``, ``seed=``: networkx draws them, the backend draws
the same ones), ``k`` chosen so networkx's share stays within the budget.  networkx runs in a pool of
processes (one graph each) while the backend runs in this process on ``--device``.  Prints one row per
graph: the largest relative difference over vertices whose value exceeds 1e-12, and the times.

    PYTHONPATH=. python -m benchmarks.probes.probe_networkx_equality [--graphs DIR] [--budget 4e8] [--out F]
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import time
from pathlib import Path

import numpy as np

SEED = 42


def _graphs_dir(arg):
    from benchmarks.graphs import graph_dirs

    for d in ([Path(arg)] if arg else graph_dirs()):
        if (d / "graphs.tsv").is_file():
            return d
    raise SystemExit("no graphs.tsv found: pass --graphs DIR")


def _load(path: Path):
    import networkx as nx
    from spla.io import read_graph

    g = read_graph(path)
    G = nx.DiGraph() if g.directed else nx.Graph()
    G.add_nodes_from(range(g.n))
    keep = g.src != g.dst  # self-loops change no shortest path; networkx and spla both ignore them
    G.add_edges_from(zip(g.src[keep].tolist(), g.dst[keep].tolist()))
    return G


def _plan(G, budget: float):
    arcs = G.number_of_edges() * (1 if G.is_directed() else 2)
    n = G.number_of_nodes()
    if n * max(arcs, 1) <= budget:
        return None
    return int(max(50, min(n, budget // max(arcs, 1))))


def _networkx_side(job):
    import networkx as nx

    path, budget = job
    G = _load(Path(path))
    k = _plan(G, budget)
    t0 = time.perf_counter()
    bc = nx.betweenness_centrality(G, k=k, seed=SEED if k else None)
    return path, k, time.perf_counter() - t0, np.array([bc[v] for v in G])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", help="folder holding graphs.tsv (default: the benchmarks' graph folders)")
    p.add_argument("--budget", type=float, default=4e8, help="largest n × arcs networkx runs exactly")
    p.add_argument("--device", default="auto", help="the backend's device (nx.config.backends.spla.device)")
    p.add_argument("--processes", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    p.add_argument("--out", help="write the rows as JSON here")
    args = p.parse_args(argv)

    import networkx as nx

    root = _graphs_dir(args.graphs)
    with open(root / "graphs.tsv", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t")
                if not r["path"].startswith("weighted/") and "weights" not in r["type"]]
    jobs = [(str(root / r["path"]), args.budget) for r in rows]
    nx.config.backends.spla.device = args.device
    results = []
    with mp.get_context("spawn").Pool(args.processes) as pool:
        for path, k, t_nx, want in pool.imap_unordered(_networkx_side, jobs):
            G = _load(Path(path))
            t0 = time.perf_counter()
            bc = nx.betweenness_centrality(G, k=k, seed=SEED if k else None, backend="spla")
            t_spla = time.perf_counter() - t0
            got = np.array([bc[v] for v in G])
            big = np.abs(want) > 1e-12
            rel = float(np.max(np.abs(got[big] - want[big]) / np.abs(want[big]))) if big.any() else 0.0
            small = float(np.max(np.abs(got[~big]))) if (~big).any() else 0.0
            row = dict(graph=Path(path).name, n=G.number_of_nodes(), edges=G.number_of_edges(),
                       directed=G.is_directed(), sources="all" if k is None else k, max_rel=rel,
                       max_abs_where_zero=small, networkx_s=round(t_nx, 3), spla_s=round(t_spla, 3),
                       ok=bool(rel <= 1e-9 and small <= 1e-12))
            results.append(row)
            print(json.dumps(row), flush=True)
    bad = [r["graph"] for r in results if not r["ok"]]
    print(f"{len(results)} graphs, {len(results) - len(bad)} equal to 1e-9 relative" + (f"; differ: {bad}" if bad else ""))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
