"""spla.io: every format and quirk on small files, errors with file:line, and the real
graphs of ../shared/graphs checked against their manifest (graphs.tsv)."""

from __future__ import annotations

import bz2
import csv
import gzip
import os
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from conftest import shared_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.io import GraphData, GraphFormatError, check_weights, detect_format, read_graph
from spla.testing import scaled
from spla.testing.io_reference import read_graph_reference




def write(tmp_path, name, text, compress=None) -> Path:
    p = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    if compress == "gz":
        data = gzip.compress(data)
    elif compress == "bz2":
        data = bz2.compress(data)
    p.write_bytes(data)
    return p


def edge_set(g: GraphData, weighted=False):
    """{(label_u, label_v): weight} of a GraphData's canonical edges (labels, not ids)."""
    s, d, w = g.edges(weighted=weighted)
    lab = g.labels.tolist()
    out = {}
    for i, (a, b) in enumerate(zip(s.tolist(), d.tolist())):
        out[(lab[a], lab[b])] = None if w is None else float(w[i])
    return out


def arcs(g: GraphData):
    lab = g.labels.tolist()
    return sorted((lab[a], lab[b]) for a, b in zip(g.src.tolist(), g.dst.tolist()))


def raises(path, match, **kw):
    with pytest.raises(GraphFormatError, match=match) as info:
        read_graph(path, **kw)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


# ============================================================================ Matrix Market
MM_GENERAL = """%%MatrixMarket matrix coordinate pattern general
% a comment
3 3 3
1 2
2 3
3 1
"""


