"""Splitting edge-list lines into fields where quotes or comma-separated values need it.

Comments are cut first: a '#' or '%' that starts a field (at the start of a line, after a blank
or after a comma) outside double quotes starts a comment running to the end of the line.  The
delimiter is then a comma, else a tab, else whitespace, as the first non-blank line has them
outside quotes.  Comma- and tab-separated lines are split as :mod:`csv` splits them
(``skipinitialspace``, fields stripped); whitespace-separated ones as :mod:`shlex` does with only
double quotes quoting and no escapes.  :func:`split_fields` does this with NumPy for whole files,
and declines (returns None) where it cannot be sure to split as those modules do; the caller then
reads the file line by line.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

import numpy as np

from .graphdata import GraphFormatError
from .tokens import Tokens, snippet


def _strip_comment(line: str) -> str:
    """``line`` up to its comment: a '#' or '%' that starts a field (at the start of the line,
    after a blank or a comma) outside double quotes, as the tokeniser reads comments."""
    quoted, prev = False, " "
    for i, c in enumerate(line):
        if c == '"':
            quoted = not quoted
        elif not quoted and c in "#%" and prev in " \t\r\x0b\x0c,":
            return line[:i]
        prev = c
    return line


def strip_comments(text: str) -> str:
    """``text`` with the comments of its lines removed (:func:`_strip_comment`); only the lines
    with a '#' or '%' are looked at, the line ends are kept."""
    if "#" not in text and "%" not in text:
        return text
    out, last = [], 0
    for mark in re.finditer(r"[#%]", text):
        if mark.start() < last:
            continue
        a = text.rfind("\n", 0, mark.start()) + 1
        b = text.find("\n", mark.start())
        b = len(text) if b < 0 else b
        out.append(text[last:a])
        out.append(_strip_comment(text[a:b]))
        last = b
    out.append(text[last:])
    return "".join(out)


# Bytes a field or a line is stripped of (str.strip's ASCII whitespace but the line end, which the
# readers never see inside a line); the other characters str.strip removes make the vectorised
# readers step aside (_EXOTIC_SPACE).
_BLANKS = b" \t\r\x0b\x0c"
_BLANK = np.zeros(256, dtype=bool)
_BLANK[list(_BLANKS)] = True
_SPACE = np.zeros(256, dtype=bool)
_SPACE[32] = True
_EXOTIC_SPACE = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
# bytes after which '#' or '%' starts a comment (as _strip_comment reads it: the start of a line,
# a blank or a comma)
_COMMENT_AFTER = np.zeros(256, dtype=bool)
_COMMENT_AFTER[list(b" \t\r\x0b\x0c,\n")] = True
# the shlex reader's whitespace (shlex.shlex().whitespace): its token separators outside quotes
_SHLEX_SPACE = b" \t\r"
# the bytes split_fields looks at: line ends, quotes, comment marks and every separator
_EVENT = np.zeros(256, dtype=bool)
_EVENT[list(b'\n"#%,' + _SHLEX_SPACE)] = True


def _lstrip_at(arr, raw: bytes, a, b, table, chars: bytes):
    """For ranges ``raw[a:b]`` (arrays): where each range's run of bytes marked in ``table``
    (the bytes of ``chars``) ends, i.e. ``a`` plus the length ``raw[a:b].lstrip(chars)`` removes.
    Vectorised one byte at a time; runs longer than 16 bytes are finished with ``bytes.lstrip``."""
    a = np.array(a, dtype=np.int64)
    idx = np.flatnonzero(a < b)
    for _ in range(16):
        idx = idx[table[arr[a[idx]]]]
        if idx.size == 0:
            return a
        a[idx] += 1
        idx = idx[a[idx] < b[idx]]
    for i in idx.tolist():
        seg = raw[a[i]:b[i]]
        a[i] += len(seg) - len(seg.lstrip(chars))
    return a


def _rstrip_at(arr, raw: bytes, a, b, table, chars: bytes):
    """As :func:`_lstrip_at` from the end: ``b`` less the length ``raw[a:b].rstrip(chars)`` removes."""
    b = np.array(b, dtype=np.int64)
    idx = np.flatnonzero(a < b)
    for _ in range(16):
        idx = idx[table[arr[b[idx] - 1]]]
        if idx.size == 0:
            return b
        b[idx] -= 1
        idx = idx[a[idx] < b[idx]]
    for i in idx.tolist():
        seg = raw[a[i]:b[i]]
        b[i] -= len(seg) - len(seg.rstrip(chars))
    return b


@dataclass
class Fields:
    """The rows of an edge list split into fields, as :func:`read_edgelist_csv_per_line` splits
    them: field ``f`` is ``tok.token(f)`` (the quotes that are not part of it removed, stripped as
    that reader strips), row ``i`` has fields ``first[i]`` .. ``first[i] + nf[i] - 1`` and lies on
    1-based line ``line[i]``; ``delim`` is ",", "\\t" or None (whitespace, shlex-style)."""

    tok: Tokens
    line: np.ndarray
    nf: np.ndarray
    first: np.ndarray
    delim: str | None

    def row(self, i: int) -> list:
        """The fields of row ``i`` as text (for messages)."""
        f = int(self.first[i])
        return [self.tok.token(t) for t in range(f, f + int(self.nf[i]))]

    def drop_first_row(self):
        """Forget row 0 (a header)."""
        self.line, self.nf, self.first = self.line[1:], self.nf[1:], self.first[1:]


def split_fields(data: bytes, text: str, path):
    """Split ``data`` (the file's bytes, no NUL; ``text``: their decoding with ``surrogateescape``)
    into :class:`Fields` exactly as the per-line reader does, with NumPy instead of a loop over
    lines; None when it cannot be sure to (the caller then reads the file line by line).

    Both readers first cut every line at its comment (a '#' or '%' that starts a field outside
    double quotes) and take the delimiter from the first non-blank line.  This one accepts:

    * comma- or tab-separated files (``csv.reader``, ``skipinitialspace``) whose quotes are all
      well formed: a quoted field opens after the delimiter and spaces only, may contain the
      delimiter and doubled quotes ``""``, and closes before the delimiter or the line end with
      only blanks between; the field is then its content, unescaped and stripped, like every
      unquoted field.  Anything else (a quote inside an unquoted field, text after a closing
      quote, a quoted field running over a line end, a bare CR, a field longer than
      ``csv.field_size_limit()``) returns None.
    * whitespace-separated files (``shlex`` with only double quotes quoting, no escapes): a token
      is a run of bytes between spaces, tabs or CRs outside quotes, its quotes removed; a line
      with an odd number of quotes raises the per-line reader's 'No closing quotation' error.

    Files with whitespace that ``str.strip`` removes and these bytes rules do not know (the ASCII
    separators \x1c-\x1f, non-breaking and other Unicode spaces) return None.
    """
    if (any(c in data for c in (b"\x1c", b"\x1d", b"\x1e", b"\x1f")) if data.isascii()
            else _EXOTIC_SPACE.search(text) is not None):
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    n = arr.size
    # every byte that matters, in file order (line ends, quotes, comment marks, separators): line
    # numbers and quote counts are running sums over these "events"
    ev = np.flatnonzero(_EVENT[arr])
    code = arr[ev]
    is_nl = code == 10
    nl = ev[is_nl]
    nlines = nl.size + 1                                      # as data.split(b"\n")
    line = np.cumsum(is_nl, dtype=np.int32 if nlines < 2**31 else np.int64)
    line -= is_nl                                             # a newline is on the line it ends
    ls = np.concatenate([[0], nl + 1])
    le = np.concatenate([nl, [n]])                            # line ends, then cut at the comment
    is_q = code == 34
    qi = np.flatnonzero(is_q)
    q, ql = ev[qi], line[qi]
    cut = np.zeros(nlines, dtype=bool)
    comment_q = q[:0]                                        # the quotes inside comments
    if b"#" in data or b"%" in data:
        ci = np.flatnonzero((code == 35) | (code == 37))
        ci = ci[(ev[ci] == 0) | _COMMENT_AFTER[arr[np.maximum(ev[ci] - 1, 0)]]]
        c, cl = ev[ci], line[ci]
        even = (np.searchsorted(q, c) - np.searchsorted(q, ls[cl])) % 2 == 0  # quotes before, on the line
        c, cl = c[even], cl[even]
        first = np.ones(c.size, dtype=bool)
        first[1:] = cl[1:] != cl[:-1]
        le[cl[first]] = c[first]
        cut[cl[first]] = True
        if cut.any():
            indata = q < le[ql]
            comment_q = q[~indata]
            q, ql = q[indata], ql[indata]
    odd = np.flatnonzero(np.bincount(ql, minlength=nlines) & 1)
    # non-blank lines, the first of which decides the delimiter
    sls = _lstrip_at(arr, data, ls, le, _BLANK, _BLANKS)
    sle = _rstrip_at(arr, data, sls, le, _BLANK, _BLANKS)
    filled = np.flatnonzero(sle > sls)
    sample = data[ls[filled[0]]:le[filled[0]]].decode("utf-8", "surrogateescape") if filled.size else ""
    sample = re.sub(r'"[^"]*"?', "", sample)
    delim = "," if "," in sample else ("\t" if "\t" in sample else None)

    if delim is None:
        if odd.size:
            i = int(odd[0])
            ln = data[ls[i]:le[i]].decode("utf-8", "surrogateescape")
            raise GraphFormatError(f"{path}:{i + 1}: cannot split the line (No closing quotation): {snippet(ln)}")
        si = np.flatnonzero((code == 32) | (code == 9) | (code == 13))  # _SHLEX_SPACE
        starts, ends = sls, sle
    else:
        if odd.size or (b"\r" in data and _bare_cr(arr)) or \
                int((le - ls).max(initial=0)) > csv.field_size_limit():
            return None
        le = np.where(~cut & (le > ls) & (arr[np.maximum(le - 1, 0)] == 13), le - 1, le)  # CRLF
        si = np.flatnonzero(code == ord(delim))
        starts, ends = ls, le
    del code, is_nl
    # separators: in the lines' data (not in comments, not stripped off), and outside quotes; every
    # line has an even number of quotes, so the quotes before a separator pair up within lines and
    # an odd count means "inside"
    quotes_before = np.cumsum(is_q, dtype=line.dtype)[si]
    del is_q
    sep, spl = ev[si], line[si]
    del ev, line, si
    if comment_q.size:
        quotes_before -= np.searchsorted(comment_q, sep).astype(quotes_before.dtype)
    inside = quotes_before % 2 == 1
    if delim is None or cut.any():
        inside |= (sep < starts[spl]) | (sep >= ends[spl])
    if inside.any():
        sep, spl, quotes_before = sep[~inside], spl[~inside], quotes_before[~inside]
    del inside

    if delim is None:
        dropped = np.ones(q.size, dtype=bool)                 # shlex drops every quote
    else:
        # quote k (0-based over the file) opens a field if k is even, else closes it, unless it is
        # a doubled quote "" inside a quoted field (an odd one directly followed by another)
        closes = np.zeros(q.size, dtype=bool)
        closes[1::2] = True
        pair = np.zeros(q.size, dtype=bool)
        pair[:-1] = closes[:-1] & (q[1:] == q[:-1] + 1)
        literal = np.zeros(q.size, dtype=bool)
        literal[1:] = pair[:-1]
        if not _quotes_well_formed(arr, data, q, ql, ~closes & ~literal, closes & ~pair, sep,
                                   ls, le, ord(delim)):
            return None
        dropped = ~literal
        if literal.any():
            quotes_before -= np.searchsorted(q[literal], sep)
    # fields: the gaps between a line's start, its separators and its end, and where they are in
    # the text without the dropped quotes (a position moves back by the dropped quotes before it)
    nsep = np.bincount(spl, minlength=nlines)
    nfields = sep.size + nlines
    k = np.arange(sep.size) + spl                             # the field that separator k ends
    line_first = np.cumsum(nsep + 1) - (nsep + 1)
    line_last = line_first + nsep
    fs, fe = np.empty(nfields, dtype=np.int64), np.empty(nfields, dtype=np.int64)
    fs[line_first], fs[k + 1] = starts, sep + 1
    fe[k], fe[line_last] = sep, ends
    fline = np.repeat(np.arange(nlines, dtype=np.int32 if nlines < 2**31 else np.int64), nsep + 1)
    tokens = fe > fs if delim is None else None               # runs of blanks make no shlex token
    if dropped.any():
        d_line = np.cumsum(np.bincount(ql[dropped] + 1, minlength=nlines + 1))
        shift = np.empty(nfields, dtype=np.int64)
        shift[line_first], shift[k + 1] = d_line[:-1], quotes_before
        fs -= shift
        shift[k], shift[line_last] = quotes_before, d_line[1:]
        fe -= shift
        del shift
        mask = np.ones(n, dtype=bool)
        mask[q[dropped]] = False
        buf = arr[mask].tobytes()
        del mask
    else:
        buf = data
    del k, quotes_before, sep, spl
    if delim is None and not tokens.all():
        fs, fe, fline = fs[tokens], fe[tokens], fline[tokens]
    if delim is not None:                                     # csv fields are stripped, blank rows skipped
        barr = np.frombuffer(buf, dtype=np.uint8)
        fs = _lstrip_at(barr, buf, fs, fe, _BLANK, _BLANKS)
        fe = _rstrip_at(barr, buf, fs, fe, _BLANK, _BLANKS)
        is_row = np.bincount(fline[fe > fs], minlength=nlines) > 0
        infile = is_row[fline]
        fs, fe, fline = fs[infile], fe[infile], fline[infile]
    nf = np.bincount(fline, minlength=nlines)
    rows = np.flatnonzero(nf)
    nf = nf[rows]
    return Fields(Tokens.of(buf, fs, fe), rows + 1, nf, np.cumsum(nf) - nf, delim)


def _quotes_well_formed(arr, data, q, ql, opening, closing, sep, ls, le, delim) -> bool:
    """Whether every opening quote (``q[opening]``, on lines ``ql``) starts its field after spaces
    only and every closing one ends it before blanks only, as :func:`split_fields` needs of a CSV
    file.  Quotes right after a delimiter or a line start, or right before a delimiter or the end of
    a line's data, are settled byte-wise; the others against the separators around them."""
    o, c = q[opening], q[closing]
    ol, cl = ql[opening], ql[closing]
    o_ok = (o == ls[ol]) | (arr[np.maximum(o - 1, 0)] == delim)
    c_ok = (c + 1 == le[cl]) | (arr[np.minimum(c + 1, arr.size - 1)] == delim)
    if o_ok.all() and c_ok.all():
        return True
    bounds = np.concatenate([[-1], sep, [arr.size]])
    o, ol, c, cl = o[~o_ok], ol[~o_ok], c[~c_ok], cl[~c_ok]
    field_start = np.maximum(bounds[np.searchsorted(sep, o)] + 1, ls[ol])
    field_end = np.minimum(bounds[np.searchsorted(sep, c) + 1], le[cl])
    return (np.array_equal(_lstrip_at(arr, data, field_start, o, _SPACE, b" "), o) and
            np.array_equal(_lstrip_at(arr, data, c + 1, field_end, _BLANK, _BLANKS), field_end))


def _bare_cr(arr) -> bool:
    """A CR not followed by LF: a line end to the csv module, not to the other readers."""
    cr = np.flatnonzero(arr == 13)
    return bool(cr.size and (cr[-1] == arr.size - 1 or (arr[cr[cr < arr.size - 1] + 1] != 10).any()))
