"""Reading edge lists (``.txt .tsv .csv .edges .el .edgelist .dat``), as SNAP, KONECT and CSV
exports have them.

* Fields are separated by whitespace, tabs or commas; ``#`` and ``%`` start comments (whole lines
  or the rest of a line); an optional header row (:mod:`spla.io.headers`).
* An optional numeric weight in the 3rd field, on every row or on none; a non-numeric 3rd field
  (such as the ``{}`` networkx writes) is ignored, as are 4th and later fields.
* Labels are integers when every one is written plainly (``7``, not ``7.0``, ``007`` or ``+7``)
  with at most 18 digits, else strings (:mod:`spla.io.labels`).
* Plain files are tokenised with NumPy (:mod:`spla.io.tokens`); files with quoted fields, empty
  comma-separated fields or spaces inside comma-separated fields are split into fields first
  (:mod:`spla.io.edgelist_csv`).
* An edge list is directed unless ``directed=False``.
"""

from __future__ import annotations

import re

import numpy as np

from .edgelist_csv import read_edgelist_csv
from .graphdata import GraphData, GraphFormatError, empty_graph
from .headers import detect_header
from .labels import compact_int, compact_strings
from .tokens import MAX_INT_DIGITS, Tokens, intish, is_number, snippet


def read_edgelist(raw: bytes, path, directed, header, *, read_csv=read_edgelist_csv,
                  compact=compact_strings) -> GraphData:
    """An edge list (see the module docstring).  Plain files are read token by token with NumPy
    (:class:`Tokens`); files with quoted or empty CSV fields, or spaces inside comma-separated
    fields, go to ``read_csv``; string labels are numbered by ``compact``.

    ``read_csv`` and ``compact`` take the arguments of :func:`read_edgelist_csv` and
    :func:`compact_strings`: :func:`spla.testing.io_reference.read_graph_reference` passes the
    per-line readers, to check that both give the same graph or the same error.
    """
    if directed is None:
        is_directed, reason = True, "edge lists are directed unless directed=False (--undirected)"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed})"
    if _quote_before_comments(raw):  # _quotes_in_rows below would say so, after tokenising
        return read_csv(raw, path, is_directed, reason, header)
    tok = Tokens(raw, path, seps=b",")
    kept = tok.comment_free(b"#%")
    keep = np.flatnonzero(kept)
    if keep.size == 0:
        return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))
    # rows: lines with data tokens; tokens are in line order, so each row's tokens are
    # consecutive in `keep`, starting at firsts[i]
    counts = np.bincount(tok.tline[keep], minlength=tok.nlines)
    rows = np.flatnonzero(counts)                 # 0-based line of each row
    nfields = counts[rows]
    firsts = np.cumsum(nfields) - nfields         # position in `keep` of each row's first token
    del counts

    # quoted CSV fields, or empty comma-separated fields: let the csv module split them
    # (fields with spaces inside are checked below, only when labels are not numbers)
    comma_separated = "," in tok.line_text(int(rows[0]))
    if _quotes_in_rows(tok, rows, kept) or (comma_separated and _empty_csv_fields(tok, rows, kept)):
        return read_csv(raw, path, is_directed, reason, header)

    first_tok = keep[firsts]
    notes = []
    if header is None:
        header = detect_header(tok, first_tok, nfields)
    if header:
        notes.append(f"skipped the header row (line {int(rows[0]) + 1}): {snippet(tok.line_text(int(rows[0])))}")
        firsts, nfields, rows, first_tok = firsts[1:], nfields[1:], rows[1:], first_tok[1:]
        if rows.size == 0:
            return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
                               notes=notes)
    short = np.flatnonzero(nfields < 2)
    if short.size:
        line = int(rows[short[0]])
        raise GraphFormatError(f"{tok.where(line)}: expected at least 2 fields 'source target [weight]', "
                               f"found 1: {snippet(tok.line_text(line))}")
    m = rows.size

    # the weight column: a 3rd field that is a number on the first row
    has3 = nfields >= 3
    w_first = tok.token(int(first_tok[0]) + 2) if has3[0] else ""
    weighted = bool(has3[0]) and is_number(w_first)
    if weighted and not has3.all():
        i = int(np.flatnonzero(~has3)[0])
        line = int(rows[i])
        raise GraphFormatError(f"{tok.where(line)}: expected a weight in field 3 (line {int(rows[0]) + 1} "
                               f"has one), found only 2 fields: {snippet(tok.line_text(line))}")
    if has3.any() and not weighted:
        i = int(np.flatnonzero(has3)[0])
        t = int(first_tok[i]) + 2
        if not has3[0] and is_number(tok.token(t)):
            line = int(rows[i])
            raise GraphFormatError(f"{tok.where(line)}: a weight in field 3, but line {int(rows[0]) + 1} has none; "
                                   f"give every edge a weight, or none: {snippet(tok.line_text(line))}")
        notes.append(f"ignored the non-numeric 3rd field (e.g. {tok.token(t)!r}) and any later fields")
    elif (nfields > 3).any():
        notes.append("ignored fields after the 3rd")
    lines = rows.astype(np.int64) + 1

    def label_tokens():
        both = np.empty(2 * m, dtype=np.int64)
        both[0::2], both[1::2] = first_tok, first_tok + 1
        return both

    # '007' or '+7' among integer labels: every label is a string ('007' and '7' are two vertices)
    odd = _not_plain_labels(tok, kept, first_tok)
    plain = odd < 0
    if not plain and tok.all_intlike(label_tokens()):
        notes.append(f"vertex labels read as text, in order of first appearance: {tok.token(odd)!r} "
                     f"(line {int(tok.tline[odd]) + 1}) is not written as a plain integer")

    # fast path: every row is exactly 'src dst' or 'src dst weight', all numbers, parsed in
    # one call; integer tokens of at most 18 digits cannot overflow int64
    width = 3 if weighted else 2
    if plain and (nfields == width).all():
        data = keep[firsts[0]:]
        if int(data[-1]) - int(data[0]) + 1 == data.size:
            lengths = tok.te[data[0]:data[-1] + 1] - tok.ts[data[0]:data[-1] + 1]
        else:
            lengths = tok.te[data] - tok.ts[data]
        short_tokens = bool(lengths.max() <= MAX_INT_DIGITS)
        del lengths
        vals = tok.parse(data, np.int64) if (short_tokens and (not weighted or intish(w_first))) else None
        if vals is not None:
            vals = vals.reshape(m, width)
            w = vals[:, 2].astype(np.float64) if weighted else None
            return compact_int(vals[:, 0], vals[:, 1], w, path, is_directed, reason, lines, notes)
        if weighted and short_tokens:
            # integer labels and real weights, the common weighted file: one parse of every field
            vals = tok.parse(data, np.float64)
            if vals is not None:
                vals = vals.reshape(m, 3)
                # integer tokens only ("7.0" is a string label); below 2**53 they are exact in float64
                if np.abs(vals[:, :2]).max(initial=0) < 2.0 ** 53 and tok.all_intlike(label_tokens()):
                    return compact_int(vals[:, 0].astype(np.int64), vals[:, 1].astype(np.int64),
                                       np.ascontiguousarray(vals[:, 2]), path, is_directed, reason, lines, notes)

    # column by column
    w = None
    if weighted:
        c2 = first_tok + 2
        w = tok.parse(c2, np.float64)
        if w is None:
            j, s = tok.first_bad(c2, float)
            line = int(rows[j])
            raise GraphFormatError(f"{tok.where(line)}: non-numeric weight {s!r} in field 3 (expected a "
                                   f"number, as on line {int(rows[0]) + 1}): {snippet(tok.line_text(line))}")
    both = label_tokens()
    if plain and tok.all_intlike(both):
        vals = tok.parse(both, np.int64)
        if vals is not None:
            return compact_int(vals[0::2], vals[1::2], w, path, is_directed, reason, lines, notes)
    if comma_separated and _commas_disagree(tok, rows, nfields):
        # string labels with spaces inside comma-separated fields ("New York,Boston")
        return read_csv(raw, path, is_directed, reason, header)
    strings = tok.strings(both)
    return compact(strings, w, path, is_directed, reason, lines, notes)


