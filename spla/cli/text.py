"""How the ``spla`` command shows text that comes from the input on a terminal: vertex labels,
file names and error messages, with their non-printable characters escaped.

A graph file is anyone's text: a label may hold terminal escape sequences (``\\x1b[31m``, a
window title ``\\x1b]0;...\\x07``) that would run if printed raw, and bytes that are not UTF-8
(read with ``surrogateescape``, see :mod:`spla.io.labels`).  :func:`escape` is the one place that
turns such text into something safe to print; files the command writes keep the text as it was.
"""

from __future__ import annotations

__all__ = ["escape"]

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(c: str) -> str:
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as surrogateescape decodes it: the byte
        return f"\\x{code - 0xDC00:02x}"
    if c in _NAMED:
        return _NAMED[c]
    if code < 0x80:
        return f"\\x{code:02x}"
    # a character of its own, in the form no byte above takes (U+0085 is \u0085, the byte 0x85 \x85)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape(text, *, backslashes: bool = True) -> str:
    """``text`` with every non-printable character written as an escape: ``\\xNN`` for an ASCII
    control character or a byte that is not UTF-8, ``\\t``, ``\\n``, ``\\r``, and ``\\uNNNN`` or
    ``\\UNNNNNNNN`` for any other (``str.isprintable`` decides; printable Unicode stays as it is).

    ``backslashes`` (the default, for labels): a backslash is written ``\\\\``, so that two different
    texts never look the same (the byte 0xE9 is ``caf\\xe9``, the four characters ``\\xe9`` are
    ``caf\\\\xe9``).  Error messages pass False: they quote labels with ``repr``, which has doubled
    their backslashes already.
    """
    text = str(text)
    if text.isprintable() and not (backslashes and "\\" in text):
        return text
    return "".join("\\\\" if c == "\\" and backslashes else c if c.isprintable() else _escaped(c) for c in text)
