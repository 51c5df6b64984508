"""Weighted shortest paths (issue #35): spla.paths(..., weighted=True) and the weighted centralities against
networkx (positive lengths: integer ties and decimal near-ties decided by rounding) and against an exact
Python reference of the definition (zero-length arcs and cycles, where networkx depends on its visiting
order); the errors at the door; the real weighted graphs of ../shared/graphs/weighted."""

import gzip
import math
import re
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.algorithms import (betweenness_centrality, betweenness_path, closeness_centrality,
                             edge_betweenness_centrality, harmonic_centrality, shortest_path_lengths,
                             sum_of_distances)
from spla.device import to_numpy
from spla.testing import scaled

from conftest import GRAPHS_DIR

pytestmark = pytest.mark.skipif(not spla.paths.available("cpu", weighted=True)[0], reason="numba is not installed")
RTOL = 1e-9


# --------------------------------------------------------------------------- graphs
def build(n, arcs, directed):
    """(spla.Matrix on the CPU, networkx graph) of the arcs (u, v, w), parallel arcs keeping the shortest
    (an undirected pair's two orientations are one edge); self-loops kept."""
    best = {}
    for u, v, w in arcs:
        key = (u, v) if directed else (min(u, v), max(u, v))
        best[key] = min(w, best.get(key, math.inf))
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((u, v, w) for (u, v), w in best.items())
    src = np.array([k[0] for k in best], dtype=np.int64)
    dst = np.array([k[1] for k in best], dtype=np.int64)
    vals = np.array(list(best.values()), dtype=np.float64)
    A = spla.Matrix.from_edges(src, dst, n=n, values=vals, directed=directed, device="cpu")
    return A, G


@st.composite
def weighted_graphs(draw, lengths="int", max_n=11):
    """(n, arcs, directed): up to max_n vertices, arcs with self-loops and parallel arcs; ``lengths``:
    "int" (1..4, exact ties), "dec" (4 decimals in (0, 3]: near-ties decided by rounding), "zero"
    (0..2, many zeros: zero-length arcs and cycles)."""
    n = draw(st.integers(0, max_n))
    directed = draw(st.booleans())
    if n == 0:
        return 0, [], directed
    if lengths == "int":
        w = st.integers(1, 4).map(float)
    elif lengths == "dec":
        w = st.integers(1, 30000).map(lambda k: round(k / 10000, 4))
    else:
        w = st.sampled_from([0.0, 0.0, 1.0, 2.0, 0.5])
    arc = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), w)
    arcs = draw(st.lists(arc, max_size=3 * n))
    return n, arcs, directed


def on(A, device):
    return A if device == "cpu" else A.to(device)


def node_array(d, n):
    return np.array([d[i] for i in range(n)], dtype=np.float64)


# --------------------------------------------------------------------------- the exact reference
def reference(A, sources):
    """The definition, brute force: d by Bellman-Ford with float64 sums, h by its fixed point over the
    tight arcs, the DAG enumerated, σ exact (ints), δ exact (Fractions).  Returns per source a dict of
    d, sigma and the vertex and arc (A's CSC positions) dependencies."""
    n = A.shape[0]
    rows, cols = np.asarray(A.rowidx).tolist(), np.asarray(A.colidx).tolist()
    w = [1.0] * len(rows) if A.values is None else np.asarray(A.values, dtype=np.float64).tolist()
    arcs = [(u, v, w[p], p) for p, (u, v) in enumerate(zip(rows, cols)) if u != v]
    out = []
    for s in sources:
        d = [math.inf] * n
        d[s] = 0.0
        for _ in range(n):
            for u, v, x, _p in arcs:
                if d[u] + x < d[v]:
                    d[v] = d[u] + x
        tight = [(u, v, p) for u, v, x, p in arcs if d[u] < math.inf and d[u] + x == d[v]]
        h = [math.inf] * n
        h[s] = 0
        for _ in range(n):
            for u, v, _p in tight:
                h[v] = min(h[v], h[u] + 1)
        dag = [(u, v, p) for u, v, p in tight if d[u] < d[v] or (d[u] == d[v] and h[u] < h[v])]
        order = sorted((v for v in range(n) if d[v] < math.inf), key=lambda v: (d[v], h[v]))
        sigma = [0] * n
        sigma[s] = 1
        into = {v: [(u, p) for u, x, p in dag if x == v] for v in order}
        for v in order[1:]:
            sigma[v] = sum(sigma[u] for u, _ in into[v])
        delta = [Fraction(0)] * n
        arc = [Fraction(0)] * len(rows)
        for v in reversed(order):
            for u, p in into[v]:
                c = Fraction(sigma[u], sigma[v]) * (1 + delta[v])
                delta[u] += c
                arc[p] += c
        out.append(dict(d=d, h=h, sigma=sigma, delta=delta, arc=arc, reached=len(order),
                        equal_tight=any(d[u] == d[v] for u, v, _ in tight)))
    return out


