"""Reading graph files as people have them: Matrix Market, edge lists, METIS.

    >>> from spla.io import read_graph
    >>> g = read_graph("ca-GrQc.txt.gz", directed=False)
    >>> g.n, g.src.size, g.directed, g.directed_reason
    >>> A = g.to_matrix(drop_self_loops=True)          # a spla.Matrix

``read_graph`` returns a :class:`GraphData`: the arcs as compact 0-based vertex ids
(``src``, ``dst``, optional ``weights``), the original vertex ``labels`` in compact-id
order, and the directedness decision with its reason.

Formats (chosen from the extension after stripping ``.gz``/``.bz2``/``.xz``, else by
sniffing a ``%%MatrixMarket`` banner; compression is detected from the file's magic
bytes, whatever its name):

* **Matrix Market** (``.mtx``): ``coordinate`` with ``pattern``/``integer``/``real``
  values and ``general`` (directed) or ``symmetric`` (undirected) symmetry.  Entry
  ``i j`` is the arc i -> j.  Labels are 1..n.
* **Edge lists** (``.txt .tsv .csv .edges .el .edgelist .dat``), as SNAP, KONECT and CSV
  exports have them: fields separated by whitespace, tabs or commas; ``#`` and ``%``
  start comments (whole lines or the rest of a line); CRLF or CR line ends; an optional header
  row; an optional numeric weight in the 3rd field, on every row or on none (a non-numeric
  3rd field, such as the ``{}`` networkx writes, is ignored, as are 4th and later fields).
  Vertex labels are arbitrary: when every label is an integer of at most 18 digits written
  plainly (``7``, not ``7.0``, ``007`` or ``+7``) they are compacted in
  increasing numeric order, otherwise they are strings compacted in order of first
  appearance (reading the file row by row, source before target), so that ``007`` and
  ``7`` are two vertices.  CSV fields in double
  quotes (``"New York",Boston``) are parsed with the :mod:`csv` module.  A header row is
  recognised when its first two fields are not integers but the following rows' are,
  or, for string labels, when the fields are column names such as ``source,target``,
  ``from,to``, ``id_1,id_2`` or ``node_1,node_2`` that are not vertex labels further down
  (``u v`` followed by ``v w`` is an edge); pass ``header=True``/``False`` to
  decide yourself.  An edge list is directed unless ``directed=False``.
* **METIS** (``.graph .metis``): first line ``n m [fmt [ncon]]``; line i+1 lists the
  1-based neighbours of vertex i (an empty line is an isolated vertex); ``%`` lines are
  comments.  All of fmt's digits are supported: vertex sizes and the ncon vertex weights
  are skipped, edge weights (fmt ``1``, ``11``, ``101``, ``111``) are kept (both lines of
  an edge must give the same weight).  Undirected.

Reading is vectorised: the whole (decompressed) file is tokenised with NumPy byte
operations, and numbers are parsed in one ``numpy.fromstring`` call over the data
region.  Quoted fields (CSV or whitespace-separated) are split with NumPy too; only error
reporting and rare fallbacks (malformed quoting, Unicode spaces around fields) loop in
Python, with the ``csv`` and ``shlex`` modules.  A 10M-edge SNAP file reads in a few
seconds (``benchmarks/io_read.py``).

Graph files are text (ASCII or UTF-8, with or without a byte order mark); a NUL byte, as in
UTF-16 text or binary data, is refused.

Errors are :class:`GraphFormatError` (a ``ValueError``) whose message names the file and,
where one is to blame, the line: ``graph.mtx:7: expected 3 fields 'row column value' for
a 'real' matrix, found 2: '3 4'``.  NaN and infinite weights are read as they are;
:func:`check_weights` tells whether a measure can use them.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io as _io
import lzma
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import SplaError

__all__ = ["GraphData", "GraphFormatError", "read_graph", "check_weights", "detect_format", "FORMATS"]


class GraphFormatError(SplaError, ValueError):
    """A graph file that cannot be read as asked: missing, malformed, or of an unknown format."""


#: Canonical format names accepted by ``read_graph(format=...)`` and their aliases.
FORMATS = {
    "mtx": "mtx", "mm": "mtx", "matrixmarket": "mtx", "matrix-market": "mtx",
    "edgelist": "edgelist", "edges": "edgelist", "edge-list": "edgelist", "txt": "edgelist",
    "csv": "edgelist", "tsv": "edgelist", "snap": "edgelist", "konect": "edgelist",
    "metis": "metis", "graph": "metis",
}
_FORMAT_TITLE = {"mtx": "Matrix Market", "edgelist": "edge list", "metis": "METIS"}
_EXTENSIONS = {
    ".mtx": "mtx", ".mm": "mtx",
    ".graph": "metis", ".metis": "metis",
    ".txt": "edgelist", ".tsv": "edgelist", ".csv": "edgelist", ".edges": "edgelist",
    ".el": "edgelist", ".edgelist": "edgelist", ".dat": "edgelist",
}
_COMPRESSION_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz")
SUPPORTED = ("Matrix Market (.mtx), METIS (.graph, .metis) and edge lists "
             "(.txt, .tsv, .csv, .edges, .el, .edgelist, .dat), optionally .gz/.bz2/.xz compressed")

# Bytes of the largest fixed-width matrix of labels built (beyond, and for labels over 64 bytes,
# an array of bytes objects).
_MAX_STRING_MATRIX = 500_000_000

# Largest number of digits an integer label may have (beyond, labels are read as strings:
# 19 digits may overflow int64, and NumPy's parser would saturate silently).
_MAX_INT_DIGITS = 18


# ---------------------------------------------------------------------------- result
@dataclass
class GraphData:
    """A graph as read from a file.

    Attributes
    ----------
    src, dst : int64 arrays (m,)
        Arc ``e`` goes from ``src[e]`` to ``dst[e]``; ids are compact, 0..n-1.  For an
        undirected graph each stored pair is one edge, in whatever orientation and
        multiplicity the file had (METIS and "both directions" edge lists list each edge
        twice); :meth:`edges` returns the canonical edge set.
    weights : float64 array (m,) or None
        Weights as read (NaN/inf kept: see :func:`check_weights`); None when unweighted.
    n : int
        Number of vertices (for Matrix Market and METIS the declared size, so isolated
        vertices count; for edge lists the number of distinct labels).
    labels : array (n,)
        The file's vertex label of each compact id: int64 1..n for Matrix Market and METIS,
        the integer labels in increasing order or the string labels in order of first
        appearance for edge lists.
    directed : bool
        The decision made, and ``directed_reason`` says why.
    self_loops : int
        Number of distinct vertices with a self-loop.
    path, format : str
        The file and its format ("mtx", "edgelist" or "metis").
    lines : int64 array (m,) or None
        The 1-based file line of each arc, for messages such as :func:`check_weights`'.
    notes : list of str
        Things the reader decided that a user may want to know (header skipped, a
        non-numeric column ignored, ...).
    """

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    n: int
    labels: np.ndarray
    directed: bool
    directed_reason: str
    self_loops: int
    path: str
    format: str
    lines: np.ndarray | None = None
    notes: list = field(default_factory=list)

    @property
    def format_title(self) -> str:
        """Human name of the format ("Matrix Market", "edge list", "METIS")."""
        return _FORMAT_TITLE.get(self.format, self.format)

    def edges(self, drop_self_loops: bool = False, weighted: bool = True):
        """The canonical edge set: ``(src, dst, weights or None)`` without duplicates.

        Undirected graphs give each edge once, as (min, max).  When a pair occurs more
        than once its last weight wins (as adding the edges one by one to a networkx
        Graph does).  ``weighted=False`` drops the weights.
        """
        src, dst = self.src, self.dst
        w = self.weights if weighted else None
        if drop_self_loops:
            keep = src != dst
            if not keep.all():
                src, dst = src[keep], dst[keep]
                w = None if w is None else w[keep]
        if not self.directed:
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
        n = max(int(self.n), 1)
        key = src * n + dst
        if w is None:
            key = np.unique(key)
            return key // n, key % n, None
        order = np.argsort(key, kind="stable")
        ks = key[order]
        last = np.empty(ks.size, dtype=bool)
        last[:-1] = ks[1:] != ks[:-1]
        last[-1:] = True
        sel = order[last]
        return src[sel], dst[sel], w[sel]

    def to_matrix(self, device="auto", drop_self_loops: bool = False, weighted: bool = True):
        """A :class:`spla.Matrix` of this graph (n x n, arc i -> j is entry (i, j)).

        Duplicates are merged first (last weight wins, see :meth:`edges`), so weights of
        edges listed in both directions are not doubled.  ``weighted=False`` (or an
        unweighted file) gives a pattern-only matrix.
        """
        from .matrix import Matrix

        src, dst, w = self.edges(drop_self_loops=drop_self_loops, weighted=weighted)
        return Matrix.from_edges(src, dst, n=self.n, values=w, directed=self.directed, device=device)


# ---------------------------------------------------------------------------- helpers
def check_weights(weights, need: str = "finite_nonnegative", *, lines=None, path=None, what="weights"):
    """Raise :class:`GraphFormatError` unless ``weights`` meet ``need``.

    need: "finite" (no NaN or infinity), "finite_nonnegative" (also no negative value)
    or "positive" (finite and > 0).  ``lines``/``path`` (from a :class:`GraphData`) let
    the message name the first offending line.  None weights always pass.
    """
    if weights is None:
        return
    if need not in ("finite", "finite_nonnegative", "positive"):
        raise ValueError(f"need must be 'finite', 'finite_nonnegative' or 'positive', got {need!r}")
    w = np.asarray(weights, dtype=np.float64)
    checks = [(~np.isfinite(w), "NaN or infinite")]
    if need == "finite_nonnegative":
        checks.append((w < 0, "negative"))
    elif need == "positive":
        checks.append((w <= 0, "zero or negative"))
    wanted = {"finite": "finite", "finite_nonnegative": "finite and non-negative",
              "positive": "finite and positive"}[need]
    for bad, kind in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f"{path}:{int(lines[i])}: " if (path is not None and lines is not None) else \
                (f"{path}: " if path is not None else "")
            raise GraphFormatError(f"{where}{int(bad.sum())} {kind} {what} (first: {float(w[i])!r}); "
                                   f"they must be {wanted}")


def detect_format(path, head: bytes = b"") -> str:
    """The format of ``path`` ("mtx", "edgelist", "metis") from its name, else from ``head``.

    ``head`` is the start of the decompressed content; a ``%%MatrixMarket`` banner wins
    over any extension.  Raises :class:`GraphFormatError` when neither tells.
    """
    if head.lstrip()[:14].lower() == b"%%matrixmarket":
        return "mtx"
    name = Path(str(path)).name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    ext = os.path.splitext(name)[1]
    if ext in _EXTENSIONS:
        return _EXTENSIONS[ext]
    shown = f"extension '{ext}'" if ext else "no extension"
    raise GraphFormatError(f"{path}: unknown graph format ({shown}, and no %%MatrixMarket banner); "
                           f"supported: {SUPPORTED}; or name the format with --format "
                           f"mtx|edgelist|metis")


def _read_bytes(path) -> bytes:
    """The file's content, decompressed when its magic bytes say gzip, bzip2 or xz.

    ``path`` may also be a binary stream (an object with ``read``), read to its end."""
    name = _stream_name(path)
    try:
        if hasattr(path, "read"):
            raw = path.read()
            if not isinstance(raw, bytes):
                raise TypeError(f"read_graph needs a binary stream (such as open(name, 'rb') or "
                                f"sys.stdin.buffer); {name} gave {type(raw).__name__}")
        else:
            raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise GraphFormatError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise GraphFormatError(f"{name}: is a directory, not a graph file") from None
    except PermissionError:
        raise GraphFormatError(f"{name}: permission denied (cannot read the file)") from None
    except OSError as e:
        raise GraphFormatError(f"{name}: cannot read the file: {e.strerror or e}") from None
    try:
        if raw[:2] == b"\x1f\x8b":
            return gzip.decompress(raw)
        if raw[:3] == b"BZh":
            return bz2.decompress(raw)
        if raw[:6] == b"\xfd7zXZ\x00":
            return lzma.decompress(raw)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as e:
        raise GraphFormatError(f"{name}: corrupt or truncated compressed file ({e})") from None
    return raw


def _check_text(raw: bytes, path) -> None:
    """Refuse content with a NUL byte: no text graph file has one, and read as text, a UTF-16 file
    (PowerShell's ``>``) or binary data gives a graph of garbage labels."""
    pos = raw.find(b"\x00")
    if pos < 0:
        return
    line = raw.count(b"\n", 0, pos) + 1
    head = raw[:64]
    utf16 = raw[:2] in (b"\xff\xfe", b"\xfe\xff") or \
        (len(head) >= 4 and (not any(head[0::2]) or not any(head[1::2])))  # ASCII as UTF-16: every other byte 0
    what = ("this looks like UTF-16 text: save it as UTF-8 (or ASCII)" if utf16 else
            "this is binary data, not a text graph file (compressed other than with gzip, bzip2 or xz?)")
    raise GraphFormatError(f"{path}:{line}: NUL byte at offset {pos}; {what}")


def _snippet(text: str, limit: int = 60) -> str:
    """A quoted, escaped, shortened excerpt of a line for an error message."""
    text = text.strip()
    if len(text) > limit:
        text = text[:limit] + "..."
    return repr(text)


class _Tokens:
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
    def of(cls, raw: bytes, ts, te) -> "_Tokens":
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
        return self.raw[self.ts[t]:self.te[t]].decode("utf-8", "replace")

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
        return ~nonint & (length >= 1) & (length <= _MAX_INT_DIGITS)

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
            if not _parses(s, conv):
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
        if width > 64 and ts.size * width > _MAX_STRING_MATRIX:
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


def _self_loop_count(src, dst) -> int:
    loops = src == dst
    return int(np.unique(src[loops]).size) if loops.any() else 0


def _empty_graph(path, fmt, directed, reason, n=0, labels=None, notes=None) -> GraphData:
    z = np.zeros(0, dtype=np.int64)
    if labels is None:
        labels = np.arange(1, n + 1, dtype=np.int64)
    return GraphData(z, z.copy(), None, n, labels, directed, reason, 0, str(path), fmt,
                     lines=z.copy(), notes=list(notes or []))


# ---------------------------------------------------------------------------- entry point
def _stream_name(path) -> str:
    """How messages name ``path``: itself, or a stream's ``name`` ("<stdin>"), else "<stream>"."""
    if hasattr(path, "read"):
        name = getattr(path, "name", None)
        return name if isinstance(name, str) else "<stream>"
    return path


def read_graph(path, format=None, directed=None, *, header=None) -> GraphData:
    """Read a graph file (Matrix Market, edge list or METIS; optionally compressed).

    Parameters
    ----------
    path : str or os.PathLike, or a binary stream (``sys.stdin.buffer``, ``open(name, "rb")``),
        read to its end; messages name a stream by its ``name`` ("<stdin>")
    format : None, "mtx", "edgelist" or "metis" (aliases: "mm", "csv", "tsv", "txt",
        "edges", "snap", "konect", "graph")
        None: decided from the extension (after .gz/.bz2/.xz), or a %%MatrixMarket banner
        (a stream has no extension: give the format unless it is Matrix Market).
    directed : None, True or False
        None: as the format says (Matrix Market 'symmetric' and METIS are undirected,
        'general' is directed, an edge list is directed).  True on a symmetric Matrix
        Market file gives both arcs of every stored entry; False on directed input makes
        every arc an undirected edge.
    header : None, True or False
        Edge lists only: whether the first data row is a header (None: detect).

    Returns
    -------
    GraphData

    Raises
    ------
    GraphFormatError
        Naming the file (and line) and what was expected.
    """
    if directed is not None and not isinstance(directed, (bool, np.bool_)):
        raise TypeError(f"directed must be None, True or False, got {directed!r}")
    raw = _read_bytes(path)
    path = _stream_name(path)
    if raw[:3] == b"\xef\xbb\xbf":  # UTF-8 byte order mark (Excel CSV)
        raw = raw[3:]
    _check_text(raw, path)
    if b"\n" not in raw and b"\r" in raw:  # lines ended by CR alone (classic Mac, old Excel for Mac)
        raw = raw.replace(b"\r", b"\n")
    if format is None:
        fmt = detect_format(path, raw[:64])
    else:
        key = str(format).lower()
        if key not in FORMATS:
            raise GraphFormatError(f"unknown format {format!r}; use 'mtx', 'edgelist' or 'metis'")
        fmt = FORMATS[key]
    if fmt == "mtx":
        return _read_mtx(raw, path, directed)
    if fmt == "metis":
        return _read_metis(raw, path, directed)
    return _read_edgelist(raw, path, directed, header)


# ---------------------------------------------------------------------------- Matrix Market
_MM_USAGE = "'%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>'"


def _read_mtx(raw: bytes, path, directed) -> GraphData:
    first_end = raw.find(b"\n")
    banner = raw[: first_end if first_end >= 0 else len(raw)].decode("utf-8", "replace").strip()
    words = banner.split()
    if not words or words[0].lower() != "%%matrixmarket":
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: expected {_MM_USAGE}, "
                               f"found {_snippet(banner)}")
    if len(words) != 5:
        raise GraphFormatError(f"{path}:1: malformed Matrix Market header: expected 5 words {_MM_USAGE}, "
                               f"found {len(words)}: {_snippet(banner)}")
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

    tok = _Tokens(raw, path)
    keep = np.flatnonzero(tok.comment_free(b"%"))
    if keep.size == 0:
        raise GraphFormatError(f"{path}: the size line 'rows columns entries' is missing after the header")
    size_line = int(tok.tline[keep[0]])
    on_size = keep[tok.tline[keep] == size_line]
    size_text = tok.line_text(size_line)
    sizes = tok.parse(on_size, np.int64) if on_size.size == 3 and tok.intlike(on_size).all() else None
    if sizes is None or (sizes < 0).any():
        raise GraphFormatError(f"{tok.where(size_line)}: malformed size line: expected 'rows columns entries' "
                               f"(3 non-negative integers), found {_snippet(size_text)}")
    nrows, ncols, nnz = (int(x) for x in sizes)
    if nrows != ncols:
        raise GraphFormatError(f"{tok.where(size_line)}: the matrix is {nrows} x {ncols}; a graph's "
                               f"adjacency matrix must be square")
    n = nrows
    try:
        labels = np.arange(1, n + 1, dtype=np.int64)
    except (MemoryError, ValueError):
        raise GraphFormatError(f"{tok.where(size_line)}: the size line declares {n:,} vertices, more than "
                               f"memory holds (for {nnz:,} {'entry' if nnz == 1 else 'entries'}); is the size "
                               f"line right?") from None
    if directed is None:
        is_directed = sym == "general"
        reason = f"Matrix Market '{sym}'"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed}); the file says '{sym}'"

    data = keep[on_size.size:]
    width = 2 if fld == "pattern" else 3
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
                               f"found {int(nfields[i])}: {_snippet(tok.line_text(line))}")
    if nent < nnz:
        raise GraphFormatError(f"{path}: line {size_line + 1} declares {nnz} entries but the file has "
                               f"only {nent} (is it truncated?)")
    if nnz == 0:
        return _empty_graph(path, "mtx", is_directed, reason, n=n, labels=labels)

    idx_tokens = np.sort(np.concatenate([data[firsts], data[firsts + 1]]))
    if not tok.intlike(idx_tokens).all():
        ok = tok.intlike(idx_tokens)
        t = int(idx_tokens[np.flatnonzero(~ok)[0]])
        line = int(tok.tline[t])
        raise GraphFormatError(f"{tok.where(line)}: expected integer row and column indices, found "
                               f"{tok.token(t)!r} in {_snippet(tok.line_text(line))}")
    if fld == "pattern":
        vals = tok.parse(data, np.int64)
        if vals is None:
            j, s = tok.first_bad(data, int)
            line = int(tok.tline[data[j]]) if j is not None else int(entry_lines[0])
            raise GraphFormatError(f"{tok.where(line)}: expected integer indices 'row column', found "
                                   f"{_snippet(tok.line_text(line))}")
        vals = vals.reshape(nnz, 2)
        rows, cols, w = vals[:, 0], vals[:, 1], None
    else:
        vals = tok.parse(data, np.float64)
        if vals is None:
            j, s = tok.first_bad(data, float)
            line = int(tok.tline[data[j]]) if j is not None else int(entry_lines[0])
            raise GraphFormatError(f"{tok.where(line)}: expected numbers 'row column value', found "
                                   f"{s!r} in {_snippet(tok.line_text(line))}")
        vals = vals.reshape(nnz, 3)
        rows = vals[:, 0].astype(np.int64)
        cols = vals[:, 1].astype(np.int64)
        w = np.ascontiguousarray(vals[:, 2])
        if fld == "integer" and not np.all(w == np.round(w)):
            i = int(np.flatnonzero(w != np.round(w))[0])
            line = int(entry_lines[i])
            raise GraphFormatError(f"{tok.where(line)}: the header says 'integer' but the value is "
                                   f"{w[i]!r}: {_snippet(tok.line_text(line))}")
    for name, v in (("row", rows), ("column", cols)):
        bad = (v < 1) | (v > n)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            line = int(entry_lines[i])
            hint = " (Matrix Market indices are 1-based)" if v[i] == 0 else ""
            raise GraphFormatError(f"{tok.where(line)}: {name} index {int(v[i])} is outside 1..{n}{hint}: "
                                   f"{_snippet(tok.line_text(line))}")
    src = rows - 1
    dst = cols - 1
    lines = entry_lines.astype(np.int64) + 1
    if sym == "symmetric" and is_directed:
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
        lines = np.concatenate([lines, lines[off]])
        w = None if w is None else np.concatenate([w, w[off]])
    return GraphData(src, dst, w, n, labels, is_directed, reason,
                     _self_loop_count(src, dst), str(path), "mtx", lines=lines)


