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
           "no_weights_reason", "resolve_device", "weight_option"]

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


def weight_option(args):
    """Settle ``--weight [NAME]`` against GRAPH: ``spla centrality --weight roads.gr`` gives argparse's
    NAME the file (an optional value takes the next word); when no GRAPH was given and NAME is a
    file (or '-'), it is the GRAPH and ``--weight`` has no name.  Sets ``args.weight`` to None, True
    or a name, and returns the name to read the weights by (None: the file's own)."""
    weight = getattr(args, "weight", None)
    if isinstance(weight, str) and args.graph is None and (weight == "-" or os.path.isfile(weight)):
        args.graph, args.weight = weight, True
    return args.weight if isinstance(args.weight, str) else None


def no_weights_reason(g) -> str:
    """Why a graph file read without weights has none, by format (for the --weight error)."""
    return {"mtx": "its Matrix Market field is 'pattern'",
            "metis": "its METIS header's fmt has no edge weights (fmt 1, 11, 101 or 111 have them)",
            "edgelist": "no row has a numeric 3rd field (or name a header column: --weight NAME)",
            "gml": "its edges have no 'weight' or 'value' attribute (name one: --weight NAME)",
            "dimacs": "it has no arcs"}.get(g.format, "it has none")


def load_graph(args, say):
    """Read the graph of ``args`` and report it; returns (GraphData, name, description)."""
    weight = weight_option(args)
    with graph_path(args.graph) as (path, name, remark):
        g = read_graph(path, format=args.format, directed=args.directed, header=args.header, weight=weight)
    g.path = name
    description = f"{name} ({g.format_title}{'; ' + remark if remark else ''})"
    say(f"graph       {description}")
    for note in g.notes:
        say(f"note        {note}")
    if g.n == 0:
        raise UsageError(f"{name}: the graph is empty (no vertices)")
    return g, name, description
