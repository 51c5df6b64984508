"""The ``spla centrality`` table and what reaches a terminal: --out's formats, the guard of the
package's data folder, the temporary file made before computing, the rows held back from a
terminal, escaped labels and labels that are not UTF-8.

In-process through ``spla.cli.main`` with the fake measures of ``test_cli`` (cheap, predictable
values), or as a subprocess where the bytes of stdout matter.
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli import REPO, _env, fake, fake_measures, write  # noqa: F401 (fixtures)

import spla
from spla import cli
from spla.cli.text import escape

DATA = REPO / "spla" / "data"
EVIL = "evil\x1b[31mred\x1b]0;title\x07"  # colours the terminal, sets the window's title
FORMATS_NAMED = r"it writes \.csv, \.tsv, \.tab or \.txt \(tab-separated\), each optionally \.gz, and \.parquet"


def run(capsys, *argv):
    """main(argv) in this process: (exit status, stdout, stderr)."""
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error(rc, out, err, pattern):
    assert rc == 2 and out == "", (rc, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("spla: error: "), err
    assert re.search(pattern, lines[0]), (pattern, lines[0])


@pytest.fixture
def calls(fake_measures, monkeypatch):
    """The fake degree measure, recording each call with the files of the current folder then."""
    from spla.cli import measures

    seen = []
    fn = measures.MEASURES["degree"].function

    def degree(A, **kw):
        seen.append(sorted(os.listdir(".")))
        return fn(A, **kw)

    monkeypatch.setitem(measures.MEASURES, "degree", dataclasses.replace(measures.MEASURES["degree"], function=degree))
    return seen


@pytest.fixture
def data_restored():
    """The checkout's data folder put back as it was after the test, whatever the command did to it
    (a regression of the guard must not leave the bundled graph replaced)."""
    saved = {name: (DATA / name).read_bytes() for name in os.listdir(DATA) if (DATA / name).is_file()}
    yield DATA
    for name in os.listdir(DATA):
        if name not in saved:
            (DATA / name).unlink()
        elif (DATA / name).read_bytes() != saved[name]:
            (DATA / name).write_bytes(saved[name])


def snapshot(folder: Path) -> dict:
    """Every entry of ``folder`` (hidden ones too): its kind, size, mtime and contents' hash."""
    out = {}
    for name in sorted(os.listdir(folder)):
        p = folder / name
        st_ = p.lstat()
        out[name] = (st_.st_mode, st_.st_size, st_.st_mtime_ns,
                     hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None)
    return out


# ============================================================================ the package's data folder
def test_out_never_writes_into_the_package_data_folder(tmp_path, monkeypatch, capsys, calls, data_restored):
    """Without GRAPH the bundled graph is the input: --out naming it (in any spelling) is refused as for
    an explicit GRAPH, and so is any other name in the data folder, whatever the input."""
    from spla.cli.inputs import data_folder

    assert Path(data_folder()).resolve() == DATA.resolve()  # the folder this test guards is the checkout's
    before = snapshot(DATA)
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    bundled = DATA / "power.graph.gz"
    (tmp_path / "link.gz").symlink_to(bundled)
    (tmp_path / "data").symlink_to(DATA)
    spellings = [str(bundled), os.path.relpath(bundled, tmp_path), "link.gz", "data/power.graph.gz",
                 f"data/../data/{bundled.name}"]
    try:
        os.link(bundled, tmp_path / "hard.gz")  # a hard link outside the folder: the same file
        spellings.append("hard.gz")
    except OSError:  # another file system
        pass
    for out in spellings:
        one_error(*run(capsys, "centrality", "--measures", "degree", "--out", out),
                  rf"--out {re.escape(out)}: is the input graph file power\.graph\.gz \(the bundled graph, used "
                  r"when no GRAPH is given\); writing the table there would replace the graph")
    folder = re.escape(str(DATA))
    for graph, out in ((None, DATA / "new.csv"), (None, "data/new.csv"), ("g.txt", DATA / "new.csv"),
                       ("g.txt", bundled), ("g.txt", os.path.relpath(DATA / "x.tsv", tmp_path)),
                       (None, DATA / "README.md")):
        args = ["centrality", *([graph] if graph else []), "--measures", "degree", "--out", out]
        one_error(*run(capsys, *args), rf"--out {re.escape(str(out))}: is in spla's data folder {folder}, which "
                                       r"holds the bundled graph; give a file name outside it")
    assert calls == []  # refused before computing
    assert snapshot(DATA) == before
    assert set(os.listdir(tmp_path)) == {"g.txt", "link.gz", "data"} | ({"hard.gz"} & set(spellings))


