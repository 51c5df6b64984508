"""The ``spla`` command: every centrality of a graph file, from the shell.

    spla centrality [GRAPH] [--measures bc,closeness,...|all] [--out FILE] [--top N] ...
    spla info [GRAPH]

With no GRAPH both run on the bundled US power grid (``spla/data/power.graph.gz``).
See ``docs/cli.md`` for the options and examples.

Conventions
-----------
* Results go to ``--out FILE`` (CSV, or TSV for ``.tsv``/``.tab``; ``.gz`` compresses) or
  to stdout as CSV: one row per vertex, labelled with the file's own vertex ids.  A file
  is written under a temporary name in the same directory and renamed when complete,
  so a failure or Ctrl-C never leaves a truncated file or clobbers an existing one.
* Everything else (graph size, directedness and why, device, kernel and why, timings,
  top-N tables, correlations, progress bars) goes to stderr.
* Bad input gets one line ``spla: error: ...`` on stderr and exit status 2; PageRank that
  does not converge within ``--max-iter`` exits 3; Ctrl-C exits with 130, SIGTERM with 143; an unexpected
  failure prints ``spla: internal error: ...`` and exits 1 (``SPLA_DEBUG=1`` shows its
  traceback).
* Self-loops count where networkx counts them: in pagerank (an arc i -> i), degree (twice)
  and the degrees that daccer sums; bc, closeness, harmonic and distance-sum ignore them
  (they change no shortest path).  Their number is reported.  Edge weights are used by
  pagerank only (they must then be finite and non-negative); the other measures are
  unweighted in spla.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import inspect
import math
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

import numpy as np

from .errors import ConvergenceError, SplaError
from .io import GraphFormatError, check_weights, read_graph

__all__ = ["main", "MEASURES", "bundled_graph", "estimate_device_memory", "ProgressBar"]

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_NOT_CONVERGED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, as a shell reports a process that SIGTERM ended

#: the graph used when no GRAPH is given (in the installed package's data/ folder)
BUNDLED_FILE = "power.graph.gz"
BUNDLED_DESCRIPTION = "bundled: US western power grid, Watts & Strogatz 1998"


class UsageError(Exception):
    """Bad command-line input (unknown option value, unwritable output, ...): exit status 2."""


# ---------------------------------------------------------------------------- measures
@dataclass(frozen=True)
class Measure:
    """A centrality the command can compute.

    key: the name on the command line and the output column; function: the name in the
    ``algorithms`` package; higher_first: whether larger values are more central (sort
    order of the top-N table); weighted: whether it uses edge weights; loops: whether
    self-loops change it (networkx's pagerank and degree count them; shortest paths do not).
    """

    key: str
    function: str
    title: str
    higher_first: bool = True
    weighted: bool = False
    loops: bool = False


MEASURES = {m.key: m for m in (
    Measure("bc", "betweenness_centrality", "betweenness centrality (normalized)"),
    Measure("closeness", "closeness_centrality", "closeness centrality (Wasserman-Faust)"),
    Measure("harmonic", "harmonic_centrality", "harmonic centrality"),
    Measure("distance-sum", "sum_of_distances", "sum of distances to reachable vertices", higher_first=False),
    Measure("pagerank", "pagerank", "PageRank", weighted=True, loops=True),
    Measure("daccer", "daccer_volumes", "DACCER volume", loops=True),
    Measure("degree", "degree_centrality", "degree centrality", loops=True),
)}
KERNEL_CHOICES = ("auto", "scCSC", "veCSC", "scCOOC", "push")


def parse_measures(text: str) -> list:
    """``"bc,pagerank"`` -> ["bc", "pagerank"]; ``"all"`` -> every measure.  Raises UsageError."""
    names = [t.strip().lower() for t in str(text).split(",") if t.strip()]
    if not names:
        raise UsageError("--measures is empty; give a comma-separated list such as bc,closeness or 'all'")
    out = []
    for name in names:
        if name == "all":
            out.extend(k for k in MEASURES if k not in out)
            continue
        alias = {"betweenness": "bc", "distance_sum": "distance-sum", "distancesum": "distance-sum",
                 "sum-of-distances": "distance-sum", "page-rank": "pagerank"}.get(name, name)
        if alias not in MEASURES:
            raise UsageError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)} or all")
        if alias not in out:
            out.append(alias)
    return out


# ---------------------------------------------------------------------------- resources
@contextlib.contextmanager
def bundled_graph():
    """Context manager yielding a filesystem path of the bundled graph file."""
    from importlib import resources

    ref = resources.files("spla").joinpath("data").joinpath(BUNDLED_FILE)
    with resources.as_file(ref) as path:
        yield path


@contextlib.contextmanager
def _graph_path(arg):
    """(path, display name, remark) for the GRAPH argument, or the bundled graph when None."""
    if arg is None:
        with bundled_graph() as path:
            yield path, BUNDLED_FILE, BUNDLED_DESCRIPTION
    elif str(arg) == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("GRAPH '-' reads the graph from stdin, which is a terminal; pipe or redirect a "
                             "file into it (spla centrality - --format edgelist < edges.txt), or name the file")
        yield sys.stdin.buffer, "<stdin>", "read from stdin"
    else:
        yield arg, str(arg), ""


# ---------------------------------------------------------------------------- memory estimate
def estimate_device_memory(n: int, nnz: int, *, directed: bool, weighted: bool = False, radius: int = 2,
                           batch: int | None = None) -> dict:
    """Rough device memory each measure needs: ``{measure: (bytes, explanation)}``.

    n vertices, nnz stored arcs (without self-loops; an undirected edge is 2 arcs).
    The matrix takes n + 1 + nnz index words in CSC (4 bytes each while they fit in int32,
    else 8), twice for a directed graph whose algorithms also need the transpose.  On
    top of it:

    * bc: 64 bytes per vertex per source of a batch (sigma, delta, frontier, levels and
      temporaries: ``algorithms.betweenness.BYTES_PER_VERTEX_SOURCE``); shown for a batch
      of ``batch`` sources (default min(n, 256)).  The real batch adapts to free memory,
      so this is what a comfortable run uses; the minimum is one source.
    * closeness, harmonic, distance-sum, daccer (radius >= 2): a bit-parallel BFS over
      blocks of 64 W sources, 37 bytes per vertex per 64-bit word
      (``algorithms.distances.BYTES_PER_WORD_ROW``), shown for W = min(ceil(n/64), 16),
      plus two float64 accumulators per vertex.
    * pagerank: the values (8 bytes per arc when weighted) and five float64 vectors.
    * degree: three int64 vectors.
    """
    idx = 4 if max(n + 1, nnz) < 2**31 - 1 else 8
    csc = (n + 1 + nnz) * idx
    matrix = csc * (2 if directed else 1)
    mat_txt = f"matrix {_bytes(matrix)}" + (" incl. transpose" if directed else "")
    k = batch if batch is not None else max(1, min(n, 256))
    words = max(1, min(math.ceil(n / 64), 16))
    bfs = 37 * n * words + 2 * 8 * n
    out = {
        "bc": (matrix + 64 * n * k, f"{mat_txt} + {_bytes(64 * n * k)} for a batch of {k} sources"),
        "closeness": (matrix + bfs, f"{mat_txt} + {_bytes(bfs)} for blocks of {64 * words} sources"),
        "harmonic": (matrix + bfs, f"{mat_txt} + {_bytes(bfs)} for blocks of {64 * words} sources"),
        "distance-sum": (matrix + bfs, f"{mat_txt} + {_bytes(bfs)} for blocks of {64 * words} sources"),
    }
    if radius >= 2:
        out["daccer"] = (matrix + bfs + 8 * n, f"{mat_txt} + {_bytes(bfs + 8 * n)} for blocks of "
                                               f"{64 * words} vertices (radius {radius})")
    else:
        out["daccer"] = (matrix + 3 * 8 * n, f"{mat_txt} + {_bytes(3 * 8 * n)} (radius {radius})")
    vals = 8 * nnz if weighted else 0
    out["pagerank"] = (matrix + vals + 5 * 8 * n, f"{mat_txt} + " + (f"values {_bytes(vals)} + " if vals else "")
                       + f"{_bytes(5 * 8 * n)} vectors")
    out["degree"] = (csc + 3 * 8 * n, f"matrix {_bytes(csc)} + {_bytes(3 * 8 * n)} vectors")
    return out


def _bytes(b: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if b < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} TiB"  # pragma: no cover


# ---------------------------------------------------------------------------- progress
class ProgressBar:
    """``progress(done, total)`` callable drawing a bar with an ETA on a terminal.

    Draws nothing unless ``enabled`` (the CLI enables it when stderr is a TTY and not
    --quiet).  Redraws at most ten times a second; :meth:`close` erases the bar.
    """

    def __init__(self, label: str, stream=None, enabled: bool = True, width: int = 30):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.width = width
        self.start = time.perf_counter()
        self._last = 0.0
        self._drawn = 0

    def __call__(self, done, total):
        if not self.enabled or not total:
            return
        now = time.perf_counter()
        done, total = int(done), int(total)
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        frac = min(max(done / total, 0.0), 1.0)
        elapsed = now - self.start
        eta = elapsed * (1 - frac) / frac if frac > 0 else None
        fill = int(round(self.width * frac))
        line = (f"{self.label:<13}[{'#' * fill}{'-' * (self.width - fill)}] {100 * frac:5.1f}% "
                f"{done}/{total}  {_clock(elapsed)} elapsed, ETA {_clock(eta) if eta is not None else '?'}")
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def close(self):
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def _clock(seconds) -> str:
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


# ---------------------------------------------------------------------------- output
class _Reporter:
    """stderr messages, silenced by --quiet (errors are printed by main regardless).

    While ``hold`` is set, messages are kept back, so that bad input found while the graph
    is read and checked gives exactly one line (the error); :meth:`release` prints them.
    """

    def __init__(self, quiet: bool, hold: bool = False):
        self.quiet = quiet
        self.held = [] if hold else None

    def __call__(self, text: str = ""):
        if self.quiet:
            return
        if self.held is not None:
            self.held.append(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def release(self):
        held, self.held = self.held or [], None
        for text in held:
            self(text)


def _special_file(path) -> bool:
    """Whether ``path`` exists and is not a regular file (/dev/null, /dev/stdout, a FIFO): the
    table is written into it directly, since renaming a file over it would replace the device."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _check_output_path(out, graph=None):
    """Fail early (before computing) when --out cannot be written, or would replace the
    input file ``graph`` (a path, or None for stdin and the bundled graph)."""
    if out is None:
        return
    if out == "":
        raise UsageError("--out is empty; give a file name, or - for stdout")
    if os.path.isdir(out) or out.endswith(("/", os.sep)):
        raise UsageError(f"--out {out}: is a directory; give a file name")
    if graph is not None and os.path.isfile(graph) and os.path.exists(out) and os.path.samefile(graph, out):
        raise UsageError(f"--out {out}: is the input graph file {graph}; writing the table there would "
                         f"replace the graph; give another file name")
    if _special_file(out):
        if not os.access(out, os.W_OK):
            raise UsageError(f"--out {out}: cannot write to it (permission denied)")
        return
    if os.path.isfile(out):
        # the table replaces the file by a rename, which its own permissions do not stop: honour them
        # (root included, as rm and cp -i do)
        mode = os.stat(out).st_mode & 0o777
        if not mode & 0o222 or not os.access(out, os.W_OK):
            raise UsageError(f"--out {out}: the file is write-protected (mode {mode:04o}); make it writable "
                             f"(chmod u+w {out}) or choose another name")
    parent = os.path.dirname(os.path.realpath(out))  # through a symlink, its target is written
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"--out {out}: cannot write in directory {parent} (permission denied)")


