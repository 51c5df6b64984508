"""Reading edge lists whose rows need CSV (or shell-style) field splitting: quoted fields, empty
comma-separated fields, spaces inside comma-separated fields.

The rows are split by :func:`spla.io.fields.split_fields` and read column by column
(:func:`read_edgelist_csv`); the files that function declines are read line by line with the
:mod:`csv` and :mod:`shlex` modules (:func:`read_edgelist_csv_per_line`).  Both make the same
decisions with the same messages: header row, weight column, integer or string labels, as for
plain edge lists (:mod:`spla.io.edgelist`).
"""

from __future__ import annotations

import csv
import io as _io
import re

import numpy as np

from .fields import Fields, split_fields, strip_comments
from .graphdata import GraphData, GraphFormatError, empty_graph
from .headers import looks_like_header
from .labels import compact_int, compact_strings, compact_strings_by_unique
from .tokens import Tokens, intish, is_number, parses, plain_int, snippet


def read_edgelist_csv(raw: bytes, path, is_directed, reason, header) -> GraphData:
    """Edge lists that need real CSV parsing (quoted fields, spaces inside fields), vectorised.

    Gives what :func:`read_edgelist_csv_per_line` gives, graph or error: the fields come from
    :func:`split_fields`, or from the per-line reader itself for the files that function leaves to it.
    """
    text = raw.decode("utf-8", "surrogateescape")  # bytes that are not UTF-8 kept (spla.io.labels)
    fields = split_fields(raw, text, path)
    if fields is None:
        return read_edgelist_csv_per_line(raw, path, is_directed, reason, header)
    return _edgelist_from_fields(fields, path, is_directed, reason, header)


def _edgelist_from_fields(fields: Fields, path, is_directed, reason, header) -> GraphData:
    """The graph of split rows, with the decisions and messages of the per-line reader (header,
    weights, integer or string labels), made on whole columns."""
    tok, delim = fields.tok, fields.delim
    notes = []
    if fields.line.size == 0:
        return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))

    def column(k):
        """Token of field k of every row, and whether the row has one (else its first field)."""
        has = fields.nf > k
        return np.where(has, fields.first + k, fields.first), has

    if header is None:
        r0 = fields.row(0)
        c0, _ = column(0)
        c1, has2 = column(1)
        if any(is_number(f) for f in r0[:2]):
            header = False
        elif fields.line.size > 1 and has2[1:].all() and \
                tok.all_intlike(c0[1:]) and tok.all_intlike(c1[1:]):
            header = True
        else:  # column names, unless they are also vertex labels further down
            names = set(r0[:2])
            header = looks_like_header(r0) and not _any_label_in(tok, np.concatenate([c0[1:], c1[1:][has2[1:]]]),
                                                                 names)
    if header:
        notes.append(f"skipped the header row (line {int(fields.line[0])}): {snippet(','.join(fields.row(0)))}")
        fields.drop_first_row()
        if fields.line.size == 0:
            return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
                               notes=notes)
    where, m = fields.line, fields.line.size
    c0, _ = column(0)
    c1, has2 = column(1)
    length = tok.te - tok.ts
    bad = np.flatnonzero(~has2 | (length[c0] == 0) | (length[c1] == 0))
    if bad.size:
        i = int(bad[0])
        r = fields.row(i)
        shown = (delim or " ").join(r)
        found = f"found {len(r)}" if len(r) < 2 else f"the {'source' if r[0] == '' else 'target'} is empty"
        raise GraphFormatError(f"{path}:{where[i]}: expected at least 2 fields 'source target [weight]', "
                               f"{found}: {snippet(shown)}")
    c2, has3 = column(2)
    weighted = bool(has3[0]) and is_number(tok.token(int(c2[0])))
    w = None
    if weighted:
        missing = ~has3 | (length[c2] == 0)
        w, i = _parse_weights(tok, c2, missing)
        if i is not None:
            if missing[i]:
                raise GraphFormatError(f"{path}:{where[i]}: expected a weight in field 3 (line {where[0]} has one)")
            raise GraphFormatError(f"{path}:{where[i]}: non-numeric weight {tok.token(int(c2[i]))!r} in field 3 "
                                   f"(expected a number, as on line {where[0]})")
    elif has3.any():
        i = int(np.flatnonzero(has3)[0])
        if not has3[0] and is_number(tok.token(int(c2[i]))):
            raise GraphFormatError(f"{path}:{where[i]}: a weight in field 3, but line {where[0]} has none; "
                                   "give every edge a weight, or none")
        notes.append("ignored the non-numeric 3rd field and any later fields")
    lines = where.astype(np.int64)
    both = np.empty(2 * m, dtype=np.int64)
    both[0::2], both[1::2] = c0, c1
    if tok.all_intlike(both):
        odd = np.flatnonzero(tok.not_plain(both))
        if odd.size == 0:
            vals = _parse_ints(tok, both)
            return compact_int(vals[0::2], vals[1::2], w, path, is_directed, reason, lines, notes)
        j = int(odd[0])
        notes.append(f"vertex labels read as text, in order of first appearance: {tok.token(int(both[j]))!r} "
                     f"(line {where[j // 2]}) is not written as a plain integer")
    return compact_strings(tok.strings(both), w, path, is_directed, reason, lines, notes)