# ---------------------------------------------------------------------------- METIS
def _read_metis(raw: bytes, path, directed) -> GraphData:
    tok = _Tokens(raw, path)
    keep = tok.comment_free(b"%")
    kept = np.flatnonzero(keep)
    if kept.size == 0:
        raise GraphFormatError(f"{path}: empty METIS file: expected a header line 'n m [fmt [ncon]]'")
    hline = int(tok.tline[kept[0]])
    on_header = kept[tok.tline[kept] == hline]
    htext = tok.line_text(hline)
    if not (2 <= on_header.size <= 4) or not tok.intlike(on_header).all():
        raise GraphFormatError(f"{tok.where(hline)}: malformed METIS header: expected 'n m [fmt [ncon]]' "
                               f"(non-negative integers), found {_snippet(htext)}")
    hwords = [tok.token(int(t)) for t in on_header]
    n, m = int(hwords[0]), int(hwords[1])
    if n < 0 or m < 0:
        raise GraphFormatError(f"{tok.where(hline)}: malformed METIS header: n and m must be non-negative, "
                               f"found {_snippet(htext)}")
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
                                   f"{hline + 1}: {_snippet(tok.line_text(line))}")
        vlines = vlines[:n]
    if vlines.size < n:
        raise GraphFormatError(f"{path}: line {hline + 1} declares {n} vertices but only {vlines.size} "
                               f"vertex lines follow (one line per vertex, empty for an isolated one)")
    vertex_of_line = np.full(max(tok.nlines, 1), -1, dtype=np.int64)
    vertex_of_line[vlines] = np.arange(n, dtype=np.int64)
    if data.size == 0:
        if m != 0:
            raise GraphFormatError(f"{path}: line {hline + 1} declares {m} edges but the file lists none")
        return _empty_graph(path, "metis", is_directed, reason, n=n)

    tv = vertex_of_line[tl]
    values = tok.parse(data, np.float64 if has_ewgt else np.int64)
    if values is None:
        j, s = tok.first_bad(data, float if has_ewgt else int)
        line = int(tl[j]) if j is not None else int(tl[0])
        raise GraphFormatError(f"{tok.where(line)}: expected integers (1-based neighbour ids"
                               f"{' and edge weights' if has_ewgt else ''}), found {s!r} in "
                               f"{_snippet(tok.line_text(line))}")
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
                               f"{int(nfields[i])} fields: {_snippet(tok.line_text(line))}")
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
                               f"{_snippet(tok.line_text(int(lines[i]) - 1))}")
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
                     _self_loop_count(src, dst), str(path), "metis", lines=lines)


