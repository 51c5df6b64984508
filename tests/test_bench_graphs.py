"""CPU tests of the benchmark harness: graph generators, references, CLI, report, plots.

The GPU measurements themselves run on the device (``python -m benchmarks``);
here we check that the graphs are the ones the seeds used, that the references
the harness checks results against agree with networkx, and that a tiny run of
the harness works end to end on the CPU backend.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from benchmarks import graphs as G
from benchmarks import reference as R

REPO = Path(__file__).resolve().parent.parent


def _keys(src, dst, n):
    """Canonical undirected edge keys (min*n + max)."""
    return np.minimum(src, dst) * n + np.maximum(src, dst)


def _ndistinct(keys) -> int:
    """Number of distinct values (sort-based: np.unique is slow on large arrays in NumPy 2.x)."""
    k = np.sort(keys)
    return int(k.size and 1 + np.count_nonzero(k[1:] != k[:-1]))


def _spla_ready() -> bool:
    try:
        import spla  # noqa: F401

        return hasattr(spla, "Matrix") and hasattr(spla, "vxm")
    except Exception:  # noqa: BLE001
        return False


# --------------------------------------------------------------------------- Mycielski
def test_mycielski15_counts_match_turbobc():
    assert G.mycielski_counts(15) == (24_575, 5_555_555)
    assert G.mycielski_counts(17) == (98_303, 50_122_871)  # TurboBC: 100,245,742 stored
    src, dst, n, directed = G.mycielski(15)
    assert (n, directed) == (24_575, False)
    assert src.dtype == np.int64 and dst.dtype == np.int64
    assert src.size == 5_555_555
    assert not (src == dst).any()
    # each undirected edge once: symmetrised, 11,111,110 stored entries
    assert 2 * _ndistinct(_keys(src, dst, n)) == 11_111_110


@pytest.mark.skipif(not _spla_ready(), reason="spla engine not importable")
def test_mycielski15_stored_entries_in_spla():
    import spla

    src, dst, n, _ = G.mycielski(15)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=False, device="cpu")
    assert A.shape == (24_575, 24_575) and A.nnz == 11_111_110


@pytest.mark.parametrize("k", range(1, 9))
def test_mycielski_equals_networkx(k):
    src, dst, n, _ = G.mycielski(k)
    ref = nx.mycielski_graph(k)
    assert n == ref.number_of_nodes() == G.mycielski_counts(k)[0]
    assert src.size == ref.number_of_edges() == G.mycielski_counts(k)[1]
    ours = {frozenset(e) for e in zip(src.tolist(), dst.tolist())}
    assert ours == {frozenset(e) for e in ref.edges()}


# --------------------------------------------------------------------------- Kronecker
def test_kronecker_sizes_and_determinism():
    src, dst, n, directed = G.kronecker(10, edge_factor=16, seed=3)
    assert (n, directed, src.size, dst.size) == (1024, False, 16 * 1024, 16 * 1024)
    assert src.min() >= 0 and max(src.max(), dst.max()) < n
    # same edges whatever the thread count (chunks have their own seeds)
    s1, d1, _, _ = G.kronecker(10, seed=3, chunk=4096, threads=1)
    s4, d4, _, _ = G.kronecker(10, seed=3, chunk=4096, threads=4)
    assert np.array_equal(s1, s4) and np.array_equal(d1, d4)
    # skewed degrees: R-MAT with a=0.57 concentrates edges on few vertices
    deg = np.bincount(np.concatenate([src, dst]), minlength=n)
    assert deg.max() > 20 * deg.mean()


def test_kronecker_quadrant_probabilities():
    # one bit: P(row bit = 1) = c + d = 0.24, P(col bit = 1) = b + d = 0.24
    src, dst, _, _ = G.kronecker(1, edge_factor=200_000, seed=0)
    assert abs(src.mean() - 0.24) < 0.01 and abs(dst.mean() - 0.24) < 0.01
    both = np.mean((src == 0) & (dst == 0))
    assert abs(both - 0.57) < 0.01


# ---------------------------------------------------------------- WS, BA and the grid
def test_grid_matches_networkx():
    src, dst, n, _ = G.grid_2d(7, 5)
    ref = nx.grid_2d_graph(7, 5)
    idx = {v: i for i, v in enumerate(ref)}
    assert n == 35 and src.size == 7 * 4 + 6 * 5
    assert {frozenset(e) for e in zip(src.tolist(), dst.tolist())} == \
        {frozenset((idx[a], idx[b])) for a, b in ref.edges()}


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 1.0])
def test_watts_strogatz_degree_sum(p):
    n, k = 2000, 10
    src, dst, nn, _ = G.watts_strogatz(n, k, p, seed=4)
    assert nn == n and src.size == n * k // 2
    assert not (src == dst).any()
    assert _ndistinct(_keys(src, dst, n)) == n * k // 2  # no multi-edges
    assert np.bincount(np.concatenate([src, dst]), minlength=n).sum() == n * k
    lattice = G.watts_strogatz(n, k, 0.0)
    moved = np.mean(dst != lattice[1])
    assert abs(moved - p) < 0.05


@pytest.mark.parametrize("n,m", [(50, 1), (2000, 3), (5000, 4)])
def test_barabasi_albert_degree_sum(n, m):
    src, dst, nn, _ = G.barabasi_albert(n, m, seed=2)
    assert nn == n and src.size == m * (n - m)
    assert not (src == dst).any()
    assert _ndistinct(_keys(src, dst, n)) == m * (n - m)  # m distinct targets each
    deg = np.bincount(np.concatenate([src, dst]), minlength=n)
    assert deg.sum() == 2 * m * (n - m) and deg.min() >= m
    # every new vertex t attaches to earlier vertices
    new = src >= m + 1
    assert (dst[new] < src[new]).all()
    if m == 1:
        g = nx.Graph(list(zip(src.tolist(), dst.tolist())))
        assert nx.is_tree(g)


def test_barabasi_albert_is_preferential():
    # the heaviest vertex of BA(n=20000, m=4) has degree ~ m * sqrt(n) (networkx: ~400)
    src, dst, n, _ = G.barabasi_albert(20_000, 4, seed=0)
    deg = np.bincount(np.concatenate([src, dst]), minlength=n)
    ref = nx.barabasi_albert_graph(20_000, 4, seed=0)
    ref_max = max(d for _, d in ref.degree())
    assert ref_max / 3 < deg.max() < ref_max * 3


def test_registry_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPLA_BENCH_CACHE", str(tmp_path))
    for name in ("myc15", "kron18", "ws100k", "ba1M_m4", "grid400", "musae-facebook"):
        assert name in G.GRAPHS
    (s1, d1, n1, _), info1 = G.load_edges("kron10")
    (s2, d2, n2, _), info2 = G.load_edges("kron10")
    assert not info1["cached"] and info2["cached"]
    assert n1 == n2 and np.array_equal(s1, s2) and s2.dtype == np.int64
    assert not (s1 == d1).any()  # self-loops dropped for generated graphs


def test_real_graph_loads():
    try:
        G.real_path("jazz")
    except FileNotFoundError:
        pytest.skip("shared graphs not present")
    src, dst, n, directed = G.real("jazz")
    assert n == 198 and not directed
    assert _ndistinct(_keys(src, dst, n)) == 2742


# --------------------------------------------------------------------------- references
@pytest.mark.parametrize("directed", [False, True])
def test_references_match_networkx(directed):
    g = nx.gnp_random_graph(80, 0.05, seed=7, directed=directed)
    g.add_edge(3, 3)  # a self-loop
    n = g.number_of_nodes()
    e = np.array(list(g.edges()))
    A = R.adjacency(e[:, 0], e[:, 1], n, directed)
    S = [0, 5, 11]
    want = nx.betweenness_centrality_subset(g, S, list(g), normalized=False)
    assert R.allclose_report(R.betweenness_subset(A, S, directed), [want[v] for v in range(n)])[0]
    A_in = A.T.tocsr() if directed else A
    cc = nx.closeness_centrality(g)
    assert R.allclose_report(R.closeness_of(A_in, range(n)), [cc[v] for v in range(n)])[0]
    sod = [sum(nx.single_source_shortest_path_length(g, v).values()) for v in range(n)]
    assert R.allclose_report(R.sum_of_distances_of(A, range(n)), sod)[0]
    deg = dict(g.out_degree() if directed else g.degree())
    # networkx counts a self-loop twice in an undirected degree; the reference counts stored arcs
    deg = {v: d - (1 if (not directed and g.has_edge(v, v)) else 0) for v, d in deg.items()}
    vol2 = [sum(deg[u] for u in nx.single_source_shortest_path_length(g, v, cutoff=2)) for v in range(n)]
    assert R.allclose_report(R.daccer_volume_of(A, range(n), 2), vol2)[0]
    pr = nx.pagerank(g, tol=1e-12, max_iter=1000)
    x, _ = R.pagerank(A, tol=1e-12)
    assert R.allclose_report(x, [pr[v] for v in range(n)], rtol=1e-8)[0]


def test_reference_sigma_on_grid():
    # 400x400 grid: shortest-path counts reach C(798, 399) ~ 1e239, finite in float64
    src, dst, n, _ = G.grid_2d(60, 60)
    A = R.adjacency(src, dst, n, False)
    bc = R.betweenness_subset(A, [0], False)
    g = nx.grid_2d_graph(60, 60)
    want = nx.betweenness_centrality_subset(g, [(0, 0)], list(g), normalized=False)
    assert R.allclose_report(bc, [want[v] for v in g], rtol=1e-9)[0]


# --------------------------------------------------------------------------- harness
def _env(tmp_path):
    env = dict(os.environ)
    env["SPLA_BENCH_CACHE"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_cli_help(tmp_path):
    r = subprocess.run([sys.executable, "-m", "benchmarks", "--help"], cwd=REPO, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--quick" in r.stdout and "--only" in r.stdout


@pytest.mark.skipif(not _spla_ready(), reason="spla engine not importable")
def test_tiny_run_on_cpu(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "benchmarks", "--tiny", "--device", "cpu",
                        "--only", "spmv,bc_single,pagerank", "--out", str(out), "--budget-s", "60"],
                       cwd=REPO, env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    files = list(out.glob("*/*.json"))
    assert len(files) == 1 and files[0].with_suffix(".md").is_file()
    data = json.loads(files[0].read_text())
    assert data["device"]["kind"] == "cpu"
    assert {s: v["status"] for s, v in data["sections"].items()} == \
        {"spmv": "ok", "bc_single": "ok", "pagerank": "ok"}
    ours = [x for x in data["records"] if x.get("system") == "spla" and x.get("median_ms") is not None]
    assert ours, "no spla measurement recorded"
    assert all(x["status"] == "ok" for x in ours)
    bad = [x for x in data["records"] if x.get("checked") is False]
    assert not bad, bad[:3]
    unchecked = [x for x in data["records"] if x.get("status") == "ok" and x.get("median_ms") is not None
                 and x.get("checked") is None and not x.get("anchor")]
    assert not unchecked, unchecked[:3]
    assert any(x.get("measure") == "vxm" and x.get("kernel") == "scCOOC" for x in ours)


def _fake_results() -> dict:
    """A results dict shaped like a GPU run's (for the report and the plots)."""
    recs = []
    for g, n, arcs, metric in (("kron20", 2**20, 31_000_000, 900.0), ("grid2000", 4_000_000, 16_000_000, 16.0)):
        for k, t in (("scCSC", 0.4), ("veCSC", 0.3), ("scCOOC", 0.5), ("auto", 0.3)):
            recs.append({"section": "spmv", "graph": g, "n": n, "arcs": arcs, "big": True, "measure": "vxm",
                         "system": "spla", "kernel": k, "median_ms": t, "status": "ok", "checked": True,
                         "device": "gpu", "mem_peak_bytes": 8 * (n + arcs), "frac_copy_bw": 0.7})
            recs.append({"section": "spmv", "graph": g, "n": n, "arcs": arcs, "big": True,
                         "measure": "vxm_masked90", "system": "spla", "kernel": k, "median_ms": t / 5,
                         "status": "ok", "checked": True, "device": "gpu"})
            recs.append({"section": "spmv", "graph": g, "n": n, "arcs": arcs, "big": True,
                         "measure": "vxm_block32", "system": "spla", "kernel": k, "median_ms": t * 3,
                         "status": "ok", "checked": True, "device": "gpu"})
        recs.append({"section": "spmv", "graph": g, "n": n, "arcs": arcs, "big": True, "measure": "vxm",
                     "system": "cusparse", "kernel": "csr", "median_ms": 0.33, "status": "ok", "checked": True,
                     "device": "gpu"})
        for k, t in (("auto", 3.0), ("scCSC", 3.5), ("veCSC", 3.0), ("scCOOC", 4.0)):
            recs.append({"section": "bc_single", "graph": g, "n": n, "arcs": arcs, "measure": "bc_single",
                         "system": "spla", "kernel": k, "median_ms": t, "status": "ok", "checked": True,
                         "mem_peak_bytes": 12 * (n + arcs), "device": "gpu"})
        recs.append({"section": "bc_single", "graph": g, "n": n, "arcs": arcs, "measure": "bc_single",
                     "system": "turbobc", "median_ms": 4.17, "status": "ok", "anchor": True})
    recs.append({"section": "bc_all", "graph": "musae-facebook", "n": 22470, "arcs": 342_000,
                 "measure": "bc_all", "system": "spla", "median_ms": 400.0, "status": "ok", "checked": True,
                 "mem_peak_bytes": 10**8, "device": "gpu"})
    recs.append({"section": "bc_all", "graph": "musae-facebook", "n": 22470, "arcs": 342_000,
                 "measure": "bc_all", "system": "networkit-16t", "median_ms": 19400.0, "status": "ok"})
    recs.append({"section": "daccer", "graph": "ba1M_m4", "n": 10**6, "arcs": 8 * 10**6, "measure": "daccer",
                 "system": "spla", "radius": 1, "median_ms": 3.0, "status": "ok", "checked": True})
    recs.append({"section": "pagerank", "graph": "kron20", "measure": "spmv_f64", "system": "cusparse",
                 "median_ms": 0.4, "status": "ok"})
    recs.append({"section": "pagerank", "graph": "kron20", "measure": "pagerank_per_iteration",
                 "system": "spla", "median_ms": 0.5, "status": "ok"})
    recs.append({"section": "closeness", "graph": "jazz", "measure": "closeness", "system": "spla",
                 "status": "error", "error": "boom"})
    return {"schema": 1, "date": "2026-01-01", "runs": [{"mode": "quick"}],
            "device": {"name": "NVIDIA Test GPU", "slug": "nvidia-test-gpu", "copy_bandwidth": {"GBps": 3000.0}},
            "graphs": {"kron20": {"n": 2**20, "arcs": 31_000_000, "scale_free_metric": 900.0,
                                  "choose_kernel": ["veCSC", "x"]},
                       "grid2000": {"n": 4_000_000, "arcs": 16_000_000, "scale_free_metric": 16.0}},
            "sections": {"closeness": {"status": "error", "error": "boom"}}, "records": recs}