def _any_label_in(tok: Tokens, idx, names) -> bool:
    """Whether one of tokens ``idx`` is one of the strings ``names`` (only the tokens as long as a
    name are compared)."""
    names = [name.encode("utf-8") for name in names]
    idx = idx[np.isin(tok.te[idx] - tok.ts[idx], [len(b) for b in names])]
    if idx.size == 0:
        return False
    labels = tok.strings(idx)
    return any(bool((labels == name).any()) for name in names)


# bytes that make a token no number to parses (Python's float takes '_' and non-ASCII digits)
_NOT_NUMBER_BYTE = np.zeros(256, dtype=bool)
_NOT_NUMBER_BYTE[95] = True
_NOT_NUMBER_BYTE[128:] = True


def _parse_weights(tok: Tokens, idx, missing):
    """Tokens ``idx`` as Python's ``float`` reads them when :func:`parses` accepts them: (weights,
    None), or (None, i) for the first i that is ``missing`` or no number."""
    strings = tok.strings(idx)
    if strings.dtype.kind == "S":
        width = strings.dtype.itemsize
        odd = _NOT_NUMBER_BYTE[strings.view(np.uint8).reshape(-1, width)].any(axis=1)
    else:
        odd = np.array([not b.isascii() or b"_" in b for b in strings.tolist()], dtype=bool)
    stop = np.flatnonzero(missing | odd)
    stop = int(stop[0]) if stop.size else idx.size
    values = strings[:stop].tolist()
    try:
        w = np.array(list(map(float, values)), dtype=np.float64)
    except ValueError:
        return None, next(i for i, v in enumerate(values) if not parses(v.decode("ascii")))
    return (w, None) if stop == idx.size else (None, stop)


def _parse_ints(tok: Tokens, idx):
    """Integer tokens ``idx`` (``intlike``: at most 18 digits) as int64, in one NumPy parse."""
    strings = tok.strings(idx)
    width = strings.dtype.itemsize
    padded = np.full((strings.size, width + 1), 32, dtype=np.uint8)
    padded[:, :width] = strings.view(np.uint8).reshape(-1, width)
    padded[padded == 0] = 32
    vals = np.fromstring(padded.tobytes(), dtype=np.int64, sep=" ")
    if vals.size != idx.size:  # not expected of intlike tokens; Python reads them then
        vals = np.array([int(v) for v in strings.tolist()], dtype=np.int64)
    return vals


