"""Devices: where a Matrix and its vectors live.

A device is ``"cpu"`` (NumPy/SciPy backend) or ``"gpu:N"`` (CuPy backend on CUDA
device N).  Users may also write ``"gpu"`` (device 0) or ``"auto"`` (the GPU when CuPy
sees one, else the CPU).
"""

from __future__ import annotations

import contextlib
import functools
import re

import numpy as np

from .errors import DeviceMismatch, NoGPUError, UnknownNameError

_GPU_RE = re.compile(r"^gpu(?::(\d+))?$")


@functools.lru_cache(maxsize=1)
def _cupy():
    """The cupy module, or None when it is not installed or sees no device."""
    try:
        import cupy  # noqa: F401

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # ImportError, CUDARuntimeError (no driver), ...
        return None


def gpu_available() -> bool:
    """True when CuPy is importable and sees at least one CUDA device."""
    return _cupy() is not None


def cupy_module():
    """The cupy module; raises NoGPUError with a remedy when there is none."""
    cp = _cupy()
    if cp is None:
        raise NoGPUError(
            "no GPU is available: CuPy is not installed or sees no CUDA device; "
            "install spla[cuda12] or spla[cuda13] on a machine with an NVIDIA GPU, or use device='cpu'"
        )
    return cp


def resolve(device) -> str:
    """Normalise a device name ("cpu", "gpu", "gpu:N" or "auto") to ``"cpu"`` or ``"gpu:N"``.

    None is refused like any other non-string: ``Matrix.to(None)`` moving a CPU matrix to the GPU
    would surprise a caller who meant "where it is" (what an algorithm's ``device=None`` means)."""
    if not isinstance(device, str):
        raise UnknownNameError(f"device must be a string like 'cpu', 'gpu', 'gpu:0' or 'auto', got {device!r}")
    if device == "auto":
        return "gpu:0" if gpu_available() else "cpu"
    if device == "cpu":
        return "cpu"
    m = _GPU_RE.match(device)
    if not m:
        raise UnknownNameError(f"unknown device {device!r}; use 'cpu', 'gpu', 'gpu:N' or 'auto'")
    cp = cupy_module()
    idx = int(m.group(1) or 0)
    count = cp.cuda.runtime.getDeviceCount()
    if idx >= count:
        raise NoGPUError(f"device {device!r} does not exist: CuPy sees {count} GPU(s) (gpu:0..gpu:{count - 1})")
    return f"gpu:{idx}"


def is_gpu(device: str) -> bool:
    return device.startswith("gpu")


def gpu_index(device: str) -> int:
    """N of "gpu:N"; 0 for "gpu" (device 0, as :func:`resolve` reads it)."""
    m = _GPU_RE.match(device)
    if not m:
        raise ValueError(f"not a GPU device name: {device!r}; use 'gpu' or 'gpu:N'")
    return int(m.group(1) or 0)


def array_module(device: str):
    """numpy for "cpu", cupy for "gpu:N"."""
    return cupy_module() if is_gpu(device) else np


def activate(device: str):
    """A context in which CuPy allocates and launches on ``device`` ("gpu:N"), so that work on a
    matrix of the second GPU stays there whichever device is current; for "cpu", or when "gpu:N"
    is already current, a context that does nothing (switching costs a few microseconds)."""
    if not is_gpu(device):
        return contextlib.nullcontext()
    cp = cupy_module()
    index = gpu_index(device)
    if cp.cuda.runtime.getDevice() == index:
        return contextlib.nullcontext()
    return cp.cuda.Device(index)


def is_cupy_array(x) -> bool:
    """Whether x is a CuPy array (False, without importing anything new, when there is no GPU)."""
    cp = _cupy()
    return cp is not None and isinstance(x, cp.ndarray)


def array_device(x) -> str:
    """The device an array lives on: "cpu" for NumPy arrays, "gpu:N" for CuPy arrays."""
    if isinstance(x, np.ndarray):
        return "cpu"
    cp = _cupy()
    if cp is not None and isinstance(x, cp.ndarray):
        return f"gpu:{x.device.id}"
    raise TypeError(f"expected a NumPy or CuPy array, got {type(x).__name__}")


