"""Reading METIS graph files (``.graph``, ``.metis``).

The first line is ``n m [fmt [ncon]]``; line i+1 lists the 1-based neighbours of vertex i (an
empty line is an isolated vertex); ``%`` lines are comments.  All of fmt's digits are supported:
vertex sizes and the ncon vertex weights are skipped, edge weights (fmt ``1``, ``11``, ``101``,
``111``) are kept.  Every edge appears in both of its vertices' lines, with the same weight, and
the file holds 2m adjacency entries.  A METIS graph is undirected.
"""

from __future__ import annotations

import numpy as np

from .graphdata import GraphData, GraphFormatError, empty_graph, pair_keys, require_memory, self_loop_count
from .tokens import Tokens, snippet


def read_metis(raw: bytes, path, directed) -> GraphData:
    tok = Tokens(raw, path)
    keep = tok.comment_free(b"%")
    kept = np.flatnonzero(keep)
    if kept.size == 0:
        raise GraphFormatError(f"{path}: empty METIS file: expected a header line 'n m [fmt [ncon]]'")
    hline = int(tok.tline[kept[0]])
    on_header = kept[tok.tline[kept] == hline]
    htext = tok.line_text(hline)
    if not (2 <= on_header.size <= 4) or not tok.intlike(on_header).all():
        raise GraphFormatError(f"{tok.where(hline)}: malformed METIS header: expected 'n m [fmt [ncon]]' "
                               f"(non-negative integers), found {snippet(htext)}")
    hwords = [tok.token(int(t)) for t in on_header]
    n, m = int(hwords[0]), int(hwords[1])
    if n < 0 or m < 0:
        raise GraphFormatError(f"{tok.where(hline)}: malformed METIS header: n and m must be non-negative, "
                               f"found {snippet(htext)}")
    fmt = hwords[2].lstrip("+") if len(hwords) > 2 else "0"
    if len(fmt) > 3 or any(c not in "01" for c in fmt):
        raise GraphFormatError(f"{tok.where(hline)}: unsupported METIS fmt {hwords[2]!r}: expected up to 3 "
                               f"digits of 0/1 (vertex sizes, vertex weights, edge weights)")
    fmt = fmt.zfill(3)
    has_vsize, has_vwgt, has_ewgt = (c == "1" for c in fmt)
    ncon = int(hwords[3]) if len(hwords) > 3 else 1
    if len(hwords) > 3 and not has_vwgt:
        raise GraphFormatError(f"{tok.where(hline)}: METIS header gives ncon={ncon} but fmt {fmt} has no "
                               f"vertex weights")
    if ncon < 1:
        raise GraphFormatError(f"{tok.where(hline)}: METIS ncon must be at least 1, found {ncon}")
    skip = int(has_vsize) + (ncon if has_vwgt else 0)
    # per vertex its id and label; per adjacency entry (2m) its value, source, target, line and weight,
    # and the two keys the symmetry test sorts
    need = 16 * n + 2 * m * 8 * (6 if has_ewgt else 5)
    require_memory(need, f"{tok.where(hline)}: the METIS header declares {n:,} vertices and {m:,} "
                         f"{'edge' if m == 1 else 'edges'}; reading them",
                   "is the header right? (it gives n and m first: a file of n vertex lines and 2m adjacency "
                   "entries)")

    if directed is None:
        is_directed, reason = False, "METIS adjacency lists are undirected"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed}); METIS is undirected"

    # vertex lines: every line after the header that is not a comment line (empty ones count)
    comment = np.zeros(max(tok.nlines, 1), dtype=bool)
    comment[tok.comment_lines(b"%")] = True
    candidates = np.arange(hline + 1, tok.nlines)
    vlines = candidates[~comment[candidates]]
    data = kept[on_header.size:]
    tl = tok.tline[data]
    if vlines.size > n:
        extra = vlines[n:]
        used = np.zeros(max(tok.nlines, 1), dtype=bool)
        used[tl] = True
        nonempty = extra[used[extra]]
        if nonempty.size:
            line = int(nonempty[0])
            raise GraphFormatError(f"{tok.where(line)}: more vertex lines than the n={n} declared on line "
                                   f"{hline + 1}: {snippet(tok.line_text(line))}")
        vlines = vlines[:n]
    if vlines.size < n:
        raise GraphFormatError(f"{path}: line {hline + 1} declares {n} vertices but only {vlines.size} "
                               f"vertex lines follow (one line per vertex, empty for an isolated one)")
    vertex_of_line = np.full(max(tok.nlines, 1), -1, dtype=np.int64)
    vertex_of_line[vlines] = np.arange(n, dtype=np.int64)
    if data.size == 0:
        if m != 0:
            raise GraphFormatError(f"{path}: line {hline + 1} declares {m} edges but the file lists none")
        return empty_graph(path, "metis", is_directed, reason, n=n)

    tv = vertex_of_line[tl]
    values = tok.parse(data, np.float64 if has_ewgt else np.int64)
    if values is None:
        j, s = tok.first_bad(data, float if has_ewgt else int)
        line = int(tl[j]) if j is not None else int(tl[0])
        raise GraphFormatError(f"{tok.where(line)}: expected integers (1-based neighbour ids"
                               f"{' and edge weights' if has_ewgt else ''}), found {s!r} in "
                               f"{snippet(tok.line_text(line))}")
    # position of each token within its line
    new_line = np.empty(data.size, dtype=bool)
    new_line[0] = True
    new_line[1:] = tl[1:] != tl[:-1]
    firsts = np.flatnonzero(new_line)
    line_first = np.maximum.accumulate(np.where(new_line, np.arange(data.size), 0))
    pos = np.arange(data.size) - line_first
    nfields = np.diff(np.append(firsts, data.size))
    per = 2 if has_ewgt else 1
    bad = (nfields < skip) | ((nfields - skip) % per != 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        line = int(tl[firsts[i]])
        what = (f"{skip} vertex size/weight field(s) then " if skip else "") + \
            ("'neighbour weight' pairs" if has_ewgt else "neighbour ids")
        raise GraphFormatError(f"{tok.where(line)}: expected {what} for METIS fmt {fmt}, found "
                               f"{int(nfields[i])} fields: {snippet(tok.line_text(line))}")
    rel = pos - skip
    is_nb = (rel >= 0) & (rel % per == 0)
    nb = values[is_nb]
    src = tv[is_nb]
    lines = tl[is_nb].astype(np.int64) + 1
    if has_ewgt:
        w = np.ascontiguousarray(values[np.flatnonzero(is_nb) + 1], dtype=np.float64)
        if not np.all(nb == np.round(nb)):
            i = int(np.flatnonzero(nb != np.round(nb))[0])
            raise GraphFormatError(f"{path}:{lines[i]}: neighbour id {nb[i]!r} is not an integer")
        nb = nb.astype(np.int64)
    else:
        w = None
    outside = (nb < 1) | (nb > n)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        hint = " (METIS ids are 1-based)" if nb[i] == 0 else ""
        raise GraphFormatError(f"{path}:{lines[i]}: neighbour {int(nb[i])} is outside 1..{n}{hint}: "
                               f"{snippet(tok.line_text(int(lines[i]) - 1))}")
    if nb.size != 2 * m:
        loops = np.flatnonzero(nb - 1 == src)
        hint = "" if loops.size == 0 else \
            (f"; {loops.size} of them {'a self-loop' if loops.size == 1 else 'self-loops'} (vertex "
             f"{int(src[loops[0]]) + 1} lists itself on line {int(lines[loops[0]])}), which a METIS graph "
             f"does not have: remove {'it' if loops.size == 1 else 'them'}")
        raise GraphFormatError(f"{path}: line {hline + 1} declares m={m} edges, i.e. {2 * m} adjacency "
                               f"entries (each edge in both lists), but the file has {nb.size}{hint}")
    dst = nb - 1
    _check_metis_symmetric(src, dst, n, lines, path, w)
    return GraphData(src, dst, w, n, np.arange(1, n + 1, dtype=np.int64), is_directed, reason,
                     self_loop_count(src, dst), str(path), "metis", lines=lines)


def _check_metis_symmetric(src, dst, n, lines, path, w=None):
    """METIS lists every edge in both vertices' lines, with the same weight: the arcs (and
    their weights) must equal their reverses."""
    fwd = pair_keys(src, dst, n)
    rev = pair_keys(dst, src, n)
    if w is None:
        if np.array_equal(np.sort(fwd), np.sort(rev)):
            return
    else:
        # arc k of each order is the same edge, u -> v in one and v -> u in the other
        by_fwd, by_rev = np.argsort(fwd), np.argsort(rev)
        keys = fwd[by_fwd]
        if np.array_equal(keys, rev[by_rev]):
            a, b = w[by_fwd], w[by_rev]
            bad = (a != b) & ~(np.isnan(a) & np.isnan(b))
            if bad.any() and (keys[1:] == keys[:-1]).any():  # an edge listed twice: weights in order
                by_fwd, by_rev = np.lexsort((w, fwd)), np.lexsort((w, rev))
                a, b = w[by_fwd], w[by_rev]
                bad = (a != b) & ~(np.isnan(a) & np.isnan(b))
            bad = np.flatnonzero(bad)
            if bad.size == 0:
                return
            i, j = int(by_fwd[bad[0]]), int(by_rev[bad[0]])
            raise GraphFormatError(f"{path}:{int(lines[i])}: edge {int(src[i]) + 1} -- {int(dst[i]) + 1} has "
                                   f"weight {float(w[i])!r} on this line but {float(w[j])!r} on line "
                                   f"{int(lines[j])} (a METIS graph gives each edge's weight in both vertices' "
                                   f"lines, the same)")
    missing = np.flatnonzero(~np.isin(fwd, rev))
    i = int(missing[0]) if missing.size else 0
    raise GraphFormatError(f"{path}:{int(lines[i])}: vertex {int(src[i]) + 1} lists {int(dst[i]) + 1} but vertex "
                           f"{int(dst[i]) + 1} does not list {int(src[i]) + 1} (a METIS graph lists every edge "
                           f"in both vertices' lines)")
