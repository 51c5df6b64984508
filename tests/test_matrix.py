"""spla.Matrix: constructors against SciPy and networkx, transpose, degrees, storage (CSC,
lazy COOC, index dtypes, footprint); and the spla.testing strategies that build them."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
import spla.matrix
from spla import device as _dev
from spla import semirings as sr
from spla.testing import assert_equal, graphs, identity, matrices, scaled, to_dense, vectors


def dense(A):
    """(values as float64 dense, present) of a Matrix; pattern entries are 1."""
    values, present = to_dense(A)
    return (present.astype(np.float64) if values is None else values.astype(np.float64)), present


def assert_same_matrix(A, S, *, pattern=None):
    """A (spla.Matrix) stores exactly S's entries (S: scipy sparse or dense, explicit zeros count)."""
    S = sp.csc_array(S)
    S.sum_duplicates()
    S.sort_indices()
    assert A.shape == S.shape
    np.testing.assert_array_equal(_dev.to_numpy(A.colptr), S.indptr)
    np.testing.assert_array_equal(_dev.to_numpy(A.rowidx), S.indices)
    if pattern is not None:
        assert A.is_pattern == pattern
    if not A.is_pattern:
        np.testing.assert_array_equal(_dev.to_numpy(A.values), S.data)


def check_invariants(A):
    colptr, rowidx = _dev.to_numpy(A.colptr), _dev.to_numpy(A.rowidx)
    assert colptr.shape == (A.shape[1] + 1,) and colptr[0] == 0 and colptr[-1] == A.nnz
    assert np.all(np.diff(colptr) >= 0)
    assert colptr.dtype == rowidx.dtype == A.index_dtype
    assert A.index_dtype == spla.matrix.index_dtype(A.nnz, *A.shape)
    if A.nnz:
        assert rowidx.min() >= 0 and rowidx.max() < A.shape[0]
    # rows strictly increasing within each column (sorted, no duplicates)
    cols = np.repeat(np.arange(A.shape[1]), np.diff(colptr))
    if A.nnz > 1:
        same = cols[1:] == cols[:-1]
        assert np.all(rowidx[1:][same] > rowidx[:-1][same])
    if A.values is None:
        assert A.is_pattern and A.dtype == np.bool_
    else:
        assert A.values.shape == (A.nnz,) and A.dtype == A.values.dtype


# =============================================================================== from_scipy
def test_from_scipy_symmetric_is_undirected():
    S = sp.csc_array(np.array([[0, 2, 0], [2, 0, 3], [0, 3, 1]], dtype=np.float64))
    A = spla.Matrix.from_scipy(S, device="cpu")
    assert not A.directed and A.T is A
    assert_same_matrix(A, S, pattern=False)


def test_from_scipy_asymmetric_values_is_directed():
    S = sp.csc_array(np.array([[0, 2], [5, 0]], dtype=np.float64))    # symmetric pattern, not values
    A = spla.Matrix.from_scipy(S, device="cpu")
    assert A.directed and A.T is not A
    assert_same_matrix(A.T, S.T)


def test_from_scipy_directed_flag_and_shapes():
    S = sp.csc_array(np.eye(3))
    A = spla.Matrix.from_scipy(S, directed=True, device="cpu")
    assert A.directed and A.T is not A
    assert_same_matrix(A.T, S)
    R = spla.Matrix.from_scipy(sp.random(3, 5, density=0.4, random_state=1), device="cpu")
    assert R.directed and R.shape == (3, 5) and R.T.shape == (5, 3)
    D = spla.Matrix.from_scipy(np.array([[0, 1], [0, 0]]), device="cpu")    # dense input
    assert D.directed and D.nnz == 1


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
def test_from_scipy_formats(fmt):
    rng = np.random.default_rng(0)
    M = (rng.random((6, 6)) < 0.4) * rng.integers(2, 9, (6, 6))
    S = sp.csc_array(M).asformat(fmt)
    A = spla.Matrix.from_scipy(S, device="cpu")
    assert_same_matrix(A, sp.csc_array(M))
    check_invariants(A)


def test_from_scipy_pattern_detection():
    B = sp.csc_array(np.array([[0, 1], [1, 1]], dtype=bool))
    assert spla.Matrix.from_scipy(B, device="cpu").is_pattern
    ones = sp.csc_array(np.array([[0, 1.0], [0, 0]]))
    assert spla.Matrix.from_scipy(ones, device="cpu").is_pattern
    A = spla.Matrix.from_scipy(sp.csc_array(np.array([[0, 2], [0, 0]], dtype=np.int32)), device="cpu")
    assert not A.is_pattern and A.dtype == np.int32
    E = spla.Matrix.from_scipy(sp.csc_array((3, 3)), device="cpu")
    assert E.nnz == 0 and E.is_pattern


def test_from_scipy_keeps_explicit_zeros_and_sums_duplicates():
    S = sp.coo_array((np.array([0.0, 1.5, 2.0, 2.0]), (np.array([0, 1, 2, 2]), np.array([1, 2, 0, 0]))), shape=(3, 3))
    A = spla.Matrix.from_scipy(S, device="cpu")
    values, present = dense(A)
    assert A.nnz == 3 and present[0, 1]
    assert values[0, 1] == 0.0 and values[1, 2] == 1.5 and values[2, 0] == 4.0
    assert S.nnz == 4      # the caller's matrix is not modified


