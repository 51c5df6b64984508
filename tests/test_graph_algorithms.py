"""The graph algorithms composed from the matrix primitives (triangles, core numbers, connected
components, Jaccard of adjacent pairs, k-truss) against networkx, on hypothesis graphs and small
real graphs."""

import networkx as nx
import pytest
from hypothesis import given, settings

import spla
from spla import algorithms as alg
from spla.testing import graphs, scaled

REAL = [nx.karate_club_graph(), nx.florentine_families_graph(), nx.les_miserables_graph(),
        nx.davis_southern_women_graph()]


def _plain(G):
    """G as a simple undirected graph on 0..n-1 without self-loops (what networkx's core, truss and
    triangle functions accept)."""
    H = nx.convert_node_labels_to_integers(nx.Graph(G))
    H.remove_edges_from(list(nx.selfloop_edges(H)))
    return H


def _cases():
    return graphs(max_nodes=14, directed=False, self_loops=True)


def _check_all(G, device):
    H = _plain(G)
    n = len(G)
    A = spla.Matrix.from_networkx(nx.convert_node_labels_to_integers(G), device=device)
    tri = nx.triangles(H)
    assert alg.triangles(A).tolist() == [tri[v] for v in range(n)]
    assert alg.triangle_count(A) == sum(tri.values()) // 3
    core = nx.core_number(H)
    assert alg.core_number(A).tolist() == [core[v] for v in range(n)]
    labels = alg.connected_components(A)
    want = sorted(sorted(c) for c in nx.connected_components(H))
    got = {}
    for v, lab in enumerate(labels.tolist()):
        got.setdefault(lab, []).append(v)
    assert sorted(got.values()) == want
    assert all(lab == min(c) for lab, c in got.items())
    Gi = nx.convert_node_labels_to_integers(nx.Graph(G))
    J = alg.jaccard_edges(A).todok()
    for u, v, p in nx.jaccard_coefficient(Gi, list(Gi.edges())):
        assert J[u, v] == pytest.approx(p) and J[v, u] == pytest.approx(p)
    assert J.nnz == A.nnz
    for k in (2, 3, 4, 5):
        T = alg.k_truss(A, k)
        S = T.to_scipy().tocoo()
        got_edges = {tuple(sorted(e)) for e in zip(S.row.tolist(), S.col.tolist())}
        want_edges = {tuple(sorted(e)) for e in nx.k_truss(H, k).edges()}
        assert got_edges == want_edges, k


@settings(max_examples=scaled(40), deadline=None)
@given(G=_cases())
def test_graph_algorithms_match_networkx(G, device):
    _check_all(G, device)


@pytest.mark.parametrize("G", REAL, ids=["karate", "florentine", "les_miserables", "davis"])
def test_graph_algorithms_match_networkx_on_real_graphs(G, device):
    _check_all(G, device)


def test_graph_algorithms_refuse_directed_graphs():
    D = nx.DiGraph([(0, 1), (1, 2)])
    for fn in (alg.triangle_count, alg.triangles, alg.core_number, alg.connected_components, alg.jaccard_edges):
        with pytest.raises(spla.InvalidGraph, match="undirected"):
            fn(D)
    with pytest.raises(spla.InvalidGraph, match="undirected"):
        alg.k_truss(D, 3)


def test_empty_and_single_vertex_graphs():
    for n in (0, 1):
        G = nx.empty_graph(n)
        assert alg.triangle_count(G) == 0
        assert alg.core_number(G).tolist() == [0] * n
        assert alg.connected_components(G).tolist() == list(range(n))
        assert alg.k_truss(G, 3).nnz == 0
