"""The two commands, ``spla centrality`` and ``spla info``: check the options, read the graph, call
the algorithms, write the table and the report."""

from __future__ import annotations

import contextlib
import copy
import inspect
import math
import sys
import time

import numpy as np

import spla
from spla.algorithms import bfs_levels
from spla.algorithms.degree import degree_parts
from spla.io import GraphFormatError, check_weights

from .cluster import check_cluster_options, cluster_client, describe_cluster
from .errors import EXIT_OK, UsageError
from .inputs import (BUNDLED_FILE, bundled_graph, data_folder, load_graph, no_weights_reason, resolve_device,
                     weight_option)
from .measures import MEASURES, parse_measures
from .memory import estimate_device_memory, human_bytes, require_measures_memory
from .output import TableOutput, check_output_path
from .progress import ProgressBar
from .report import (Reporter, correlation_lines, count, directed_text, kernel_text, loops_text, size_text,
                     top_table)
from .text import escape

__all__ = ["cmd_centrality", "cmd_info", "COMMANDS"]

#: the --out names the terminal note suggests
TABLE_EXTENSIONS = ".csv, .tsv, .txt, .parquet; .gz compresses text"


def _accepts(fn, keyword) -> bool:
    """Whether ``fn`` takes the keyword argument ``keyword``."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return True
    return keyword in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _require_lengths(measures):
    """Refuse --weight, before any work, for a path measure whose algorithm takes no arc-length keyword
    (its answer would be the unweighted one)."""
    for key in measures:
        m = MEASURES[key]
        if not _accepts(m.function, m.lengths):
            raise UsageError(f"--weight: spla.algorithms.{m.function.__name__} takes no {m.lengths}= argument in "
                             f"this installation, so {key} cannot run on weighted shortest paths")


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
    weight_option(args)  # before --out is checked against GRAPH, which --weight may have taken
    check_cluster_options(args)
    out = None if args.out == "-" else args.out  # None: stdout
    _check_out(args, out)
    # no --out, on a terminal: the report and the top-N tables, not thousands of rows (--out - prints
    # them; with --quiet they are all there is to show)
    terminal = _stdout_is_terminal()
    hold = args.out is None and terminal and not args.quiet
    # a regular file's temporary file: made now, removed on any failure; a cluster closed at the end
    with TableOutput(out) as table, contextlib.ExitStack() as stack:
        return _centrality(args, measures, table, hold, terminal, stack)


def _stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (not a pipe, a file, or a test's capture)."""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed
        return False


def _check_out(args, out):
    """check_output_path for --out, with the input file it may not replace: GRAPH, or the bundled graph
    (and no file of the package's data folder, where that lives)."""
    if args.graph is None:
        with bundled_graph() as path:
            check_output_path(out, path, graph_name=f"{BUNDLED_FILE} (the bundled graph, used when no GRAPH is "
                                                    f"given)", protected=data_folder())
    else:
        check_output_path(out, None if args.graph == "-" else args.graph, protected=data_folder())