def read_edgelist_csv_per_line(raw: bytes, path, is_directed, reason, header) -> GraphData:
    """Edge lists that need real CSV parsing (quoted fields, spaces inside fields), line by line:
    the reader of the files :func:`split_fields` declines, and the reference that
    :func:`read_edgelist_csv` must agree with (``shlex`` reads a whitespace-separated file
    character by character, so only those files come here).

    The delimiter is a comma, else a tab, else whitespace (each line split, quotes kept), as
    the first data row has them outside quotes; comments as the tokeniser reads them.
    """
    text = strip_comments(raw.decode("utf-8", "surrogateescape"))
    lines_list = text.split("\n")
    sample = next((ln for ln in lines_list if ln.strip()), "")
    sample = re.sub(r'"[^"]*"?', "", sample)  # a comma inside quotes is no delimiter
    delim = "," if "," in sample else ("\t" if "\t" in sample else None)
    rows, where = [], []
    if delim is None:
        import shlex
        for i, ln in enumerate(lines_list):
            s = ln.strip()
            if not s:
                continue
            # only double quotes quote: "O'Brien" and C:\\dir are labels as they are written
            lex = shlex.shlex(s, posix=True)
            lex.whitespace_split, lex.quotes, lex.escape, lex.commenters = True, '"', "", ""
            try:
                rows.append(list(lex))
            except ValueError as e:
                raise GraphFormatError(f"{path}:{i + 1}: cannot split the line ({e}): {snippet(ln)}") from None
            where.append(i + 1)
    else:
        reader = csv.reader(_io.StringIO(text, newline=""), delimiter=delim, skipinitialspace=True)
        try:
            for row in reader:
                i = reader.line_num
                if not row or not "".join(row).strip():
                    continue
                rows.append([f.strip() for f in row])
                where.append(i)
        except csv.Error as e:
            raise GraphFormatError(f"{path}:{reader.line_num}: malformed CSV: {e}") from None
    notes = []
    if not rows:
        return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))

    if header is None:
        r0 = rows[0]
        if any(is_number(f) for f in r0[:2]):
            header = False
        elif len(rows) > 1 and all(len(r) >= 2 and intish(r[0]) and intish(r[1]) for r in rows[1:]):
            header = True
        else:  # column names, unless they are also vertex labels further down
            names = set(r0[:2])
            header = looks_like_header(r0) and not any(f in names for r in rows[1:] for f in r[:2])
    if header:
        notes.append(f"skipped the header row (line {where[0]}): {snippet(','.join(rows[0]))}")
        rows, where = rows[1:], where[1:]
        if not rows:
            return empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
                               notes=notes)
    for r, ln in zip(rows, where):
        if len(r) < 2 or r[0] == "" or r[1] == "":
            shown = (delim or " ").join(r)
            found = f"found {len(r)}" if len(r) < 2 else f"the {'source' if r[0] == '' else 'target'} is empty"
            raise GraphFormatError(f"{path}:{ln}: expected at least 2 fields 'source target [weight]', "
                                   f"{found}: {snippet(shown)}")
    weighted = len(rows[0]) >= 3 and is_number(rows[0][2])
    w = None
    if weighted:
        wl = []
        for r, ln in zip(rows, where):
            if len(r) < 3 or r[2] == "":
                raise GraphFormatError(f"{path}:{ln}: expected a weight in field 3 (line {where[0]} has one)")
            try:
                if not parses(r[2]):
                    raise ValueError(r[2])
                wl.append(float(r[2]))
            except ValueError:
                raise GraphFormatError(f"{path}:{ln}: non-numeric weight {r[2]!r} in field 3 (expected a "
                                       f"number, as on line {where[0]})") from None
        w = np.array(wl, dtype=np.float64)
    elif any(len(r) >= 3 for r in rows):
        i = next(i for i, r in enumerate(rows) if len(r) >= 3)
        if len(rows[0]) < 3 and is_number(rows[i][2]):
            raise GraphFormatError(f"{path}:{where[i]}: a weight in field 3, but line {where[0]} has none; "
                                   "give every edge a weight, or none")
        notes.append("ignored the non-numeric 3rd field and any later fields")
    lines = np.array(where, dtype=np.int64)
    if all(plain_int(r[0]) and plain_int(r[1]) for r in rows):
        s = np.array([int(r[0]) for r in rows], dtype=np.int64)
        d = np.array([int(r[1]) for r in rows], dtype=np.int64)
        return compact_int(s, d, w, path, is_directed, reason, lines, notes)
    if all(intish(r[0]) and intish(r[1]) for r in rows):  # '007' or '+7': every label is a string
        i, odd = next((i, f) for i, r in enumerate(rows) for f in r[:2] if not plain_int(f))
        notes.append(f"vertex labels read as text, in order of first appearance: {odd!r} "
                     f"(line {where[i]}) is not written as a plain integer")
    both = [f.encode("utf-8", "surrogateescape") for r in rows for f in r[:2]]  # the file's bytes
    # fixed-width bytes, which NumPy sorts without calling Python's comparison of objects (no NUL
    # byte to lose: files._check_text), unless a few very long labels would make a huge matrix
    # (as Tokens.strings)
    width = max(map(len, both))
    both = np.array(both, dtype=object if width > 64 and len(both) * width > 500_000_000 else f"S{width}")
    return compact_strings_by_unique(both, w, path, is_directed, reason, lines, notes)
