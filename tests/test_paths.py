"""spla.paths (Brandes' compiled per-source search, and its distance sums) against exact Python Brandes
and networkx's BFS, and the CPU paths they serve (betweenness frontier="queue", the distance measures)."""

import logging
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.algorithms import betweenness_centrality, betweenness_path, edge_betweenness_centrality
from spla.backends import cpu_loops, cpu_paths
from spla.testing import graphs

needs_numba = pytest.mark.skipif(not spla.paths.available("cpu")[0], reason="numba is not installed")
ALL_KINDS = dict(multi_edges=None, shuffled_nodes=True)


def brandes(A, sources, *, edges=False, endpoints=False):
    """Exact Brandes over A's arcs (Python ints for σ, Fractions for δ): (n,) or (nnz,) Fractions."""
    n = A.shape[0]
    rows, cols = np.asarray(A.rowidx).tolist(), np.asarray(A.colidx).tolist()
    out = [[] for _ in range(n)]
    for p, (i, j) in enumerate(zip(rows, cols)):
        if i != j:
            out[i].append((j, p))
    total = [Fraction(0)] * (len(rows) if edges else n)
    for s in sources:
        order, dist, sigma = [s], {s: 0}, {s: 1}
        for v in order:
            for w, _ in out[v]:
                if w not in dist:
                    dist[w] = dist[v] + 1
                    sigma[w] = 0
                    order.append(w)
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
        delta = {v: Fraction(0) for v in order}
        for v in reversed(order):
            for w, p in out[v]:
                if dist.get(w) == dist[v] + 1:
                    c = Fraction(sigma[v], sigma[w]) * (1 + delta[w])
                    delta[v] += c
                    if edges:
                        total[p] += c
        if not edges:
            for v in order[1:]:
                total[v] += delta[v] + (1 if endpoints else 0)
            if endpoints:
                total[s] += len(order) - 1
    return total


def assert_exact(got, want):
    assert got.dtype == np.float64 and got.shape == (len(want),)
    np.testing.assert_allclose(got, [float(x) for x in want], rtol=1e-12, atol=1e-12)


@needs_numba
@settings(max_examples=60, deadline=None)
@given(G=graphs(max_nodes=14, **ALL_KINDS), data=st.data())
def test_dependencies_equal_exact_brandes(G, data):
    """Every kind of graph (empty, one vertex, disconnected, self-loops, parallel edges, directed), a
    drawn list of sources (repeats count twice), vertex sums with or without endpoints, and arc sums;
    levels pushed only (a huge paths_pull_scan), pulled wherever fewer arcs (0) or as shipped."""
    A = spla.Matrix.from_networkx(G, device="cpu")
    n = A.shape[0]
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n), label="sources") if n else []
    mode = data.draw(st.sampled_from(["vertex", "endpoints", "edges"]), label="mode")
    scan = data.draw(st.sampled_from([spla.tuning.DEFAULT.paths_pull_scan, 0.0, 1e9]), label="paths_pull_scan")
    here = data.draw(st.sampled_from([spla.tuning.DEFAULT.paths_parallel_min_arcs, 1]), label="parallel_min_arcs")
    kw = dict(edges=mode == "edges", endpoints=mode == "endpoints")
    with spla.tuning.override(paths_pull_scan=scan, paths_parallel_min_arcs=here):
        got = spla.paths.dependencies(A, sources, **kw)
    assert_exact(got, brandes(A, sources, **kw))


@needs_numba
@pytest.mark.parametrize("workers", [1, 2, 3, 7])
def test_workers_share_the_sources(workers):
    """However many workers the sources are dealt to (on threads, or one on the calling thread when the
    work is small), the sums are the same (to rounding)."""
    G = nx.gnp_random_graph(60, 0.08, seed=4, directed=True)
    A = spla.Matrix.from_networkx(G, device="cpu")
    S = np.arange(60)
    for edges in (False, True):
        want = brandes(A, S, edges=edges)
        for least in (1, spla.tuning.DEFAULT.paths_parallel_min_arcs):
            with spla.tuning.override(paths_parallel_min_arcs=least):
                assert_exact(cpu_paths.dependencies(A, S, edges=edges, endpoints=False, workers=workers), want)


