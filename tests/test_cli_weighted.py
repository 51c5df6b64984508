"""``spla centrality --weight`` and ``spla info`` on weighted graphs: the path measures on weighted
shortest paths (each pair its shortest arc) against networkx, the errors before any work, and info's
weight and parallel-arc lines."""

from __future__ import annotations

import csv
import io
import re
from types import SimpleNamespace

import pytest
from conftest import GRAPHS_DIR
from test_cli import fake_measures, write  # noqa: F401  (fake_measures: the fixture)

import spla
from spla import cli
from spla.cli.measures import MEASURES

nx = pytest.importorskip("networkx")

ROME = GRAPHS_DIR / "weighted" / "rome99.gr.gz"
CELEGANS = GRAPHS_DIR / "weighted" / "celegansneural.gml.gz"
needs_weighted = pytest.mark.skipif(not ROME.is_file(), reason="../shared/graphs/weighted not present")

#: a directed graph with parallel arcs of different lengths (1 -> 2: 5 and 2), integer ties, a self-loop and an
#: unreachable vertex
ARCS = [(1, 2, 5), (2, 3, 1), (1, 2, 2), (1, 3, 3), (3, 4, 2), (2, 4, 3), (4, 1, 1), (5, 4, 7), (4, 6, 4),
        (6, 4, 4), (3, 3, 2)]


@pytest.fixture
def spla_cmd(capsys, tmp_path):
    """``spla ARGS`` in this process (relative names in tmp_path): SimpleNamespace(returncode, stdout, stderr)."""
    def run(*args):
        argv = [str(tmp_path / a) if (tmp_path / str(a)).is_file() else str(a) for a in args]
        rc = cli.main([*argv[:1], *argv[1:], *([] if argv[0] != "centrality" else ["--device", "cpu"])])
        out, err = capsys.readouterr()
        return SimpleNamespace(returncode=rc, stdout=out, stderr=err)
    return run


def assert_one_line_error(res, pattern):
    """Exit status 2, exactly one stderr line 'spla: error: ...' matching pattern, nothing on stdout."""
    lines = res.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got:\n{res.stderr}"
    assert lines[0].startswith("spla: error: "), lines[0]
    assert re.search(pattern, lines[0]), f"{pattern!r} not in {lines[0]!r}"
    assert res.returncode == 2 and res.stdout == "", (res.returncode, res.stdout)


def table(res) -> dict:
    """The CSV table on stdout: {column: {label: value}}."""
    rows = list(csv.reader(io.StringIO(res.stdout)))
    head = rows[0]
    return {col: {r[0]: float(r[k]) for r in rows[1:]} for k, col in enumerate(head) if k}


def reference(arcs, directed):
    """networkx's weighted measures on the graph of each pair's shortest arc (what networkx's shortest
    paths use on a multigraph)."""
    G = nx.DiGraph() if directed else nx.Graph()
    for u, v, w in arcs:
        u, v = str(u), str(v)
        if not G.has_edge(u, v) or G[u][v]["w"] > w:
            G.add_edge(u, v, w=w)
    out = nx.single_source_dijkstra_path_length
    return G, {
        "bc": nx.betweenness_centrality(G, weight="w", normalized=True),
        "closeness": nx.closeness_centrality(G, distance="w", wf_improved=True),
        "harmonic": nx.harmonic_centrality(G, distance="w"),
        "distance-sum": {v: float(sum(out(G, v, weight="w").values())) for v in G},
    }


def assert_matches(got, ref, keys):
    for key in keys:
        assert set(got[key]) == set(ref[key]), key
        for v, x in ref[key].items():
            assert got[key][v] == pytest.approx(x, rel=1e-12, abs=1e-15), (key, v)


# ============================================================================ needs the weighted algorithms
@pytest.mark.parametrize("directed", [True, False])
def test_weight_runs_every_path_measure_weighted(tmp_path, spla_cmd, directed):
    write(tmp_path, "w.txt", "".join(f"{u} {v} {w}\n" for u, v, w in ARCS))
    res = spla_cmd("centrality", "w.txt", "--weight", "--out", "-", *([] if directed else ["--undirected"]))
    assert res.returncode == 0, res.stderr
    got = table(res)
    G, ref = reference(ARCS, directed)
    assert_matches(got, ref, ("bc", "closeness", "harmonic", "distance-sum"))
    assert "bc, closeness, harmonic, distance-sum run on weighted shortest paths" in res.stderr
    assert "the parallel arcs of 1 pair merged to the shortest" in res.stderr
    assert "daccer, degree are unweighted in spla and ignore them" in res.stderr
    kernel = next(line for line in res.stderr.splitlines() if line.startswith("kernel"))
    assert "Dijkstra" in kernel and "bc, closeness, harmonic, distance-sum on weighted shortest paths" in kernel
    # the measures that are not path measures run as without --weight
    plain = table(spla_cmd("centrality", "w.txt", "--out", "-", "--measures", "pagerank,daccer,degree",
                           *([] if directed else ["--undirected"])))
    for key in ("pagerank", "daccer", "degree"):
        assert got[key] == plain[key], key


