"""Betweenness (vertex and edge) and BFS levels against networkx and exact arithmetic."""

from fractions import Fraction

import networkx as nx
import numpy as np
import scipy.sparse as sp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
from spla.algorithms import betweenness_centrality, bfs_levels, edge_betweenness_centrality
from spla.testing import graphs

RTOL = 1e-9


def as_array(d, G):
    return np.array([d[v] for v in G], dtype=np.float64)


def assert_edge_bc_equal(E, ref, G):
    index = {v: i for i, v in enumerate(G)}
    E = E.tocsc()
    assert E.shape == (len(G), len(G))
    for (u, v), val in ref.items():
        assert E[index[u], index[v]] == pytest.approx(val, rel=RTOL, abs=1e-12)
        if not G.is_directed():
            assert E[index[v], index[u]] == pytest.approx(val, rel=RTOL, abs=1e-12)
    # nothing outside the graph's arcs
    assert E.nnz == nx.to_scipy_sparse_array(G, nodelist=list(G)).nnz


NAMED = testing.named_graphs()


@pytest.mark.parametrize("name", sorted(NAMED))
@pytest.mark.parametrize("opts", [{}, {"normalized": False}, {"endpoints": True},
                                  {"endpoints": True, "normalized": False}])
def test_named_graphs_match_networkx(name, opts, device):
    G = NAMED[name]
    got = betweenness_centrality(G, device=device, **opts)
    np.testing.assert_allclose(got, as_array(nx.betweenness_centrality(G, **opts), G), rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_graphs_edge_bc(name, device):
    G = NAMED[name]
    for normalized in (True, False):
        E = edge_betweenness_centrality(G, normalized=normalized, device=device)
        assert_edge_bc_equal(E, nx.edge_betweenness_centrality(G, normalized=normalized), G)


@pytest.mark.parametrize("name", sorted(NAMED))
@pytest.mark.parametrize("opts", [{}, {"endpoints": True, "normalized": False}, {"batch_size": 3}])
def test_named_graphs_sparse_frontiers(name, opts, device):
    G = NAMED[name]
    got = betweenness_centrality(G, device=device, frontier="sparse", **opts)
    ref = {k: v for k, v in opts.items() if k != "batch_size"}
    np.testing.assert_allclose(got, as_array(nx.betweenness_centrality(G, **ref), G), rtol=RTOL, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(G=graphs(max_nodes=14), normalized=st.booleans(), endpoints=st.booleans(),
       batch=st.sampled_from(["auto", 1, 2, 5]), frontier=st.sampled_from(["auto", "dense", "sparse"]))
def test_random_graphs_match_networkx(G, normalized, endpoints, batch, frontier):
    got = betweenness_centrality(G, normalized=normalized, endpoints=endpoints, batch_size=batch, device="cpu",
                                 frontier=frontier)
    ref = as_array(nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints), G)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(G=graphs(min_nodes=1, max_nodes=14), data=st.data())
def test_sampled_sources_match_networkx(G, data):
    n = len(G)
    k = data.draw(st.integers(0, n), label="k")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    normalized = data.draw(st.booleans(), label="normalized")
    endpoints = data.draw(st.booleans(), label="endpoints")
    try:
        ref = as_array(nx.betweenness_centrality(G, k=k, seed=seed, normalized=normalized, endpoints=endpoints), G)
    except ZeroDivisionError:  # k = 0: networkx divides by zero, spla says why
        with pytest.raises(ValueError, match="k=0"):
            betweenness_centrality(G, k=k, seed=seed, normalized=normalized, endpoints=endpoints, device="cpu")
        return
    got = betweenness_centrality(G, k=k, seed=seed, normalized=normalized, endpoints=endpoints, device="cpu")
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("make_seed", [lambda: np.random.RandomState(7), lambda: np.random.default_rng(7)],
                         ids=["RandomState", "Generator"])
def test_numpy_seeds_sample_what_networkx_samples(make_seed):
    """A NumPy RandomState / Generator as seed, as networkx takes it: the same sources for the same seed."""
    G = nx.gnp_random_graph(30, 0.15, seed=4, directed=True)
    ref = as_array(nx.betweenness_centrality(G, k=6, seed=make_seed()), G)
    got = betweenness_centrality(G, k=6, seed=make_seed(), device="cpu")
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)
    ref = nx.edge_betweenness_centrality(G, k=6, seed=make_seed())
    E = edge_betweenness_centrality(G, k=6, seed=make_seed(), device="cpu")
    nodes = list(G)
    for (a, b), value in ref.items():
        assert abs(E[nodes.index(a), nodes.index(b)] - value) <= 1e-12 + RTOL * abs(value)


