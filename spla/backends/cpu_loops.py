"""The CPU backend's compiled loops (numba): their modules loaded on first use, and the one lock their
parallel calls share.

Importing numba is not free, so a module of compiled loops (``cpu_paths_kernels``, ``cpu_sssp_kernels``)
is imported on its first use, and a failure to import it (numba missing or broken) is remembered
with the reason, which callers report.  numba's "workqueue" threading layer aborts the process when
two threads launch parallel loops at once: every parallel call of every such module runs under
:data:`LOCK` (each call uses every core already).
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["LOCK", "load", "threads"]

#: held around every parallel call of the compiled loops, whichever module they are in
LOCK = threading.Lock()

_loaded: dict = {}


def load(name: str):
    """``(module, "")``: the module ``spla.backends.<name>`` of compiled loops, imported once; or
    ``(None, why)`` when it cannot be imported (numba missing), ``why`` naming the fix."""
    if name not in _loaded:
        try:
            _loaded[name] = (importlib.import_module(f"{__package__}.{name}"), "")
        except Exception as exc:  # noqa: BLE001 - any failure to import numba means "not available"
            _loaded[name] = (None, f"numba is not importable ({type(exc).__name__}: {exc}); pip install numba")
    return _loaded[name]


def threads(name: str) -> int:
    """The threads the loops of module ``name`` run on: numba's thread count (``NUMBA_NUM_THREADS``,
    by default the machine's cores), or 1 when the module cannot be loaded."""
    if load(name)[0] is None:
        return 1
    import numba

    return int(numba.get_num_threads())