def test_mtx_pattern_general_is_directed(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", MM_GENERAL))
    assert g.format == "mtx" and g.n == 3 and g.directed
    assert g.directed_reason == "Matrix Market 'general'"
    assert arcs(g) == [(1, 2), (2, 3), (3, 1)]
    assert g.weights is None and g.labels.tolist() == [1, 2, 3]
    assert g.lines.tolist() == [4, 5, 6]


def test_mtx_symmetric_real_gz_crlf(tmp_path):
    text = ("%%MatrixMarket matrix coordinate real symmetric\r\n%c\r\n\r\n4 4 4\r\n2 1 0.5\r\n3 1 2e0\r\n"
            "4 4 1.5\r\n\r\n4 3 -1\r\n")
    g = read_graph(write(tmp_path, "g.mtx.gz", text, "gz"))
    assert not g.directed and g.directed_reason == "Matrix Market 'symmetric'"
    assert g.self_loops == 1
    assert edge_set(g, weighted=True) == {(1, 2): 0.5, (1, 3): 2.0, (4, 4): 1.5, (3, 4): -1.0}


def test_mtx_integer_values_and_isolated_vertices(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate integer general\n5 5 2\n1 2 3\n2 1 4\n"))
    assert g.n == 5 and g.weights.tolist() == [3.0, 4.0] and g.labels.tolist() == [1, 2, 3, 4, 5]


def test_mtx_symmetric_forced_directed_gives_both_arcs(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"),
                   directed=True)
    assert g.directed and "requested" in g.directed_reason
    assert arcs(g) == [(1, 2), (2, 1), (3, 3)]


def test_mtx_general_forced_undirected(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", MM_GENERAL), directed=False)
    assert not g.directed
    assert set(edge_set(g)) == {(1, 2), (2, 3), (1, 3)}


def test_mtx_empty_matrix(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n"))
    assert g.n == 0 and g.src.size == 0
    g = read_graph(write(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 0\n"))
    assert g.n == 4 and g.src.size == 0


def test_mtx_matches_scipy(tmp_path):
    import scipy.io
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    S = sp.random(40, 40, density=0.1, random_state=rng, format="coo")
    p = tmp_path / "r.mtx"
    scipy.io.mmwrite(str(p), S)
    g = read_graph(p)
    T = sp.coo_array((g.weights, (g.src, g.dst)), shape=(g.n, g.n)).toarray()
    np.testing.assert_allclose(T, S.toarray(), rtol=1e-12)


PG = "%%MatrixMarket matrix coordinate pattern general\n"
RG = "%%MatrixMarket matrix coordinate real general\n"


@pytest.mark.parametrize("text, match", [
    ("%%MatrixMarket matrix coordinate pattern\n2 2 1\n1 2\n", r"g\.mtx:1: malformed Matrix Market header"),
    ("%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", r"g\.mtx:1: malformed Matrix Market header"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", r"g\.mtx:1: dense 'array'"),
    ("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n", "complex"),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", "skew-symmetric"),
    ("%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n2 1 1\n", "hermitian"),
    ("%%MatrixMarket matrix coordinate real diagonal\n2 2 1\n2 1 1\n", "unknown symmetry"),
    (PG + "% only comments\n", "size line .* is missing"),
    (PG + "3 3\n1 2\n", r"g\.mtx:2: malformed size line"),
    (PG + "3 3 x\n1 2\n", r"g\.mtx:2: malformed size line"),
    (PG + "3 3 -1\n", r"g\.mtx:2: malformed size line"),
    (PG + "3 4 1\n1 2\n", r"g\.mtx:2: the matrix is 3 x 4"),
    (PG + "3 3 2\n1 2\n0 1\n", r"g\.mtx:4: row index 0 .*1-based"),
    (PG + "3 3 2\n1 2\n2 -1\n", r"g\.mtx:4: column index -1"),
    (PG + "3 3 2\n1 2\n4 1\n", r"g\.mtx:4: row index 4 is outside 1\.\.3"),
    (PG + "3 3 3\n1 2\n2 3\n", r"declares 3 entries but the file has only 2"),
    (PG + "3 3 1\n1 2\n2 3\n", r"g\.mtx:4: more entries than the 1"),
    (RG + "3 3 2\n1 2 1\n2 3\n", r"g\.mtx:4: expected 3 fields 'row column value'"),
    (PG + "3 3 2\n1 2\n2 3 7\n", r"g\.mtx:4: expected 2 fields"),
    (RG + "3 3 2\n1 2 1\n2 3 abc\n", r"g\.mtx:4: expected numbers .*'abc'"),
    (RG + "3 3 2\n1 2 1\n2.5 3 1\n", r"g\.mtx:4: expected integer row and column"),
    ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", r"g\.mtx:3: the header says 'integer'"),
])
def test_mtx_errors(tmp_path, text, match):
    raises(write(tmp_path, "g.mtx", text), match)


@pytest.mark.parametrize("text, match", [
    (RG + "3 3 1\n1 2 1_000\n", r"g\.mtx:3: expected numbers 'row column value', found '1_000'"),
    (RG + "3 3 2\n1 2 1\n1 3 \u0661\n", r"g\.mtx:4: expected numbers 'row column value', found '\u0661'"),
])
def test_mtx_number_python_reads_but_numpy_does_not(tmp_path, text, match):
    """'1_000' and non-ASCII digits are numbers to Python's float, not to the file format: the message
    names the token and its line (it said "found None", on the first entry's line)."""
    raises(write(tmp_path, "g.mtx", text), match)


def test_mtx_size_line_too_large_for_memory(tmp_path):
    """A size line of 10**15 vertices is refused naming the file and line (it was a bare MemoryError)."""
    msg = raises(write(tmp_path, "g.mtx", PG + "1000000000000000 1000000000000000 1\n1 1\n"),
                 r"g\.mtx:2: the size line declares 1,000,000,000,000,000 vertices")
    assert "memory" in msg


def test_mtx_nan_weights_are_read_and_reported(tmp_path):
    g = read_graph(write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 nan\n2 1 inf\n"))
    assert np.isnan(g.weights[0]) and np.isinf(g.weights[1])
    with pytest.raises(GraphFormatError, match=r"g\.mtx:3: 2 NaN or infinite edge weights"):
        check_weights(g.weights, lines=g.lines, path="g.mtx", what="edge weights")


# ============================================================================ edge lists
def test_snap_style_tabs_comments_crlf(tmp_path):
    text = ("# Directed graph\r\n# Nodes: 4 Edges: 4\r\n# FromNodeId\tToNodeId\r\n"
            "10\t20\r\n20\t30\r\n30\t10\r\n40\t40\r\n")
    g = read_graph(write(tmp_path, "g.txt", text))
    assert g.directed and "directed=False" in g.directed_reason
    assert g.labels.tolist() == [10, 20, 30, 40]
    assert arcs(g) == [(10, 20), (20, 30), (30, 10), (40, 40)]
    assert g.self_loops == 1 and g.weights is None
    assert g.lines.tolist() == [4, 5, 6, 7]


def test_integer_labels_sorted_numerically(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "100 9\n-5 1000000000000\n9 7\n"))
    assert g.labels.tolist() == [-5, 7, 9, 100, 1000000000000]
    assert arcs(g) == [(-5, 1000000000000), (9, 7), (100, 9)]


def test_string_labels_first_appearance(tmp_path):
    g = read_graph(write(tmp_path, "g.csv", "bob,alice\ncarol,bob\nalice,dave\n"))
    assert g.labels.tolist() == ["bob", "alice", "carol", "dave"]
    assert arcs(g) == [("alice", "dave"), ("bob", "alice"), ("carol", "bob")]


def test_mixed_labels_are_strings(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "1 2\n2 x3\n"))
    assert g.labels.tolist() == ["1", "2", "x3"]


def test_long_integer_labels_are_strings(tmp_path):
    big = "1234567890123456789"  # 19 digits: could overflow int64 parsing, so kept as text
    g = read_graph(write(tmp_path, "g.txt", f"{big} 1\n1 2\n"))
    assert g.labels.tolist() == [big, "1", "2"]


@pytest.mark.parametrize("header", ["id_1,id_2", "source,target", "Source,Target,Weight", "from,to", "node_1,node_2"])
def test_header_row_detected_integer_labels(tmp_path, header):
    weighted = header.endswith("Weight")
    body = "0,1,2.5\n1,2,1\n" if weighted else "0,1\n1,2\n"
    g = read_graph(write(tmp_path, "g.csv", header + "\n" + body))
    assert g.labels.tolist() == [0, 1, 2]
    assert any("header" in n for n in g.notes)
    if weighted:
        assert g.weights.tolist() == [2.5, 1.0]


def test_header_row_detected_string_labels(tmp_path):
    g = read_graph(write(tmp_path, "g.csv", "source,target\nalice,bob\n"))
    assert g.labels.tolist() == ["alice", "bob"] and g.src.size == 1
    # no header words: the first row is an edge
    g = read_graph(write(tmp_path, "h.csv", "alice,bob\nbob,carol\n"))
    assert g.src.size == 2


@pytest.mark.parametrize("name, text", [("g.txt", "source target\ns x\nx y\n"), ("g.csv", "from,to\nf,x\nx,t\n"),
                                        ("q.csv", '"source","target"\n"s","x"\n"x","y"\n')])
def test_header_words_with_shorter_labels_are_a_header(tmp_path, name, text):
    """Column names are compared with the labels whole (a label 's' is not the name 'source')."""
    g = read_graph(write(tmp_path, name, text))
    assert g.src.size == 2 and any("header" in n for n in g.notes)


@pytest.mark.parametrize("name, text", [("g.txt", "u v\nv w\nw u\n"), ("g.csv", "u,v\nv,w\nw,u\n"),
                                        ("q.csv", '"u","v"\n"v","w"\n"w","u"\n')])
def test_header_words_that_are_labels_are_an_edge(tmp_path, name, text):
    """A first row of column-name words is an edge when those words are vertex labels further down."""
    g = read_graph(write(tmp_path, name, text))
    assert g.src.size == 3 and sorted(g.labels.tolist()) == ["u", "v", "w"]
    assert not any("header" in n for n in g.notes)


def test_header_override(tmp_path):
    p = write(tmp_path, "g.txt", "1 2\n2 3\n")
    assert read_graph(p, header=True).src.size == 1
    p = write(tmp_path, "h.csv", "source,target\nalice,bob\n")
    g = read_graph(p, header=False)
    assert g.src.size == 2 and "source" in g.labels.tolist()


def test_weights_and_extra_columns(tmp_path):
    g = read_graph(write(tmp_path, "g.tsv", "1\t2\t0.5\t1999\n2\t3\t2\t2000\n"))
    assert g.weights.tolist() == [0.5, 2.0]
    assert any("after the 3rd" in n for n in g.notes)


@pytest.mark.parametrize("name, text", [("g.txt", "0 1\n0 2 9\n1 2 1\n2 0 1\n"), ("g.csv", "0,1\n0,2,9\n1,2,1\n"),
                                        ("q.csv", '"0","1"\n"0","2","9"\n')])
def test_weight_column_missing_on_the_first_row(tmp_path, name, text):
    """A weight on a later row but not on the first is refused, as the opposite case is (not read as
    an unweighted graph, dropping every weight silently)."""
    with pytest.raises(GraphFormatError, match=r":2: a weight in field 3, but line 1 has none; give every edge a weight"):
        read_graph(write(tmp_path, name, text))


def test_float_looking_labels_are_strings_in_weighted_files(tmp_path):
    """'7.0' is a string label, not the integer 7, with or without a weight column (as documented)."""
    plain = read_graph(write(tmp_path, "a.txt", "7.0 1\n1 7\n"))
    weighted = read_graph(write(tmp_path, "b.txt", "7.0 1 1\n1 7 2\n"))
    assert plain.labels.tolist() == weighted.labels.tolist() == ["7.0", "1", "7"]
    assert weighted.weights.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("name, text, labels, arcs_", [
    ("g.txt", "007 7\n7 8\n", ["007", "7", "8"], [("007", "7"), ("7", "8")]),
    ("g.txt", "+7 7\n7 8\n", ["+7", "7", "8"], [("+7", "7"), ("7", "8")]),
    ("g.txt", "-0 0\n0 1\n", ["-0", "0", "1"], [("-0", "0"), ("0", "1")]),
    ("g.txt", "007 7 1.5\n7 8 2\n", ["007", "7", "8"], [("007", "7"), ("7", "8")]),
    ("g.txt", "007 7 1\n7 8 2\n", ["007", "7", "8"], [("007", "7"), ("7", "8")]),
    ("g.csv", '"007","7"\n"7","8"\n', ["007", "7", "8"], [("007", "7"), ("7", "8")]),
])
def test_integers_with_leading_zeros_or_plus_sign_are_string_labels(tmp_path, name, text, labels, arcs_):
    """'007' and '7' are two vertices (as networkx.read_edgelist reads them); read as numbers they were
    merged into one, the edge 007 -> 7 becoming a self-loop that was dropped."""
    g = read_graph(write(tmp_path, name, text))
    assert g.labels.tolist() == labels
    assert arcs(g) == sorted(arcs_)
    assert g.self_loops == 0
    assert any("as text" in n for n in g.notes)


def test_zero_padded_labels_keep_the_files_ids(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "001 002\n002 003\n"))
    assert g.labels.tolist() == ["001", "002", "003"]
    # a plain 0 and negative numbers are integers
    g = read_graph(write(tmp_path, "h.txt", "0 -5\n-5 10\n"))
    assert g.labels.tolist() == [-5, 0, 10]


def test_integer_weights(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "0 1 4\n0 2 5\n"))
    assert g.weights.dtype == np.float64 and g.weights.tolist() == [4.0, 5.0]


def test_non_numeric_third_column_is_ignored(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "766 7988 {}\n766 32 {}\n"))
    assert g.weights is None and g.src.size == 2
    assert any("non-numeric 3rd field" in n for n in g.notes)


def test_comments_everywhere(tmp_path):
    text = "% konect header\n% 3 3 3\n1 2 # trailing comment\n\n   # indented comment\n2 3\n% more\n3 1\n"
    g = read_graph(write(tmp_path, "g.edges", text))
    assert arcs(g) == [(1, 2), (2, 3), (3, 1)]
    assert g.lines.tolist() == [3, 6, 8]


@pytest.mark.parametrize("sep", [" ", "\t", ",", ", ", "  \t "])
def test_separators(tmp_path, sep):
    g = read_graph(write(tmp_path, "g.csv", f"1{sep}2{sep}3.5\n2{sep}3{sep}1\n"))
    assert arcs(g) == [(1, 2), (2, 3)] and g.weights.tolist() == [3.5, 1.0]


@pytest.mark.parametrize("compress, name", [("gz", "g.txt.gz"), ("bz2", "g.txt.bz2"), ("gz", "g.csv")])
def test_compression_by_magic_bytes(tmp_path, compress, name):
    g = read_graph(write(tmp_path, name, "1 2\n2 3\n", compress))
    assert g.src.size == 2


def test_utf8_bom_and_unicode_labels(tmp_path):
    g = read_graph(write(tmp_path, "g.csv", "\ufeffsource,target\nZürich,Genève\n".encode("utf-8")))
    assert g.labels.tolist() == ["Zürich", "Genève"]


def test_quoted_csv_fields(tmp_path):
    g = read_graph(write(tmp_path, "g.csv", 'from,to,w\n"New York","Boston",2\n"Boston","Washington, DC",3\n'))
    assert g.labels.tolist() == ["New York", "Boston", "Washington, DC"]
    assert g.weights.tolist() == [2.0, 3.0]
    assert g.lines.tolist() == [2, 3]


def test_spaces_inside_comma_separated_fields(tmp_path):
    g = read_graph(write(tmp_path, "g.csv", "New York,Boston\nBoston,Los Angeles\n"))
    assert g.labels.tolist() == ["New York", "Boston", "Los Angeles"]


def test_undirected_edge_list_dedup_last_weight_wins(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "1 2 5\n2 1 7\n2 3 1\n"), directed=False)
    assert not g.directed
    assert edge_set(g, weighted=True) == {(1, 2): 7.0, (2, 3): 1.0}


def test_empty_and_comment_only_files(tmp_path):
    assert read_graph(write(tmp_path, "e.txt", "")).n == 0
    assert read_graph(write(tmp_path, "c.txt", "# nothing\n% here\n\n")).n == 0


@pytest.mark.parametrize("text, match", [
    ("1 2\n3\n4 5\n", r"g\.txt:2: expected at least 2 fields 'source target \[weight\]', found 1"),
    ("1 2 1.5\n3 4\n", r"g\.txt:2: expected a weight in field 3"),
    ("1 2 1.5\n3 4 heavy\n", r"g\.txt:2: non-numeric weight 'heavy'"),
    ("# c\n1 2 1.5\n3 4 1\n\n5 6 x\n", r"g\.txt:5: non-numeric weight 'x'"),
])
def test_edgelist_errors(tmp_path, text, match):
    raises(write(tmp_path, "g.txt", text), match)


@pytest.mark.parametrize("text, match", [
    ("1 2 1\n2 3 1_0\n", r"g\.txt:2: non-numeric weight '1_0' in field 3"),
    ("1 2 1.5\n2 3 \u0662\n", r"g\.txt:2: non-numeric weight '\u0662' in field 3"),
])
def test_weights_python_reads_but_numpy_does_not(tmp_path, text, match):
    """Python's float takes '1_0' and non-ASCII digits, NumPy's parser does not: a one-line error naming
    the token (it was a TypeError from the reader)."""
    raises(write(tmp_path, "g.txt", text), match)


def test_underscore_number_in_the_first_row_is_not_a_weight(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "1 2 1_0\n2 3 2_0\n"))
    assert g.weights is None and any("non-numeric 3rd field" in n for n in g.notes)


def test_header_needs_both_fields_non_numeric(tmp_path):
    """'a 1' is an edge from vertex 'a', not a header (the docstring: a header's first two fields are not
    integers); it was skipped as a header."""
    g = read_graph(write(tmp_path, "g.txt", "a 1\n1 2\n2 3\n"))
    assert g.src.size == 3 and g.labels.tolist() == ["a", "1", "2", "3"]
    assert not any("header" in n for n in g.notes)
    g = read_graph(write(tmp_path, "q.csv", '"a","1"\n"1","2"\n'))
    assert g.src.size == 2 and not any("header" in n for n in g.notes)


@pytest.mark.parametrize("name, text", [
    ("g.csv", '"a","b" # a comment\n"b","c"\n'),
    ("h.csv", '1,2\n2,3 # the "best" edge\n3,1\n'),
    ("i.txt", '"a" "b" % comment\n"b" "c"\n'),
    ("j.csv", 'a,b,,x # note, with comma\nb,c,,y\n'),
])
def test_trailing_comments_on_quoted_rows(tmp_path, name, text):
    """Comments at the end of a line are comments in files that need CSV parsing (quotes, empty
    fields) as well; they were read into the last label ('b # a comment')."""
    g = read_graph(write(tmp_path, name, text))
    labels = g.labels.tolist()
    assert all("#" not in str(x) and "%" not in str(x) for x in labels), labels
    assert g.src.size == text.count("\n")


def test_trailing_comment_with_a_quote_keeps_the_fast_path(tmp_path):
    """A quote inside a comment does not make integer labels strings (it sent the file to the CSV reader)."""
    g = read_graph(write(tmp_path, "g.csv", '1,2\n2,3 # the "best" edge\n3,1\n# "x",,y\n'))
    assert g.labels.tolist() == [1, 2, 3]


def test_tab_separated_quoted_fields_with_commas(tmp_path):
    """A comma inside quotes does not make a tab-separated file comma-separated."""
    g = read_graph(write(tmp_path, "g.tsv", '"Washington, DC"\t"Boston"\n"Boston"\t"New York"\n'))
    assert g.labels.tolist() == ["Washington, DC", "Boston", "New York"]


def test_space_separated_quoted_fields_keep_apostrophes_and_backslashes(tmp_path):
    """Only double quotes quote; a label "O'Brien" was refused ('No closing quotation') and 'C:\\dir'
    lost its backslash."""
    g = read_graph(write(tmp_path, "g.txt", '"New York" O\'Brien\nO\'Brien C:\\dir\n'))
    assert g.labels.tolist() == ["New York", "O'Brien", "C:\\dir"]


@pytest.mark.parametrize("data", [b"caf\xe9 a\ncaf\\xe9 b\n", b"caf\xe9,a\ncaf\\xe9,b\n",
                                  b'"caf\xe9",a\n"caf\\xe9",b\n', b'"caf\xe9" a\n"caf\\xe9" b\n',
                                  b'"caf\xe9","a b"\n"caf\\xe9",b\n\xff\xfe,"x\xe9"\n'],
                         ids=["whitespace", "csv", "quoted-csv", "quoted-whitespace", "quoted-csv-more"])
def test_labels_that_are_not_utf8_stay_apart_and_keep_their_bytes(tmp_path, data):
    """The byte 0xE9 and the four characters \\xe9 are two vertices (the quoted readers made them one),
    and each label encodes back to the file's bytes (surrogateescape)."""
    p = tmp_path / "g.csv"
    p.write_bytes(data)
    for read in (read_graph, read_graph_reference):
        g = read(p)
        raw = [s.encode("utf-8", "surrogateescape") for s in g.labels.tolist()]
        assert raw[:4] == [b"caf\xe9", b"a" if b"a b" not in data else b"a b", b"caf\\xe9", b"b"], raw
        assert g.n == len(set(raw)) == (6 if b"\xff" in data else 4)


@pytest.mark.parametrize("name, text", [("g.txt", '"abc"\nx,y\n'), ("h.txt", '"abc"\n"x" "y"\n'),
                                        ("i.csv", '"abc"\n"x","y"\n')])
def test_quoted_one_field_first_row_is_refused(tmp_path, name, text):
    """A first row of one quoted field is a malformed edge, named with its line, as an unquoted one is
    (header detection raised an IndexError, an internal error, on it)."""
    raises(write(tmp_path, name, text), name.replace(".", r"\.") + r":1: expected at least 2 fields .*, found 1: 'abc'")


def test_empty_source_field_is_refused(tmp_path):
    """An empty source is as malformed as an empty target (it was read as a vertex labelled '')."""
    raises(write(tmp_path, "g.csv", "1,2\n,3\n"), r"g\.csv:2: expected at least 2 fields .*, the source is empty")
    raises(write(tmp_path, "h.csv", "1,2\n2,,3\n"), r"h\.csv:2: expected at least 2 fields .*, the target is empty")


@pytest.mark.parametrize("name, data, match", [
    ("u.txt", "1 2\n2 3\n3 1".encode("utf-16"), r"u\.txt:1: .*UTF-16"),
    ("v.csv", "a,b\nb,c\nc,a".encode("utf-16-le"), r"v\.csv:1: .*UTF-16"),
    ("w.mtx", (PG + "2 2 1\n1 2\n").encode("utf-16"), r"w\.mtx:1: .*UTF-16"),
    ("b.txt", b"1 2\n2 3\n\x00\x01\x02 7\n", r"b\.txt:3: .*NUL byte"),
])
def test_utf16_and_binary_files_are_refused(tmp_path, name, data, match):
    """A text graph file has no NUL byte; a UTF-16 file (PowerShell's '>') was read as a graph with
    NUL bytes in its labels, one vertex counted twice."""
    raises(write(tmp_path, name, data), match)


@pytest.mark.parametrize("name, data", [
    ("g.csv", b"1,2\r2,3\r3,1\r"),
    ("g.txt", b"# old Mac\r1 2\r2 3\r3 1"),
    ("g.mtx", b"%%MatrixMarket matrix coordinate pattern general\r3 3 3\r1 2\r2 3\r3 1\r"),
])
def test_cr_line_ends(tmp_path, name, data):
    """Lines ended by CR alone (classic Mac, old Excel for Mac CSV) are lines; the whole file was one
    line, read as the single edge 1 -> 2 of weight 2."""
    g = read_graph(write(tmp_path, name, data))
    assert arcs(g) == [(1, 2), (2, 3), (3, 1)] and g.weights is None


def test_nan_inf_negative_weights_are_read(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "1 2 nan\n2 3 inf\n3 1 -2\n"))
    assert np.isnan(g.weights[0]) and np.isinf(g.weights[1]) and g.weights[2] == -2
    with pytest.raises(GraphFormatError, match=r"g\.txt:1: 2 NaN or infinite"):
        check_weights(g.weights, lines=g.lines, path="g.txt")
    check_weights(g.weights[2:], need="finite")
    with pytest.raises(GraphFormatError, match=r"1 negative weights \(first: -2\.0\)"):
        check_weights(g.weights[2:])
    with pytest.raises(GraphFormatError, match="zero or negative"):
        check_weights(np.array([1.0, 0.0]), need="positive")
    check_weights(None)


