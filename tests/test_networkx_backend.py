"""The networkx backend (spla.nx_backend): its info, conversions, functions and dispatch rules.

The functions are checked against networkx on random graphs by calling the backend directly on a
converted graph; the dispatch tests (``backend="spla"``, the conversion cache, the device setting,
``should_run`` under ``backend_priority``) need networkx to find the backend through its entry
points, i.e. spla installed as a distribution (``pip install -e .``), and skip without them.
networkx's own test suite runs against the backend in tests/test_networkx_suite.py.
"""

import inspect
import subprocess
import sys
import warnings
from importlib.metadata import entry_points
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import _spla_nx
import spla
from spla import testing
from spla.nx_backend import SplaGraph, backend_interface as bi, rules
from spla.nx_backend.graph import convert_from_nx, convert_to_nx

REPO = Path(__file__).resolve().parents[1]
RTOL = 1e-9
HSET = settings(max_examples=testing.scaled(25), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
INSTALLED = any(ep.name == "spla" for ep in entry_points(group="networkx.backends"))
needs_entry_points = pytest.mark.skipif(not INSTALLED, reason="spla is not installed as a distribution with entry "
                                        "points (pip install -e .): networkx cannot find the backend")


def graphs(max_n=12, **kw):
    kw.setdefault("multi_edges", None)
    return testing.graphs(0, max_n, shuffled_nodes=True, **kw)


def close(got: dict, want: dict, rtol=RTOL, atol=1e-12):
    assert list(got) == list(want)
    np.testing.assert_allclose([got[k] for k in want], [want[k] for k in want], rtol=rtol, atol=atol)


def subset(G, data, label):
    return data.draw(st.lists(st.sampled_from(list(G)), unique=True) if len(G) else st.just([]), label=label)


# ----------------------------------------------------------------------------- info and registration
def test_info_lists_the_implemented_functions():
    info = _spla_nx.get_info()
    assert set(info["functions"]) == set(rules.FUNCTIONS) == set(_spla_nx.FUNCTIONS)
    assert info["backend_name"] == "spla" and info["default_config"].device == "auto"
    for name in rules.FUNCTIONS:
        assert getattr(bi, name) is rules.FUNCTIONS[name]


@pytest.mark.parametrize("name", sorted(rules.FUNCTIONS))
def test_signatures_are_networkx_s(name):
    """Same parameter names, kinds and defaults as networkx's function (networkx passes them bound)."""
    want = [p for p in inspect.signature(getattr(nx, name)).parameters.values()
            if p.name not in ("backend", "backend_kwargs")]
    got = list(inspect.signature(rules.FUNCTIONS[name]).parameters.values())
    assert [(p.name, p.kind, p.default) for p in got] == [(p.name, p.kind, p.default) for p in want]


def test_config_takes_devices_only():
    cfg = _spla_nx.get_info()["default_config"]
    cfg.device = "cpu"
    cfg.device = "gpu:1"
    with pytest.raises(ValueError, match="must be 'auto', 'cpu', 'gpu' or 'gpu:N'"):
        cfg.device = "tpu"


def test_importing_networkx_does_not_import_spla():
    """networkx reads the backend's info at its own import: that must not import spla (or CuPy)."""
    code = "import sys, networkx, _spla_nx; print(any(m == 'spla' or m.startswith('spla.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_info_module_first_then_networkx():
    """Importing the info module before networkx must not break networkx's reading of it."""
    code = ("import warnings; warnings.simplefilter('error'); import _spla_nx, networkx as nx; "
            "print(type(nx.utils.backends.backend_info.get('spla', {}).get('default_config')).__name__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("SplaConfig" if INSTALLED else "NoneType")


# ----------------------------------------------------------------------------- conversion
@given(G=graphs(weighted=True))
@HSET
def test_conversion_round_trip(G):
    Gs = convert_from_nx(G, edge_attrs={"weight": 1}, preserve_graph_attrs=True)
    assert isinstance(Gs, SplaGraph) and Gs.__networkx_backend__ == "spla"
    H = convert_to_nx(Gs)
    assert type(H) is type(G) and list(H) == list(G) and list(H.edges) == list(G.edges)
    assert dict(H.edges.items()) == {e: {"weight": d["weight"]} for e, d in G.edges.items()}
    if len(G) == 0:
        return
    want = nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight").toarray()
    np.testing.assert_array_equal(Gs.matrix(("weight", "weight"), device="cpu").to_scipy().toarray(), want)
    pattern = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None).toarray() != 0
    np.testing.assert_array_equal(Gs.matrix(device="cpu").to_scipy().toarray() != 0, pattern)


def test_conversion_keeps_what_is_asked():
    G = nx.MultiDiGraph([(0, 1), (0, 1), (1, 2)], name="g")
    G.add_edge(0, 1, w=2.5)
    Gs = convert_from_nx(G, edge_attrs={"w": 1.0}, preserve_graph_attrs=True)
    assert Gs.graph == {"name": "g"} and Gs.keys == [[0, 1, 2], [0]] and Gs.mult.tolist() == [3, 1]
    assert Gs.weights["w"].tolist() == [4.5, 1.0]
    assert convert_to_nx(Gs).edges[0, 1, 2] == {"w": 2.5}
    assert convert_to_nx({"a": 1}) == {"a": 1}
    with pytest.raises(NotImplementedError, match="named numeric edge attributes"):
        convert_from_nx(G, preserve_edge_attrs=True)
    with pytest.raises(TypeError, match="not real numbers"):
        convert_from_nx(nx.Graph([(0, 1, {"w": "x"})]), edge_attrs={"w": 1})
    with pytest.raises(NotImplementedError, match="without its edge attribute"):
        Gs.matrix(("weight", "cost"))


def test_matrices_follow_the_requested_device():
    Gs = convert_from_nx(nx.path_graph(4))
    assert Gs.matrix(device="cpu").device == "cpu"
    assert Gs.matrix(device="cpu") is Gs.matrix(device="cpu")


# ----------------------------------------------------------------------------- functions against networkx
@given(G=graphs(), data=st.data())
@HSET
def test_betweenness_functions(G, data):
    Gs = convert_from_nx(G)
    normalized = data.draw(st.booleans(), label="normalized")
    endpoints = data.draw(st.booleans(), label="endpoints")
    close(bi.betweenness_centrality(Gs, normalized=normalized, endpoints=endpoints),
          nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints))
    close(bi.edge_betweenness_centrality(Gs, normalized=normalized), nx.edge_betweenness_centrality(G, normalized=normalized))
    S, T = subset(G, data, "sources"), subset(G, data, "targets")
    S = S + S[:1]  # a source listed twice counts twice, as in networkx
    close(bi.betweenness_centrality_subset(Gs, S, T, normalized=normalized),
          nx.betweenness_centrality_subset(G, S, T, normalized=normalized))
    close(bi.edge_betweenness_centrality_subset(Gs, S, list(G), normalized=normalized),
          nx.edge_betweenness_centrality_subset(G, S, list(G), normalized=normalized))