def _check_metis_symmetric(src, dst, n, lines, path, w=None):
    """METIS lists every edge in both vertices' lines, with the same weight: the arcs (and
    their weights) must equal their reverses."""
    fwd = src * n + dst
    rev = dst * n + src
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


# ---------------------------------------------------------------------------- edge lists
_HEADER_WORDS = {
    "source", "target", "src", "dst", "from", "to", "u", "v", "node1", "node2", "node_1", "node_2",
    "id1", "id2", "id_1", "id_2", "source_id", "target_id", "sourceid", "targetid", "from_id", "to_id",
    "fromnodeid", "tonodeid", "head", "tail", "vertex1", "vertex2", "vertex_1", "vertex_2", "n1", "n2",
    "origin", "destination", "start", "end", "in", "out", "node", "nodes", "neighbor", "neighbour",
    "weight", "w", "value", "i", "j", "from_node", "to_node", "source_node", "target_node", "user",
    "friend", "follower", "followee",
}


def _looks_like_header(fields) -> bool:
    """Whether a first row of string fields reads as column names (source,target; id_1,id_2; ...)."""
    names = [f.strip().strip('"').lower().replace(" ", "_").replace("-", "_") for f in fields[:2]]
    return len(names) == 2 and all(name in _HEADER_WORDS for name in names) and names[0] != names[1]


