"""Closeness, harmonic centrality and sum of distances (bit-parallel all-sources BFS)
against networkx and brute-force BFS."""

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
import spla.algorithms._common as common
import spla.algorithms.distances as distances
from spla.algorithms.distances import closeness_centrality, harmonic_centrality, sum_of_distances

RTOL = 1e-9
from conftest import GRAPHS_DIR as GRAPHS
# ``device`` is the conftest fixture ("cpu", and "gpu:0" where there is one)
HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def graphs(max_n=14, multigraph=True):
    """networkx graphs: directed or not, multi or not, self-loops, isolated vertices, random node order."""
    return testing.graphs(0, max_n, multi_edges=None if multigraph else False, shuffled_nodes=True)


def arr(d, G):
    return np.array([d[v] for v in G], dtype=np.float64)


def brute_sum_of_distances(G):
    return np.array([sum(nx.single_source_shortest_path_length(G, v).values()) for v in G], dtype=np.int64)


def inputs(G, device):
    """The same graph as networkx, SciPy and spla.Matrix input."""
    yield G
    if len(G):
        S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None, format="csr")
        yield S
        yield spla.Matrix.from_scipy(S, directed=G.is_directed(), device=device)


# ----------------------------------------------------------------------------- random graphs
@given(G=graphs())
@HSET
def test_closeness_random(G, device):
    for wf in (True, False):
        ref = arr(nx.closeness_centrality(G, wf_improved=wf), G)
        for X in inputs(G, device):
            got = closeness_centrality(X, wf_improved=wf, device=device)
            assert got.dtype == np.float64 and got.shape == (len(G),)
            np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-14)


@given(G=graphs())
@HSET
def test_harmonic_random(G, device):
    ref = arr(nx.harmonic_centrality(G), G)
    for X in inputs(G, device):
        got = harmonic_centrality(X, device=device)
        assert got.dtype == np.float64 and got.shape == (len(G),)
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-14)


@given(G=graphs())
@HSET
def test_sum_of_distances_random(G, device):
    ref = brute_sum_of_distances(G)
    for X in inputs(G, device):
        got = sum_of_distances(X, device=device)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, ref)


@given(G=graphs())
@HSET
def test_sum_of_distances_with_reach(G, device):
    """r(v) = number of vertices v reaches, itself included (networkx's descendants + 1)."""
    ref_reach = np.array([len(nx.single_source_shortest_path_length(G, v)) for v in G], dtype=np.int64)
    for X in inputs(G, device):
        got, reach = sum_of_distances(X, return_reach=True, device=device)
        assert got.dtype == reach.dtype == np.int64 and reach.shape == (len(G),)
        np.testing.assert_array_equal(got, brute_sum_of_distances(G))
        np.testing.assert_array_equal(reach, ref_reach)


@given(G=graphs(), kernel=st.sampled_from(testing.KERNEL_NAMES), wf=st.booleans())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_kernel_random(G, kernel, wf, device):
    """kernel= (every name; the GPU's product kernels) on every kind of graph, on both backends."""
    np.testing.assert_allclose(closeness_centrality(G, wf_improved=wf, kernel=kernel, device=device),
                               arr(nx.closeness_centrality(G, wf_improved=wf), G), rtol=RTOL, atol=1e-14)
    np.testing.assert_allclose(harmonic_centrality(G, kernel=kernel, device=device), arr(nx.harmonic_centrality(G), G),
                               rtol=RTOL, atol=1e-14)
    got, reach = sum_of_distances(G, return_reach=True, kernel=kernel, device=device)
    np.testing.assert_array_equal(got, brute_sum_of_distances(G))
    np.testing.assert_array_equal(reach, [len(nx.single_source_shortest_path_length(G, v)) for v in G])


def test_sum_of_distances_return_reach_must_be_a_bool():
    with pytest.raises(TypeError, match="return_reach must be True or False, got 'yes'"):
        sum_of_distances(nx.path_graph(3), return_reach="yes")


