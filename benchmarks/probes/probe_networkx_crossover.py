"""Where the networkx backend starts to pay: networkx itself against spla through the backend, the
first call (conversion included) and a repeat (the conversion cached in G.__networkx_cache__), for
betweenness, closeness and PageRank on random graphs of growing size (mean degree 8: G(n, m) and
Barabási–Albert).  The smallest edge count from which the first spla call beats networkx on every
function and graph family is the tunable ``networkx_min_edges`` (``should_run`` declines below it).
Best of ``--repeat`` wall times per cell; runs on the CPU backend unless ``--device`` says otherwise.

    PYTHONPATH=. python -m benchmarks.probes.probe_networkx_crossover [--sizes 16,32,...] [--device cpu]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

FUNCTIONS = ("betweenness_centrality", "closeness_centrality", "pagerank")
FAMILIES = ("gnm", "ba")


def make(family: str, n: int, seed: int = 1):
    import networkx as nx

    if family == "gnm":
        return nx.gnm_random_graph(n, 4 * n, seed=seed)
    return nx.barabasi_albert_graph(n, min(4, max(n - 1, 1)), seed=seed)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(name: str, G, repeat: int) -> dict:
    import networkx as nx

    f = getattr(nx, name)
    f(G, backend="spla")  # warm: imports, lazy caches

    def first():
        G.__networkx_cache__.clear()
        f(G, backend="spla")

    out = {"networkx_s": best(lambda: f(G, backend="networkx"), repeat), "spla_first_s": best(first, repeat)}
    f(G, backend="spla")
    out["spla_cached_s"] = best(lambda: f(G, backend="spla"), repeat)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,16,32,64,128,256,512,1024", help="vertex counts")
    ap.add_argument("--device", default="cpu", help="nx.config.backends.spla.device")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", help="JSON file for the measurements")
    args = ap.parse_args()

    import networkx as nx

    import spla

    nx.config.warnings_to_ignore.add("cache")
    warnings.simplefilter("ignore")
    nx.config.backends.spla.device = args.device
    rows = []
    with spla.tuning.override(networkx_min_edges=0):
        for family in FAMILIES:
            for n in (int(s) for s in args.sizes.split(",")):
                G = make(family, n)
                for name in FUNCTIONS:
                    r = {"family": family, "n": n, "edges": G.number_of_edges(), "function": name,
                         **measure(name, G, args.repeat)}
                    rows.append(r)
                    print(f"{family:4} n={n:6} m={r['edges']:7} {name:24} networkx {r['networkx_s'] * 1e3:9.2f} ms  "
                          f"spla first {r['spla_first_s'] * 1e3:9.2f} ms  cached {r['spla_cached_s'] * 1e3:9.2f} ms",
                          flush=True)
    # the crossover: the fewest edges from which every larger graph's first spla call is the faster one
    cross = 0
    for r in rows:
        if r["spla_first_s"] >= r["networkx_s"]:
            cross = max(cross, r["edges"] + 1)
    print(f"first spla call faster than networkx from {cross} edges on (every function and family measured)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": args.device, "rows": rows, "crossover_edges": cross}, f, indent=1)


if __name__ == "__main__":
    main()