def test_sources_as_an_iterator():
    """sources given as a generator (read once) equals sources given as a list, for a networkx graph too."""
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (4, 0)])
    want = betweenness_centrality(G, sources=[0, 1], normalized=False, device="cpu")
    np.testing.assert_allclose(want, as_array(nx.betweenness_centrality_subset(G, [0, 1], list(G)), G), atol=1e-12)
    got = betweenness_centrality(G, sources=(v for v in [0, 1]), normalized=False, device="cpu")
    np.testing.assert_array_equal(got, want)
    S = spla.Matrix.from_networkx(G, device="cpu")
    np.testing.assert_array_equal(betweenness_centrality(S, sources=iter([0, 1]), normalized=False, device="cpu"),
                                  want)


@settings(max_examples=40, deadline=None)
@given(G=graphs(min_nodes=1, max_nodes=14), data=st.data())
def test_subset_sources_match_networkx(G, data):
    nodes = list(G)
    S = data.draw(st.lists(st.sampled_from(nodes), unique=True, max_size=len(nodes)), label="sources")
    normalized = data.draw(st.booleans(), label="normalized")
    frontier = data.draw(st.sampled_from(["dense", "sparse"]), label="frontier")
    got = betweenness_centrality(G, sources=S, normalized=normalized, device="cpu", frontier=frontier)
    ref = as_array(nx.betweenness_centrality_subset(G, S, nodes, normalized=normalized), G)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_nodes=12), normalized=st.booleans(), k=st.none() | st.integers(0, 12), seed=st.integers(0, 99))
def test_random_graphs_edge_bc(G, normalized, k, seed):
    if k is not None and k > len(G):
        k = len(G)
    try:
        ref = nx.edge_betweenness_centrality(G, normalized=normalized, k=k, seed=seed)
    except ZeroDivisionError:
        with pytest.raises(ValueError, match="k=0"):
            edge_betweenness_centrality(G, normalized=normalized, k=k, seed=seed, device="cpu")
        return
    E = edge_betweenness_centrality(G, normalized=normalized, k=k, seed=seed, device="cpu")
    index = {v: i for i, v in enumerate(G)}
    for (u, v), val in ref.items():
        assert E[index[u], index[v]] == pytest.approx(val, rel=RTOL, abs=1e-12)