def _centrality(args, measures, table, hold, terminal, stack) -> int:
    """The rest of ``spla centrality``, once the output is prepared: read, compute, write, report."""
    device = resolve_device(args.device)
    say = Reporter(args.quiet, hold=True)
    if (args.samples is not None or args.seed is not None) and "bc" not in measures:
        say("note        --samples and --seed apply to bc, which is not in --measures")
    elif args.seed is not None and args.samples is None:
        say("note        --seed is used with --samples only; betweenness is exact")
    if (args.max_iter != 100 or args.tol != 1e-6) and "pagerank" not in measures:
        say("note        --max-iter and --tol apply to pagerank, which is not in --measures")

    g, name, _ = load_graph(args, say)
    weighted_file = g.weights is not None
    lengths = [m for m in measures if MEASURES[m].lengths] if args.weight else []
    if args.weight and not weighted_file:
        raise UsageError(f"{name}: --weight reads the edge weights as arc lengths, but the graph has none: "
                         f"{no_weights_reason(g)}")
    if weighted_file:
        users = [m for m in measures if MEASURES[m].weighted or m in lengths]
        others = [m for m in measures if m not in users]
        if users:
            try:
                check_weights(g.weights, "finite_nonnegative", lines=g.lines, path=name, what="edge weights")
            except GraphFormatError as e:
                raise GraphFormatError(f"{e} for {', '.join(users)} (leave it out of --measures"
                                       f"{' or drop --weight' if lengths else ''} to ignore the weights)") from None
        if lengths:
            pairs, differing = g.parallel_arcs()
            merged = f"; the parallel arcs of {count(pairs, 'pairs')} merged to the shortest" if pairs else ""
            say(f"note        {', '.join(lengths)} run on weighted shortest paths (edge weights as arc lengths"
                f"{merged})")
        if others:
            hint = "" if args.weight or not any(MEASURES[m].lengths for m in others) else \
                " (--weight makes bc, closeness, harmonic and distance-sum use them as arc lengths)"
            say(f"note        the file has edge weights; {', '.join(others)} "
                f"{'is unweighted in spla and ignores' if len(others) == 1 else 'are unweighted in spla and ignore'}"
                f" them{hint}")
    _require_lengths(lengths)
    if args.weight and not lengths:
        say("note        --weight applies to bc, closeness, harmonic and distance-sum, none of which is in "
            "--measures")

    # the loop-free matrix for the shortest-path measures (and the size, the kernel); pagerank,
    # degree and daccer get the self-loops, which networkx counts in them; under --weight the path
    # measures get the loop-free matrix of arc lengths, each pair its shortest arc
    A = g.to_matrix(device=device, drop_self_loops=True, weighted=False)
    AW = g.to_matrix(device=A.device, drop_self_loops=True, weighted=True, dup="min") if lengths else A
    loops = [m for m in measures if MEASURES[m].loops] if g.self_loops else []
    AL = g.to_matrix(device=A.device, drop_self_loops=False, weighted=False) if loops else A
    Aw = g.to_matrix(device=A.device, drop_self_loops=False, weighted=True) \
        if weighted_file and "pagerank" in measures else AL
    require_measures_memory(measures, g.n, A.device, name)
    say(f"size        {size_text(g, A)}")
    say(f"directed    {directed_text(g, args)}")
    say(f"self-loops  {loops_text(g.self_loops, measures, loops)}")
    say(f"device      {A.device}")
    say(f"kernel      {kernel_text(A, args.kernel, lengths)}")

    samples = args.samples
    if samples is not None and samples >= g.n:
        say(f"note        --samples {samples} >= {g.n} vertices: computing exact betweenness")
        samples = None
    say.release()  # the input is good: from here on, report as we go
    client, cluster_text = stack.enter_context(cluster_client(args))
    users = []  # the measures that run on the cluster: the all-sources ones
    if client is not None:
        # weighted closeness is one Dijkstra per vertex along the reversed arcs (networkx's float
        # sums), not a sum over sources: it runs in this process
        local = {"closeness"} if "closeness" in lengths else set()
        users = [k for k in measures
                 if k not in local and "client" in inspect.signature(MEASURES[k].function).parameters]
        say(f"cluster     {describe_cluster(client, cluster_text, users)}")

    opts = copy.copy(args)  # the options as the measures take them: --samples as used
    opts.samples = samples
    show_bar = sys.stderr.isatty() and not args.quiet
    results, timings, reach = {}, {}, {}
    for key in measures:
        m = MEASURES[key]
        bar = ProgressBar(key, enabled=show_bar)
        kw = m.keywords(opts, device=A.device, progress=bar)
        if key in users:
            kw["client"] = client
        t0 = time.perf_counter()
        try:
            matrix = AW if key in lengths else Aw if m.weighted else AL if m.loops else A
            values = _call(m.function, matrix, **kw)
        finally:
            bar.close()
        if m.reach:  # (sums, vertices reached): the top table ranks by both
            values, reached = values
            reach[key] = _host(reached)
        values = _host(values)
        timings[key] = time.perf_counter() - t0
        if values.shape != (g.n,):
            raise RuntimeError(f"algorithms.{m.function.__name__} returned shape {values.shape}, expected ({g.n},)")
        results[key] = values
        say(f"{key:<12}{timings[key]:8.3f} s")

    if hold:
        say(f"table       not printed on a terminal ({count(g.n, 'rows')}): --out FILE writes it "
            f"({TABLE_EXTENSIONS}), --out - or a pipe prints it as CSV")
    else:
        table.write(["vertex", *measures], [g.labels, *(results[k] for k in measures)], terminal=terminal)
        if table.out is not None:
            say(f"wrote       {table.out} ({count(g.n, 'rows')})")
    if args.top:
        for key in measures:
            say()
            for line in top_table(key, results[key], g.labels, args.top, reach.get(key)):
                say(line)
    if args.correlations:
        say()
        if len(measures) < 2 or g.n < 2:
            say("note        --correlations needs at least two measures and two vertices")
        else:
            for line in correlation_lines(results, measures):
                say(line)
    return EXIT_OK


