"""frontier="auto" against both paths of all-sources betweenness, on the real graphs (directed ones
included): the calibration of the tunables sparse_reach_ratio and reach_sample.

    PYTHONPATH=. python -m benchmarks.probes.probe_frontier_choice --graphs-dir DIR --out OUT.json [--files a,b]

Per file: all-sources betweenness with frontier="dense" and "sparse" (one warm-up call on 64 sources,
then two synchronised calls each: the second is the time, the first in parentheses), the two results
compared, the choice "auto" makes, and the BFS depth statistics a choice could use: the first
source's depth, the mean and the maximum over 64 random sources, and the sample BFS that "auto"
reads (n·D/R).
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np

from spla import algorithms
from spla.io import read_graph

FILES = ["snap/cit-HepTh.txt.gz", "snap/p2p-Gnutella31.txt.gz", "snap/p2p-Gnutella24.txt.gz", "snap/wiki-Vote.txt.gz",
         "snap/email-Eu-core.txt.gz", "suitesparse_dimacs10/EVA.mtx.gz", "other/soc-brightkite.txt.gz",
         "snap/deezer_europe_edges.csv.gz", "snap/ca-CondMat.txt.gz", "suitesparse_dimacs10/PGPgiantcompo.graph.gz",
         "suitesparse_dimacs10/wing.graph.gz", "suitesparse_dimacs10/4elt.graph.gz", "snap/as20000102.txt.gz",
         "snap/oregon1_010331.txt.gz", "suitesparse_dimacs10/power.graph.gz", "suitesparse_dimacs10/hep-th.graph.gz",
         "snap/musae_git_edges.csv.gz", "snap/Email-Enron.txt.gz", "other/soc-epinions.txt.gz"]


def timed(fn):
    import cupy as cp

    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    r = fn()
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs-dir", required=True)
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    from spla.algorithms import betweenness_sparse as betweenness  # private: sample_reach, use_sparse_frontier, locality_order

    out = []
    for f in a.files.split(","):
        path = Path(a.graphs_dir) / f
        if not path.is_file():
            print(f, "missing")
            continue
        kind = [row.split("\t")[6] for row in open(Path(a.graphs_dir) / "graphs.tsv") if row.startswith(f + "\t")]
        undirected_list = bool(kind) and kind[0].startswith("undirected") and not f.endswith((".mtx.gz", ".graph.gz"))
        g = read_graph(str(path), directed=False if undirected_list else None)
        A = g.to_matrix(device="gpu", drop_self_loops=True, weighted=False)
        P = A.pattern()
        n = A.shape[0]
        rng = np.random.default_rng(0)
        sample = rng.choice(n, size=min(64, n), replace=False)
        depths = np.array([betweenness.sample_reach(P, [int(s)])[0] for s in sample])
        first = betweenness.sample_reach(P, [0])[0]
        rule_depth, rule_reach, _ = betweenness.sample_reach(P, np.arange(n))
        auto = betweenness.use_sparse_frontier(P, np.arange(n))
        rec = {"file": f, "n": n, "arcs": A.nnz, "directed": A.directed, "depth_first": first,
               "depth_mean": float(depths.mean()), "depth_max": int(depths.max()),
               "rule_depth": rule_depth, "rule_reach": rule_reach,
               "rule_ratio": n * rule_depth / max(rule_reach, 1.0), "auto": "sparse" if auto else "dense"}
        res = {}
        for fr in ("dense", "sparse"):
            algorithms.betweenness_centrality(A, sources=range(min(64, n)), frontier=fr)
            t1, bc = timed(lambda: algorithms.betweenness_centrality(A, frontier=fr))
            t2, bc = timed(lambda: algorithms.betweenness_centrality(A, frontier=fr))
            rec[fr + "_first_s"], rec[fr + "_s"] = t1, t2
            res[fr] = bc
        rec["max_rel_diff"] = float(np.max(np.abs(res["dense"] - res["sparse"]) / np.maximum(np.abs(res["dense"]), 1e-300)))
        rec["best"] = "dense" if rec["dense_s"] <= rec["sparse_s"] else "sparse"
        out.append(rec)
        print(f"{Path(f).name:34s} n={n:7d} arcs={A.nnz:8d} {'dir' if A.directed else 'und'} depth first {first:4d} "
              f"mean {rec['depth_mean']:6.1f} max {rec['depth_max']:4d} (rule n*D/R {rec['rule_ratio']:6.1f}) "
              f"dense {rec['dense_s']:.3f} s ({rec['dense_first_s']:.3f}) sparse {rec['sparse_s']:.3f} s ({rec['sparse_first_s']:.3f}) -> best {rec['best']}, auto {rec['auto']}; "
              f"diff {rec['max_rel_diff']:.1e}", flush=True)
    Path(a.out).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