# ============================================================================ the terminal
def test_no_rows_on_a_terminal_without_out(tmp_path, monkeypatch, capsys, calls):
    """stdout a terminal and no --out: the report, the top-N tables and a line saying where the rows go;
    --out - prints the CSV there all the same, as does --quiet (all there is to show); a pipe gets CSV."""
    g = write(tmp_path, "g.txt", "1 2\n2 3\n3 1\n")
    rc, out, err = run(capsys, "centrality", g, "--measures", "degree,bc", "--top", "2")
    assert rc == 0 and out.startswith("vertex,degree,bc\n1,")  # capsys's stdout is no terminal: a pipe
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    rc, out, err = run(capsys, "centrality", g, "--measures", "degree,bc", "--top", "2")
    assert rc == 0 and out == "", out
    assert ("table       not printed on a terminal (3 rows): --out FILE writes it (.csv, .tsv, .txt, .parquet; "
            ".gz compresses text), --out - or a pipe prints it as CSV\n") in err
    assert "top 2 by degree" in err and "top 2 by bc" in err and "wrote" not in err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)  # capsys gave a new stream
    rc, out, err = run(capsys, "centrality", g, "--measures", "degree", "--out", "-")
    assert rc == 0 and out.splitlines()[0] == "vertex,degree" and len(out.splitlines()) == 4
    assert "not printed" not in err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    rc, out, err = run(capsys, "centrality", g, "--measures", "degree", "-q")
    assert rc == 0 and err == "" and out.splitlines()[0] == "vertex,degree"


# ============================================================================ labels on a terminal
def test_labels_reach_the_terminal_escaped(tmp_path, monkeypatch, capsys, fake_measures):
    """A label's escape sequences are shown, not run, in the top-N tables, info's report and CSV on a
    terminal; the file and a pipe get the label's exact text."""
    (tmp_path / "g.csv").write_text(f"{EVIL},a\n{EVIL},b\nc,a\n", encoding="utf-8")
    shown = "evil\\x1b[31mred\\x1b]0;title\\x07"
    assert escape(EVIL) == shown
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(capsys, "centrality", "g.csv", "--measures", "degree", "--top", "1", "--out", "o.csv")
    assert rc == 0 and "\x1b" not in err and "\x07" not in err and f"  1  {shown}  " in err
    rows = list(csv.reader(io.StringIO((tmp_path / "o.csv").read_text(encoding="utf-8"))))
    assert rows[1][0] == EVIL
    rc, out, err = run(capsys, "info", "g.csv")
    assert rc == 0 and f"levels from vertex {shown} (max out-degree 2)" in out and "\x1b" not in out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    rc, out, err = run(capsys, "centrality", "g.csv", "--measures", "degree", "--out", "-", "-q")
    assert rc == 0 and out.splitlines()[1].startswith(shown + ",") and "\x1b" not in out
    res = subprocess.run([sys.executable, "-m", "spla", "centrality", "g.csv", "--measures", "degree", "-q"],
                         cwd=tmp_path, env=_env(), capture_output=True)
    assert res.returncode == 0 and res.stdout.splitlines()[1].startswith(EVIL.encode() + b","), res.stdout


@pytest.mark.skipif(not hasattr(os, "openpty") or not os.path.isdir("/proc/self/fd"), reason="needs a pty")
def test_out_naming_a_terminal_escapes_labels(tmp_path, capsys, fake_measures):
    """--out /dev/tty (here a pseudo-terminal's /proc/self/fd/N) is a terminal too: labels escaped."""
    (tmp_path / "g.csv").write_text(f"{EVIL},a\n", encoding="utf-8")
    leader, follower = os.openpty()
    try:
        rc, _, err = run(capsys, "centrality", tmp_path / "g.csv", "--measures", "degree", "-q", "--out",
                         f"/proc/self/fd/{follower}")
        assert rc == 0, err
        got = os.read(leader, 4096)
    finally:
        os.close(leader)
        os.close(follower)
    assert b"\x1b" not in got and escape(EVIL).encode() + b"," in got, got


