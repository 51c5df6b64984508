"""The two backends with one set of semantics: ``cpu`` (NumPy/SciPy) and ``gpu`` (CuPy kernels)."""

from __future__ import annotations

from ..device import is_gpu
from . import cpu, gpu  # the gpu module imports without CuPy (it loads it on first use)


def for_device(device: str):
    """The backend module of a device string: ``gpu`` for "gpu" / "gpu:N", ``cpu`` otherwise."""
    return gpu if is_gpu(device) else cpu