def _parses(s: str, conv=float) -> bool:
    """Whether ``conv(s)`` (int or float) reads ``s`` as NumPy's parser does: Python also takes
    ``1_000`` and non-ASCII digits ('\u0661'), which are not numbers in a graph file."""
    if not s.isascii() or "_" in s:
        return False
    try:
        conv(s)
    except ValueError:
        return False
    return True


def _is_number(s: str) -> bool:
    return _parses(s, float)


def _read_edgelist(raw: bytes, path, directed, header, reference=False) -> GraphData:
    """An edge list (see the module docstring).  Plain files are read token by token with NumPy
    (:class:`_Tokens`); files with quoted or empty CSV fields, or spaces inside comma-separated
    fields, go to :func:`_read_edgelist_csv`.

    ``reference=True`` uses the per-line readers that the vectorised ones replaced
    (:func:`_read_edgelist_csv_reference`, :func:`_compact_strings_reference`): slow, kept so
    that tests can check that both give the same graph or the same error.
    """
    read_csv = _read_edgelist_csv_reference if reference else _read_edgelist_csv
    compact_strings = _compact_strings_reference if reference else _compact_strings
    if directed is None:
        is_directed, reason = True, "edge lists are directed unless directed=False (--undirected)"
    else:
        is_directed = bool(directed)
        reason = f"requested (directed={is_directed})"
    if _quote_before_comments(raw):  # _quotes_in_rows below would say so, after tokenising
        return read_csv(raw, path, is_directed, reason, header)
    tok = _Tokens(raw, path, seps=b",")
    kept = tok.comment_free(b"#%")
    keep = np.flatnonzero(kept)
    if keep.size == 0:
        return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))
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
        header = _detect_header(tok, first_tok, nfields)
    if header:
        notes.append(f"skipped the header row (line {int(rows[0]) + 1}): {_snippet(tok.line_text(int(rows[0])))}")
        firsts, nfields, rows, first_tok = firsts[1:], nfields[1:], rows[1:], first_tok[1:]
        if rows.size == 0:
            return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
                                notes=notes)
    short = np.flatnonzero(nfields < 2)
    if short.size:
        line = int(rows[short[0]])
        raise GraphFormatError(f"{tok.where(line)}: expected at least 2 fields 'source target [weight]', "
                               f"found 1: {_snippet(tok.line_text(line))}")
    m = rows.size

    # the weight column: a 3rd field that is a number on the first row
    has3 = nfields >= 3
    w_first = tok.token(int(first_tok[0]) + 2) if has3[0] else ""
    weighted = bool(has3[0]) and _is_number(w_first)
    if weighted and not has3.all():
        i = int(np.flatnonzero(~has3)[0])
        line = int(rows[i])
        raise GraphFormatError(f"{tok.where(line)}: expected a weight in field 3 (line {int(rows[0]) + 1} "
                               f"has one), found only 2 fields: {_snippet(tok.line_text(line))}")
    if has3.any() and not weighted:
        i = int(np.flatnonzero(has3)[0])
        t = int(first_tok[i]) + 2
        if not has3[0] and _is_number(tok.token(t)):
            line = int(rows[i])
            raise GraphFormatError(f"{tok.where(line)}: a weight in field 3, but line {int(rows[0]) + 1} has none; "
                                   f"give every edge a weight, or none: {_snippet(tok.line_text(line))}")
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
        short_tokens = bool(lengths.max() <= _MAX_INT_DIGITS)
        del lengths
        vals = tok.parse(data, np.int64) if (short_tokens and (not weighted or _intish(w_first))) else None
        if vals is not None:
            vals = vals.reshape(m, width)
            w = vals[:, 2].astype(np.float64) if weighted else None
            return _compact_int(vals[:, 0], vals[:, 1], w, path, is_directed, reason, lines, notes)
        if weighted and short_tokens:
            # integer labels and real weights, the common weighted file: one parse of every field
            vals = tok.parse(data, np.float64)
            if vals is not None:
                vals = vals.reshape(m, 3)
                # integer tokens only ("7.0" is a string label); below 2**53 they are exact in float64
                if np.abs(vals[:, :2]).max(initial=0) < 2.0 ** 53 and tok.all_intlike(label_tokens()):
                    return _compact_int(vals[:, 0].astype(np.int64), vals[:, 1].astype(np.int64),
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
                                   f"number, as on line {int(rows[0]) + 1}): {_snippet(tok.line_text(line))}")
    both = label_tokens()
    if plain and tok.all_intlike(both):
        vals = tok.parse(both, np.int64)
        if vals is not None:
            return _compact_int(vals[0::2], vals[1::2], w, path, is_directed, reason, lines, notes)
    if comma_separated and _commas_disagree(tok, rows, nfields):
        # string labels with spaces inside comma-separated fields ("New York,Boston")
        return read_csv(raw, path, is_directed, reason, header)
    strings = tok.strings(both)
    return compact_strings(strings, w, path, is_directed, reason, lines, notes)


