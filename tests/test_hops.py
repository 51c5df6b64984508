"""Eccentricity and blocks of hop distances (bit-parallel BFS) against networkx's BFS."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spla import testing
from spla.algorithms import eccentricity, hop_distance_blocks

HSET = settings(max_examples=testing.scaled(40), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def graphs(max_n=14):
    return testing.graphs(0, max_n, multi_edges=None, shuffled_nodes=True)


def lengths(G, v, cutoff=None):
    return nx.single_source_shortest_path_length(G, v, cutoff=cutoff)


@given(G=graphs())
@HSET
def test_eccentricity_and_reach_of_every_vertex(G, device):
    ecc, reach = eccentricity(G, return_reach=True, device=device)
    assert ecc.dtype == np.int64 and ecc.shape == (len(G),)
    for i, v in enumerate(G):
        sp = lengths(G, v)
        assert (ecc[i], reach[i]) == (max(sp.values()), len(sp))
    if len(G) and nx.is_strongly_connected(G.to_directed()):
        want = nx.eccentricity(G)
        assert [want[v] for v in G] == ecc.tolist()


@given(G=graphs(), data=st.data())
@HSET
def test_eccentricity_of_some_vertices(G, data):
    U = data.draw(st.lists(st.sampled_from(list(G)), max_size=5) if len(G) else st.just([]), label="vertices")
    ecc, reach = eccentricity(G, vertices=U, return_reach=True, device="cpu")
    assert [(max(lengths(G, u).values()), len(lengths(G, u))) for u in U] == list(zip(ecc.tolist(), reach.tolist()))


def test_eccentricity_of_many_vertices_beyond_one_word():
    """More vertices than the per-vertex rule takes (64 · |vertices| >= n): the all-sources BFS, selected."""
    G = nx.gnp_random_graph(130, 0.03, seed=5, directed=True)
    U = [3, 7, 129, 3]
    ecc = eccentricity(G, vertices=U, device="cpu")
    assert ecc.tolist() == [max(lengths(G, u).values()) for u in U]


@given(G=graphs(), data=st.data())
@HSET
def test_distance_blocks_match_networkx(G, data, device):
    S = data.draw(st.none() | st.lists(st.sampled_from(list(G)), max_size=8) if len(G) else st.none(), label="sources")
    cutoff = data.draw(st.none() | st.integers(0, 3), label="cutoff")
    index = {v: i for i, v in enumerate(G)}
    nodes = list(G)
    seen = []
    for block, D in hop_distance_blocks(G, S, cutoff=cutoff, device=device):
        assert D.shape == (len(G), len(block)) and D.dtype == np.int32
        for j, s in enumerate(block):
            got = {nodes[t]: int(D[t, j]) for t in range(len(G)) if D[t, j] >= 0}
            assert got == lengths(G, nodes[s], cutoff)
        seen += block.tolist()
    assert seen == ([index[v] for v in S] if S is not None else list(range(len(G))))


def test_distance_blocks_of_more_than_64_sources_are_lazy():
    G = nx.cycle_graph(150)
    blocks = hop_distance_blocks(G, device="cpu")
    block, D = next(blocks)
    assert block.tolist() == list(range(64)) and D[75, 0] == 75 and D[100, 0] == 50
    assert [len(b) for b, _ in blocks] == [64, 22]


def test_options_are_checked():
    with pytest.raises(TypeError, match="return_reach"):
        eccentricity(nx.path_graph(3), return_reach="yes", device="cpu")
    with pytest.raises(TypeError, match="cutoff"):
        next(hop_distance_blocks(nx.path_graph(3), cutoff="2", device="cpu"))
    with pytest.raises(ValueError, match="not a node"):
        eccentricity(nx.path_graph(3), vertices=[7], device="cpu")
    assert eccentricity(nx.Graph(), device="cpu").shape == (0,)
    assert list(hop_distance_blocks(nx.Graph(), device="cpu")) == []