@pytest.mark.parametrize("fn", [closeness_centrality, harmonic_centrality, sum_of_distances])
@pytest.mark.parametrize("G", [nx.Graph(), nx.empty_graph(1), nx.empty_graph(2)], ids=["empty", "one", "isolated"])
def test_options_fail_at_the_door(fn, G):
    """A bad kernel or progress fails whatever the graph: these graphs run no product at all."""
    with pytest.raises(spla.UnknownNameError, match="unknown kernel 'bogus'"):
        fn(G, kernel="bogus", device="cpu")
    with pytest.raises(TypeError, match="progress must be None or a callable"):
        fn(G, progress="yes", device="cpu")


@pytest.mark.parametrize("fn", [closeness_centrality, harmonic_centrality, sum_of_distances])
def test_no_rows_but_columns_is_not_square(fn):
    """A (0, 3) matrix is no graph (it must not pass as the empty graph); (0, 0) is the empty graph."""
    for X in (sp.csr_array((0, 3)), np.zeros((0, 3)), spla.Matrix.from_scipy(sp.csr_array((0, 3)), device="cpu")):
        with pytest.raises(spla.InvalidGraph, match=r"must be square, got shape \(0, 3\)"):
            fn(X, device="cpu")
    assert fn(sp.csr_array((0, 0)), device="cpu").shape == (0,)


@given(G=graphs(max_n=200, multigraph=False), data=st.data())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_many_blocks_and_tail_bits(G, data, device, monkeypatch):
    """One word per block: several source blocks, a partly used last word (the bit-parallel BFS, which
    the CPU otherwise leaves to spla.paths' searches where numba imports)."""
    width = data.draw(st.integers(1, 3))
    monkeypatch.setattr(distances, "block_words", lambda A, total_words: min(width, total_words))
    with spla.tuning.override(paths_for_distances=False):
        np.testing.assert_allclose(closeness_centrality(G, device=device), arr(nx.closeness_centrality(G), G),
                                   rtol=RTOL, atol=1e-14)
        np.testing.assert_allclose(harmonic_centrality(G, device=device), arr(nx.harmonic_centrality(G), G),
                                   rtol=RTOL, atol=1e-14)
        np.testing.assert_array_equal(sum_of_distances(G, device=device), brute_sum_of_distances(G))


@given(G=graphs(max_n=150, multigraph=False), data=st.data())
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_blocks_of_consecutive_sources_push_their_first_level(G, data, device, monkeypatch):
    """Sources that are a run of consecutive vertices (a Dask chunk's) get level 1 by the push, any
    other order or gap by a product; the sums equal the BFS distances over those sources either way."""
    n = len(G)
    a = data.draw(st.integers(0, max(0, n - 1)))
    b = data.draw(st.integers(min(a + 1, n), n))
    order = data.draw(st.sampled_from(["run", "reversed", "gapped"]))
    direction = data.draw(st.sampled_from(["in", "out"]))
    src = {"run": np.arange(a, b), "reversed": np.arange(a, b)[::-1], "gapped": np.arange(a, b, 2)}[order]
    pushed = []
    real = distances._first_level
    monkeypatch.setattr(distances, "_first_level", lambda A, vis, out, v0, m, W, d: pushed.append((v0, m)) or
                        real(A, vis, out, v0, m, W, d))
    monkeypatch.setattr(distances, "block_words", lambda A, total_words: 1)  # blocks of 64 sources
    M = spla.Matrix.from_networkx(G, device=device)
    with spla.tuning.override(paths_for_distances=False):
        dist, reach, harm = distances.distance_sums(M, direction=direction, harmonic=True,
                                                    sources=M.xp.asarray(src.astype(np.int64)))
    nodes = list(G)
    H = G if direction == "in" or not G.is_directed() else G.reverse()
    want = np.zeros((3, n))
    for s in src:  # "in": the sums over the sources s at each t; "out": over the targets s from each v
        for t, d in nx.single_source_shortest_path_length(H, nodes[s]).items():
            want[:, nodes.index(t)] += (d, 1, 1 / d if d else 0.0)
    np.testing.assert_array_equal(spla.device.to_numpy(dist), want[0])
    np.testing.assert_array_equal(spla.device.to_numpy(reach), want[1])
    np.testing.assert_allclose(spla.device.to_numpy(harm), want[2], rtol=RTOL)
    blocks = [src[i:i + 64] for i in range(0, len(src), 64)]
    runs = [(int(blk[0]), len(blk)) for blk in blocks if len(blk) == 1 or np.all(np.diff(blk) == 1)]
    assert pushed == runs and (order != "run" or len(runs) == len(blocks))


