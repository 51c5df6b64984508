"""Reading GML files (``.gml``) with networkx's parser (``networkx.parse_gml``).

networkx is not a dependency of spla: reading GML needs it installed (``pip install networkx``).

* Directed when the graph says ``directed 1``.  Parallel edges are kept as listed, each one an arc
  (a file that lists a pair twice without declaring ``multigraph 1``, as Mark Newman's
  ``celegansneural.gml`` does, is read as the multigraph it is); the matrix merges them
  (:meth:`GraphData.to_matrix`'s ``dup``: ``"min"`` for path lengths).
* Labels: the nodes' ``label`` attributes when every node has one and no two are equal, else their
  ``id``\\ s; vertices are numbered in the file's node order.
* Weights: the edge attribute ``weight`` names (:func:`read_gml`), else ``weight`` when the edges
  have one, else ``value`` (Newman's files), else none.  Every edge must carry the attribute, a
  real number.  Edges come in networkx's order (by source node, then as listed), which is the
  order ``dup="first"``/``"last"`` follow.
"""

from __future__ import annotations

import numbers
import re

import numpy as np

from .graphdata import GraphData, GraphFormatError, self_loop_count

_MULTIGRAPH = re.compile(rb"^\s*multigraph\s", re.MULTILINE)
_GRAPH_OPEN = re.compile(rb"\bgraph\s*\[")


def _networkx(path):
    try:
        import networkx as nx
    except ImportError:
        raise GraphFormatError(f"{path}: reading GML needs networkx, which is not installed: pip install networkx "
                               f"(or convert the file to an edge list)") from None
    return nx


def read_gml(raw: bytes, path, directed, weight=None) -> GraphData:
    nx = _networkx(path)
    notes = []
    if _MULTIGRAPH.search(raw) is None:
        at = _GRAPH_OPEN.search(raw)
        if at is not None:  # parallel edges are kept whether or not the file declares them
            raw = raw[:at.end()] + b" multigraph 1 " + raw[at.end():]
    try:
        G = nx.parse_gml(raw.decode("utf-8", "replace").splitlines(), label="id")
    except nx.NetworkXError as e:
        raise GraphFormatError(f"{path}: malformed GML: {' '.join(str(e).split())}") from None
    nodes = list(G)
    index = {v: i for i, v in enumerate(nodes)}
    attrs = [G.nodes[v].get("label") for v in nodes]
    if nodes and all(a is not None for a in attrs) and len(set(map(str, attrs))) == len(attrs):
        labels = np.array([str(a) for a in attrs], dtype=str)
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in nodes):
        labels = np.array(nodes, dtype=np.int64)
    else:
        labels = np.array([str(v) for v in nodes], dtype=str)
    edges = list(G.edges(data=True))
    src = np.array([index[a] for a, _, _ in edges], dtype=np.int64)
    dst = np.array([index[b] for _, b, _ in edges], dtype=np.int64)
    name = weight
    if name is None:
        name = next((k for k in ("weight", "value") if any(k in d for _, _, d in edges)), None)
        if name is not None:
            notes.append(f"edge weights from the GML attribute {name!r}")
    w = None
    if name is not None:
        w = np.empty(len(edges), dtype=np.float64)
        for i, (a, b, d) in enumerate(edges):
            x = d.get(name)
            arrow = "->" if G.is_directed() else "--"
            if x is None:
                have = sorted({k for _, _, e in edges for k in e})
                raise GraphFormatError(f"{path}: edge {a!r} {arrow} {b!r} has no {name!r} attribute (the edges "
                                       f"have: {', '.join(have) or 'no attributes'})")
            if isinstance(x, (bool, str)) or not isinstance(x, numbers.Real):
                raise GraphFormatError(f"{path}: edge {a!r} {arrow} {b!r} has {name}={x!r}, not a number")
            w[i] = float(x)
    if directed is None:
        is_directed = G.is_directed()
        reason = f"GML 'directed {int(is_directed)}'"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed}); the file says 'directed {int(G.is_directed())}'"
    return GraphData(src, dst, w, len(nodes), labels, is_directed, reason, self_loop_count(src, dst), str(path),
                     "gml", lines=None, notes=notes)