def test_report_headlines():
    from benchmarks.report import headlines, markdown_report
    from benchmarks.sections import SECTIONS

    data = _fake_results()
    md = markdown_report(data, SECTIONS)
    assert "NVIDIA Test GPU" in md and "kron20" in md and "boom" in md
    hl = {h["what"]: h for h in headlines(data, SECTIONS)}
    sp = next(h for w, h in hl.items() if w.startswith("best spla kernel"))
    assert sp["ok"]  # 0.33 / 0.3 = 1.1 >= 0.8
    mask = next(h for w, h in hl.items() if w.startswith("90%"))
    assert mask["ok"]  # 5x
    block = next(h for w, h in hl.items() if w.startswith("k=32"))
    assert block["ok"]  # 32 * 0.3 / 0.9 = 10.7
    nk = next(h for w, h in hl.items() if "NetworKit" in w)
    assert nk["ok"]  # 19.4 s / 0.4 s = 48.5x


def test_plot_draws_each_devices_plots(tmp_path):
    pytest.importorskip("matplotlib")
    from benchmarks import plot

    res = tmp_path / "r.json"
    res.write_text(json.dumps(_fake_results()))
    docs = tmp_path / "docs"
    assert plot.main([str(res), "--docs", str(docs)]) == 0
    for kind in ("times", "kernels", "memory"):
        assert (docs / "img" / f"bench-{kind}-nvidia-test-gpu.png").stat().st_size > 1000


