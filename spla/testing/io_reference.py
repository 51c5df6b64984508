"""The per-line reference of :mod:`spla.io`'s edge-list reader, for tests.

:func:`read_graph_reference` reads a graph file as :func:`spla.io.read_graph` does, except that
an edge list's rows that need CSV or shell-style splitting are always read line by line with the
:mod:`csv` and :mod:`shlex` modules (:func:`spla.io.edgelist_csv.read_edgelist_csv_per_line`), and
string labels are always numbered by ``np.unique`` of their bytes
(:func:`spla.io.labels.compact_strings_by_unique`).  The vectorised readers must give the same
:class:`~spla.io.GraphData`, field by field, or the same error message.
"""

from __future__ import annotations

from ..io.edgelist_csv import read_edgelist_csv_per_line
from ..io.graphdata import GraphData
from ..io.labels import compact_strings_by_unique
from ..io.reader import read_graph_with

__all__ = ["read_graph_reference"]


def read_graph_reference(path, format=None, directed=None, *, header=None) -> GraphData:
    """:func:`spla.io.read_graph` with the per-line edge-list readers (same arguments)."""
    return read_graph_with(path, format, directed, header, read_csv=read_edgelist_csv_per_line,
                           compact=compact_strings_by_unique)
