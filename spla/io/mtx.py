"""Reading Matrix Market files (``.mtx``, ``.mm``).

Only ``matrix coordinate`` files are graphs: values ``pattern``, ``integer`` or ``real``
(``double``), symmetry ``general`` (directed) or ``symmetric`` (undirected).  Entry ``i j`` is the
arc i -> j; indices are 1-based and the labels are 1..n.  ``%`` lines are comments.  The size
line must declare a square matrix, and the file must hold exactly the entries it declares, each
on a line of its own with 2 fields (pattern) or 3.
"""

from __future__ import annotations

import numpy as np

from .graphdata import GraphData, GraphFormatError, empty_graph, numbered_labels, self_loop_count
from .tokens import Tokens, snippet


_MM_USAGE = "'%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>'"


def read_mtx(raw: bytes, path, directed) -> GraphData:
    first_end = raw.find(b"\n")
    banner = raw[: first_end if first_end >= 0 else len(raw)].decode("utf-8", "replace").strip()
    words = banner.split()
    if not words or words[0].lower() != "%%matrixmarket":
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: expected {_MM_USAGE}, "
                               f"found {snippet(banner)}")
    if len(words) != 5:
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: expected 5 words {_MM_USAGE}, "
                               f"found {len(words)}: {snippet(banner)}")
    obj, layout, fld, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise GraphFormatError(f"{path}:1: Matrix Market object {obj!r} is not supported; expected 'matrix'")
    if layout == "array":
        raise GraphFormatError(f"{path}:1: dense 'array' Matrix Market files are not supported; "
                               f"a graph needs the sparse 'coordinate' layout")
    if layout != "coordinate":
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: unknown layout {layout!r}, "
                               f"expected 'coordinate'")
    if fld in ("complex",):
        raise GraphFormatError(f"{path}:1: complex Matrix Market values are not supported; "
                               f"use pattern, integer or real")
    if fld not in ("pattern", "integer", "real", "double"):
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: unknown field {fld!r}, "
                               f"expected pattern, integer or real")
    if sym in ("skew-symmetric", "hermitian"):
        raise GraphFormatError(f"{path}:1: {sym} Matrix Market matrices are not supported as graphs "
                               f"(A[j,i] is not A[i,j]); use 'general' or 'symmetric'")
    if sym not in ("general", "symmetric"):
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: unknown symmetry {sym!r}, "
                               f"expected general or symmetric")

    tok = Tokens(raw, path)
    keep = np.flatnonzero(tok.comment_free(b"%"))
    if keep.size == 0:
        raise GraphFormatError(f"{path}: the size line 'rows columns entries' is missing after the header")
    size_line = int(tok.tline[keep[0]])
    on_size = keep[tok.tline[keep] == size_line]
    size_text = tok.line_text(size_line)
    sizes = tok.parse(on_size, np.int64) if on_size.size == 3 and tok.intlike(on_size).all() else None
    if sizes is None or (sizes < 0).any():
        raise GraphFormatError(f"{tok.where(size_line)}: malformed size line: expected 'rows columns entries' "
                               f"(3 non-negative integers), found {snippet(size_text)}")
    nrows, ncols, nnz = (int(x) for x in sizes)
    if nrows != ncols:
        raise GraphFormatError(f"{tok.where(size_line)}: the matrix is {nrows} x {ncols}; a graph's "
                               f"adjacency matrix must be square")
    n = nrows
    width = 2 if fld == "pattern" else 3
    # the labels 1..n, and per entry its parsed fields, source, target and line (more when mirrored)
    need = 8 * n + 8 * (width + 3) * nnz
    what = (f"{tok.where(size_line)}: the size line declares {n:,} vertices and {nnz:,} "
            f"{'entry' if nnz == 1 else 'entries'}; reading them")
    remedy = ("is the size line right? (a graph whose vertex ids are sparse is better written as an edge list, "
              "whose ids spla compacts to 0..k-1)")
    labels = numbered_labels(n, need, what, remedy)
    if directed is None:
        is_directed = sym == "general"
        reason = f"Matrix Market '{sym}'"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed}); the file says '{sym}'"

    data = keep[on_size.size:]
    # one entry per line with exactly `width` fields
    if data.size:
        tl = tok.tline[data]
        new_line = np.empty(data.size, dtype=bool)
        new_line[0] = True
        new_line[1:] = tl[1:] != tl[:-1]
        firsts = np.flatnonzero(new_line)
        nfields = np.diff(np.append(firsts, data.size))
        entry_lines = tl[firsts]
    else:
        firsts = nfields = entry_lines = np.zeros(0, dtype=np.int64)
    nent = entry_lines.size
    if nent > nnz:
        line = int(entry_lines[nnz])
        raise GraphFormatError(f"{tok.where(line)}: more entries than the {nnz} declared on line "
                               f"{size_line + 1}")
    badw = np.flatnonzero(nfields != width)
    if badw.size:
        i = int(badw[0])
        line = int(entry_lines[i])
        what = "'row column'" if width == 2 else "'row column value'"
        raise GraphFormatError(f"{tok.where(line)}: expected {width} fields {what} for a '{fld}' matrix, "
                               f"found {int(nfields[i])}: {snippet(tok.line_text(line))}")
    if nent < nnz:
        raise GraphFormatError(f"{path}: line {size_line + 1} declares {nnz} entries but the file has "
                               f"only {nent} (is it truncated?)")
    if nnz == 0:
        return empty_graph(path, "mtx", is_directed, reason, n=n, labels=labels)

    idx_tokens = np.sort(np.concatenate([data[firsts], data[firsts + 1]]))
    if not tok.intlike(idx_tokens).all():
        ok = tok.intlike(idx_tokens)
        t = int(idx_tokens[np.flatnonzero(~ok)[0]])
        line = int(tok.tline[t])
        raise GraphFormatError(f"{tok.where(line)}: expected integer row and column indices, found "
                               f"{tok.token(t)!r} in {snippet(tok.line_text(line))}")
    if fld == "pattern":
        vals = tok.parse(data, np.int64)
        if vals is None:
            j, s = tok.first_bad(data, int)
            line = int(tok.tline[data[j]]) if j is not None else int(entry_lines[0])
            raise GraphFormatError(f"{tok.where(line)}: expected integer indices 'row column', found "
                                   f"{snippet(tok.line_text(line))}")
        vals = vals.reshape(nnz, 2)
        rows, cols, w = vals[:, 0], vals[:, 1], None
    else:
        vals = tok.parse(data, np.float64)
        if vals is None:
            j, s = tok.first_bad(data, float)
            line = int(tok.tline[data[j]]) if j is not None else int(entry_lines[0])
            raise GraphFormatError(f"{tok.where(line)}: expected numbers 'row column value', found "
                                   f"{s!r} in {snippet(tok.line_text(line))}")
        vals = vals.reshape(nnz, 3)
        rows = vals[:, 0].astype(np.int64)
        cols = vals[:, 1].astype(np.int64)
        w = np.ascontiguousarray(vals[:, 2])
        if fld == "integer" and not np.all(w == np.round(w)):
            i = int(np.flatnonzero(w != np.round(w))[0])
            line = int(entry_lines[i])
            raise GraphFormatError(f"{tok.where(line)}: the header says 'integer' but the value is "
                                   f"{w[i]!r}: {snippet(tok.line_text(line))}")
    for name, v in (("row", rows), ("column", cols)):
        bad = (v < 1) | (v > n)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            line = int(entry_lines[i])
            hint = " (Matrix Market indices are 1-based)" if v[i] == 0 else ""
            raise GraphFormatError(f"{tok.where(line)}: {name} index {int(v[i])} is outside 1..{n}{hint}: "
                                   f"{snippet(tok.line_text(line))}")
    src = rows - 1
    dst = cols - 1
    lines = entry_lines.astype(np.int64) + 1
    if sym == "symmetric" and is_directed:
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        lines = np.concatenate([lines, lines[off]])
        w = None if w is None else np.concatenate([w, w[off]])
    return GraphData(src, dst, w, n, labels, is_directed, reason,
                     self_loop_count(src, dst), str(path), "mtx", lines=lines)
