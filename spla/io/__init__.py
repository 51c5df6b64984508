"""Reading graph files as people have them: Matrix Market, edge lists, METIS, DIMACS, GML.

    >>> from spla.io import read_graph
    >>> g = read_graph("ca-GrQc.txt.gz", directed=False)
    >>> g.n, g.src.size, g.directed, g.directed_reason
    >>> A = g.to_matrix(drop_self_loops=True)          # a spla.Matrix

``read_graph`` returns a :class:`GraphData`: the arcs as compact 0-based vertex ids
(``src``, ``dst``, optional ``weights``), the original vertex ``labels`` in compact-id
order, and the directedness decision with its reason.

Formats (chosen from the extension after stripping ``.gz``/``.bz2``/``.xz``, else by
sniffing a ``%%MatrixMarket`` banner; compression is detected from the file's magic
bytes, whatever its name):

* **Matrix Market** (``.mtx``): ``coordinate`` with ``pattern``/``integer``/``real``
  values and ``general`` (directed) or ``symmetric`` (undirected) symmetry.  Entry
  ``i j`` is the arc i -> j.  Labels are 1..n.
* **Edge lists** (``.txt .tsv .csv .edges .el .edgelist .dat``), as SNAP, KONECT and CSV
  exports have them: fields separated by whitespace, tabs or commas; ``#`` and ``%``
  start comments (whole lines or the rest of a line); CRLF or CR line ends; an optional header
  row; an optional numeric weight in the 3rd field, on every row or on none (a non-numeric
  3rd field, such as the ``{}`` networkx writes, is ignored, as are 4th and later fields).
  Vertex labels are arbitrary: when every label is an integer of at most 18 digits written
  plainly (``7``, not ``7.0``, ``007`` or ``+7``) they are compacted in
  increasing numeric order, otherwise they are strings compacted in order of first
  appearance (reading the file row by row, source before target), so that ``007`` and
  ``7`` are two vertices.  CSV fields in double
  quotes (``"New York",Boston``) are parsed with the :mod:`csv` module.  A header row is
  recognised when its first two fields are not integers but the following rows' are,
  or, for string labels, when the fields are column names such as ``source,target``,
  ``from,to``, ``id_1,id_2`` or ``node_1,node_2`` that are not vertex labels further down
  (``u v`` followed by ``v w`` is an edge); pass ``header=True``/``False`` to
  decide yourself.  An edge list is directed unless ``directed=False``.
* **DIMACS shortest-path** (``.gr``, the 9th DIMACS Challenge's road networks): ``c``
  comments, one problem line ``p sp n m``, then ``a u v w`` per arc (1-based, directed, length
  w); the file must hold the m arcs it declares.  Labels are 1..n.
* **GML** (``.gml``), read with networkx's parser when networkx is installed: labels from the
  nodes' ``label`` (else their ``id``), parallel edges kept, weights from an edge attribute
  (``weight=`` names it; default ``weight``, else ``value``).
* **METIS** (``.graph .metis``): first line ``n m [fmt [ncon]]``; line i+1 lists the
  1-based neighbours of vertex i (an empty line is an isolated vertex); ``%`` lines are
  comments.  All of fmt's digits are supported: vertex sizes and the ncon vertex weights
  are skipped, edge weights (fmt ``1``, ``11``, ``101``, ``111``) are kept (both lines of
  an edge must give the same weight).  Undirected.

Reading is vectorised: the whole (decompressed) file is tokenised with NumPy byte
operations, and numbers are parsed in one ``numpy.fromstring`` call over the data
region.  Quoted fields (CSV or whitespace-separated) are split with NumPy too; only error
reporting and rare fallbacks (malformed quoting, Unicode spaces around fields) loop in
Python, with the ``csv`` and ``shlex`` modules.

Graph files are text (ASCII or UTF-8, with or without a byte order mark); a NUL byte, as in
UTF-16 text or binary data, is refused.  A string label's bytes that are not UTF-8 (a Latin-1
export) are decoded with ``surrogateescape``: each byte string stays its own vertex, and
``label.encode("utf-8", "surrogateescape")`` gives the file's bytes back.

Errors are :class:`GraphFormatError` (a ``ValueError``) whose message names the file and,
where one is to blame, the line: ``graph.mtx:7: expected 3 fields 'row column value' for
a 'real' matrix, found 2: '3 4'``.  A Matrix Market size line or a METIS header announcing
more vertices or entries than host memory holds is refused right after it is read, before
anything is allocated for them, with :class:`GraphTooLarge` (a GraphFormatError and a
:class:`spla.InsufficientMemory`, a ``MemoryError``) naming the sizes, the bytes needed and
the bytes available.  Edge-list ids allocate nothing by their value: they are compacted, so
an id of 3000000000 is as cheap as 3.  NaN and infinite weights are read as they are;
:func:`check_weights` tells whether a measure can use them.

Weights as users have them: ``read_graph(path, weight="distance")`` reads an edge list's header
column ``distance`` (or a GML edge attribute) as the weights.  Parallel arcs (a pair listed more
than once, an undirected edge listed both ways) are kept as listed in the :class:`GraphData`;
:meth:`GraphData.to_matrix` merges them with ``dup`` (:mod:`spla.merge`): the default ``"last"``
keeps the last listed weight, ``dup="min"`` each pair's shortest arc, the matrix the weighted
shortest-path measures want (networkx's shortest paths take the minimum over a multigraph's
parallel edges too); :meth:`GraphData.parallel_arcs` counts the pairs merged.

Modules: :mod:`~spla.io.reader` (:func:`read_graph`), :mod:`~spla.io.files` (opening,
decompressing, telling the format), :mod:`~spla.io.mtx`, :mod:`~spla.io.metis`,
:mod:`~spla.io.dimacs`, :mod:`~spla.io.gml`, :mod:`~spla.io.edgelist` and
:mod:`~spla.io.edgelist_csv` (the formats), :mod:`~spla.io.columns` (a named weight column),
:mod:`~spla.io.headers` (header rows), :mod:`~spla.io.tokens` and :mod:`~spla.io.fields`
(tokenising and splitting lines), :mod:`~spla.io.labels` (vertex labels to ids),
:mod:`~spla.io.graphdata` (the result and the errors).
"""

from . import files
from .files import FORMATS, detect_format
from .graphdata import GraphData, GraphFormatError, GraphTooLarge, check_weights
from .reader import read_graph

#: The supported formats and extensions in words, as messages list them.
SUPPORTED = files.SUPPORTED

__all__ = ["GraphData", "GraphFormatError", "GraphTooLarge", "read_graph", "check_weights", "detect_format", "FORMATS"]
