"""All-sources measures over a Dask cluster (``client=``, spla.algorithms.cluster).

CPU clusters (``distributed.LocalCluster``) run in CI; the GPU variants (``gpu``) on a device:
``dask_cuda.LocalCUDACluster`` with two GPUs or more, else two worker processes sharing the one GPU.
Every test here skips cleanly when ``distributed`` is not installed (``pip install "spla[dask]"``), but
the first, which checks that nothing of Dask is imported unless a cluster is used.
"""

from __future__ import annotations

import ast
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.algorithms import (betweenness_centrality, closeness_centrality, edge_betweenness_centrality,
                             harmonic_centrality, sum_of_distances)
from spla.algorithms import cluster

try:
    import distributed
except ImportError:  # pragma: no cover - the extra is not installed
    distributed = None

REPO = Path(__file__).resolve().parents[1]
DASK = ("dask", "distributed", "dask_cuda")
needs_dask = pytest.mark.skipif(distributed is None, reason="dask.distributed is not installed (pip install "
                                                            "\"spla[dask]\")")
log = logging.getLogger("spla.tests.dask")


def test_nothing_of_dask_is_imported_without_a_cluster():
    """spla, its algorithms and its command import nothing of Dask (a fresh interpreter), nor does a
    measure computed without ``client``; and no module of the engine or the algorithms imports it."""
    code = ("import sys, numpy, spla, spla.algorithms, spla.cli; "
            "spla.algorithms.betweenness_centrality(numpy.ones((4, 4)), device='cpu'); "
            f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {DASK!r}); print(bad); "
            "sys.exit(1 if bad else 0)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    bad = []
    for path in [*(REPO / "spla").rglob("*.py"), *(REPO / "algorithms").rglob("*.py")]:
        if "cli" in path.relative_to(REPO).parts:
            continue  # the command imports Dask inside --gpus / --scheduler only (tests/test_cli_dask.py)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [f"{path.relative_to(REPO)}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in DASK]
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------- clusters
def _gpu_cluster():
    """Two GPU workers: one per GPU through dask_cuda where there are two, else two processes on the one."""
    count = spla.device.cupy_module().cuda.runtime.getDeviceCount()
    if count >= 2:
        with contextlib.suppress(ImportError):
            from dask_cuda import LocalCUDACluster
            return LocalCUDACluster(n_workers=2, threads_per_worker=1, dashboard_address=":0")
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")


@pytest.fixture(scope="module", params=[
    pytest.param("cpu", id="cpu"),
    pytest.param("gpu", id="gpu", marks=pytest.mark.gpu),
])
def cluster2(request):
    """(client, cluster, device): two worker processes of one thread; "cpu" workers see no GPU."""
    if distributed is None:
        pytest.skip("dask.distributed is not installed (pip install \"spla[dask]\")")
    if request.param == "cpu":
        lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                      env={"CUDA_VISIBLE_DEVICES": ""})
        device = "cpu"
    else:
        lc = _gpu_cluster()
        device = "gpu:0"
    client = distributed.Client(lc)
    try:
        assert set(client.run(cluster.worker_device).values()) == {device.split(":")[0] + (":0" if device != "cpu"
                                                                                            else "")}
        yield client, lc, device
    finally:
        client.close()
        lc.close()


# --------------------------------------------------------------------------- graphs and measures
def _graphs():
    """A directed graph of several components, a self-loop and isolated vertices; an undirected one."""
    D = nx.gnm_random_graph(300, 1200, seed=7, directed=True)
    D.add_edges_from([(300, 301), (301, 302), (302, 300), (5, 5)])
    D.add_nodes_from([303, 304])
    U = nx.gnm_random_graph(250, 600, seed=3)
    U.add_nodes_from([250, 251])
    return {"directed": D, "undirected": U}


GRAPHS = _graphs()

MEASURES = {
    "bc": (betweenness_centrality, {}),
    "bc-unnormalized-endpoints": (betweenness_centrality, dict(normalized=False, endpoints=True)),
    "bc-k-seed": (betweenness_centrality, dict(k=97, seed=11)),
    "bc-subset": (betweenness_centrality, dict(sources=list(range(0, 250, 3)), targets=list(range(0, 250, 2)))),
    "edge-bc": (edge_betweenness_centrality, {}),
    "edge-bc-k-seed": (edge_betweenness_centrality, dict(k=80, seed=5)),
    "closeness": (closeness_centrality, {}),
    "harmonic": (harmonic_centrality, {}),
    "harmonic-sources": (harmonic_centrality, dict(sources=list(range(1, 250, 2)))),
    "sum-of-distances": (sum_of_distances, dict(return_reach=True)),
}


