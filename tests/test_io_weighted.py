"""Weighted graphs as users have them: DIMACS shortest-path files, GML, Matrix Market values, weighted
edge lists and CSV with a named weight column; parallel arcs merged by ``GraphData.to_matrix(dup=)``;
and the three real weighted graphs of ../shared/graphs/weighted checked against their README."""

from __future__ import annotations

import functools
import gzip
import sys

import numpy as np
import pytest
from conftest import GRAPHS_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from spla.io import GraphFormatError, check_weights, read_graph
from spla.merge import DUPS
from spla.testing import scaled

WEIGHTED = GRAPHS_DIR / "weighted"
needs_weighted = pytest.mark.skipif(not (WEIGHTED / "rome99.gr.gz").is_file(),
                                    reason="../shared/graphs/weighted not present")


def write(tmp_path, name, text):
    p = tmp_path / name
    if name.endswith(".gz"):
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_text(text)
    return p


def arcs(g):
    return list(zip((g.src + 0).tolist(), (g.dst + 0).tolist()))


# ---------------------------------------------------------------------------------------------- DIMACS
GR = """c a small road network
p sp 4 5
c comments may come after the problem line
a 1 2 7
a 2 3 1
a 1 2 3
a 3 1 2
a 4 4 5
"""


@pytest.mark.parametrize("name", ["roads.gr", "roads.gr.gz"])
def test_dimacs_reads_arcs_lengths_and_parallel_arcs(tmp_path, name):
    g = read_graph(write(tmp_path, name, GR))
    assert g.format == "dimacs" and g.format_title == "DIMACS shortest-path"
    assert g.n == 4 and g.directed and "DIMACS" in g.directed_reason
    assert arcs(g) == [(0, 1), (1, 2), (0, 1), (2, 0), (3, 3)]
    assert g.weights.tolist() == [7, 1, 3, 2, 5] and g.weights.dtype == np.float64
    assert g.lines.tolist() == [4, 5, 6, 7, 8] and g.labels.tolist() == [1, 2, 3, 4] and g.self_loops == 1
    A = g.to_matrix(device="cpu", dup="min", drop_self_loops=True).to_scipy().toarray()
    assert A[0, 1] == 3 and A[1, 2] == 1 and A[2, 0] == 2 and A[3, 3] == 0
    assert g.to_matrix(device="cpu").to_scipy().toarray()[0, 1] == 3  # last listed (the default)
    assert g.to_matrix(device="cpu", dup="plus").to_scipy().toarray()[0, 1] == 10
    assert g.parallel_arcs() == (1, 1)


def test_dimacs_format_by_name_and_undirected(tmp_path):
    p = write(tmp_path, "roads.txt", GR)
    for fmt in ("dimacs", "gr"):
        assert read_graph(p, format=fmt).format == "dimacs"
    g = read_graph(write(tmp_path, "r.gr", GR), directed=False)
    assert not g.directed and "requested" in g.directed_reason
    A = g.to_matrix(device="cpu", dup="min").to_scipy().toarray()
    assert A[0, 1] == A[1, 0] == 3 and A[0, 2] == A[2, 0] == 2


def test_dimacs_empty_graph_and_nan_kept(tmp_path):
    g = read_graph(write(tmp_path, "e.gr", "p sp 3 0\n"))
    assert g.n == 3 and g.src.size == 0
    g = read_graph(write(tmp_path, "nan.gr", "p sp 2 2\na 1 2 nan\na 2 1 -4\n"))
    assert np.isnan(g.weights[0]) and g.weights[1] == -4
    with pytest.raises(GraphFormatError, match=r"nan\.gr:2: 1 NaN or infinite weights"):
        check_weights(g.weights, lines=g.lines, path=g.path)