def test_from_scipy_undirected_symmetrises():
    """directed=False on an unsymmetric matrix gives a symmetric one: the pattern union, an
    entry stored in one direction only mirrored with its value."""
    S = sp.csc_array(np.array([[0, 2, 0], [0, 0, 0], [7, 0, 0]], dtype=np.float64))
    A = spla.Matrix.from_scipy(S, directed=False, device="cpu")
    assert not A.directed and A.T is A
    values, present = dense(A)
    np.testing.assert_array_equal(present, (S + S.T).toarray() != 0)
    np.testing.assert_array_equal(values, np.array([[0, 2, 7], [2, 0, 0], [7, 0, 0]]))
    P = spla.Matrix.from_scipy(sp.csc_array(np.array([[0, 1], [0, 0]], dtype=bool)), directed=False, device="cpu")
    assert P.is_pattern and P.nnz == 2 and P.T is P


def test_from_scipy_one_way_explicit_zero_is_directed():
    """An explicitly stored zero is an arc: stored one way only, the pattern is not symmetric,
    so the graph is directed (comparing values alone would call it undirected and make A.T A)."""
    S = sp.coo_array((np.array([0.0]), (np.array([0]), np.array([1]))), shape=(2, 2)).tocsc()
    assert S.nnz == 1
    A = spla.Matrix.from_scipy(S, device="cpu")
    assert A.directed and A.T is not A
    assert_same_matrix(A.T, S.T, pattern=False)
    U = spla.Matrix.from_scipy(S, directed=False, device="cpu")
    assert not U.directed and U.T is U and U.nnz == 2

def test_from_scipy_bool_values():
    """A bool matrix of stored Trues is a pattern; a stored False is an arc whose value is False
    (as from_edges keeps it), so False one way and True the other is not symmetric."""
    B = sp.coo_array((np.array([True, True]), (np.array([0, 1]), np.array([1, 0]))), shape=(2, 2)).tocsc()
    P = spla.Matrix.from_scipy(B, device="cpu")
    assert P.is_pattern and not P.directed and P.T is P and P.nnz == 2
    B = sp.coo_array((np.array([False, True]), (np.array([0, 1]), np.array([1, 0]))), shape=(2, 2)).tocsc()
    A = spla.Matrix.from_scipy(B, device="cpu")
    assert not A.is_pattern and A.directed and A.dtype == np.bool_ and A.nnz == 2
    u = np.array([True, False])
    assert_equal(spla.vxm(u, A, "lor_land"), np.array([False, False]))  # y[1] = u[0] and A[0, 1] = False
    assert_equal(spla.vxm(u, A, "any_pair"), np.array([False, True]))   # the arc 0 -> 1 exists
    E = spla.Matrix.from_edges([0], [1], values=np.array([False]), directed=True, device="cpu")
    assert_equal(spla.vxm(u, E, "lor_land"), spla.vxm(u, A, "lor_land"))
    with pytest.raises(spla.InvalidGraph, match=r"stores \(i, j\) and \(j, i\) with different values"):
        spla.Matrix.from_scipy(B, directed=False, device="cpu")


@settings(max_examples=scaled(80), deadline=None)
@given(n=st.integers(1, 7), data=st.data())
def test_from_scipy_undirected_is_the_union(n, data):
    """directed=False against a dict of entries: the union of both directions, explicit zeros
    kept, a value stored both ways with two different values refused."""
    cells = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    entries = data.draw(st.dictionaries(cells, st.sampled_from([0.0, 1.0, 2.5, -3.0]), max_size=n * n))
    rows = np.array([i for i, _ in entries], dtype=np.int64)
    cols = np.array([j for _, j in entries], dtype=np.int64)
    S = sp.coo_array((np.array(list(entries.values()), dtype=np.float64), (rows, cols)), shape=(n, n)).tocsc()
    union = dict(entries)
    conflict = False
    for (i, j), v in entries.items():
        if (j, i) in entries and entries[j, i] != v:
            conflict = True
        union.setdefault((j, i), v)
    if conflict:
        with pytest.raises(spla.InvalidGraph, match="different values"):
            spla.Matrix.from_scipy(S, directed=False, device="cpu")
        return
    A = spla.Matrix.from_scipy(S, directed=False, device="cpu")
    assert not A.directed and A.T is A and A.nnz == len(union)
    values, present = dense(A)
    for (i, j), v in union.items():
        assert present[i, j] and values[i, j] == v
    check_invariants(A)


def test_from_scipy_undirected_refuses_conflicting_directions():
    """Both (0, 1) and (1, 0) stored with different values: no undirected value is right, so
    directed=False refuses instead of choosing silently (A.T is A must stay true)."""
    S = sp.csc_array(np.array([[0, 2.0], [3.0, 0]]))
    with pytest.raises(spla.InvalidGraph, match="different values"):
        spla.Matrix.from_scipy(S, directed=False, device="cpu")
    A = spla.Matrix.from_scipy(S.maximum(S.T), directed=False, device="cpu")
    assert A.T is A
    np.testing.assert_array_equal(spla.mxv(A, np.array([1.0, 0.0]), "plus_times"), [0.0, 3.0])