def assert_close(got, want, rtol=RTOL):
    got, want = np.asarray(to_numpy(got), dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


def check_engine_against_reference(A, device):
    n = A.shape[0]
    src = list(range(n))
    ref = reference(A, src)
    M = on(A, device)
    want_v = [float(sum(r["delta"][v] for r, s in zip(ref, src) if v != s)) for v in range(n)]
    assert_close(spla.paths.dependencies(M, src, weighted=True), want_v)
    want_e = [float(sum(r["arc"][p] for r in ref)) for p in range(A.nnz)]
    assert_close(spla.paths.dependencies(M, src, edges=True, weighted=True), want_e)
    want_end = [want_v[v] + sum((r["d"][v] < math.inf and v != s) + (r["reached"] - 1 if v == s else 0)
                                for r, s in zip(ref, src)) for v in range(n)]
    assert_close(spla.paths.dependencies(M, src, endpoints=True, weighted=True), want_end)
    dist, sigma = spla.paths.shortest_paths(M, src, counts=True)
    assert np.array_equal(to_numpy(dist), np.array([r["d"] for r in ref]).reshape(n, n))
    assert_close(sigma, np.array([r["sigma"] for r in ref], dtype=np.float64).reshape(n, n))
    for direction in ("in", "out"):
        ds, reach, harm = (to_numpy(x) for x in spla.paths.distance_sums(M, src, direction=direction, weighted=True))
        D = np.array([r["d"] for r in ref]).reshape(n, n)
        D = D if direction == "out" else D.T  # row: the vertex whose sums they are
        fin = np.isfinite(D)
        assert np.array_equal(reach, fin.sum(axis=1))
        assert_close(ds, np.where(fin, D, 0).sum(axis=1))
        assert_close(harm, np.where(fin & (D > 0), 1 / np.where(D > 0, D, 1), 0).sum(axis=1))
    return ref


# --------------------------------------------------------------------------- against networkx
def check_against_networkx(n, arcs, directed, device):
    A, G = build(n, arcs, directed)
    M = on(A, device)
    for normalized in (True, False):
        assert_close(betweenness_centrality(M, weight=True, normalized=normalized),
                     node_array(nx.betweenness_centrality(G, weight="weight", normalized=normalized), n))
    assert_close(betweenness_centrality(M, weight=True, endpoints=True),
                 node_array(nx.betweenness_centrality(G, weight="weight", endpoints=True), n))
    if n > 2:
        k = n // 2
        assert_close(betweenness_centrality(M, weight=True, k=k, seed=7),
                     node_array(nx.betweenness_centrality(G, weight="weight", k=k, seed=7), n))
    if n > 1:
        S = list(range(0, n, 2))
        assert_close(betweenness_centrality(M, weight=True, sources=S, normalized=False),
                     node_array(nx.betweenness_centrality_subset(G, S, list(G), normalized=False, weight="weight"), n))
    eb = edge_betweenness_centrality(M, weight=True)
    for (u, v), want in nx.edge_betweenness_centrality(G, weight="weight").items():
        assert eb[u, v] == pytest.approx(want, rel=RTOL, abs=1e-12)
        if not directed:
            assert eb[v, u] == pytest.approx(want, rel=RTOL, abs=1e-12)
    for wf in (True, False):
        assert_close(closeness_centrality(M, distance=True, wf_improved=wf),
                     node_array(nx.closeness_centrality(G, distance="weight", wf_improved=wf), n))
    assert_close(harmonic_centrality(M, distance=True), node_array(nx.harmonic_centrality(G, distance="weight"), n))
    sums = [sum(nx.single_source_dijkstra_path_length(G, s).values()) for s in range(n)]
    assert_close(sum_of_distances(M, weight=True), sums)
    if n:
        dist = shortest_path_lengths(M, range(n), weight=True)
        for s in range(n):
            want = np.full(n, np.inf)
            for v, d in nx.single_source_dijkstra_path_length(G, s).items():
                want[v] = d
            assert np.array_equal(dist[s], want), s  # bit for bit: sums formed in path order
    return A, G


@settings(max_examples=scaled(40), deadline=None)
@given(weighted_graphs("int"), st.booleans())
def test_integer_lengths_match_networkx(device, g, pool):
    # pool: the CPU's searches on numba's threads however small the call, else on the calling thread
    with spla.tuning.override(sssp_parallel_min_arcs=1 if pool else 1 << 40):
        check_against_networkx(*g, device)


@settings(max_examples=scaled(40), deadline=None)
@given(weighted_graphs("dec"))
def test_decimal_lengths_match_networkx(device, g):
    check_against_networkx(*g, device)


@settings(max_examples=scaled(40), deadline=None)
@given(weighted_graphs("zero"))
def test_zero_lengths_match_the_definition(device, g):
    n, arcs, directed = g
    A, G = build(n, arcs, directed)
    ref = check_engine_against_reference(A, device)
    M = on(A, device)
    # distances do not depend on the visiting order: networkx's closeness and harmonic centrality are ours
    assert_close(closeness_centrality(M, distance=True), node_array(nx.closeness_centrality(G, distance="weight"), n))
    assert_close(harmonic_centrality(M, distance=True), node_array(nx.harmonic_centrality(G, distance="weight"), n))
    # where no tight arc joins vertices at equal distance (nor a zero-length self-loop, which networkx takes
    # as a tight arc into a vertex it has finished), networkx's betweenness is ours
    if not any(r["equal_tight"] for r in ref) and not any(u == v and w == 0 for u, v, w in arcs):
        assert_close(betweenness_centrality(M, weight=True),
                     node_array(nx.betweenness_centrality(G, weight="weight"), n))


@settings(max_examples=scaled(30), deadline=None)
@given(weighted_graphs("dec"))
def test_decimal_lengths_match_the_definition(device, g):
    n, arcs, directed = g
    check_engine_against_reference(build(n, arcs, directed)[0], device)


def test_zero_length_cycle_counts_once(device):
    # s -> a (1), a <-> b (0), a -> t (1), b -> t (1): one shortest path to a, to b (s a b) and two to t
    arcs = [(0, 1, 1.0), (1, 2, 0.0), (2, 1, 0.0), (1, 3, 1.0), (2, 3, 1.0)]
    A, _ = build(4, arcs, True)
    ref = check_engine_against_reference(A, device)
    assert ref[0]["sigma"] == [1, 1, 1, 2]
    dist, sigma = shortest_path_lengths(on(A, device), [0], weight=True, counts=True)
    assert dist.tolist() == [[0.0, 1.0, 1.0, 2.0]] and sigma.tolist() == [[1.0, 1.0, 1.0, 2.0]]


def test_networkx_divergence_example(device):
    """The module docstring's example: networkx gives 1.5 to whichever of a, b it was given first."""
    arcs = [("s", "a", 1), ("s", "b", 1), ("a", "b", 0), ("b", "a", 0)]
    for first in ("a", "b"):
        G = nx.DiGraph()
        G.add_nodes_from("sab")
        G.add_weighted_edges_from(arcs if first == "a" else [arcs[1], arcs[0]] + arcs[2:])
        assert nx.betweenness_centrality(G, weight="weight", normalized=False)[first] == 1.5
        A = spla.Matrix.from_networkx(G, weight="weight", device=device)
        assert to_numpy(betweenness_centrality(A, weight=True, normalized=False)).tolist() == [0.0, 0.0, 0.0]
        assert betweenness_centrality(G, weight=True, normalized=False, device=device).tolist() == [0.0, 0.0, 0.0]


def test_zero_length_chain_matches_networkx(device):
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1), (1, 2, 0), (2, 3, 1)])
    assert_close(betweenness_centrality(G, weight=True, normalized=False, device=device),
                 node_array(nx.betweenness_centrality(G, weight="weight", normalized=False), 4))