def test_sampled_betweenness_draws_networkx_s_sources():
    G = nx.gnp_random_graph(40, 0.1, seed=2)
    Gs = convert_from_nx(G)
    close(bi.betweenness_centrality(Gs, k=7, seed=__import__("random").Random(5)),
          nx.betweenness_centrality(G, k=7, seed=5))
    with pytest.raises(ValueError, match="larger"):
        bi.betweenness_centrality(Gs, k=41)
    with pytest.raises(ZeroDivisionError):
        bi.betweenness_centrality(Gs, k=0)
    with pytest.raises(KeyError, match="not a node"):
        bi.betweenness_centrality_subset(Gs, [99], [1])


@given(G=graphs(), data=st.data())
@HSET
def test_distance_functions(G, data):
    Gs = convert_from_nx(G)
    wf = data.draw(st.booleans(), label="wf_improved")
    close(bi.closeness_centrality(Gs, wf_improved=wf), nx.closeness_centrality(G, wf_improved=wf), atol=1e-14)
    for u in list(G)[:2]:
        assert bi.closeness_centrality(Gs, u=u, wf_improved=wf) == pytest.approx(
            nx.closeness_centrality(G, u=u, wf_improved=wf), rel=RTOL, abs=1e-14)
    nb, src = subset(G, data, "nbunch"), subset(G, data, "sources")
    want = nx.harmonic_centrality(G, nbunch=nb or None, sources=src)
    got = bi.harmonic_centrality(Gs, nbunch=nb or None, sources=src)
    assert set(got) == set(want)
    np.testing.assert_allclose([got[v] for v in want], [want[v] for v in want], rtol=RTOL, atol=1e-14)