def _same(got, want):
    """Equal to the single-device answer within 1e-12 relative (the order of the additions differs)."""
    if sp.issparse(want):
        assert (got != want).nnz == 0 or np.array_equal(got.indices, want.indices)
        got, want = got.toarray(), want.toarray()
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)  # integer sums: exact
        return
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(want).max(initial=0))))


@needs_dask
@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("measure", MEASURES)
def test_equals_the_single_device_call(cluster2, measure, graph):
    client, _, device = cluster2
    fn, kw = MEASURES[measure]
    G = GRAPHS[graph]
    want = fn(G, device=device, **kw)
    seen = []
    with spla.tuning.override(cluster_min_chunk=64):  # several chunks per worker; the workers get it too
        got = fn(G, client=client, progress=lambda done, total: seen.append((done, total)), **kw)
    _same(got, want)
    assert seen and seen[-1][0] == seen[-1][1] and len(seen) >= 2, seen
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


@needs_dask
@pytest.mark.parametrize("measure", ["bc", "edge-bc", "closeness", "harmonic-sources", "sum-of-distances"])
def test_the_block_paths_equal_the_single_device_call(cluster2, measure):
    """Without the CPU's compiled searches (the caller's tunables travel to the workers): the NumPy
    block paths and the bit-parallel BFS, whose direction "out" counts the targets of each chunk."""
    client, _, device = cluster2
    fn, kw = MEASURES[measure]
    G = GRAPHS["directed"]
    with spla.tuning.override(paths_for_betweenness=False, paths_for_distances=False, cluster_min_chunk=64):
        _same(fn(G, client=client, **kw), fn(G, device=device, **kw))


def _weighted_graph():
    G = nx.gnm_random_graph(200, 900, seed=5, directed=True)
    rng = np.random.default_rng(5)
    for u, v in G.edges:
        G.edges[u, v]["weight"] = float(rng.integers(1, 6))
    return G


@needs_dask
@pytest.mark.parametrize("fn, kw", [
    (betweenness_centrality, dict(weight=True)),
    (betweenness_centrality, dict(weight=True, k=50, seed=2)),
    (edge_betweenness_centrality, dict(weight=True)),
    (harmonic_centrality, dict(distance=True)),
    (sum_of_distances, dict(weight=True, return_reach=True)),
    (closeness_centrality, dict(distance=True)),  # runs in the caller
], ids=["bc", "bc-k", "edge-bc", "harmonic", "sum-of-distances", "closeness"])
def test_weighted_measures_ship_the_arc_lengths(cluster2, fn, kw):
    client, _, device = cluster2
    G = _weighted_graph()
    with spla.tuning.override(cluster_min_chunk=64):
        got = fn(G, client=client, **kw)
    want = fn(G, device=device, **kw)
    if isinstance(want, tuple):  # weighted sums are float: the order of the additions shows
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12)
    else:
        _same(got, want)


@needs_dask
def test_a_graph_on_another_device_and_spla_matrix_input(cluster2):
    """A spla.Matrix input keeps its device for the rescaling; the workers compute on their own."""
    client, _, device = cluster2
    A = spla.Matrix.from_networkx(GRAPHS["directed"], device=device)
    _same(betweenness_centrality(A, client=client), betweenness_centrality(A))
    _same(closeness_centrality(A, client=client), closeness_centrality(A))


@needs_dask
def test_the_graph_is_sent_once_per_matrix_and_client(cluster2, monkeypatch):
    """A second call on the same Matrix and client finds the graph on the workers; dropping the cache
    (or a new Matrix) sends it again; arc lengths travel as a second copy."""
    client, _, device = cluster2
    A = spla.Matrix.from_networkx(GRAPHS["undirected"], device=device)
    sent = []
    real = client.scatter
    monkeypatch.setattr(client, "scatter", lambda *a, **k: sent.append(a[0].is_pattern) or real(*a, **k))
    _same(closeness_centrality(A, client=client), closeness_centrality(A, device=device))
    _same(harmonic_centrality(A, client=client), harmonic_centrality(A, device=device))
    _same(betweenness_centrality(A, client=client), betweenness_centrality(A, device=device))
    assert sent == [True]
    A.drop_cached("cluster_scatter")
    _same(closeness_centrality(A, client=client), closeness_centrality(A, device=device))
    assert sent == [True, True]
    P = nx.path_graph(30)
    nx.set_edge_attributes(P, {e: 1 + e[0] % 3 for e in P.edges}, "weight")
    W = spla.Matrix.from_networkx(P, weight="weight", device=device)
    _same(betweenness_centrality(W, client=client, weight=True), betweenness_centrality(W, device=device, weight=True))
    _same(betweenness_centrality(W, client=client, weight=True), betweenness_centrality(W, device=device, weight=True))
    assert sent == [True, True, False]