# --------------------------------------------------------------------------- special cases
def test_pattern_only_equals_unweighted(device):
    G = nx.gnp_random_graph(30, 0.15, seed=2, directed=True)
    A = spla.Matrix.from_networkx(G, device=device)
    assert A.is_pattern
    assert_close(betweenness_centrality(A, weight=True), betweenness_centrality(A))
    assert_close(closeness_centrality(A, distance=True), closeness_centrality(A))
    assert_close(harmonic_centrality(A, distance=True), harmonic_centrality(A))
    assert_close(sum_of_distances(A, weight=True), sum_of_distances(A))
    assert sum_of_distances(A, weight=True).dtype == np.float64
    e1, e0 = edge_betweenness_centrality(A, weight=True), edge_betweenness_centrality(A)
    assert_close(e1.toarray(), e0.toarray())
    d = shortest_path_lengths(A, [0, 3], weight=True)
    assert np.array_equal(d, shortest_path_lengths(A, [0, 3]))
    for s, row in zip([0, 3], d):
        want = np.full(30, np.inf)
        for v, h in nx.single_source_shortest_path_length(G, s).items():
            want[v] = h
        assert np.array_equal(row, want)
    if device == "cpu":
        ds = spla.paths.distance_sums(A, np.arange(30), weighted=True)
        assert ds[0].dtype == np.float64
        assert_close(ds[0], spla.paths.distance_sums(A, np.arange(30))[0])