def _not_plain_labels(tok: Tokens, kept, first_tok) -> int:
    """The first label token (source or target of a row starting at token ``first_tok``) written
    as ``007``, ``+7`` or ``-0`` (:meth:`Tokens.not_plain`), or -1; only the tokens starting
    with '0', '+' or '-' are looked at."""
    fb = tok.arr[tok.ts]
    cand = np.flatnonzero((fb == 48) | (fb == 43) | (fb == 45))
    del fb
    row = np.searchsorted(first_tok, cand, side="right") - 1
    cand = cand[(row >= 0) & (cand - first_tok[np.maximum(row, 0)] < 2) & kept[cand]]
    odd = cand[tok.not_plain(cand)]
    return int(odd[0]) if odd.size else -1


def _in_comments(tok: Tokens, kept, pos) -> np.ndarray:
    """For byte positions ``pos``: inside a comment, i.e. in or after a comment token of the
    same line (``kept``: the mask of the tokens outside comments)."""
    if kept.all():
        return np.zeros(len(pos), dtype=bool)
    t = np.searchsorted(tok.ts, pos, side="right") - 1
    tc = np.maximum(t, 0)
    return (t >= 0) & ~kept[tc] & (tok.tline[tc] == np.searchsorted(tok.nl, pos))


def _quotes_in_rows(tok: Tokens, rows, kept) -> bool:
    """True when a double quote occurs on a data row outside comments (comments may quote freely)."""
    if b'"' not in tok.raw:
        return False
    if kept.all():  # no comment: a quote is part of a token, so its line is a row
        return True
    rawarr = np.frombuffer(tok.raw, dtype=np.uint8)
    qpos = np.flatnonzero(rawarr == 34)
    return any(_on_rows(tok, rows, part[~_in_comments(tok, kept, part)])  # the first quotes usually tell
               for part in (qpos[:1000], qpos[1000:]))


