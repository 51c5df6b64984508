"""The networkx backend's weighted shortest-path calls (``weight=``/``distance=`` naming an edge attribute).

networkx's weighted betweenness, closeness, harmonic centrality, eccentricity, diameter and radius
against the backend's, on graphs with integer lengths (exact ties), 4-decimal lengths (near-ties
decided by rounding) and zero lengths; directed and undirected; multigraphs with parallel edges of
different lengths (the shortest counts); edges without the attribute (length 1); self-loops.  Where
zero-length arcs join vertices at equal distance, networkx's betweenness depends on its visiting
order (``spla.algorithms.weighted``): there the backend is compared with the exact reference of
tests/test_weighted.py instead.  Then the dispatch: ``backend="spla"`` and ``backend_priority`` run
these calls in spla, and lengths spla's searches refuse (negative, NaN) fall back to networkx.
"""

import warnings
from importlib.metadata import entry_points

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import algorithms as alg
from spla.nx_backend import backend_interface as bi
from spla.nx_backend import graph as nx_graph
from spla.nx_backend.graph import convert_from_nx
from spla.testing import scaled

from test_weighted import reference

pytestmark = pytest.mark.skipif(not spla.paths.available("cpu", weighted=True)[0], reason="numba is not installed")
RTOL = 1e-9
HSET = settings(max_examples=scaled(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
INSTALLED = any(ep.name == "spla" for ep in entry_points(group="networkx.backends"))
needs_entry_points = pytest.mark.skipif(not INSTALLED, reason="spla is not installed as a distribution with entry "
                                        "points (pip install -e .): networkx cannot find the backend")


# --------------------------------------------------------------------------- graphs
LENGTHS = {
    "int": st.integers(1, 4),                                               # exact ties
    "dec": st.integers(1, 30000).map(lambda k: round(k / 10000, 4)),        # ties decided by rounding
    "zero": st.sampled_from([0, 0, 1, 2, 0.5]),                              # zero-length arcs and cycles
}


@st.composite
def weighted_nx_graphs(draw, lengths="int", max_n=10):
    """A networkx graph (any of the four classes) on shuffled integer nodes, with attribute "w" on most
    edges (missing on some: length 1), parallel edges of different lengths, self-loops."""
    n = draw(st.integers(0, max_n))
    directed, multi = draw(st.booleans()), draw(st.booleans())
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
           (True, True): nx.MultiDiGraph}[(directed, multi)]
    G = cls()
    G.add_nodes_from(draw(st.permutations(range(n))))
    if n == 0:
        return G
    w = st.none() | LENGTHS[lengths] if draw(st.booleans()) else LENGTHS[lengths]
    for u, v, x in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), w), max_size=3 * n)):
        G.add_edge(u, v) if x is None else G.add_edge(u, v, w=x)  # a simple graph's repeat overwrites
    return G


def convert(G):
    """The backend's graph, converted as networkx converts it for a call with weight="w" (default 1)."""
    return convert_from_nx(G, edge_attrs={"w": 1}, name="betweenness_centrality")


def close(got: dict, want: dict, rtol=RTOL, atol=1e-12):
    assert list(got) == list(want)
    np.testing.assert_allclose([got[k] for k in want], [want[k] for k in want], rtol=rtol, atol=atol)


def order_free(Gs) -> bool:
    """Whether networkx's weighted betweenness of the graph does not depend on its visiting order: no tight
    arc joins two vertices at equal distance, and no zero-length self-loop (see tests/test_weighted.py)."""
    A = Gs.matrix(("length", "w"), device="cpu")
    if any(r["equal_tight"] for r in reference(A, range(Gs.n))):
        return False
    rows, cols = np.asarray(A.rowidx), np.asarray(A.colidx)
    return not ((rows == cols) & (np.asarray(A.values) == 0)).any()


@pytest.fixture
def on_device(monkeypatch, device):
    """The backend's configured device, as ``nx.config.backends.spla.device`` sets it."""
    monkeypatch.setattr(nx_graph, "configured_device", lambda: spla.device.resolve(device))
    return device