def test_unweighted_calls_ignore_values(device):
    G = nx.gnp_random_graph(25, 0.2, seed=5)
    for u, v in G.edges:
        G[u][v]["weight"] = 1 + (u * v) % 7
    A = spla.Matrix.from_networkx(G, weight="weight", device=device)
    P = spla.Matrix.from_networkx(G, device=device)
    assert_close(betweenness_centrality(A), betweenness_centrality(P))
    assert_close(closeness_centrality(A, distance=False), closeness_centrality(P))
    d = shortest_path_lengths(A, [1], weight=None)
    assert d[0, 1] == 0 and np.all(d[np.isfinite(d)] == np.round(d[np.isfinite(d)]))


def test_progress_and_batches(device):
    G = nx.gnp_random_graph(40, 0.1, seed=8, directed=True)
    for u, v in G.edges:
        G[u][v]["weight"] = 1 + (3 * u + v) % 5
    want = node_array(nx.betweenness_centrality(G, weight="weight"), 40)
    calls = []
    assert_close(betweenness_centrality(G, weight=True, device=device, progress=lambda d, t: calls.append((d, t))),
                 want)
    assert calls[-1] == (40, 40) and len(calls) > 1
    assert_close(betweenness_centrality(G, weight=True, device=device, batch_size=7), want)
    calls.clear()
    assert_close(closeness_centrality(G, distance=True, device=device, progress=lambda d, t: calls.append((d, t))),
                 node_array(nx.closeness_centrality(G, distance="weight"), 40))
    assert calls[-1] == (40, 40)


def test_multigraph_keeps_the_shortest_parallel_edge(device):
    G = nx.MultiDiGraph()
    G.add_weighted_edges_from([(0, 1, 5), (0, 1, 2), (1, 2, 1), (0, 2, 3), (0, 2, 4)])
    assert_close(betweenness_centrality(G, weight=True, normalized=False, device=device),
                 node_array(nx.betweenness_centrality(G, weight="weight", normalized=False), 3))
    assert shortest_path_lengths(G, [0], weight=True, device=device).tolist() == [[0.0, 2.0, 3.0]]
    H = nx.MultiGraph()
    H.add_weighted_edges_from([(0, 1, 5), (1, 0, 2), (1, 2, 1)])
    assert shortest_path_lengths(H, [2], weight=True, device=device).tolist() == [[3.0, 1.0, 0.0]]