@settings(max_examples=40)
@given(edges=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(1, 9)), min_size=1, max_size=40),
       sep=st.sampled_from([" ", "\t", ",", " \t"]), crlf=st.booleans(), comments=st.booleans(),
       weighted=st.booleans())
def test_edge_list_roundtrip_property(tmp_path_factory, edges, sep, crlf, comments, weighted):
    eol = "\r\n" if crlf else "\n"
    lines = ["# header comment"] if comments else []
    for i, (u, v, w) in enumerate(edges):
        lines.append(sep.join(map(str, (u, v, w) if weighted else (u, v))))
        if comments and i % 3 == 0:
            lines.append("% interleaved")
    p = tmp_path_factory.mktemp("rt") / "g.txt"
    p.write_text(eol.join(lines) + eol, newline="")
    g = read_graph(p)
    assert arcs(g) == sorted((u, v) for u, v, _ in edges)
    assert g.labels.tolist() == sorted({x for u, v, _ in edges for x in (u, v)})
    if weighted:
        lab = g.labels
        got = sorted(zip(lab[g.src].tolist(), lab[g.dst].tolist(), g.weights.tolist()))
        assert got == sorted((u, v, float(w)) for u, v, w in edges)


# ============================================================================ vectorised readers = per-line reference
# Field contents that matter to the readers: integers plain and not, numbers Python reads and NumPy
# does not, header words, labels with spaces, commas, quotes, comment characters and backslashes.
_PLAIN_INTS = ["1", "2", "3", "10", "-5", "0", "123456789012345678"]
_INTS = _PLAIN_INTS + ["-0", "007", "+7", "1234567890123456789"]
_WORDS = ["a", "b", "c", "u", "v", "w", "x", "{}", "1.5", "nan", "1_0", "\u0661", "source", "target", "from", "to",
          "Weight", "New York", "O'Brien", "C:\\dir", "Zürich", "x,y", 'say "hi"', "a b", "#x", "%y", "a#b", "b%",
          "\\xff", " a ", "a\tb"]
