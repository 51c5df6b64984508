"""Where the ``spla centrality`` table goes: the checks on ``--out`` made before computing, and
the writing of the table (CSV or TSV, gzip-compressed for ``.gz``, atomically for a regular file).

A file is written under a temporary name in the same directory and renamed when complete, so a
failure or Ctrl-C never leaves a truncated file or clobbers an existing one; a name that is not a
regular file (/dev/null, /dev/stdout, a FIFO) is written into directly.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import os
import stat
import sys
import tempfile

import numpy as np

from .errors import UsageError

__all__ = ["check_output_path", "write_table"]


def _special_file(path) -> bool:
    """Whether ``path`` exists and is not a regular file (/dev/null, /dev/stdout, a FIFO): the
    table is written into it directly, since renaming a file over it would replace the device."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def check_output_path(out, graph=None):
    """Fail early (before computing) when --out cannot be written, or would replace the
    input file ``graph`` (a path, or None for stdin and the bundled graph)."""
    if out is None:
        return
    if out == "":
        raise UsageError("--out is empty; give a file name, or - for stdout")
    if os.path.isdir(out) or out.endswith(("/", os.sep)):
        raise UsageError(f"--out {out}: is a directory; give a file name")
    if graph is not None and os.path.isfile(graph) and os.path.exists(out) and os.path.samefile(graph, out):
        raise UsageError(f"--out {out}: is the input graph file {graph}; writing the table there would "
                         f"replace the graph; give another file name")
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


def _delimiter_for(out) -> str:
    name = str(out).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return "\t" if name.endswith((".tsv", ".tab")) else ","


def write_table(out, header, columns):
    """Write rows ``zip(*columns)`` with ``header`` as CSV/TSV to file ``out`` (atomically:
    temporary file in the same directory, then ``os.replace``; into ``out`` itself when it is
    not a regular file, such as /dev/null or a FIFO) or, when ``out`` is None, as CSV to
    stdout.  Raises UsageError when the file cannot be written."""
    rows = zip(*[c.tolist() if isinstance(c, np.ndarray) else list(c) for c in columns])
    if out is None:
        stream = sys.stdout
        if hasattr(stream, "reconfigure") and str(stream.encoding).lower().replace("_", "-") != "utf-8":
            # UTF-8 as in a file: a label the locale's encoding lacks (ASCII, cp1252) would stop the
            # table half-way with a UnicodeEncodeError
            stream.flush()
            stream.reconfigure(encoding="utf-8")
        w = csv.writer(stream, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        sys.stdout.flush()
        return
    try:
        _write_file(out, header, rows)
    except BrokenPipeError:  # --out /dev/stdout | head: main handles it as for stdout
        raise
    except OSError as e:  # a full disk, a file system that refuses files (/proc), ...
        raise UsageError(f"--out {out}: cannot write the table: {e.strerror or e}") from None


def _write_file(out, header, rows):
    if _special_file(out):  # /dev/null, /dev/stdout, a FIFO: write into it, there is no file to replace
        with open(out, "wb") as raw:
            _write_rows(raw, out, header, rows)
        return
    target = os.path.realpath(out)  # through a symlink, replace its target, not the link
    parent = os.path.dirname(target)
    base = os.path.basename(target)
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{base}.", suffix=".tmp")
    try:
        try:
            mode = os.stat(target).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        with open(fd, "wb") as raw:
            _write_rows(raw, out, header, rows)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_rows(raw, out, header, rows):
    """The table into the binary file ``raw``: CSV or TSV, gzip-compressed, as the name ``out`` says."""
    # the format follows the name the user gave (a link's target may be named otherwise)
    gz_name = os.path.basename(out)[:-3]
    stream = gzip.GzipFile(filename=gz_name, mode="wb", fileobj=raw) \
        if str(out).lower().endswith(".gz") else contextlib.nullcontext(raw)
    with stream as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8", newline="")
        w = csv.writer(text, delimiter=_delimiter_for(out), lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        text.flush()
        text.detach()
