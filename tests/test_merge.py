"""Building matrices from arc lists with parallel arcs: ``Matrix.from_edges(..., dup=)`` and
``Matrix.from_networkx(..., dup=)`` against dense NumPy references of GraphBLAS build's dup."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.matrix import Matrix
from spla.merge import DUPS
from spla.testing import scaled

DUP_NAMES = tuple(DUPS)


def dense_build(src, dst, values, n, dup, directed):
    """The dense matrix GraphBLAS's build gives: the listings of each pair, in listing order (an
    undirected listing is both arcs at its place), merged by ``dup``; None where no arc."""
    per = {}
    for e, (u, v) in enumerate(zip(src.tolist(), dst.tolist())):
        per.setdefault((u, v), []).append(values[e])
        if not directed and u != v:
            per.setdefault((v, u), []).append(values[e])
    merge = {"plus": sum, "min": min, "max": max, "first": lambda xs: xs[0], "last": lambda xs: xs[-1]}[dup]
    D = np.zeros((n, n))
    S = np.zeros((n, n), dtype=bool)
    for (u, v), xs in per.items():
        D[u, v] = merge(xs)
        S[u, v] = True
    return D, S


def dense_of(A):
    """A's values as a dense float array and its pattern (stored zeros included) as a bool one."""
    return A.to_scipy().toarray(), A.pattern().to_scipy(keep_dtype=True).toarray()


@st.composite
def arc_lists(draw, max_n=7, max_m=25):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    src = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    integer = draw(st.booleans())
    elems = st.integers(0, 9) if integer else st.floats(0, 10, allow_nan=False).map(lambda x: round(x, 3))
    values = np.array(draw(st.lists(elems, min_size=m, max_size=m)), dtype=np.int64 if integer else np.float64)
    return n, src, dst, values


@settings(max_examples=scaled(150))
@given(arc_lists(), st.sampled_from(DUP_NAMES), st.booleans())
def test_from_edges_dup_matches_dense_build(arcs, dup, directed):
    n, src, dst, values = arcs
    A = Matrix.from_edges(src, dst, n=n, values=values, directed=directed, device="cpu", dup=dup)
    D, S = dense_build(src, dst, values, n, dup, directed)
    got, pattern = dense_of(A)
    np.testing.assert_array_equal(pattern, S)
    if dup == "plus":  # a float sum in some order (GraphBLAS leaves it unspecified too)
        np.testing.assert_allclose(got, D, rtol=1e-14)
    else:  # the other rules pick one of the values: exact
        np.testing.assert_array_equal(got, D)
    assert A.directed == directed and A.is_symmetric == (not directed)
    if values.size:
        assert A.dtype == values.dtype
    # the pattern never depends on dup
    P = Matrix.from_edges(src, dst, n=n, directed=directed, device="cpu", dup=dup)
    assert P.is_pattern
    np.testing.assert_array_equal(P.to_scipy(keep_dtype=True).toarray(), S)


@settings(max_examples=scaled(60))
@given(arc_lists(), st.sampled_from(DUP_NAMES))
def test_from_edges_dup_directed_none_decides_by_symmetry(arcs, dup):
    n, src, dst, values = arcs
    A = Matrix.from_edges(src, dst, n=n, values=values, directed=None, device="cpu", dup=dup)
    D, _ = dense_build(src, dst, values, n, dup, True)
    np.testing.assert_allclose(A.to_scipy().toarray(), D, rtol=1e-14 if dup == "plus" else 0)
    symmetric = bool(np.array_equal(A.pattern().to_scipy().toarray(), A.pattern().to_scipy().toarray().T)
                     and np.array_equal(D, D.T))
    assert A.directed == (not symmetric)