@needs_numba
def test_a_pulled_level_records_its_dag_arcs():
    """From vertex 0 of K_{1,3} joined to K_{3,5} (0 -> a_i -> b_j, and arcs among the b's): level 2 is
    cheaper pulled (the b's in-arcs) than pushed (the a's out-arcs, which also reach each other), and
    its DAG arcs are the ones the sweep pushes from; the sums equal exact Brandes, pulled or not."""
    from spla.backends import cpu_paths_kernels as kern

    G = nx.DiGraph()
    a, b = [1, 2, 3], [4, 5, 6, 7, 8]
    G.add_edges_from((0, x) for x in a)
    G.add_edges_from((x, y) for x in a for y in a if x != y)
    G.add_edges_from((x, y) for x in a for y in b)
    A = spla.Matrix.from_networkx(G, device="cpu")
    T = A.T
    ws = np.zeros((7, 10), dtype=A.rowidx.dtype)
    ws[kern.LEVEL] = -1
    dag = np.empty(A.nnz, dtype=A.rowidx.dtype)
    tail = kern.search(0, T.colptr, T.rowidx, A.colptr, A.rowidx, ws, np.empty(9), dag, False, 8.0, 0.0)
    assert tail == 9 and ws[kern.PULLED, 1] == 1 and ws[kern.PRED_N, 4:9].tolist() == [3] * 5
    for scan in (0.0, 1e9):
        with spla.tuning.override(paths_pull_scan=scan):
            for edges in (False, True):
                assert_exact(spla.paths.dependencies(A, range(9), edges=edges), brandes(A, range(9), edges=edges))


def diamond_chain(count):
    G = nx.Graph()
    for i in range(count):
        h, a, b, h2 = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        G.add_edges_from([(h, a), (h, b), (a, h2), (b, h2)])
    return G


@needs_numba
def test_sigma_past_float64_range_is_rescaled():
    """A chain of 1,100 diamonds has 2^1100 shortest paths end to end (float64 ends at 2^1024)."""
    A = spla.Matrix.from_networkx(diamond_chain(1100), device="cpu")
    S = [0, 1, 1650, 3300]
    for edges in (False, True):
        got = spla.paths.dependencies(A, S, edges=edges)
        assert np.all(np.isfinite(got))
        assert_exact(got, brandes(A, S, edges=edges))


@needs_numba
def test_betweenness_queue_path_matches_networkx():
    """frontier="queue" (and "auto" on the CPU) against networkx, vertex and edge betweenness, with k
    sampled sources, endpoints and a given subset."""
    G = nx.gnp_random_graph(80, 0.05, seed=7, directed=True)
    G.add_edge(3, 3)
    for frontier in ("auto", "queue"):
        for kw in ({}, {"endpoints": True}, {"k": 20, "seed": 2}, {"normalized": False, "endpoints": True}):
            got = betweenness_centrality(G, frontier=frontier, device="cpu", **kw)
            ref = nx.betweenness_centrality(G, **kw)
            np.testing.assert_allclose(got, [ref[v] for v in G], rtol=1e-9, atol=1e-12)
        got = betweenness_centrality(G, sources=[5, 9, 1], normalized=False, frontier=frontier, device="cpu")
        ref = nx.betweenness_centrality_subset(G, [5, 9, 1], list(G), normalized=False)
        np.testing.assert_allclose(got, [ref[v] for v in G], rtol=1e-9, atol=1e-12)
        H = G.to_undirected()
        E = edge_betweenness_centrality(H, k=30, seed=1, frontier=frontier, device="cpu")
        for (u, v), x in nx.edge_betweenness_centrality(H, k=30, seed=1).items():
            assert E[u, v] == pytest.approx(x, rel=1e-9, abs=1e-12) and E[v, u] == E[u, v]


