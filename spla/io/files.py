"""Opening graph files: reading the bytes, decompressing them, and telling their format.

* The content is decompressed when its magic bytes say gzip, bzip2 or xz, whatever the file's name;
  a binary stream (``sys.stdin.buffer``) is read to its end and named by its ``name``.
* Graph files are text (ASCII or UTF-8, with or without a byte order mark); a NUL byte, as in
  UTF-16 text or binary data, is refused.  Lines ended by CR alone are read as LF-ended.
* The format is the one named (:data:`FORMATS` and their aliases), else the one of the extension
  after stripping ``.gz``/``.gzip``/``.bz2``/``.xz``; a ``%%MatrixMarket`` banner wins over any
  extension.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import zlib
from pathlib import Path

from .graphdata import GraphFormatError


#: Canonical format names accepted by ``read_graph(format=...)`` and their aliases.
FORMATS = {
    "mtx": "mtx", "mm": "mtx", "matrixmarket": "mtx", "matrix-market": "mtx",
    "edgelist": "edgelist", "edges": "edgelist", "edge-list": "edgelist", "txt": "edgelist",
    "csv": "edgelist", "tsv": "edgelist", "snap": "edgelist", "konect": "edgelist",
    "metis": "metis", "graph": "metis",
    "dimacs": "dimacs", "gr": "dimacs",
    "gml": "gml",
}
_EXTENSIONS = {
    ".mtx": "mtx", ".mm": "mtx",
    ".graph": "metis", ".metis": "metis",
    ".txt": "edgelist", ".tsv": "edgelist", ".csv": "edgelist", ".edges": "edgelist",
    ".el": "edgelist", ".edgelist": "edgelist", ".dat": "edgelist",
    ".gr": "dimacs", ".gml": "gml",
}
_COMPRESSION_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz")
SUPPORTED = ("Matrix Market (.mtx), METIS (.graph, .metis), DIMACS shortest-path (.gr), GML (.gml, with networkx) "
             "and edge lists (.txt, .tsv, .csv, .edges, .el, .edgelist, .dat), optionally .gz/.bz2/.xz compressed")


def detect_format(path, head: bytes = b"") -> str:
    """The format of ``path`` ("mtx", "edgelist", "metis", "dimacs", "gml") from its name, else from ``head``.

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
                           f"mtx|edgelist|metis|dimacs|gml")


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


def _stream_name(path) -> str:
    """How messages name ``path``: itself, or a stream's ``name`` ("<stdin>"), else "<stream>"."""
    if hasattr(path, "read"):
        name = getattr(path, "name", None)
        return name if isinstance(name, str) else "<stream>"
    return path


def load(path, format=None):
    """``(raw, name, fmt)``: the content of ``path`` as the readers take it, the name messages
    give the file, and its canonical format.

    ``raw`` is decompressed (:func:`_read_bytes`), without a UTF-8 byte order mark, checked to
    be text (:func:`_check_text`), and with lines ended by CR alone turned into LF-ended ones.
    ``fmt`` is ``format`` (a name or alias of :data:`FORMATS`), else :func:`detect_format`'s.
    """
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
            raise GraphFormatError(f"unknown format {format!r}; use 'mtx', 'edgelist', 'metis', 'dimacs' or 'gml'")
        fmt = FORMATS[key]
    return raw, path, fmt