@settings(max_examples=scaled(25), deadline=None)
@given(g=weighted_graphs("dec"), missing=st.sets(st.integers(0, 40)), multi=st.booleans())
def test_a_named_attribute_matches_networkx(device, g, missing, multi):
    """weight="length" / distance="length" on a networkx graph read that attribute, 1 where an edge lacks
    it, as networkx does; its "weight" attribute (other values) is not read."""
    n, arcs, directed = g
    G = (nx.MultiDiGraph() if directed else nx.MultiGraph()) if multi else (nx.DiGraph() if directed else nx.Graph())
    G.add_nodes_from(range(n))
    for i, (u, v, w) in enumerate(arcs):
        G.add_edge(u, v, weight=10.0 + w, **({} if i in missing else {"length": w}))
    kw = dict(device=device)
    assert_close(betweenness_centrality(G, weight="length", **kw),
                 node_array(nx.betweenness_centrality(G, weight="length"), n))
    assert_close(closeness_centrality(G, distance="length", **kw),
                 node_array(nx.closeness_centrality(G, distance="length"), n))
    assert_close(harmonic_centrality(G, distance="length", **kw),
                 node_array(nx.harmonic_centrality(G, distance="length"), n))
    assert_close(sum_of_distances(G, weight="length", **kw),
                 [sum(nx.single_source_dijkstra_path_length(G, s, weight="length").values()) for s in range(n)])
    if n:
        dist = shortest_path_lengths(G, range(n), weight="length", **kw)
        for s in range(n):
            for v, d in nx.single_source_dijkstra_path_length(G, s, weight="length").items():
                assert dist[s, v] == d
    if not multi:  # networkx splits a multigraph's edge betweenness over its parallel edges
        eb = edge_betweenness_centrality(G, weight="length", **kw)
        for (u, v), want in nx.edge_betweenness_centrality(G, weight="length").items():
            assert eb[u, v] == pytest.approx(want, rel=RTOL, abs=1e-12)


def test_sigma_past_float64_is_rescaled(device):
    """A chain of 1,100 diamonds (2^1100 shortest paths), lengths 1.5: the weighted sums keep float64's
    precision, equal to the hop-count search's (which rescales by levels); σ itself is inf past 2^1024."""
    k = 1100
    src, dst = [], []
    for i in range(k):
        a, b, c, d = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        src += [a, a, b, c]
        dst += [b, c, d, d]
    n = 3 * k + 1
    A = spla.Matrix.from_edges(np.array(src), np.array(dst), n=n, values=np.full(len(src), 1.5), directed=True,
                               device=device)
    P = A.pattern()
    sources = [0, 1, 3 * 500]
    if device == "cpu":
        want = spla.paths.dependencies(P, sources)
        want_e = spla.paths.dependencies(P, sources, edges=True)
    else:
        want = betweenness_centrality(P, sources=sources, normalized=False, frontier="dense")
        want_e = None
    got = to_numpy(spla.paths.dependencies(A, sources, weighted=True))
    assert np.all(np.isfinite(got))
    assert_close(got, want, rtol=1e-12)
    if want_e is not None:
        assert_close(spla.paths.dependencies(A, sources, edges=True, weighted=True), want_e, rtol=1e-12)
    dist, sigma = shortest_path_lengths(A, [0], weight=True, counts=True)
    assert dist[0, 3 * 600] == 1200 * 1.5 and sigma[0, 3 * 600] == 2.0 ** 600 and np.isinf(sigma[0, n - 1])


# --------------------------------------------------------------------------- errors at the door
@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_bad_lengths_are_refused_before_any_work(device, bad):
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), values=np.array([1.0, bad, 2.0]),
                               directed=True, device=device)
    calls = [lambda: betweenness_centrality(A, weight=True), lambda: edge_betweenness_centrality(A, weight=True),
             lambda: closeness_centrality(A, distance=True), lambda: harmonic_centrality(A, distance=True),
             lambda: sum_of_distances(A, weight=True), lambda: shortest_path_lengths(A, [0], weight=True),
             lambda: spla.paths.dependencies(A, [], weighted=True),
             lambda: spla.paths.distance_sums(A, [], weighted=True),
             lambda: spla.paths.shortest_paths(A, [])]
    for call in calls:
        with pytest.raises(spla.InvalidGraph, match="1 -> 2"):
            call()
    # the unweighted measures read no lengths
    assert np.all(np.isfinite(betweenness_centrality(A)))


def test_cpu_searches_refuse_graphs_past_their_heap(monkeypatch):
    """A heap entry of the CPU's Dijkstra packs h and the vertex into one int64: graphs of 2^31 vertices
    or more are refused before any work, naming the limit (the limit lowered here to 3)."""
    from spla.backends import cpu_sssp

    if not cpu_sssp.available()[0]:
        pytest.skip("numba is not installed")
    monkeypatch.setattr(cpu_sssp._compile(), "MAX_VERTICES", 3)
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), values=np.array([1.0, 2.0, 3.0]),
                               directed=True, device="cpu")
    with pytest.raises(spla.InvalidGraph, match="fewer than 2\\^31 vertices; this one has 4"):
        shortest_path_lengths(A, [0], weight=True)