def test_distance_function_errors():
    Gs = convert_from_nx(nx.path_graph(3))
    with pytest.raises(nx.NodeNotFound):
        bi.closeness_centrality(Gs, u=7)
    with pytest.raises(nx.NetworkXError, match="not a node or a sequence"):
        bi.harmonic_centrality(Gs, nbunch=5.5)
    assert bi.harmonic_centrality(Gs, nbunch=[0, 9]) == {0: 1.5}


@given(G=graphs(weighted=True), data=st.data())
@HSET
def test_pagerank(G, data):
    if len(G) == 0:
        assert bi.pagerank(convert_from_nx(G, edge_attrs={"weight": 1})) == {}
        return
    weight = data.draw(st.sampled_from(["weight", None]), label="weight")
    kw = {}
    for name in ("personalization", "nstart", "dangling"):
        if data.draw(st.booleans(), label=name):
            kw[name] = {v: 1 + i % 3 for i, v in enumerate(G)}
    Gs = convert_from_nx(G, edge_attrs={"weight": 1} if weight else None)
    try:
        want = nx.pagerank(G, weight=weight, **kw)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(nx.PowerIterationFailedConvergence):
            bi.pagerank(Gs, weight=weight, **kw)
        return
    close(bi.pagerank(Gs, weight=weight, **kw), want, rtol=1e-9, atol=1e-12)  # the same iterates


def test_pagerank_convergence_error_is_networkx_s():
    Gs = convert_from_nx(nx.cycle_graph(5), edge_attrs={"weight": 1})
    with pytest.raises(nx.PowerIterationFailedConvergence):
        bi.pagerank(Gs, max_iter=0)


@given(G=graphs())
@HSET
def test_degree_functions(G):
    Gs = convert_from_nx(G)
    close(bi.degree_centrality(Gs), nx.degree_centrality(G))
    if G.is_directed():
        close(bi.in_degree_centrality(Gs), nx.in_degree_centrality(G))
        close(bi.out_degree_centrality(Gs), nx.out_degree_centrality(G))


@given(G=graphs(), data=st.data())
@HSET
def test_bfs_functions_keep_networkx_s_order(G, data):
    Gs = convert_from_nx(G)
    cutoff = data.draw(st.none() | st.integers(0, 3) | st.just(1.5), label="cutoff")
    if len(G):
        S = data.draw(st.lists(st.sampled_from(list(G)), min_size=1), label="sources")
        assert list(bi.bfs_layers(Gs, S)) == list(nx.bfs_layers(G, S))
        s = S[0]
        got = bi.single_source_shortest_path_length(Gs, s, cutoff=cutoff)
        want = nx.single_source_shortest_path_length(G, s, cutoff=cutoff)
        assert list(got.items()) == list(want.items())
    got = bi.all_pairs_shortest_path_length(Gs, cutoff=cutoff)
    assert not isinstance(got, dict) and iter(got) is got  # a generator, as networkx's
    assert dict(got) == dict(nx.all_pairs_shortest_path_length(G, cutoff=cutoff))


def test_bfs_errors_are_networkx_s():
    Gs = convert_from_nx(nx.path_graph(3))
    with pytest.raises(nx.NetworkXError, match="The node 7 is not in the graph"):
        list(bi.bfs_layers(Gs, [0, 7]))
    with pytest.raises(nx.NodeNotFound, match="Source 7 is not in G"):
        bi.single_source_shortest_path_length(Gs, 7)
    assert list(bi.bfs_layers(Gs, 1)) == [[1], [0, 2]]


@given(G=graphs(), data=st.data())
@HSET
def test_eccentricity_diameter_radius(G, data):
    Gs = convert_from_nx(G)
    usebounds = data.draw(st.booleans(), label="usebounds")
    v = data.draw(st.none() | st.sampled_from(list(G)) if len(G) else st.none(), label="v")
    for name, call in (("eccentricity", lambda f, H: f(H, v=v)), ("diameter", lambda f, H: f(H, usebounds=usebounds)),
                       ("radius", lambda f, H: f(H, usebounds=usebounds))):
        try:
            want = call(getattr(nx, name), G)
        except (nx.NetworkXError, ValueError) as exc:
            with pytest.raises(type(exc), match=__import__("re").escape(str(exc)[:30])):
                call(getattr(bi, name), Gs)
            continue
        assert call(getattr(bi, name), Gs) == want


