"""Where the ``spla centrality`` table goes: the checks on ``--out`` made before computing, the
file prepared for it, and the writing of the table.

* The format follows the name: ``.csv`` (comma-separated), ``.tsv``, ``.tab`` or ``.txt``
  (tab-separated), each optionally ``.gz`` (gzip-compressed), or ``.parquet`` (through pyarrow,
  the extra ``spla[parquet]``).  Any other name is refused before computing, as is ``.parquet``
  without pyarrow.
* A regular file is written under a temporary name in the same directory, created before
  computing (so that a folder where no file can be made is reported at once) and renamed over
  the name when complete; a failure or Ctrl-C removes it, never leaving a truncated file or
  clobbering an existing one.  A name that is not a regular file (/dev/null, /dev/stdout, a
  FIFO) is written into directly, as CSV unless its name says otherwise.
* The input graph file, and any file in the package's data folder (the bundled graph's), are
  refused: the table would replace the graph.
* Labels are written as the input had them: a label with bytes that are not UTF-8 (read with
  ``surrogateescape``, see :mod:`spla.io.labels`) gets those bytes back; only on a terminal are
  they shown escaped (:func:`spla.cli.text.escape`).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import itertools
import os
import secrets
import stat
import sys
from dataclasses import dataclass

import numpy as np

from .errors import UsageError
from .text import escape

__all__ = ["TEXT_FORMATS", "WRITTEN", "TableFormat", "table_format", "check_output_path", "TableOutput",
           "write_table"]

#: the text formats of ``--out``, by extension (before an optional ``.gz``): their delimiter
TEXT_FORMATS = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": "\t"}
#: the formats ``--out`` writes, as messages and the report name them
WRITTEN = ".csv, .tsv, .tab or .txt (tab-separated), each optionally .gz, and .parquet"

_ROWS_PER_CHUNK = 4096  # rows encoded and written at once (bounds the text held in memory)


@dataclass(frozen=True)
class TableFormat:
    """How the table is written: ``kind`` "text" (``delimiter``, gzip-compressed when ``gzip``) or
    "parquet"."""

    kind: str
    delimiter: str = ","
    gzip: bool = False


def _special_file(path) -> bool:
    """Whether ``path`` exists and is not a regular file (/dev/null, /dev/stdout, a FIFO): the
    table is written into it directly, since renaming a file over it would replace the device."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def table_format(out) -> TableFormat:
    """The format the name ``out`` asks for (the name given, not a link's target's); UsageError
    for a name whose extension is none of :data:`WRITTEN` (a special file without one is CSV)."""
    name = os.path.basename(str(out)).lower()
    gz = name.endswith(".gz")
    stem = name[:-3] if gz else name
    ext = os.path.splitext(stem)[1]
    if ext in TEXT_FORMATS:
        return TableFormat("text", TEXT_FORMATS[ext], gz)
    if ext == ".parquet" and not gz:
        return TableFormat("parquet")
    if _special_file(out):  # /dev/stdout, /dev/fd/N, a FIFO: named by the system, not for the format
        return TableFormat("text", ",", gz)
    shown = f"the extension '{ext}{'.gz' if gz else ''}'" if ext else \
        "a name without an extension" if not gz else "the extension '.gz' alone"
    hint = " (Parquet compresses its columns itself)" if ext == ".parquet" else ""
    raise UsageError(f"--out {out}: spla writes no table format with {shown}{hint}; it writes {WRITTEN}")


