"""Measures restricted to subsets of vertices: betweenness from sources to targets (vertex and edge),
harmonic centrality from given sources, closeness of given vertices, BFS from several sources with a
cutoff, and in/out degree centrality; against networkx and brute-force path counts."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
from spla.algorithms import (betweenness_centrality, bfs_levels, closeness_centrality, degree_centrality,
                             edge_betweenness_centrality, harmonic_centrality)

RTOL = 1e-9
HSET = settings(max_examples=testing.scaled(40), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def graphs(max_n=12, multigraph=True):
    """networkx graphs: directed or not, multi or not, self-loops, isolated vertices, random node order."""
    return testing.graphs(0, max_n, multi_edges=None if multigraph else False, shuffled_nodes=True)


def arr(d, G):
    return np.array([d[v] for v in G], dtype=np.float64)


def subsets(G, data, label):
    return data.draw(st.lists(st.sampled_from(list(G)), unique=True, max_size=len(G)) if len(G) else st.just([]),
                     label=label)


def brute_edge_subset(G, S, T):
    """Σ_{s ∈ S, t ∈ T, s ≠ t} σ(s, t | e) / σ(s, t) over every shortest path, by enumeration; an undirected
    edge keyed as G.edges() gives it, halved as networkx halves undirected (unnormalized) betweenness."""
    b = dict.fromkeys(G.edges(), 0.0)
    for s in S:
        for t in set(T):
            if s == t or not nx.has_path(G, s, t):
                continue
            paths = list(nx.all_shortest_paths(G, s, t))
            for p in paths:
                for u, v in zip(p, p[1:]):
                    b[(u, v) if (u, v) in b else (v, u)] += 1 / len(paths)
    scale = 1.0 if G.is_directed() else 0.5
    return {e: x * scale for e, x in b.items()}


# ----------------------------------------------------------------------------- betweenness
@given(G=graphs(multigraph=False), data=st.data())
@HSET
def test_vertex_subset_matches_networkx(G, data, device):
    S, T = subsets(G, data, "sources"), subsets(G, data, "targets")
    normalized = data.draw(st.booleans(), label="normalized")
    batch = data.draw(st.sampled_from(["auto", 1, 2]), label="batch_size")
    ref = arr(nx.betweenness_centrality_subset(G, S, T, normalized=normalized), G)
    got = betweenness_centrality(G, sources=S, targets=T, normalized=normalized, batch_size=batch, device=device)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)


@given(G=graphs(multigraph=False), data=st.data())
@HSET
def test_targets_alone_take_every_source(G, data):
    T = subsets(G, data, "targets")
    ref = arr(nx.betweenness_centrality_subset(G, list(G), T, normalized=True), G)
    np.testing.assert_allclose(betweenness_centrality(G, targets=T, device="cpu"), ref, rtol=RTOL, atol=1e-12)


@given(G=graphs(max_n=9, multigraph=False), data=st.data())
@settings(max_examples=testing.scaled(30), deadline=None)
def test_edge_subset_is_the_path_count_definition(G, data):
    S, T = subsets(G, data, "sources"), subsets(G, data, "targets")
    E = edge_betweenness_centrality(G, sources=S, targets=T, normalized=False, device="cpu").tocsr()
    index = {v: i for i, v in enumerate(G)}
    for (u, v), want in brute_edge_subset(G, S, T).items():
        assert E[index[u], index[v]] == pytest.approx(want, rel=RTOL, abs=1e-12)


@given(G=graphs(multigraph=False), data=st.data())
@HSET
def test_edge_subset_to_every_target_matches_networkx(G, data):
    """With every vertex a target, networkx's edge_betweenness_centrality_subset is the same definition."""
    S = subsets(G, data, "sources")
    normalized = data.draw(st.booleans(), label="normalized")
    ref = nx.edge_betweenness_centrality_subset(G, S, list(G), normalized=normalized)
    E = edge_betweenness_centrality(G, sources=S, targets=list(G), normalized=normalized, device="cpu").tocsr()
    index = {v: i for i, v in enumerate(G)}
    for (u, v), want in ref.items():
        assert E[index[u], index[v]] == pytest.approx(want, rel=RTOL, abs=1e-12)


def test_edge_subset_splits_by_path_counts():
    """Three shortest s-t paths, two through c: each carries 1/3 (networkx's edge subset, whose
    non-targets split their dependency evenly among their parents, gives s -> d 1/2)."""
    G = nx.DiGraph([("s", "a"), ("s", "b"), ("a", "c"), ("b", "c"), ("s", "d"), ("d", "e"), ("c", "w"),
                    ("e", "w"), ("w", "t")])
    E = edge_betweenness_centrality(G, sources=["s"], targets=["t"], normalized=False, device="cpu").tocsr()
    i = {v: k for k, v in enumerate(G)}
    assert E[i["s"], i["d"]] == pytest.approx(1 / 3) and E[i["c"], i["w"]] == pytest.approx(2 / 3)
    assert E[i["w"], i["t"]] == pytest.approx(1.0)