def to_device(x, device: str):
    """Copy array ``x`` to ``device`` (no copy when it is already there)."""
    if is_gpu(device):
        cp = cupy_module()
        with cp.cuda.Device(gpu_index(device)):
            return cp.asarray(x)
    if isinstance(x, np.ndarray):
        return x
    return x.get()


#: CuPy arrays of this many bytes or more (up to PINNED_MAX) come back through page-locked host memory
#: (CuPy's pinned memory pool): the copy runs at the link's speed instead of through the driver's
#: staging buffers.  The pool keeps what it pinned, so larger one-off copies (a matrix's index arrays)
#: go the pageable way.
PINNED_MIN = 1 << 16
PINNED_MAX = 1 << 26


def to_numpy(x):
    """A NumPy copy/view of a NumPy or CuPy array (a CuPy array of PINNED_MIN..PINNED_MAX bytes comes
    back in pinned host memory, which NumPy uses like any other)."""
    if isinstance(x, np.ndarray):
        return x
    if not hasattr(x, "get"):
        return np.asarray(x)
    if PINNED_MIN <= x.nbytes <= PINNED_MAX and x.flags.c_contiguous:
        import cupyx

        out = cupyx.empty_pinned(x.shape, dtype=x.dtype)
        x.get(out=out)
        return out
    return x.get()


# Bool reductions.  CuPy reduces bool arrays (any, sum, count_nonzero) with CUB block reductions that it
# compiles on first use, and again for small arrays, or without that accelerator in one thread block.
# Reductions whose input and output dtypes are equal (max of uint8, sum of int64) go to the device-wide
# CUB reductions that CuPy ships compiled: nothing to compile (docs/benchmarks.md, "Bool reductions
# without CUB's block reductions"; benchmarks/probes/probe_reductions.py).
def any_true(x) -> bool:
    """Whether the bool array ``x`` (NumPy or CuPy, any shape, empty allowed) has a True element."""
    if not is_cupy_array(x):
        return bool(np.any(x))
    return x.size > 0 and bool(x.view(np.uint8).max())  # a CuPy bool is one byte, 0 or 1


def count_true(x) -> int:
    """The number of True elements of the bool array ``x`` (NumPy or CuPy, any shape)."""
    if not is_cupy_array(x):
        return int(np.count_nonzero(x))
    return int(x.astype(np.int64).sum()) if x.size else 0


class HostCopy:
    """A page-locked host copy of a small device array, for a loop that reads a few values per step.

    ``read()`` copies the array into the pinned buffer (one ``cudaMemcpyAsync`` on the current
    stream, then a wait for that stream) and returns the host NumPy array, valid until the next
    read.  Cheaper than ``x.get()`` (no allocation, no pageable staging), and outside any recorded
    step: CuPy cannot capture a device-to-host copy into a CUDA graph.  For a NumPy array ``read()``
    returns the array itself.  The copy runs on the array's GPU (its current stream), whichever GPU
    is current, so that it follows the work queued there.
    """

    def __init__(self, x):
        self.src = x
        if isinstance(x, np.ndarray):
            self.host = x
        else:
            import cupyx

            if not x.flags.c_contiguous:
                raise ValueError("HostCopy needs a C-contiguous array")
            self.host = cupyx.empty_pinned(x.shape, dtype=x.dtype)
            self.device = f"gpu:{x.device.id}"

    def read(self):
        if self.host is not self.src:
            cp = cupy_module()
            # on another GPU's stream the copy would not wait for the kernels that write the array
            with activate(self.device):
                stream = cp.cuda.get_current_stream()
                cp.cuda.runtime.memcpyAsync(self.host.ctypes.data, self.src.data.ptr, self.src.nbytes,
                                            cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
                stream.synchronize()
        return self.host


def check_same_device(name: str, x, device: str):
    """Raise DeviceMismatch unless array ``x`` lives on ``device``."""
    try:
        where = array_device(x)
    except TypeError:
        raise TypeError(
            f"{name} must be a {'CuPy' if is_gpu(device) else 'NumPy'} array on {device}, "
            f"got {type(x).__name__}"
        ) from None
    if where != device:
        raise DeviceMismatch(
            f"{name} lives on {where} but the matrix lives on {device}; "
            f"move one of them (Matrix.to({where!r}) or spla.device.to_device(x, {device!r}))"
        )
