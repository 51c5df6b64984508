"""Telling whether the first data row of an edge list is a header.

A header when neither of its first two fields is a number while those of the following rows (up
to 50) are integers; for string labels, when its fields are column names such as
``source,target``, ``from,to``, ``id_1,id_2`` or ``node_1,node_2`` that are not vertex labels
further down (``u v`` followed by ``v w`` is an edge).
"""

from __future__ import annotations

import numpy as np

from .tokens import intish, is_number


_HEADER_WORDS = {
    "source", "target", "src", "dst", "from", "to", "u", "v", "node1", "node2", "node_1", "node_2",
    "id1", "id2", "id_1", "id_2", "source_id", "target_id", "sourceid", "targetid", "from_id", "to_id",
    "fromnodeid", "tonodeid", "head", "tail", "vertex1", "vertex2", "vertex_1", "vertex_2", "n1", "n2",
    "origin", "destination", "start", "end", "in", "out", "node", "nodes", "neighbor", "neighbour",
    "weight", "w", "value", "i", "j", "from_node", "to_node", "source_node", "target_node", "user",
    "friend", "follower", "followee",
}


def looks_like_header(fields) -> bool:
    """Whether a first row of string fields reads as column names (source,target; id_1,id_2; ...)."""
    names = [f.strip().strip('"').lower().replace(" ", "_").replace("-", "_") for f in fields[:2]]
    return len(names) == 2 and all(name in _HEADER_WORDS for name in names) and names[0] != names[1]


_HEADER_SAMPLE = 50


def detect_header(tok, first_tok, nfields) -> bool:
    """Whether the first data row is a header, from a sample of the first rows.

    A header when neither of its first two fields is a number while those of the next rows
    (up to 50) are integers; for string labels, when the fields are column names
    (:data:`_HEADER_WORDS`).
    """
    def fields(i):
        return [tok.token(int(first_tok[i]) + k) for k in range(min(int(nfields[i]), 2))]

    row0 = fields(0)
    if any(is_number(f) for f in row0):
        return False  # numbers (even ones read as text, like 19-digit ids) are never column names
    sample = range(1, min(first_tok.size, _HEADER_SAMPLE + 1))
    if len(sample) and all(len(f) == 2 and all(intish(x) for x in f) for f in map(fields, sample)):
        return True
    if not looks_like_header(row0):
        return False
    # column names that are also vertex labels further down ("u v", then "v w") are the first edge;
    # only label tokens as long as a name can be one (a cheap length test before any string is built)
    names = {tok.raw[tok.ts[t]:tok.te[t]] for t in (int(first_tok[0]), int(first_tok[0]) + 1)}
    rest = first_tok[1:][nfields[1:] >= 2]
    labels = np.concatenate([rest, rest + 1])
    labels = labels[np.isin(tok.te[labels] - tok.ts[labels], [len(b) for b in names])
                    & np.isin(tok.arr[tok.ts[labels]], [b[0] for b in names])]  # same length, same first byte
    return not any(tok.raw[tok.ts[t]:tok.te[t]] in names for t in labels.tolist())