# ----------------------------------------------------------------------------- small cases
def test_tiny_graphs(device):
    for cls in (nx.Graph, nx.DiGraph):
        G = cls()
        assert closeness_centrality(G).shape == (0,)
        assert harmonic_centrality(G).shape == (0,)
        assert sum_of_distances(G).shape == (0,)
        G.add_node("a")
        np.testing.assert_array_equal(closeness_centrality(G, device=device), [0.0])
        np.testing.assert_array_equal(harmonic_centrality(G, device=device), [0.0])
        np.testing.assert_array_equal(sum_of_distances(G, device=device), [0])
        G.add_edge("a", "a")  # a self-loop is not a path to anyone
        np.testing.assert_array_equal(closeness_centrality(G, device=device), [0.0])
        np.testing.assert_array_equal(sum_of_distances(G, device=device), [0])
        G.add_edge("a", "b")
        np.testing.assert_allclose(closeness_centrality(G, device=device), arr(nx.closeness_centrality(G), G))
        np.testing.assert_allclose(harmonic_centrality(G, device=device), arr(nx.harmonic_centrality(G), G))
    assert closeness_centrality(sp.csr_array((0, 0))).shape == (0,)


def test_directed_uses_incoming_distances(device):
    G = nx.DiGraph([(0, 1), (1, 2)])
    # closeness(2): 0 and 1 reach 2 at distances 2 and 1
    np.testing.assert_allclose(closeness_centrality(G, device=device), [0.0, 0.5, (2 / 3) * (2 / 2)])
    np.testing.assert_allclose(harmonic_centrality(G, device=device), [0.0, 1.0, 1.5])
    np.testing.assert_array_equal(sum_of_distances(G, device=device), [3, 1, 0])  # outgoing


def test_values_and_multiedges_ignored(device):
    S = sp.csr_array(np.array([[0, 5.0, 0], [5.0, 0, 0.5], [0, 0.5, 3.0]]))
    P = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    np.testing.assert_allclose(closeness_centrality(S, device=device), closeness_centrality(P, device=device))
    np.testing.assert_array_equal(sum_of_distances(S, device=device), [3, 2, 3])


# ----------------------------------------------------------------------------- named graphs
NAMED = testing.named_graphs()


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_graphs(name, device):
    G = NAMED[name]
    for wf in (True, False):
        np.testing.assert_allclose(closeness_centrality(G, wf_improved=wf, device=device),
                                   arr(nx.closeness_centrality(G, wf_improved=wf), G), rtol=RTOL, atol=1e-14)
    np.testing.assert_allclose(harmonic_centrality(G, device=device), arr(nx.harmonic_centrality(G), G),
                               rtol=RTOL, atol=1e-14)
    np.testing.assert_array_equal(sum_of_distances(G, device=device), brute_sum_of_distances(G))


# ----------------------------------------------------------------------------- real graphs
def read_metis(path):
    """A METIS .graph.gz (line i+1: 1-based neighbours of vertex i) as an undirected networkx graph."""
    lines = [ln for ln in gzip.open(path, "rt").read().splitlines() if not ln.startswith("%")]
    n = int(lines[0].split()[0])
    G = nx.Graph()
    G.add_nodes_from(range(n))
    for i, ln in enumerate(lines[1:n + 1]):
        G.add_edges_from((i, int(j) - 1) for j in ln.split())
    return G


def read_snap(path):
    e = np.loadtxt(gzip.open(path, "rt"), dtype=np.int64, comments="#")
    G = nx.DiGraph()
    G.add_nodes_from(range(int(e.max()) + 1))
    G.add_edges_from(map(tuple, e))
    return G