# ---------------------------------------------------------------- every option on every kind of graph
# graphs(multi_edges=None, shuffled_nodes=True): empty, single-vertex, disconnected, self-loops, parallel edges
# (networkx's shortest-path counts see a multigraph's parallel edges as one), directed or not, and nodes
# in a random order, so a mix-up of nodes and vertex indices (sources, k's sample) cannot hide.
ALL_KINDS = dict(multi_edges=None, shuffled_nodes=True)
KERNELS = st.sampled_from(testing.KERNEL_NAMES)
BATCHES = st.sampled_from(["auto", 1, 2, 5])
FRONTIERS = st.sampled_from(["auto", "dense", "sparse"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(G=graphs(max_nodes=14, **ALL_KINDS), data=st.data())
def test_every_option_on_every_kind_of_graph(G, data, device):
    """All sources, k sampled ones or a given subset, with every normalized / endpoints / batch_size /
    frontier / kernel, on both backends, against networkx's betweenness_centrality (_subset); progress
    is called after each block with (sources done, sources)."""
    nodes = list(G)
    mode = data.draw(st.sampled_from(["all", "k", "sources"]), label="mode")
    normalized = data.draw(st.booleans(), label="normalized")
    calls = []
    kw = dict(batch_size=data.draw(BATCHES, label="batch_size"), frontier=data.draw(FRONTIERS, label="frontier"),
              kernel=data.draw(KERNELS, label="kernel"), device=device,
              progress=lambda done, total: calls.append((done, total)))
    if mode == "sources":
        S = data.draw(st.lists(st.sampled_from(nodes), unique=True), label="sources") if nodes else []
        ref = nx.betweenness_centrality_subset(G, S, nodes, normalized=normalized)
        got = betweenness_centrality(G, sources=S, normalized=normalized, **kw)
        total = len(S)
    else:
        endpoints = data.draw(st.booleans(), label="endpoints")
        opts = dict(normalized=normalized, endpoints=endpoints)
        total = len(G)
        if mode == "k":
            # k >= 1: k = 0 is refused (networkx divides by zero), test_sampled_sources_match_networkx
            total = data.draw(st.integers(min(1, len(G)), len(G)), label="k")
            opts.update(k=total, seed=data.draw(st.integers(0, 2**16), label="seed"))
        ref = nx.betweenness_centrality(G, **opts)
        got = betweenness_centrality(G, **opts, **kw)
    assert got.dtype == np.float64 and got.shape == (len(G),)
    np.testing.assert_allclose(got, as_array(ref, G), rtol=RTOL, atol=1e-12, equal_nan=True)
    done = [d for d, _ in calls]
    assert all(t == total for _, t in calls) and done == sorted(set(done)) and done[-1:] == ([total] if total else [])


def sum_parallel_edges(ref, G):
    """networkx's edge betweenness {(u, v[, key]): value} as {(i, j): value} over vertex indices, a
    multigraph's parallel edges summed (spla holds them as one arc) and an undirected edge as i <= j."""
    index = {v: i for i, v in enumerate(G)}
    out = {}
    for edge, value in ref.items():
        i, j = index[edge[0]], index[edge[1]]
        key = (i, j) if G.is_directed() else (min(i, j), max(i, j))
        out[key] = out.get(key, 0.0) + value
    return out


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(G=graphs(max_nodes=12, **ALL_KINDS), data=st.data())
def test_edge_bc_every_option_on_every_kind_of_graph(G, data, device):
    """Edge betweenness with k / seed / normalized / batch_size / kernel on both backends: every arc's
    value is networkx's (a multigraph's parallel edges summed; an undirected edge on both arcs) and the
    result holds exactly the graph's arcs."""
    n = len(G)
    normalized = data.draw(st.booleans(), label="normalized")
    k = data.draw(st.none() | st.integers(min(1, n), n), label="k")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    E = edge_betweenness_centrality(G, k=k, seed=seed, normalized=normalized, device=device,
                                    batch_size=data.draw(BATCHES, label="batch_size"),
                                    kernel=data.draw(KERNELS, label="kernel"))
    assert isinstance(E, sp.csc_array) and E.shape == (n, n) and E.dtype == np.float64
    want = sum_parallel_edges(nx.edge_betweenness_centrality(G, k=k, seed=seed, normalized=normalized), G)
    arcs = set(want) | ({(j, i) for i, j in want} if not G.is_directed() else set())
    E = E.tocoo()
    assert set(zip(E.row.tolist(), E.col.tolist())) == arcs
    for i, j, value in zip(E.row.tolist(), E.col.tolist(), E.data.tolist()):
        ref = want[(i, j) if G.is_directed() else (min(i, j), max(i, j))]
        assert value == pytest.approx(ref, rel=RTOL, abs=1e-12), (i, j)


def matrix_inputs(G, device):
    """G as SciPy CSR and COO (weights as stored values, 0 among them: a stored 0 is an arc), as a dense
    NumPy array of edge counts (its non-zeros are the arcs) and as spla.Matrix, each with the networkx
    graph that reads it the same way: a matrix equal to its transpose (pattern and values) is an
    undirected graph, unless spla.Matrix is told otherwise."""
    nodes = list(G)

    def read_as(entries):  # {(i, j): value} -> G, or G undirected when the entries are symmetric
        symmetric = all(entries.get((j, i)) == value for (i, j), value in entries.items())
        return nx.Graph(G) if symmetric and G.is_directed() else G

    S = nx.to_scipy_sparse_array(G, nodelist=nodes, weight="weight", format="csr")
    C = S.tocoo()
    H = read_as(dict(zip(zip(C.row.tolist(), C.col.tolist()), C.data.tolist())))
    yield "csr", S, H
    yield "coo", C, H
    D = nx.to_numpy_array(G, nodelist=nodes, weight=None)
    yield "dense", D, read_as({(int(i), int(j)): float(D[i, j]) for i, j in zip(*np.nonzero(D))})  # counts decide
    yield "Matrix", spla.Matrix.from_scipy(S, directed=G.is_directed(), device=device), G


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(G=graphs(min_nodes=1, max_nodes=12, weighted=True, min_weight=0.0, max_weight=2.0, **ALL_KINDS),
       data=st.data())
def test_matrix_inputs_match_networkx(G, data, device):
    """SciPy, dense NumPy and spla.Matrix inputs (weighted, with stored zeros, which are arcs; values
    ignored) give networkx's vertex and edge betweenness and BFS levels, by vertex index."""
    s = data.draw(st.integers(0, len(G) - 1), label="source")
    normalized = data.draw(st.booleans(), label="normalized")
    for what, X, H in matrix_inputs(G, device):
        nodes = list(H)
        ref = as_array(nx.betweenness_centrality(H, normalized=normalized), H)
        got = betweenness_centrality(X, normalized=normalized, device=device)
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12, err_msg=what)
        got = betweenness_centrality(X, sources=[s], normalized=normalized, device=device)
        ref = as_array(nx.betweenness_centrality_subset(H, [nodes[s]], nodes, normalized=normalized), H)
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12, err_msg=what)
        dist = nx.single_source_shortest_path_length(H, nodes[s])
        np.testing.assert_array_equal(bfs_levels(X, s, device=device), [dist.get(v, -1) for v in H], err_msg=what)
        E = edge_betweenness_centrality(X, normalized=normalized, device=device).tocoo()
        want = sum_parallel_edges(nx.edge_betweenness_centrality(H, normalized=normalized), H)
        for i, j, value in zip(E.row.tolist(), E.col.tolist(), E.data.tolist()):
            ref = want[(i, j) if H.is_directed() else (min(i, j), max(i, j))]
            assert value == pytest.approx(ref, rel=RTOL, abs=1e-12), (what, i, j)
        assert E.nnz == sum(1 if H.is_directed() or i == j else 2 for i, j in want), what


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(G=graphs(min_nodes=1, max_nodes=16, **ALL_KINDS), data=st.data())
def test_bfs_levels_every_kind_of_graph(G, data, device):
    """bfs_levels from a node of any kind of graph, with every kernel, on both backends."""
    s = data.draw(st.sampled_from(list(G)), label="source")
    dist = nx.single_source_shortest_path_length(G, s)
    got = bfs_levels(G, s, device=device, kernel=data.draw(KERNELS, label="kernel"))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [dist.get(v, -1) for v in G])