def test_docs_page_lists_misses_beside_their_floors(tmp_path):
    """The generated page: the method, then per device its tables, the missed targets with the floors
    that bound them, and the plots that exist."""
    from benchmarks import docs, rooflines

    data = _fake_results()
    for r in data["records"]:  # every masked product as slow as the unmasked one: the mask target is missed
        if r.get("measure") == "vxm_masked90":
            r["measure"], r["median_ms"] = "vxm_masked90_dev", 0.3
        elif r.get("measure") == "vxm" and r.get("system") == "spla":
            data["records"].append({**r, "measure": "vxm_dev"})
    dev = tmp_path / "results" / "nvidia-test-gpu"
    dev.mkdir(parents=True)
    (dev / "2026-01-01.json").write_text(json.dumps(data))
    img = tmp_path / "docs" / "img"
    img.mkdir(parents=True)
    (img / "bench-times-nvidia-test-gpu.png").write_bytes(b"png")
    method = tmp_path / "method.md"
    method.write_text("How we time.\n")
    floors = {"kron20": dict(masked_copy_us=60.0, masked_model_us=100.0, block_ideal_ms=0.1,
                             block_no_reuse_ms=1.0, block_no_reuse_in="DRAM")}
    old_floors, old_rates = dict(rooflines.FLOORS), dict(rooflines.RATES)
    rooflines.FLOORS["nvidia-test-gpu"], rooflines.RATES["nvidia-test-gpu"] = floors, "test rates"
    try:
        text = docs.render(tmp_path / "results", method, img)
    finally:
        rooflines.FLOORS.clear(), rooflines.FLOORS.update(old_floors)
        rooflines.RATES.clear(), rooflines.RATES.update(old_rates)
    assert text.startswith("# Benchmarks\n\n<!-- Generated by `python -m benchmarks.docs`") and "How we time." in text
    assert "## NVIDIA Test GPU\n" in text and "`spmv`" in text and "2026-01-01.json" in text
    misses = text[text.index("### Misses and their rooflines"):]
    assert "90%-masked vxm speed-up over unmasked, device time (replayed CUDA graphs): 1.00× min" in misses
    assert "| `kron20` | 300.0 µs | 1.00× | 60.0 µs | 5.00× | 100.0 µs | 3.00× |" in misses
    assert "![time per graph per system](img/bench-times-nvidia-test-gpu.png)" in text
    assert "bench-memory" not in text