def test_error_messages_escape_with_the_same_function(tmp_path, monkeypatch, capsys):
    """Error messages show control characters as escape() does, leaving backslashes (messages quote
    labels with repr, which has doubled them)."""
    monkeypatch.chdir(tmp_path)
    one_error(*run(capsys, "centrality", "g\x1b]0;x\x07.txt"), r"^spla: error: g\\x1b\]0;x\\x07\.txt: no such file$")
    write(tmp_path, "bad.txt", "1 2\n\x1b[31m C:\\dir\n\\\n")
    one_error(*run(capsys, "centrality", "bad.txt"), r"bad\.txt:3: .*found 1: '\\\\'$")
    assert escape("C:\\dir\x1b", backslashes=False) == "C:\\dir\\x1b"


def _unescape(text: str) -> str:
    """The inverse of escape(): ``\\xNN`` at or above 0x80 is a byte that is not UTF-8."""
    named = {"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}

    def one(m):
        s = m.group(0)
        if s[1] in named:
            return named[s[1]]
        code = int(s[2:], 16)
        return chr(0xDC00 + code) if s[1] == "x" and code >= 0x80 else chr(code)
    return re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[tnr\\])", one, text)


@given(st.text(st.characters(codec=None, exclude_categories=()) | st.sampled_from(
    ["\\", "\x1b", "\x85", "\udc85", "\udce9", "\u202e", "\t"] + [chr(0xDC80 + k) for k in range(0, 128, 7)])))
def test_escape_is_printable_and_lossless(text):
    """escape() gives printable text from which the label comes back: two labels never look the same."""
    shown = escape(text)
    assert shown.isprintable() and _unescape(shown) == text


def test_escape_keeps_labels_apart():
    pairs = [("caf\udce9", "caf\\xe9"), ("\x85", "\udc85"), ("\\", "\\\\"), ("\t", "\\t"), ("\u0085", "\\u0085")]
    for a, b in pairs:
        assert escape(a) != escape(b), (a, b)
    assert escape("caf\udce9") == "caf\\xe9" and escape("caf\\xe9") == "caf\\\\xe9" and escape("Zürich") == "Zürich"


# ============================================================================ labels that are not UTF-8
@pytest.mark.parametrize("text", [b"caf\xe9 a\ncaf\\xe9 b\n", b'"caf\xe9",a\n"caf\\xe9",b\n'],
                         ids=["plain", "quoted-csv"])
def test_labels_that_are_not_utf8_keep_their_bytes(tmp_path, capsys, fake_measures, text):
    """The byte 0xE9 (Latin-1 'é') and the four characters \\xe9 are two vertices with two labels: files
    and pipes get each label's bytes, terminals two different escaped forms."""
    (tmp_path / "g.txt").write_bytes(text)
    rc, out, err = run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--top", "4",
                       "--out", tmp_path / "o.tsv.gz")
    assert rc == 0, err
    assert [r.split(b"\t")[0] for r in gzip.decompress((tmp_path / "o.tsv.gz").read_bytes()).splitlines()] == \
        [b"vertex", b"caf\xe9", b"a", b"caf\\xe9", b"b"]
    table = err[err.index("top 4 by degree"):].splitlines()[2:]
    assert [ln.split()[1] for ln in table] == ["caf\\xe9", "caf\\\\xe9", "a", "b"]  # out-degree 1, 1, 0, 0
    res = subprocess.run([sys.executable, "-m", "spla", "centrality", "g.txt", "--measures", "degree", "-q"],
                         cwd=tmp_path, env=_env(), capture_output=True)
    assert res.returncode == 0 and [r.split(b",")[0] for r in res.stdout.splitlines()] == \
        [b"vertex", b"caf\xe9", b"a", b"caf\\xe9", b"b"]


# ============================================================================ the temporary file
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="no /proc")
def test_unwritable_out_is_found_before_computing(tmp_path, monkeypatch, capsys, calls):
    """A folder that takes no new file (/proc, even for root) is one error line before the report."""
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    one_error(*run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--out", "/proc/o.csv"),
              r"--out /proc/o\.csv: cannot create a file in directory /proc: ")
    assert calls == []


class _Boom(Exception):
    pass