@settings(max_examples=40, deadline=None)
@given(G=graphs(min_nodes=1, max_nodes=16), data=st.data())
def test_bfs_levels_match_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)), label="source")
    dist = nx.single_source_shortest_path_length(G, s)
    ref = np.array([dist.get(v, -1) for v in G])
    np.testing.assert_array_equal(bfs_levels(G, s, device="cpu"), ref)


def test_accepts_scipy_and_matrix_inputs(device):
    G = nx.karate_club_graph()
    ref = as_array(nx.betweenness_centrality(G), G)
    S = nx.to_scipy_sparse_array(G, nodelist=list(G))
    np.testing.assert_allclose(betweenness_centrality(S, device=device), ref, rtol=RTOL)
    A = spla.Matrix.from_scipy(S, device=device)
    np.testing.assert_allclose(betweenness_centrality(A), ref, rtol=RTOL)
    for kernel in spla.KERNELS:
        np.testing.assert_allclose(betweenness_centrality(A, kernel=kernel, batch_size=7), ref, rtol=RTOL)
        np.testing.assert_allclose(betweenness_centrality(A, kernel=kernel, batch_size=1), ref, rtol=RTOL)


def test_tiny_graphs(device):
    for G in (nx.Graph(), nx.empty_graph(1), nx.path_graph(2), nx.DiGraph([(0, 1)]), nx.empty_graph(5)):
        for endpoints in (False, True):
            got = betweenness_centrality(G, endpoints=endpoints, device=device)
            ref = as_array(nx.betweenness_centrality(G, endpoints=endpoints), G)
            np.testing.assert_allclose(got, ref, rtol=RTOL)