def test_docs_page_is_the_generated_one():
    """docs/benchmarks.md is what ``python -m benchmarks.docs`` writes from the committed method and
    results: edit those and regenerate, never the page."""
    from benchmarks import docs

    assert docs.PAGE.read_text() == docs.render(), "docs/benchmarks.md is stale: run python -m benchmarks.docs"


@pytest.mark.skipif(not _spla_ready(), reason="spla engine not importable")
def test_selection_recorded_once_per_run(tmp_path):
    """A graph's kernel choice is recomputed by each run, not kept from an earlier run of the same day's
    results file (the rule may have changed between the two), and computed once within a run."""
    import networkx as nx

    import spla
    from benchmarks.core import Bench, Options

    b = Bench(Options(mode="tiny", device="cpu", out=tmp_path, sections=["spmv"]))
    b.data["graphs"]["g"] = {"n": 40, "scale_free_metric": -1.0, "choose_kernel": ["stale", "an earlier rule"]}
    A = spla.Matrix.from_networkx(nx.complete_graph(40), device="cpu")
    gi = b.selection("g", A)
    assert gi["choose_kernel"] == list(spla.choose_kernel(A)) and gi["scale_free_metric"] == 39.0 ** 2
    assert gi["choose_kernel_k32"] == list(spla.choose_kernel(A, k=32)) and gi["n"] == 40
    gi["choose_kernel"] = ["kept", "within the run"]
    assert b.selection("g", A)["choose_kernel"] == ["kept", "within the run"]


