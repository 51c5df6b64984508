"""The backend's graph: a networkx graph converted once into spla matrices, and back.

:class:`SplaGraph` keeps what the backend's functions need of a networkx graph G:

* ``nodes`` (``list(G)``) and ``index`` (node -> position): matrix row i is node ``nodes[i]``;
* the arcs in G's adjacency order, ``src[p] -> dst[p]`` (an undirected edge is two arcs, a
  self-loop one; a multigraph's parallel edges one arc, with ``mult[p]`` edges, their ``keys[p]``
  and, per kept attribute, their own values ``key_attrs[p]``): ``G.edges()`` is the arcs with index(dst) >= index(src) for an undirected graph,
  every arc for a directed one, in this order, which keys edge results as networkx keys them;
* ``weights``: per requested edge attribute, its value on every arc (summed over parallel edges,
  missing = the attribute's default), as networkx's ``to_scipy_sparse_array`` reads it (PageRank);
* ``lengths``: per requested edge attribute, the arc's length for shortest paths: the minimum over
  parallel edges (missing = the default, 1 as networkx passes it), as networkx's weighted
  shortest-path functions read a multigraph (``_weight_function``: min over the edges of a pair);
* matrices built from these on ``nx.config.backends.spla.device``: the pattern (built at
  conversion), per attribute a summed-weight and a length matrix, and the multigraph's edge counts
  (built on first use), each moved when the configured device changes.

networkx keeps the converted graph in ``G.__networkx_cache__`` and drops it when G changes through
its methods, so a second call on an unchanged G does not convert again.
"""

from __future__ import annotations

import numpy as np

import spla

__all__ = ["SplaGraph", "convert_from_nx", "convert_to_nx", "configured_device"]


def configured_device() -> str:
    """``nx.config.backends.spla.device`` resolved ("cpu" or "gpu:N"); "auto" when networkx has no
    spla config (the backend's info was not read, e.g. spla is not installed as a distribution)."""
    import networkx as nx

    cfg = nx.config.backends.get("spla") if hasattr(nx.config.backends, "get") else None
    return spla.device.resolve(getattr(cfg, "device", "auto") if cfg is not None else "auto")