@needs_numba
def test_progress_and_blocks_on_the_queue_path():
    G = nx.gnp_random_graph(300, 0.02, seed=1)
    calls = []
    got = betweenness_centrality(G, device="cpu", progress=lambda d, t: calls.append((d, t)))
    assert calls == [(300, 300)]  # too few arcs for a block per thread: one call
    calls.clear()
    with spla.tuning.override(paths_parallel_min_arcs=1):  # blocks of 1% of the sources, at least one per thread
        again = betweenness_centrality(G, device="cpu", progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (300, 300) and len(calls) > 1 and [d for d, _ in calls] == sorted({d for d, _ in calls})
    np.testing.assert_allclose(again, got, rtol=1e-12, atol=1e-15)
    same = betweenness_centrality(G, device="cpu", batch_size=7)
    np.testing.assert_allclose(same, got, rtol=1e-12, atol=1e-15)


@needs_numba
def test_betweenness_path_tells_the_cpu_choice():
    G = nx.path_graph(30)
    path = betweenness_path(G, device="cpu")
    assert path.name == "queue" and "compiled per-source" in path.why
    assert betweenness_path(G, device="cpu", edges=True).name == "queue"
    assert betweenness_path(G, device="cpu", frontier="dense").name == "dense"
    assert betweenness_path(G, device="cpu", frontier="sparse").name == "sparse"
    assert betweenness_path(G, device="cpu", batch_size=1).name == "single"
    with pytest.raises(ValueError, match="edge betweenness has no sparse-frontier path"):
        betweenness_path(G, device="cpu", edges=True, frontier="sparse")


def test_without_numba_the_numpy_paths_run(monkeypatch, caplog):
    """numba missing: dependencies and frontier="queue" raise KernelUnavailable naming the fix, "auto"
    runs the NumPy block paths with one logged note, and the answers stay networkx's."""
    from spla.algorithms import betweenness as bmod

    monkeypatch.setattr(cpu_loops, "load", lambda name: (None, "numba is not importable (test); pip install numba"))
    monkeypatch.setattr(bmod, "_noted_no_queue", [])
    G = nx.gnp_random_graph(40, 0.1, seed=3)
    A = spla.Matrix.from_networkx(G, device="cpu")
    assert spla.paths.available("cpu") == (False, "numba is not importable (test); pip install numba")
    with pytest.raises(spla.KernelUnavailable, match="pip install numba"):
        spla.paths.dependencies(A, [0])
    with pytest.raises(spla.KernelUnavailable, match="frontier='queue' cannot run here"):
        betweenness_centrality(A, frontier="queue")
    assert betweenness_path(A).name == "dense"
    with caplog.at_level(logging.WARNING, logger="spla"):
        got = betweenness_centrality(A)
        betweenness_centrality(A)
    assert sum("compiled CPU path is unavailable" in r.message for r in caplog.records) == 1
    ref = nx.betweenness_centrality(G)
    np.testing.assert_allclose(got, [ref[v] for v in G], rtol=1e-9, atol=1e-12)


@needs_numba
@settings(max_examples=50, deadline=None)
@given(G=graphs(max_nodes=14, **ALL_KINDS), data=st.data())
def test_distance_sums_equal_bfs(G, data):
    """Every kind of graph, a drawn subset of sources, both directions, levels pushed or pulled."""
    A = spla.Matrix.from_networkx(G, device="cpu")
    nodes, n = list(G), A.shape[0]
    S = data.draw(st.lists(st.integers(0, n - 1), unique=True), label="sources") if n else []
    direction = data.draw(st.sampled_from(["in", "out"]), label="direction")
    scan = data.draw(st.sampled_from([spla.tuning.DEFAULT.paths_pull_scan, 0.0, 1e9]), label="paths_pull_scan")
    dist, reach, harm = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n)
    for s in S:
        for t, d in nx.single_source_shortest_path_length(G, nodes[s]).items():
            at = s if direction == "out" else nodes.index(t)
            dist[at] += d
            reach[at] += 1
            harm[at] += 1 / d if d else 0.0
    with spla.tuning.override(paths_pull_scan=scan, paths_parallel_min_arcs=data.draw(st.sampled_from([1, 1 << 22]))):
        got = spla.paths.distance_sums(A, S, direction=direction)
    np.testing.assert_array_equal(got[0], dist)
    np.testing.assert_array_equal(got[1], reach)
    np.testing.assert_allclose(got[2], harm, rtol=1e-12)


