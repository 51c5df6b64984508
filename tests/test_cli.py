"""The ``spla`` command: bad input (one line, exit 2, no traceback), atomic output,
Ctrl-C, the report, and one real graph compared with networkx.

Most tests run the command as a subprocess (``python -m spla`` with PYTHONPATH set to
the repository).  Tests about the output swap the functions of the command's registry of
measures (``spla.cli.measures.MEASURES``) for cheap, predictable fakes, so they do not
depend on the real algorithms' speed: in a subprocess through a ``sitecustomize`` module
(written to a temporary directory put first on PYTHONPATH) that replaces the registry's
entries when the interpreter starts, so that ``python -m spla`` itself runs; in-process
with the ``fake_measures`` fixture.  The comparison with networkx uses the real ones and
is skipped when they cannot be imported.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_graphs

REPO = Path(__file__).resolve().parents[1]


def real_algorithms() -> bool:
    try:
        from spla import algorithms

        return callable(getattr(algorithms, "betweenness_centrality", None))
    except Exception:
        return False


def gpu_present() -> bool:
    import spla

    return spla.gpu_available()


needs_algorithms = pytest.mark.skipif(not real_algorithms(), reason="algorithms package not importable yet")
needs_shared = pytest.mark.skipif(shared_graphs() is None, reason="../shared/graphs not present")

FAKE_MEASURES = '''
"""Stand-ins for the functions of spla's CLI registry of measures: cheap, predictable values,
and hooks to be slow (FAKE_SLOW=<marker file>) or to fail (FAKE_FAIL=1) in the middle of a run."""
import dataclasses, os, time
import numpy as np
import spla

def _deg(A):
    return np.asarray(spla.device.to_numpy(A.out_degree()), dtype=np.float64)

def betweenness_centrality(A, *, k=None, seed=None, normalized=True, device=None, kernel="auto", progress=None):
    n = A.shape[0]
    marker = os.environ.get("FAKE_SLOW")
    if marker:
        open(marker, "w").close()
        for i in range(600):
            time.sleep(0.05)
            if progress:
                progress(i, 600)
    if os.environ.get("FAKE_FAIL"):
        raise spla.InvalidGraph("fake failure in the middle of the run")
    return np.arange(n, dtype=np.float64) / max(n, 1)

def closeness_centrality(A, *, wf_improved=True, device=None, kernel="auto", progress=None):
    return _deg(A) / 10

def harmonic_centrality(A, *, device=None, kernel="auto", progress=None):
    return _deg(A) * 2

def sum_of_distances(A, *, return_reach=False, device=None, kernel="auto", progress=None):
    s = np.asarray(_deg(A), dtype=np.int64)
    return (s, np.full(A.shape[0], A.shape[0], dtype=np.int64)) if return_reach else s

def pagerank(A, *, alpha=0.85, device=None, kernel="auto"):
    w = _deg(A) + 1
    return w / w.sum()

def daccer_volumes(A, radius=2, *, device=None, kernel="auto", progress=None):
    return np.asarray(_deg(A) * radius, dtype=np.int64)

def degree_centrality(A, *, device=None):
    return _deg(A) / max(A.shape[0] - 1, 1)

FAKES = {"bc": betweenness_centrality, "closeness": closeness_centrality, "harmonic": harmonic_centrality,
         "distance-sum": sum_of_distances, "pagerank": pagerank, "daccer": daccer_volumes,
         "degree": degree_centrality}

def install(registry):
    """Replace the function of every measure of ``registry`` by its fake."""
    assert set(registry) == set(FAKES), sorted(registry)
    for key, fn in FAKES.items():
        registry[key] = dataclasses.replace(registry[key], function=fn)
'''

SITECUSTOMIZE = '''
# run by the interpreter at start-up (this directory is first on PYTHONPATH): the registry of
# measures of ``python -m spla`` computes the fakes
from spla.cli import measures
import spla_cli_fakes

spla_cli_fakes.install(measures.MEASURES)
'''


@pytest.fixture
def fake(tmp_path_factory):
    """Directory whose ``sitecustomize`` makes the command's measures the fakes."""
    d = tmp_path_factory.mktemp("fake")
    (d / "spla_cli_fakes.py").write_text(FAKE_MEASURES)
    (d / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return d


@pytest.fixture
def fake_measures(monkeypatch):
    """The fakes in this process: the registry's entries swapped for the test's duration."""
    from spla.cli import measures

    namespace = {}
    exec(compile(FAKE_MEASURES, "spla_cli_fakes", "exec"), namespace)
    for key in list(measures.MEASURES):
        monkeypatch.setitem(measures.MEASURES, key, measures.MEASURES[key])  # restored afterwards
    namespace["install"](measures.MEASURES)
    return namespace["FAKES"]


def _env(fake_dir=None, **extra):
    env = dict(os.environ)
    env.pop("SPLA_DEBUG", None)
    paths = ([str(fake_dir)] if fake_dir else []) + [str(REPO)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def spla_cmd(*args, cwd, fake_dir=None, timeout=300, **extra):
    """Run ``python -m spla ARGS``; returns the CompletedProcess (text mode)."""
    return subprocess.run([sys.executable, "-m", "spla", *map(str, args)], cwd=cwd, env=_env(fake_dir, **extra),
                          capture_output=True, text=True, timeout=timeout)


def assert_one_line_error(res, pattern):
    """Exit status 2, exactly one stderr line 'spla: error: ...' matching pattern, no traceback."""
    assert "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got:\n{res.stderr}"
    assert lines[0].startswith("spla: error: "), lines[0]
    assert re.search(pattern, lines[0]), f"{pattern!r} not in {lines[0]!r}"
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert res.stdout == ""


def write(dirpath: Path, name: str, text: str) -> Path:
    p = dirpath / name
    p.write_text(text)
    return p


MM = "%%MatrixMarket matrix coordinate pattern general\n"


# ============================================================================ bad input
@pytest.mark.parametrize("name, text, pattern", [
    ("hdr.mtx", "%%MatrixMarket matrix coordinate pattern\n2 2 1\n1 2\n",
     r"hdr\.mtx:1: malformed Matrix Market header"),
    ("size.mtx", MM + "3 3\n1 2\n", r"size\.mtx:2: malformed size line: expected 'rows columns entries'"),
    ("data.mtx", MM + "3 3 2\n1 2\n2 3 4\n", r"data\.mtx:4: expected 2 fields 'row column'"),
    ("data.txt", "1 2\n3\n", r"data\.txt:2: expected at least 2 fields"),
    ("rect.mtx", MM + "3 4 1\n1 2\n", r"rect\.mtx:2: the matrix is 3 x 4; .* must be square"),
    ("zero.mtx", MM + "3 3 1\n0 2\n", r"zero\.mtx:3: row index 0 is outside 1\.\.3"),
    ("neg.mtx", MM + "3 3 1\n1 -2\n", r"neg\.mtx:3: column index -2 is outside"),
    ("big.mtx", MM + "3 3 1\n1 9\n", r"big\.mtx:3: column index 9 is outside 1\.\.3"),
    ("metis0.graph", "2 1\n0\n1\n", r"metis0\.graph:2: neighbour 0 is outside"),
    ("few.mtx", MM + "3 3 3\n1 2\n2 3\n", r"declares 3 entries but the file has only 2"),
    ("many.mtx", MM + "3 3 1\n1 2\n2 3\n", r"many\.mtx:4: more entries than the 1 declared"),
    ("metism.graph", "3 5\n2\n1\n\n", r"declares m=5 edges"),
    ("nonnum.txt", "1 2 0.5\n2 3 x\n", r"nonnum\.txt:2: non-numeric weight 'x'"),
    ("empty.txt", "# nothing here\n", r"the graph is empty"),
    ("empty.mtx", MM + "0 0 0\n", r"the graph is empty"),
    ("graph.xyz", "1 2\n", r"unknown graph format"),
])
def test_bad_files(tmp_path, name, text, pattern):
    p = write(tmp_path, name, text)
    assert_one_line_error(spla_cmd("centrality", p, cwd=tmp_path), pattern)


@pytest.mark.parametrize("name, data, pattern", [
    ("under.txt", b"1 2 1\n2 3 1_0\n", r"under\.txt:2: non-numeric weight '1_0'"),
    ("arabic.mtx", (MM.replace("pattern", "real") + "3 3 1\n1 2 \u0661\n").encode(),
     r"arabic\.mtx:3: .*found '\u0661'"),
    ("utf16.csv", "a,b\nb,c\nc,a".encode("utf-16"), r"utf16\.csv:1: .*UTF-16 .*save it as UTF-8"),
    ("huge.mtx", (MM + "1000000000000000 1000000000000000 1\n1 1\n").encode(), r"huge\.mtx:2: the size line declares"),
])
def test_bad_files_are_input_errors(tmp_path, name, data, pattern):
    """Input errors, not 'spla: internal error' (exit 1) or a graph with NUL-byte labels."""
    (tmp_path / name).write_bytes(data)
    for cmd in ("centrality", "info"):
        assert_one_line_error(spla_cmd(cmd, name, "--device", "cpu", cwd=tmp_path), pattern)


def test_missing_file(tmp_path):
    assert_one_line_error(spla_cmd("centrality", "nope.mtx", cwd=tmp_path), r"nope\.mtx: no such file")
    assert_one_line_error(spla_cmd("info", "nope.txt", cwd=tmp_path), r"nope\.txt: no such file")


def test_unreadable_file(tmp_path):
    # a directory cannot be read as a file (works as root too)
    (tmp_path / "dir.txt").mkdir()
    assert_one_line_error(spla_cmd("centrality", "dir.txt", cwd=tmp_path), r"dir\.txt: is a directory")
    # a path through a regular file
    write(tmp_path, "f.txt", "1 2\n")
    assert_one_line_error(spla_cmd("centrality", "f.txt/g.txt", cwd=tmp_path), r"cannot read the file")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read mode-000 files")
def test_permission_denied(tmp_path):
    p = write(tmp_path, "g.txt", "1 2\n")
    p.chmod(0)
    try:
        assert_one_line_error(spla_cmd("centrality", p, cwd=tmp_path), "permission denied")
    finally:
        p.chmod(0o644)


def test_corrupt_gzip(tmp_path):
    (tmp_path / "g.txt.gz").write_bytes(b"\x1f\x8b" + b"garbage" * 10)
    assert_one_line_error(spla_cmd("centrality", "g.txt.gz", cwd=tmp_path), "corrupt or truncated")


@pytest.mark.parametrize("weight, pattern", [
    ("nan", r"w\.txt:2: 1 NaN or infinite edge weights .* for pagerank"),
    ("inf", r"w\.txt:2: 1 NaN or infinite edge weights"),
    ("-1", r"w\.txt:2: 1 negative edge weights \(first: -1\.0\); .* finite and non-negative for pagerank"),
])
def test_bad_weights_for_pagerank(tmp_path, weight, pattern):
    write(tmp_path, "w.txt", f"1 2 1\n2 3 {weight}\n")
    assert_one_line_error(spla_cmd("centrality", "w.txt", "--measures", "pagerank", cwd=tmp_path), pattern)
    assert_one_line_error(spla_cmd("centrality", "w.txt", cwd=tmp_path), pattern)  # 'all' includes pagerank


def test_bad_weights_ignored_by_unweighted_measures(tmp_path, fake):
    write(tmp_path, "w.txt", "1 2 1\n2 3 nan\n")
    res = spla_cmd("centrality", "w.txt", "--measures", "bc,degree", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0, res.stderr
    assert "unweighted in spla and ignore them" in res.stderr


@pytest.mark.parametrize("args, pattern", [
    (["--measures", "bc,foo"], r"unknown measure 'foo'; choose from bc, closeness"),
    (["--measures", ","], r"--measures is empty"),
    (["--device", "tpu"], r"argument --device: invalid choice: 'tpu'"),
    (["--kernel", "fast"], r"argument --kernel: invalid choice 'fast'"),
    (["--alpha", "1.5"], r"--alpha must be in \(0, 1\), got 1\.5"),
    (["--alpha", "x"], r"argument --alpha: invalid float value: 'x'"),
    (["--max-iter", "0"], r"--max-iter must be >= 1, got 0"),
    (["--tol=-1e-3"], r"--tol must be a positive number, got -0\.001"),
    (["--tol", "0"], r"--tol must be a positive number, got 0\.0"),
    (["--tol", "nan"], r"--tol must be a positive number, got nan"),
    (["--radius", "-1"], r"--radius must be >= 0"),
    (["--samples", "0"], r"--samples must be >= 1"),
    (["--top", "-3"], r"--top must be >= 0"),
    (["--format", "graphml"], r"argument --format: invalid choice: 'graphml'"),
    (["--directed", "--undirected"], r"not allowed with argument"),
    (["--bogus"], r"unrecognized arguments: --bogus"),
    (["--out", "no/such/dir/out.csv"], r"--out no/such/dir/out\.csv: directory .* does not exist"),
    (["--out", "."], r"--out \.: is a directory"),
])
def test_bad_options(tmp_path, args, pattern):
    write(tmp_path, "g.txt", "1 2\n")
    assert_one_line_error(spla_cmd("centrality", "g.txt", *args, cwd=tmp_path), pattern)


@pytest.mark.skipif(not real_algorithms(), reason="the algorithms package cannot be imported")
def test_pagerank_not_converging_exits_3(tmp_path):
    """PageRank that does not converge: one line naming the options to change, exit 3, no output file;
    --max-iter and --tol reach the algorithm."""
    write(tmp_path, "g.txt", "1 2\n2 3\n3 1\n3 4\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "pagerank", "--max-iter", "1", "--out", "o.csv",
                   "-q", cwd=tmp_path)
    assert res.returncode == 3, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("spla: error: pagerank did not converge within max_iter=1")
    assert "--max-iter N, --tol T" in lines[0] and "Traceback" not in res.stderr
    assert not (tmp_path / "o.csv").exists()
    res = spla_cmd("centrality", "g.txt", "--measures", "pagerank", "--max-iter", "1", "--tol", "1", "-q",
                   cwd=tmp_path)
    assert res.returncode == 0, res.stderr


def test_no_or_unknown_command(tmp_path):
    assert_one_line_error(spla_cmd(cwd=tmp_path), "a command is required")
    assert_one_line_error(spla_cmd("centrallity", cwd=tmp_path), "invalid choice: 'centrallity'")


@pytest.mark.skipif(gpu_present(), reason="a GPU is present")
def test_device_gpu_without_gpu(tmp_path):
    write(tmp_path, "g.txt", "1 2\n")
    assert_one_line_error(spla_cmd("centrality", "g.txt", "--device", "gpu", cwd=tmp_path), r"no GPU is available")
    assert_one_line_error(spla_cmd("info", "g.txt", "--device", "gpu", cwd=tmp_path), r"no GPU is available")


def test_device_gpu_n(tmp_path):
    """--device takes gpu:N as the Python API does; a GPU that is not there is one line, as is a bad name."""
    write(tmp_path, "g.txt", "1 2\n")
    assert_one_line_error(spla_cmd("centrality", "g.txt", "--device", "gpu:99", cwd=tmp_path),
                          r"no GPU is available|device 'gpu:99' does not exist: CuPy sees \d+ GPU")
    assert_one_line_error(spla_cmd("centrality", "g.txt", "--device", "gpu:x", cwd=tmp_path),
                          r"argument --device: invalid choice: 'gpu:x' \(choose from 'auto', 'cpu', 'gpu', 'gpu:N'\)")


def test_help_and_version(tmp_path):
    res = spla_cmd("--help", cwd=tmp_path)
    assert res.returncode == 0 and "centrality" in res.stdout
    res = spla_cmd("centrality", "--help", cwd=tmp_path)
    assert res.returncode == 0 and "--measures" in res.stdout and "--correlations" in res.stdout
    res = spla_cmd("--version", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("spla ")


# ============================================================================ output files
def test_csv_to_stdout_and_report(tmp_path, fake):
    write(tmp_path, "g.csv", "source,target\nalice,bob\nbob,carol\ncarol,alice\ndave,alice\n")
    res = spla_cmd("centrality", "g.csv", "--undirected", "--top", "2", "--correlations", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["vertex", "bc", "closeness", "harmonic", "distance-sum", "pagerank", "daccer", "degree"]
    assert [r[0] for r in rows[1:]] == ["alice", "bob", "carol", "dave"]
    assert rows[1][6] == "6"  # daccer (fake: degree * radius) stays an integer
    err = res.stderr
    for text in ("4 vertices, 4 undirected edges (8 arcs)", "directed    no: --undirected given",
                 "self-loops  0 dropped", "device      " + ("gpu:0" if gpu_present() else "cpu"), "kernel      ",
                 "skipped the header row",
                 "top 2 by bc", "Spearman correlation", "Pearson correlation"):
        assert text in err, (text, err)
    assert re.search(r"^bc +\d+\.\d+ s$", err, re.M)
    assert "Traceback" not in err


def test_tsv_output_and_quiet(tmp_path, fake):
    write(tmp_path, "g.txt", "10 20\n20 30\n30 30\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "degree,bc", "--out", "res.tsv", "--quiet",
                   cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0 and res.stderr == "" and res.stdout == ""
    rows = [line.split("\t") for line in (tmp_path / "res.tsv").read_text().splitlines()]
    assert rows[0] == ["vertex", "degree", "bc"]
    assert [r[0] for r in rows[1:]] == ["10", "20", "30"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_self_loops_reported_and_directed_default(tmp_path, fake):
    write(tmp_path, "g.txt", "1 2\n2 2\n3 3\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0
    assert "self-loops  2 counted by degree (as networkx counts them)\n" in res.stderr
    res = spla_cmd("centrality", "g.txt", "--measures", "bc", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0
    assert "self-loops  2 dropped" in res.stderr
    assert "directed    yes: edge lists are directed unless" in res.stderr
    assert "3 vertices, 1 arc\n" in res.stderr


def test_failure_never_clobbers_existing_output(tmp_path, fake):
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    out = write(tmp_path, "out.csv", "precious\n")
    res = spla_cmd("centrality", "g.txt", "--out", "out.csv", cwd=tmp_path, fake_dir=fake, FAKE_FAIL=1)
    assert res.returncode == 2 and "fake failure" in res.stderr and "Traceback" not in res.stderr
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv"]
    # bad input: same
    write(tmp_path, "bad.mtx", MM + "3 3 1\n0 1\n")
    res = spla_cmd("centrality", "bad.mtx", "--out", "out.csv", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 2 and out.read_text() == "precious\n"


def test_success_replaces_output_atomically_keeping_its_mode(tmp_path, fake):
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    out = write(tmp_path, "out.csv", "old\n")
    out.chmod(0o640)
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "out.csv", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0, res.stderr
    assert out.read_text().splitlines()[0] == "vertex,degree"
    assert (out.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv"]


def test_write_protected_output_is_refused_before_computing(tmp_path, fake):
    """A read-only (0444) --out file is not replaced, though a rename could (root too, as rm asks)."""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    out = write(tmp_path, "out.csv", "precious\n")
    out.chmod(0o444)
    (tmp_path / "link.csv").symlink_to("out.csv")
    try:
        for name in ("out.csv", "link.csv"):
            res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", name, cwd=tmp_path, fake_dir=fake)
            assert_one_line_error(res, rf"--out {name}: the file is write-protected \(mode 0444\); make it "
                                       rf"writable \(chmod u\+w {name}\) or choose another name")
            assert "computing" not in res.stderr.lower()
        assert out.read_text() == "precious\n" and (out.stat().st_mode & 0o777) == 0o444
        assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "link.csv", "out.csv"]
    finally:
        out.chmod(0o644)


def test_output_through_a_symlink_and_to_stdout(tmp_path, fake):
    """--out through a symlink replaces the link's target and keeps the link; --out - is stdout."""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    (tmp_path / "real").mkdir()
    target = write(tmp_path / "real", "res.csv", "old\n")
    (tmp_path / "link.csv").symlink_to(target)
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "link.csv", "-q", cwd=tmp_path,
                   fake_dir=fake)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "link.csv").is_symlink() and target.read_text().startswith("vertex,degree\n")
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["res.csv"]
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "-", "-q", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0 and res.stdout.startswith("vertex,degree\n") and not (tmp_path / "-").exists()
    # the format follows the name given, not the target's
    (tmp_path / "link.tsv.gz").symlink_to(tmp_path / "real" / "plain.dat")
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "link.tsv.gz", "-q", cwd=tmp_path,
                   fake_dir=fake)
    assert res.returncode == 0, res.stderr
    assert gzip.decompress((tmp_path / "real" / "plain.dat").read_bytes()).decode().startswith("vertex\tdegree\n")


def test_out_that_is_the_input_file_is_refused(tmp_path, fake):
    """--out naming the input graph (directly, or through a link) is refused: the table would replace the graph."""
    graph = write(tmp_path, "g.txt", "1 2\n2 3\n")
    (tmp_path / "link.txt").symlink_to(graph)
    for given, out in (("g.txt", "g.txt"), ("g.txt", "./g.txt"), ("link.txt", "g.txt"), ("g.txt", "link.txt")):
        res = spla_cmd("centrality", given, "--out", out, cwd=tmp_path, fake_dir=fake)
        assert_one_line_error(res, rf"--out {re.escape(out)}: is the input graph file {re.escape(given)}; .* "
                                   r"give another file name")
        assert graph.read_text() == "1 2\n2 3\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "link.txt"]


@pytest.mark.parametrize("out, pattern", [
    ("", r"--out is empty; give a file name, or - for stdout"),
    ("res.csv/", r"--out res\.csv/: is a directory; give a file name"),
    ("/proc/res.csv", r"--out /proc/res\.csv: "),  # root may write in /proc, but not create a file there
])
def test_bad_out_paths_are_one_line_errors(tmp_path, fake, out, pattern):
    """Outputs that cannot be written are input errors (exit 2), and 'res.csv/' writes no file res.csv.
    (-q: a failure to write comes after the measures, and their report.)"""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    res = spla_cmd("centrality", "g.txt", "--out", out, "-q", cwd=tmp_path, fake_dir=fake)
    assert_one_line_error(res, pattern)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_out_that_is_a_fifo_or_device_is_written_into(tmp_path, fake):
    """--out /dev/null, /dev/stdout or a FIFO is written into: renaming a temporary file over it (as
    for a regular file) would replace /dev/null with a regular file when run as root, and a FIFO's
    reader would never get the table."""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    try:
        res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", fifo, "-q", cwd=tmp_path,
                       fake_dir=fake, timeout=60)
        assert res.returncode == 0, res.stderr
        got, _ = reader.communicate(timeout=20)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    assert fifo.is_fifo() and got.startswith("vertex,degree\n1,"), got
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "pipe.csv"]
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "/dev/stdout", "-q", cwd=tmp_path,
                   fake_dir=fake)
    assert res.returncode == 0 and res.stdout.startswith("vertex,degree\n1,"), res.stderr


def test_stdout_table_is_utf8_whatever_the_locale(tmp_path, fake):
    """With a stdout encoding that lacks a label's characters (PYTHONIOENCODING=ascii, a cp1252
    console), the table is UTF-8, as in a file, rather than stopping half-way with a
    UnicodeEncodeError."""
    (tmp_path / "g.csv").write_text("source,target\nZürich,Genève\n東京,Zürich\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "spla", "centrality", "g.csv", "--measures", "degree", "-q"],
                          cwd=tmp_path, env=_env(fake, PYTHONIOENCODING="ascii"), capture_output=True)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    rows = list(csv.reader(io.StringIO(proc.stdout.decode("utf-8"))))
    assert [r[0] for r in rows] == ["vertex", "Zürich", "Genève", "東京"]


def test_ignored_options_are_noted(tmp_path, fake):
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--seed", "3", "--samples", "2", cwd=tmp_path,
                   fake_dir=fake)
    assert res.returncode == 0 and "--samples and --seed apply to bc, which is not in --measures" in res.stderr
    res = spla_cmd("centrality", "g.txt", "--measures", "bc", "--seed", "3", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0 and "--seed is used with --samples only" in res.stderr
    res = spla_cmd("centrality", "g.txt", "--measures", "bc", "--max-iter", "50", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0 and "--max-iter and --tol apply to pagerank" in res.stderr
    res = spla_cmd("centrality", "g.txt", "--measures", "bc,pagerank", "--tol", "1e-8", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0 and "note" not in res.stderr


@pytest.mark.skipif(not real_algorithms(), reason="the algorithms package cannot be imported")
def test_correlations_of_a_measure_with_nan_values_are_nan_and_say_why(tmp_path):
    """--samples 1 makes networkx's betweenness estimate nan at some vertices: its correlations are
    nan, and a note says why (the others' stay numbers)."""
    write(tmp_path, "p.txt", "0 1\n1 2\n2 3\n3 4\n4 5\n1 6\n")
    res = spla_cmd("centrality", "p.txt", "--undirected", "--measures", "bc,degree,closeness", "--samples", "1",
                   "--seed", "3", "--correlations", "--device", "cpu", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "(nan: bc is nan at some vertices, so its correlations are undefined: with --samples 1" in res.stderr
    rows = [line.split() for line in res.stderr.splitlines() if line.split()[:1] in (["bc"], ["closeness"])]
    rows = [r for r in rows if len(r) == 4]  # the two matrices' rows
    assert len(rows) == 4 and all(r[1] == "nan" for r in rows), res.stderr  # bc's column, its diagonal too
    assert all(r[2] != "nan" for r in rows if r[0] == "closeness"), res.stderr


def test_correlations_of_a_constant_measure_are_nan(tmp_path):
    """On a cycle every measure is constant: the correlations (the diagonal too) are nan, said once, and
    SciPy's ConstantInputWarning does not reach stderr."""
    write(tmp_path, "c.txt", "1 2\n2 3\n3 1\n")
    res = spla_cmd("centrality", "c.txt", "--measures", "bc,degree", "--correlations", "--device", "cpu",
                   cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Warning" not in res.stderr and re.search(r"^bc +nan +nan$", res.stderr, re.M), res.stderr
    assert "(nan: bc, degree are the same for every vertex, so correlations with them are undefined)" in res.stderr


def test_control_bytes_are_escaped_in_errors(tmp_path):
    (tmp_path / "junk.txt").write_bytes(b"1 2\n\x08\x17\n")
    res = spla_cmd("centrality", "junk.txt", cwd=tmp_path)
    assert res.returncode == 2 and "\x08" not in res.stderr and "\x17" not in res.stderr, res.stderr
    assert res.stderr.startswith("spla: error: ") and len(res.stderr.splitlines()) == 1


def test_gzip_output(tmp_path, fake):
    write(tmp_path, "g.txt", "1 2\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "degree", "--out", "o.csv.gz", cwd=tmp_path, fake_dir=fake)
    assert res.returncode == 0, res.stderr
    assert gzip.decompress((tmp_path / "o.csv.gz").read_bytes()).decode().startswith("vertex,degree\n1,")


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_stops_quickly_with_no_output(tmp_path, fake, sig, status, word):
    """Ctrl-C (SIGINT) and SIGTERM (a job scheduler's, `kill`'s) both stop the run within about a
    second, print one line, keep the old output file and leave no temporary file behind."""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    out = write(tmp_path, "out.csv", "precious\n")
    marker = tmp_path / "started"
    # a test run started in the background inherits SIGINT ignored (as a shell's background job
    # does), which the child would keep: give it the default disposition a terminal's Ctrl-C meets
    proc = subprocess.Popen([sys.executable, "-m", "spla", "centrality", "g.txt", "--out", "out.csv"],
                            cwd=tmp_path, env=_env(fake, FAKE_SLOW=marker), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the fake algorithm never started"
            time.sleep(0.05)
        time.sleep(0.3)
        t0 = time.monotonic()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status, stderr
    assert elapsed < 1.0 + 1.0, f"took {elapsed:.2f} s to stop"  # 1 s, plus slack for a loaded machine
    assert stderr.endswith(f"\nspla: {word}\n") and "Traceback" not in stderr, stderr
    assert stdout == ""
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.txt", "out.csv", "started"]


# ============================================================================ in-process helpers
def test_progress_bar_draws_only_when_enabled():
    from spla.cli import ProgressBar

    s = io.StringIO()
    bar = ProgressBar("bc", stream=s, enabled=True)
    bar(0, 10)
    bar(10, 10)
    assert "ETA" in s.getvalue() and "100.0%" in s.getvalue()
    bar.close()
    assert s.getvalue().endswith("\r")
    s2 = io.StringIO()
    off = ProgressBar("bc", stream=s2, enabled=False)
    off(5, 10)
    off.close()
    assert s2.getvalue() == ""


def test_registry_holds_the_algorithms():
    """Each measure's entry holds its spla.algorithms function itself, and the parser offers the
    registry's measures and the engine's kernels."""
    from spla import KERNELS, algorithms
    from spla.cli import MEASURES, build_parser

    assert {k: m.function for k, m in MEASURES.items()} == {
        "bc": algorithms.betweenness_centrality, "closeness": algorithms.closeness_centrality,
        "harmonic": algorithms.harmonic_centrality, "distance-sum": algorithms.sum_of_distances,
        "pagerank": algorithms.pagerank, "daccer": algorithms.daccer_volumes,
        "degree": algorithms.degree_centrality}
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["centrality"]
    options = {a.dest: a for a in sub._actions}
    assert options["kernel"].metavar == "{auto," + ",".join(KERNELS) + "}"
    assert options["kernel"].type("VECSC") == "veCSC"
    assert ",".join(MEASURES) in options["measures"].help


def test_registry_seam_in_process(tmp_path, fake_measures, capsys):
    """main() in this process calls the registry's functions with the keywords of each entry."""
    from spla import cli

    write(tmp_path, "g.txt", "1 2\n2 3\n3 3\n")
    rc = cli.main(["centrality", str(tmp_path / "g.txt"), "--measures", "daccer,degree,distance-sum", "--radius",
                   "3", "--top", "1", "--device", "cpu"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    # fakes: daccer = out-degree (self-loops counted) * radius, distance-sum = out-degree without them
    assert out.splitlines() == ["vertex,daccer,degree,distance-sum", "1,3,0.5,1", "2,3,0.5,1", "3,3,0.5,0"]
    assert "top 1 by distance-sum" in err and "reached" not in err  # the fake reaches every vertex


def test_parse_measures():
    from spla.cli import MEASURES, UsageError, parse_measures

    assert parse_measures("all") == list(MEASURES)
    assert parse_measures("PageRank, bc,bc") == ["pagerank", "bc"]
    assert parse_measures("betweenness,distance_sum") == ["bc", "distance-sum"]
    with pytest.raises(UsageError):
        parse_measures("nope")


def test_memory_estimate():
    from spla.cli import MEASURES, estimate_device_memory

    est = estimate_device_memory(1000, 10_000, directed=False)
    assert set(est) == set(MEASURES)
    matrix = (1000 + 1 + 10_000) * 4
    assert est["bc"][0] == matrix + 64 * 1000 * 256
    assert estimate_device_memory(1000, 10_000, directed=True)["bc"][0] == 2 * matrix + 64 * 1000 * 256
    assert estimate_device_memory(10, 20, directed=False, batch=1)["bc"][0] == (10 + 1 + 20) * 4 + 64 * 10
    # the CPU's compiled searches: per thread 52 bytes a vertex and 4 an arc, and the accumulator
    searches = estimate_device_memory(1000, 10_000, directed=False, search_threads=2)["bc"]
    assert searches[0] == (1000 + 1 + 10_000) * 4 + 2 * (52 * 1000 + 4 * 10_000) + 8 * 1000
    assert "compiled searches on 2 threads" in searches[1]


def test_bundled_graph_is_packaged():
    from spla.cli import bundled_graph
    from spla.io import read_graph

    with bundled_graph() as path:
        g = read_graph(path)
    assert (g.n, g.format, g.directed) == (4941, "metis", False)
    assert g.src.size == 2 * 6594 and g.self_loops == 0


# ============================================================================ real algorithms
@needs_algorithms
def test_info_on_bundled_graph(tmp_path):
    res = spla_cmd("info", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for text in ("power.graph.gz (METIS; bundled", "vertices           4,941", "6,594 undirected edges",
                 "directed           no: METIS adjacency lists are undirected", "self-loops         0",
                 "degree             max 19", "scale-free metric", "kernel", "BFS depth", "device memory"):
        assert text in out, (text, out)
    assert re.search(r"^  bc +\d", out, re.M)


@needs_algorithms
@pytest.mark.parametrize("directed", [False, True])
def test_info_degrees_count_self_loops_as_networkx(tmp_path, directed):
    """info's degree lines are networkx's: a loop adds 2 to an undirected degree, 1 to out and in."""
    nx = pytest.importorskip("networkx")
    arcs = [(1, 1), (1, 2), (2, 3), (3, 3), (1, 3)]
    write(tmp_path, "g.txt", "".join(f"{u} {v}\n" for u, v in arcs))
    args = ("info", "g.txt", "--directed" if directed else "--undirected")
    res = spla_cmd(*args, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    G = (nx.DiGraph if directed else nx.Graph)(arcs)
    lines = [("out-degree", G.out_degree), ("in-degree", G.in_degree)] if directed else [("degree", G.degree)]
    for label, view in lines:
        d = np.array([k for _, k in view])
        loops = "(self-loops count once)" if directed else "(a self-loop counts twice, as in networkx)"
        text = f"{label:<19}max {d.max():,}, mean {d.mean():.3f}, std {d.std():.3f} {loops}"
        assert text in res.stdout, (text, res.stdout)


def test_graph_from_stdin(tmp_path, fake):
    res = subprocess.run([sys.executable, "-m", "spla", "centrality", "-", "--format", "edgelist", "--measures",
                          "degree"], input=gzip.compress(b"a b\nb c\n"), cwd=tmp_path, env=_env(fake),
                         capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode().splitlines() == ["vertex,degree", "a,0.5", "b,0.5", "c,0.0"]  # fake: out-degree
    assert "graph       <stdin> (edge list; read from stdin)" in res.stderr.decode()
    res = subprocess.run([sys.executable, "-m", "spla", "info", "-"], input=b"1 2\n", cwd=tmp_path,
                         env=_env(fake), capture_output=True, text=False, timeout=300)
    assert_one_line_error(subprocess.CompletedProcess(res.args, res.returncode, res.stdout.decode(),
                                                      res.stderr.decode()),
                          r"<stdin>: unknown graph format \(no extension.*--format")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_graph_from_stdin_that_is_a_terminal(tmp_path, fake):
    leader, follower = os.openpty()
    try:
        res = subprocess.run([sys.executable, "-m", "spla", "centrality", "-", "--format", "edgelist"],
                             stdin=follower, cwd=tmp_path, env=_env(fake), capture_output=True, text=True,
                             timeout=300)
    finally:
        os.close(leader)
        os.close(follower)
    assert_one_line_error(res, r"GRAPH '-' reads the graph from stdin, which is a terminal; pipe or redirect")


def test_top_table_leaves_out_nan_and_says_so():
    from spla.cli.report import top_table as _top_table

    lines = _top_table("bc", np.array([0.5, np.nan, 0.25]), ["a", "b", "c"], 5)
    assert lines[0].startswith("top 2 by bc")
    assert [ln.split()[1] for ln in lines[2:4]] == ["a", "c"]
    assert "1 vertex has bc nan and is not ranked: with --samples 1" in lines[-1]
    lines = _top_table("closeness", np.array([0.5, 0.7]), ["a", "b"], 5)
    assert not any("not ranked" in ln for ln in lines)


def test_top_table_ranks_distance_sums_by_reach_first():
    """A vertex of a small component has a small distance sum; it must not outrank the
    vertices that reach more of the graph (an isolated vertex's sum is 0)."""
    from spla.cli.report import top_table as _top_table

    sums, reach = np.array([0, 1, 1, 4, 3, 4]), np.array([1, 2, 2, 4, 4, 4])
    lines = _top_table("distance-sum", sums, list("abcdef"), 4, reach)
    assert "most vertices reached first, then smallest" in lines[0]
    assert lines[1].split() == ["rank", "vertex", "distance-sum", "reached"]
    assert [ln.split()[1:] for ln in lines[2:]] == [["e", "3", "4"], ["d", "4", "4"], ["f", "4", "4"], ["b", "1", "2"]]
    same = _top_table("distance-sum", sums, list("abcdef"), 2, np.full(6, 6))  # connected: plain order
    assert "reached" not in same[1] and [ln.split()[1] for ln in same[2:]] == ["a", "b"]


@needs_algorithms
def test_distance_sum_top_table_on_a_disconnected_graph(tmp_path):
    write(tmp_path, "g.txt", "0 1\n1 2\n2 3\n4 5\n6 6\n")
    res = spla_cmd("centrality", "g.txt", "--undirected", "--measures", "distance-sum", "--top", "3", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert [r[1] for r in rows[1:]] == ["6", "4", "4", "6", "1", "1", "0"]  # the CSV keeps the sums
    table = res.stderr[res.stderr.index("top 3 by distance-sum"):].splitlines()
    assert [ln.split()[1:] for ln in table[2:5]] == [["1", "4", "4"], ["2", "4", "4"], ["0", "6", "4"]]
    assert "7 vertices, 4 undirected edges (8 arcs)" in res.stderr and "self-loops  1 dropped" in res.stderr


@needs_algorithms
@pytest.mark.parametrize("directed", [True, False])
def test_self_loops_count_where_networkx_counts_them(tmp_path, directed):
    """pagerank, degree and daccer count self-loops as networkx does (dropping them would make
    PageRank and degree differ from networkx's); bc and closeness ignore them, as networkx."""
    nx = pytest.importorskip("networkx")
    edges = [(1, 2), (2, 2), (2, 3), (3, 1), (3, 4), (4, 4), (5, 5)]
    write(tmp_path, "g.txt", "".join(f"{u} {v} {w}\n" for w, (u, v) in enumerate(edges, 1)))
    res = spla_cmd("centrality", "g.txt", "--directed" if directed else "--undirected", "--measures",
                   "bc,closeness,pagerank,daccer,degree", "-q", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_weighted_edges_from((u, v, w) for w, (u, v) in enumerate(edges, 1))
    deg = G.out_degree if directed else G.degree
    expected = {"bc": nx.betweenness_centrality(G), "closeness": nx.closeness_centrality(G),
                "pagerank": nx.pagerank(G), "degree": nx.degree_centrality(G),
                "daccer": {v: sum(deg(u) for u in nx.single_source_shortest_path_length(G, v, cutoff=2))
                           for v in G}}
    assert sorted(int(r["vertex"]) for r in rows) == sorted(G)
    for key, ref in expected.items():
        for r in rows:
            assert float(r[key]) == pytest.approx(ref[int(r["vertex"])], rel=1e-6, abs=1e-9), (key, r)
    res = spla_cmd("centrality", "g.txt", "--measures", "bc,degree", "--top", "0", cwd=tmp_path)
    assert "self-loops  3 counted by degree (as networkx counts them); dropped for bc" in res.stderr


@needs_algorithms
def test_bc_with_one_sample_reports_the_unranked_source(tmp_path):
    write(tmp_path, "g.txt", "0 1\n1 2\n2 3\n")
    res = spla_cmd("centrality", "g.txt", "--measures", "bc", "--samples", "1", "--seed", "1", "--top", "4",
                   cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert sum(r[1] == "nan" for r in rows[1:]) == 1
    assert "1 vertex has bc nan and is not ranked" in res.stderr


@needs_algorithms
def test_centrality_on_bundled_graph(tmp_path):
    res = spla_cmd("centrality", "--measures", "degree,pagerank", "--top", "3", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["vertex", "degree", "pagerank"] and len(rows) == 4942
    assert rows[1][0] == "1" and rows[-1][0] == "4941"
    assert "top 3 by pagerank" in res.stderr


@needs_algorithms
def test_main_job_does_not_import_networkx(tmp_path, device):
    """A graph file never needs networkx, whose import would cost every run (docs/decisions/benchmarks.md)."""
    (tmp_path / "g.txt").write_text("0 1\n1 2\n2 0\n2 3\n3 3\n")
    script = ("import sys\nfrom spla import cli\n"
              f"rc = cli.main(['centrality', 'g.txt', '--device', '{device}', '--out', 'o.csv', '--quiet', "
              "'--correlations'])\n"
              "print(rc, 'networkx' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=_env(), capture_output=True,
                         text=True, timeout=300)
    assert res.stdout.split() == ["0", "False"], (res.stdout, res.stderr)

@needs_algorithms
@needs_shared
def test_csv_matches_networkx_on_karate_club(tmp_path):
    """The command's CSV for Zachary's karate club equals networkx's centralities."""
    nx = pytest.importorskip("networkx")
    path = shared_graphs() / "other" / "karate_club.edges"
    res = spla_cmd("centrality", path, "--undirected", "--out", "k.csv", "--correlations", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    with open(tmp_path / "k.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    got = {key: {int(r["vertex"]): float(r[key]) for r in rows} for key in rows[0] if key != "vertex"}

    G = nx.read_edgelist(str(path), nodetype=int, data=(("weight", float),))
    assert len(rows) == G.number_of_nodes() == 34
    expected = {
        "bc": nx.betweenness_centrality(G),
        "closeness": nx.closeness_centrality(G),
        "harmonic": nx.harmonic_centrality(G),
        "distance-sum": {v: float(sum(nx.single_source_shortest_path_length(G, v).values())) for v in G},
        "pagerank": nx.pagerank(G, weight="weight"),
        "daccer": {v: float(sum(G.degree(u) for u in nx.single_source_shortest_path_length(G, v, cutoff=2)))
                   for v in G},
        "degree": nx.degree_centrality(G),
    }
    for key, ref in expected.items():
        tol = 1e-5 if key == "pagerank" else 1e-9
        for v, x in ref.items():
            assert got[key][v] == pytest.approx(x, rel=tol, abs=tol), (key, v)
    assert "note        the file has edge weights" in res.stderr


@needs_algorithms
@needs_shared
def test_metis_graph_matches_networkx_bc(tmp_path):
    """jazz (METIS, labels 1..n): betweenness and closeness equal networkx's."""
    nx = pytest.importorskip("networkx")
    from spla.io import read_graph

    path = shared_graphs() / "suitesparse_dimacs10" / "jazz.graph.gz"
    res = spla_cmd("centrality", path, "--measures", "bc,closeness", "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    g = read_graph(path)
    G = nx.Graph()
    G.add_nodes_from(g.labels.tolist())
    G.add_edges_from(zip(g.labels[g.src].tolist(), g.labels[g.dst].tolist()))
    bc, cl = nx.betweenness_centrality(G), nx.closeness_centrality(G)
    for r in rows:
        v = int(r["vertex"])
        assert float(r["bc"]) == pytest.approx(bc[v], abs=1e-12)
        assert float(r["closeness"]) == pytest.approx(cl[v], abs=1e-12)
    assert np.isclose(sum(float(r["bc"]) for r in rows), sum(bc.values()))