def cmd_info(args) -> int:
    """``spla info``: size, directedness, degrees, kernel choice, BFS depth, memory estimates."""
    def out(text):  # info's report is its output: stdout (a file's name, a label shown escaped)
        print(escape(text, backslashes=False))

    device = resolve_device(args.device)
    g, name, description = load_graph(args, lambda text="": None)
    if args.weight and g.weights is None:
        raise UsageError(f"{name}: --weight names the edge weights to describe, but the graph has none: "
                         f"{no_weights_reason(g)}")
    A = g.to_matrix(device=device, drop_self_loops=True, weighted=False)
    # degrees as networkx counts them (and the degree measure reports them): a self-loop adds 2 to an
    # undirected vertex's degree, 1 to a directed vertex's out- and in-degree
    AL = g.to_matrix(device=A.device, drop_self_loops=False, weighted=False) if g.self_loops else A
    # the degree vectors and the BFS levels, as the degree measure's
    require_measures_memory(["degree"], g.n, A.device, name, "the degrees and a BFS")
    _, arcs_out, arcs_in, loops = degree_parts(AL)
    deg_out = _host(arcs_out) if g.directed else _host(arcs_out) + _host(loops)  # on the host: A may be on another GPU
    out(f"graph              {description}")
    for note in g.notes:
        out(f"note               {note}")
    out(f"vertices           {g.n:,}")
    if g.directed:
        out(f"arcs               {A.nnz:,}")
    else:
        out(f"arcs               {A.nnz:,} ({count(A.nnz // 2, 'undirected edges')})")
    out(f"directed           {directed_text(g, args)}")
    out(f"self-loops         {g.self_loops:,} (counted by pagerank, degree and daccer, as networkx counts them; "
        f"the shortest-path measures ignore them)")
    for line in _weight_lines(g):
        out(line)
    label = "out-degree" if g.directed else "degree"
    loop_note = "" if not g.self_loops else \
        " (self-loops count once)" if g.directed else " (a self-loop counts twice, as in networkx)"
    out(f"{label:<19}max {int(deg_out.max()):,}, mean {deg_out.mean():.3f}, std {deg_out.std():.3f}{loop_note}")
    if g.directed:
        deg_in = _host(arcs_in)
        out(f"{'in-degree':<19}max {int(deg_in.max()):,}, mean {deg_in.mean():.3f}, std {deg_in.std():.3f}"
            f"{loop_note}")
    out(f"scale-free metric  {spla.scale_free_metric(A):.6g}")
    out(f"kernel             {kernel_text(A)}")
    if not A.device.startswith("gpu"):
        name, why = spla.choose_kernel(A)
        out(f"kernel on a GPU    {name} ({why})")
    out(f"device             {A.device}")

    src = int(np.argmax(deg_out))
    t0 = time.perf_counter()
    levels = _host(_call(bfs_levels, A, source=src, device=A.device))
    dt = time.perf_counter() - t0
    depth = int(levels.max())
    reached = int((levels >= 0).sum())
    bound = f"; the diameter of its component is between {depth} and {2 * depth}" if not g.directed else ""
    out(f"BFS depth          {depth} levels from vertex {escape(g.labels[src])} (max {label} {int(deg_out[src]):,}), "
        f"reaching {reached:,} of {g.n:,} vertices{bound} ({dt:.3f} s)")
    on_cpu = not A.device.startswith("gpu")
    searches = on_cpu and spla.paths.available(A.device)[0] and spla.tuning.current().paths_for_betweenness
    out("device memory (estimates; the batch sizes adapt to the free memory):")
    est = estimate_device_memory(g.n, A.nnz, directed=g.directed, weighted=g.weights is not None,
                                 search_threads=spla.paths.threads() if searches else None)
    width = max(len(k) for k in est)
    for key in MEASURES:
        b, why = est[key]
        out(f"  {key:<{width}}  {human_bytes(b):>10}  ({why})")
    return EXIT_OK


def _weight_lines(g) -> list:
    """info's lines on the edge weights: the range, the zero-length and unusable ones, and what
    becomes of parallel arcs."""
    if g.weights is None:
        return ["weights            none (the path measures count hops; pagerank is unweighted)"]
    w = g.weights
    finite = np.isfinite(w)
    lo = float(w[finite].min()) if finite.any() else float("nan")
    hi = float(w[finite].max()) if finite.any() else float("nan")
    bad = [f"{k:,} {what}" for k, what in ((int((~finite).sum()), "NaN/inf"), (int((w < 0).sum()), "negative"))
           if k]
    usable = "" if not bad else f"; {', '.join(bad)}: refused by --weight and pagerank"
    zero = int((w[g.src != g.dst] == 0).sum())
    lines = [f"weights            yes, {lo:,.6g} .. {hi:,.6g}; {count(zero, 'arcs')} of length 0{usable} "
             f"(--weight: arc lengths of bc, closeness, harmonic and distance-sum; pagerank: transition weights)"]
    pairs, differing = g.parallel_arcs()
    if pairs:
        lines.append(f"parallel arcs      {count(pairs, 'pairs')} listed more than once ({differing:,} with different "
                     f"weights): the path measures keep each pair's shortest arc, pagerank its last listed weight")
    else:
        lines.append("parallel arcs      none (no pair listed more than once)")
    return lines


#: the function of each command (``args.command``)
COMMANDS = {"centrality": cmd_centrality, "info": cmd_info}