def test_lengths_are_checked_once_per_matrix(device, monkeypatch):
    """check_lengths keeps a matrix's checked lengths in its cache; a matrix whose lengths fail is
    refused at every call; drop_cached checks anew."""
    import spla.weights

    calls = []
    real = spla.weights._checked
    monkeypatch.setattr(spla.weights, "_checked", lambda A, what: calls.append(what) or real(A, what))
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), values=np.array([1, 3]), directed=True,
                               device=device)
    first = spla.weights.check_lengths(A)
    assert first.dtype == np.float64 and to_numpy(first).tolist() == [1.0, 3.0]
    assert spla.weights.check_lengths(A, "weighted closeness") is first and len(calls) == 1
    shortest_path_lengths(A, [0], weight=True)
    assert len(calls) == 1
    # its searches run over A.T, another matrix: checked once too, or on a GPU taken from A's check (the
    # searches there read A's lengths in both orders already)
    closeness_centrality(A, distance=True)
    closeness_centrality(A, distance=True)
    assert len(calls) == (1 if spla.device.is_gpu(device) else 2)
    del calls[1:]
    A.drop_cached("checked_lengths")
    spla.weights.check_lengths(A)
    assert len(calls) == 2
    bad = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), values=np.array([1.0, -2.0]), directed=True,
                                 device=device)
    for _ in range(2):
        with pytest.raises(spla.InvalidGraph, match="1 -> 2"):
            spla.weights.check_lengths(bad)
    assert len(calls) == 4
    B = spla.Matrix.from_edges(np.array([0, 2]), np.array([1, 1]), values=np.array([5, 7]), directed=True,
                               device=device)
    Bt = B.T
    assert to_numpy(spla.weights.transpose_lengths(B, Bt)).tolist() == [5.0, 7.0]  # B's check covers B.T
    assert len(calls) == 5
    with pytest.raises(ValueError, match="A.T"):
        spla.weights.transpose_lengths(B, spla.Matrix.from_edges(np.array([0]), np.array([1]), values=np.array([1]),
                                                                 directed=True, device=device))


def test_weight_argument_is_checked():
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), values=np.array([1.0, 2.0]), device="cpu")
    # a matrix's stored values are its only lengths: an attribute name is for a networkx graph
    for call in (lambda: betweenness_centrality(A, weight="length"),
                 lambda: edge_betweenness_centrality(A, weight="length"),
                 lambda: closeness_centrality(A, distance="weight"),
                 lambda: harmonic_centrality(A, distance="w"),
                 lambda: sum_of_distances(A.to_scipy(), weight="w"),
                 lambda: shortest_path_lengths(A, [0], weight="w")):
        with pytest.raises(TypeError, match=r"names an edge attribute of a networkx graph.*=True"):
            call()
    G = nx.path_graph(3)
    for call in (lambda: betweenness_centrality(G, weight=1),
                 lambda: closeness_centrality(G, distance=lambda u, v, d: 1),
                 lambda: shortest_path_lengths(G, [0], weight=2.0)):
        with pytest.raises(TypeError, match="must be None, False, True .* or the name"):
            call()
    with pytest.raises(NotImplementedError, match="targets"):
        betweenness_centrality(A, weight=True, targets=[1])
    with pytest.raises(ValueError, match="frontier"):
        betweenness_centrality(A, weight=True, frontier="dense")
    with pytest.raises(TypeError, match="weighted"):
        spla.paths.dependencies(A, [0], weighted="yes")
    with pytest.raises(TypeError, match="counts"):
        shortest_path_lengths(A, [0], weight=True, counts=None)
    assert betweenness_path(A, weight=True).name == "dijkstra"
    assert betweenness_path(A.pattern(), weight=True).name != "dijkstra"


def test_empty_and_single_vertex(device):
    E = spla.Matrix.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=0, values=np.zeros(0),
                               device=device)
    assert betweenness_centrality(E, weight=True).shape == (0,)
    assert closeness_centrality(E, distance=True).shape == (0,)
    assert sum_of_distances(E, weight=True).dtype == np.float64
    assert shortest_path_lengths(E, [], weight=True).shape == (0, 0)
    one = spla.Matrix.from_edges(np.array([0]), np.array([0]), n=1, values=np.array([0.0]), device=device)
    assert betweenness_centrality(one, weight=True).tolist() == [0.0]
    assert closeness_centrality(one, distance=True).tolist() == [0.0]
    assert harmonic_centrality(one, distance=True).tolist() == [0.0]
    assert shortest_path_lengths(one, [0, 0], weight=True, counts=True)[1].tolist() == [[1.0], [1.0]]