def test_self_loops_and_multi_edges_are_ignored(device):
    G = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 2), (2, 3), (3, 0), (3, 4)])
    ref = as_array(nx.betweenness_centrality(G), G)
    np.testing.assert_allclose(betweenness_centrality(G, device=device), ref, rtol=RTOL)


def test_bad_arguments():
    G = nx.path_graph(4)
    with pytest.raises(ValueError, match="either k"):
        betweenness_centrality(G, k=2, sources=[0])
    with pytest.raises(ValueError, match="k must be"):
        betweenness_centrality(G, k=9)
    with pytest.raises(ValueError, match="not a node"):
        betweenness_centrality(G, sources=[17])
    with pytest.raises(ValueError, match="batch_size"):
        betweenness_centrality(G, batch_size=0)
    with pytest.raises(ValueError, match="endpoints"):
        betweenness_centrality(G, sources=[0], endpoints=True)
    with pytest.raises(spla.UnknownNameError, match="kernel"):
        betweenness_centrality(G, kernel="fast")
    with pytest.raises(ValueError, match="frontier must be one of 'auto', 'dense', 'sparse', 'queue', got 'thin'"):
        betweenness_centrality(G, frontier="thin")
    with pytest.raises(TypeError, match="sources must be a sequence of vertices, got int 1"):
        betweenness_centrality(G, sources=1)
    # the repeated source is named: a node for a networkx graph, an index for a matrix
    H = nx.relabel_nodes(G, {0: "a", 1: "b", 2: "c", 3: "d"})
    with pytest.raises(ValueError, match="sources contains node 'c' more than once"):
        betweenness_centrality(H, sources=["d", "c", "a", "c"])
    with pytest.raises(ValueError, match="sources contains vertex 2 more than once"):
        betweenness_centrality(nx.to_scipy_sparse_array(G), sources=[3, 2, 0, 2, 3])


@pytest.mark.parametrize("fn", [betweenness_centrality, edge_betweenness_centrality])
@pytest.mark.parametrize("G", [nx.Graph(), nx.path_graph(40), nx.empty_graph(3)], ids=["empty", "path", "isolated"])
def test_options_fail_at_the_door(fn, G):
    """kernel, batch_size and progress are checked before any work, whatever the graph: an empty one or
    one without arcs runs no product, the sparse frontiers a long path takes use no product kernel, and
    progress is first called after a whole block."""
    with pytest.raises(spla.UnknownNameError, match="unknown kernel 'bogus'"):
        fn(G, kernel="bogus", device="cpu")
    with pytest.raises(ValueError, match="batch_size must be 'auto' or a positive integer, got 0"):
        fn(G, batch_size=0, device="cpu")
    with pytest.raises(TypeError, match="progress must be None or a callable"):
        fn(G, progress=5, device="cpu")
    if fn is betweenness_centrality:
        with pytest.raises(spla.UnknownNameError, match="unknown kernel 'bogus'"):
            fn(G, kernel="bogus", sources=[], device="cpu")