# --------------------------------------------------------------------------- the functions against networkx
def check_betweenness(G, Gs, data):
    normalized = data.draw(st.booleans(), label="normalized")
    endpoints = data.draw(st.booleans(), label="endpoints")
    close(bi.betweenness_centrality(Gs, weight="w", normalized=normalized, endpoints=endpoints),
          nx.betweenness_centrality(G, weight="w", normalized=normalized, endpoints=endpoints))
    close(bi.edge_betweenness_centrality(Gs, weight="w", normalized=normalized),
          nx.edge_betweenness_centrality(G, weight="w", normalized=normalized))
    if len(G) > 2:
        k = len(G) // 2
        close(bi.betweenness_centrality(Gs, k=k, seed=3, weight="w"),
              nx.betweenness_centrality(G, k=k, seed=3, weight="w"))
    S = data.draw(st.lists(st.sampled_from(list(G)), unique=True) if len(G) else st.just([]), label="sources")
    S = S + S[:1]  # a source listed twice counts twice, as in networkx
    close(bi.betweenness_centrality_subset(Gs, S, list(G), normalized=normalized, weight="w"),
          nx.betweenness_centrality_subset(G, S, list(G), normalized=normalized, weight="w"))
    close(bi.edge_betweenness_centrality_subset(Gs, S, list(G), normalized=normalized, weight="w"),
          nx.edge_betweenness_centrality_subset(G, S, list(G), normalized=normalized, weight="w"))


def check_distances(G, Gs, data):
    wf = data.draw(st.booleans(), label="wf_improved")
    close(bi.closeness_centrality(Gs, distance="w", wf_improved=wf),
          nx.closeness_centrality(G, distance="w", wf_improved=wf), atol=1e-14)
    for u in list(G)[:2]:
        assert bi.closeness_centrality(Gs, u=u, distance="w", wf_improved=wf) == pytest.approx(
            nx.closeness_centrality(G, u=u, distance="w", wf_improved=wf), rel=RTOL, abs=1e-14)
    nodes = st.lists(st.sampled_from(list(G)), unique=True) if len(G) else st.just([])
    nb, src = data.draw(nodes, label="nbunch"), data.draw(nodes, label="sources")
    want = nx.harmonic_centrality(G, nbunch=nb or None, sources=src or None, distance="w")
    got = bi.harmonic_centrality(Gs, nbunch=nb or None, sources=src or None, distance="w")
    assert set(got) == set(want)
    np.testing.assert_allclose([got[v] for v in want], [want[v] for v in want], rtol=RTOL, atol=1e-14)


def check_eccentricities(G, Gs, data):
    v = data.draw(st.none() | st.sampled_from(list(G)) if len(G) else st.none(), label="v")
    for name, call in (("eccentricity", lambda f, H: f(H, v=v, weight="w")),
                       ("diameter", lambda f, H: f(H, weight="w")), ("radius", lambda f, H: f(H, weight="w"))):
        try:
            want = call(getattr(nx, name), G)
        except (nx.NetworkXError, ValueError) as exc:
            with pytest.raises(type(exc), match=__import__("re").escape(str(exc)[:30])):
                call(getattr(bi, name), Gs)
            continue
        assert call(getattr(bi, name), Gs) == want  # Dijkstra's sums, bit for bit
        if name != "eccentricity" and not G.is_directed():
            # the same exact answer; networkx's own weighted extrema bounding can loop forever on these graphs
            assert getattr(bi, name)(Gs, weight="w", usebounds=True) == want


@pytest.mark.parametrize("lengths", ["int", "dec"])
@given(data=st.data())
@HSET
def test_weighted_calls_match_networkx(on_device, lengths, data):
    G = data.draw(weighted_nx_graphs(lengths), label="G")
    Gs = convert(G)
    check_betweenness(G, Gs, data)
    check_distances(G, Gs, data)
    check_eccentricities(G, Gs, data)


