"""Choosing an edge list's weight column by its name in the header row.

``read_graph(path, weight="distance")`` on an edge list whose header row names the columns
(``source,target,time,distance``) reads the column ``distance`` as the weights: the file is
rewritten, line for line (comments and empty lines kept as empty lines, so that messages name the
file's own lines), to its source, target and named column, and read as an edge list whose first
row is a header.  Fields are split as the per-line CSV reader splits them: by commas when the
header row has one outside quotes, else by tabs, else by whitespace.
"""

from __future__ import annotations

import csv
import io as _io
import re

from .fields import strip_comments
from .graphdata import GraphFormatError
from .tokens import snippet


def _splitter(sample: str):
    bare = re.sub(r'"[^"]*"?', "", sample)  # a comma inside quotes is no delimiter
    delim = "," if "," in bare else ("\t" if "\t" in bare else None)
    if delim is None:
        return None, lambda line: line.split()
    return delim, lambda line: [f.strip() for f in next(csv.reader([line], delimiter=delim, skipinitialspace=True))]


def select_weight_column(raw: bytes, path, name: str) -> bytes:
    """The file ``raw`` reduced to 'source target <name>' per line (see the module docstring), or
    GraphFormatError when the first data row names no column ``name``."""
    text = strip_comments(raw.decode("utf-8", "surrogateescape"))
    lines = text.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise GraphFormatError(f"{path}: the file is empty; the weight column {name!r} needs a header row")
    delim, split = _splitter(lines[first])
    head = [f.strip().strip('"') for f in split(lines[first])]
    if name not in head:
        raise GraphFormatError(f"{path}:{first + 1}: no column {name!r} in the header row {snippet(lines[first])}; "
                               f"name one of its columns (or give the weights in the 3rd field)")
    k = head.index(name)
    if k < 2:
        raise GraphFormatError(f"{path}:{first + 1}: column {name!r} is the {'source' if k == 0 else 'target'}, "
                               "not a weight column")
    out = _io.StringIO()
    writer = csv.writer(out, delimiter=delim or " ", lineterminator="\n")
    for i, ln in enumerate(lines):
        if not ln.strip():
            out.write("\n")
            continue
        try:
            fields = split(ln)
        except csv.Error as e:
            raise GraphFormatError(f"{path}:{i + 1}: malformed CSV: {e}") from None
        if len(fields) <= k:
            raise GraphFormatError(f"{path}:{i + 1}: expected column {name!r} in field {k + 1}, found "
                                   f"{len(fields)} fields: {snippet(ln)}")
        writer.writerow([fields[0], fields[1], fields[k]])
    return out.getvalue().encode("utf-8", "surrogateescape")