def test_bfs_levels_source_must_be_one_vertex_index():
    """A matrix input's source is one integer: a list is refused, not run from its first vertex only."""
    S = nx.to_scipy_sparse_array(nx.path_graph(5))
    for bad in ([1, 2], np.array([3]), 1.0, True, np.bool_(True), None):
        with pytest.raises(TypeError, match=r"source must be one vertex index \(an integer 0..n-1\)"):
            bfs_levels(S, bad, device="cpu")
    for good in (2, np.int64(2), np.array(2)):
        np.testing.assert_array_equal(bfs_levels(S, good, device="cpu"), [2, 1, 0, 1, 2])
    with pytest.raises(ValueError, match="source contains vertex 0, but the graph has no vertices"):
        bfs_levels(sp.csr_array((0, 0)), 0, device="cpu")


# ---------------------------------------------------------------- exactness far past 2^53
def diamond_chain(count):
    """Hubs h_0 .. h_count; between h_i and h_{i+1} a diamond (two middle vertices): 2^count paths."""
    G = nx.Graph()
    G.add_nodes_from(range(3 * count + 1))
    for i in range(count):
        h, a, b, h2 = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        G.add_edges_from([(h, a), (h, b), (a, h2), (b, h2)])
    return G


def exact_brandes(G, sources):
    """Brandes with Python ints for σ and Fractions for δ: exact at any size (raw, unnormalised)."""
    bc = {v: Fraction(0) for v in G}
    for s in sources:
        order, preds, sigma, dist = [s], {v: [] for v in G}, {v: 0 for v in G}, {s: 0}
        sigma[s] = 1
        i = 0
        while i < len(order):
            v = order[i]
            i += 1
            for w in G[v]:
                if w not in dist:
                    dist[w] = dist[v] + 1
                    order.append(w)
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
                    preds[w].append(v)
        delta = {v: Fraction(0) for v in G}
        for w in reversed(order):
            for v in preds[w]:
                delta[v] += Fraction(sigma[v], sigma[w]) * (1 + delta[w])
            if w != s:
                bc[w] += delta[w]
    return bc


@pytest.mark.parametrize("batch_size, frontier", [("auto", "dense"), (1, "dense"), ("auto", "sparse"),
                                                   (3, "sparse")])
def test_diamond_chain_past_float64_range(device, batch_size, frontier):
    G = diamond_chain(1100)  # 2^1100 shortest paths end to end: beyond float64's 1.8e308
    sources = [0, 1, 1650, 3300]
    got = betweenness_centrality(G, sources=sources, normalized=False, device=device, batch_size=batch_size,
                                 frontier=frontier)
    exact = exact_brandes(G, sources)
    ref = np.array([float(exact[v] / 2) for v in G])  # undirected: networkx halves
    np.testing.assert_allclose(got, ref, rtol=1e-9)
    assert np.all(np.isfinite(got))


@settings(max_examples=25, deadline=None)
@given(G=graphs(min_nodes=1, max_nodes=40), data=st.data())
def test_single_source_steps_reused_across_calls(G, data, device):
    """batch_size=1 (TurboBC's Algorithm 1, level steps replayed as CUDA graphs on the GPU) on one
    matrix for several sources in a row: each call equals networkx's subset betweenness."""
    A = spla.Matrix.from_networkx(G, device=device)
    nodes = list(G)
    picks = data.draw(st.lists(st.sampled_from(range(len(G))), min_size=1, max_size=4, unique=True), label="sources")
    for s in picks:
        got = betweenness_centrality(A, sources=[s], normalized=False, batch_size=1)
        ref = as_array(nx.betweenness_centrality_subset(G, [nodes[s]], nodes, normalized=False), G)
        np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)


def _subset_bc(G, s):
    nodes = list(G)
    return as_array(nx.betweenness_centrality_subset(G, [nodes[s]], nodes, normalized=False), G)


