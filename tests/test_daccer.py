"""DACCER volumes against a brute-force networkx BFS with cutoff r."""

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
import spla.algorithms.distances as distances
from spla.algorithms.daccer import _volume_r1, daccer_volumes, volumes_bits
from spla.algorithms.degree import degree_parts

from conftest import GRAPHS_DIR as GRAPHS
# ``device`` is the conftest fixture ("cpu", and "gpu:0" where there is one)
HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def graphs(max_n=14, multigraph=True):
    """networkx graphs: directed or not, multi or not, self-loops, isolated vertices, random node order."""
    return testing.graphs(0, max_n, multi_edges=None if multigraph else False, shuffled_nodes=True)


def brute_volumes(G, r):
    """vol_r(v) = Σ_{u: d(v,u) <= r} deg(u): networkx G.degree (undirected) / G.out_degree (directed)."""
    deg = dict(G.out_degree()) if G.is_directed() else dict(G.degree())
    return np.array([sum(deg[u] for u in nx.single_source_shortest_path_length(G, v, cutoff=r)) for v in G],
                    dtype=np.int64)


@given(G=graphs(), r=st.integers(0, 4))
@HSET
def test_random_graphs(G, r, device):
    got = daccer_volumes(G, r, device=device)
    assert got.dtype == np.int64 and got.shape == (len(G),)
    np.testing.assert_array_equal(got, brute_volumes(G, r))


@given(G=graphs(), r=st.integers(0, 4), kernel=st.sampled_from(testing.KERNEL_NAMES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_every_kernel_random(G, r, kernel, device):
    """kernel= (every name; the GPU's product kernels) at every radius's path, on both backends."""
    np.testing.assert_array_equal(daccer_volumes(G, r, kernel=kernel, device=device), brute_volumes(G, r))


@given(G=graphs(multigraph=False))
@HSET
def test_scipy_and_matrix_input(G, device):
    if len(G) == 0:
        return
    S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None, format="csr")
    M = spla.Matrix.from_scipy(S, directed=G.is_directed(), device=device)
    for r in (0, 1, 2):
        np.testing.assert_array_equal(daccer_volumes(M, r, device=device), brute_volumes(G, r))


@given(G=graphs(max_n=150), data=st.data())
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_bit_path_equals_spmv_path_at_radius_1(G, data, device, monkeypatch):
    """Radius 1 runs as one sparse product; the bit-parallel path must agree, with any block width."""
    if len(G) == 0:
        return
    width = data.draw(st.integers(1, 3))
    monkeypatch.setattr(distances, "block_words", lambda A, total_words: min(width, total_words))
    A, out, _in, loops = degree_parts(G, device=device)
    deg = out if A.directed else out + loops
    ref = brute_volumes(G, 1)
    np.testing.assert_array_equal(spla.device.to_numpy(volumes_bits(A, deg, 1)), ref)
    np.testing.assert_array_equal(spla.device.to_numpy(_volume_r1(A, deg, "auto")), ref)
    for r in (0, 2, 3):
        np.testing.assert_array_equal(spla.device.to_numpy(volumes_bits(A, deg, r)), brute_volumes(G, r))


def test_degree_conventions(device):
    G = nx.Graph([(0, 0), (0, 1), (1, 2)])
    np.testing.assert_array_equal(daccer_volumes(G, 0, device=device), [3, 2, 1])  # self-loop counts 2
    np.testing.assert_array_equal(daccer_volumes(G, 1, device=device), [5, 6, 3])
    D = nx.DiGraph([(0, 0), (0, 1), (1, 2)])
    np.testing.assert_array_equal(daccer_volumes(D, 0, device=device), [2, 1, 0])  # out-degree, loop counts 1
    np.testing.assert_array_equal(daccer_volumes(D, 2, device=device), [3, 1, 0])  # out-neighbourhoods
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    np.testing.assert_array_equal(daccer_volumes(M, 0, device=device), [2, 3, 1])  # parallel edges count


def test_empty_and_tiny():
    assert daccer_volumes(nx.Graph()).shape == (0,)
    assert daccer_volumes(sp.csr_array((0, 0))).shape == (0,)
    G = nx.Graph()
    G.add_node(0)
    np.testing.assert_array_equal(daccer_volumes(G, 3, device="cpu"), [0])


def test_bad_radius():
    for r in (-1, 1.5, "2", True):
        with pytest.raises(ValueError, match="radius"):
            daccer_volumes(nx.path_graph(3), r, device="cpu")


NAMED = testing.named_graphs()


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_graphs(name, device):
    G = NAMED[name]
    for r in range(4):
        np.testing.assert_array_equal(daccer_volumes(G, r, device=device), brute_volumes(G, r))


def test_large_radius_stops_early_and_progress(device, monkeypatch):
    G = nx.path_graph(150)
    monkeypatch.setattr(distances, "block_words", lambda A, total_words: 1)
    calls = []
    got = daccer_volumes(G, 500, device=device, progress=lambda d, t: calls.append((d, t)))
    np.testing.assert_array_equal(got, np.full(150, 2 * 149))
    assert calls == [(64, 150), (128, 150), (150, 150)]


def test_real_graph(device):
    path = GRAPHS / "suitesparse_dimacs10" / "celegans_metabolic.graph.gz"
    if not path.exists():
        pytest.skip(f"{path} not available")
    lines = [ln for ln in gzip.open(path, "rt").read().splitlines() if not ln.startswith("%")]
    n = int(lines[0].split()[0])
    G = nx.Graph()
    G.add_nodes_from(range(n))
    for i, ln in enumerate(lines[1:n + 1]):
        G.add_edges_from((i, int(j) - 1) for j in ln.split())
    for r in (1, 2):
        np.testing.assert_array_equal(daccer_volumes(G, r, device=device), brute_volumes(G, r))


@pytest.mark.parametrize("radius", [0, 1, 2])
def test_unknown_kernel_fails_at_every_radius(radius):
    with pytest.raises(spla.UnknownNameError, match=r"unknown kernel 'bogus'"):
        daccer_volumes(nx.path_graph(3), radius, kernel="bogus", device="cpu")


@pytest.mark.parametrize("radius", [0, 1, 2])
def test_bad_progress_fails_at_every_radius(radius):
    with pytest.raises(TypeError, match="progress must be None or a callable"):
        daccer_volumes(nx.path_graph(3), radius, progress=1, device="cpu")


def test_no_rows_but_columns_is_not_square():
    with pytest.raises(spla.InvalidGraph, match="square"):
        daccer_volumes(sp.csr_array((0, 3)), device="cpu")