def test_cli_job_runs_the_command_per_file(tmp_path):
    """benchmarks.cli_job: one process per file and run, the report's sizes and per-measure times parsed."""
    from benchmarks import cli_job

    d = tmp_path / "graphs" / "other"
    d.mkdir(parents=True)
    (d / "g.txt").write_text("0 1\n1 2\n2 0\n3 3\n")
    out = tmp_path / "cli.json"
    rc = cli_job.main(["--graphs-dir", str(tmp_path / "graphs"), "--files", "other/g.txt,other/missing.txt",
                       "--undirected", "--device", "cpu", "--runs", "1", "--out", str(out)])
    assert rc == 0
    (rec,) = json.loads(out.read_text())
    assert rec["file"] == "other/g.txt" and rec["rc"] == 0 and rec["rows_ok"]
    assert (rec["n"], rec["arcs"], rec["device"]) == (4, 6, "cpu")  # --undirected: 3 edges, the self-loop dropped
    assert set(rec["measures_s"]) == {"bc", "closeness", "harmonic", "distance-sum", "pagerank", "daccer", "degree"}


def test_measure_checks_the_timed_calls_too(tmp_path):
    """A function whose later calls (the timed path: a learnt plan, a replayed graph) return a wrong result
    fails its check even though its first call was right; a right one records both checks."""
    from benchmarks.core import Bench, Options

    b = Bench(Options(mode="tiny", device="cpu", out=tmp_path, sections=["spmv"]))
    calls = []

    def first_right_then_wrong():
        calls.append(1)
        return np.array([1.0, 2.0]) if len(calls) == 1 else np.array([1.0, 0.0])

    def check(got):
        return R.allclose_report(got, [1.0, 2.0])

    rec = b.measure("spmv", {"graph": "g", "measure": "m", "system": "s"}, first_right_then_wrong, check=check,
                    on="cpu")
    assert rec["status"] == "ok" and rec["checked"] is False and rec["checked_after_timing"] is False
    assert rec["check"].startswith("after the timed calls: ")
    rec = b.measure("spmv", {"graph": "g", "measure": "m2", "system": "s"}, lambda: np.array([1.0, 2.0]),
                    check=check, on="cpu")
    assert rec["checked"] is True and rec["checked_after_timing"] is True
    rec = b.measure("spmv", {"graph": "g", "measure": "m3", "system": "s"}, lambda: np.array([1.0, 2.0]), on="cpu")
    assert rec["checked"] is None and "checked_after_timing" not in rec
    from benchmarks.report import _problems

    table = _problems(b.data["records"])
    assert "check failed" in table and "unchecked" in table and "| m2 s |" not in table