@pytest.mark.parametrize("text, pattern", [
    ("", r"x\.gr: empty DIMACS file"),
    ("c only\n", r"x\.gr: the problem line 'p sp <n> <m>' is missing"),
    ("a 1 2 3\np sp 2 1\n", r"x\.gr:1: an arc before the problem line"),
    ("p sp 2 1\np sp 2 1\na 1 2 3\n", r"x\.gr:2: a second problem line \(the first is line 1\)"),
    ("p max 2 1\na 1 2 3\n", r"x\.gr:1: DIMACS problem 'max' is not a shortest-path graph"),
    ("p sp 2\n", r"x\.gr:1: malformed problem line: expected 'p sp <n> <m>'"),
    ("p sp two 1\n", r"x\.gr:1: malformed problem line"),
    ("p sp 2 1\ne 1 2\n", r"x\.gr:2: expected a DIMACS shortest-path line 'c <comment>', 'p sp <n> <m>' or "
                          r"'a <u> <v> <length>', found 'e 1 2'"),
    ("p sp 2 1\na 1 2\n", r"x\.gr:2: expected 4 fields 'a <u> <v> <length>', found 3"),
    ("p sp 2 2\na 1 2 3\n", r"x\.gr: line 1 declares 2 arcs but the file has only 1 \(is it truncated\?\)"),
    ("p sp 2 1\na 1 2 3\nc x\na 2 1 3\n", r"x\.gr:4: more arcs than the 1 declared on line 1"),
    ("p sp 2 1\na 0 2 3\n", r"x\.gr:2: tail 0 is outside 1\.\.2 \(DIMACS ids are 1-based\)"),
    ("p sp 2 1\na 1 3 3\n", r"x\.gr:2: head 3 is outside 1\.\.2"),
    ("p sp 2 1\na 1 x 3\n", r"x\.gr:2: expected integer vertex ids 'a <u> <v> <length>', found 'x'"),
    ("p sp 2 2\na 1 2 3\na 2 1 far\n", r"x\.gr:3: expected a number as the arc's length, found 'far'"),
])
def test_dimacs_errors_name_file_and_line(tmp_path, text, pattern):
    with pytest.raises(GraphFormatError, match=pattern):
        read_graph(write(tmp_path, "x.gr", text))


def test_dimacs_refuses_a_weight_name(tmp_path):
    with pytest.raises(GraphFormatError, match=r"a DIMACS file has one weight per arc and no weight names"):
        read_graph(write(tmp_path, "x.gr", GR), weight="length")


# ---------------------------------------------------------------------------------------------- GML
GML = """Creator "test"
graph
[
  directed 1
  node [ id 0 label "A" ]
  node [ id 1 label "B" ]
  node [ id 2 label "C" ]
  edge [ source 0 target 1 value 4 time 1.5 ]
  edge [ source 0 target 1 value 2 time 9 ]
  edge [ source 1 target 2 value 1 time 0.5 ]
]
"""


def test_gml_keeps_labels_parallel_edges_and_the_value_weights(tmp_path):
    pytest.importorskip("networkx")
    g = read_graph(write(tmp_path, "n.gml.gz", GML))
    assert g.format == "gml" and g.directed and g.n == 3
    assert g.labels.tolist() == ["A", "B", "C"]
    assert arcs(g) == [(0, 1), (0, 1), (1, 2)] and g.weights.tolist() == [4, 2, 1]
    assert any("'value'" in note for note in g.notes)
    A = g.to_matrix(device="cpu", dup="min").to_scipy().toarray()
    assert A[0, 1] == 2 and A[1, 2] == 1
    g = read_graph(write(tmp_path, "n.gml", GML), weight="time")
    assert g.weights.tolist() == [1.5, 9, 0.5]


def test_gml_undirected_ids_as_labels_and_weight_attribute(tmp_path):
    pytest.importorskip("networkx")
    text = ("graph [ node [ id 5 ] node [ id 7 ] node [ id 9 ]\n"
            "edge [ source 5 target 7 weight 2.5 ] edge [ source 9 target 7 weight 1 ] ]\n")
    g = read_graph(write(tmp_path, "u.gml", text))
    assert not g.directed and g.labels.tolist() == [5, 7, 9] and g.labels.dtype == np.int64
    A = g.to_matrix(device="cpu", dup="min")
    assert A.is_symmetric and A.to_scipy().toarray()[2, 1] == 1.0
    g = read_graph(write(tmp_path, "p.gml", "graph [ node [ id 0 ] node [ id 1 ] edge [ source 0 target 1 ] ]"))
    assert g.weights is None


@pytest.mark.parametrize("text, weight, pattern", [
    (GML, "length", r"x\.gml: edge 0 -> 1 has no 'length' attribute \(the edges have: time, value\)"),
    (GML.replace("value 2", 'value "two"'), None, r"x\.gml: edge 0 -> 1 has value='two', not a number"),
    ("graph [ node [ id 0 ] edge [ source 0 target 3 ] ]", None, r"x\.gml: malformed GML: .*undefined target 3"),
    ("graph [ node [ id 0 ", None, r"x\.gml: malformed GML"),
])
def test_gml_errors(tmp_path, text, weight, pattern):
    pytest.importorskip("networkx")
    with pytest.raises(GraphFormatError, match=pattern):
        read_graph(write(tmp_path, "x.gml", text), weight=weight)


