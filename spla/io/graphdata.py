"""What reading a graph file gives: a :class:`GraphData`, or a :class:`GraphFormatError`.

Every reader of :mod:`spla.io` returns a GraphData: the arcs as compact 0-based vertex ids
(``src``, ``dst``, optional ``weights``), the file's vertex ``labels`` in compact-id order, and the
directedness decision with its reason.  Weights are kept as read, NaN and infinities included;
:func:`check_weights` tells whether a measure can use them.  A file that cannot be read as asked
raises a GraphFormatError whose message names the file and, where one is to blame, the line.  A
file whose header or size line announces more vertices or entries than host memory holds raises
:class:`GraphTooLarge` (a GraphFormatError and a :class:`spla.InsufficientMemory`) before the reader
allocates anything for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import memory
from ..errors import InsufficientMemory, SplaError


class GraphFormatError(SplaError, ValueError):
    """A graph file that cannot be read as asked: missing, malformed, or of an unknown format."""


class GraphTooLarge(GraphFormatError, InsufficientMemory):
    """A graph file whose header announces sizes that need more host memory than is available: refused
    before reading them (:func:`require_memory`), naming the file, the line, the sizes, the bytes needed
    and available."""


def require_memory(nbytes: int, what: str, remedy: str) -> None:
    """Refuse (GraphTooLarge) a file whose announced sizes make its reader allocate ``nbytes`` of host
    memory, more than is available; ``what`` is "file:line: the size line declares ...; reading them"."""
    memory.require(nbytes, "cpu", what=what, remedy=remedy, error=GraphTooLarge)


def too_large(nbytes: int, what: str, remedy: str) -> GraphTooLarge:
    """The GraphTooLarge of :func:`require_memory` for an allocation that failed where the available
    memory is unknown."""
    return memory.insufficient(nbytes, "cpu", what=what, remedy=remedy, error=GraphTooLarge)


def numbered_labels(n: int, nbytes: int, what: str, remedy: str) -> np.ndarray:
    """The labels 1..n (int64) of a file that numbers its n vertices, after refusing (GraphTooLarge) a
    header whose sizes make its reader allocate ``nbytes`` of host memory, more than is available."""
    require_memory(nbytes, what, remedy)
    try:
        return np.arange(1, n + 1, dtype=np.int64)
    except (MemoryError, ValueError):
        raise too_large(nbytes, what, remedy) from None


_FORMAT_TITLE = {"mtx": "Matrix Market", "edgelist": "edge list", "metis": "METIS", "dimacs": "DIMACS shortest-path",
                 "gml": "GML"}


@dataclass
class GraphData:
    """A graph as read from a file.

    Attributes
    ----------
    src, dst : int64 arrays (m,)
        Arc ``e`` goes from ``src[e]`` to ``dst[e]``; ids are compact, 0..n-1.  For an
        undirected graph each stored pair is one edge, in whatever orientation and
        multiplicity the file had (METIS and "both directions" edge lists list each edge
        twice); :meth:`edges` returns the canonical edge set.
    weights : float64 array (m,) or None
        Weights as read (NaN/inf kept: see :func:`check_weights`); None when unweighted.
    n : int
        Number of vertices (for Matrix Market and METIS the declared size, so isolated
        vertices count; for edge lists the number of distinct labels).
    labels : array (n,)
        The file's vertex label of each compact id: int64 1..n for Matrix Market, METIS and
        DIMACS, the integer labels in increasing order or the string labels in order of first
        appearance for edge lists (bytes that are not UTF-8 decoded with ``surrogateescape``),
        the nodes' ``label`` strings (else their ids) in node order for GML.
    directed : bool
        The decision made, and ``directed_reason`` says why.
    self_loops : int
        Number of distinct vertices with a self-loop.
    path, format : str
        The file and its format ("mtx", "edgelist", "metis", "dimacs" or "gml").
    lines : int64 array (m,) or None
        The 1-based file line of each arc, for messages such as :func:`check_weights`' (None for
        GML, whose parser gives no lines).
    notes : list of str
        Things the reader decided that a user may want to know (header skipped, a
        non-numeric column ignored, ...).
    """

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    n: int
    labels: np.ndarray
    directed: bool
    directed_reason: str
    self_loops: int
    path: str
    format: str
    lines: np.ndarray | None = None
    notes: list = field(default_factory=list)

    @property
    def format_title(self) -> str:
        """Human name of the format ("Matrix Market", "edge list", "METIS")."""
        return _FORMAT_TITLE.get(self.format, self.format)

    def edges(self, drop_self_loops: bool = False, weighted: bool = True):
        """The canonical edge set: ``(src, dst, weights or None)`` without duplicates.

        Undirected graphs give each edge once, as (min, max).  When a pair occurs more
        than once its last weight wins (as adding the edges one by one to a networkx
        Graph does).  ``weighted=False`` drops the weights.
        """
        src, dst = self.src, self.dst
        w = self.weights if weighted else None
        if drop_self_loops:
            keep = src != dst
            if not keep.all():
                src, dst = src[keep], dst[keep]
                w = None if w is None else w[keep]
        if not self.directed:
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
        n = max(int(self.n), 1)
        key = pair_keys(src, dst, n)
        if w is None:
            return (*split_pair_keys(np.unique(key), n), None)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        last = np.empty(ks.size, dtype=bool)
        last[:-1] = ks[1:] != ks[:-1]
        last[-1:] = True
        sel = order[last]
        return src[sel], dst[sel], w[sel]

    def to_matrix(self, device="auto", drop_self_loops: bool = False, weighted: bool = True, *, dup="last"):
        """A :class:`spla.Matrix` of this graph (n x n, arc i -> j is entry (i, j)).

        A pair's listings (parallel arcs, and an undirected edge listed in both directions) become
        one entry, their weights merged with ``dup`` (:mod:`spla.merge`): ``"last"`` (the default:
        the last listed wins, see :meth:`edges`, as adding the edges one by one to a networkx
        Graph does), ``"min"`` (the shortest arc: what the weighted path measures want, and what
        networkx's shortest paths use on a multigraph), ``"max"``, ``"first"`` or ``"plus"``
        (summed, as networkx's ``to_scipy_sparse_array`` of a multigraph).  ``weighted=False``
        (or an unweighted file) gives a pattern-only matrix.
        """
        from ..matrix import Matrix
        from ..merge import check_dup

        check_dup(dup)
        if dup == "last" or not weighted or self.weights is None:
            src, dst, w = self.edges(drop_self_loops=drop_self_loops, weighted=weighted)
        else:
            src, dst, w = self.src, self.dst, self.weights
            if drop_self_loops:
                keep = src != dst
                src, dst, w = src[keep], dst[keep], w[keep]
        return Matrix.from_edges(src, dst, n=self.n, values=w, directed=self.directed, device=device, dup=dup)

    def parallel_arcs(self):
        """``(pairs, differing)``: the number of vertex pairs (self-loops aside) whose arcs the matrix
        merges, and how many of them had different weights (0 when unweighted).

        A directed pair (u, v) counts when it is listed more than once; an undirected pair {u, v}
        when one of its directions is listed more than once, or its listings' weights differ (an
        edge listed once each way, as METIS lists every edge, is one edge, not two)."""
        keep = self.src != self.dst
        src, dst = self.src[keep], self.dst[keep]
        w = None if self.weights is None else self.weights[keep]
        if src.size == 0:
            return 0, 0
        n = max(int(self.n), 1)
        ordered = pair_keys(src, dst, n)
        key = ordered if self.directed else pair_keys(np.minimum(src, dst), np.maximum(src, dst), n)
        if key.dtype.names is None:
            order = np.lexsort((ordered, key))
        else:  # past 2**32 vertices the keys are (src, dst) records: sort by the pair, then by direction
            both = np.empty(key.size, dtype=[("k", key.dtype), ("o", ordered.dtype)])
            both["k"], both["o"] = key, ordered
            order = np.argsort(both, kind="stable")
        k, o = key[order], ordered[order]
        start = np.ones(k.size, dtype=bool)
        start[1:] = k[1:] != k[:-1]
        repeat = np.zeros(k.size, dtype=bool)
        repeat[1:] = ~start[1:] & (o[1:] == o[:-1])  # the same direction again (ordered keys sorted in a pair)
        group = np.cumsum(start) - 1
        parallel = np.zeros(int(group[-1]) + 1, dtype=bool)
        parallel[group[repeat]] = True
        differing = np.zeros_like(parallel)
        if w is not None:
            ws, starts = w[order], np.flatnonzero(start)
            differing = np.minimum.reduceat(ws, starts) != np.maximum.reduceat(ws, starts)
        return int((parallel | differing).sum()), int(differing.sum())


def pair_keys(src, dst, n: int):
    """One sortable key per pair (src, dst) of vertices 0..n-1, ordered as the pairs are
    lexicographically: ``src * n + dst`` in uint64 while n <= 2^32 (so n^2 fits), else a structured
    array of the two fields (NumPy sorts, compares and uniques those field by field)."""
    if n <= 2 ** 32:
        return np.asarray(src).astype(np.uint64) * np.uint64(n) + np.asarray(dst).astype(np.uint64)
    keys = np.empty(np.size(src), dtype=[("src", np.int64), ("dst", np.int64)])
    keys["src"], keys["dst"] = src, dst
    return keys


def split_pair_keys(keys, n: int):
    """The (src, dst) int64 arrays of :func:`pair_keys`' keys."""
    if keys.dtype.names:
        return keys["src"].copy(), keys["dst"].copy()
    return (keys // np.uint64(n)).astype(np.int64), (keys % np.uint64(n)).astype(np.int64)


def check_weights(weights, need: str = "finite_nonnegative", *, lines=None, path=None, what="weights"):
    """Raise :class:`GraphFormatError` unless ``weights`` meet ``need``.

    need: "finite" (no NaN or infinity), "finite_nonnegative" (also no negative value)
    or "positive" (finite and > 0).  ``lines``/``path`` (from a :class:`GraphData`) let
    the message name the first offending line.  None weights always pass.
    """
    if weights is None:
        return
    if need not in ("finite", "finite_nonnegative", "positive"):
        raise ValueError(f"need must be 'finite', 'finite_nonnegative' or 'positive', got {need!r}")
    w = np.asarray(weights, dtype=np.float64)
    checks = [(~np.isfinite(w), "NaN or infinite")]
    if need == "finite_nonnegative":
        checks.append((w < 0, "negative"))
    elif need == "positive":
        checks.append((w <= 0, "zero or negative"))
    wanted = {"finite": "finite", "finite_nonnegative": "finite and non-negative",
              "positive": "finite and positive"}[need]
    for bad, kind in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f"{path}:{int(lines[i])}: " if (path is not None and lines is not None) else \
                (f"{path}: " if path is not None else "")
            raise GraphFormatError(f"{where}{int(bad.sum())} {kind} {what} (first: {float(w[i])!r}); "
                                   f"they must be {wanted}")


def self_loop_count(src, dst) -> int:
    loops = src == dst
    return int(np.unique(src[loops]).size) if loops.any() else 0


def empty_graph(path, fmt, directed, reason, n=0, labels=None, notes=None) -> GraphData:
    z = np.zeros(0, dtype=np.int64)
    if labels is None:
        labels = np.arange(1, n + 1, dtype=np.int64)
    return GraphData(z, z.copy(), None, n, labels, directed, reason, 0, str(path), fmt,
                     lines=z.copy(), notes=list(notes or []))