@pytest.mark.parametrize("peer", ["networkit", "igraph"])
@pytest.mark.parametrize("directed", [False, True])
def test_peers_compute_networkx_quantities(peer, directed):
    """NetworKit's and igraph's BC and closeness, as benchmarks/peers.py calls them, equal
    networkx's unnormalised BC and wf_improved closeness (incoming distances when directed) on a
    graph with two components, isolated vertices, a self-loop and both arcs of each edge listed."""
    pytest.importorskip(peer)
    from benchmarks import peers

    n = 30
    Gx = nx.gnp_random_graph(18, 0.2, seed=3, directed=directed)
    Gx.add_nodes_from(range(n))
    Gx.add_edges_from((u + 20, v + 20) for u, v in nx.gnp_random_graph(8, 0.5, seed=4, directed=directed).edges())
    Gx.add_edge(2, 2)
    src = np.array([u for u, _ in Gx.edges()])
    dst = np.array([v for _, v in Gx.edges()])
    if not directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    make = peers.networkit_graph if peer == "networkit" else peers.igraph_graph
    bc = peers.networkit_bc if peer == "networkit" else peers.igraph_bc
    cl = peers.networkit_closeness if peer == "networkit" else peers.igraph_closeness
    g = make(src, dst, n, directed)
    want_bc = nx.betweenness_centrality(Gx, normalized=False)
    want_cl = nx.closeness_centrality(Gx)
    np.testing.assert_allclose(np.asarray(bc(g), float), [want_bc[v] for v in range(n)], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.nan_to_num(np.asarray(cl(g), float)), [want_cl[v] for v in range(n)],
                               rtol=1e-9, atol=1e-12)