def _push_considered_on_small_graphs(monkeypatch):
    """The levels choose push or pull, and their arcs are measured and scored, even on a small graph."""
    return spla.tuning.override(push_fixed_arcs=0.0)


@pytest.mark.parametrize("kernel", ["auto", "push", "scCSC"])
def test_single_source_plan_and_its_fallbacks(device, kernel, monkeypatch):
    """Sources one at a time on one matrix: the first is measured level by level and becomes the
    workspace's plan (replayed whole on the GPU); a shallower source runs by the plan (its extra
    levels are empty); a deeper one fails the plan's check, runs level by level and becomes the
    plan; every second source a plan could run is run level by level and scores the plan (auto
    kernels only); every result equals networkx's."""
    from spla.algorithms import betweenness_single

    G = nx.path_graph(40)
    G.add_edges_from([(5, 40), (40, 41), (41, 7), (12, 42)])  # a second shortest path, a pendant
    A = spla.Matrix.from_networkx(G, device=device)
    with _push_considered_on_small_graphs(monkeypatch), spla.tuning.override(speculative_check_every=2):
        ws = betweenness_single.workspace(A, kernel)
        # (source, its BFS depth = the plan's depth after it, plans scored so far)
        for s, plan_depth, scored in ((20, 20, 0), (25, 25, 0), (22, 25, 1), (0, 39, 1), (39, 39, 2), (15, 39, 2)):
            got = betweenness_centrality(A, sources=[s], normalized=False, batch_size=1, kernel=kernel)
            np.testing.assert_allclose(got, _subset_bc(G, s), rtol=RTOL, atol=1e-12)
            assert ws.plan is not None and ws.plan.depth == plan_depth
            assert ws.hits + ws.misses == (scored if kernel == "auto" else 0)
    assert len(ws.plan.forward) == ws.plan.depth + 1 and ws.planned == 5
    steps = list(ws._forward.values()) + list(ws._backward.values()) + [ws.between, ws.whole]
    want = "graph" if device.startswith("gpu") else "eager"  # every step is recordable: no host reads inside
    assert all(r.mode == want for r in steps if r.calls >= 2), [(r.name, r.mode) for r in steps]


def test_single_source_plan_stops_after_misses(device, monkeypatch):
    """A plan whose push/pull choices keep missing the sources' levels is dropped for level-by-level
    choices; the answers never change."""
    from spla.algorithms import betweenness_single

    G = nx.barabasi_albert_graph(60, 2, seed=2)  # sources 1 and 3 find the plan of source 0 costlier than their own
    A = spla.Matrix.from_networkx(G, device=device)
    # every source a plan could run scores it, and a plan that costs a source more than its own choices misses
    with _push_considered_on_small_graphs(monkeypatch), \
            spla.tuning.override(speculative_waste=0.0, speculative_check_every=1) as tuning:
        ws = betweenness_single.workspace(A, "auto")
        for s in range(8):
            got = betweenness_centrality(A, sources=[s], normalized=False, batch_size=1)
            np.testing.assert_allclose(got, _subset_bc(G, s), rtol=RTOL, atol=1e-12)
    assert ws.directions and ws.misses == tuning.speculative_misses and ws.hits == 0 and not ws.speculate


def test_single_source_plan_never_covers_rescaled_sigma(device):
    """σ past 2^512 needs a level's rescaling, which only the level-by-level path does: a plan made on
    a shallow source fails its check on a deep one of the 2^1100-path diamond chain."""
    G = diamond_chain(700)
    nodes = list(G)
    A = spla.Matrix.from_networkx(G, device=device)
    exact = exact_brandes(G, [nodes[0]])
    for s in (nodes[1050], nodes[0], nodes[0]):  # plan from the middle (2^350 paths), then an end
        got = betweenness_centrality(A, sources=[nodes.index(s)], normalized=False, batch_size=1)
        if s == nodes[0]:
            np.testing.assert_allclose(got, [float(exact[v] / 2) for v in G], rtol=1e-9)