_MESSY = ['"', "", " ", 'a"b', '""']
_WEIGHTS = ["1", "2.5", "-3", "nan", "-nan", "inf", "-Infinity", "1e400", ".5", "5.", "1e-3", " 4 ", '"3"']
_BAD_WEIGHTS = ["x", "", "1_0", "\u0662", "{}", "1 2", "e5"]
_CHARS = 'ab1 ,"#%\t\'\\.-'


@st.composite
def _field(draw, pool, sep, clean, text=True):
    """One field: a label drawn from ``pool``, written plainly or quoted in a way that suits ``sep``
    (always, when ``clean``), else in any way, broken ones included."""
    content = draw(st.sampled_from(pool) | st.text(alphabet=_CHARS, min_size=clean, max_size=4) if text else
                   st.sampled_from(pool))
    csv_like = sep.strip(" ") != ""
    if clean:
        content = content if content.replace('"', "").strip() else "a"  # an empty label is an error
        special = '"' in content or any(c in content for c in (sep.strip(" ") or " \t")) or \
            content != content.strip() or content[:1] in ("#", "%")
        if not special and draw(st.booleans()):
            return content
        if csv_like:
            return draw(st.sampled_from(["", " "])) + '"' + content.replace('"', '""') + '"' + \
                draw(st.sampled_from(["", "", " ", "\x0c"]))
        body = content.replace('"', "")
        return draw(st.sampled_from(['"' + body + '"', body[:1] + '"' + body[1:] + '"']))
    style = draw(st.sampled_from(["plain", "plain", "csv", "shlex", "joined", "spaced", "broken"]))
    if style == "csv":
        return '"' + content.replace('"', '""') + '"'
    if style == "shlex":
        return '"' + content.replace('"', "") + '"'
    if style == "joined":  # shlex concatenates: ab"c d"e
        return content[:1] + '"' + content[1:] + '"' + draw(st.sampled_from(["", "e"]))
    if style == "spaced":
        return draw(st.sampled_from([" ", "  ", "\t", ""])) + '"' + content.replace('"', '""') + '"' + \
            draw(st.sampled_from([" ", "\t", "", " x"]))
    if style == "broken":
        return draw(st.sampled_from(['"', 'a"', '"a', 'a"b', '"a"b', '""a"', '"a""'])) + content
    return content