@pytest.mark.gpu
def test_weight_on_a_gpu_names_its_searches(tmp_path, capsys):
    write(tmp_path, "w.txt", "".join(f"{u} {v} {w}\n" for u, v, w in ARCS))
    rc = cli.main(["centrality", str(tmp_path / "w.txt"), "--weight", "--out", "-", "--device", "gpu"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    _, ref = reference(ARCS, True)
    assert_matches(table(SimpleNamespace(stdout=out)), ref, ("bc", "closeness", "harmonic", "distance-sum"))
    kernel = next(line for line in err.splitlines() if line.startswith("kernel"))
    assert "bc, closeness, harmonic, distance-sum on weighted shortest paths: delta-stepping (buckets of" in kernel
    with spla.tuning.override(sssp_delta=None):
        assert cli.main(["centrality", str(tmp_path / "w.txt"), "--weight", "--out", "-", "--device", "gpu"]) == 0
    kernel = next(line for line in capsys.readouterr().err.splitlines() if line.startswith("kernel"))
    assert "weighted shortest paths: Bellman-Ford searches of blocks of sources" in kernel


def test_weight_named_column_and_graph_after_the_option(tmp_path, spla_cmd):
    write(tmp_path, "w.csv", "source,target,time,length\n" + "".join(f"{u},{v},1,{w}\n" for u, v, w in ARCS))
    # --weight NAME before GRAPH, and --weight with GRAPH right after it (argparse hands GRAPH to NAME)
    write(tmp_path, "w.txt", "".join(f"{u} {v} {w}\n" for u, v, w in ARCS))
    a = spla_cmd("centrality", "--weight", "length", "w.csv", "--measures", "bc,closeness", "--out", "-")
    b = spla_cmd("centrality", "--weight", "w.txt", "--measures", "bc,closeness", "--out", "-")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    _, ref = reference(ARCS, True)
    assert_matches(table(a), ref, ("bc", "closeness"))
    assert_matches(table(b), ref, ("bc", "closeness"))


@needs_weighted
def test_weight_on_celegans_matches_networkx(tmp_path, spla_cmd):
    """The GML graph with duplicated arcs (7 pairs of different values): each pair keeps its minimum."""
    res = spla_cmd("centrality", CELEGANS, "--weight", "--measures", "bc,closeness,harmonic", "--out", "-")
    assert res.returncode == 0, res.stderr
    from spla.io import read_graph

    g = read_graph(CELEGANS)
    arcs = [(g.labels[u], g.labels[v], w) for u, v, w in zip(g.src.tolist(), g.dst.tolist(), g.weights.tolist())]
    _, ref = reference(arcs, True)
    assert_matches(table(res), ref, ("bc", "closeness", "harmonic"))


# ============================================================================ errors and reports (no algorithm needed)
def test_weight_without_weights_is_one_line_error(tmp_path, spla_cmd):
    write(tmp_path, "u.txt", "1 2\n2 3\n")
    assert_one_line_error(spla_cmd("centrality", "u.txt", "--weight"),
                          r"u\.txt: --weight reads the edge weights as arc lengths, but the graph has none: no row "
                          r"has a numeric 3rd field")
    write(tmp_path, "p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    assert_one_line_error(spla_cmd("centrality", "p.mtx", "--weight"),
                          r"p\.mtx: --weight .* its Matrix Market field is 'pattern'")
    assert_one_line_error(spla_cmd("centrality", "--weight"),
                          r"power\.graph\.gz: --weight .* METIS header's fmt has no edge weights")


@pytest.mark.parametrize("weight, pattern", [
    ("nan", r"w\.txt:2: 1 NaN or infinite edge weights"),
    ("inf", r"w\.txt:2: 1 NaN or infinite edge weights"),
    ("-1", r"w\.txt:2: 1 negative edge weights \(first: -1\.0\); they must be finite and non-negative for bc"),
])
def test_bad_lengths_are_one_line_errors_before_any_work(tmp_path, spla_cmd, weight, pattern):
    write(tmp_path, "w.txt", f"1 2 1\n2 3 {weight}\n")
    res = spla_cmd("centrality", "w.txt", "--weight", "--measures", "bc")
    assert_one_line_error(res, pattern + r".* or drop --weight to ignore the weights")


def test_weight_refused_where_an_algorithm_takes_no_lengths(tmp_path, spla_cmd, fake_measures):
    """The fakes' functions take no weight=/distance=: --weight is refused, never run unweighted."""
    write(tmp_path, "w.txt", "1 2 1\n2 3 2\n")
    assert_one_line_error(spla_cmd("centrality", "w.txt", "--weight", "--measures", "closeness"),
                          r"--weight: spla\.algorithms\.closeness_centrality takes no distance= argument")
    res = spla_cmd("centrality", "w.txt", "--weight", "--measures", "degree", "--out", "-")
    assert res.returncode == 0, res.stderr
    assert "--weight applies to bc, closeness, harmonic and distance-sum, none of which is in --measures" in res.stderr


def test_weighted_file_without_weight_suggests_it(tmp_path, spla_cmd, fake_measures):
    write(tmp_path, "w.txt", "1 2 1\n2 3 2\n")
    res = spla_cmd("centrality", "w.txt", "--measures", "bc,degree", "--out", "-")
    assert res.returncode == 0, res.stderr
    assert "bc, degree are unweighted in spla and ignore them (--weight makes bc, closeness" in res.stderr


def test_measures_table_names_the_length_keywords():
    assert {k: m.lengths for k, m in MEASURES.items()} == {
        "bc": "weight", "closeness": "distance", "harmonic": "distance", "distance-sum": "weight",
        "pagerank": None, "daccer": None, "degree": None}


def test_info_reports_weights_and_parallel_arcs(tmp_path, spla_cmd):
    write(tmp_path, "w.txt", "".join(f"{u} {v} {w}\n" for u, v, w in ARCS) + "6 7 0\n7 7 0\n")
    res = spla_cmd("info", "w.txt")
    assert res.returncode == 0, res.stderr
    assert "weights            yes, 0 .. 7; 1 arc of length 0 (--weight: arc lengths of bc" in res.stdout
    assert ("parallel arcs      1 pair listed more than once (1 with different weights): the path measures keep "
            "each pair's shortest arc") in res.stdout
    write(tmp_path, "u.txt", "1 2\n2 1\n")
    res = spla_cmd("info", "u.txt")
    assert "weights            none" in res.stdout and "parallel arcs" not in res.stdout
    write(tmp_path, "bad.txt", "1 2 -3\n2 1 nan\n")
    res = spla_cmd("info", "bad.txt")
    assert res.returncode == 0 and "1 NaN/inf, 1 negative: refused by --weight and pagerank" in res.stdout


@needs_weighted
def test_info_on_rome99(tmp_path, spla_cmd):
    res = spla_cmd("info", ROME)
    assert res.returncode == 0, res.stderr
    assert "(DIMACS shortest-path)" in res.stdout and "vertices           3,353" in res.stdout
    assert "weights            yes, 1 .. 12,711; 0 arcs of length 0" in res.stdout
    assert "parallel arcs      11 pairs listed more than once (9 with different weights)" in res.stdout


def test_info_weight_name_reads_that_column(tmp_path, spla_cmd):
    write(tmp_path, "w.csv", "source,target,time,length\n1,2,9,4\n2,3,8,0.5\n")
    res = spla_cmd("info", "w.csv", "--weight", "length")
    assert res.returncode == 0, res.stderr
    assert "weights            yes, 0.5 .. 4" in res.stdout
    assert_one_line_error(spla_cmd("info", "w.csv", "--weight", "speed"),
                          r"w\.csv:1: no column 'speed' in the header row")


def test_format_choices_include_dimacs_and_gml(tmp_path, spla_cmd):
    write(tmp_path, "roads.dat", "p sp 2 2\na 1 2 3\na 2 1 4\n")
    res = spla_cmd("info", "roads.dat", "--format", "dimacs")
    assert res.returncode == 0 and "(DIMACS shortest-path)" in res.stdout, res.stderr