def test_cpu_comparison_section_in_process(tmp_path, monkeypatch):
    """bc_cpu on karate: spla (the path named), igraph and NetworKit where installed (each checked against
    spla's result, or recorded as skipped with the fix), the first-call and CLI records left to the slow
    test; its table and headlines render from the records."""
    from benchmarks import bc_cpu
    from benchmarks.core import Bench, Options
    from benchmarks.report import markdown_report
    from benchmarks.sections import SECTIONS

    monkeypatch.setitem(bc_cpu.GRAPHS, "tiny", ["karate"])
    monkeypatch.setattr(bc_cpu, "_first_call", lambda b, spla: None)
    monkeypatch.setattr(bc_cpu, "_cli", lambda b, repeats: None)
    b = Bench(Options(mode="tiny", device="cpu", out=tmp_path, sections=["bc_cpu"]))
    bc_cpu.run(b)
    recs = [r for r in b.data["records"] if r["section"] == "bc_cpu"]
    spla_rec = next(r for r in recs if r["system"] == "spla" and r["measure"] == "bc_all")
    assert spla_rec["checked"] is True and spla_rec["path"] in ("queue", "dense", "sparse")
    for peer in ("igraph", "networkit"):
        rec = next(r for r in recs if r["system"] == peer)
        assert (rec["status"], rec.get("checked")) == ("ok", True) or \
            (rec["status"] == "skipped" and f"pip install {peer}" in rec["reason"])
    text = markdown_report(b.data, SECTIONS)
    assert "Exact betweenness on the CPU vs igraph and NetworKit" in text and "| `karate` | 34 | 156 | no |" in text



def test_weighted_claims_hold_the_named_measures_only():
    """The issue's 20x goal names weighted bc and closeness; edge betweenness is timed beside them
    in the table but is not part of the claim."""
    from benchmarks import weighted

    def rec(graph, measure, system, ms):
        return {"section": "weighted", "status": "ok", "graph": graph, "measure": measure, "system": system,
                "median_ms": ms, "checked": True, "n": 10, "k": 10}

    recs = []
    for measure, ours in (("bc", 1.0), ("closeness", 1.0), ("ebc", 10.0)):
        recs += [rec("rome99", measure, "spla", ours), rec("rome99", measure, "networkit", 30.0)]
    (named,) = weighted.headlines(recs)
    assert named["ok"] and named["value"].startswith("30.00")
    assert "| ebc |" in weighted.markdown(recs)
    # SSSP on NY: its share of the bytes floor, of the access floor, and the bound the two floors set
    recs.append({**rec("USA-road-d.NY", "sssp", "spla", 30.0), "floor_ms": 3.0, "access_floor_ms": 9.0})
    sssp = weighted.headlines(recs)[-1]
    assert not sssp["ok"]
    assert sssp["value"].startswith("10.0 % (of the access floor: 30.0 %;") and "reach 33.3 %" in sssp["value"]
    # a CPU run: the table, not the device's goals
    assert len(weighted.headlines([{**r, "device": "cpu" if r["system"] == "networkit" else "gpu"} for r in recs])) == 2
    assert weighted.headlines([{**r, "device": "cpu"} for r in recs]) == []