def test_gpu_matrix_without_gpu_module_says_why(monkeypatch):
    """A GPU matrix's weighted searches import spla.backends.gpu.sssp; when it does not import, the reason
    is named (KernelUnavailable), whatever the device."""
    import importlib

    real = importlib.import_module

    def fake(name, *a, **k):
        if name == "spla.backends.gpu.sssp":
            raise ImportError("no module (test)")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", fake)
    ok, why = spla.paths.available("gpu:0", weighted=True)
    assert not ok and "spla.backends.gpu.sssp" in why and "no module (test)" in why
    assert spla.paths.available("cpu", weighted=True)[0]


# --------------------------------------------------------------------------- the real weighted graphs
WEIGHTED = GRAPHS_DIR / "weighted"


def read_dimacs(path):
    """(n, u, v, w) of a DIMACS .gr file (1-based ids made 0-based)."""
    with gzip.open(path, "rt") as f:
        text = f.read()
    n = int(re.search(r"^p sp (\d+) (\d+)", text, re.M).group(1))
    a = np.array(re.findall(r"^a (\d+) (\d+) (\d+)", text, re.M), dtype=np.int64)
    return n, a[:, 0] - 1, a[:, 1] - 1, a[:, 2].astype(np.float64)


def read_gml(path):
    """(n, u, v, w) of celegansneural.gml (node ids 0..n-1; the weight is ``value``)."""
    with gzip.open(path, "rt") as f:
        text = f.read()
    n = len(re.findall(r"^\s*node\s*$", text, re.M))
    e = np.array(re.findall(r"source (\d+)\s+target (\d+)\s+value (\d+)", text), dtype=np.int64)
    return n, e[:, 0], e[:, 1], e[:, 2].astype(np.float64)