@given(data=st.data())
@HSET
def test_zero_lengths(on_device, data):
    """Distances do not depend on networkx's visiting order: closeness, harmonic and eccentricities match
    networkx's; betweenness matches it where networkx's answer is order-free, the definition everywhere."""
    G = data.draw(weighted_nx_graphs("zero"), label="G")
    Gs = convert(G)
    check_distances(G, Gs, data)
    check_eccentricities(G, Gs, data)
    if order_free(Gs):
        check_betweenness(G, Gs, data)
    n = len(G)
    ref = reference(Gs.matrix(("length", "w"), device="cpu"), range(n))
    want = [float(sum(r["delta"][v] for s, r in enumerate(ref) if v != s)) / (1 if G.is_directed() else 2)
            for v in range(n)]
    got = bi.betweenness_centrality(Gs, weight="w", normalized=False)
    np.testing.assert_allclose([got[v] for v in Gs.nodes], want, rtol=RTOL, atol=1e-12)


# --------------------------------------------------------------------------- multigraphs and lengths
def test_multigraph_takes_the_shortest_parallel_edge(on_device):
    G = nx.MultiGraph()
    G.add_edge("a", "b", w=5)
    G.add_edge("a", "b", w=1)   # the a-b length
    G.add_edge("a", "b", w=1)   # of equal length: shares the edge's betweenness
    G.add_edge("b", "c")        # no attribute: length 1
    G.add_edge("a", "c", w=3)
    G.add_edge("c", "c", w=2)   # a self-loop lies on no shortest path
    Gs = convert(G)
    M = Gs.matrix(("length", "w"), device="cpu").to_scipy().toarray()
    a, b, c = (Gs.index[x] for x in "abc")
    assert (M[a, b], M[b, a], M[b, c], M[a, c], M[c, c]) == (1, 1, 1, 3, 2)
    assert Gs.matrix(("weight", "w"), device="cpu").to_scipy().toarray()[a, b] == 7  # PageRank's sum stays
    close(bi.betweenness_centrality(Gs, weight="w"), nx.betweenness_centrality(G, weight="w"))
    eb = bi.edge_betweenness_centrality(Gs, weight="w", normalized=False)
    close(eb, nx.edge_betweenness_centrality(G, weight="w", normalized=False))
    assert eb[("a", "b", 0)] == 0.0 and eb[("a", "b", 1)] == eb[("a", "b", 2)] > 0
    assert bi.eccentricity(Gs, v="a", weight="w") == nx.eccentricity(G, v="a", weight="w") == 2
    assert type(bi.diameter(Gs, weight="w")) is int


def test_integer_distances_are_ints_and_decimal_ones_floats(on_device):
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, 2, "w")
    assert bi.eccentricity(convert(G), weight="w") == {0: 6, 1: 4, 2: 4, 3: 6}
    assert all(type(x) is int for x in bi.eccentricity(convert(G), weight="w").values())
    nx.set_edge_attributes(G, 0.1, "w")
    assert bi.diameter(convert(G), weight="w") == nx.diameter(G, weight="w") == 0.30000000000000004


def test_empty_and_single_node(on_device):
    for G in (nx.Graph(), nx.MultiDiGraph()):
        Gs = convert(G)
        assert bi.betweenness_centrality(Gs, weight="w") == {} == bi.edge_betweenness_centrality(Gs, weight="w")
        assert bi.closeness_centrality(Gs, distance="w") == {} == bi.harmonic_centrality(Gs, distance="w")
        assert bi.betweenness_centrality_subset(Gs, [], [], weight="w") == {}
    G = nx.Graph()
    G.add_edge(0, 0, w=2)
    Gs = convert(G)
    assert bi.betweenness_centrality(Gs, weight="w") == {0: 0.0}
    assert bi.closeness_centrality(Gs, distance="w") == nx.closeness_centrality(G, distance="w")
    assert bi.eccentricity(Gs, weight="w") == {0: 0} and type(bi.diameter(Gs, weight="w")) is int
    G[0][0]["w"] = 0.5  # float lengths: a vertex that reaches no other has networkx's int 0 too
    assert bi.eccentricity(convert(G), weight="w") == {0: 0} == nx.eccentricity(G, weight="w")
    assert type(bi.radius(convert(G), weight="w")) is int


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_lengths_spla_refuses_go_to_networkx(bad):
    """spla's searches take non-negative finite lengths; networkx's Dijkstra runs on others (its betweenness
    raises nothing), so the backend's function raises NotImplementedError and networkx runs the call."""
    G = nx.path_graph(4)
    nx.set_edge_attributes(G, 1, "w")
    G[1][2]["w"] = bad
    Gs = convert(G)
    for call in (lambda: bi.betweenness_centrality(Gs, weight="w"), lambda: bi.closeness_centrality(Gs, distance="w"),
                 lambda: bi.harmonic_centrality(Gs, distance="w"), lambda: bi.eccentricity(Gs, weight="w"),
                 lambda: bi.edge_betweenness_centrality_subset(Gs, [0], list(G), weight="w")):
        with pytest.raises(NotImplementedError, match=r"edge attribute 'w' is .* on the edge \(1, 2\).*networkx runs"):
            call()
    # the unweighted calls on the same converted graph are unaffected
    close(bi.betweenness_centrality(Gs), nx.betweenness_centrality(G))