def test_on_start_tests_marks_the_listed_failures_xfail(monkeypatch):
    class Item:
        def __init__(self, nodeid):
            self.nodeid, self.markers = nodeid, []

        def add_marker(self, marker):
            self.markers.append(marker)

    monkeypatch.setitem(_spla_nx.EXPECTED_TEST_FAILURES, "test_bfs.py::TestBFS::test_x", "a reason")
    items = [Item("tests/test_bfs.py::TestBFS::test_x[1]"), Item("tests/test_bfs.py::TestBFS::test_y")]
    bi.on_start_tests(items)
    assert [m.kwargs.get("reason") for m in items[0].markers] == ["a reason"] and items[1].markers == []


# ----------------------------------------------------------------------------- can_run and should_run
@pytest.mark.parametrize("name, args, kwargs, reason", [
    ("betweenness_centrality", (nx.path_graph(3),), {"weight": lambda u, v, d: 1}, "by its name"),
    ("closeness_centrality", (nx.path_graph(3),), {"distance": lambda u, v, d: 1}, "by its name"),
    ("harmonic_centrality", (nx.path_graph(3), None, lambda u, v, d: 1), {}, "by its name"),
    ("eccentricity", (nx.path_graph(3),), {"weight": lambda u, v, d: 1}, "by its name"),
    ("betweenness_centrality_subset", (nx.path_graph(3), [0], [2]), {"weight": "w"}, "proper subset"),
    ("eccentricity", (nx.path_graph(3),), {"sp": {}}, "sp="),
    ("diameter", (nx.path_graph(3),), {"e": {0: 1}}, "e="),
    ("pagerank", (nx.path_graph(3),), {"weight": lambda u, v, d: 1}, "by its name"),
    ("edge_betweenness_centrality_subset", (nx.path_graph(3), [0], [2]), {}, "proper subset"),
    ("betweenness_centrality_subset", (nx.path_graph(3), [0], iter([2])), {}, "iterator"),
    ("single_source_shortest_path_length", (nx.path_graph(3), 0), {"cutoff": "2"}, "not a number"),
    ("betweenness_centrality", (nx.path_graph(3),), {"spam": 1}, "signature"),
])
def test_can_run_says_why_not(name, args, kwargs, reason):
    got = rules.can_run(name, args, kwargs)
    assert isinstance(got, str) and reason in got


def test_can_run_takes_the_rest():
    G = nx.path_graph(3)
    assert rules.can_run("betweenness_centrality", (G,), {"k": 2}) is True
    assert rules.can_run("edge_betweenness_centrality_subset", (G, [0], [0, 1, 2]), {}) is True
    assert rules.can_run("pagerank", (G,), {"weight": None}) is True
    assert rules.can_run("betweenness_centrality", (G,), {"weight": "w"}) is True
    assert rules.can_run("betweenness_centrality_subset", (G, [0], [0, 1, 2]), {"weight": "w"}) is True
    assert rules.can_run("closeness_centrality", (G,), {"distance": "w"}) is True
    assert rules.can_run("harmonic_centrality", (G, None, "w"), {}) is True
    assert rules.can_run("diameter", (G,), {"weight": "w"}) is True
    assert rules.can_run("single_source_shortest_path_length", (G, 0), {"cutoff": 2.5}) is True
    assert "does not implement" in rules.can_run("load_centrality", (G,), {})


def test_should_run_declines_small_graphs_and_linear_functions():
    G = nx.gnp_random_graph(30, 0.2, seed=1)
    with spla.tuning.override(networkx_min_edges=G.number_of_edges() + 1):
        assert "networkx_min_edges" in rules.should_run("betweenness_centrality", (G,), {})
    with spla.tuning.override(networkx_min_edges=1):
        assert rules.should_run("betweenness_centrality", (G,), {}) is True
        assert "one pass" in rules.should_run("degree_centrality", (G,), {})
        G.__networkx_cache__.setdefault("backends", {})["spla"] = {(False, False): convert_from_nx(G)}
        assert rules.should_run("degree_centrality", (G,), {}) is True


# ----------------------------------------------------------------------------- dispatch through networkx
@pytest.fixture
def conversions(monkeypatch):
    """Counts the backend's conversions from networkx."""
    calls = []
    real = bi.convert_from_nx

    def counted(*args, **kwargs):
        calls.append(kwargs.get("name"))
        return real(*args, **kwargs)

    monkeypatch.setattr(type(bi), "convert_from_nx", staticmethod(counted))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Note: conversions to backend graphs are saved to cache")
        yield calls