@settings(max_examples=scaled(60), deadline=None)
@given(M=matrices(max_rows=9, pattern=False, dtype=[np.float64, np.int64]), directed=st.sampled_from([None, True]))
def test_from_scipy_round_trip(M, directed):
    S = M.to_scipy()
    assert isinstance(S, sp.csc_array)
    A = spla.Matrix.from_scipy(S, directed=directed, device="cpu")
    np.testing.assert_array_equal(A.to_scipy().toarray(), S.toarray())
    assert A.nnz == M.nnz
    if directed is None:
        assert A.directed == (not (S.shape[0] == S.shape[1] and (S != S.T).nnz == 0))


@settings(max_examples=scaled(60), deadline=None)
@given(M=matrices(max_rows=9, pattern=False, dtype=[np.float64, np.int64, np.bool_]),
       directed=st.sampled_from([None, True]))
def test_from_scipy_dense_array_is_its_nonzeros(M, directed):
    """A dense 2-D NumPy array (what every algorithm takes besides SciPy, spla.Matrix and networkx):
    its non-zero entries are the arcs, as networkx's from_numpy_array reads it, values kept (all 1 or
    True: pattern-only), an array equal to its transpose undirected unless directed=True."""
    D = M.to_scipy().toarray()
    A = spla.Matrix.from_scipy(D, directed=directed, device="cpu")
    assert_same_matrix(A, sp.csc_array(D), pattern=bool(np.all(D[D != 0] == 1)))
    square = D.shape[0] == D.shape[1]
    assert A.directed == (directed is True or not (square and np.array_equal(D, D.T)))
    if square and D.shape[0]:
        H = nx.from_numpy_array(D, create_using=nx.DiGraph)
        assert A.nnz == H.number_of_edges()
        assert all(present for present in (to_dense(A)[1][i, j] for i, j in H.edges))
    check_invariants(A)


# =============================================================================== from_edges
def test_from_edges_merges_duplicates_and_keeps_self_loops():
    src, dst = np.array([0, 0, 1, 2, 2]), np.array([1, 1, 2, 2, 2])
    A = spla.Matrix.from_edges(src, dst, directed=True, device="cpu")
    assert A.is_pattern and A.shape == (3, 3) and A.directed
    _, present = dense(A)
    np.testing.assert_array_equal(present, np.array([[0, 1, 0], [0, 0, 1], [0, 0, 1]], dtype=bool))
    W = spla.Matrix.from_edges(src, dst, values=np.array([1.0, 2.0, 4.0, 8.0, 16.0]), directed=True, device="cpu")
    values, _ = dense(W)
    np.testing.assert_array_equal(values, np.array([[0, 3, 0], [0, 0, 4], [0, 0, 24]]))


def test_from_edges_undirected_mirrors():
    src, dst = np.array([0, 1, 2, 3]), np.array([1, 0, 2, 1])    # 0-1 listed both ways, loop at 2
    A = spla.Matrix.from_edges(src, dst, device="cpu")
    assert not A.directed and A.T is A and A.is_pattern
    _, present = dense(A)
    expect = np.zeros((4, 4), bool)
    expect[[0, 1, 2, 1, 3], [1, 0, 2, 3, 1]] = True
    np.testing.assert_array_equal(present, expect)
    G = nx.Graph([(0, 1), (1, 0), (2, 2), (3, 1)])
    np.testing.assert_array_equal(present, nx.to_numpy_array(G, nodelist=range(4)) != 0)
    # a self-loop's value is not doubled, a mirrored edge keeps its value
    W = spla.Matrix.from_edges(np.array([2, 0]), np.array([2, 3]), values=np.array([5.0, 7.0]), device="cpu")
    values, _ = dense(W)
    assert values[2, 2] == 5.0 and values[0, 3] == 7.0 and values[3, 0] == 7.0


def test_from_edges_undirected_values_count_every_listing():
    """directed=False with values: each listed pair is one edge of a multigraph, so an edge listed
    both ways has both weights (as networkx's MultiGraph gives), a self-loop listed once keeps its own."""
    W = spla.Matrix.from_edges([0, 1, 2], [1, 0, 2], values=np.array([3.0, 3.0, 5.0]), device="cpu")
    M = nx.MultiGraph()
    M.add_weighted_edges_from([(0, 1, 3.0), (1, 0, 3.0), (2, 2, 5.0)])
    np.testing.assert_array_equal(dense(W)[0], nx.to_numpy_array(M, nodelist=range(3)))
    assert dense(W)[0][0, 1] == 6.0 and dense(W)[0][2, 2] == 5.0


def test_from_edges_directed_none_decides_by_symmetry():
    S = spla.Matrix.from_edges([0, 1, 2], [1, 0, 2], values=np.array([2.0, 2.0, 5.0]), directed=None, device="cpu")
    assert not S.directed and S.T is S and S.nnz == 3 and dense(S)[0][0, 1] == 2.0
    D = spla.Matrix.from_edges([0, 1], [1, 0], values=np.array([2.0, 7.0]), directed=None, device="cpu")
    assert D.directed and D.T is not D
    P = spla.Matrix.from_edges([0, 1], [1, 2], directed=None, device="cpu")
    assert P.directed and P.is_pattern and P.nnz == 2


