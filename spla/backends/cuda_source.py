"""The text of a CUDA source file with its local ``#include "..."`` lines inlined.

The GPU backend hands kernel source to CuPy's ``RawModule`` (NVRTC) as one string, and CuPy keys
its compiled-module cache by a hash of that string.  Were ``spla/kernels/spmv.cuh`` handed over with
its ``#include "spmv/<family>.cuh"`` lines, an edit of an included file would leave the string, and
so the cache key, unchanged: a stale kernel.  :func:`load` returns the text with every local include
replaced by the included file's text (recursively, each file at most once), so the string changes
whenever any part does.  nvcc, which reads the files itself, compiles the same headers unchanged.

Each inlined file is framed by ``#line`` directives, so NVRTC's errors name the file and line they
come from.  The names in those directives are relative to the directory of the file passed to
:func:`load` (``spmv/reduce.cuh``), never absolute paths: the text, and so CuPy's cache key, does
not depend on where spla is installed.

This is not a preprocessor: every ``#include "..."`` line outside comments is inlined, whatever
``#if`` surrounds it; ``#include <...>`` lines are left as they are (NVRTC resolves those itself).
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

__all__ = ["load", "files"]

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*$', re.M)


def _resolve(name: str, includer: Path, line: int) -> Path:
    """The file that ``#include "name"`` on `line` of `includer` names (relative to `includer`)."""
    target = (includer.parent / name).resolve()
    if not target.is_file():
        raise FileNotFoundError(errno.ENOENT,
                                f'{includer}:{line}: #include "{name}" names no file (looked for {target})',
                                str(target))
    return target


def _walk(path: Path, root: Path, seen: dict, out: list):
    """Append `path`'s text with its includes inlined to `out`; `seen` records the files read, in order."""
    seen[path] = None
    text = path.read_text()
    label = Path(os.path.relpath(path, root)).as_posix()
    pos = 0
    for m in _INCLUDE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        target = _resolve(m.group(1), path, line)
        out.append(text[pos:m.start()])
        if target in seen:
            out.append(f'// #include "{m.group(1)}": already inlined above')
        else:
            out.append(f'#line 1 "{Path(os.path.relpath(target, root)).as_posix()}"\n')
            _walk(target, root, seen, out)
            out.append(f'\n#line {line + 1} "{label}"')
        pos = m.end()
    out.append(text[pos:])


def _inline(path) -> tuple[str, list[Path]]:
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, f"no CUDA source file {path}", str(path))
    seen: dict = {}
    out: list = []
    _walk(path, path.parent, seen, out)
    return "".join(out), list(seen)


def load(path) -> str:
    """The text of the CUDA source file `path`, every local ``#include "relative/path"`` inlined.

    Included files are found relative to the file that includes them and inlined recursively, each
    at most once (a later include of the same file becomes a comment, as an include guard would
    make it); ``#line`` directives before and after each inlined file keep compile errors pointing
    at the right file and line.  ``#include <...>`` lines are kept.  Raises FileNotFoundError when
    `path`, or a file some include names, does not exist (naming the including file and line).
    """
    return _inline(path)[0]


def files(path) -> list[Path]:
    """Every file :func:`load` reads for `path`: `path` itself first, then each included file in
    the order it is first inlined (absolute paths).  For packaging checks: each must ship."""
    return _inline(path)[1]