def _pyarrow(out):
    """pyarrow and pyarrow.parquet, or UsageError saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise UsageError(f'--out {out}: writing Parquet needs pyarrow: pip install "spla[parquet]" '
                         f"(or write .csv or .tsv)") from None
    return pyarrow, pyarrow.parquet


def check_output_path(out, graph=None, *, graph_name=None, protected=None):
    """Fail early (before computing) when --out cannot be written, names no format spla writes,
    would replace the input file ``graph`` (a path, or None for stdin; ``graph_name``: how the
    message names it) or lies in the folder ``protected`` (the package's data)."""
    if out is None:
        return
    if out == "":
        raise UsageError("--out is empty; give a file name, or - for stdout")
    if os.path.isdir(out) or out.endswith(("/", os.sep)):
        raise UsageError(f"--out {out}: is a directory; give a file name")
    if graph is not None and os.path.isfile(graph) and os.path.exists(out) and os.path.samefile(graph, out):
        raise UsageError(f"--out {out}: is the input graph file {graph_name or graph}; writing the table there "
                         f"would replace the graph; give another file name")
    if protected is not None:
        folder, target = os.path.realpath(protected), os.path.realpath(out)
        if os.path.splitdrive(target)[0] == os.path.splitdrive(folder)[0] and \
                os.path.commonpath([target, folder]) == folder:
            raise UsageError(f"--out {out}: is in spla's data folder {protected}, which holds the bundled graph; "
                             f"give a file name outside it")
    fmt = table_format(out)
    if fmt.kind == "parquet":
        _pyarrow(out)
    if _special_file(out):
        if not os.access(out, os.W_OK):
            raise UsageError(f"--out {out}: cannot write to it (permission denied)")
        return
    if os.path.isfile(out):
        # the table replaces the file by a rename, which its own permissions do not stop: honour them
        # (root included, as rm and cp -i do)
        mode = os.stat(out).st_mode & 0o777
        if not mode & 0o222 or not os.access(out, os.W_OK):
            raise UsageError(f"--out {out}: the file is write-protected (mode {mode:04o}); make it writable "
                             f"(chmod u+w {out}) or choose another name")
    parent = os.path.dirname(os.path.realpath(out))  # through a symlink, its target is written
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"--out {out}: cannot write in directory {parent} (permission denied)")


class TableOutput:
    """The destination of the table: stdout (``out`` None) or the file ``out``.

    Used as a context manager around the computation: entering creates the temporary file the
    table is written into (a regular file's; UsageError when the folder takes no new file), and
    leaving removes it unless :meth:`write` renamed it over ``out``, whatever ended the block
    (an error, Ctrl-C, SIGTERM).
    """

    def __init__(self, out):
        self.out = out
        self.format = TableFormat("text") if out is None else table_format(out)
        self.special = out is not None and _special_file(out)
        self._tmp = None  # the temporary file's name, set before the file exists
        self._fd = None

    def __enter__(self):
        try:
            self._create()
        except BaseException:
            self.discard()
            raise
        return self

    def __exit__(self, *exc):
        self.discard()
        return False

    def _create(self):
        if self.out is None or self.special:
            return
        target = os.path.realpath(self.out)  # through a symlink, replace its target, not the link
        parent, base = os.path.split(target)
        for _ in range(100):
            # the name is recorded before the file is made, so that an interrupt at any point leaves
            # discard() a name to remove
            self._tmp = os.path.join(parent, f".{base}.{secrets.token_hex(6)}.tmp")
            try:
                self._fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                                   0o600)
                return
            except FileExistsError:  # another file's name: not ours to remove
                self._tmp = None
            except OSError as e:
                self._tmp = None
                raise UsageError(f"--out {self.out}: cannot create a file in directory {parent}: "
                                 f"{e.strerror or e}") from None
        raise UsageError(f"--out {self.out}: cannot create a temporary file in directory {parent}")  # pragma: no cover

    def discard(self):
        """Close and remove the temporary file, if there is one."""
        fd, tmp, self._fd, self._tmp = self._fd, self._tmp, None, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def write(self, header, columns, *, terminal=False):
        """Write the table: rows ``zip(*columns)`` under ``header`` (the first column holds the
        vertex labels).  ``terminal``: stdout is a terminal, so labels are shown escaped.
        Raises UsageError when the file cannot be written."""
        if self.out is None:
            _write_stdout(header, columns, terminal)
            return
        try:
            if self.special:  # /dev/null, /dev/stdout, a FIFO: write into it, there is no file to replace
                with open(self.out, "wb") as raw:
                    _write_file(raw, self.out, self.format, header, columns, terminal=raw.isatty())
                return
            target = os.path.realpath(self.out)
            try:
                mode = os.stat(target).st_mode & 0o777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.fchmod(self._fd, mode)
            raw, self._fd = open(self._fd, "wb"), None  # the file object closes it from here on
            with raw:
                _write_file(raw, self.out, self.format, header, columns)
                raw.flush()
                os.fsync(raw.fileno())
            os.replace(self._tmp, target)
            self._tmp = None
        except BrokenPipeError:  # --out /dev/stdout | head: main handles it as for stdout
            raise
        except OSError as e:  # a full disk, a folder removed while computing, ...
            raise UsageError(f"--out {self.out}: cannot write the table: {e.strerror or e}") from None


