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
(``spla.algorithms._common.on_graph_device``); code of your own that calls a fused function on arrays of
"gpu:1" while another GPU is current wraps the call in ``spla.device.activate("gpu:1")``.  The fused
function does not switch devices itself: finding the current device costs a few microseconds, paid
on every call of a per-level update.

Scalars: Python scalars are weak on both devices (a float32 array times 0.5 stays float32), and a
wider NumPy scalar promotes alike (float32 array · ``np.float64`` -> float64, with CuPy 13).  One
difference: a bool array with a Python number takes NumPy 2's default type on the CPU (bool · 2 ->
int64) and the smallest type that holds the value in ``cupy.fuse`` (int8), so the values agree and the
dtypes do not; cast a bool array (or pass a NumPy scalar) where the dtype matters.
"""

from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from . import device as _dev
from .errors import DeviceMismatch


_serial = itertools.count()


def fuse(factory, name=None):
    """Fused version of ``factory(xp)``; see the module docstring.  Arguments: arrays of one
    device (NumPy or CuPy) and Python/NumPy scalars; returns what ``fn`` returns.
    ``name`` (str) names the GPU kernel: the returned callable's ``kernel_name``, a C identifier
    derived from it (ASCII letters, digits and underscores)."""
    if not callable(factory):
        raise TypeError(f"spla.fuse takes a factory(xp) -> fn, e.g. spla.fuse(lambda xp: lambda s, f: s + f), "
                        f"got {type(factory).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"spla.fuse: name must be a str (it names the GPU kernel), got {type(name).__name__}")
    try:
        cpu_fn = factory(np)
    except TypeError as exc:  # most often the function itself passed instead of its factory
        raise TypeError(f"spla.fuse: factory(numpy) raised TypeError ({exc}); fuse takes a factory(xp) -> fn, "
                        "e.g. spla.fuse(lambda xp: lambda s, f: s + f)") from exc
    if not callable(cpu_fn):
        raise TypeError(f"spla.fuse: factory(numpy) returned {type(cpu_fn).__name__}, not a function; fuse takes "
                        "a factory(xp) -> fn, e.g. spla.fuse(lambda xp: lambda s, f: s + f)")
    gpu_fn = []
    kernel_name = "spla_fused_" + re.sub(r"[^0-9A-Za-z_]", "_", name or "") + f"_{next(_serial)}"

    @functools.wraps(cpu_fn)
    def run(*args, **kwargs):
        if kwargs:
            raise TypeError(f"spla.fuse functions take positional arguments only (as cupy.fuse), got keyword "
                            f"argument(s) {', '.join(kwargs)}; pass them in order")
        if not any(_dev.is_cupy_array(a) for a in args):  # NumPy arrays, lists and scalars: NumPy
            return cpu_fn(*args)
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                raise DeviceMismatch(f"spla.fuse {kernel_name}: argument {i} is a NumPy array {a.shape} beside "
                                     "CuPy arrays; pass arrays of one device (spla.device.to_device(x, 'gpu:N'))")
        if not gpu_fn:
            cp = _dev.cupy_module()
            fn = factory(cp)
            try:
                fn.__name__ = fn.__qualname__ = kernel_name  # cupy names the kernel after it
            except (AttributeError, TypeError):
                pass  # a cupy ufunc or builtin (read-only __name__): kernel_name= below names the kernel
            gpu_fn.append(cp.fuse(kernel_name=kernel_name)(fn))
        return gpu_fn[0](*args)

    run.kernel_name = kernel_name
    return run