@needs_numba
def test_distance_measures_on_the_cpu_path():
    """closeness, harmonic and sum of distances on the CPU take the searches (with progress in blocks) and
    equal the bit-parallel BFS's answers and networkx's."""
    from spla.algorithms import closeness_centrality, harmonic_centrality, sum_of_distances
    from spla.algorithms import distances as dmod

    G = nx.gnp_random_graph(300, 0.01, seed=5, directed=True)
    A = spla.Matrix.from_networkx(G, device="cpu")
    assert dmod.use_searches(A)
    calls = []
    with spla.tuning.override(paths_parallel_min_arcs=1):  # blocks of 1% of the sources, at least one per thread
        got = (closeness_centrality(A, progress=lambda d, t: calls.append((d, t))), harmonic_centrality(A),
               sum_of_distances(A, return_reach=True))
    assert calls[-1] == (300, 300) and len(calls) > 1
    with spla.tuning.override(paths_for_distances=False):
        assert not dmod.use_searches(A)
        bits = (closeness_centrality(A), harmonic_centrality(A), sum_of_distances(A, return_reach=True))
    np.testing.assert_allclose(got[0], bits[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], bits[1], rtol=1e-12)
    np.testing.assert_array_equal(got[2][0], bits[2][0])
    np.testing.assert_array_equal(got[2][1], bits[2][1])
    ref = nx.closeness_centrality(G)
    np.testing.assert_allclose(got[0], [ref[v] for v in G], rtol=1e-9)


def test_arguments_are_checked_at_the_door():
    A = spla.Matrix.from_networkx(nx.path_graph(4), device="cpu")
    with pytest.raises(TypeError, match="A must be a spla.Matrix"):
        spla.paths.dependencies(np.eye(3), [0])
    with pytest.raises(spla.DimensionMismatch, match="square"):
        spla.paths.dependencies(spla.Matrix.from_csc([0, 1, 1], [2], None, (3, 2), device="cpu"), [0])
    with pytest.raises(ValueError, match="cannot be combined with edges=True"):
        spla.paths.dependencies(A, [0], edges=True, endpoints=True)
    with pytest.raises(TypeError, match="edges must be True or False"):
        spla.paths.dependencies(A, [0], edges="yes")
    with pytest.raises(ValueError, match="sources contains vertex 4, outside 0..3"):
        spla.paths.dependencies(A, [0, 4])
    with pytest.raises(TypeError, match="integers"):
        spla.paths.dependencies(A, [0.5])
    assert spla.paths.dependencies(A, []).tolist() == [0.0] * 4
    with pytest.raises(ValueError, match="direction must be 'in' or 'out'"):
        spla.paths.distance_sums(A, [0], direction="both")
    assert [x.tolist() for x in spla.paths.distance_sums(A, [])] == [[0] * 4, [0] * 4, [0.0] * 4]
    assert spla.paths.available("gpu:0")[0] is False
    assert spla.paths.threads() >= 1


@pytest.mark.gpu
def test_gpu_matrices_are_refused():
    A = spla.Matrix.from_networkx(nx.path_graph(4), device="gpu:0")
    with pytest.raises(spla.KernelUnavailable, match="CPU backend only"):
        spla.paths.dependencies(A, [0])
    with pytest.raises(spla.KernelUnavailable, match="CPU backend only"):
        spla.paths.distance_sums(A, [0])
    with pytest.raises(spla.KernelUnavailable, match="frontier='queue' cannot run here"):
        betweenness_centrality(A, frontier="queue")
    assert betweenness_path(A).name in ("dense", "sparse")
