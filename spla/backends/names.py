"""The product kernels' names, shared by the API, both backends and the adapters."""

from __future__ import annotations

from ..errors import UnknownNameError

#: The GPU product kernels ``vxm``/``mxv`` take by name (besides "auto"); the CPU backend accepts them
#: all and runs one implementation.
KERNELS = ("scCSC", "veCSC", "scCOOC", "push")
_KERNEL_BY_LOWER = {k.lower(): k for k in KERNELS}


def normalize_kernel(kernel) -> str:
    """'auto' or the canonical spelling of a kernel name (case-insensitive); UnknownNameError otherwise."""
    if isinstance(kernel, str):
        if kernel.lower() == "auto":
            return "auto"
        if kernel.lower() in _KERNEL_BY_LOWER:
            return _KERNEL_BY_LOWER[kernel.lower()]
    raise UnknownNameError(f"unknown kernel {kernel!r}; use 'auto' or one of {', '.join(KERNELS)}")