def _delimiter_for(out) -> str:
    name = str(out).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return "\t" if name.endswith((".tsv", ".tab")) else ","


def write_table(out, header, columns):
    """Write rows ``zip(*columns)`` with ``header`` as CSV/TSV to file ``out`` (atomically:
    temporary file in the same directory, then ``os.replace``; into ``out`` itself when it is
    not a regular file, such as /dev/null or a FIFO) or, when ``out`` is None, as CSV to
    stdout.  Raises UsageError when the file cannot be written."""
    rows = zip(*[c.tolist() if isinstance(c, np.ndarray) else list(c) for c in columns])
    if out is None:
        stream = sys.stdout
        if hasattr(stream, "reconfigure") and str(stream.encoding).lower().replace("_", "-") != "utf-8":
            # UTF-8 as in a file: a label the locale's encoding lacks (ASCII, cp1252) would stop the
            # table half-way with a UnicodeEncodeError
            stream.flush()
            stream.reconfigure(encoding="utf-8")
        w = csv.writer(stream, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        sys.stdout.flush()
        return
    try:
        _write_file(out, header, rows)
    except BrokenPipeError:  # --out /dev/stdout | head: main handles it as for stdout
        raise
    except OSError as e:  # a full disk, a file system that refuses files (/proc), ...
        raise UsageError(f"--out {out}: cannot write the table: {e.strerror or e}") from None


def _write_file(out, header, rows):
    if _special_file(out):  # /dev/null, /dev/stdout, a FIFO: write into it, there is no file to replace
        with open(out, "wb") as raw:
            _write_rows(raw, out, header, rows)
        return
    target = os.path.realpath(out)  # through a symlink, replace its target, not the link
    parent = os.path.dirname(target)
    base = os.path.basename(target)
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{base}.", suffix=".tmp")
    try:
        try:
            mode = os.stat(target).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        with open(fd, "wb") as raw:
            _write_rows(raw, out, header, rows)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_rows(raw, out, header, rows):
    """The table into the binary file ``raw``: CSV or TSV, gzip-compressed, as the name ``out`` says."""
    # the format follows the name the user gave (a link's target may be named otherwise)
    gz_name = os.path.basename(out)[:-3]
    stream = gzip.GzipFile(filename=gz_name, mode="wb", fileobj=raw) \
        if str(out).lower().endswith(".gz") else contextlib.nullcontext(raw)
    with stream as binary:
        import io as _io

        text = _io.TextIOWrapper(binary, encoding="utf-8", newline="")
        w = csv.writer(text, delimiter=_delimiter_for(out), lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        text.flush()
        text.detach()


def _fmt_value(v) -> str:
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.6g}"


def _top_table(key, values, labels, top, reach=None) -> list:
    """Lines of the top-``top`` table of one measure.

    NaN values are not ranked (a line says how many).  ``reach`` (int (n,), optional): the
    number of vertices each vertex's value is taken over; where it varies, vertices that
    reach more rank first and a column shows it (a small component's distance sum is small
    but not central).
    """
    m = MEASURES[key]
    vals = np.asarray(values)
    f = vals.astype(np.float64)
    ranked = np.flatnonzero(~np.isnan(f))
    if reach is not None and np.unique(np.asarray(reach)).size < 2:
        reach = None
    value_key = -f[ranked] if m.higher_first else f[ranked]
    if reach is None:
        order = ranked[np.argsort(value_key, kind="stable")]
    else:
        order = ranked[np.lexsort((value_key, -np.asarray(reach)[ranked]))]
    order = order[:top]
    lab = [str(labels[i]) for i in order]
    text = [_fmt_value(vals[i]) for i in order]
    width = max([len("vertex")] + [len(s) for s in lab])
    how = "" if m.higher_first else "; smallest first"
    if reach is None:
        lines = [f"top {len(order)} by {key} ({m.title}{how}):", f"  {'rank':>4}  {'vertex':<{width}}  {key}"]
        lines += [f"  {r:>4}  {s:<{width}}  {t}" for r, (s, t) in enumerate(zip(lab, text), 1)]
    else:
        how = f"; most vertices reached first, then {'largest' if m.higher_first else 'smallest'}"
        vw = max([len(key)] + [len(t) for t in text])
        lines = [f"top {len(order)} by {key} ({m.title}{how}):",
                 f"  {'rank':>4}  {'vertex':<{width}}  {key:<{vw}}  reached"]
        lines += [f"  {r:>4}  {s:<{width}}  {t:<{vw}}  {_fmt_value(int(reach[i]))}"
                  for r, (i, s, t) in enumerate(zip(order, lab, text), 1)]
    unranked = vals.size - ranked.size
    if unranked:
        lines.append(f"  ({unranked:,} {'vertex has' if unranked == 1 else 'vertices have'} {key} nan and "
                     f"{'is' if unranked == 1 else 'are'} not ranked{_nan_reason(key)})")
    return lines


def _nan_reason(key) -> str:
    if key == "bc":
        return ": with --samples 1 a sampled source's estimate is undefined (networkx's estimator " \
               "divides a source's share by samples - 1)"
    return ""


def _correlation_lines(results, keys) -> list:
    from spla import algorithms

    lines = []
    constant = {k: _constant(np.asarray(results[k], dtype=np.float64)) for k in keys}
    has_nan = {k: not constant[k] and bool(np.isnan(np.asarray(results[k], dtype=np.float64)).any()) for k in keys}
    for method in ("spearman", "pearson"):
        if lines:
            lines.append("")
        lines.append(f"{method.capitalize()} correlation of the measures:")
        w = max(len(k) for k in keys) + 2
        lines.append(" " * w + "".join(f"{k:>{max(len(k), 6) + 2}}" for k in keys))
        for a in keys:
            row = f"{a:<{w}}"
            for b in keys:
                if constant[a] or constant[b] or has_nan[a] or has_nan[b]:
                    r = math.nan  # undefined (a measure the same everywhere, or nan somewhere), the diagonal too
                else:
                    r = 1.0 if a == b else algorithms.rank_correlation(
                        np.asarray(results[a], dtype=np.float64), np.asarray(results[b], dtype=np.float64),
                        method=method)
                row += f"{r:>{max(len(b), 6) + 2}.3f}"
            lines.append(row)
    same = [k for k in keys if constant[k]]
    if same:
        one = len(same) == 1
        lines.append(f"(nan: {', '.join(same)} {'is' if one else 'are'} the same for every vertex, so "
                     f"correlations with {'it' if one else 'them'} are undefined)")
    for k in keys:
        if has_nan[k]:
            lines.append(f"(nan: {k} is nan at some vertices, so its correlations are undefined{_nan_reason(k)})")
    return lines


def _constant(x) -> bool:
    """Whether x has one value everywhere (NaN entries aside): its correlations are undefined."""
    finite = x[~np.isnan(x)]
    return finite.size < 2 or bool(finite.min() == finite.max())


# ---------------------------------------------------------------------------- running
def _call(fn, A, **kwargs):
    """Call an algorithm with the keyword arguments its signature accepts."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return fn(A, **kwargs)
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    return fn(A, **kwargs)


def _host(x) -> np.ndarray:
    """A NumPy copy of an algorithm's result (NumPy or CuPy)."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):
        x = x.get()
    return np.asarray(x)


def _resolve_device(name: str) -> str:
    """"cpu" or "gpu:N" for --device (raises spla.NoGPUError for gpu without one): checked
    before the graph is read, so that the error comes at once."""
    from .device import resolve

    return resolve(name)


def _load(args, say):
    """Read the graph of ``args`` and report it; returns (GraphData, name, description)."""
    with _graph_path(args.graph) as (path, name, remark):
        g = read_graph(path, format=args.format, directed=args.directed, header=args.header)
    g.path = name
    description = f"{name} ({g.format_title}{'; ' + remark if remark else ''})"
    say(f"graph       {description}")
    for note in g.notes:
        say(f"note        {note}")
    if g.n == 0:
        raise UsageError(f"{name}: the graph is empty (no vertices)")
    return g, name, description


def _directed_text(g, args) -> str:
    why = g.directed_reason
    if args.directed is not None:
        why = "--directed given" if args.directed else "--undirected given"
    return f"{'yes' if g.directed else 'no'}: {why}"


def _count(k: int, noun: str) -> str:
    """'1 arc', '0 arcs', '1,000 arcs' for the plural ``noun``."""
    singular = {"vertices": "vertex", "undirected edges": "undirected edge", "arcs": "arc", "rows": "row"}[noun]
    return f"{k:,} {singular if k == 1 else noun}"


def _size_text(g, A) -> str:
    if g.directed:
        return f"{_count(g.n, 'vertices')}, {_count(A.nnz, 'arcs')}"
    return f"{_count(g.n, 'vertices')}, {_count(A.nnz // 2, 'undirected edges')} ({_count(A.nnz, 'arcs')})"


def _loops_text(k: int, measures, counted) -> str:
    """The report's self-loops line: which measures count them (networkx's) and which drop them."""
    dropped = [m for m in measures if m not in counted]
    if not counted:
        return f"{k:,} dropped"
    text = f"{k:,} counted by {', '.join(counted)} (as networkx counts them)"
    if dropped:
        text += f"; dropped for {', '.join(dropped)} (no shortest path uses them)"
    return text


def _kernel_text(A, requested) -> str:
    if requested != "auto":
        return f"{requested} (requested with --kernel)"
    import spla

    name, why = spla.choose_kernel(A)
    if A.device.startswith("gpu"):
        return f"{name} ({why})"
    return f"{name} on a GPU ({why}); the CPU backend has no kernel choice"


def cmd_centrality(args) -> int:
    """``spla centrality``: compute the measures, write the table, report on stderr."""
    measures = parse_measures(args.measures)
    if args.radius < 0:
        raise UsageError(f"--radius must be >= 0, got {args.radius}")
    if args.samples is not None and args.samples < 1:
        raise UsageError(f"--samples must be >= 1, got {args.samples}")
    if not (0.0 < args.alpha < 1.0) or math.isnan(args.alpha):
        raise UsageError(f"--alpha must be in (0, 1), got {args.alpha}")
    if args.max_iter < 1:
        raise UsageError(f"--max-iter must be >= 1, got {args.max_iter}")
    if not args.tol > 0 or math.isinf(args.tol):
        raise UsageError(f"--tol must be a positive number, got {args.tol}")
    if args.top < 0:
        raise UsageError(f"--top must be >= 0, got {args.top}")
    if args.out == "-":
        args.out = None  # stdout
    _check_output_path(args.out, None if args.graph in (None, "-") else args.graph)
    device = _resolve_device(args.device)
    say = _Reporter(args.quiet, hold=True)
    if (args.samples is not None or args.seed is not None) and "bc" not in measures:
        say("note        --samples and --seed apply to bc, which is not in --measures")
    elif args.seed is not None and args.samples is None:
        say("note        --seed is used with --samples only; betweenness is exact")
    if (args.max_iter != 100 or args.tol != 1e-6) and "pagerank" not in measures:
        say("note        --max-iter and --tol apply to pagerank, which is not in --measures")

    g, name, _ = _load(args, say)
    weighted_file = g.weights is not None
    if weighted_file:
        users = [m for m in measures if MEASURES[m].weighted]
        others = [m for m in measures if not MEASURES[m].weighted]
        if users:
            try:
                check_weights(g.weights, "finite_nonnegative", lines=g.lines, path=name, what="edge weights")
            except GraphFormatError as e:
                raise GraphFormatError(f"{e} for {', '.join(users)} (leave it out of --measures to ignore "
                                       f"the weights)") from None
        if others:
            say(f"note        the file has edge weights; {', '.join(others)} "
                f"{'is unweighted in spla and ignores' if len(others) == 1 else 'are unweighted in spla and ignore'}"
                " them")

    # the loop-free matrix for the shortest-path measures (and the size, the kernel); pagerank,
    # degree and daccer get the self-loops, which networkx counts in them
    A = g.to_matrix(device=device, drop_self_loops=True, weighted=False)
    loops = [m for m in measures if MEASURES[m].loops] if g.self_loops else []
    AL = g.to_matrix(device=A.device, drop_self_loops=False, weighted=False) if loops else A
    Aw = g.to_matrix(device=A.device, drop_self_loops=False, weighted=True) \
        if weighted_file and "pagerank" in measures else AL
    say(f"size        {_size_text(g, A)}")
    say(f"directed    {_directed_text(g, args)}")
    say(f"self-loops  {_loops_text(g.self_loops, measures, loops)}")
    say(f"device      {A.device}")
    say(f"kernel      {_kernel_text(A, args.kernel)}")

    samples = args.samples
    if samples is not None and samples >= g.n:
        say(f"note        --samples {samples} >= {g.n} vertices: computing exact betweenness")
        samples = None
    say.release()  # the input is good: from here on, report as we go

    from spla import algorithms

    show_bar = sys.stderr.isatty() and not args.quiet
    results, timings, reach = {}, {}, {}
    for key in measures:
        m = MEASURES[key]
        fn = getattr(algorithms, m.function)
        bar = ProgressBar(key, enabled=show_bar)
        kw = dict(device=A.device, kernel=args.kernel, progress=bar)
        if key == "bc":
            kw.update(k=samples, seed=args.seed, normalized=True)
        elif key == "closeness":
            kw.update(wf_improved=True)
        elif key == "pagerank":
            kw.update(alpha=args.alpha, max_iter=args.max_iter, tol=args.tol)
        elif key == "daccer":
            kw.update(radius=args.radius)
        elif key == "distance-sum":
            kw.update(return_reach=True)
        elif key == "degree":
            kw = {"device": A.device}
        t0 = time.perf_counter()
        try:
            values = _call(fn, Aw if m.weighted else AL if m.loops else A, **kw)
        finally:
            bar.close()
        if key == "distance-sum":  # (sums, vertices reached): the top table ranks by both
            values, reached = values
            reach[key] = _host(reached)
        values = _host(values)
        timings[key] = time.perf_counter() - t0
        if values.shape != (g.n,):
            raise RuntimeError(f"algorithms.{m.function} returned shape {values.shape}, expected ({g.n},)")
        results[key] = values
        say(f"{key:<12}{timings[key]:8.3f} s")

    write_table(args.out, ["vertex", *measures], [g.labels, *(results[k] for k in measures)])
    if args.out is not None:
        say(f"wrote       {args.out} ({_count(g.n, 'rows')})")
    if args.top:
        for key in measures:
            say()
            for line in _top_table(key, results[key], g.labels, args.top, reach.get(key)):
                say(line)
    if args.correlations:
        say()
        if len(measures) < 2 or g.n < 2:
            say("note        --correlations needs at least two measures and two vertices")
        else:
            for line in _correlation_lines(results, measures):
                say(line)
    return EXIT_OK


def cmd_info(args) -> int:
    """``spla info``: size, directedness, degrees, kernel choice, BFS depth, memory estimates."""
    import spla

    out = print  # info's report is its output: stdout
    device = _resolve_device(args.device)
    g, name, description = _load(args, lambda text="": None)
    A = g.to_matrix(device=device, drop_self_loops=True, weighted=False)
    from spla import algorithms
    from spla.algorithms.degree import degree_parts

    # degrees as networkx counts them (and the degree measure reports them): a self-loop adds 2 to an
    # undirected vertex's degree, 1 to a directed vertex's out- and in-degree
    AL = g.to_matrix(device=A.device, drop_self_loops=False, weighted=False) if g.self_loops else A
    _, arcs_out, arcs_in, loops = degree_parts(AL)
    deg_out = _host(arcs_out) if g.directed else _host(arcs_out) + _host(loops)  # on the host: A may be on another GPU
    out(f"graph              {description}")
    for note in g.notes:
        out(f"note               {note}")
    out(f"vertices           {g.n:,}")
    if g.directed:
        out(f"arcs               {A.nnz:,}")
    else:
        out(f"arcs               {A.nnz:,} ({_count(A.nnz // 2, 'undirected edges')})")
    out(f"directed           {_directed_text(g, args)}")
    out(f"self-loops         {g.self_loops:,} (counted by pagerank, degree and daccer, as networkx counts them; "
        f"the shortest-path measures ignore them)")
    if g.weights is not None:
        w = g.weights
        finite = np.isfinite(w)
        extra = "" if finite.all() else f"; {int((~finite).sum()):,} NaN/inf"
        lo = float(w[finite].min()) if finite.any() else float("nan")
        hi = float(w[finite].max()) if finite.any() else float("nan")
        out(f"weights            yes, {lo:.6g} .. {hi:.6g}{extra} (used by pagerank only)")
    else:
        out("weights            none")
    label = "out-degree" if g.directed else "degree"
    loop_note = "" if not g.self_loops else \
        " (self-loops count once)" if g.directed else " (a self-loop counts twice, as in networkx)"
    out(f"{label:<19}max {int(deg_out.max()):,}, mean {deg_out.mean():.3f}, std {deg_out.std():.3f}{loop_note}")
    if g.directed:
        deg_in = _host(arcs_in)
        out(f"{'in-degree':<19}max {int(deg_in.max()):,}, mean {deg_in.mean():.3f}, std {deg_in.std():.3f}"
            f"{loop_note}")
    out(f"scale-free metric  {spla.scale_free_metric(A):.6g}")
    out(f"kernel             {_kernel_text(A, 'auto')}")
    out(f"device             {A.device}")

    src = int(np.argmax(deg_out))
    t0 = time.perf_counter()
    levels = _host(_call(algorithms.bfs_levels, A, source=src, device=A.device))
    dt = time.perf_counter() - t0
    depth = int(levels.max())
    reached = int((levels >= 0).sum())
    bound = f"; the diameter of its component is between {depth} and {2 * depth}" if not g.directed else ""
    out(f"BFS depth          {depth} levels from vertex {g.labels[src]} (max {label} {int(deg_out[src]):,}), "
        f"reaching {reached:,} of {g.n:,} vertices{bound} ({dt:.3f} s)")
    out("device memory (estimates; the batch sizes adapt to the free memory):")
    est = estimate_device_memory(g.n, A.nnz, directed=g.directed, weighted=g.weights is not None)
    width = max(len(k) for k in est)
    for key in MEASURES:
        b, why = est[key]
        out(f"  {key:<{width}}  {_bytes(b):>10}  ({why})")
    return EXIT_OK


# ---------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing usage and exiting."""

    def error(self, message):
        raise UsageError(message)


def _kernel(value: str) -> str:
    lookup = {k.lower(): k for k in KERNEL_CHOICES}
    if value.lower() not in lookup:
        raise argparse.ArgumentTypeError(f"invalid choice {value!r} (choose from {', '.join(KERNEL_CHOICES)})")
    return lookup[value.lower()]


def _device(value: str) -> str:
    """--device: auto, cpu, gpu or gpu:N (checked against the GPUs there are when the command runs)."""
    if value in ("auto", "cpu", "gpu") or re.fullmatch(r"gpu:\d+", value):
        return value
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from 'auto', 'cpu', 'gpu', 'gpu:N')")