def test_gml_without_networkx_names_the_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)  # import networkx raises ImportError
    with pytest.raises(GraphFormatError, match=r"x\.gml: reading GML needs networkx, which is not installed: "
                                               r"pip install networkx"):
        read_graph(write(tmp_path, "x.gml", GML))


# ---------------------------------------------------------------------------------------------- Matrix Market
def test_matrix_market_values_are_weights(tmp_path):
    text = ("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 2.5\n2 3 1\n1 2 0.5\n3 1 0\n")
    g = read_graph(write(tmp_path, "m.mtx", text))
    assert g.weights.tolist() == [2.5, 1, 0.5, 0] and g.lines.tolist() == [3, 4, 5, 6]
    A = g.to_matrix(device="cpu", dup="min")
    assert A.to_scipy().toarray()[0, 1] == 0.5 and A.nnz == 3  # a stored 0 is an arc of length 0
    assert g.parallel_arcs() == (1, 1)
    sym = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 4\n3 2 6\n"
    g = read_graph(write(tmp_path, "s.mtx", sym))
    A = g.to_matrix(device="cpu", dup="min")
    assert A.is_symmetric and A.to_scipy().toarray()[0, 1] == 4 and g.parallel_arcs() == (0, 0)
    with pytest.raises(GraphFormatError, match=r"a Matrix Market file has one weight per arc"):
        read_graph(write(tmp_path, "m2.mtx", text), weight="w")


# ---------------------------------------------------------------------------------------------- edge lists
def test_edge_list_weights_in_the_third_field_and_both_ways(tmp_path):
    g = read_graph(write(tmp_path, "w.csv", "a,b,5\nb,a,3\nb,c,1\na,b,4\n"), directed=False)
    assert g.weights.tolist() == [5, 3, 1, 4]
    for dup, x in {"min": 3, "max": 5, "first": 5, "last": 4, "plus": 12}.items():
        assert g.to_matrix(device="cpu", dup=dup).to_scipy().toarray()[0, 1] == x, dup
    assert g.parallel_arcs() == (1, 1)  # a -- b listed three times, two of them a -> b


def test_metis_edges_listed_both_ways_are_not_parallel(tmp_path):
    g = read_graph(write(tmp_path, "m.graph", "3 2 1\n2 5\n1 5 3 7\n2 7\n"))
    assert g.parallel_arcs() == (0, 0)
    assert g.to_matrix(device="cpu", dup="min").to_scipy().toarray()[1, 2] == 7


@pytest.mark.parametrize("text", [
    "source,target,time,distance\n1,2,9,4.5\n2,3,8,1\n",
    "source target time distance\n1 2 9 4.5\n# a comment\n2 3 8 1\n",
    'source,target,time,distance\n1,2,9,4.5\n"2",3,8,1\n',
    "source\ttarget\tdistance\n1\t2\t4.5\n2\t3\t1\n",
])
def test_edge_list_named_weight_column(tmp_path, text):
    g = read_graph(write(tmp_path, "w.csv" if "," in text else "w.txt", text), weight="distance")
    assert g.weights.tolist() == [4.5, 1] and g.labels.tolist() == [1, 2, 3]
    assert any("'distance'" in note for note in g.notes)


@pytest.mark.parametrize("text, kwargs, pattern", [
    ("source,target,time\n1,2,9\n", dict(weight="distance"),
     r"w\.csv:1: no column 'distance' in the header row 'source,target,time'"),
    ("source,target,time\n1,2,9\n", dict(weight="target"), r"w\.csv:1: column 'target' is the target"),
    ("source,target,kind\n1,2,road\n", dict(weight="kind"), r"w\.csv: column 'kind' holds no numbers"),
    ("source,target,time,distance\n1,2,9\n", dict(weight="distance"),
     r"w\.csv:2: expected column 'distance' in field 4, found 3 fields"),
    ("source,target,distance\n1,2,9\n", dict(weight="distance", header=False),
     r"w\.csv: the weight column 'distance' is named by the header row"),
    ("", dict(weight="distance"), r"w\.csv: the file is empty"),
])
def test_edge_list_named_weight_column_errors(tmp_path, text, kwargs, pattern):
    with pytest.raises(GraphFormatError, match=pattern):
        read_graph(write(tmp_path, "w.csv", text), **kwargs)


def test_weight_name_type_is_checked(tmp_path):
    with pytest.raises(TypeError, match="weight must be None or the name"):
        read_graph(write(tmp_path, "w.csv", "1,2,3\n"), weight=3)