@needs_entry_points
def test_backend_keyword_runs_spla_and_matches(conversions):
    G = nx.karate_club_graph()
    close(nx.betweenness_centrality(G, backend="spla"), nx.betweenness_centrality(G))
    close(nx.pagerank(G, backend="spla"), nx.pagerank(G), rtol=1e-6)
    assert nx.diameter(G, backend="spla") == 5
    assert len(conversions) >= 1
    close(nx.betweenness_centrality(G, weight="weight", backend="spla"), nx.betweenness_centrality(G, weight="weight"))
    with pytest.raises(NotImplementedError, match="not implemented by 'spla' backend for the given arguments"):
        nx.betweenness_centrality(G, weight=lambda u, v, d: 1, backend="spla")


@needs_entry_points
def test_second_call_uses_the_cached_conversion_until_the_graph_changes(conversions):
    G = nx.path_graph(6)
    first = nx.betweenness_centrality(G, backend="spla")
    nx.closeness_centrality(G, backend="spla")
    assert len(conversions) == 1
    assert isinstance(next(iter(G.__networkx_cache__["backends"]["spla"].values())), SplaGraph)
    G.add_edge(0, 5)  # networkx clears the cache: the next call converts the changed graph
    again = nx.betweenness_centrality(G, backend="spla")
    assert len(conversions) == 2
    close(again, nx.betweenness_centrality(G))
    assert again != first


@needs_entry_points
def test_configured_device_holds_the_matrix(conversions, device):
    G = nx.gnp_random_graph(25, 0.2, seed=3, directed=True)
    with nx.config.backends.spla(device=device):
        close(nx.closeness_centrality(G, backend="spla"), nx.closeness_centrality(G))
        Gs = next(iter(G.__networkx_cache__["backends"]["spla"].values()))
        assert Gs.matrix().device == spla.device.resolve(device)


@needs_entry_points
def test_priority_dispatch_follows_can_run_and_should_run(conversions):
    G = nx.gnp_random_graph(30, 0.2, seed=4)
    with nx.config.backend_priority(algos=["spla"]):
        with spla.tuning.override(networkx_min_edges=10**9):
            close(nx.betweenness_centrality(G), nx.betweenness_centrality(G, backend="networkx"))
            assert conversions == []  # should_run declined: networkx ran it
        with spla.tuning.override(networkx_min_edges=1):
            nx.betweenness_centrality(G)
            assert conversions == ["betweenness_centrality"]
            for u, v in G.edges:
                G[u][v]["w"] = 1 + (u + v) % 3
            G.__networkx_cache__.clear()
            weighted = nx.betweenness_centrality(G, weight=lambda u, v, d: d["w"])  # can_run says no: networkx
            close(weighted, nx.betweenness_centrality(G, weight="w", backend="networkx"))
            assert conversions == ["betweenness_centrality"]


# ----------------------------------------------------------------------------- the benchmark section
@needs_entry_points
def test_benchmark_section_runs_tiny_on_cpu(tmp_path):
    """The ``networkx`` benchmark section on the tiny graphs: every measurement checked, nx-cugraph
    skipped with its reason where it is not installed, the table written."""
    import json
    import os

    out = tmp_path / "out"
    env = dict(os.environ, SPLA_BENCH_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "benchmarks", "--tiny", "--device", "cpu", "--only", "networkx",
                        "--out", str(out), "--budget-s", "60"], cwd=REPO, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    (path,) = out.glob("*/*.json")
    data = json.loads(path.read_text())
    assert data["sections"]["networkx"]["status"] == "ok"
    timed = [x for x in data["records"] if x.get("median_ms") is not None]
    systems = {(x["graph"], x["measure"], x["system"]) for x in timed}
    for g in ("karate", "jazz"):
        for m in ("bc", "pagerank"):
            assert {(g, m, s) for s in ("networkx", "spla-backend-first", "spla-backend", "spla-direct")} <= systems
    assert all(x["status"] == "ok" and x["checked"] is True for x in timed), [x for x in timed if not x["checked"]]
    md = path.with_suffix(".md").read_text()
    assert "networkx through the spla backend" in md and "`jazz` | bc" in md
    try:
        import nx_cugraph  # noqa: F401
    except ImportError:
        assert "nx-cugraph: nx-cugraph not importable" in md