# where the tokeniser's comments start: '#' or '%' at the start of a token (Tokens.comment_free)
_COMMENT_START = re.compile(rb"(?:^|[ \t\r\x0b\x0c,])[#%]", re.MULTILINE)


def _quote_before_comments(raw: bytes, lines: int = 100) -> bool:
    """True when a double quote lies on a line before any comment starts there, i.e. in a data
    row outside comments (:func:`_quotes_in_rows`), found without tokenising the file; looks at
    the lines of the first quotes only, up to ``lines`` of them (False: it cannot tell)."""
    p = raw.find(b'"')
    for _ in range(lines):
        if p < 0:
            return False
        start = raw.rfind(b"\n", 0, p) + 1
        if _COMMENT_START.search(raw, start, p) is None:
            return True
        end = raw.find(b"\n", p)
        p = raw.find(b'"', end) if end >= 0 else -1
    return False


def _on_rows(tok: Tokens, rows, pos) -> bool:
    """Whether one of the byte positions ``pos`` lies on one of the (0-based) lines ``rows``."""
    is_row = np.zeros(tok.nlines + 1, dtype=bool)
    is_row[rows] = True
    return bool(is_row[np.searchsorted(tok.nl, pos)].any())


def _empty_csv_fields(tok: Tokens, rows, kept) -> bool:
    """True when a comma-separated data row has an empty field (",," or a leading comma)
    outside comments."""
    raw = tok.raw
    if raw[:1] == b",":
        return True
    if b",," in raw:
        rawarr = np.frombuffer(raw, dtype=np.uint8)
        pos = np.flatnonzero((rawarr[:-1] == 44) & (rawarr[1:] == 44))
        if _on_rows(tok, rows, pos[~_in_comments(tok, kept, pos)]):
            return True
    if tok.nl.size == 0:
        return False
    starts = tok.nl + 1
    starts = starts[starts < len(raw)]
    lead = np.frombuffer(raw, dtype=np.uint8)[starts] == 44
    return bool(lead.any() and _on_rows(tok, rows, starts[lead]))


def _commas_disagree(tok: Tokens, rows, nfields) -> bool:
    """True when the file is comma-separated and some row's comma-separated fields
    differ from its whitespace/comma tokens (a field with a space inside, or empty)."""
    rawarr = np.frombuffer(tok.raw, dtype=np.uint8)
    cpos = np.flatnonzero(rawarr == 44)
    if cpos.size == 0:
        return False
    cline = np.searchsorted(tok.nl, cpos)
    commas = np.bincount(cline, minlength=tok.nlines + 1)
    if commas[rows[0]] == 0:  # first data row has no comma: not a CSV
        return False
    return bool(np.any(commas[rows] + 1 != nfields))