@st.composite
def weighted_lists(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 20))
    rows = draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n), st.integers(0, 9)), min_size=m,
                         max_size=m))
    return rows


@settings(max_examples=scaled(60))
@given(weighted_lists(), st.sampled_from(tuple(DUPS)), st.booleans())
def test_to_matrix_dup_matches_a_dense_reference(tmp_path_factory, rows, dup, directed):
    path = tmp_path_factory.mktemp("w") / "w.txt"
    path.write_text("".join(f"{u} {v} {w}\n" for u, v, w in rows))
    g = read_graph(path, directed=directed)
    ids = {lab: i for i, lab in enumerate(g.labels.tolist())}
    n = g.n
    per = {}
    for u, v, w in rows:
        a, b = ids[u], ids[v]
        per.setdefault((a, b), []).append(w)
        if not directed and a != b:
            per.setdefault((b, a), []).append(w)
    merge = {"plus": sum, "min": min, "max": max, "first": lambda x: x[0], "last": lambda x: x[-1]}[dup]
    D = np.zeros((n, n))
    P = np.zeros((n, n), dtype=bool)
    for (a, b), ws in per.items():
        D[a, b], P[a, b] = merge(ws), True
    A = g.to_matrix(device="cpu", dup=dup)
    if A.is_pattern:
        assert np.all(D[P] == 1)
    else:
        np.testing.assert_array_equal(A.to_scipy().toarray(), D)
    np.testing.assert_array_equal(A.pattern().to_scipy(keep_dtype=True).toarray(), P)
    # without self-loops: the same less the diagonal
    B = g.to_matrix(device="cpu", dup=dup, drop_self_loops=True)
    np.fill_diagonal(P, False)
    np.testing.assert_array_equal(B.pattern().to_scipy(keep_dtype=True).toarray(), P)


# ---------------------------------------------------------------------------------------------- real graphs
#: the README's figures: vertices, arcs in the file, distinct ordered pairs, pairs with more than one arc,
#: of those with differing weights, weight min and max, distinct weight values
REAL = {
    "rome99.gr.gz": (3353, 8870, 8859, 11, 9, 1, 12711, 1377),
    "celegansneural.gml.gz": (297, 2359, 2345, 14, 7, 1, 70, 31),
    "USA-road-d.NY.gr.gz": (264346, 733846, 730100, 3724, 0, 1, 36946, 7970),
}


@functools.lru_cache(maxsize=None)
def real(name):
    """The real graph ``name`` as read, and its matrix for path measures (each pair's shortest arc)."""
    g = read_graph(WEIGHTED / name)
    return g, g.to_matrix(device="cpu", dup="min", drop_self_loops=True)


@needs_weighted
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_weighted_graphs_match_their_readme(name):
    n, m, pairs, parallel, differing, lo, hi, distinct = REAL[name]
    g, A = real(name)
    assert g.directed and g.n == n and g.src.size == m and g.self_loops == 0
    assert g.weights.min() == lo and g.weights.max() == hi and np.unique(g.weights).size == distinct
    assert np.all(g.weights == np.round(g.weights))
    assert g.parallel_arcs() == (parallel, differing)
    assert A.nnz == pairs and A.directed and A.values.min() == lo and A.values.max() == hi
    # each pair keeps its shortest arc: the minimum over the file's arcs of that pair
    S = A.to_scipy().tocsr()
    order = np.lexsort((g.weights, g.dst, g.src))
    first = np.ones(order.size, dtype=bool)
    s, d = g.src[order], g.dst[order]
    first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    ref = np.asarray(S[s[first], d[first]]).ravel()
    np.testing.assert_array_equal(ref, g.weights[order][first])


@needs_weighted
def test_celegans_labels_and_rome_example_pair():
    pytest.importorskip("networkx")
    g, A = real("celegansneural.gml.gz")
    assert g.labels.dtype.kind == "U" and len(set(g.labels.tolist())) == 297
    assert A.to_scipy().toarray()[12, 168] == 1  # GML ids 12 -> 168 have values 1 and 2: the minimum is kept
    r = real("rome99.gr.gz")[1].to_scipy().toarray()
    assert r[788, 787] == 81  # 789 -> 788 has lengths 81 and 83


@needs_weighted
def test_ny_is_symmetric_with_equal_weights():
    import scipy.sparse as sp

    S = real("USA-road-d.NY.gr.gz")[1].to_scipy()
    assert (S != S.T).nnz == 0 and sp.triu(S, k=1).nnz == 365050