def write_table(out, header, columns):
    """Write the table ``header`` / ``columns`` to ``out`` (None: CSV on stdout) at once, as
    :class:`TableOutput` does."""
    check_output_path(out)
    with TableOutput(out) as table:
        table.write(header, columns)


def _rows(columns):
    return zip(*[c.tolist() if isinstance(c, np.ndarray) else list(c) for c in columns])


def _write_text(write, encode, delimiter, header, rows):
    """The rows as CSV/TSV text, ``write``-n in chunks, each ``encode``-d (or str when None)."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    w.writerow(header)
    while True:
        chunk = list(itertools.islice(rows, _ROWS_PER_CHUNK))
        w.writerows(chunk)
        text = buf.getvalue()
        write(encode(text) if encode else text)
        buf.seek(0)
        buf.truncate()
        if len(chunk) < _ROWS_PER_CHUNK:
            return


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")  # a label's bytes that are not UTF-8 as they were read


def _shown(rows, terminal):
    """The rows, with their labels (first field) escaped for a terminal: shown, not run."""
    return ((escape(r[0]), *r[1:]) for r in rows) if terminal else rows


def _write_stdout(header, columns, terminal):
    rows = _shown(_rows(columns), terminal)
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream without bytes underneath (a StringIO)
        _write_text(stream.write, None, ",", header, rows)
        stream.flush()
        return
    # UTF-8 bytes, as in a file, whatever the locale's encoding (a label that ASCII or cp1252 lacks
    # would stop the table half-way with a UnicodeEncodeError)
    stream.flush()
    _write_text(buffer.write, _utf8, ",", header, rows)
    buffer.flush()


def _write_file(raw, out, fmt, header, columns, terminal=False):
    """The table into the binary file ``raw`` in the format ``fmt`` (``terminal``: ``raw`` is one,
    such as --out /dev/tty: labels escaped)."""
    if fmt.kind == "parquet":
        _write_parquet(raw, out, header, columns)
        return
    # gzip records the name given without .gz (a link's target may be named otherwise)
    stream = gzip.GzipFile(filename=os.path.basename(out)[:-3], mode="wb", fileobj=raw) \
        if fmt.gzip else contextlib.nullcontext(raw)
    with stream as binary:
        _write_text(binary.write, _utf8, fmt.delimiter, header, _shown(_rows(columns), terminal and not fmt.gzip))


def _write_parquet(raw, out, header, columns):
    """One Parquet column per table column: the labels as int64 or strings (binary, with the file's
    bytes, when a label is not UTF-8), the measures as their float64 or int64 values."""
    pa, pq = _pyarrow(out)
    labels, *values = columns
    labels = np.asarray(labels)
    if labels.dtype.kind in "iu":
        first = pa.array(labels)
    else:
        texts = [str(s) for s in labels.tolist()]
        try:
            first = pa.array(texts, type=pa.string())
        except UnicodeEncodeError:
            first = pa.array([_utf8(s) for s in texts], type=pa.binary())
    arrays = [first, *(pa.array(np.asarray(v)) for v in values)]
    pq.write_table(pa.table(arrays, names=list(header)), raw)