def _add_graph_options(p):
    p.add_argument("graph", nargs="?", metavar="GRAPH",
                   help="graph file: Matrix Market (.mtx), METIS (.graph), or an edge list (.txt, .csv, "
                        ".tsv, .edges, ...), optionally .gz/.bz2/.xz; '-' reads stdin (give --format unless it is "
                        "Matrix Market); default: the bundled US power grid")
    p.add_argument("--format", choices=("mtx", "edgelist", "metis"), default=None,
                   help="file format (default: from the extension, or a %%%%MatrixMarket banner)")
    d = p.add_mutually_exclusive_group()
    d.add_argument("--directed", dest="directed", action="store_const", const=True, default=None,
                   help="treat the graph as directed")
    d.add_argument("--undirected", dest="directed", action="store_const", const=False,
                   help="treat the graph as undirected (default for Matrix Market 'symmetric' and METIS; "
                        "edge lists are directed unless this is given)")
    h = p.add_mutually_exclusive_group()
    h.add_argument("--header", dest="header", action="store_const", const=True, default=None,
                   help="edge lists: the first data row is a header (default: detected)")
    h.add_argument("--no-header", dest="header", action="store_const", const=False,
                   help="edge lists: the first data row is an edge")
    p.add_argument("--device", type=_device, default="auto", metavar="{auto,cpu,gpu,gpu:N}",
                   help="where to compute (default auto: the GPU when CuPy sees one; gpu is gpu:0)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``spla`` command."""
    from . import __version__

    parser = _Parser(prog="spla", description="Graph centralities with GraphBLAS-style sparse linear algebra, "
                                              "on the GPU or the CPU.")
    parser.add_argument("--version", action="version", version=f"spla {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("centrality", help="compute centralities of every vertex",
                       description="Compute centralities of every vertex; write one row per vertex "
                                   "(CSV to stdout, or --out FILE) and a report on stderr.")
    _add_graph_options(c)
    c.add_argument("--measures", default="all", metavar="LIST",
                   help=f"comma-separated: {','.join(MEASURES)}, or all (default)")
    c.add_argument("--radius", type=int, default=2, metavar="R", help="DACCER radius (default 2)")
    c.add_argument("--samples", type=int, default=None, metavar="K",
                   help="betweenness from K sampled sources (default: exact, all sources)")
    c.add_argument("--seed", type=int, default=None, metavar="S", help="random seed for --samples")
    c.add_argument("--alpha", type=float, default=0.85, metavar="A", help="PageRank damping (default 0.85)")
    c.add_argument("--max-iter", type=int, default=100, metavar="N",
                   help="PageRank's power iterations before it gives up (default 100, as networkx)")
    c.add_argument("--tol", type=float, default=1e-6, metavar="T",
                   help="PageRank stops when the change sum is below n*T (default 1e-6, as networkx)")
    c.add_argument("--kernel", type=_kernel, default="auto", metavar="{auto,scCSC,veCSC,scCOOC,push}",
                   help="GPU product kernel (default auto: chosen from the scale-free metric, and push or pull per BFS level)")
    c.add_argument("--out", default=None, metavar="FILE",
                   help="write the table here (.csv, .tsv or .tab; .gz compresses; - is stdout) instead of stdout")
    c.add_argument("--top", type=int, default=10, metavar="N", help="top-N table per measure on stderr "
                                                                     "(default 10, 0: none)")
    c.add_argument("--correlations", action="store_true",
                   help="print the Spearman and Pearson correlation matrices of the measures")
    c.add_argument("--quiet", "-q", action="store_true", help="no report or progress bar on stderr")
    c.set_defaults(func=cmd_centrality)

    i = sub.add_parser("info", help="size, degrees, kernel choice, BFS depth and memory needs of a graph",
                       description="Describe a graph: size, directedness, self-loops, degrees, scale-free "
                                   "metric and kernel, BFS depth and the device memory each measure needs.")
    _add_graph_options(i)
    i.set_defaults(func=cmd_info)
    return parser


def _error(message: str):
    text = " ".join(str(message).split())  # one line
    # control bytes from a binary file would reach the terminal: show them escaped
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    print(f"spla: error: {text}", file=sys.stderr, flush=True)


class _Terminated(BaseException):
    """SIGTERM, raised where the process is, so that the output's cleanup runs as for Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv=None) -> int:
    """Entry point of the ``spla`` command; returns the exit status."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main_thread else None
    try:
        return _main(argv)
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _main(argv) -> int:
    debug = bool(os.environ.get("SPLA_DEBUG"))
    parser = build_parser()
    command = None
    try:
        args = parser.parse_args(argv)
        command = args.command
        if command is None:
            _error("a command is required: 'spla centrality [GRAPH]' or 'spla info [GRAPH]' (see 'spla --help')")
            return EXIT_USAGE
        return args.func(args)
    except KeyboardInterrupt:
        print("spla: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except _Terminated:
        print("spla: terminated", file=sys.stderr, flush=True)
        return EXIT_TERMINATED
    except UsageError as e:
        hint = f" (see 'spla {command} --help')" if command and "--" in str(e) else ""
        _error(f"{e}{hint}")
        return EXIT_USAGE
    except ConvergenceError as e:
        if debug:
            raise
        _error(f"{e} (spla centrality: --max-iter N, --tol T)")
        return EXIT_NOT_CONVERGED
    except (GraphFormatError, SplaError, ValueError) as e:
        if debug:
            raise
        _error(str(e))
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader of stdout went away (e.g. `spla centrality | head`): not an error
        with contextlib.suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except MemoryError:
        if debug:
            raise
        _error("out of memory; try a smaller graph, --samples K, or another --device")
        return EXIT_INTERNAL
    except Exception as e:  # a bug: say so in one line, traceback on request
        if debug:
            raise
        print(f"spla: internal error: {type(e).__name__}: {' '.join(str(e).split())} "
              f"(set SPLA_DEBUG=1 for the traceback)", file=sys.stderr, flush=True)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