def test_undirected_edge_listed_both_ways_is_two_listings_of_one_edge():
    src, dst, w = np.array([0, 1]), np.array([1, 0]), np.array([5.0, 3.0])
    expect = {"plus": 8.0, "min": 3.0, "max": 5.0, "first": 5.0, "last": 3.0}
    for dup, x in expect.items():
        A = Matrix.from_edges(src, dst, values=w, directed=False, device="cpu", dup=dup).to_scipy().toarray()
        assert A[0, 1] == A[1, 0] == x, dup
    # a self-loop listed once keeps its value whatever dup
    for dup in DUP_NAMES:
        A = Matrix.from_edges(np.array([0, 0]), np.array([0, 1]), values=np.array([4.0, 1.0]), device="cpu", dup=dup)
        assert A.to_scipy().toarray()[0, 0] == 4.0


def test_dup_keeps_stored_zeros_and_bool_values():
    A = Matrix.from_edges(np.array([0, 0]), np.array([1, 1]), values=np.array([0.0, 2.0]), directed=True,
                          device="cpu", dup="min")
    assert A.nnz == 1 and A.values.tolist() == [0.0]  # a stored 0 is an arc, of length 0
    B = Matrix.from_edges(np.array([0, 0]), np.array([1, 1]), values=np.array([False, True]), directed=True,
                          device="cpu", dup="max")
    assert B.dtype == np.bool_ and B.values.tolist() == [True]


def test_dup_is_checked():
    with pytest.raises(spla.UnknownNameError, match=r"dup must be one of 'plus', 'min', 'max', 'first', 'last'"):
        Matrix.from_edges(np.array([0]), np.array([1]), values=np.array([1.0]), dup="sum", device="cpu")
    with pytest.raises(spla.UnknownNameError, match="dup must be"):
        Matrix.from_edges(np.array([0]), np.array([1]), dup=None, device="cpu")


def test_from_networkx_multigraph_dup():
    nx = pytest.importorskip("networkx")
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(3))
    G.add_edge(0, 1, length=4.0)
    G.add_edge(0, 1, length=2.5)
    G.add_edge(1, 2, length=1.0)
    G.add_edge(1, 2)  # missing: 1, as networkx counts it
    expect = {None: (6.5, 2.0), "plus": (6.5, 2.0), "min": (2.5, 1.0), "max": (4.0, 1.0), "first": (4.0, 1.0),
              "last": (2.5, 1.0)}
    for dup, (a, b) in expect.items():
        D = Matrix.from_networkx(G, weight="length", device="cpu", dup=dup).to_scipy().toarray()
        assert (D[0, 1], D[1, 2]) == (a, b), dup
    # the default is networkx's to_scipy_sparse_array (sums)
    ref = nx.to_scipy_sparse_array(G, weight="length", nodelist=list(G)).toarray()
    np.testing.assert_array_equal(Matrix.from_networkx(G, weight="length", device="cpu").to_scipy().toarray(), ref)
    with pytest.raises(spla.UnknownNameError):
        Matrix.from_networkx(G, weight="length", device="cpu", dup="avg")


@settings(max_examples=scaled(40))
@given(arc_lists(max_n=6, max_m=15), st.booleans())
def test_from_networkx_min_is_what_networkx_shortest_paths_use(arcs, directed):
    """networkx's Dijkstra on a multigraph takes the minimum over parallel edges: the distances of
    the dup="min" matrix's simple graph equal the multigraph's."""
    nx = pytest.importorskip("networkx")
    n, src, dst, values = arcs
    G = nx.MultiDiGraph() if directed else nx.MultiGraph()
    G.add_nodes_from(range(n))
    for u, v, w in zip(src.tolist(), dst.tolist(), values.tolist()):
        G.add_edge(u, v, w=w)
    A = Matrix.from_networkx(G, weight="w", device="cpu", dup="min")
    S = A.astype(np.float64).to_scipy().tocoo()  # stored zeros are arcs of length 0
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(n))
    for u, v, w in zip(S.row.tolist(), S.col.tolist(), S.data.tolist()):
        H.add_edge(u, v, w=w)
    for s in range(n):
        assert nx.single_source_dijkstra_path_length(G, s, weight="w") == \
            nx.single_source_dijkstra_path_length(H, s, weight="w")