# ---------------------------------------------------------------- sparse frontiers (spla.frontier)
def test_frontier_auto_rule(device):
    from spla.algorithms import betweenness_sparse as bmod

    grid = spla.Matrix.from_networkx(nx.convert_node_labels_to_integers(nx.grid_2d_graph(30, 30)), device=device)
    assert bmod.sample_reach(grid, [0]) == (58, 3480.0, 1)
    assert bmod.use_sparse_frontier(grid, np.arange(900))  # 900 vertices x 58+ levels > 6 x 3480 arcs
    dense = spla.Matrix.from_networkx(nx.complete_graph(30), device=device)
    assert bmod.sample_reach(dense, [3]) == (1, 870.0, 1)
    assert not bmod.use_sparse_frontier(dense, np.arange(30))
    # directed: a complete digraph on 0..39 with a path 39 -> 40 -> ... -> 79.  Sources in the clique reach
    # every arc (dense: 80 vertices x 41 levels < 6 x 1600 arcs); sources on the path reach a few arcs,
    # while a dense block would still run its deepest source's levels over all 80 vertices (sparse)
    G = nx.complete_graph(40, create_using=nx.DiGraph)
    nx.add_path(G, [39, *range(40, 80)])
    A = spla.Matrix.from_networkx(G, device=device)
    assert bmod.sample_reach(A, np.arange(40)) == (41, 1600.0, 32)
    assert not bmod.use_sparse_frontier(A, np.arange(40))
    depth, reach, k = bmod.sample_reach(A, np.arange(40, 80))
    assert k == 32 and depth <= 39 and reach <= 39
    assert bmod.use_sparse_frontier(A, np.arange(40, 80))


@pytest.mark.parametrize("directed", [False, True])
def test_sparse_frontiers_equal_dense_blocks_on_meshes(device, directed):
    """A few hundred sources of a 2-D mesh with random extra arcs: many entries per level and source."""
    rng = np.random.default_rng(5)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(25, 40))
    G = G.to_directed() if directed else G
    G.add_edges_from(rng.integers(0, len(G), size=(60, 2)).tolist())
    if directed:
        G.remove_edges_from(list(G.edges)[::7])
    A = spla.Matrix.from_networkx(G, device=device)
    S = list(range(0, len(G), 3))
    want = betweenness_centrality(A, sources=S, frontier="dense", normalized=False)
    for batch in ("auto", 37):
        got = betweenness_centrality(A, sources=S, frontier="sparse", normalized=False, batch_size=batch)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    ref = as_array(nx.betweenness_centrality_subset(G, S, list(G), normalized=False), G)
    np.testing.assert_allclose(want, ref, rtol=1e-9, atol=1e-9)


def test_locality_order_is_a_permutation_of_near_sources(device):
    from spla.algorithms import betweenness_sparse as bmod

    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(40, 40))
    G.add_nodes_from(range(1600, 1610))  # isolated vertices: no seed reaches them
    A = spla.Matrix.from_networkx(G, device=device)
    src = np.arange(1610)
    order = bmod.locality_order(A, src, 100)
    assert sorted(order.tolist()) == src.tolist()
    rows, cols = np.divmod(order[:1600], 40)
    spans = [np.ptp(rows[i:i + 100]) + np.ptp(cols[i:i + 100]) for i in range(0, 1500, 100)]
    assert np.median(spans) < 40  # a block of 100 consecutive ids spans 2 rows x 40 columns = 42


def test_one_source_keeps_the_single_source_path(device, monkeypatch):
    from spla.algorithms import betweenness_sparse as bmod

    def refuse(*args, **kwargs):
        raise AssertionError("a single source must not take the sparse-frontier path under frontier='auto'")

    monkeypatch.setattr(bmod, "block", refuse)
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(30, 30))  # deep: "auto" picks sparse for blocks
    got = betweenness_centrality(G, sources=[7], normalized=False, device=device)
    ref = as_array(nx.betweenness_centrality_subset(G, [7], list(G), normalized=False), G)
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)
