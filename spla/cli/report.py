"""The report of the ``spla`` command: its stderr messages, the lines that describe the graph
(size, directedness, self-loops, kernel), the top-N table of a measure and the correlation
matrices of the measures.
"""

from __future__ import annotations

import math
import sys

import numpy as np

import spla
from spla.algorithms import rank_correlation

from .measures import MEASURES
from .text import escape

__all__ = ["Reporter", "top_table", "correlation_lines", "directed_text", "count", "size_text", "loops_text",
           "kernel_choice", "kernel_text"]


class Reporter:
    """stderr messages, silenced by --quiet (errors are printed by main regardless).

    Non-printable characters (of a file name, say) are printed escaped (:func:`~spla.cli.text.escape`).

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
            print(escape(text, backslashes=False), file=sys.stderr, flush=True)

    def release(self):
        held, self.held = self.held or [], None
        for text in held:
            self(text)


def _fmt_value(v) -> str:
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.6g}"


def top_table(key, values, labels, top, reach=None) -> list:
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
    lab = [escape(labels[i]) for i in order]  # printed: escape sequences in a label must not run
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


def correlation_lines(results, keys) -> list:
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
                    r = 1.0 if a == b else rank_correlation(
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


def directed_text(g, args) -> str:
    why = g.directed_reason
    if args.directed is not None:
        why = "--directed given" if args.directed else "--undirected given"
    return f"{'yes' if g.directed else 'no'}: {why}"


def count(k: int, noun: str) -> str:
    """'1 arc', '0 arcs', '1,000 arcs' for the plural ``noun``."""
    singular = {"vertices": "vertex", "undirected edges": "undirected edge", "arcs": "arc", "rows": "row",
                "pairs": "pair"}[noun]
    return f"{k:,} {singular if k == 1 else noun}"


def size_text(g, A) -> str:
    if g.directed:
        return f"{count(g.n, 'vertices')}, {count(A.nnz, 'arcs')}"
    return f"{count(g.n, 'vertices')}, {count(A.nnz // 2, 'undirected edges')} ({count(A.nnz, 'arcs')})"


def loops_text(k: int, measures, counted) -> str:
    """The report's self-loops line: which measures count them (networkx's) and which drop them."""
    dropped = [m for m in measures if m not in counted]
    if not counted:
        return f"{k:,} dropped"
    text = f"{k:,} counted by {', '.join(counted)} (as networkx counts them)"
    if dropped:
        text += f"; dropped for {', '.join(dropped)} (no shortest path uses them)"
    return text


#: what the CPU backend (spla/backends/cpu.py) runs for every product: it has no kernels to choose from
CPU_PRODUCTS = ("NumPy/SciPy", "CPU backend: SciPy's sparse product for the arithmetic (plus) semirings, NumPy "
                               "gathers and segment reductions for the others")


def kernel_choice(A, requested="auto", weighted=()) -> tuple:
    """(kernel, why) of the products on A's device, the one source of the report's kernel line: on a
    GPU the kernel ``requested`` with --kernel, else ``spla.choose_kernel``'s; on the CPU what its
    backend runs (``spla.paths``' compiled searches when numba is installed).  ``weighted``: the
    measures that run on weighted shortest paths (--weight), whose searches the line names too."""
    name, why = _products(A, requested)
    if not weighted:
        return name, why
    if A.device.startswith("gpu"):
        delta = spla.tuning.current().sssp_delta
        search = ("Bellman-Ford" if delta is None else
                  f"delta-stepping (buckets of {delta:g} mean arc lengths)")
        return name, why + (f"; {', '.join(weighted)} on weighted shortest paths: {search} searches of "
                            "blocks of sources")
    t = spla.paths.threads()
    return (f"compiled per-source Dijkstra on {t} thread{'s' if t != 1 else ''}",
            f"CPU backend: numba-compiled Dijkstra/Brandes per source for {', '.join(weighted)} on weighted "
            "shortest paths; SciPy sparse products for pagerank and daccer")


def _products(A, requested):
    """(kernel, why) of the unweighted products and searches (see :func:`kernel_choice`)."""
    if A.device.startswith("gpu"):
        if requested != "auto":
            return requested, "requested with --kernel"
        return spla.choose_kernel(A)
    name, why = CPU_PRODUCTS
    if spla.paths.available(A.device)[0] and spla.tuning.current().paths_for_betweenness:
        # bc, closeness, harmonic and distance-sum run compiled searches; pagerank and daccer products
        name = f"compiled per-source BFS on {spla.paths.threads()} thread{'s' if spla.paths.threads() != 1 else ''}"
        why = ("CPU backend: numba-compiled Brandes/BFS per source for bc, closeness, harmonic and distance-sum; "
               "SciPy sparse products for pagerank and daccer")
    if requested != "auto":
        why += f"; --kernel {requested} selects a GPU kernel and does not apply"
    return name, why


def kernel_text(A, requested="auto", weighted=()) -> str:
    """The report's kernel line: ``kernel (why)`` of :func:`kernel_choice`."""
    name, why = kernel_choice(A, requested, weighted)
    return f"{name} ({why})"