def test_nan_weights_stored_both_ways_are_symmetric():
    """A NaN weight stored both ways is a symmetric entry (NaN != NaN must not make it 'conflicting')."""
    X = np.array([[0.0, np.nan], [np.nan, 1.0]])
    A = spla.Matrix.from_scipy(sp.csc_array(X), device="cpu")
    assert not A.directed and A.T is A
    B = spla.Matrix.from_scipy(sp.csc_array(X), directed=False, device="cpu")
    assert B.T is B and B.nnz == 3
    G = nx.Graph()
    G.add_edge(0, 1, weight=float("nan"))
    W = spla.Matrix.from_networkx(G, weight="weight", device="cpu")
    assert not W.directed and np.isnan(dense(W)[0][[0, 1], [1, 0]]).all()
    H = spla.Matrix.from_scipy(sp.csc_array(np.array([[0.0, np.nan], [2.0, 0.0]])), directed=None, device="cpu")
    assert H.directed


def test_from_edges_sizes():
    A = spla.Matrix.from_edges(np.array([0]), np.array([1]), n=5, device="cpu")
    assert A.shape == (5, 5) and A.nnz == 2
    E = spla.Matrix.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=3, device="cpu")
    assert E.shape == (3, 3) and E.nnz == 0
    Z = spla.Matrix.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), device="cpu")
    assert Z.shape == (0, 0)
    L = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")      # plain lists
    assert L.shape == (3, 3) and L.nnz == 4
    U = spla.Matrix.from_edges(np.array([0], np.uint8), np.array([3], np.uint64), device="cpu")
    assert U.shape == (4, 4)


@settings(max_examples=scaled(60), deadline=None)
@given(G=graphs(max_nodes=10, multi_edges=False))
def test_from_edges_matches_networkx(G):
    n = G.number_of_nodes()
    e = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    A = spla.Matrix.from_edges(e[:, 0], e[:, 1], n=n, directed=G.is_directed(), device="cpu")
    _, present = dense(A)
    np.testing.assert_array_equal(present, nx.to_numpy_array(G, nodelist=range(n)) != 0)
    assert A.directed == G.is_directed()
    check_invariants(A)


# =============================================================================== from_networkx
def test_from_networkx_node_order_and_weights():
    G = nx.DiGraph()
    G.add_nodes_from(["c", "a", "b"])
    G.add_edge("c", "a", weight=2.5)
    G.add_edge("a", "b")                       # no weight attribute: counts 1
    G.add_edge("b", "b", weight=4.0)
    A = spla.Matrix.from_networkx(G, weight="weight", device="cpu")
    assert A.directed and A.shape == (3, 3)
    values, present = dense(A)
    np.testing.assert_array_equal(values, np.array([[0, 2.5, 0], [0, 0, 1.0], [0, 0, 4.0]]))
    P = spla.Matrix.from_networkx(G, device="cpu")
    assert P.is_pattern
    np.testing.assert_array_equal(dense(P)[1], present)


def test_from_networkx_keeps_the_weights_dtype():
    """Integer weights stay exact int64 (a float64 copy would round 2**60 + 1); self-loop weights are
    their own (networkx's converter computes w + w - w, which is NaN for w = inf)."""
    G = nx.Graph()
    G.add_edge(0, 1, weight=2**60 + 1)
    G.add_edge(1, 1, weight=7)
    A = spla.Matrix.from_networkx(G, weight="weight", device="cpu")
    assert A.dtype == np.int64 and int(A.to_scipy()[0, 1]) == 2**60 + 1
    y = spla.vxm(np.array([1, 0], dtype=np.int64), A, "plus_times")
    np.testing.assert_array_equal(y, np.array([0, 2**60 + 1], dtype=np.int64))
    F = nx.DiGraph()
    F.add_edge(0, 0, weight=np.inf)
    F.add_edge(0, 1, weight=np.float32(0.5))
    B = spla.Matrix.from_networkx(F, weight="weight", device="cpu")
    assert B.dtype == np.float64 and dense(B)[0][0, 0] == np.inf
    U = nx.Graph()
    U.add_edge(0, 0, weight=np.inf)
    assert dense(spla.Matrix.from_networkx(U, weight="weight", device="cpu"))[0][0, 0] == np.inf
    O = nx.Graph([(0, 1), (1, 2)])      # weights all 1 (missing): a pattern
    assert spla.Matrix.from_networkx(O, weight="weight", device="cpu").is_pattern