_INT = re.compile(r"[+-]?[0-9]{1,%d}" % _MAX_INT_DIGITS)
_PLAIN_INT = re.compile(r"-?[1-9][0-9]{0,%d}|0" % (_MAX_INT_DIGITS - 1))


def _not_plain_labels(tok: _Tokens, kept, first_tok) -> int:
    """The first label token (source or target of a row starting at token ``first_tok``) written
    as ``007``, ``+7`` or ``-0`` (:meth:`_Tokens.not_plain`), or -1; only the tokens starting
    with '0', '+' or '-' are looked at."""
    fb = tok.arr[tok.ts]
    cand = np.flatnonzero((fb == 48) | (fb == 43) | (fb == 45))
    del fb
    row = np.searchsorted(first_tok, cand, side="right") - 1
    cand = cand[(row >= 0) & (cand - first_tok[np.maximum(row, 0)] < 2) & kept[cand]]
    odd = cand[tok.not_plain(cand)]
    return int(odd[0]) if odd.size else -1


def _intish(s: str) -> bool:
    """An integer token of at most 18 digits with an optional sign (as ``_Tokens.intlike``)."""
    return _INT.fullmatch(s) is not None


def _plain_int(s: str) -> bool:
    """An integer label read as a number: ``_intish`` and written plainly (not ``+7``, ``007``, ``-0``)."""
    return _PLAIN_INT.fullmatch(s) is not None