@pytest.mark.parametrize("failure, status", [
    (KeyboardInterrupt, 130), ("terminated", 143), (spla.InvalidGraph("bad"), 2), (MemoryError, 1),
    (RuntimeError("bug"), 1), ("write", 2), ("device", 2)])
def test_temporary_file_is_made_before_computing_and_never_left(tmp_path, monkeypatch, capsys, calls, failure,
                                                               status):
    """The table's temporary file exists while the measures run; any failure (Ctrl-C, SIGTERM, bad
    input, a bug, a write error) removes it and keeps the old file."""
    from spla.cli import measures, output

    monkeypatch.chdir(tmp_path)
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    write(tmp_path, "out.csv", "precious\n")
    fn = measures.MEASURES["degree"].function  # the fake that records the folder's files

    def degree(A, **kw):
        values = fn(A, **kw)
        if failure == "terminated":  # what SIGTERM raises
            raise cli._Terminated()
        if failure not in ("write", "device"):
            raise failure
        return values

    monkeypatch.setitem(measures.MEASURES, "degree", dataclasses.replace(measures.MEASURES["degree"], function=degree))
    if failure == "write":
        def full_disk(*a, **k):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(output, "_write_file", full_disk)
    args = ["centrality", "g.txt", "--measures", "degree", "--out", "out.csv"]
    if failure == "device":
        monkeypatch.setattr("spla.cli.commands.resolve_device",
                            lambda name: (_ for _ in ()).throw(spla.NoGPUError("no GPU is available")))
    rc, out, err = run(capsys, *args)
    assert rc == status, err
    if failure != "device":  # (--device fails before computing, after the file is made)
        assert len(calls) == 1 and any(re.fullmatch(r"\.out\.csv\.[0-9a-f]{12}\.tmp", n) for n in calls[0]), calls
    assert sorted(os.listdir(tmp_path)) == ["g.txt", "out.csv"]
    assert (tmp_path / "out.csv").read_text() == "precious\n"


def test_temporary_file_exists_while_computing(tmp_path, monkeypatch, capsys, calls):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    rc, out, err = run(capsys, "centrality", "g.txt", "--measures", "degree", "--out", "out.csv")
    assert rc == 0, err
    assert len(calls) == 1 and [n for n in calls[0] if re.fullmatch(r"\.out\.csv\.[0-9a-f]{12}\.tmp", n)], calls
    assert sorted(os.listdir(tmp_path)) == ["g.txt", "out.csv"]


# ============================================================================ formats
@pytest.mark.parametrize("name, delimiter, compressed", [
    ("o.csv", ",", False), ("o.tsv", "\t", False), ("o.tab", "\t", False), ("o.txt", "\t", False),
    ("O.CSV.GZ", ",", True), ("o.txt.gz", "\t", True), ("o.tab.gz", "\t", True)])
def test_out_format_follows_the_extension(tmp_path, capsys, fake_measures, name, delimiter, compressed):
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    rc, out, err = run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree,bc", "--out", tmp_path / name)
    assert rc == 0, err
    data = (tmp_path / name).read_bytes()
    text = (gzip.decompress(data) if compressed else data).decode()
    assert text.splitlines()[:2] == [delimiter.join(["vertex", "degree", "bc"]), delimiter.join(["1", "0.5", "0.0"])]


@pytest.mark.parametrize("name, shown", [
    ("o.parquet.gz", r"the extension '\.parquet\.gz' \(Parquet compresses its columns itself\)"),
    ("o.xlsx", r"the extension '\.xlsx'"), ("o.json", r"the extension '\.json'"),
    ("scores", "a name without an extension"), ("o.gz", r"the extension '\.gz' alone")])
def test_unknown_out_extension_is_refused_before_computing(tmp_path, capsys, calls, name, shown):
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    one_error(*run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--out", tmp_path / name),
              rf"--out .*{re.escape(name)}: spla writes no table format with {shown}; {FORMATS_NAMED} "
                r"\(see 'spla centrality --help'\)$")
    assert calls == [] and sorted(os.listdir(tmp_path)) == ["g.txt"]