def test_from_networkx_exact_and_half_precision_weights():
    """Fraction and Decimal weights become float64; float16 values (SciPy has no float16 sparse arrays)
    become float32 exactly, in every constructor."""
    import decimal
    import fractions

    G = nx.Graph()
    G.add_edge(0, 1, weight=fractions.Fraction(1, 4))
    G.add_edge(1, 2, weight=decimal.Decimal("2.5"))
    A = spla.Matrix.from_networkx(G, weight="weight", device="cpu")
    assert A.dtype == np.float64 and dense(A)[0][0, 1] == 0.25 and dense(A)[0][2, 1] == 2.5
    H = nx.DiGraph()
    H.add_edge(0, 1, weight=np.float16(0.5))
    half = np.array([0.5, 1.5], dtype=np.float16)
    for M in (spla.Matrix.from_networkx(H, weight="weight", device="cpu"),
              spla.Matrix.from_edges([0, 1], [1, 0], values=half, directed=True, device="cpu"),
              spla.Matrix.from_csc([0, 1, 2], [1, 0], half[::-1], (2, 2), device="cpu"),
              spla.Matrix.from_scipy(np.array([[0, 0.5], [1.5, 0]], dtype=np.float16), device="cpu")):
        assert M.dtype == np.float32 and dense(M)[0][1, 0] in (0.0, 1.5) and dense(M)[0][0, 1] == 0.5


def test_from_networkx_empty_graphs():
    for G in (nx.Graph(), nx.DiGraph(), nx.MultiGraph()):
        A = spla.Matrix.from_networkx(G, device="cpu")
        assert A.shape == (0, 0) and A.nnz == 0 and A.directed == G.is_directed()
    A = spla.Matrix.from_networkx(nx.empty_graph(3), weight="weight", device="cpu")
    assert A.shape == (3, 3) and A.nnz == 0


def test_from_networkx_multigraph_merges():
    M = nx.MultiGraph()
    M.add_nodes_from(range(3))
    M.add_edge(0, 1, weight=1.5)
    M.add_edge(0, 1, weight=2.0)
    M.add_edge(1, 2, weight=1.0)
    A = spla.Matrix.from_networkx(M, weight="weight", device="cpu")
    assert not A.directed and A.T is A
    values, _ = dense(A)
    np.testing.assert_array_equal(values, np.array([[0, 3.5, 0], [3.5, 0, 1.0], [0, 1.0, 0]]))
    P = spla.Matrix.from_networkx(M, device="cpu")
    assert P.is_pattern and P.nnz == 4


@settings(max_examples=scaled(80), deadline=None)
@given(G=graphs(max_nodes=12, weighted=True),
       weighted=st.booleans())
def test_from_networkx_matches_networkx(G, weighted):
    order = list(G)[::-1]                      # a node order other than 0..n-1
    H = G.__class__()
    H.add_nodes_from(order)
    H.add_edges_from(G.edges(data=True))
    A = spla.Matrix.from_networkx(H, weight="weight" if weighted else None, device="cpu")
    if len(G) == 0:   # networkx cannot convert an empty graph; spla gives a 0 x 0 matrix
        assert A.shape == (0, 0) and A.nnz == 0
        return
    S = nx.to_scipy_sparse_array(H, nodelist=order, weight="weight" if weighted else None, format="csc")
    np.testing.assert_array_equal(A.to_scipy().toarray() != 0, S.toarray() != 0)
    if weighted:
        np.testing.assert_array_equal(A.to_scipy().toarray(), S.toarray())
    assert A.directed == G.is_directed()
    if not G.is_directed():
        assert A.T is A
    check_invariants(A)


@settings(max_examples=scaled(40), deadline=None)
@given(G=graphs(max_nodes=10, multi_edges=True, weighted=True))
def test_from_networkx_multigraphs(G):
    A = spla.Matrix.from_networkx(G, weight="weight", device="cpu")
    if len(G) == 0:
        assert A.shape == (0, 0)
        return
    S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight", format="csc")
    np.testing.assert_allclose(A.to_scipy().toarray(), S.toarray())
    P = spla.Matrix.from_networkx(G, device="cpu")
    assert P.is_pattern
    np.testing.assert_array_equal(P.to_scipy().toarray() != 0, S.toarray() != 0)


# =============================================================================== T, degrees
@settings(max_examples=scaled(80), deadline=None)
@given(A=matrices(max_rows=10))
def test_transpose(A):
    T = A.T
    assert T is A.T                             # cached
    assert T.T is A
    assert T.shape == A.shape[::-1] and T.nnz == A.nnz and T.device == A.device
    assert T.is_pattern == A.is_pattern and T.dtype == A.dtype and T.directed == A.directed
    np.testing.assert_array_equal(T.to_scipy().toarray(), A.to_scipy().toarray().T)
    check_invariants(T)
    if not A.directed:
        assert T is A


@settings(max_examples=scaled(80), deadline=None)
@given(A=matrices(max_rows=10))
def test_degrees(A):
    _, present = to_dense(A)
    out_d, in_d = A.out_degree(), A.in_degree()
    assert out_d.dtype == np.int64 and in_d.dtype == np.int64
    np.testing.assert_array_equal(_dev.to_numpy(out_d), present.sum(axis=1))
    np.testing.assert_array_equal(_dev.to_numpy(in_d), present.sum(axis=0))
    np.testing.assert_array_equal(_dev.to_numpy(A.T.out_degree()), present.sum(axis=0))