class SplaGraph:
    """A networkx graph as the spla backend holds it (see the module docstring)."""

    __networkx_backend__ = "spla"

    def __init__(self, nodes, directed, multigraph, src, dst, *, mult=None, keys=None, key_attrs=None, weights=None,
                 lengths=None, graph=None):
        self.nodes = nodes
        self.index = {v: i for i, v in enumerate(nodes)}
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.src = src
        self.dst = dst
        self.mult = mult
        self.keys = keys
        self.key_attrs = key_attrs
        self.weights = dict(weights or {})
        self.lengths = dict(weights or {}) if lengths is None else dict(lengths)
        self.graph = dict(graph or {})
        self._matrices = {}
        self.__networkx_cache__ = {}

    # ------------------------------------------------------------------ networkx-like basics
    def __len__(self):
        return len(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:
            return False

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def edge_arcs(self) -> np.ndarray:
        """Positions of the arcs that are G.edges(), in its order."""
        return np.arange(self.src.shape[0]) if self.directed else np.flatnonzero(self.dst >= self.src)

    # ------------------------------------------------------------------ matrices
    def matrix(self, kind="pattern", device=None) -> spla.Matrix:
        """The graph as a spla.Matrix on ``device`` (default: the configured one).

        kind: "pattern" (unweighted, parallel edges merged), "counts" (a multigraph's parallel edges
        per entry; the pattern for other graphs), ("weight", attr) (the summed weights) or
        ("length", attr) (the shortest parallel edge's weight: arc lengths for shortest paths)."""
        device = configured_device() if device is None else spla.device.resolve(device)
        key = (kind, device)
        M = self._matrices.get(key)
        if M is None:
            built = next((m for (k, _), m in self._matrices.items() if k == kind), None)
            M = built.to(device) if built is not None else self._build(kind, device)
            self._matrices[key] = M
        return M

    def _build(self, kind, device):
        if kind == "counts" and self.mult is None:
            return self.matrix("pattern", device)
        if kind == "pattern":
            values = None
        elif kind == "counts":
            values = self.mult
        else:
            table = self.weights if kind[0] == "weight" else self.lengths
            if kind[1] not in table:
                # a graph converted for another call; networkx runs this one itself
                raise NotImplementedError(f"the graph was converted without its edge attribute {kind[1]!r}")
            values = table[kind[1]]
        arcs = self.edge_arcs
        # an undirected graph's edges once each: from_edges adds each one's reverse arc
        return spla.Matrix.from_edges(self.src[arcs], self.dst[arcs], n=self.n,
                                      values=None if values is None else values[arcs],
                                      directed=self.directed, device=device,
                                      dup="min" if kind[0] == "length" else "plus")

    def path_lengths(self, attr) -> spla.Matrix:
        """The matrix of arc lengths by edge attribute ``attr`` (see :meth:`matrix`), for the weighted
        shortest-path functions.  NotImplementedError (networkx then runs the call, or says why with
        ``backend="spla"``) when an attribute is missing from the conversion or a length is negative,
        NaN or infinite: spla's searches refuse those, networkx's Dijkstra runs on them."""
        values = self.lengths.get(attr)
        if values is not None and values.dtype.kind == "f":
            bad = ~(np.isfinite(values) & (values >= 0))
        else:
            bad = None if values is None else values < 0
        if bad is not None and bad.any():
            p = int(np.argmax(bad))
            raise NotImplementedError(
                f"edge attribute {attr!r} is {values[p].item()!r} on the edge ({self.nodes[self.src[p]]!r}, "
                f"{self.nodes[self.dst[p]]!r}): spla's shortest paths take non-negative finite lengths only; networkx "
                "runs this call")
        return self.matrix(("length", attr))

    def integer_lengths(self, attr) -> bool:
        """Whether attribute ``attr``'s lengths are all integers (networkx's distances are then ints)."""
        values = self.lengths.get(attr)
        return values is not None and values.dtype.kind in "iu"

    def __repr__(self):
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"SplaGraph({kind}, {self.n} nodes, {self.edge_arcs.shape[0]} edges)"


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """networkx graph -> :class:`SplaGraph` (the backend interface's ``convert_from_nx``).

    ``edge_attrs``: {attribute: default} of the edge weights to keep (networkx passes the function's
    weight attribute).  Node attributes are not kept: no implemented function reads them.
    ``preserve_edge_attrs=True`` (every attribute, for a callable weight) raises NotImplementedError,
    which makes networkx run the call itself.
    """
    if preserve_edge_attrs is True:
        raise NotImplementedError("spla keeps named numeric edge attributes only, not all of them")
    nodes = list(G)
    index = {v: i for i, v in enumerate(nodes)}
    adj = G._adj
    deg = np.fromiter((len(nbrs) for nbrs in adj.values()), dtype=np.int64, count=len(nodes))
    total = int(deg.sum())
    src = np.repeat(np.arange(len(nodes), dtype=np.int64), deg)
    dst = np.fromiter((index[v] for nbrs in adj.values() for v in nbrs), dtype=np.int64, count=total)
    multi = G.is_multigraph()
    mult = keys = key_attrs = None
    edge_attrs = dict(edge_attrs or {})
    if multi:
        mult = np.fromiter((len(kd) for nbrs in adj.values() for kd in nbrs.values()), dtype=np.int64, count=total)
        keys = [list(kd) for nbrs in adj.values() for kd in nbrs.values()]
        if edge_attrs:
            key_attrs = [[{a: d.get(a, df) for a, df in edge_attrs.items()} for d in kd.values()]
                         for nbrs in adj.values() for kd in nbrs.values()]
    weights, lengths = {}, {}
    for attr, default in edge_attrs.items():
        if multi:  # parallel edges add up, as in networkx's to_scipy_sparse_array; paths take the shortest
            per_arc = [[d[attr] for d in per_key] for per_key in key_attrs]
            weights[attr] = _numeric([sum(x) for x in per_arc], attr)
            lengths[attr] = _numeric([min(x) for x in per_arc], attr)
        else:
            weights[attr] = lengths[attr] = _numeric([d.get(attr, default) for nbrs in adj.values()
                                                      for d in nbrs.values()], attr)
    Gs = SplaGraph(nodes, G.is_directed(), multi, src, dst, mult=mult, keys=keys, key_attrs=key_attrs,
                   weights=weights, lengths=lengths, graph=G.graph if preserve_graph_attrs else None)
    Gs.matrix("pattern")  # built here, on the configured device: the conversion is what the cache keeps
    for attr in weights:  # PageRank sums parallel edges, the shortest-path functions take the shortest
        Gs.matrix(("weight" if name == "pagerank" else "length", attr))
    return Gs


def _numeric(values, attr) -> np.ndarray:
    """Edge weights as a float64 or int64 array, or TypeError naming the attribute."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        try:
            arr = np.asarray([float(v) for v in values], dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"edge attribute {attr!r} holds values that are not real numbers") from None
    return arr.astype(np.int64 if arr.dtype.kind in "bi" else np.float64)


def convert_to_nx(obj, *, name=None):
    """Backend result -> networkx (the backend interface's ``convert_to_nx``).

    A :class:`SplaGraph` becomes the networkx graph it holds (nodes, edges with their keys and kept
    weights, graph attributes); anything else (the functions' dicts, numbers, generators) is
    returned as it is: those are networkx's types already.
    """
    if not isinstance(obj, SplaGraph):
        return obj
    import networkx as nx

    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
           (True, True): nx.MultiDiGraph}[(obj.directed, obj.multigraph)]
    G = cls()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    nodes = obj.nodes
    for p in obj.edge_arcs.tolist():
        u, v = nodes[obj.src[p]], nodes[obj.dst[p]]
        attrs = {attr: vals[p].item() for attr, vals in obj.weights.items()}
        if obj.multigraph:
            for j, key in enumerate(obj.keys[p]):
                G.add_edge(u, v, key=key, **(obj.key_attrs[p][j] if obj.key_attrs is not None else {}))
        else:
            G.add_edge(u, v, **attrs)
    return G