_HEADER_SAMPLE = 50


def _detect_header(tok, first_tok, nfields) -> bool:
    """Whether the first data row is a header, from a sample of the first rows.

    A header when neither of its first two fields is a number while those of the next rows
    (up to 50) are integers; for string labels, when the fields are column names
    (:data:`_HEADER_WORDS`).
    """
    def fields(i):
        return [tok.token(int(first_tok[i]) + k) for k in range(min(int(nfields[i]), 2))]

    row0 = fields(0)
    if any(_is_number(f) for f in row0):
        return False  # numbers (even ones read as text, like 19-digit ids) are never column names
    sample = range(1, min(first_tok.size, _HEADER_SAMPLE + 1))
    if len(sample) and all(len(f) == 2 and all(_intish(x) for x in f) for f in map(fields, sample)):
        return True
    if not _looks_like_header(row0):
        return False
    # column names that are also vertex labels further down ("u v", then "v w") are the first edge;
    # only label tokens as long as a name can be one (a cheap length test before any string is built)
    names = {tok.raw[tok.ts[t]:tok.te[t]] for t in (int(first_tok[0]), int(first_tok[0]) + 1)}
    rest = first_tok[1:][nfields[1:] >= 2]
    labels = np.concatenate([rest, rest + 1])
    labels = labels[np.isin(tok.te[labels] - tok.ts[labels], [len(b) for b in names])
                    & np.isin(tok.arr[tok.ts[labels]], [b[0] for b in names])]  # same length, same first byte
    return not any(tok.raw[tok.ts[t]:tok.te[t]] in names for t in labels.tolist())


def _in_comments(tok: _Tokens, kept, pos) -> np.ndarray:
    """For byte positions ``pos``: inside a comment, i.e. in or after a comment token of the
    same line (``kept``: the mask of the tokens outside comments)."""
    if kept.all():
        return np.zeros(len(pos), dtype=bool)
    t = np.searchsorted(tok.ts, pos, side="right") - 1
    tc = np.maximum(t, 0)
    return (t >= 0) & ~kept[tc] & (tok.tline[tc] == np.searchsorted(tok.nl, pos))


def _quotes_in_rows(tok: _Tokens, rows, kept) -> bool:
    """True when a double quote occurs on a data row outside comments (comments may quote freely)."""
    if b'"' not in tok.raw:
        return False
    if kept.all():  # no comment: a quote is part of a token, so its line is a row
        return True
    rawarr = np.frombuffer(tok.raw, dtype=np.uint8)
    qpos = np.flatnonzero(rawarr == 34)
    return any(_on_rows(tok, rows, part[~_in_comments(tok, kept, part)])  # the first quotes usually tell
               for part in (qpos[:1000], qpos[1000:]))