def test_degrees_vs_networkx():
    G = nx.gnp_random_graph(30, 0.15, seed=3, directed=True)
    G.add_edge(4, 4)
    A = spla.Matrix.from_networkx(G, device="cpu")
    np.testing.assert_array_equal(A.out_degree(), [G.out_degree(v) for v in G])
    np.testing.assert_array_equal(A.in_degree(), [G.in_degree(v) for v in G])
    U = nx.gnp_random_graph(30, 0.15, seed=4)
    B = spla.Matrix.from_networkx(U, device="cpu")
    np.testing.assert_array_equal(B.out_degree(), [U.degree(v) for v in U])


# =============================================================================== storage
def test_colidx_is_lazy():
    A = spla.Matrix.from_edges(np.array([0, 1, 1, 3]), np.array([1, 2, 0, 3]), directed=True, device="cpu")
    assert A._colidx is None
    before = A.nbytes
    c = A.colidx
    np.testing.assert_array_equal(c, np.repeat(np.arange(4), np.diff(A.colptr)))
    assert c.dtype == A.index_dtype
    assert A.colidx is c                        # cached
    assert A.nbytes == before + c.nbytes
    assert A.T._colidx is None


def test_colidx_is_not_built_by_constructors_or_transpose():
    G = nx.gnp_random_graph(20, 0.3, seed=1, directed=True)
    for A in (spla.Matrix.from_networkx(G, device="cpu"),
              spla.Matrix.from_scipy(nx.to_scipy_sparse_array(G), device="cpu"),
              spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="cpu")):
        assert A._colidx is None
        assert A.T._colidx is None and A._colidx is None


def test_index_dtype_selection():
    idx = spla.matrix.index_dtype
    assert idx(5, 3, 3) == np.int32
    assert idx(0) == np.int32 and idx(0, 0, 0) == np.int32
    assert idx(2**31 - 2, 5, 5) == np.int32
    assert idx(2**31, 5) == np.int64
    assert idx(2**31 + 7, 10, 10) == np.int64
    assert idx(5, 2**31, 3) == np.int64
    assert idx(5, 3, 2**31) == np.int64
    assert idx(2**40, 2**33, 2**33) == np.int64


def test_int32_indices_normally():
    A = spla.Matrix.from_scipy(sp.random(50, 40, density=0.1, random_state=2), device="cpu")
    assert A.colptr.dtype == np.int32 and A.rowidx.dtype == np.int32 and A.T.colptr.dtype == np.int32


def test_int64_indices_when_forced(monkeypatch):
    monkeypatch.setattr(spla.matrix, "INT32_MAX", 10)
    A = spla.Matrix.from_edges(np.arange(12), (np.arange(12) + 1) % 12, directed=True, device="cpu")
    assert A.index_dtype == np.int64 and A.rowidx.dtype == np.int64
    assert A.colidx.dtype == np.int64
    check_invariants(A)


@pytest.mark.parametrize("n,edges", [(0, []), (1, []), (5, [(0, 1), (1, 2)]), (100, [(i, (i * 7) % 100) for i in range(100)])])
def test_nbytes_pattern_int32(n, edges):
    e = np.array(edges, dtype=np.int64).reshape(-1, 2)
    A = spla.Matrix.from_edges(e[:, 0], e[:, 1], n=n, directed=True, device="cpu")
    m = A.nnz
    assert A.index_dtype == np.int32 and A.is_pattern
    assert A.nbytes == 4 * (n + 1 + m)
    A.colidx
    assert A.nbytes == 4 * (n + 1 + 2 * m)
    W = spla.Matrix.from_edges(e[:, 0], e[:, 1], n=n, values=np.arange(len(e), dtype=np.float64) + 2,
                               directed=True, device="cpu")
    assert W.nbytes == 4 * (n + 1 + W.nnz) + 8 * W.nnz


def test_from_csc_sorts_and_merges():
    # column 0: rows 2, 0 (unsorted); column 1: row 1 twice (merged, summed)
    A = spla.Matrix.from_csc(np.array([0, 2, 4]), np.array([2, 0, 1, 1]), np.array([1.0, 2.0, 3.0, 4.0]), (3, 2),
                             device="cpu")
    values, present = dense(A)
    np.testing.assert_array_equal(values, np.array([[2.0, 0], [0, 7.0], [1.0, 0]]))
    check_invariants(A)
    P = spla.Matrix.from_csc([0, 1], [0], None, (1, 1), device="cpu")
    assert P.is_pattern and P.nnz == 1


@pytest.mark.parametrize("directed", [None, False, True])
def test_from_csc_directed_as_from_scipy(directed):
    """from_csc's ``directed`` means what from_scipy's does (default True): None decides by
    symmetry, False checks it and symmetrises, True keeps a separate transpose."""
    sym = sp.csc_array(np.array([[0, 2.0, 0], [2.0, 0, 1.0], [0, 1.0, 1.0]]))
    A = spla.Matrix.from_csc(sym.indptr, sym.indices, sym.data, sym.shape, directed=directed, device="cpu")
    assert A.directed == (directed is True) and (A.T is A) == (directed is not True)
    assert_same_matrix(A, sym, pattern=False)
    one_way = sp.csc_array(np.array([[0, 1], [0, 0]], dtype=bool))
    B = spla.Matrix.from_csc(one_way.indptr, one_way.indices, None, one_way.shape, directed=directed, device="cpu")
    if directed is False:
        assert not B.directed and B.T is B and B.nnz == 2
    else:
        assert B.directed and B.T is not B and B.nnz == 1
    assert spla.Matrix.from_csc(sym.indptr, sym.indices, None, sym.shape, device="cpu").directed


