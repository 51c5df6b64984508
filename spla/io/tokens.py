"""Tokenising a whole graph file at once, and the rules for reading one token as a number.

The whole (decompressed) file is split into whitespace-separated tokens with NumPy byte
operations, not a loop over lines; numbers are parsed in one ``numpy.fromstring`` call over the
data region, and only error reporting loops in Python, to find and name the offending token.

* Separators are spaces, tabs, CR, VT and FF (and commas for edge lists); lines end at LF.
* A token is a number when NumPy's parser reads it: Python's ``1_000`` and non-ASCII digits are
  not numbers in a graph file (:func:`parses`).
* An integer token has at most 18 digits (:data:`MAX_INT_DIGITS`), so that int64 parsing is
  exact; a longer one is a string label.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from .. import tuning as _tuning

# Bytes of the largest fixed-width matrix of labels built (beyond, and for labels over 64 bytes,
# an array of bytes objects).

# Largest number of digits an integer label may have (beyond, labels are read as strings:
# 19 digits may overflow int64, and NumPy's parser would saturate silently).
MAX_INT_DIGITS = 18


def snippet(text: str, limit: int = 60) -> str:
    """A quoted, escaped, shortened excerpt of a line for an error message."""
    text = text.strip()
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


class Tokens:
    """Whitespace tokenisation of a whole file with NumPy byte operations (no per-line loop).

    Separators are spaces, tabs, CR, VT, FF and the bytes in ``seps``; lines end at LF.
    Token ``t`` spans ``text[ts[t]:te[t]]`` and lies on 0-based line ``tline[t]``.
    """

    def __init__(self, raw: bytes, path, seps: bytes = b""):
        self.path = path
        self.raw = raw
        white = b"\t\r\x0b\x0c" + seps
        self.text = raw.translate(bytes.maketrans(white, b" " * len(white)))
        arr = np.frombuffer(self.text, dtype=np.uint8)
        self.arr = arr
        self.nl = np.flatnonzero(arr == 10)
        self.nlines = len(self.nl) + (1 if arr.size and arr[-1] != 10 else 0)
        sep = arr == 32
        sep |= arr == 10
        tok = ~sep
        starts = tok.copy()
        starts[1:] &= sep[:-1]
        ends = tok
        ends[:-1] &= sep[1:]
        del sep
        self.ts = np.flatnonzero(starts)
        self.te = np.flatnonzero(ends) + 1
        del starts, ends
        self.tline = np.searchsorted(self.nl, self.ts)
        self._nondigit = None

    @classmethod
    def of(cls, raw: bytes, ts, te) -> "Tokens":
        """Tokens ``raw[ts[t]:te[t]]`` found by another splitter (the fields of a CSV row): for the
        methods that need no lines or separators (``token``, ``intlike``, ``not_plain``, ``strings``)."""
        self = cls.__new__(cls)
        self.path = None
        self.raw = self.text = raw
        self.arr = np.frombuffer(raw, dtype=np.uint8)
        self.ts, self.te = np.asarray(ts, dtype=np.int64), np.asarray(te, dtype=np.int64)
        self._nondigit = None
        return self

    # -- lines
    def line_text(self, line: int) -> str:
        """The original text of 0-based line ``line`` (for messages)."""
        start = int(self.nl[line - 1]) + 1 if line > 0 else 0
        end = int(self.nl[line]) if line < len(self.nl) else len(self.raw)
        return self.raw[start:end].decode("utf-8", "replace").rstrip("\r")

    def where(self, line: int) -> str:
        """``path:LINE`` for 0-based ``line``."""
        return f"{self.path}:{line + 1}"

    def token(self, t: int) -> str:
        """Token ``t`` as text, a byte that is not UTF-8 kept as the labels keep it (:mod:`spla.io.labels`)."""
        return self.raw[self.ts[t]:self.te[t]].decode("utf-8", "surrogateescape")

    # -- comments
    def comment_free(self, chars: bytes) -> np.ndarray:
        """Mask of the tokens outside comments: a token starting with one of ``chars``
        comments out itself and the rest of its line."""
        n = self.ts.size
        keep = np.ones(n, dtype=bool)
        if n == 0:
            return keep
        first = self.arr[self.ts]
        is_c = first == chars[0]
        for c in chars[1:]:
            is_c |= first == c
        starts = np.flatnonzero(is_c)
        if starts.size == 0:
            return keep
        # each comment drops the tokens from itself to the end of its line
        ends = np.searchsorted(self.tline, self.tline[starts], side="right")
        if starts.size <= 10_000:
            for a, b in zip(starts.tolist(), ends.tolist()):
                keep[a:b] = False
        else:
            delta = np.zeros(n + 1, dtype=np.int32)
            np.add.at(delta, starts, 1)
            np.add.at(delta, ends, -1)
            keep = np.cumsum(delta[:-1]) == 0
        return keep

    def comment_lines(self, chars: bytes) -> np.ndarray:
        """0-based indices of the lines whose first token starts with one of ``chars``."""
        if self.ts.size == 0:
            return np.zeros(0, dtype=np.int64)
        new_line = np.empty(self.ts.size, dtype=bool)
        new_line[0] = True
        new_line[1:] = self.tline[1:] != self.tline[:-1]
        firsts = np.flatnonzero(new_line)
        c = np.isin(self.arr[self.ts[firsts]], np.frombuffer(chars, dtype=np.uint8))
        return self.tline[firsts[c]]

    # -- numbers
    def intlike(self, idx) -> np.ndarray:
        """For tokens ``idx`` (any order): made only of digits with an optional leading
        sign, and at most 18 digits long (so that int64 parsing is exact)."""
        idx = np.asarray(idx)
        ts, te = self.ts[idx], self.te[idx]
        if ts.size == 0:
            return np.ones(0, dtype=bool)
        if self._nondigit is None:
            # uint8 arithmetic wraps, so this is "not in '0'..'9'" in one pass (with one
            # padding byte so that reduceat may index one past the end)
            nd = np.empty(self.arr.size + 1, dtype=bool)
            np.greater(self.arr - np.uint8(48), 9, out=nd[:-1])
            nd[-1] = False
            self._nondigit = nd
        sign = (self.arr[ts] == 43) | (self.arr[ts] == 45)
        body = ts + sign
        # reduceat over [body, te) pairs: each token's bytes only (separators lie outside)
        bounds = np.empty(2 * ts.size, dtype=np.int64)
        bounds[0::2] = body
        bounds[1::2] = te
        nonint = np.logical_or.reduceat(self._nondigit, bounds)[0::2]
        length = te - body
        return ~nonint & (length >= 1) & (length <= MAX_INT_DIGITS)

    def all_intlike(self, idx) -> bool:
        """``intlike(idx).all()``, settled at once when a token's first byte is no digit or sign
        (string labels) instead of after looking at every byte."""
        if self.arr.size:
            first = self.arr[np.minimum(self.ts[idx], self.arr.size - 1)]
            if ((first - np.uint8(48) > 9) & (first != 43) & (first != 45)).any():
                return False
        return bool(self.intlike(idx).all())

    def not_plain(self, idx) -> np.ndarray:
        """For integer tokens ``idx``: written otherwise than plainly (``+7``, ``007``, ``-0``),
        so that reading them as numbers would change the label and merge ``007`` with ``7``."""
        ts = self.ts[idx]
        first = self.arr[ts]
        out = (first == 48) | (first == 43) | (first == 45)  # candidates: '0', '+', '-'
        cand = np.flatnonzero(out)
        if cand.size:
            ts, te, first = ts[cand], self.te[np.asarray(idx)[cand]], first[cand]
            minus = first == 45
            body = ts + (minus | (first == 43))
            lead0 = self.arr[np.minimum(body, self.arr.size - 1)] == 48
            out[cand] = (first == 43) | (lead0 & ((te - body > 1) | minus))
        return out

    def parse(self, idx, dtype):
        """Parse tokens ``idx`` (sorted) as ``dtype`` numbers, vectorised.

        Returns the values, or None when some token is not a number of that type (the
        caller then locates it with :meth:`first_bad`).
        """
        idx = np.asarray(idx)
        if idx.size == 0:
            return np.zeros(0, dtype=dtype)
        contiguous = int(idx[-1]) - int(idx[0]) + 1 == idx.size
        if contiguous:
            region = self.text[int(self.ts[idx[0]]):int(self.te[idx[-1]])]
        else:
            region = self._gather(idx)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = np.fromstring(region, dtype=dtype, sep=" ")
        except ValueError:
            return None
        if values.size != idx.size:
            return None
        return values

    def _gather(self, idx):
        """The bytes of tokens ``idx`` (sorted) separated by spaces.  Runs of consecutive
        tokens are copied as one slice, so this loops over runs, not tokens: cheap when
        few tokens are left out (comments).  Many runs of short tokens (a column of a file)
        are copied at once instead, each token padded with spaces to the longest one."""
        brk = np.flatnonzero(np.diff(idx) != 1) + 1
        if brk.size > 1000:
            length = self.te[idx] - self.ts[idx]
            width = max(int(length.max()), 1)
            if width <= 64 and width * idx.size <= 4 * int(length.sum()):
                padded = np.full((idx.size, width + 1), 32, dtype=np.uint8)
                padded[:, :width] = self.strings(idx).view(np.uint8).reshape(-1, width)
                padded[padded == 0] = 32  # the strings' padding (a text file has no NUL byte)
                return padded.tobytes()
        first = idx[np.concatenate([[0], brk])]
        last = idx[np.concatenate([brk - 1, [idx.size - 1]])]
        ts, te, text = self.ts, self.te, self.text
        return b" ".join(text[a:b] for a, b in zip(ts[first].tolist(), te[last].tolist()))

    def first_bad(self, idx, kind):
        """The first token of ``idx`` that does not parse as ``kind`` (int or float), as
        :meth:`parse` reads numbers: (position in idx, token text), or (None, None).
        Python loop: error path only."""
        conv = int if kind is int else float
        idx = np.asarray(idx).tolist()
        for j, t in enumerate(idx):
            s = self.token(t)
            if not parses(s, conv):
                return j, s
        # what Python reads and NumPy does not, if anything is left: NumPy token by token
        dtype = np.int64 if kind is int else np.float64
        for j, t in enumerate(idx):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    ok = np.fromstring(self.text[self.ts[t]:self.te[t]], dtype=dtype, sep=" ").size == 1
                except ValueError:
                    ok = False
            if not ok:
                return j, self.token(t)
        return None, None

    def strings(self, idx) -> np.ndarray:
        """Tokens ``idx`` as a NumPy bytes array (fixed width): the ``width`` bytes from each token's
        start, in one gather, then zeroed past its end."""
        ts, te = self.ts[idx], self.te[idx]
        if ts.size == 0:
            return np.zeros(0, dtype="S1")
        length = te - ts
        width = max(int(length.max()), 1)
        if width > 64 and ts.size * width > _tuning.current().string_matrix_bytes:
            # a few very long labels: avoid a huge fixed-width matrix
            raw = self.raw
            return np.array([raw[a:b] for a, b in zip(ts.tolist(), te.tolist())], dtype=object)
        arr = self.arr if self.arr.size >= width else np.zeros(width, dtype=np.uint8)  # empty text, tokens
        last = arr.size - width  # the last window start
        out = np.lib.stride_tricks.sliding_window_view(arr, width)[np.minimum(ts, last)]
        for i in np.flatnonzero(ts > last).tolist():  # tokens in the last width bytes
            out[i] = 0
            out[i, :length[i]] = arr[ts[i]:te[i]]
        out *= np.arange(width) < length[:, None]
        return out.view(f"S{width}").ravel()


def parses(s: str, conv=float) -> bool:
    """Whether ``conv(s)`` (int or float) reads ``s`` as NumPy's parser does: Python also takes
    ``1_000`` and non-ASCII digits ('\u0661'), which are not numbers in a graph file."""
    if not s.isascii() or "_" in s:
        return False
    try:
        conv(s)
    except ValueError:
        return False
    return True


def is_number(s: str) -> bool:
    return parses(s, float)


_INT = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_INT_DIGITS)
_PLAIN_INT = re.compile(r"-?[1-9][0-9]{0,%d}|0" % (MAX_INT_DIGITS - 1))


def intish(s: str) -> bool:
    """An integer token of at most 18 digits with an optional sign (as ``Tokens.intlike``)."""
    return _INT.fullmatch(s) is not None


def plain_int(s: str) -> bool:
    """An integer label read as a number: ``intish`` and written plainly (not ``+7``, ``007``, ``-0``)."""
    return _PLAIN_INT.fullmatch(s) is not None
