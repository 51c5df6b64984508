"""degree_centrality against networkx, rank_correlation against scipy.stats."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.stats as stats
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
from spla.algorithms.correlation import rank_correlation
from spla.algorithms.degree import degree_centrality, degree_parts
from spla.algorithms.distances import closeness_centrality, harmonic_centrality

# ``device`` is the conftest fixture ("cpu", and "gpu:0" where there is one)
HSET = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def graphs(max_n=14, multigraph=True):
    """networkx graphs: directed or not, multi or not, self-loops, isolated vertices, random node order."""
    return testing.graphs(0, max_n, multi_edges=None if multigraph else False, shuffled_nodes=True)


def arr(d, G):
    return np.array([d[v] for v in G], dtype=np.float64)


# ----------------------------------------------------------------------------- degree
@given(G=graphs())
@HSET
def test_degree_centrality_random(G, device):
    got = degree_centrality(G, device=device)
    assert got.dtype == np.float64 and got.shape == (len(G),)
    np.testing.assert_allclose(got, arr(nx.degree_centrality(G), G), rtol=1e-12, atol=0)


@given(G=graphs(multigraph=False))
@HSET
def test_degree_centrality_matrix_input(G, device):
    if len(G) == 0:
        return
    S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight=None, format="csr")
    M = spla.Matrix.from_scipy(S, directed=G.is_directed(), device=device)
    np.testing.assert_allclose(degree_centrality(M), arr(nx.degree_centrality(G), G), rtol=1e-12)


@given(G=graphs())
@HSET
def test_degree_parts_match_networkx(G, device):
    if len(G) == 0:
        return
    A, out, in_, loops = degree_parts(G, device=device)
    to_np = spla.device.to_numpy
    if G.is_directed():
        np.testing.assert_array_equal(to_np(out), arr(dict(G.out_degree()), G))
        np.testing.assert_array_equal(to_np(in_), arr(dict(G.in_degree()), G))
    else:
        np.testing.assert_array_equal(to_np(out) + to_np(loops), arr(dict(G.degree()), G))
    np.testing.assert_array_equal(to_np(loops), [G.number_of_edges(v, v) for v in G])
    assert A.is_pattern


def test_degree_centrality_small_and_named(device):
    assert degree_centrality(nx.Graph()).shape == (0,)
    G = nx.Graph()
    G.add_node("a")
    np.testing.assert_array_equal(degree_centrality(G, device=device), [1.0])  # networkx: {node: 1}
    G.add_edge("a", "a")
    np.testing.assert_array_equal(degree_centrality(G, device=device), [1.0])
    G.add_edge("a", "b")
    np.testing.assert_array_equal(degree_centrality(G, device=device), [3.0, 1.0])  # loop counts twice
    for H in (nx.karate_club_graph(), nx.les_miserables_graph(), nx.florentine_families_graph(),
              nx.davis_southern_women_graph(), nx.grid_2d_graph(5, 7), nx.star_graph(12), nx.path_graph(9),
              nx.complete_graph(6), nx.gnp_random_graph(60, 0.1, seed=2, directed=True)):
        np.testing.assert_allclose(degree_centrality(H, device=device), arr(nx.degree_centrality(H), H),
                                   rtol=1e-12)


def test_degree_counts_entries_not_weights(device):
    S = sp.csr_array(np.array([[0, 5.0, 2.0], [5.0, 0, 0], [2.0, 0, 0]]))
    np.testing.assert_allclose(degree_centrality(S, device=device), [1.0, 0.5, 0.5])


# ----------------------------------------------------------------------------- correlation
finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(data=st.data(), n=st.integers(3, 30))
@settings(max_examples=80, deadline=None)
def test_rank_correlation_matches_scipy(data, n):
    x = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(finite, min_size=n, max_size=n)))
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return  # undefined (NaN, with a SciPy warning)
    assert rank_correlation(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert rank_correlation(x, y, "kendall") == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert rank_correlation(x, y, method="Pearson") == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-9)


@given(data=st.data(), n=st.integers(2, 12), method=st.sampled_from(["spearman", "kendall", "pearson"]))
@settings(max_examples=80, deadline=None)
def test_rank_correlation_ties_constants_nan_and_inf(data, n, method):
    """The documented edge cases against SciPy: n = 2, ties, a constant input (NaN), a NaN (NaN, as
    nan_policy="propagate") and an infinity (NaN for pearson)."""
    values = st.sampled_from([0.0, 1.0, 1.0, 2.5, -3.0, np.nan, np.inf, -np.inf])
    x = np.array(data.draw(st.lists(values, min_size=n, max_size=n), label="x"))
    y = np.array(data.draw(st.lists(values, min_size=n, max_size=n), label="y"))
    scipy_fn = {"spearman": stats.spearmanr, "kendall": stats.kendalltau, "pearson": stats.pearsonr}[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy warns on constant inputs and on inf - inf
        want = float(scipy_fn(x, y).statistic)
        got = rank_correlation(x, y, method)
    assert isinstance(got, float)
    assert got == pytest.approx(want, abs=1e-12, nan_ok=True)
    constant = len(set(x.tolist())) == 1 or len(set(y.tolist())) == 1
    if np.isnan(x).any() or np.isnan(y).any() or constant:
        assert np.isnan(got)
    if method == "pearson" and not (np.isfinite(x).all() and np.isfinite(y).all()):
        assert np.isnan(got)


def test_rank_correlation_known_values():
    x = np.arange(10.0)
    assert rank_correlation(x, x ** 3) == pytest.approx(1.0)
    assert rank_correlation(x, -x, "kendall") == pytest.approx(-1.0)
    assert rank_correlation(x, 2 * x + 1, "pearson") == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3, 4], [1, 3, 2, 4], "kendall") == pytest.approx(2 / 3)
    assert isinstance(rank_correlation(list(x), tuple(x)), float)


def test_rank_correlation_errors():
    with pytest.raises(spla.UnknownNameError, match="spearman"):
        rank_correlation([1, 2, 3], [1, 2, 3], method="cosine")
    with pytest.raises(ValueError, match="same length"):
        rank_correlation([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2"):
        rank_correlation([1], [1])
    with pytest.raises(ValueError, match="1-D"):
        rank_correlation(np.ones((2, 2)), np.ones((2, 2)))


def test_degree_centrality_no_rows_but_columns_is_not_square():
    """A (0, 3) matrix must not pass as the empty graph."""
    for X in (sp.csr_array((0, 3)), np.zeros((0, 3))):
        with pytest.raises(spla.InvalidGraph, match=r"must be square, got shape \(0, 3\)"):
            degree_centrality(X, device="cpu")
    assert degree_centrality(sp.csr_array((0, 0)), device="cpu").shape == (0,)


def test_centralities_correlate_on_karate(device):
    """The seeds' kind of comparison: closeness vs harmonic vs degree on karate club."""
    G = nx.karate_club_graph()
    c = closeness_centrality(G, device=device)
    h = harmonic_centrality(G, device=device)
    d = degree_centrality(G, device=device)
    assert rank_correlation(c, h) > 0.95
    assert rank_correlation(c, d, "kendall") > 0.3
    ref = stats.pearsonr(arr(nx.closeness_centrality(G), G), arr(nx.degree_centrality(G), G)).statistic
    assert rank_correlation(c, d, "pearson") == pytest.approx(ref, abs=1e-12)