def test_to_scipy_and_to():
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="cpu")
    S = A.to_scipy()
    assert isinstance(S, sp.csc_array) and S.dtype == np.float64
    np.testing.assert_array_equal(S.toarray(), np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    assert A.to("cpu") is A
    assert A.device == "cpu" and A.xp is np
    assert "shape=(3, 3)" in repr(A) and "undirected" in repr(A)


def test_to_device_and_back(device):
    A = spla.Matrix.from_edges(np.array([0, 1, 2]), np.array([1, 2, 2]), values=np.array([1.0, 2.0, 3.0]),
                               directed=True, device="cpu")
    B = A.to(device)
    assert B.device == device and B.shape == A.shape and B.nnz == A.nnz and B.dtype == A.dtype
    C = B.to("cpu")
    np.testing.assert_array_equal(C.to_scipy().toarray(), A.to_scipy().toarray())
    np.testing.assert_array_equal(_dev.to_numpy(B.T.colptr), A.T.colptr)
    U = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device="cpu").to(device)
    assert U.T is U


@settings(max_examples=scaled(80), deadline=None)
@given(A=matrices(0, 12, 0, 9, specials=True))
def test_transpose_arrays_by_key_sort_equal_scipys(A):
    """spla.transpose.csc_of_transpose, the GPU's path, run on NumPy: SciPy's transpose exactly, for
    rectangular, empty and valued matrices (NaN and -0.0 values kept bit for bit)."""
    import spla.transpose

    S = A.to_scipy(keep_dtype=True).T.tocsc()
    S.sort_indices()
    ptr, rows, vals = spla.transpose.csc_of_transpose(np, A.colptr, A.rowidx, A.values, A.shape, A.out_degree())
    assert ptr.dtype == rows.dtype == A.index_dtype
    vsize = 0 if vals is None else vals.itemsize
    assert spla.transpose.device_bytes(A.shape, A.nnz, ptr.itemsize, vsize) >= ptr.nbytes + rows.nbytes + vsize * A.nnz
    np.testing.assert_array_equal(ptr, S.indptr)
    np.testing.assert_array_equal(rows, S.indices)
    if A.is_pattern:
        assert vals is None
    else:
        assert vals.dtype == A.dtype
        np.testing.assert_array_equal(vals.view(np.uint8), np.ascontiguousarray(S.data).view(np.uint8))


@settings(max_examples=scaled(30), deadline=None)
@given(data=st.data())
def test_transpose_on_every_device(device, data):
    """A.T on the matrix's device (a GPU builds it there) is SciPy's transpose; T of T is A."""
    A = data.draw(matrices(0, 40, 0, 30, directed=True), label="A").to(device)
    T = A.T
    assert T.device == device and T.T is A and T.directed
    check_invariants(T)
    assert_same_matrix(T, A.to_scipy(keep_dtype=True).T)


@pytest.mark.gpu
def test_transpose_falls_back_to_the_host_without_device_memory(monkeypatch):
    """A GPU whose free memory cannot hold the sort's arrays transposes on the host, with the same result."""
    A = spla.Matrix.from_scipy(sp.random(50, 40, density=0.2, random_state=3, format="csc"), directed=True,
                               device="gpu:0")
    monkeypatch.setattr(spla.memory, "available_bytes", lambda device: 0)
    T = A.T
    assert T.device == "gpu:0"
    assert_same_matrix(T, A.to_scipy(keep_dtype=True).T)


# =============================================================================== the strategies
@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_matrices_strategy_honours_its_options(data):
    opts = data.draw(st.fixed_dictionaries({
        "pattern": st.sampled_from([None, True, False]),
        "self_loops": st.booleans(),
        "empty_columns": st.booleans(),
        "directed": st.sampled_from([None, True, False]),
        "square": st.booleans(),
        "dtype": st.sampled_from([None, np.float32, np.int64]),
    }), label="opts")
    A = data.draw(matrices(1, 8, 2, 6, **opts), label="A")
    check_invariants(A)
    assert 1 <= A.shape[0] <= 8 and 2 <= A.shape[1] <= 6
    _, present = to_dense(A)
    if opts["pattern"] is not None:
        assert A.is_pattern == opts["pattern"]
    if opts["dtype"] is not None and not A.is_pattern:
        assert A.dtype == np.dtype(opts["dtype"])
    if opts["directed"] is False or opts["square"]:
        assert A.shape[0] == A.shape[1]
    if opts["directed"] is False:
        assert not A.directed and A.T is A
        np.testing.assert_array_equal(present, present.T)
    if opts["directed"] is True:
        assert A.directed
    if not opts["self_loops"] and A.shape[0] == A.shape[1]:
        assert not np.any(np.diag(present))
    if not opts["empty_columns"]:
        assert np.all(present.any(axis=0))