@needs_dask
def test_one_worker_cluster_equals_the_single_device_call():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as lc, \
            distributed.Client(lc) as client:
        G = GRAPHS["directed"]
        for fn, kw in (MEASURES["bc"], MEASURES["closeness"], MEASURES["sum-of-distances"]):
            _same(fn(G, client=client, **kw), fn(G, device="cpu", **kw))


@needs_dask
def test_a_cluster_without_workers_is_refused_naming_the_fix():
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as lc, \
            distributed.Client(lc) as client:
        with pytest.raises(spla.ClusterError, match="no workers.*dask worker ADDRESS.*dask cuda worker"):
            betweenness_centrality(GRAPHS["directed"], client=client)


class _WorkersWithoutSpla:
    """A client whose workers answer that spla is not importable there."""

    def run(self, fn, *args):
        assert fn(*args) is True  # the probe: spla imports here
        return {"tcp://10.0.0.1:1234": False, "tcp://10.0.0.2:1234": True}

    scatter = submit = cancel = run


def test_workers_without_spla_are_refused_naming_the_fix():
    with pytest.raises(spla.ClusterError, match=r"not installed on 1 of the 2 Dask workers \(tcp://10.0.0.1:1234\).*"
                                                r"pip install spla"):
        closeness_centrality(GRAPHS["undirected"], client=_WorkersWithoutSpla())


def test_a_client_is_checked_at_the_door():
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        betweenness_centrality(GRAPHS["undirected"], client="tcp://127.0.0.1:8786")


@given(nsrc=st.integers(0, 200_000), workers=st.integers(1, 16), per_worker=st.integers(1, 16),
       shrink=st.integers(1, 16), least=st.integers(1, 4096))