# --------------------------------------------------------------------------- dispatch through networkx
@pytest.fixture
def ran_in_spla(monkeypatch):
    """Records the weight flags of the spla algorithms the backend calls."""
    calls = []
    for name in ("betweenness_centrality", "edge_betweenness_centrality", "closeness_centrality",
                 "harmonic_centrality", "shortest_path_lengths"):
        real = getattr(alg, name)
        flag = "distance" if name in ("closeness_centrality", "harmonic_centrality") else "weight"

        def spy(*args, _real=real, _name=name, _flag=flag, **kwargs):
            calls.append((_name, kwargs.get(_flag)))
            return _real(*args, **kwargs)

        monkeypatch.setattr(alg, name, spy)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Note: conversions to backend graphs are saved to cache")
        yield calls


def _road_like(seed=5):
    G = nx.gnp_random_graph(40, 0.12, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["w"] = round(float(rng.uniform(0.1, 3.0)), 4)
    return G


@needs_entry_points
def test_backend_keyword_runs_the_weighted_calls_in_spla(ran_in_spla):
    G = _road_like()
    close(nx.betweenness_centrality(G, weight="w", backend="spla"), nx.betweenness_centrality(G, weight="w"))
    close(nx.edge_betweenness_centrality(G, weight="w", backend="spla"), nx.edge_betweenness_centrality(G, weight="w"))
    close(nx.closeness_centrality(G, distance="w", backend="spla"), nx.closeness_centrality(G, distance="w"))
    close(nx.harmonic_centrality(G, distance="w", backend="spla"), nx.harmonic_centrality(G, distance="w"))
    H = G.subgraph(max(nx.connected_components(G), key=len)).copy()
    assert nx.diameter(H, weight="w", backend="spla") == nx.diameter(H, weight="w")
    assert ran_in_spla == [("betweenness_centrality", True), ("edge_betweenness_centrality", True),
                           ("closeness_centrality", True), ("harmonic_centrality", True),
                           ("shortest_path_lengths", True)]


@needs_entry_points
def test_refused_lengths_fall_back_under_priority_and_say_why_by_keyword(ran_in_spla):
    G = _road_like()
    u, v = next(iter(G.edges))
    G[u][v]["w"] = -1.0
    with nx.config.backend_priority(algos=["spla"]), spla.tuning.override(networkx_min_edges=1):
        close(nx.betweenness_centrality(G, weight="w"), nx.betweenness_centrality(G, weight="w", backend="networkx"))
    assert ran_in_spla == []
    with pytest.raises(NotImplementedError, match="backend='spla'") as exc:
        nx.betweenness_centrality(G, weight="w", backend="spla")
    assert "non-negative finite lengths" in str(exc.value.__cause__)


@needs_entry_points
def test_priority_runs_weighted_calls_in_spla(ran_in_spla):
    G = _road_like(7)
    with nx.config.backend_priority(algos=["spla"]), spla.tuning.override(networkx_min_edges=1):
        got = nx.betweenness_centrality(G, weight="w")
        sub = nx.betweenness_centrality_subset(G, [0, 1], [2, 3], weight="w")  # a proper subset: networkx
    close(got, nx.betweenness_centrality(G, weight="w", backend="networkx"))
    close(sub, nx.betweenness_centrality_subset(G, [0, 1], [2, 3], weight="w", backend="networkx"))
    assert ran_in_spla == [("betweenness_centrality", True)]