@settings(max_examples=scaled(6), deadline=None)
@given(A=matrices(0, 1100, 1, 5, heavy_columns=True, density=0.01))
def test_matrices_strategy_heavy_columns(A):
    lengths = _dev.to_numpy(A.in_degree())
    assert A.shape[0] > 1024
    assert lengths.max() > 1024
    assert np.any((lengths > 32) & (lengths <= 1024)) or A.shape[1] == 1


@settings(max_examples=scaled(5), deadline=None)
@given(A=matrices(0, 40, heavy_columns=True, directed=False))
def test_matrices_strategy_heavy_columns_small(A):
    assert _dev.to_numpy(A.in_degree()).max() > 32 and A.T is A


@settings(max_examples=scaled(60), deadline=None)
@given(data=st.data())
def test_graphs_strategy_honours_its_options(data):
    opts = data.draw(st.fixed_dictionaries({
        "directed": st.sampled_from([None, True, False]),
        "self_loops": st.booleans(),
        "multi_edges": st.booleans(),
        "disconnected": st.booleans(),
        "weighted": st.booleans(),
    }), label="opts")
    G = data.draw(graphs(0, 9, **opts), label="G")
    n = G.number_of_nodes()
    assert list(G) == list(range(n))
    assert G.is_multigraph() == opts["multi_edges"]
    if opts["directed"] is not None:
        assert G.is_directed() == opts["directed"]
    if not opts["self_loops"]:
        assert nx.number_of_selfloops(G) == 0
    if not opts["disconnected"] and n > 0:
        assert (nx.is_weakly_connected(G) if G.is_directed() else nx.is_connected(G))
    if opts["weighted"]:
        assert all(d["weight"] > 0 for *_, d in G.edges(data=True))


@settings(max_examples=scaled(40), deadline=None)
@given(data=st.data())
def test_vectors_strategy(data):
    n = data.draw(st.integers(0, 20))
    k = data.draw(st.none() | st.integers(1, 4))
    name = data.draw(st.sampled_from(sr.names()))
    dt = data.draw(st.sampled_from(sr.get(name).dtypes))
    x = data.draw(vectors(n, dt, k, semiring=name))
    assert x.shape == ((n,) if k is None else (n, k)) and x.dtype == dt and x.flags.c_contiguous
    y = data.draw(vectors(n, dt, k, semiring=name, identity_fraction=1.0))
    assert np.all(y == identity(sr.get(name), dt))


def test_pattern_drops_values_keeps_structure(device):
    S = sp.csc_array(np.array([[0, 2.5, 0], [0, 0, -1.0], [4.0, 0, 0]]))
    A = spla.Matrix.from_scipy(S, directed=True, device=device)
    P = A.pattern()
    assert P.is_pattern and P.shape == A.shape and P.directed == A.directed and P.device == A.device
    values, present = to_dense(P)
    assert values is None
    np.testing.assert_array_equal(present, S.toarray() != 0)
    assert A.pattern() is P  # cached
    assert P.pattern() is P  # already pattern-only
    U = spla.Matrix.from_edges([0, 1], [1, 2], device=device)  # undirected: symmetric, stays so
    assert U.pattern().T is U.pattern()


def test_package_docstring_example_runs():
    import doctest

    assert doctest.testmod(spla, verbose=False).failed == 0


def test_cache_gateway_builds_once_and_drops_by_name():
    from spla.matrix import CACHE_KEYS, declare_cache

    name = declare_cache("test_gateway", "a value the gateway test builds")
    assert declare_cache("test_gateway", "a value the gateway test builds") == name  # the same declaration
    with pytest.raises(ValueError, match="declared already"):
        declare_cache("test_gateway", "something else")
    assert CACHE_KEYS[name] == "a value the gateway test builds"
    A = spla.Matrix.from_edges([0, 1], [1, 2], values=[2.0, 3.0], device="cpu")  # valued: pattern() is cached
    calls = []

    def build():
        calls.append(1)
        return len(calls)

    assert A.cached((name, 1), build) == 1 and A.cached((name, 1), build) == 1
    assert A.cached((name, 2), build) == 2 and A.peek_cached((name, 2)) == 2
    assert A.peek_cached((name, 3), "none") == "none" and len(calls) == 2
    P = A.pattern()
    A.drop_cached(name)
    assert A.peek_cached((name, 1)) is None and A.pattern() is P  # only that name's entries went
    A.drop_cached()
    assert A.pattern() is not P  # everything went
    with pytest.raises(KeyError, match="not declared"):
        A.cached(("undeclared_key", 1), build)
    with pytest.raises(KeyError, match="not declared"):
        A.drop_cached("undeclared_key")


def test_format_arrays_are_read_only_and_the_callers_stay_writeable():
    colptr = np.array([0, 1, 2], dtype=np.int32)
    rowidx = np.array([1, 0], dtype=np.int32)
    values = np.array([2.0, 3.0])
    A = spla.Matrix(colptr, rowidx, values, (2, 2), device="cpu")
    for name in ("colptr", "rowidx", "values"):
        with pytest.raises(AttributeError):
            setattr(A, name, None)
        with pytest.raises(ValueError, match="read-only"):
            getattr(A, name)[0] = 1
    assert colptr.flags.writeable and rowidx.flags.writeable and values.flags.writeable
    assert A.colptr.base is colptr  # a view, no copy
