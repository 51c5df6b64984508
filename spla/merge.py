"""Merging parallel arcs when a matrix is built: GraphBLAS build's ``dup`` operator.

An arc list may name the same ordered pair (i, j) more than once (a multigraph's parallel arcs, a
file listing a road twice).  A matrix stores one entry per pair, so building it merges the values
of a pair's arcs with ``dup``:

=========  ================================================================================
``plus``   C(i, j) = Σ of the arcs' values (networkx's ``to_scipy_sparse_array`` of a multigraph)
``min``    C(i, j) = min of the values: a pair keeps its shortest arc, what a shortest path uses
           (networkx's weighted shortest-path functions take the minimum over a multigraph's
           parallel edges)
``max``    C(i, j) = max of the values
``first``  C(i, j) = the value of the arc listed first
``last``   C(i, j) = the value of the arc listed last (adding the arcs one by one to a networkx
           DiGraph keeps the last)
=========  ================================================================================

"Listed" is the order of the caller's arc list; an undirected edge's two arcs i -> j and j -> i
both carry the edge's place in that list.  A pattern-only build (no values) has nothing to merge.
"""

from __future__ import annotations

import numpy as np

from .errors import UnknownNameError

__all__ = ["DUPS", "check_dup", "merge_arcs"]

#: the merge rules a build accepts, in words
DUPS = {
    "plus": "the sum of the parallel arcs' values",
    "min": "the smallest value (the shortest arc)",
    "max": "the largest value",
    "first": "the value of the arc listed first",
    "last": "the value of the arc listed last",
}


def check_dup(dup) -> str:
    """``dup`` when it names a rule of :data:`DUPS`, else UnknownNameError (a ValueError) listing them."""
    if not isinstance(dup, str) or dup not in DUPS:
        raise UnknownNameError(f"dup must be one of {', '.join(repr(d) for d in DUPS)} (how parallel arcs' "
                               f"values merge), got {dup!r}")
    return dup


def merge_arcs(src, dst, values, listing, n: int, dup: str):
    """The arcs ``src[e] -> dst[e]`` of an n-vertex graph with one entry per ordered pair, in CSC order
    (by head ``dst``, then tail ``src``): ``(colptr (n + 1,) int64, rowidx int64, merged values)``.

    ``listing[e]`` is arc e's place in the caller's list (what ``first``/``last`` order by); ``values``
    are merged with ``dup`` (:data:`DUPS`) in their own dtype, except ``plus`` on bool, summed as
    int64 (a count of True arcs, as networkx's sum would be)."""
    # CSC order, and within a pair the listing order: lexsort's last key is the primary one
    order = np.lexsort((listing, src, dst))
    s, d = src[order], dst[order]
    start = np.ones(s.size, dtype=bool)
    start[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(start)
    rowidx, heads = s[starts], d[starts]
    colptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(heads, minlength=n), out=colptr[1:])
    if values is None or starts.size == 0:
        return colptr, rowidx, None if values is None else values[:0]
    v = values[order]
    if dup == "first":
        merged = v[starts]
    elif dup == "last":
        merged = v[np.append(starts[1:], v.size) - 1]
    elif dup == "min":
        merged = np.minimum.reduceat(v, starts)
    elif dup == "max":
        merged = np.maximum.reduceat(v, starts)
    else:
        merged = np.add.reduceat(v.astype(np.int64) if v.dtype == np.bool_ else v, starts)
    return colptr, rowidx, merged
