"""Vertex labels: compacting the labels of an edge list to the ids 0..n-1.

* Integer labels are numbered in increasing numeric order (:func:`compact_int`): a dense
  table when they are small and non-negative, else ``np.unique``.
* String labels are numbered in order of first appearance, reading the file row by row, source
  before target (:func:`compact_strings`); they are grouped by a 64-bit key of their bytes, and
  a key shared by two different labels is caught and settled by ``np.unique``.

String labels are text decoded from UTF-8 with ``surrogateescape``: a byte that is not UTF-8
(``caf\\xe9`` in Latin-1) becomes a lone surrogate (U+DCE9), which no valid text has, so two
different labels stay two different strings, and ``label.encode("utf-8", "surrogateescape")``
gives back the file's bytes (the ``spla`` command writes them so).
"""

from __future__ import annotations

import numpy as np

from .graphdata import GraphData, self_loop_count


def compact_int(s, d, w, path, is_directed, reason, lines, notes) -> GraphData:
    """Compact integer labels to 0..n-1 in increasing numeric order."""
    s = np.asarray(s, dtype=np.int64)
    d = np.asarray(d, dtype=np.int64)
    m = s.size
    lo = int(min(s.min(), d.min()))
    hi = int(max(s.max(), d.max()))
    if lo >= 0 and hi < max(8 * m, 1 << 20):
        present = np.zeros(hi + 1, dtype=bool)
        present[s] = True
        present[d] = True
        labels = np.flatnonzero(present).astype(np.int64)
        rank = np.cumsum(present, dtype=np.int64) - 1
        src, dst = rank[s], rank[d]
    else:
        labels, inv = np.unique(np.concatenate([s, d]), return_inverse=True)
        inv = inv.reshape(-1).astype(np.int64)
        src, dst = inv[:m], inv[m:]
    return GraphData(src, dst, w, int(labels.size), labels, is_directed, reason, self_loop_count(src, dst),
                     str(path), "edgelist", lines=lines, notes=notes)


def compact_strings(both, w, path, is_directed, reason, lines, notes, *, group=None) -> GraphData:
    """Compact string labels (bytes, interleaved src0, dst0, src1, ...) in first-appearance order,
    grouping them with ``group`` (default :func:`_first_appearance`: a 64-bit key of their bytes)."""
    ids, firsts = (group or _first_appearance)(both)
    labels = np.array([b.decode("utf-8", "surrogateescape") for b in both[firsts].tolist()], dtype=object)
    labels = labels.astype(str) if labels.size else np.zeros(0, dtype=str)
    src, dst = ids[0::2].copy(), ids[1::2].copy()
    return GraphData(src, dst, w, int(labels.size), labels, is_directed, reason, self_loop_count(src, dst),
                     str(path), "edgelist", lines=lines, notes=notes)


def _first_appearance(both):
    """For an array of byte strings: (ids, firsts), where ``ids[i]`` numbers ``both[i]`` by first
    appearance (0 for the first label, 1 for the next new one, ...) and ``firsts[j]`` is where label
    ``j`` first appears.

    Labels of up to 8 bytes are their own key (zero padded: no label has a NUL byte); longer ones
    are hashed, and a collision (two labels, one key) is caught and settled by ``np.unique``.
    """
    if both.dtype.kind == "S" and both.size:
        key, exact = _label_keys(both)
        order = np.argsort(key)
        sk = key[order]
        new = np.empty(sk.size, dtype=bool)
        new[0] = True
        np.not_equal(sk[1:], sk[:-1], out=new[1:])
        group = np.cumsum(new) - 1
        first = np.minimum.reduceat(order, np.flatnonzero(new))
        if not exact:  # a hash: the labels of one key must be equal (neighbours in key order)
            sb = both[order]
            exact = bool((new[1:] | (sb[1:] == sb[:-1])).all())
            del sb
        if exact:
            by_first = np.argsort(first)
            rank = np.empty(by_first.size, dtype=np.int64)
            rank[by_first] = np.arange(by_first.size, dtype=np.int64)
            ids = np.empty(both.size, dtype=np.int64)
            ids[order] = rank[group]
            return ids, first[by_first]
    return _first_appearance_unique(both)


def _first_appearance_unique(both):
    """:func:`_first_appearance` by ``np.unique`` of the bytes (sorting the strings): its fallback
    and its reference."""
    _, first, inv = np.unique(both, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty(by_first.size, dtype=np.int64)
    rank[by_first] = np.arange(by_first.size, dtype=np.int64)
    return rank[inv.reshape(-1)], first[by_first]


def _label_keys(both):
    """A uint64 key of each byte string of ``both`` (fixed width, no NUL byte), and whether the
    keys are the strings themselves (up to 8 bytes, zero padded) rather than a hash of them."""
    width = both.dtype.itemsize
    words = -(-width // 8)
    padded = np.zeros((both.size, 8 * words), dtype=np.uint8)
    padded[:, :width] = both.view(np.uint8).reshape(-1, width)
    padded = padded.view("<u8")
    key = padded[:, 0].copy()
    for j in range(1, words):  # multiply-xorshift mixing, as in splitmix64
        key ^= key >> np.uint64(31)
        key *= np.uint64(0x9E3779B97F4A7C15)
        key ^= padded[:, j]
    if words > 1:
        key ^= key >> np.uint64(29)
        key *= np.uint64(0xBF58476D1CE4E5B9)
        key ^= key >> np.uint64(32)
    return key, words == 1


def compact_strings_by_unique(both, w, path, is_directed, reason, lines, notes) -> GraphData:
    """:func:`compact_strings` with the labels grouped by ``np.unique`` of the bytes (what
    :func:`~spla.io.edgelist_csv.read_edgelist_csv_per_line` uses): the reference of the grouping
    by keys."""
    return compact_strings(both, w, path, is_directed, reason, lines, notes, group=_first_appearance_unique)
