"""The entry point of :mod:`spla.io`: :func:`read_graph` opens a graph file and hands its
content to the reader of its format.

The file is opened, decompressed and its format told by :mod:`spla.io.files`; Matrix Market
files are read by :mod:`spla.io.mtx`, METIS files by :mod:`spla.io.metis`, DIMACS shortest-path
files by :mod:`spla.io.dimacs`, GML files by :mod:`spla.io.gml` (with networkx), edge lists by
:mod:`spla.io.edgelist` (a named weight column through :mod:`spla.io.columns`).  ``directed`` and
``weight`` are checked before the file is opened.
"""

from __future__ import annotations

import numpy as np

from .columns import select_weight_column
from .dimacs import read_dimacs
from .edgelist import read_edgelist
from .files import load
from .gml import read_gml
from .graphdata import GraphData, GraphFormatError
from .metis import read_metis
from .mtx import read_mtx


def check_directed(directed) -> None:
    """Raise TypeError unless ``directed`` is None, True or False (a NumPy bool too)."""
    if directed is not None and not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be None, True or False, got {directed!r}")


def check_weight(weight) -> None:
    """Raise TypeError unless ``weight`` is None or a non-empty str (a column or attribute name)."""
    if weight is not None and (not isinstance(weight, str) or not weight):
        raise TypeError(f"weight must be None or the name of a weight column/attribute, got {weight!r}")


def read_graph(path, format=None, directed=None, *, header=None, weight=None) -> GraphData:
    """Read a graph file (Matrix Market, edge list, METIS, DIMACS shortest-path or GML; optionally
    compressed).

    Parameters
    ----------
    path : str or os.PathLike, or a binary stream (``sys.stdin.buffer``, ``open(name, "rb")``),
        read to its end; messages name a stream by its ``name`` ("<stdin>")
    format : None, "mtx", "edgelist", "metis", "dimacs" or "gml" (aliases: "mm", "csv", "tsv", "txt",
        "edges", "snap", "konect", "graph", "gr")
        None: decided from the extension (after .gz/.bz2/.xz), or a %%MatrixMarket banner
        (a stream has no extension: give the format unless it is Matrix Market).
    directed : None, True or False
        None: as the format says (Matrix Market 'symmetric' and METIS are undirected,
        'general' is directed, an edge list is directed).  True on a symmetric Matrix
        Market file gives both arcs of every stored entry; False on directed input makes
        every arc an undirected edge.
    header : None, True or False
        Edge lists only: whether the first data row is a header (None: detect).
    weight : None or str
        Which weights to read.  None: those the format gives (Matrix Market values, METIS edge
        weights, DIMACS arc lengths, an edge list's numeric 3rd field, GML's ``weight`` attribute,
        else its ``value``).  A str names an edge list's header column (the first row is then the
        header) or a GML edge attribute; Matrix Market, METIS and DIMACS files have one weight per
        arc and no names.  Parallel arcs are kept as listed: :meth:`GraphData.to_matrix` merges
        them (``dup="min"`` for path lengths).

    Returns
    -------
    GraphData

    Raises
    ------
    GraphFormatError
        Naming the file (and line) and what was expected.
    GraphTooLarge
        A GraphFormatError and a :class:`spla.InsufficientMemory`: the Matrix Market size line or
        METIS header announces more vertices or entries than host memory holds (checked before
        anything is allocated for them); the message names the sizes, the bytes needed and available.
    """
    return read_graph_with(path, format, directed, header, weight=weight)


def read_graph_with(path, format, directed, header, *, weight=None, **edgelist_options) -> GraphData:
    """:func:`read_graph`, with ``edgelist_options`` passed to the edge-list reader (its ``read_csv``
    and ``compact`` steps: the test references swap in their per-line readers)."""
    check_directed(directed)
    check_weight(weight)
    raw, path, fmt = load(path, format)
    if weight is not None and fmt in ("mtx", "metis", "dimacs"):
        title = {"mtx": "Matrix Market", "metis": "METIS", "dimacs": "DIMACS"}[fmt]
        raise GraphFormatError(f"{path}: a {title} file has one weight per arc and no weight names, so weight "
                               f"{weight!r} names nothing; leave the name out to read its weights")
    if fmt == "mtx":
        return read_mtx(raw, path, directed)
    if fmt == "metis":
        return read_metis(raw, path, directed)
    if fmt == "dimacs":
        return read_dimacs(raw, path, directed)
    if fmt == "gml":
        return read_gml(raw, path, directed, weight)
    if weight is None:
        return read_edgelist(raw, path, directed, header, **edgelist_options)
    if header is False:
        raise GraphFormatError(f"{path}: the weight column {weight!r} is named by the header row, but the file "
                               "is read without one (--no-header)")
    g = read_edgelist(select_weight_column(raw, path, weight), path, directed, True, **edgelist_options)
    if g.weights is None and g.src.size:
        raise GraphFormatError(f"{path}: column {weight!r} holds no numbers (its first row's is not one); "
                               "name a numeric column")
    g.notes.append(f"edge weights from the column {weight!r}")
    return g