def real_graph(name):
    """(spla.Matrix on the CPU, networkx DiGraph) of a weighted graph, parallel arcs keeping the minimum."""
    path = WEIGHTED / name
    if not path.is_file():
        pytest.skip(f"{path} is not here (set SPLA_GRAPHS_DIR)")
    n, u, v, w = read_gml(path) if name.endswith(".gml.gz") else read_dimacs(path)
    order = np.lexsort((w, v, u))  # per pair, the shortest arc first
    u, v, w = u[order], v[order], w[order]
    first = np.ones(len(u), dtype=bool)
    first[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    u, v, w = u[first], v[first], w[first]
    A = spla.Matrix.from_edges(u, v, n=n, values=w, directed=True, device="cpu")
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
    return A, G


def check_real(A, G, device, sources):
    n = A.shape[0]
    M = on(A, device)
    k = len(sources)
    assert_close(betweenness_centrality(M, weight=True, k=k, seed=3),
                 node_array(nx.betweenness_centrality(G, weight="weight", k=k, seed=3), n))
    assert_close(harmonic_centrality(M, distance=True, sources=sources),
                 node_array(nx.harmonic_centrality(G, distance="weight", sources=sources), n))
    assert_close(closeness_centrality(M, distance=True, vertices=sources),
                 [nx.closeness_centrality(G, u=s, distance="weight") for s in sources])
    dist = shortest_path_lengths(M, sources, weight=True)
    for i, s in enumerate(sources):
        want = np.full(n, np.inf)
        for t, d in nx.single_source_dijkstra_path_length(G, s).items():
            want[t] = d
        assert np.array_equal(dist[i], want)


def test_celegans_against_networkx(device):
    A, G = real_graph("celegansneural.gml.gz")
    assert A.shape == (297, 297) and A.nnz == 2345
    n = 297
    M = on(A, device)
    assert_close(betweenness_centrality(M, weight=True), node_array(nx.betweenness_centrality(G, weight="weight"), n))
    if n > 1:
        S = list(range(0, n, 2))
        assert_close(betweenness_centrality(M, weight=True, sources=S, normalized=False),
                     node_array(nx.betweenness_centrality_subset(G, S, list(G), normalized=False, weight="weight"), n))
    eb = edge_betweenness_centrality(M, weight=True)
    for (u, v), want in nx.edge_betweenness_centrality(G, weight="weight").items():
        assert eb[u, v] == pytest.approx(want, rel=RTOL, abs=1e-12)
    assert_close(closeness_centrality(M, distance=True), node_array(nx.closeness_centrality(G, distance="weight"), n))
    assert_close(harmonic_centrality(M, distance=True), node_array(nx.harmonic_centrality(G, distance="weight"), n))
    check_real(A, G, device, [0, 5, 100, 296])


def test_rome99_sampled_sources_against_networkx(device):
    A, G = real_graph("rome99.gr.gz")
    assert A.shape == (3353, 3353) and A.nnz == 8859
    check_real(A, G, device, [0, 1000, 3352])


@pytest.mark.slow
def test_rome99_all_sources_against_networkx(device):
    A, G = real_graph("rome99.gr.gz")
    n = A.shape[0]
    M = on(A, device)
    assert_close(betweenness_centrality(M, weight=True), node_array(nx.betweenness_centrality(G, weight="weight"), n))
    assert_close(closeness_centrality(M, distance=True), node_array(nx.closeness_centrality(G, distance="weight"), n))


@pytest.mark.slow
def test_usa_road_ny_sampled_sources_against_networkx(device):
    A, G = real_graph("USA-road-d.NY.gr.gz")
    assert A.shape == (264346, 264346) and A.nnz == 730100
    check_real(A, G, device, [0, 123456, 264345])


@settings(max_examples=scaled(25), deadline=None)
@given(weighted_graphs("dec"))
def test_without_numba_scipy_gives_the_same_distances(g):
    """numba missing: the weighted distances come from SciPy's Dijkstra, the same floats; the dependencies
    and σ raise KernelUnavailable naming the fix."""
    from spla.backends import cpu_loops

    n, arcs, directed = g
    A, G = build(n, arcs, directed)
    src = np.arange(n)
    want = spla.paths.shortest_paths(A, src)
    sums = {d: spla.paths.distance_sums(A, src, direction=d, weighted=True) for d in ("in", "out")}
    closeness = closeness_centrality(A, distance=True)
    harmonic = harmonic_centrality(A, distance=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cpu_loops, "load", lambda name: (None, "numba is not importable (test); pip install numba"))
        assert np.array_equal(spla.paths.shortest_paths(A, src), want)
        for d, (dist, reach, harm) in sums.items():
            got = spla.paths.distance_sums(A, src, direction=d, weighted=True)
            assert np.array_equal(got[1], reach)
            assert_close(got[0], dist)
            assert_close(got[2], harm)
        assert_close(closeness_centrality(A, distance=True), closeness)
        assert_close(harmonic_centrality(A, distance=True), harmonic)
        with pytest.raises(spla.KernelUnavailable, match="pip install numba"):
            spla.paths.dependencies(A, src, weighted=True)
        with pytest.raises(spla.KernelUnavailable, match="pip install numba"):
            spla.paths.shortest_paths(A, src, counts=True)


def test_hop_and_weighted_searches_from_two_threads():
    """The compiled BFS and Dijkstra loops share one lock: numba's workqueue layer aborts the process
    when two threads launch parallel loops at once."""
    import threading

    if not (spla.paths.available("cpu")[0] and spla.paths.available("cpu", weighted=True)[0]):
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(5)
    n = 1000
    src, dst = rng.integers(0, n, 6000), rng.integers(0, n, 6000)
    A = spla.Matrix.from_edges(src, dst, n=n, values=rng.integers(1, 9, 6000).astype(np.float64), directed=True,
                               device="cpu", dup="min")
    S = np.arange(n)   # 1,000 sources x ~6,000 arcs: past both thresholds, so the parallel loops run
    t = spla.tuning.current()
    assert len(S) * A.nnz >= max(t.paths_parallel_min_arcs, t.sssp_parallel_min_arcs)
    want = {False: spla.paths.dependencies(A, S), True: spla.paths.dependencies(A, S, weighted=True)}
    got, errors = [], []

    def run(weighted):
        try:
            for _ in range(3):
                got.append((weighted, spla.paths.dependencies(A, S, weighted=weighted)))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(w,)) for w in (False, True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(got) == 6
    for weighted, x in got:
        assert np.array_equal(x, want[weighted])
