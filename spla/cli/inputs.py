"""The graph the ``spla`` command reads (a file, stdin, or the bundled power grid) and the device
it computes on."""

from __future__ import annotations

import contextlib
import os
import sys

from spla.device import resolve
from spla.io import read_graph

from .errors import UsageError

__all__ = ["BUNDLED_FILE", "BUNDLED_DESCRIPTION", "bundled_graph", "data_folder", "graph_path", "load_graph",
           "resolve_device"]

#: the graph used when no GRAPH is given (in the installed package's data/ folder)
BUNDLED_FILE = "power.graph.gz"
BUNDLED_DESCRIPTION = "bundled: US western power grid, Watts & Strogatz 1998"


@contextlib.contextmanager
def bundled_graph():
    """Context manager yielding a filesystem path of the bundled graph file."""
    from importlib import resources

    ref = resources.files("spla").joinpath("data").joinpath(BUNDLED_FILE)
    with resources.as_file(ref) as path:
        yield path


def data_folder():
    """The folder of the installed package's data (the bundled graph) on the file system, or None
    when the package is not a folder of files (a zip): ``--out`` may not write there."""
    from importlib import resources

    ref = resources.files("spla").joinpath("data")
    return os.fspath(ref) if isinstance(ref, os.PathLike) and os.path.isdir(ref) else None


@contextlib.contextmanager
def graph_path(arg):
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


def resolve_device(name: str) -> str:
    """"cpu" or "gpu:N" for --device (raises spla.NoGPUError for gpu without one): checked
    before the graph is read, so that the error comes at once."""
    return resolve(name)


def load_graph(args, say):
    """Read the graph of ``args`` and report it; returns (GraphData, name, description)."""
    with graph_path(args.graph) as (path, name, remark):
        g = read_graph(path, format=args.format, directed=args.directed, header=args.header)
    g.path = name
    description = f"{name} ({g.format_title}{'; ' + remark if remark else ''})"
    say(f"graph       {description}")
    for note in g.notes:
        say(f"note        {note}")
    if g.n == 0:
        raise UsageError(f"{name}: the graph is empty (no vertices)")
    return g, name, description
