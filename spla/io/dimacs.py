"""Reading DIMACS shortest-path files (``.gr``), the 9th DIMACS Implementation Challenge's format.

One record per line::

    c <free text>        a comment, anywhere
    p sp <n> <m>         the problem line, once, before the first arc: n vertices, m arcs
    a <u> <v> <w>        the arc u -> v of length w; u, v in 1..n

Arcs are directed (a road network lists both directions of a two-way street); the file must hold
exactly the m arcs its problem line declares.  Lengths are read as float64 (the Challenge's are
integers, exact in float64 below 2**53) and kept as read, NaN and negatives included
(:func:`~spla.io.check_weights`).  Parallel arcs (one pair listed twice) are kept as listed; the
matrix merges them (:meth:`GraphData.to_matrix`'s ``dup``: ``"min"`` for path lengths).  Labels
are 1..n.
"""

from __future__ import annotations

import numpy as np

from .graphdata import GraphData, GraphFormatError, empty_graph, numbered_labels, self_loop_count
from .tokens import Tokens, snippet

_USAGE = "'c <comment>', 'p sp <n> <m>' or 'a <u> <v> <length>'"


def read_dimacs(raw: bytes, path, directed) -> GraphData:
    tok = Tokens(raw, path)
    if tok.ts.size == 0:
        raise GraphFormatError(f"{path}: empty DIMACS file: expected a problem line 'p sp <n> <m>'")
    new_line = np.empty(tok.ts.size, dtype=bool)
    new_line[0] = True
    new_line[1:] = tok.tline[1:] != tok.tline[:-1]
    firsts = np.flatnonzero(new_line)
    nfields = np.diff(np.append(firsts, tok.ts.size))
    lines = tok.tline[firsts]
    one = tok.te[firsts] - tok.ts[firsts] == 1
    kind = np.where(one, tok.arr[tok.ts[firsts]], 0)
    is_c, is_p, is_a = kind == ord("c"), kind == ord("p"), kind == ord("a")
    bad = np.flatnonzero(~(is_c | is_p | is_a))
    if bad.size:
        line = int(lines[bad[0]])
        raise GraphFormatError(f"{tok.where(line)}: expected a DIMACS shortest-path line {_USAGE}, found "
                               f"{snippet(tok.line_text(line))}")
    p_rows = np.flatnonzero(is_p)
    a_rows = np.flatnonzero(is_a)
    if p_rows.size == 0:
        where = tok.where(int(lines[a_rows[0]])) if a_rows.size else str(path)
        raise GraphFormatError(f"{where}: the problem line 'p sp <n> <m>' is missing (it comes before the first arc)")
    pline = int(lines[p_rows[0]])
    if p_rows.size > 1:
        raise GraphFormatError(f"{tok.where(int(lines[p_rows[1]]))}: a second problem line (the first is line "
                               f"{pline + 1}); a DIMACS file has one")
    if a_rows.size and a_rows[0] < p_rows[0]:
        raise GraphFormatError(f"{tok.where(int(lines[a_rows[0]]))}: an arc before the problem line 'p sp <n> <m>' "
                               f"(line {pline + 1})")
    ptext = tok.line_text(pline)
    pt = int(firsts[p_rows[0]])
    words = [tok.token(pt + k) for k in range(int(nfields[p_rows[0]]))]
    if len(words) >= 2 and words[1] != "sp":
        raise GraphFormatError(f"{tok.where(pline)}: DIMACS problem {words[1]!r} is not a shortest-path graph; "
                               f"expected 'p sp <n> <m>'")
    if len(words) != 4 or not tok.intlike(np.arange(pt + 2, pt + 4)).all() or \
            any(int(w) < 0 for w in words[2:]):
        raise GraphFormatError(f"{tok.where(pline)}: malformed problem line: expected 'p sp <n> <m>' (non-negative "
                               f"integers), found {snippet(ptext)}")
    n, m = int(words[2]), int(words[3])
    # the labels 1..n, and per arc its tail, head, length, line and the parsed fields
    need = 8 * n + 8 * 7 * m
    what = (f"{tok.where(pline)}: the problem line declares {n:,} vertices and {m:,} "
            f"{'arc' if m == 1 else 'arcs'}; reading them")
    remedy = "is the problem line right? ('p sp <vertices> <arcs>')"
    labels = numbered_labels(n, need, what, remedy)
    if directed is None:
        is_directed, reason = True, "DIMACS shortest-path arcs are directed"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed}); DIMACS arcs are directed"

    if a_rows.size > m:
        raise GraphFormatError(f"{tok.where(int(lines[a_rows[m]]))}: more arcs than the {m:,} declared on line "
                               f"{pline + 1}")
    short = np.flatnonzero(nfields[a_rows] != 4)
    if short.size:
        line = int(lines[a_rows[short[0]]])
        raise GraphFormatError(f"{tok.where(line)}: expected 4 fields 'a <u> <v> <length>', found "
                               f"{int(nfields[a_rows[short[0]]])}: {snippet(tok.line_text(line))}")
    if a_rows.size < m:
        raise GraphFormatError(f"{path}: line {pline + 1} declares {m:,} arcs but the file has only "
                               f"{a_rows.size:,} (is it truncated?)")
    if m == 0:
        return empty_graph(path, "dimacs", is_directed, reason, n=n, labels=labels)
    first = firsts[a_rows]
    arc_lines = lines[a_rows].astype(np.int64) + 1
    ends = np.empty(2 * m, dtype=np.int64)
    ends[0::2], ends[1::2] = first + 1, first + 2
    ok = tok.intlike(ends)
    uv = tok.parse(ends, np.int64) if ok.all() else None
    if uv is None:
        j = int(np.flatnonzero(~ok)[0]) if not ok.all() else 0
        line = int(arc_lines[j // 2]) - 1
        raise GraphFormatError(f"{tok.where(line)}: expected integer vertex ids 'a <u> <v> <length>', found "
                               f"{tok.token(int(ends[j]))!r} in {snippet(tok.line_text(line))}")
    w = tok.parse(first + 3, np.float64)
    if w is None:
        j, s = tok.first_bad(first + 3, float)
        line = int(arc_lines[j or 0]) - 1
        raise GraphFormatError(f"{tok.where(line)}: expected a number as the arc's length, found {s!r} in "
                               f"{snippet(tok.line_text(line))}")
    src, dst = uv[0::2] - 1, uv[1::2] - 1
    for name, v in (("tail", src), ("head", dst)):
        outside = (v < 0) | (v >= n)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            hint = " (DIMACS ids are 1-based)" if v[i] == -1 else ""
            raise GraphFormatError(f"{path}:{int(arc_lines[i])}: {name} {int(v[i]) + 1} is outside 1..{n}{hint}: "
                                   f"{snippet(tok.line_text(int(arc_lines[i]) - 1))}")
    return GraphData(src, dst, np.ascontiguousarray(w), n, labels, is_directed, reason,
                     self_loop_count(src, dst), str(path), "dimacs", lines=arc_lines)
