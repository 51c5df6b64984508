"""Python source that rebuilds arrays and matrices on the CPU, for failure reports.

:func:`array_source` writes a NumPy/CuPy array's values (NaN and infinities included), dtype and
shape; :func:`matrix_source` a :class:`spla.Matrix` through ``spla.Matrix.from_csc``.
"""

from __future__ import annotations

import numpy as np

from .. import device as _dev
from ..matrix import Matrix


def _element_source(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_element_source(x) for x in v) + "]"
    if isinstance(v, float) and not np.isfinite(v):
        return "np.nan" if np.isnan(v) else ("np.inf" if v > 0 else "-np.inf")
    return repr(v)


def array_source(x) -> str:
    """Python that rebuilds the NumPy/CuPy array ``x`` on the CPU: values (NaN and infinities
    included), dtype and shape (a (0, k) block too); "None" for None."""
    if x is None:
        return "None"
    x = _dev.to_numpy(x)
    src = f"np.array({_element_source(x.tolist())}, dtype=np.dtype({x.dtype.name!r}))"
    return src if x.ndim == 1 and x.size else f"{src}.reshape({x.shape!r})"


def matrix_source(A: Matrix) -> str:
    """Python that rebuilds ``A`` on the CPU (for failure reports)."""
    colptr = _dev.to_numpy(A.colptr).tolist()
    rowidx = _dev.to_numpy(A.rowidx).tolist()
    vsrc = array_source(A.values)
    return (f"spla.Matrix.from_csc({colptr!r}, {rowidx!r}, {vsrc}, {A.shape!r}, "
            f"directed={A.directed!r}, device='cpu')" + ("" if A.directed else "  # undirected: A.T is A"))
