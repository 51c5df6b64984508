"""The entry point of :mod:`spla.io`: :func:`read_graph` opens a graph file and hands its
content to the reader of its format.

The file is opened, decompressed and its format told by :mod:`spla.io.files`; Matrix Market
files are read by :mod:`spla.io.mtx`, METIS files by :mod:`spla.io.metis`, edge lists by
:mod:`spla.io.edgelist`.  ``directed`` is checked before the file is opened.
"""

from __future__ import annotations

import numpy as np

from .edgelist import read_edgelist
from .files import load
from .graphdata import GraphData
from .metis import read_metis
from .mtx import read_mtx


def check_directed(directed) -> None:
    """Raise TypeError unless ``directed`` is None, True or False (a NumPy bool too)."""
    if directed is not None and not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be None, True or False, got {directed!r}")


def read_graph(path, format=None, directed=None, *, header=None) -> GraphData:
    """Read a graph file (Matrix Market, edge list or METIS; optionally compressed).

    Parameters
    ----------
    path : str or os.PathLike, or a binary stream (``sys.stdin.buffer``, ``open(name, "rb")``),
        read to its end; messages name a stream by its ``name`` ("<stdin>")
    format : None, "mtx", "edgelist" or "metis" (aliases: "mm", "csv", "tsv", "txt",
        "edges", "snap", "konect", "graph")
        None: decided from the extension (after .gz/.bz2/.xz), or a %%MatrixMarket banner
        (a stream has no extension: give the format unless it is Matrix Market).
    directed : None, True or False
        None: as the format says (Matrix Market 'symmetric' and METIS are undirected,
        'general' is directed, an edge list is directed).  True on a symmetric Matrix
        Market file gives both arcs of every stored entry; False on directed input makes
        every arc an undirected edge.
    header : None, True or False
        Edge lists only: whether the first data row is a header (None: detect).

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
    return read_graph_with(path, format, directed, header)


def read_graph_with(path, format, directed, header, **edgelist_options) -> GraphData:
    """:func:`read_graph`, with ``edgelist_options`` passed to the edge-list reader (its ``read_csv``
    and ``compact`` steps: the test references swap in their per-line readers)."""
    check_directed(directed)
    raw, path, fmt = load(path, format)
    if fmt == "mtx":
        return read_mtx(raw, path, directed)
    if fmt == "metis":
        return read_metis(raw, path, directed)
    return read_edgelist(raw, path, directed, header, **edgelist_options)
