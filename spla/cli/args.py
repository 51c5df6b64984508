"""The argument parser of the ``spla`` command (``spla centrality``, ``spla info``)."""

from __future__ import annotations

import argparse
import re

import spla

from .cluster import gpus_option
from .errors import UsageError
from .measures import MEASURES

__all__ = ["build_parser", "KERNEL_CHOICES"]

#: the values of --kernel: the engine's kernels, or auto
KERNEL_CHOICES = ("auto", *spla.KERNELS)


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
                   help="graph file: Matrix Market (.mtx), METIS (.graph), DIMACS shortest-path (.gr), GML (.gml), "
                        "or an edge list (.txt, .csv, .tsv, .edges, ...), optionally .gz/.bz2/.xz; '-' reads stdin (give --format unless it is "
                        "Matrix Market); default: the bundled US power grid")
    p.add_argument("--format", choices=("mtx", "edgelist", "metis", "dimacs", "gml"), default=None,
                   help="file format (default: from the extension, or a %%%%MatrixMarket banner); dimacs is the "
                        "DIMACS shortest-path format (.gr), gml needs networkx")
    p.add_argument("--weight", nargs="?", const=True, default=None, metavar="NAME",
                   help="read the edge weights as arc lengths: bc, closeness, harmonic and distance-sum run on "
                        "weighted shortest paths (parallel arcs keep their shortest); NAME picks an edge list's "
                        "header column or a GML edge attribute (default: the file's weights: Matrix Market "
                        "values, METIS edge weights, DIMACS lengths, an edge list's 3rd field, GML 'weight' "
                        "or 'value')")
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
    parser = _Parser(prog="spla", description="Graph centralities with GraphBLAS-style sparse linear algebra, "
                                              "on the GPU or the CPU.")
    parser.add_argument("--version", action="version", version=f"spla {spla.__version__}")
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
    c.add_argument("--kernel", type=_kernel, default="auto", metavar="{" + ",".join(KERNEL_CHOICES) + "}",
                   help="GPU product kernel (default auto: chosen from the scale-free metric, and push or pull per BFS level)")
    c.add_argument("--out", default=None, metavar="FILE",
                   help="write the table here: .csv, .tsv/.tab/.txt (tab-separated), .gz compresses them; .parquet "
                        "(pip install \"spla[parquet]\"); - is stdout (default: stdout, unless it is a terminal)")
    c.add_argument("--top", type=int, default=10, metavar="N", help="top-N table per measure on stderr "
                                                                     "(default 10, 0: none)")
    c.add_argument("--correlations", action="store_true",
                   help="print the Spearman and Pearson correlation matrices of the measures")
    c.add_argument("--quiet", "-q", action="store_true", help="no report or progress bar on stderr")
    d = c.add_mutually_exclusive_group()
    d.add_argument("--gpus", type=gpus_option, default=None, metavar="N|all",
                   help="run bc, closeness, harmonic and distance-sum on a Dask cluster of one worker per GPU of "
                        "this host, the first N or all (pip install \"spla[dask-cuda]\")")
    d.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run bc, closeness, harmonic and distance-sum on the workers of the Dask scheduler at "
                        "ADDRESS, e.g. tcp://host:8786 (pip install \"spla[dask]\"; docs/scaling.md)")

    i = sub.add_parser("info", help="size, degrees, kernel choice, BFS depth and memory needs of a graph",
                       description="Describe a graph: size, directedness, self-loops, degrees, scale-free "
                                   "metric and kernel, BFS depth and the device memory each measure needs.")
    _add_graph_options(i)
    return parser