@settings(max_examples=200, deadline=None)
def test_chunks_cover_the_sources_in_order_and_shrink_at_the_end(nsrc, workers, per_worker, shrink, least):
    """Full chunks while the sources left fill two per worker, then each a (2 · workers)-th of what is left,
    never below a full one over ``cluster_tail_shrink``; whole words, at least ``cluster_min_chunk``."""
    src = np.arange(nsrc) * 3
    with spla.tuning.override(cluster_chunks_per_worker=per_worker, cluster_tail_shrink=shrink,
                              cluster_min_chunk=least):
        parts = cluster.chunks(src, workers)
    np.testing.assert_array_equal(np.concatenate(parts) if parts else src, src)
    sizes = [len(p) for p in parts]
    words = lambda x: 64 * -(-x // 64)  # noqa: E731
    full = words(max(-(-nsrc // (per_worker * workers)), least))
    floor = full if workers == 1 else words(max(full // shrink, least))
    left = nsrc
    for size in sizes[:-1]:
        assert size % 64 == 0 and floor <= size <= full
        assert size == full if left >= 2 * workers * full else size == max(floor, words(-(-left // (2 * workers))))
        left -= size
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))
    assert 0 < left <= full if nsrc else not sizes
    # the tail adds at most ~2 · workers · ln(2 · shrink) + 2 · workers chunks to the full ones
    assert len(sizes) <= -(-nsrc // full) + 2 * workers * (1 + int(np.log(2 * shrink) + 1)) if nsrc else True


def _oom_above(limit):
    """Betweenness' chunk, but out of memory above ``limit`` sources."""
    from spla.algorithms import betweenness

    def chunk(M, src, **options):
        if len(src) > limit:
            raise MemoryError(f"{len(src)} sources do not fit")
        return betweenness._chunk(M, src, **options)
    return chunk


def test_a_chunk_out_of_memory_runs_as_halves(caplog):
    """Out of memory past the algorithm's own batch halving, a chunk is split in halves down to what fits."""
    from spla.algorithms import betweenness
    A = spla.Matrix.from_networkx(GRAPHS["undirected"], device="cpu").pattern()
    src = np.arange(A.shape[0])
    options = dict(endpoints=False, edges=False, batch_size="auto", kernel="auto", frontier="auto", targets=None)
    with caplog.at_level(logging.WARNING, logger="spla"):
        got = cluster.run_chunk(A, _oom_above(40), src, options)
    want = betweenness._run(A, src, progress=None, **options)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert sum("ran out of memory" in r.getMessage() for r in caplog.records) >= 7  # 252 -> 126 -> 63 -> 31
    with pytest.raises(MemoryError):
        cluster.run_chunk(A, _oom_above(0), src[:4], options)


# --------------------------------------------------------------------------- a worker lost mid-run
def _fault_graph(device):
    """A graph whose chunks take long enough that the killed worker has some in flight (larger on a GPU)."""
    n = 4000 if device == "cpu" else 40_000
    return nx.gnm_random_graph(n, 4 * n, seed=1, directed=True)


@needs_dask
def test_a_worker_killed_mid_run_costs_its_chunks_only(cluster2, caplog):
    """Kill one worker process (SIGKILL) once the first chunk is done: its chunks run again on the other
    (or on its restarted self) and the answer is the single-device one.  Logs which worker died and
    which chunks ran again (``pytest -rP`` shows it)."""
    client, _, device = cluster2
    G = _fault_graph(device)
    want = betweenness_centrality(G, device=device)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    killed = []

    def kill_once(done, total):
        if not killed:
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(done)
            log.warning("killed worker %s (pid %d) after %d of %d sources", victim, pids[victim], done, total)

    with caplog.at_level(logging.DEBUG, logger="spla"), spla.tuning.override(cluster_min_chunk=64):
        got = betweenness_centrality(G, client=client, progress=kill_once)
    _same(got, want)
    chunk_keys = sorted({r.getMessage().split()[3] for r in caplog.records if " done (" in r.getMessage()})
    runs, again = defaultdict(int), set()
    for entry in client.story(*chunk_keys):
        if entry[0] != "scheduler" or len(entry) < 7:
            continue  # a worker's record; the scheduler's are (key, start, finish, recommendations, stimulus, time)
        key, finish, stimulus = entry[1], entry[3], str(entry[5])
        runs[key] += finish == "processing"
        if stimulus.startswith("handle-worker-cleanup"):
            again.add(key)  # lost with the worker: running, or done and held there
    again = sorted(again, key=lambda k: int(k.rsplit("-", 1)[1]))
    rerun = ", ".join(f"{k} ({runs[k]} runs)" for k in again) or "none"
    print(f"fault test ({device} workers): killed {victim} (pid {pids[victim]}) after {killed[0]} sources; "
          f"{len(chunk_keys)} chunks, run again: {rerun}; max |diff| {float(np.max(np.abs(got - want))):.3g}")
    assert killed and len(chunk_keys) >= 8
    assert again, "no chunk was lost with the killed worker: nothing was tested"
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the tests after this one


# --------------------------------------------------------------------------- the scaling benchmark's report
def test_the_scaling_report_states_the_targets(tmp_path):
    """benchmarks.scaling's claims, table and page part from a run's JSON (no cluster needed)."""
    import json

    from benchmarks import scaling

    rec = [{"measure": "bc", "config": "plain", "workers": 0, "median_wall_ms": 100_000.0, "cuda_median_ms": 99_000.0},
           {"measure": "bc", "config": "dask-1", "workers": 1, "median_wall_ms": 104_000.0, "speedup": 100 / 104,
            "max_rel_diff": 1e-15},
           {"measure": "bc", "config": "dask-2", "workers": 2, "median_wall_ms": 54_000.0, "speedup": 100 / 54,
            "max_rel_diff": 2e-15, "chunks_by_worker": {"by_worker": [[9, 52.5], [8, 51.25]], "chunks": []}}]
    result = {"device": {"name": "NVIDIA H100 80GB HBM3", "slug": "nvidia-h100-80gb-hbm3"}, "gpus": 2,
              "graph": {"label": "Graph500 scale 18", "n": 262144, "arcs": 7_600_000, "directed": False},
              "records": rec}
    (tmp_path / "nvidia-h100-80gb-hbm3-x2.json").write_text(json.dumps(result))
    claims = {c["what"]: c["ok"] for c in scaling.headlines(result)}
    assert claims == {"bc, the plain call's time on one GPU (the graph's size)": True,
                      "bc, 1 worker: wall time over the plain call's": True, "bc, 1 worker: max relative difference": True,
                      "bc, 2 workers: speedup": False, "bc, 2 workers: max relative difference": True}
    page = scaling.page_block(tmp_path)
    assert "### NVIDIA H100 80GB HBM3 x2: Graph500 scale 18" in page and "| bc | dask-2 | 2 | 54.00 |  | 1.85x |" in page
    assert "| in the call | 51.25-52.50 |" in page
    assert "Targets missed: bc, 2 workers: speedup 1.85x (target >= 1.9x)." in page
    assert scaling.page_block(tmp_path / "none") == ""
    assert "kernel cache" not in scaling.title(result)  # a run that did not count them says nothing
    assert scaling.title({**result, "kernel_cache_files": 0}).endswith("; CuPy kernel cache at start: 0 files")


def test_the_scaling_run_counts_the_kernel_cache(tmp_path, monkeypatch):
    """The files of CuPy's kernel cache (CUPY_CACHE_DIR, nested folders too) before a run; 0 without one."""
    from benchmarks import scaling

    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path / "cache"))
    assert scaling.kernel_cache_files() == 0
    (tmp_path / "cache" / "sub").mkdir(parents=True)
    for name in ("a.cubin", "sub/b.cubin"):
        (tmp_path / "cache" / name).write_bytes(b"x")
    assert scaling.kernel_cache_files() == 2