@st.composite
def _edge_list_file(draw):
    """Bytes of a small edge list that reaches every reader path: most files are well formed (for
    their separator), the others may have anything from broken quotes to missing fields."""
    sep = draw(st.sampled_from([",", ",", " ", "\t", ", ", " , ", "  "]))
    clean = draw(st.integers(0, 2)) > 0
    pool = draw(st.sampled_from([_PLAIN_INTS, _INTS, _WORDS, _INTS + _WORDS] +
                                ([] if clean else [_INTS + _WORDS + _MESSY])))
    lines = []
    if draw(st.integers(0, 2)) == 0:  # a header, or a first row that looks like one
        names = draw(st.sampled_from([["source", "target"], ["from", "to"], ["u", "v"], ["Source", "Target", "Weight"],
                                      ["id_1", "id_2"], ["a", "b"], ["node 1", "node 2"]]))
        lines.append(sep.join(draw(_field([name], sep, True, text=False)) for name in names) if clean else
                     draw(st.sampled_from([",", " ", "\t"])).join(names))
    weighted = draw(st.booleans())
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["edge"] * 10 + ["comment", "blank"] + ([] if clean else ["odd"])))
        if kind == "comment":
            lines.append(draw(st.sampled_from(["# c", '% "quoted" comment', "  # indented", "#,,", "%"])))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t"] + ([] if clean else [" , ", ",,", '""', "\x0b"]))))
        else:
            fields = [draw(_field(pool, sep, clean)) for _ in range(draw(st.integers(1, 2)) if kind == "odd" else 2)]
            if weighted or kind == "odd" or draw(st.integers(0, 9)) == 0:
                fields.append(draw(st.sampled_from(_WEIGHTS + ([] if clean else _BAD_WEIGHTS))))
                if draw(st.integers(0, 3)) == 0:
                    fields.append(draw(st.sampled_from(["1999", "x", ""])))
            line = (sep if clean else draw(st.sampled_from([sep] * 4 + [",", " ", "\t"]))).join(fields)
            if draw(st.integers(0, 5)) == 0:
                line += draw(st.sampled_from([" # note", ' # the "best"', "\t% x", " #x"] + ([] if clean else [", # y"])))
            lines.append(line)
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    if text and draw(st.integers(0, 9)) == 0:  # rare bytes: bare CR, VT, FF, NBSP, separators, invalid UTF-8
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["\r", "\x0b", "\x0c", "\xa0", "\x1c", "\u3000", "\x85"])) + text[at:]
    data = text.encode("utf-8")
    if draw(st.integers(0, 19)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    return data


def _outcome(read):
    """What a read gives, comparably: the GraphData's every field, or the error's type and message."""
    try:
        g = read()
    except GraphFormatError as e:
        return ("error", str(e))
    w = None if g.weights is None else (g.weights.dtype.str, g.weights.tobytes())  # NaN signs too
    return ("graph", g.src.dtype.str, g.src.tolist(), g.dst.dtype.str, g.dst.tolist(), w, g.n, g.labels.dtype.str,
            g.labels.tolist(), g.directed, g.directed_reason, g.self_loops, g.path, g.format,
            g.lines.dtype.str, g.lines.tolist(), g.notes)


def assert_reader_agrees_with_reference(path, **kw):
    """read_graph with the vectorised edge-list readers gives what the per-line readers give."""
    fast = _outcome(lambda: read_graph(path, **kw))
    ref = _outcome(lambda: read_graph_reference(path, **kw))
    assert fast == ref, (Path(path).read_bytes(), kw)


@settings(max_examples=scaled(300), deadline=None)
@given(data=_edge_list_file(), name=st.sampled_from(["g.csv", "g.txt"]), header=st.sampled_from([None, None, True, False]),
       directed=st.sampled_from([None, False]))
def test_edge_list_readers_agree_with_per_line_reference(tmp_path_factory, data, name, header, directed):
    """Quoted and empty CSV fields, whitespace-separated quoted labels, string labels: the vectorised
    readers give the per-line readers' GraphData, field by field, or their error message."""
    folder = tmp_path_factory.getbasetemp() / "agree"
    folder.mkdir(exist_ok=True)
    p = folder / name
    p.write_bytes(data)
    assert_reader_agrees_with_reference(p, header=header, directed=directed)


@pytest.mark.parametrize("text", [
    '"New York" Boston 2.5\nBoston "Washington, DC" 1\n',    # whitespace-separated, quoted (shlex)
    '"a b" "c\n',                                              # no closing quotation
    'from,to,w\n"New York","Boston",2\n"Boston","Washington, DC",3\n',
    '"a""b", c \n"c" ,"a""b"\n',                               # doubled quotes, blanks around
    '"a"x,b\nb,c\n',                                           # text after a closing quote: csv keeps it
    '"a\nb",c\n',                                              # a quoted field over two lines
    'a,b,,x\nb,c,,y\n',                                        # empty fields
    '"1","2"\n"2","3"\n', '"1","2",0.5\n"2","3",-nan\n',
    "a\xa0,b\n\"b\",c\n",                                      # a space str.strip removes, bytes rules do not
    '"a",' + " " * 40 + '"b"' + " " * 40 + "\n" + " " * 30 + '"b"\t,c\n',  # long blank runs
    '"' + " " * 40 + 'a b' + " " * 40 + '" "c"\n' + "\t" * 20 + "c d\n",
    '"a",b\n"' + "x" * 140_000 + '",c\n',                   # past csv.field_size_limit(): malformed CSV
    '"a","b",1\n"b","c"\n', '"a","b",1\n"b","c",x\n', '"a" "b" 1\n"b" "c" 1_0\n', '"a","b"\n"b","c",2\n',
    '"' + "L" * 70 + '","b",1.5\n"b","' + "M" * 80 + '",2\n',   # labels over 64 bytes
    '"a","b",1\n"b","c",' + "1" * 70 + "\n", '"a","b",1\n"b","c",' + "x" * 70 + "\n",
    '"",""\n , \n',                                          # blank rows only
    '"x","y"\n"1","2"\n"2","3"\n',                          # a header above integer labels
    '# "c"\n' * 150 + '"a" "b"\n1 2 # "d"\n',                 # quotes in many comments before the data
], ids=lambda text: repr(text[:20]) + f"[{len(text)}]")
def test_edge_list_readers_agree_on_examples(tmp_path, text):
    p = write(tmp_path, "g.csv", text)
    for header in (None, True, False):
        assert_reader_agrees_with_reference(p, header=header)
    with spla.tuning.override(string_matrix_bytes=0):  # long labels as bytes objects, not a matrix
        assert_reader_agrees_with_reference(p)


@settings(max_examples=scaled(60), deadline=None)
@given(labels=st.lists(st.text(alphabet="ab\u00e9 ", min_size=1, max_size=20), min_size=1, max_size=30),
       keys=st.sampled_from(["real", "one", "length"]))
def test_string_compaction_agrees_with_reference(labels, keys):
    """Labels grouped by 64-bit keys number as np.unique numbers them, also when keys collide (forced
    here: every label one key, or its length as key), which np.unique then settles."""
    import spla.io.labels

    both = np.array([x.encode() for x in labels])
    args = (None, "g.txt", True, "", np.arange(len(labels) // 2, dtype=np.int64), [])
    if len(labels) % 2:
        both = both[:-1]
    if both.size == 0:
        return
    forced = {"one": lambda b: (np.zeros(b.size, dtype=np.uint64), False),
              "length": lambda b: (np.char.str_len(b).astype(np.uint64), False)}
    with mock.patch.object(spla.io.labels, "_label_keys", forced.get(keys, spla.io.labels._label_keys)):
        got = spla.io.labels.compact_strings(both, *args)
    want = spla.io.labels.compact_strings_by_unique(both, *args)
    assert (got.src.tolist(), got.dst.tolist(), got.labels.tolist(), got.labels.dtype, got.n) == \
        (want.src.tolist(), want.dst.tolist(), want.labels.tolist(), want.labels.dtype, want.n)


def test_exotic_space_list_is_str_strip():
    """The characters str.strip removes beyond the ASCII blanks are the ones that send a file to the
    per-line reader."""
    from spla.io.fields import _BLANKS, _EXOTIC_SPACE

    exotic = [chr(c) for c in range(0x110000) if chr(c).isspace() and chr(c) not in _BLANKS.decode() + "\n"]
    assert all(_EXOTIC_SPACE.fullmatch(c) for c in exotic)
    assert not any(_EXOTIC_SPACE.fullmatch(chr(c)) for c in range(0x110000) if not chr(c).isspace())


def test_weight_column_of_many_rows(tmp_path):
    """String labels and weights on thousands of rows: the weight column (every 3rd token) is parsed at
    once, each token padded to one width; the values are Python's."""
    rng = np.random.default_rng(5)
    w = [repr(x) for x in rng.normal(size=3000).tolist()] + ["nan", "-inf", "1e-320", "-0.0", "7"]
    text = "".join(f"v{i % 97} u{i % 89} {x}\n" for i, x in enumerate(w))
    g = read_graph(write(tmp_path, "g.txt", text))
    assert g.weights.tobytes() == np.array([float(x) for x in w]).tobytes()
    assert g.labels[g.src[:3]].tolist() == ["v0", "v1", "v2"]


# ============================================================================ METIS
def test_metis_plain_with_isolated_vertices_and_comments(tmp_path):
    # a comment line is not a vertex line: 3 vertex lines for n = 4
    raises(write(tmp_path, "f.graph", "4 2\n2 3\n1\n% c\n1\n"), r"declares 4 vertices but only 3 vertex lines")
    # vertex 1 -- 2, vertex 1 -- 3; vertex 4 isolated (its empty line counts)
    text = "% a comment\n4 2\n2 3\n% between\n1\n1\n\n"
    g = read_graph(write(tmp_path, "g.graph", text))
    assert g.n == 4 and not g.directed and g.directed_reason == "METIS adjacency lists are undirected"
    assert set(edge_set(g)) == {(1, 2), (1, 3)}
    assert g.labels.tolist() == [1, 2, 3, 4]


def test_metis_isolated_vertex_in_the_middle(tmp_path):
    g = read_graph(write(tmp_path, "g.metis", "3 1 0\n3\n\n1\n"))
    assert set(edge_set(g)) == {(1, 3)} and g.n == 3


def test_metis_edge_weights(tmp_path):
    g = read_graph(write(tmp_path, "g.graph", "3 2 1\n2 5 3 7\n1 5\n1 7\n"))
    assert edge_set(g, weighted=True) == {(1, 2): 5.0, (1, 3): 7.0}


def test_metis_vertex_weights_skipped(tmp_path):
    g = read_graph(write(tmp_path, "g.graph", "3 2 10\n9 2 3\n8 1\n7 1\n"))
    assert set(edge_set(g)) == {(1, 2), (1, 3)} and g.weights is None
    g = read_graph(write(tmp_path, "h.graph", "3 2 11 2\n9 9 2 5 3 7\n8 8 1 5\n7 7 1 7\n"))
    assert edge_set(g, weighted=True) == {(1, 2): 5.0, (1, 3): 7.0}
    g = read_graph(write(tmp_path, "i.graph", "2 1 100\n4 2\n4 1\n"))
    assert set(edge_set(g)) == {(1, 2)}


def test_metis_trailing_blank_lines_are_fine(tmp_path):
    g = read_graph(write(tmp_path, "g.graph", "2 1\n2\n1\n\n\n"))
    assert g.n == 2


def test_metis_edge_weights_must_agree(tmp_path):
    """Both lines of an edge give its weight; different weights are refused (METIS's graphchk does),
    not settled silently by whichever line comes last."""
    raises(write(tmp_path, "g.graph", "3 2 1\n2 5 3 6\n1 7\n1 6\n"),
           r"g\.graph:2: edge 1 -- 2 has weight 5\.0 on this line but 7\.0 on line 3")
    g = read_graph(write(tmp_path, "h.graph", "3 2 1\n2 5 3 nan\n1 5\n1 nan\n"))  # NaN == NaN here
    assert np.isnan(edge_set(g, weighted=True)[(1, 3)])
    # a missing reverse is still reported as such in a weighted file
    raises(write(tmp_path, "i.graph", "3 2 1\n2 5 3 1\n1 5\n2 1\n"), r"i\.graph:2: vertex 1 lists 3 but vertex 3")


def test_metis_self_loop_listed_once(tmp_path):
    """A self-loop is listed once, so the adjacency count is odd: the message says so."""
    raises(write(tmp_path, "g.graph", "2 1\n1 2\n1\n"),
           r"declares m=1 edges, .* has 3; 1 of them a self-loop \(vertex 1 lists itself on line 2\)")


@pytest.mark.parametrize("text, match", [
    ("", "empty METIS file"),
    ("3\n", r"g\.graph:1: malformed METIS header"),
    ("3 x\n", r"g\.graph:1: malformed METIS header"),
    ("3 1 2\n2\n1\n\n", r"unsupported METIS fmt '2'"),
    ("3 1 0 2\n2\n1\n\n", "ncon=2 but fmt 000 has no vertex weights"),
    ("3 1\n2\n0\n\n", r"g\.graph:3: neighbour 0 is outside 1\.\.3 \(METIS ids are 1-based\)"),
    ("3 1\n2\n4\n\n", r"g\.graph:3: neighbour 4 is outside"),
    ("3 2\n2\n1\n\n", r"declares m=2 edges, i\.e\. 4 adjacency entries .* has 2"),
    ("2 1\n2\n1\n1\n", r"g\.graph:4: more vertex lines than the n=2"),
    ("2 1 1\n2 5 1\n1 5\n", r"g\.graph:2: expected 'neighbour weight' pairs"),
    ("2 1\n2\nx\n", r"g\.graph:3: expected integers"),
    ("3 2\n2 3\n1\n2\n", r"g\.graph:2: vertex 1 lists 3 but vertex 3 does not list 1"),
])
def test_metis_errors(tmp_path, text, match):
    raises(write(tmp_path, "g.graph", text), match)


# ============================================================================ detection, files
def test_detect_format():
    assert detect_format("a/b.MTX") == "mtx"
    assert detect_format("x.graph.gz") == "metis"
    assert detect_format("x.csv.bz2") == "edgelist"
    assert detect_format("x.unknown", b"%%MatrixMarket matrix coordinate pattern general") == "mtx"
    with pytest.raises(GraphFormatError, match=r"unknown graph format \(extension '\.xyz'"):
        detect_format("x.xyz", b"1 2\n")


def test_banner_wins_over_extension_and_format_override(tmp_path):
    p = write(tmp_path, "g.dat", MM_GENERAL)
    assert read_graph(p).format == "mtx"
    q = write(tmp_path, "g.weird", "1 2\n")
    raises(q, "unknown graph format")
    assert read_graph(q, format="edgelist").src.size == 1
    assert read_graph(q, format="csv").format == "edgelist"
    with pytest.raises(GraphFormatError, match="unknown format 'nope'"):
        read_graph(q, format="nope")


def test_read_graph_from_a_binary_stream():
    """A stream is read to its end, decompressed by its magic bytes, and named in messages."""
    import io

    g = read_graph(io.BytesIO(b"a b 2.5\nb c 1\n"), format="edgelist")
    assert g.labels.tolist() == ["a", "b", "c"] and g.weights.tolist() == [2.5, 1.0]
    assert read_graph(io.BytesIO(gzip.compress(MM_GENERAL.encode()))).format == "mtx"  # banner, no format
    named = io.BytesIO(b"1 2\n")
    named.name = "<stdin>"
    with pytest.raises(GraphFormatError, match=r"^<stdin>: unknown graph format \(no extension"):
        read_graph(named)
    with pytest.raises(GraphFormatError, match=r"^<stream>:2: "):
        read_graph(io.BytesIO(b"1 2\n3\n"), format="edgelist")
    with pytest.raises(TypeError, match=r"needs a binary stream .* <stream> gave str"):
        read_graph(io.StringIO("1 2\n"), format="edgelist")


def test_missing_directory_corrupt(tmp_path):
    raises(tmp_path / "none.txt", r"none\.txt: no such file")
    raises(tmp_path, "is a directory")
    p = tmp_path / "bad.txt.gz"
    p.write_bytes(gzip.compress(np.random.default_rng(0).bytes(10_000))[:5000])
    raises(p, "corrupt or truncated compressed file")
    p.write_bytes(b"\x1f\x8b" + b"not gzip at all")
    raises(p, "corrupt or truncated compressed file")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads unreadable files")
def test_unreadable_file(tmp_path):
    p = write(tmp_path, "g.txt", "1 2\n")
    p.chmod(0)
    try:
        raises(p, "permission denied")
    finally:
        p.chmod(0o644)


def test_error_is_value_error_and_spla_error():
    import spla

    assert issubclass(GraphFormatError, ValueError) and issubclass(GraphFormatError, spla.SplaError)


# ============================================================================ to_matrix
def test_to_matrix_matches_networkx(tmp_path):
    nx = pytest.importorskip("networkx")
    text = "a b 2\nb c 3\nc a 1\nb a 5\nd d 1\n"
    g = read_graph(write(tmp_path, "g.txt", text), directed=False)
    A = g.to_matrix(device="cpu")
    G = nx.read_edgelist(str(tmp_path / "g.txt"), nodetype=str, data=(("weight", float),))
    order = g.labels.tolist()
    ref = nx.to_scipy_sparse_array(G, nodelist=order, weight="weight").toarray()
    np.testing.assert_array_equal(A.to_scipy().toarray(), ref)  # last weight of a-b wins: 5
    B = g.to_matrix(device="cpu", drop_self_loops=True, weighted=False)
    assert B.is_pattern and B.nnz == 6 and not B.directed


def test_to_matrix_directed_duplicates(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "1 2\n1 2\n2 1\n"))
    A = g.to_matrix(device="cpu")
    assert A.directed and A.nnz == 2


# ============================================================================ no loop per line
def test_reading_is_vectorised(tmp_path):
    """200k edges read within a generous bound: no Python loop per line."""
    rng = np.random.default_rng(0)
    e = rng.integers(0, 50_000, size=(200_000, 2))
    p = tmp_path / "big.txt"
    p.write_text("# comment\n" + "\n".join(f"{a}\t{b}" for a, b in e.tolist()) + "\n")
    t = time.perf_counter()
    g = read_graph(p)
    dt = time.perf_counter() - t
    assert g.src.size == 200_000
    np.testing.assert_array_equal(g.labels[g.src], e[:, 0])
    assert dt < 5.0, f"reading 200k edges took {dt:.2f} s"


# ============================================================================ shared graphs
def _manifest():
    root = shared_graphs()
    if root is None:
        return []
    with open(root / "graphs.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.skipif(shared_graphs() is None, reason="../shared/graphs not present")
@pytest.mark.parametrize("row", _manifest(), ids=lambda r: r["path"])
def test_shared_graph_counts(row):
    """Every file of ../shared/graphs reads with the manifest's node, edge and self-loop counts."""
    g = read_graph(shared_graphs() / row["path"])
    undirected = not row["type"].startswith("directed")
    assert g.n == int(row["nodes"])
    if undirected and g.directed:
        g.directed = False  # count unordered pairs, as the manifest does
    s, d, _ = g.edges(weighted=False)
    assert s.size == int(row["edges"])
    assert g.self_loops == int(row["self_loops"])
    expected_format = {"Matrix Market": "mtx", "METIS adjacency": "metis"}.get(row["format"], "edgelist")
    assert g.format == expected_format
    if expected_format == "mtx" and "symmetric" in row["type"]:
        assert not g.directed


@pytest.mark.parametrize("n", [5, 2 ** 31 + 11, 3_100_000_000, 2 ** 32, 2 ** 32 + 1, 2 ** 40])
@pytest.mark.parametrize("directed", [True, False])
def test_edges_dedup_beyond_the_int64_product(n, directed):
    """The canonical edge set keys pairs as src*n + dst only while n^2 fits; past 3.04e9 vertices
    (where int64 overflows) and past 2^32 (where uint64 does) the pairs keep apart."""
    from spla.io.graphdata import GraphData

    big = n - 1
    src = np.array([big, 0, big, 1, 0, big], dtype=np.int64)
    dst = np.array([0, big, 0, 1, 1, big - 1 if big else 0], dtype=np.int64)
    w = np.arange(1.0, 7.0)
    g = GraphData(src, dst, w, n, np.arange(0), directed, "test", 1, "mem", "edgelist")
    pairs = list(zip(src.tolist(), dst.tolist(), w.tolist()))
    if not directed:
        pairs = [(min(a, b), max(a, b), x) for a, b, x in pairs]
    want = {}
    for a, b, x in pairs:  # the last weight of a pair wins
        want[(a, b)] = x
    s, d, ww = g.edges()
    assert sorted(zip(s.tolist(), d.tolist(), ww.tolist())) == sorted((a, b, x) for (a, b), x in want.items())
    s, d, none = g.edges(weighted=False)
    assert none is None and sorted(zip(s.tolist(), d.tolist())) == sorted(want)
    assert s.dtype == np.int64 and d.dtype == np.int64