# where the tokeniser's comments start: '#' or '%' at the start of a token (_Tokens.comment_free)
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


def _on_rows(tok: _Tokens, rows, pos) -> bool:
    """Whether one of the byte positions ``pos`` lies on one of the (0-based) lines ``rows``."""
    is_row = np.zeros(tok.nlines + 1, dtype=bool)
    is_row[rows] = True
    return bool(is_row[np.searchsorted(tok.nl, pos)].any())


def _empty_csv_fields(tok: _Tokens, rows, kept) -> bool:
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


def _commas_disagree(tok: _Tokens, rows, nfields) -> bool:
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


def _strip_comments(text: str) -> str:
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
# the bytes _split_fields looks at: line ends, quotes, comment marks and every separator
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
class _Fields:
    """The rows of an edge list split into fields, as :func:`_read_edgelist_csv_reference` splits
    them: field ``f`` is ``tok.token(f)`` (the quotes that are not part of it removed, stripped as
    that reader strips), row ``i`` has fields ``first[i]`` .. ``first[i] + nf[i] - 1`` and lies on
    1-based line ``line[i]``; ``delim`` is ",", "\\t" or None (whitespace, shlex-style)."""

    tok: _Tokens
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


def _split_fields(data: bytes, text: str, path):
    """Split ``data`` (UTF-8, no NUL) into :class:`_Fields` exactly as the per-line reader does, with
    NumPy instead of a loop over lines; None when it cannot be sure to (the caller then reads the
    file line by line).

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
    sample = data[ls[filled[0]]:le[filled[0]]].decode("utf-8") if filled.size else ""
    sample = re.sub(r'"[^"]*"?', "", sample)
    delim = "," if "," in sample else ("\t" if "\t" in sample else None)

    if delim is None:
        if odd.size:
            i = int(odd[0])
            ln = data[ls[i]:le[i]].decode("utf-8")
            raise GraphFormatError(f"{path}:{i + 1}: cannot split the line (No closing quotation): {_snippet(ln)}")
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
    return _Fields(_Tokens.of(buf, fs, fe), rows + 1, nf, np.cumsum(nf) - nf, delim)


def _quotes_well_formed(arr, data, q, ql, opening, closing, sep, ls, le, delim) -> bool:
    """Whether every opening quote (``q[opening]``, on lines ``ql``) starts its field after spaces
    only and every closing one ends it before blanks only, as :func:`_split_fields` needs of a CSV
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


def _read_edgelist_csv(raw: bytes, path, is_directed, reason, header) -> GraphData:
    """Edge lists that need real CSV parsing (quoted fields, spaces inside fields), vectorised.

    Gives what :func:`_read_edgelist_csv_reference` gives, graph or error: the fields come from
    :func:`_split_fields`, or from the reference itself for the files that function leaves to it.
    """
    text = raw.decode("utf-8", "backslashreplace")
    data = raw if raw.isascii() else text.encode("utf-8")  # invalid bytes as the reference reads them
    fields = _split_fields(data, text, path)
    if fields is None:
        return _read_edgelist_csv_reference(raw, path, is_directed, reason, header)
    return _edgelist_from_fields(fields, path, is_directed, reason, header)


def _edgelist_from_fields(fields: _Fields, path, is_directed, reason, header) -> GraphData:
    """The graph of split rows, with the decisions and messages of the per-line reader (header,
    weights, integer or string labels), made on whole columns."""
    tok, delim = fields.tok, fields.delim
    notes = []
    if fields.line.size == 0:
        return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))

    def column(k):
        """Token of field k of every row, and whether the row has one (else its first field)."""
        has = fields.nf > k
        return np.where(has, fields.first + k, fields.first), has

    if header is None:
        r0 = fields.row(0)
        c0, _ = column(0)
        c1, has2 = column(1)
        if any(_is_number(f) for f in r0[:2]):
            header = False
        elif fields.line.size > 1 and has2[1:].all() and \
                tok.all_intlike(c0[1:]) and tok.all_intlike(c1[1:]):
            header = True
        else:  # column names, unless they are also vertex labels further down
            names = set(r0[:2])
            header = _looks_like_header(r0) and not _any_label_in(tok, np.concatenate([c0[1:], c1[1:][has2[1:]]]),
                                                                   names)
    if header:
        notes.append(f"skipped the header row (line {int(fields.line[0])}): {_snippet(','.join(fields.row(0)))}")
        fields.drop_first_row()
        if fields.line.size == 0:
            return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
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
                               f"{found}: {_snippet(shown)}")
    c2, has3 = column(2)
    weighted = bool(has3[0]) and _is_number(tok.token(int(c2[0])))
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
        if not has3[0] and _is_number(tok.token(int(c2[i]))):
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
            return _compact_int(vals[0::2], vals[1::2], w, path, is_directed, reason, lines, notes)
        j = int(odd[0])
        notes.append(f"vertex labels read as text, in order of first appearance: {tok.token(int(both[j]))!r} "
                     f"(line {where[j // 2]}) is not written as a plain integer")
    return _compact_strings(tok.strings(both), w, path, is_directed, reason, lines, notes)


def _any_label_in(tok: _Tokens, idx, names) -> bool:
    """Whether one of tokens ``idx`` is one of the strings ``names`` (only the tokens as long as a
    name are compared)."""
    names = [name.encode("utf-8") for name in names]
    idx = idx[np.isin(tok.te[idx] - tok.ts[idx], [len(b) for b in names])]
    if idx.size == 0:
        return False
    labels = tok.strings(idx)
    return any(bool((labels == name).any()) for name in names)


# bytes that make a token no number to _parses (Python's float takes '_' and non-ASCII digits)
_NOT_NUMBER_BYTE = np.zeros(256, dtype=bool)
_NOT_NUMBER_BYTE[95] = True
_NOT_NUMBER_BYTE[128:] = True