def test_target_options_are_checked_at_the_door():
    G = nx.path_graph(4)
    with pytest.raises(ValueError, match="endpoints=True cannot be combined"):
        betweenness_centrality(G, targets=[1], endpoints=True, device="cpu")
    with pytest.raises(ValueError, match="targets= runs on dense frontiers"):
        betweenness_centrality(G, targets=[1], frontier="sparse", device="cpu")
    with pytest.raises(ValueError, match="either k"):
        betweenness_centrality(G, targets=[1], k=2, device="cpu")
    with pytest.raises(ValueError, match="not a node"):
        betweenness_centrality(G, targets=[9], device="cpu")
    S = nx.to_scipy_sparse_array(G)
    with pytest.raises(ValueError, match="outside 0..3"):
        edge_betweenness_centrality(S, targets=[4], device="cpu")
    with pytest.raises(TypeError, match="vertex indices"):
        betweenness_centrality(S, targets=[0.5], device="cpu")


def test_repeated_targets_count_once():
    G = nx.path_graph(5)
    once = betweenness_centrality(G, sources=[0], targets=[4], normalized=False, device="cpu")
    twice = betweenness_centrality(G, sources=[0], targets=[4, 4], normalized=False, device="cpu")
    np.testing.assert_array_equal(once, twice)
    np.testing.assert_allclose(once, [0, 0.5, 0.5, 0.5, 0])


# ----------------------------------------------------------------------------- distances
@given(G=graphs(), data=st.data())
@HSET
def test_harmonic_from_sources_matches_networkx(G, data, device):
    S = subsets(G, data, "sources")
    ref = arr(nx.harmonic_centrality(G, sources=S), G)
    np.testing.assert_allclose(harmonic_centrality(G, sources=S, device=device), ref, rtol=RTOL, atol=1e-14)


def test_harmonic_from_sources_beyond_one_word():
    """More than 64 scattered sources: several bit words, and blocks whose sources are not a range."""
    G = nx.gnp_random_graph(300, 0.02, seed=3, directed=True)
    S = list(range(0, 300, 3))
    ref = arr(nx.harmonic_centrality(G, sources=S), G)
    np.testing.assert_allclose(harmonic_centrality(G, sources=S + S[:5], device="cpu"), ref, rtol=RTOL)


@given(G=graphs(), data=st.data())
@HSET
def test_closeness_of_some_vertices_matches_networkx(G, data, device):
    U = subsets(G, data, "vertices")
    wf = data.draw(st.booleans(), label="wf_improved")
    want = [nx.closeness_centrality(G, u=u, wf_improved=wf) for u in U]
    np.testing.assert_allclose(closeness_centrality(G, vertices=U, wf_improved=wf, device=device), want,
                               rtol=RTOL, atol=1e-14)


@given(G=graphs(), data=st.data())
@HSET
def test_bfs_from_several_sources_with_cutoff(G, data, device):
    S = subsets(G, data, "sources")
    cutoff = data.draw(st.none() | st.integers(0, 4), label="cutoff")
    want = np.full(len(G), -1)
    index = {v: i for i, v in enumerate(G)}
    for d, layer in enumerate(nx.bfs_layers(G, S) if S else []):
        if cutoff is None or d <= cutoff:
            want[[index[v] for v in layer]] = d
    np.testing.assert_array_equal(bfs_levels(G, sources=S, cutoff=cutoff, device=device), want)


def test_bfs_source_or_sources():
    G = nx.path_graph(4)
    with pytest.raises(TypeError, match="not both"):
        bfs_levels(G, 0, sources=[1], device="cpu")
    with pytest.raises(TypeError, match="cutoff"):
        bfs_levels(G, 0, cutoff=1.5, device="cpu")
    np.testing.assert_array_equal(bfs_levels(G, 0, cutoff=1, device="cpu"), [0, 1, -1, -1])


# ----------------------------------------------------------------------------- degrees
@given(G=testing.graphs(0, 12, directed=True, multi_edges=None, shuffled_nodes=True))
@HSET
def test_in_and_out_degree_centrality_match_networkx(G, device):
    for direction, ref in (("in", nx.in_degree_centrality), ("out", nx.out_degree_centrality)):
        np.testing.assert_allclose(degree_centrality(G, direction=direction, device=device), arr(ref(G), G),
                                   rtol=RTOL)


@given(G=testing.graphs(1, 12, multi_edges=True))
@HSET
def test_multiplicity_matrix_counts_parallel_edges(G, device):
    """A matrix whose values count each arc's parallel edges gives a multigraph's networkx degrees."""
    C = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None, dtype=np.int64)
    M = spla.Matrix.from_scipy(C, directed=G.is_directed(), device=device)
    directions = ("both", "in", "out") if G.is_directed() else ("both",)
    refs = {"both": nx.degree_centrality, "in": nx.in_degree_centrality, "out": nx.out_degree_centrality}
    for direction in directions:
        got = degree_centrality(M, direction=direction, multiplicity=True, device=device)
        np.testing.assert_allclose(got, arr(refs[direction](G), G), rtol=RTOL)


def test_degree_direction_checks():
    with pytest.raises(ValueError, match="needs a directed graph"):
        degree_centrality(nx.path_graph(3), direction="in", device="cpu")
    with pytest.raises(ValueError, match="direction must be"):
        degree_centrality(nx.path_graph(3), direction="up", device="cpu")
    with pytest.raises(TypeError, match="reads a spla.Matrix"):
        degree_centrality(nx.path_graph(3), multiplicity=True, device="cpu")