def test_parquet_output(tmp_path, capsys, fake_measures):
    """.parquet: the labels as int64 or strings (binary with the file's bytes when not UTF-8), the
    measures with their types; the same values as the CSV."""
    pq = pytest.importorskip("pyarrow.parquet")
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    rc, _, err = run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree,daccer", "--out",
                     tmp_path / "o.parquet")
    assert rc == 0 and "wrote" in err, err
    t = pq.read_table(tmp_path / "o.parquet")
    assert t.column_names == ["vertex", "degree", "daccer"]
    assert [str(f.type) for f in t.schema] == ["int64", "double", "int64"]
    assert t.to_pydict() == {"vertex": [1, 2, 3], "degree": [0.5, 0.5, 0.0], "daccer": [2, 2, 0]}
    (tmp_path / "s.txt").write_text("Zürich b\nb c\n", encoding="utf-8")
    rc, _, err = run(capsys, "centrality", tmp_path / "s.txt", "--measures", "degree", "--out", tmp_path / "s.parquet")
    assert rc == 0, err
    t = pq.read_table(tmp_path / "s.parquet")
    assert str(t.schema.field("vertex").type) == "string" and t.column("vertex").to_pylist() == ["Zürich", "b", "c"]
    (tmp_path / "b.txt").write_bytes(b"caf\xe9 a\ncaf\\xe9 b\n")
    rc, _, err = run(capsys, "centrality", tmp_path / "b.txt", "--measures", "degree", "--out", tmp_path / "b.parquet")
    assert rc == 0, err
    t = pq.read_table(tmp_path / "b.parquet")
    assert str(t.schema.field("vertex").type) == "binary"
    assert t.column("vertex").to_pylist() == [b"caf\xe9", b"a", b"caf\\xe9", b"b"]
    assert sorted(os.listdir(tmp_path)) == ["b.parquet", "b.txt", "g.txt", "o.parquet", "s.parquet", "s.txt"]


def test_parquet_without_pyarrow_is_refused_before_computing(tmp_path, monkeypatch, capsys, calls):
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if absent
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    one_error(*run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--out", tmp_path / "o.parquet"),
              r'--out .*o\.parquet: writing Parquet needs pyarrow: pip install "spla\[parquet\]"')
    assert calls == [] and sorted(os.listdir(tmp_path)) == ["g.txt"]


# ============================================================================ the kernel line
@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "no-numba"])
def test_cpu_run_reports_the_cpu_backend(tmp_path, capsys, fake_measures, monkeypatch, compiled):
    if compiled and not spla.paths.available("cpu")[0]:
        pytest.skip("numba is not installed")
    if not compiled:
        monkeypatch.setattr(spla.paths, "available", lambda device: (False, "numba is not installed"))
    write(tmp_path, "g.txt", "1 2\n2 3\n")
    if compiled:
        threads = spla.paths.threads()
        cpu = (f"compiled per-source BFS on {threads} thread{'s' if threads != 1 else ''} (CPU backend: "
               "numba-compiled Brandes/BFS per source for bc, closeness, harmonic and distance-sum; SciPy sparse "
               "products for pagerank and daccer")
    else:
        cpu = ("NumPy/SciPy (CPU backend: SciPy's sparse product for the arithmetic (plus) semirings, NumPy gathers "
               "and segment reductions for the others")
    rc, _, err = run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--device", "cpu")
    assert rc == 0 and f"\nkernel      {cpu})\n" in err and "GPU" not in err, err
    rc, _, err = run(capsys, "centrality", tmp_path / "g.txt", "--measures", "degree", "--device", "cpu", "--kernel",
                     "veCSC")
    assert rc == 0 and f"\nkernel      {cpu}; --kernel veCSC selects a GPU kernel and does not apply)\n" in err, err
    rc, out, _ = run(capsys, "info", tmp_path / "g.txt", "--device", "cpu")
    assert rc == 0 and f"\nkernel             {cpu})\n" in out
    assert re.search(r"^kernel on a GPU    scCSC \(scale-free metric", out, re.M), out


@pytest.mark.gpu
def test_gpu_run_reports_the_chosen_or_requested_kernel():
    from spla.cli.report import kernel_choice, kernel_text

    A = spla.Matrix.from_edges([0, 1], [1, 2], n=3, directed=True, device="gpu:0")
    assert kernel_choice(A) == spla.choose_kernel(A)
    assert kernel_text(A, "veCSC") == "veCSC (requested with --kernel)"
    assert "CPU" not in kernel_text(A)