def _parse_weights(tok: _Tokens, idx, missing):
    """Tokens ``idx`` as Python's ``float`` reads them when :func:`_parses` accepts them: (weights,
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
        return None, next(i for i, v in enumerate(values) if not _parses(v.decode("ascii")))
    return (w, None) if stop == idx.size else (None, stop)


def _parse_ints(tok: _Tokens, idx):
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


def _read_edgelist_csv_reference(raw: bytes, path, is_directed, reason, header) -> GraphData:
    """Edge lists that need real CSV parsing (quoted fields, spaces inside fields), line by line:
    the reference that :func:`_read_edgelist_csv` must agree with (slow: ``shlex`` reads a
    whitespace-separated file character by character).

    The delimiter is a comma, else a tab, else whitespace (each line split, quotes kept), as
    the first data row has them outside quotes; comments as the tokeniser reads them.
    """
    text = _strip_comments(raw.decode("utf-8", "backslashreplace"))
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
                raise GraphFormatError(f"{path}:{i + 1}: cannot split the line ({e}): {_snippet(ln)}") from None
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
        return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64))

    intish = _intish

    if header is None:
        r0 = rows[0]
        if any(_is_number(f) for f in r0[:2]):
            header = False
        elif len(rows) > 1 and all(len(r) >= 2 and intish(r[0]) and intish(r[1]) for r in rows[1:]):
            header = True
        else:  # column names, unless they are also vertex labels further down
            names = set(r0[:2])
            header = _looks_like_header(r0) and not any(f in names for r in rows[1:] for f in r[:2])
    if header:
        notes.append(f"skipped the header row (line {where[0]}): {_snippet(','.join(rows[0]))}")
        rows, where = rows[1:], where[1:]
        if not rows:
            return _empty_graph(path, "edgelist", is_directed, reason, labels=np.zeros(0, dtype=np.int64),
                                notes=notes)
    for r, ln in zip(rows, where):
        if len(r) < 2 or r[0] == "" or r[1] == "":
            shown = (delim or " ").join(r)
            found = f"found {len(r)}" if len(r) < 2 else f"the {'source' if r[0] == '' else 'target'} is empty"
            raise GraphFormatError(f"{path}:{ln}: expected at least 2 fields 'source target [weight]', "
                                   f"{found}: {_snippet(shown)}")
    weighted = len(rows[0]) >= 3 and _is_number(rows[0][2])
    w = None
    if weighted:
        wl = []
        for r, ln in zip(rows, where):
            if len(r) < 3 or r[2] == "":
                raise GraphFormatError(f"{path}:{ln}: expected a weight in field 3 (line {where[0]} has one)")
            try:
                if not _parses(r[2]):
                    raise ValueError(r[2])
                wl.append(float(r[2]))
            except ValueError:
                raise GraphFormatError(f"{path}:{ln}: non-numeric weight {r[2]!r} in field 3 (expected a "
                                       f"number, as on line {where[0]})") from None
        w = np.array(wl, dtype=np.float64)
    elif any(len(r) >= 3 for r in rows):
        i = next(i for i, r in enumerate(rows) if len(r) >= 3)
        if len(rows[0]) < 3 and _is_number(rows[i][2]):
            raise GraphFormatError(f"{path}:{where[i]}: a weight in field 3, but line {where[0]} has none; "
                                   "give every edge a weight, or none")
        notes.append("ignored the non-numeric 3rd field and any later fields")
    lines = np.array(where, dtype=np.int64)
    if all(_plain_int(r[0]) and _plain_int(r[1]) for r in rows):
        s = np.array([int(r[0]) for r in rows], dtype=np.int64)
        d = np.array([int(r[1]) for r in rows], dtype=np.int64)
        return _compact_int(s, d, w, path, is_directed, reason, lines, notes)
    if all(intish(r[0]) and intish(r[1]) for r in rows):  # '007' or '+7': every label is a string
        i, odd = next((i, f) for i, r in enumerate(rows) for f in r[:2] if not _plain_int(f))
        notes.append(f"vertex labels read as text, in order of first appearance: {odd!r} "
                     f"(line {where[i]}) is not written as a plain integer")
    both = [f.encode("utf-8", "backslashreplace") for r in rows for f in r[:2]]
    # fixed-width bytes sort several times faster than objects (no NUL byte to lose: _check_text),
    # unless a few very long labels would make a huge matrix (as _Tokens.strings)
    width = max(map(len, both))
    both = np.array(both, dtype=object if width > 64 and len(both) * width > 500_000_000 else f"S{width}")
    return _compact_strings_reference(both, w, path, is_directed, reason, lines, notes)


def _compact_int(s, d, w, path, is_directed, reason, lines, notes) -> GraphData:
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
    return GraphData(src, dst, w, int(labels.size), labels, is_directed, reason, _self_loop_count(src, dst),
                     str(path), "edgelist", lines=lines, notes=notes)


def _compact_strings(both, w, path, is_directed, reason, lines, notes, *, group=None) -> GraphData:
    """Compact string labels (bytes, interleaved src0, dst0, src1, ...) in first-appearance order,
    grouping them with ``group`` (default :func:`_first_appearance`: a 64-bit key of their bytes)."""
    ids, firsts = (group or _first_appearance)(both)
    labels = np.array([b.decode("utf-8", "backslashreplace") for b in both[firsts].tolist()], dtype=object)
    labels = labels.astype(str) if labels.size else np.zeros(0, dtype=str)
    src, dst = ids[0::2].copy(), ids[1::2].copy()
    return GraphData(src, dst, w, int(labels.size), labels, is_directed, reason, _self_loop_count(src, dst),
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


def _compact_strings_reference(both, w, path, is_directed, reason, lines, notes) -> GraphData:
    """:func:`_compact_strings` with the labels grouped by ``np.unique`` of the bytes: its reference."""
    return _compact_strings(both, w, path, is_directed, reason, lines, notes, group=_first_appearance_unique)