REAL = {
    "jazz": ("suitesparse_dimacs10/jazz.graph.gz", read_metis),
    "celegans_metabolic": ("suitesparse_dimacs10/celegans_metabolic.graph.gz", read_metis),
    "email-Eu-core": ("snap/email-Eu-core.txt.gz", read_snap),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graphs(name, device):
    rel, reader = REAL[name]
    path = GRAPHS / rel
    if not path.exists():
        pytest.skip(f"{path} not available")
    G = reader(path)
    np.testing.assert_allclose(closeness_centrality(G, device=device), arr(nx.closeness_centrality(G), G),
                               rtol=RTOL, atol=1e-14)
    # harmonic and sum of distances on a sample of vertices, by networkx BFS
    sample = np.random.default_rng(0).choice(len(G), size=min(len(G), 120), replace=False)
    R = G.reverse() if G.is_directed() else G
    h_ref = [sum(1 / d for d in nx.single_source_shortest_path_length(R, int(v)).values() if d) for v in sample]
    np.testing.assert_allclose(harmonic_centrality(G, device=device)[sample], h_ref, rtol=RTOL, atol=1e-14)
    s_ref = [sum(nx.single_source_shortest_path_length(G, int(v)).values()) for v in sample]
    np.testing.assert_array_equal(sum_of_distances(G, device=device)[sample], s_ref)


# ----------------------------------------------------------------------------- blocks, memory, progress
def test_progress_reports_each_block(device, monkeypatch):
    G = nx.path_graph(150)  # 3 words of sources, the last one 22 bits
    monkeypatch.setattr(distances, "block_words", lambda A, total_words: 1)
    calls = []
    with spla.tuning.override(paths_for_distances=False):  # the bit-parallel BFS's blocks
        got = closeness_centrality(G, device=device, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(64, 150), (128, 150), (150, 150)]
    np.testing.assert_allclose(got, arr(nx.closeness_centrality(G), G), rtol=RTOL)


def test_block_words_balances_and_caps(monkeypatch):
    A = spla.Matrix.from_edges(np.arange(999), np.arange(1, 1000), device="cpu")
    assert distances.block_words(A, 16) == 16  # plenty of memory: one block of all words
    per_word = 1000 * distances.BYTES_PER_WORD_ROW
    fraction = spla.tuning.current().memory_fraction
    monkeypatch.setattr(common, "free_device_bytes", lambda A: int(5 * per_word / fraction) + 1)
    assert distances.block_words(A, 16) == 4  # at most 5 words fit: 4 blocks of 4 words
    with spla.tuning.override(memory_fraction=fraction / 2):
        assert distances.block_words(A, 16) == 2  # half of it: 2 words fit, 8 blocks of 2 words


def test_out_of_memory_shrinks_the_block(device, monkeypatch):
    G = nx.gnp_random_graph(300, 0.02, seed=5, directed=True)
    ref = arr(nx.closeness_centrality(G), G)
    real_vxm = spla.vxm
    widths = []

    def vxm(u, A, *args, **kw):
        widths.append(u.shape[1] if u.ndim == 2 else 0)
        if u.ndim == 2 and u.shape[1] > 1:
            raise MemoryError("simulated out of memory")
        return real_vxm(u, A, *args, **kw)

    monkeypatch.setattr(spla, "vxm", vxm)
    with spla.tuning.override(paths_for_distances=False):  # the bit-parallel BFS's blocks
        np.testing.assert_allclose(closeness_centrality(G, device=device), ref, rtol=RTOL, atol=1e-14)
    assert max(widths) == 5 and min(widths) == 1


def test_not_even_one_word_fits(monkeypatch):
    """On the CPU the block budget is sized for the cache; host memory is what refuses a block."""
    monkeypatch.setattr(common, "free_device_bytes", lambda A: 100)
    monkeypatch.setattr(spla.memory, "host_available_bytes", lambda: 1000)
    with pytest.raises(spla.DeviceMemoryError, match="bytes"), spla.tuning.override(paths_for_distances=False):
        closeness_centrality(nx.path_graph(40_000), device="cpu")


def test_a_cpu_block_above_the_cache_budget_still_runs(monkeypatch):
    monkeypatch.setattr(common, "free_device_bytes", lambda A: 100)
    G = nx.path_graph(10)
    with spla.tuning.override(paths_for_distances=False):
        got = closeness_centrality(G, device="cpu")
    want = nx.closeness_centrality(G)
    np.testing.assert_allclose(got, [want[v] for v in G], rtol=1e-12)
