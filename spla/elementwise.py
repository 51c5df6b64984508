"""Fused elementwise array expressions, for the per-level bookkeeping of algorithms.

``spla.fuse(factory)`` takes ``factory(xp) -> fn``, a function of arrays and scalars
written with operators and ``xp`` ufuncs (``xp.where``, comparisons, arithmetic), and
returns a callable that runs ``fn`` as ONE fused kernel on CuPy arrays (``cupy.fuse``:
one read of each input, one write of each output, one launch) and as plain NumPy on
NumPy arrays.  It is an array operation, not a kernel: no CUDA source is written.

    update = spla.fuse(lambda xp: lambda s, f: (s + f, f != 0))
    sigma, new = update(sigma, frontier)

On the GPU the fused kernel runs on the *current* CUDA device, as every CuPy kernel does, and its
CuPy arguments must live there.  The algorithms make their graph's GPU current
(``algorithms._common.on_graph_device``); code of your own that calls a fused function on arrays of
"gpu:1" while another GPU is current wraps the call in ``spla.device.activate("gpu:1")``.  The fused
function does not switch devices itself: finding the current device costs a few microseconds, paid
on every call of a per-level update.
"""

from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from . import device as _dev


_serial = itertools.count()


def fuse(factory, name=None):
    """Fused version of ``factory(xp)``; see the module docstring.  Arguments: arrays of one
    device (NumPy or CuPy) and Python/NumPy scalars; returns what ``fn`` returns.
    ``name`` names the GPU kernel (a C identifier is derived from it)."""
    cpu_fn = factory(np)
    gpu_fn = []
    kernel_name = "spla_fused_" + re.sub(r"\W", "_", name or "") + f"_{next(_serial)}"

    @functools.wraps(cpu_fn)
    def run(*args):
        if not any(_dev.is_cupy_array(a) for a in args):  # NumPy arrays, lists and scalars: NumPy
            return cpu_fn(*args)
        if not gpu_fn:
            cp = _dev.cupy_module()
            fn = factory(cp)
            fn.__name__ = fn.__qualname__ = kernel_name  # cupy names the kernel after it
            gpu_fn.append(cp.fuse(kernel_name=kernel_name)(fn))
        return gpu_fn[0](*args)

    return run
